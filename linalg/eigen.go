package linalg

import (
	"errors"
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// ErrNoConvergence is returned (wrapped) when the QL iteration of the
// symmetric eigensolver does not converge within its iteration bound.
var ErrNoConvergence = errors.New("linalg: eigenvalue iteration did not converge")

// ErrNotFinite is returned (wrapped) when an input matrix holds NaN or Inf.
var ErrNotFinite = errors.New("linalg: matrix holds NaN or Inf")

// maxQLIterations bounds the QL sweeps spent on one eigenvalue; LAPACK
// dsteqr allows 30 per eigenvalue on average.
const maxQLIterations = 30

// EigenSym computes the eigen-decomposition A = V·diag(λ)·Vᵀ of a real
// symmetric matrix: eigenvalues λ in ascending order and, if asked for,
// orthonormal eigenvectors (the columns of V).
//
// Sign convention: in every eigenvector the entry of largest magnitude is
// positive; if several entries share the largest magnitude, the one with the
// smallest index is positive. Eigenvectors of equal eigenvalues are an
// orthonormal basis of their eigenspace, which is otherwise unspecified (it
// is deterministic).
//
// The zero value is ready for Factorize. Repeated Factorize calls with
// matrices of the same size (and the same wantVectors) reuse the workspace
// and do not allocate.
type EigenSym struct {
	n int
	// work holds the upper triangle of the scaled symmetric matrix, then
	// the Householder vectors of the tridiagonal reduction in its rows.
	work Dense
	// vt holds the eigenvectors as rows (vt = Vᵀ): the QL rotations then
	// combine two contiguous rows.
	vt Dense
	// d holds the eigenvalues of the scaled matrix in the order the QL
	// iteration leaves them; perm lists their indices in ascending order.
	d, e, tau, scratch []float64
	// cos and sin hold the rotations of the current QL sweep.
	cos, sin []float64
	perm     []int
	// scaleExp: A was multiplied by 2^-scaleExp before the reduction.
	scaleExp int
	ok       bool
	vectors  bool
}

// Factorize computes the eigenvalues of the n×n symmetric matrix a, and its
// eigenvectors if wantVectors is true. Only the lower triangle of a is read
// (the upper triangle is taken to mirror it); a is not modified. Factorize
// returns an error wrapping ErrNotFinite if the lower triangle holds NaN or
// Inf and ErrNoConvergence if the iteration does not converge; the receiver
// is then unusable until the next successful call. It panics if a is not
// square.
//
// Method (as LAPACK dsyev and EISPACK tred2+tql2): scale a by a power of two
// so its largest entry lies in [½, 1) (exact, undone at the end); reduce it
// to tridiagonal form T = Qᵀ·A·Q with Householder reflectors; find the
// eigenvalues of T by the implicit QL iteration with Wilkinson shifts,
// applying its plane rotations to Qᵀ when eigenvectors are wanted.
func (e *EigenSym) Factorize(a *Dense, wantVectors bool) error {
	if a.rows != a.cols {
		panic(fmt.Sprintf("linalg: EigenSym.Factorize: matrix %s is not square", shape(a)))
	}
	n := a.rows
	e.ok = false
	e.n = n
	e.vectors = wantVectors
	e.work.reuseAsNonZeroed(n, n)
	e.d = resize(e.d, n)
	e.e = resize(e.e, n)
	e.tau = resize(e.tau, n)
	e.scratch = resize(e.scratch, n)
	e.cos = resize(e.cos, n)
	e.sin = resize(e.sin, n)
	if cap(e.perm) < n {
		e.perm = make([]int, n)
	}
	e.perm = e.perm[:n]
	if wantVectors {
		e.vt.reuseAsNonZeroed(n, n)
	}

	maxAbs, err := e.loadScaled(a)
	if err != nil {
		return err
	}
	if maxAbs == 0 {
		// The zero matrix: all eigenvalues are 0 and V = I.
		clear(e.d)
		if wantVectors {
			e.vt.SetIdentity()
		}
	} else {
		e.tridiagonalize()
		if wantVectors {
			e.accumulateQT()
		}
		if err := e.ql(); err != nil {
			return fmt.Errorf("%w (matrix %s)", err, shape(a))
		}
	}
	e.sortValues()
	if wantVectors {
		e.fixSigns()
	}
	e.ok = true
	return nil
}

// loadScaled copies the lower triangle of a, transposed, into the upper
// triangle of the work matrix, scaled by 2^-scaleExp so that the largest
// magnitude lies in [½, 1). It returns that largest magnitude of a, or an
// error if the lower triangle holds NaN or Inf.
func (e *EigenSym) loadScaled(a *Dense) (maxAbs float64, err error) {
	n := e.n
	w := e.work.data
	for i := 0; i < n; i++ {
		for j, v := range a.data[i*a.stride : i*a.stride+i+1] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: element (%d, %d) of %s is %g", ErrNotFinite, i, j, shape(a), v)
			}
			maxAbs = max(maxAbs, math.Abs(v))
		}
	}
	e.scaleExp = 0
	if maxAbs == 0 {
		return 0, nil
	}
	_, e.scaleExp = math.Frexp(maxAbs)
	// Row i of the lower triangle of a is column i of W's upper triangle.
	for i := 0; i < n; i++ {
		for j, v := range a.data[i*a.stride : i*a.stride+i+1] {
			w[j*n+i] = math.Ldexp(v, -e.scaleExp)
		}
	}
	return maxAbs, nil
}

