package linalg

import (
	"errors"
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// ErrSingular is returned (wrapped) by Inverse for a matrix with a zero
// pivot.
var ErrSingular = errors.New("linalg: matrix is singular")

// LogDet returns log|det A| and the sign of det A (+1, −1, or 0 for a
// singular A, with logAbs = −Inf) for the square matrix a, by LU
// factorization with partial pivoting of a copy (a is not modified; the copy
// is allocated). If a holds NaN or Inf, both results are NaN. LogDet panics
// if a is not square.
//
// The pivots' product is kept as a mantissa and a binary exponent, so it
// neither overflows nor underflows, and a single logarithm (the portable
// xmath.Log) is taken at the end.
func LogDet(a *Dense) (logAbs, sign float64) {
	checkSquare("LogDet", a)
	var w Dense
	w.CopyFrom(a)
	n := a.rows
	if _, bad := nonFinite(&w); bad {
		return math.NaN(), math.NaN()
	}
	sign = eliminate(&w)
	if sign == 0 {
		return math.Inf(-1), 0
	}
	var acc logAccumulator
	acc.reset()
	for k := 0; k < n; k++ {
		acc.mul(math.Abs(w.data[k*n+k]))
	}
	return acc.log(), sign
}

// LogAbsDetInPlace returns log|det A| for the square matrix a by the same LU
// elimination as LogDet, done in a itself: a is the workspace, overwritten
// with U on and above its diagonal (below it, the entries are left over), and
// nothing is allocated. It returns −Inf for a singular A. It panics if a is
// not square or is a view (a view's rows are not contiguous).
//
// It sums the logarithms (xmath.Log) of the pivots' magnitudes, one per
// pivot in elimination order, where LogDet takes one logarithm of their
// product: the two agree to rounding but may differ in their last bits. Both exist
// because results depend on their bits: the HE-ES's determinant
// normalisation (package es) is defined with this sum, and saved runs and
// their published figures with it. A holding NaN or Inf is not screened
// out: the result is then NaN or infinite, whatever the arithmetic gives.
func LogAbsDetInPlace(a *Dense) float64 {
	checkSquare("LogAbsDetInPlace", a)
	if a.view && a.stride != a.cols {
		panic(fmt.Sprintf("linalg: LogAbsDetInPlace: %s view of a wider matrix", shape(a)))
	}
	if eliminate(a) == 0 {
		return math.Inf(-1)
	}
	n := a.rows
	var logAbs float64
	for k := 0; k < n; k++ {
		logAbs += xmath.Log(math.Abs(a.data[k*n+k]))
	}
	return logAbs
}

// pivotRow returns the partial pivot of column k of the square matrix w
// (contiguous rows): the first row i >= k with the largest |w_ik|.
func pivotRow(w *Dense, k int) int {
	n := w.rows
	p := k
	for i := k + 1; i < n; i++ {
		if math.Abs(w.data[i*n+k]) > math.Abs(w.data[p*n+k]) {
			p = i
		}
	}
	return p
}

// nonFinite returns the first NaN or ±Inf element of w, which owns its
// storage, and whether there is one.
func nonFinite(w *Dense) (float64, bool) {
	for _, v := range w.data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v, true
		}
	}
	return 0, false
}

// checkSquare panics, naming op, if a is not square.
func checkSquare(op string, a *Dense) {
	if a.rows != a.cols {
		panic(fmt.Sprintf("linalg: %s: matrix %s is not square", op, shape(a)))
	}
}

// eliminate overwrites the square matrix w (contiguous rows) with the U of
// P·A = L·U (Doolittle, partial pivoting, right-looking, row operations in
// increasing index): U_kk is on the diagonal, the multipliers are not kept.
// It returns the sign of det A, or 0, stopping, at the first pivot that is
// exactly zero.
func eliminate(w *Dense) (sign float64) {
	n := w.rows
	sign = 1
	for k := 0; k < n; k++ {
		p := pivotRow(w, k)
		if w.data[p*n+k] == 0 {
			return 0
		}
		if p != k {
			rk, rp := w.data[k*n:k*n+n], w.data[p*n:p*n+n]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
			sign = -sign
		}
		piv := w.data[k*n+k]
		if piv < 0 {
			sign = -sign
		}
		rk := w.data[k*n+k+1 : k*n+n]
		for i := k + 1; i < n; i++ {
			ri := w.data[i*n+k+1 : i*n+n]
			f := w.data[i*n+k] / piv
			axpy(-f, rk, ri)
		}
	}
	return sign
}

// Inverse sets m = a⁻¹ for the square matrix a by Gauss-Jordan elimination
// with partial pivoting on a copy of a (allocated): the pivot row is scaled
// by the reciprocal of the pivot, then subtracted from every other row, in
// increasing row order. An empty m is sized; otherwise it must be n×n. m may
// be a itself. Inverse returns an error wrapping ErrSingular when a pivot is
// exactly zero and one wrapping ErrNotFinite when a holds NaN or Inf; m is
// then unspecified. It panics if a is not square.
func (m *Dense) Inverse(a *Dense) error {
	checkSquare("Inverse", a)
	n := a.rows
	var w Dense
	w.CopyFrom(a)
	if v, bad := nonFinite(&w); bad {
		return fmt.Errorf("%w: Inverse: matrix %s holds %g", ErrNotFinite, shape(a), v)
	}
	m.sizeFor("Inverse", n, n)
	m.SetIdentity()
	both := [2]*Dense{&w, m}
	for col := 0; col < n; col++ {
		piv := pivotRow(&w, col)
		if w.data[piv*n+col] == 0 {
			return fmt.Errorf("%w: Inverse: pivot %d of %s matrix is zero", ErrSingular, col, shape(a))
		}
		if piv != col {
			for _, x := range both {
				rp, rc := x.RawRow(piv), x.RawRow(col)
				for j := range rp {
					rp[j], rc[j] = rc[j], rp[j]
				}
			}
		}
		inv := 1 / w.data[col*n+col]
		for _, x := range both {
			row := x.RawRow(col)
			for j := range row {
				row[j] *= inv
			}
		}
		for i := 0; i < n; i++ {
			l := w.data[i*n+col]
			if i == col || l == 0 {
				continue
			}
			for _, x := range both {
				axpy(-l, x.RawRow(col), x.RawRow(i))
			}
		}
	}
	return nil
}

// logAccumulator holds a positive product frac·2^exp with frac in [½, 1),
// so that long products of pivots or eigenvalues cannot overflow. Call reset
// before the first mul.
type logAccumulator struct {
	frac float64
	exp  int
}

func (a *logAccumulator) reset() { a.frac, a.exp = 1, 0 }

// mul multiplies the product by v > 0.
func (a *logAccumulator) mul(v float64) {
	f, e := math.Frexp(v)
	fr, er := math.Frexp(a.frac * f)
	a.frac = fr
	a.exp += e + er
}

// log returns the natural logarithm of the product.
func (a *logAccumulator) log() float64 {
	return xmath.Log(a.frac) + float64(float64(a.exp)*math.Ln2)
}
