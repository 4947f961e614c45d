package linalg

import (
	"errors"
	"fmt"
	"math"
)

// ErrNotPositiveDefinite is returned (wrapped) when a matrix that must be
// symmetric positive definite is not, numerically.
var ErrNotPositiveDefinite = errors.New("linalg: matrix is not positive definite")

// Cholesky is the factorization A = L·Lᵀ of a symmetric positive definite
// matrix A, with L lower triangular with a positive diagonal. The zero value
// is ready for Factorize; a Cholesky can be reused for matrices of the same
// size without allocating.
type Cholesky struct {
	l  Dense // lower triangle holds L, upper triangle is zero
	ok bool
}

// Factorize computes the Cholesky factor of the n×n matrix a, reading only
// its lower triangle (a is assumed symmetric). It returns an error wrapping
// ErrNotPositiveDefinite if a pivot is not positive or not finite; the
// receiver is then unusable until the next successful Factorize. It panics
// if a is not square. a is not modified.
//
// The factor is computed row by row (Cholesky–Banachiewicz):
// L_ij = (A_ij − Σ_{k<j} L_ik·L_jk) / L_jj and L_ii = sqrt(A_ii − Σ_{k<i} L_ik²),
// each sum in increasing k.
func (c *Cholesky) Factorize(a *Dense) error {
	if pivot, s, ok := c.factorize(a, "Factorize"); !ok {
		return fmt.Errorf("%w: pivot %d of %s is %g", ErrNotPositiveDefinite, pivot, shape(a), s)
	}
	return nil
}

// TryFactorize is Factorize for callers to whom a matrix that is not
// positive definite is an ordinary outcome, such as a test of a model's
// Hessian in every generation: it reports whether the factorization
// succeeded and allocates nothing either way.
func (c *Cholesky) TryFactorize(a *Dense) bool {
	_, _, ok := c.factorize(a, "TryFactorize")
	return ok
}

// factorize computes the factor (see Factorize) and reports success, or
// the failing pivot and its value; op names the caller for the panic of a
// matrix that is not square.
func (c *Cholesky) factorize(a *Dense, op string) (pivot int, s float64, ok bool) {
	if a.rows != a.cols {
		panic(fmt.Sprintf("linalg: Cholesky.%s: matrix %s is not square", op, shape(a)))
	}
	n := a.rows
	c.ok = false
	c.l.reuseAsNonZeroed(n, n)
	l := c.l.data
	for i := 0; i < n; i++ {
		li := l[i*n : i*n+n]
		ai := a.data[i*a.stride : i*a.stride+i+1]
		for j := 0; j < i; j++ {
			lj := l[j*n : j*n+j]
			s := ai[j] - dot(lj, li[:j])
			li[j] = s / l[j*n+j]
		}
		s := ai[i] - dot(li[:i], li[:i])
		if !(s > 0) || math.IsInf(s, 0) {
			return i, s, false
		}
		li[i] = math.Sqrt(s)
		clear(li[i+1:])
	}
	c.ok = true
	return 0, 0, true
}

func (c *Cholesky) mustBeOK(op string) {
	if !c.ok {
		panic("linalg: Cholesky." + op + ": no successful factorization")
	}
}

// Dim returns n for the factorization of an n×n matrix. It panics if there
// is no successful factorization.
func (c *Cholesky) Dim() int {
	c.mustBeOK("Dim")
	return c.l.rows
}

// L returns a newly allocated copy of the lower triangular factor L. It
// panics if there is no successful factorization.
func (c *Cholesky) L() *Dense {
	c.mustBeOK("L")
	var l Dense
	l.CopyFrom(&c.l)
	return &l
}

// LTo copies L into dst, which must be empty (it is sized) or n×n. It panics
// if there is no successful factorization.
func (c *Cholesky) LTo(dst *Dense) {
	c.mustBeOK("LTo")
	dst.CopyFrom(&c.l)
}

// SolveVecTo solves A·x = b for x by forward and back substitution and
// writes it into dst. dst and b must have length n; dst may be b. It panics
// on wrong lengths or if there is no successful factorization.
func (c *Cholesky) SolveVecTo(dst, b []float64) {
	c.mustBeOK("SolveVecTo")
	n := c.l.rows
	if len(dst) != n || len(b) != n {
		panic(fmt.Sprintf("linalg: Cholesky.SolveVecTo: factorization is %d×%d, dst has length %d, b has length %d", n, n, len(dst), len(b)))
	}
	l := c.l.data
	copy(dst, b)
	// L·y = b, forward.
	for i := 0; i < n; i++ {
		dst[i] = (dst[i] - dot(l[i*n:i*n+i], dst[:i])) / l[i*n+i]
	}
	// Lᵀ·x = y, backward: x_i = (y_i − Σ_{k>i} L_ki·x_k) / L_ii.
	for i := n - 1; i >= 0; i-- {
		s := dst[i]
		for k := i + 1; k < n; k++ {
			s -= float64(l[k*n+i] * dst[k])
		}
		dst[i] = s / l[i*n+i]
	}
}

// LogDet returns log(det A) = 2·Σ log L_ii, taking a single logarithm (the
// portable xmath.Log) of the product of the L_ii kept as mantissa and
// exponent. It panics if there is no successful factorization.
func (c *Cholesky) LogDet() float64 {
	c.mustBeOK("LogDet")
	n := c.l.rows
	var acc logAccumulator
	acc.reset()
	for i := 0; i < n; i++ {
		acc.mul(c.l.data[i*n+i])
	}
	return 2 * acc.log()
}