// tridiagonalize reduces the symmetric matrix held in the upper triangle
// of W to tridiagonal form T = H_{n−3}·…·H_0·W·H_0·…·H_{n−3}, leaving T's
// diagonal in d, its off-diagonal in e (e[k] couples k and k+1) and
// reflector k's vector in row k of W, entries k+1.. (LAPACK dsytd2 with
// uplo = 'U' in row-major order, which makes every access a row).
func (e *EigenSym) tridiagonalize() {
	n := e.n
	w := e.work.data
	p := e.scratch
	for k := 0; k+2 < n; k++ {
		e.d[k] = w[k*n+k]
		v := w[k*n+k+1 : k*n+n] // column k below the diagonal, by symmetry
		tau, beta := householder(v)
		e.tau[k] = tau
		e.e[k] = beta
		if tau == 0 {
			continue
		}
		// Trailing block B = W[k+1:, k+1:] becomes H·B·H (dsytd2):
		// p = τ·B·v, K = (τ/2)·pᵀv, q = p − K·v, B −= v·qᵀ + q·vᵀ.
		m := n - k - 1
		pk := p[:m]
		symvUpper(pk, w[(k+1)*n+k+1:], n, v)
		for i := range pk {
			pk[i] = float64(tau * pk[i])
		}
		kk := float64(0.5 * tau * dot(pk, v))
		for i := range pk {
			pk[i] -= float64(kk * v[i])
		}
		for i := 0; i < m; i++ {
			syr2Row(w[(k+1+i)*n+k+1+i:(k+1+i)*n+n], v[i:], pk[i:], v[i], pk[i])
		}
	}
	switch {
	case n >= 2:
		e.d[n-2] = w[(n-2)*n+n-2]
		e.e[n-2] = w[(n-2)*n+n-1]
		e.d[n-1] = w[(n-1)*n+n-1]
		e.e[n-1] = 0
		e.tau[n-2], e.tau[n-1] = 0, 0
	case n == 1:
		e.d[0] = w[0]
		e.e[0] = 0
		e.tau[0] = 0
	}
}

// symvUpper sets p = B·v for the symmetric m×m matrix B (m = len(v)) whose
// upper triangle is stored row by row from b with the given stride. Row i
// is read once: its part right of the diagonal feeds both p_i (a dot
// product with four partial sums) and p_j, j > i (an axpy).
func symvUpper(p, b []float64, stride int, v []float64) {
	m := len(v)
	p = p[:m]
	clear(p)
	for i := 0; i < m; i++ {
		row := b[i*stride+i : i*stride+m] // B_ii, B_i,i+1, …
		vi := v[i]
		vr, pr := v[i+1:], p[i+1:]
		rr := row[1:]
		s := dotAxpy(rr, vr, pr, vi)
		p[i] += float64(row[0]*vi) + s
	}
}

// accumulateQT forms Qᵀ = H_{n−3}·…·H_0 in vt by multiplying the identity
// by H_{n−3}, …, H_0 from the right. When H_k is applied, the product so
// far differs from I only in rows and columns k+2.., so only rows k+1.. of
// columns k+1.. change: row −= τ·(row·v)·vᵀ.
func (e *EigenSym) accumulateQT() {
	n := e.n
	vt := e.vt.data
	e.vt.SetIdentity()
	w := e.work.data
	for k := n - 3; k >= 0; k-- {
		tau := e.tau[k]
		if tau == 0 {
			continue
		}
		v := w[k*n+k+1 : k*n+n] // v[0] == 1 (householder set it)
		for i := k + 1; i < n; i++ {
			row := vt[i*n+k+1 : i*n+n]
			s := dot(row, v)
			axpy(-float64(tau*s), v, row)
		}
	}
}

// ql finds the eigenvalues of the tridiagonal matrix (d, e) by the implicit
// QL iteration with Wilkinson shifts (EISPACK tql2), rotating rows of vt
// along when eigenvectors are wanted. e[i] couples i and i+1.
func (e *EigenSym) ql() error {
	n := e.n
	d, off := e.d, e.e
	// An off-diagonal element is negligible below ε·‖T‖ (EISPACK tql2 uses
	// the running maximum of |d_l| + |e_l|; this is its final value), which
	// makes the decomposition backward stable in norm.
	var tnorm float64
	for i := 0; i < n; i++ {
		tnorm = max(tnorm, math.Abs(d[i])+math.Abs(off[i]))
	}
	small := epsilon * tnorm
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			// Look for a negligible off-diagonal element e[m], m ≥ l.
			m := l
			for ; m+1 < n; m++ {
				if math.Abs(off[m]) <= small {
					break
				}
			}
			if m == l {
				break
			}
			if iter == maxQLIterations {
				return fmt.Errorf("%w after %d sweeps on eigenvalue %d", ErrNoConvergence, iter, l)
			}
			// Wilkinson shift from the leading 2×2 block at l.
			g := (d[l+1] - d[l]) / (2 * off[l])
			r := hypot(g, 1)
			g = d[m] - d[l] + off[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			for ; i >= l; i-- {
				f := float64(s * off[i])
				b := float64(c * off[i])
				r = hypot(f, g)
				off[i+1] = r
				if r == 0 {
					// Underflow: the matrix splits at i+1; deflate and retry.
					d[i+1] -= p
					off[m] = 0
					break
				}
				s = f / r
				c = g / r
				g = d[i+1] - p
				r = float64((d[i]-g)*s) + float64(2*c*b)
				p = float64(s * r)
				d[i+1] = g + p
				g = float64(c*r) - b
				e.cos[i], e.sin[i] = c, s
			}
			if e.vectors {
				// Rotations m−1 down to i+1 were made (all of them unless
				// the sweep stopped early at an underflow).
				e.rotateRows(i+1, m)
			}
			if r == 0 && i >= l {
				continue
			}
			d[l] -= p
			off[l] = g
			off[m] = 0
		}
	}
	return nil
}

// rotateRows applies the rotations of one QL sweep to vt: for i = hi−1
// down to lo, rows i and i+1 become (c·x − s·y, s·x + c·y) with
// (c, s) = (cos[i], sin[i]), x = row i, y = row i+1. Four rotations share
// one pass along five rows, the running row i+1 staying in a register, so
// each element is loaded and stored once per four rotations instead of
// once per rotation; the arithmetic on every element is unchanged.
func (e *EigenSym) rotateRows(lo, hi int) {
	n := e.n
	vt := e.vt.data
	i := hi - 1
	for ; i-3 >= lo; i -= 4 {
		cs := [8]float64{
			e.cos[i], e.sin[i], e.cos[i-1], e.sin[i-1],
			e.cos[i-2], e.sin[i-2], e.cos[i-3], e.sin[i-3],
		}
		rotate4(vt[(i-3)*n:(i+2)*n], n, &cs)
	}
	for ; i >= lo; i-- {
		rotate1(vt[i*n:i*n+n], vt[(i+1)*n:(i+1)*n+n], e.cos[i], e.sin[i])
	}
}

// sortValues fills perm with the indices of d in ascending order of value,
// equal values in index order (insertion sort: stable, no allocation).
func (e *EigenSym) sortValues() {
	for i := range e.perm {
		e.perm[i] = i
	}
	for i := 1; i < len(e.perm); i++ {
		pi := e.perm[i]
		j := i
		for ; j > 0 && e.d[e.perm[j-1]] > e.d[pi]; j-- {
			e.perm[j] = e.perm[j-1]
		}
		e.perm[j] = pi
	}
}

// fixSigns negates each eigenvector whose first entry of largest magnitude
// is negative.
func (e *EigenSym) fixSigns() {
	n := e.n
	for i := 0; i < n; i++ {
		row := e.vt.data[i*n : i*n+n]
		best := 0
		for k, v := range row {
			if math.Abs(v) > math.Abs(row[best]) {
				best = k
			}
		}
		if row[best] < 0 {
			for k := range row {
				row[k] = -row[k]
			}
		}
	}
}

func (e *EigenSym) mustBeOK(op string) {
	if !e.ok {
		panic("linalg: EigenSym." + op + ": no successful factorization")
	}
}

// Values returns the eigenvalues in ascending order. If dst is nil a new
// slice is allocated; otherwise dst must have length n and is filled and
// returned. It panics if there is no successful factorization or dst has the
// wrong length.
func (e *EigenSym) Values(dst []float64) []float64 {
	e.mustBeOK("Values")
	if dst == nil {
		dst = make([]float64, e.n)
	}
	if len(dst) != e.n {
		panic(fmt.Sprintf("linalg: EigenSym.Values: %d eigenvalues, dst has length %d", e.n, len(dst)))
	}
	for k, idx := range e.perm {
		dst[k] = math.Ldexp(e.d[idx], e.scaleExp)
	}
	return dst
}

// VectorsTo writes the eigenvectors into the columns of dst, column k
// belonging to the k-th smallest eigenvalue. dst must be empty (it is sized)
// or n×n. It panics if there is no successful factorization or if it was
// computed without eigenvectors.
func (e *EigenSym) VectorsTo(dst *Dense) {
	e.mustBeOK("VectorsTo")
	if !e.vectors {
		panic("linalg: EigenSym.VectorsTo: factorization computed without eigenvectors")
	}
	n := e.n
	dst.sizeFor("EigenSym.VectorsTo", n, n)
	for k, idx := range e.perm {
		row := e.vt.data[idx*n : idx*n+n]
		for i, v := range row {
			dst.data[i*dst.stride+k] = v
		}
	}
}

// SymEig returns the eigenvalues of the symmetric matrix a in ascending
// order and a new matrix whose columns are the corresponding orthonormal
// eigenvectors, with the sign convention of EigenSym. Only the lower
// triangle of a is read. Errors are those of EigenSym.Factorize; it panics
// if a is not square.
func SymEig(a *Dense) (values []float64, vectors *Dense, err error) {
	var eig EigenSym
	if err := eig.Factorize(a, true); err != nil {
		return nil, nil, err
	}
	vectors = new(Dense)
	eig.VectorsTo(vectors)
	return eig.Values(nil), vectors, nil
}

// CondSym returns the 2-norm condition number λ_max/λ_min of the symmetric
// positive definite matrix a (lower triangle read). It returns an error
// wrapping ErrNotPositiveDefinite if the smallest computed eigenvalue is not
// positive, ErrNotFinite for NaN or Inf input, an error for an empty matrix,
// and the errors of EigenSym.Factorize. It panics if a is not square.
// Eigenvalues below ε·λ_max are inaccurate, so condition numbers beyond
// about 1e15 are only indicative.
func CondSym(a *Dense) (float64, error) {
	var eig EigenSym
	vals, err := spdValues("CondSym", &eig, a)
	if err != nil {
		return 0, err
	}
	return vals[len(vals)-1] / vals[0], nil
}

// NormalizedTrace returns tr(C / det(C)^(1/d)) = Σλ_i / (Πλ_i)^(1/d) for the
// d×d symmetric positive definite matrix c (lower triangle read), the trace
// of c scaled to unit determinant; it is d exactly when c is a multiple of
// the identity and larger otherwise. The determinant is taken in logarithms
// from the eigenvalues, so it neither overflows nor underflows. Errors are
// those of CondSym, plus one if the result is not finite. The logarithm and
// exponential are the portable xmath.Log and xmath.Exp, so the result is
// bit-identical across platforms.
func NormalizedTrace(c *Dense) (float64, error) {
	var eig EigenSym
	vals, err := spdValues("NormalizedTrace", &eig, c)
	if err != nil {
		return 0, err
	}
	// Work with the scaled eigenvalues in eig.d (the power-of-two scale
	// cancels in the ratio), so the sum cannot overflow.
	var sum float64
	var prod logAccumulator
	prod.reset()
	for _, idx := range eig.perm {
		sum += eig.d[idx]
		prod.mul(eig.d[idx])
	}
	res := xmath.Exp(xmath.Log(sum) - prod.log()/float64(eig.n))
	if math.IsInf(res, 0) || math.IsNaN(res) {
		return 0, fmt.Errorf("linalg: NormalizedTrace: result overflows for %s matrix with eigenvalues in [%g, %g]", shape(c), vals[0], vals[len(vals)-1])
	}
	return res, nil
}

// spdValues factorizes a without vectors and checks that it is symmetric
// positive definite, returning its ascending eigenvalues.
func spdValues(op string, eig *EigenSym, a *Dense) ([]float64, error) {
	if a.rows != a.cols {
		panic(fmt.Sprintf("linalg: %s: matrix %s is not square", op, shape(a)))
	}
	if a.rows == 0 {
		return nil, fmt.Errorf("linalg: %s: matrix is empty (0×0)", op)
	}
	if err := eig.Factorize(a, false); err != nil {
		return nil, err
	}
	vals := eig.Values(nil)
	if !(vals[0] > 0) {
		return nil, fmt.Errorf("%w: %s: smallest eigenvalue of %s is %g", ErrNotPositiveDefinite, op, shape(a), vals[0])
	}
	return vals, nil
}

// householder turns x into the vector part of a reflector H = I − τ·v·vᵀ
// with v = (1, x[1:]) and H·x₀ = (β, 0, …, 0), following LAPACK dlarfg. It
// returns τ = 0 (H = I) and β = x[0] when x[1:] is zero. A column so small
// that β is subnormal is first scaled up by a power of two (exact), so
// that 1/(x₀ − β) cannot overflow; β is scaled back.
func householder(x []float64) (tau, beta float64) {
	alpha := x[0]
	tail := Norm(x[1:])
	if tail == 0 {
		return 0, alpha
	}
	beta = -math.Copysign(hypot(alpha, tail), alpha)
	shift := 0
	if math.Abs(beta) < 0x1p-1022 {
		_, e := math.Frexp(beta)
		shift = -e
		for i := range x {
			x[i] = math.Ldexp(x[i], shift)
		}
		alpha = x[0]
		beta = -math.Copysign(hypot(alpha, Norm(x[1:])), alpha)
	}
	tau = (beta - alpha) / beta
	scale := 1 / (alpha - beta)
	for i := 1; i < len(x); i++ {
		x[i] *= scale
	}
	x[0] = 1
	return tau, math.Ldexp(beta, -shift)
}

// hypot returns sqrt(p² + q²) without undue overflow or underflow, to
// within about one ulp. It is written out because math.Hypot is assembly on
// amd64 and differs from the pure-Go version other architectures use. With
// p ≥ q ≥ 0 and t = q/p it evaluates p + p·t²/(1 + sqrt(1 + t²)): the
// correction is computed to a few ulps of itself and added last, so a tiny
// q still moves the result by the right amount. That matters for plane
// rotations c = p/h, s = q/h: with h = p·sqrt(1 + t²), c would round to 1
// too often and c² + s² would drift above 1 systematically.
func hypot(p, q float64) float64 {
	p, q = math.Abs(p), math.Abs(q)
	if p < q {
		p, q = q, p
	}
	if p == 0 || math.IsInf(p, 0) {
		return p
	}
	t := q / p
	u := float64(t * t)
	return p + float64(p*(u/(1+math.Sqrt(1+u))))
}

// resize returns s with length n, reusing its storage when it suffices.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
