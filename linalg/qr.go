package linalg

import (
	"fmt"
	"math"
)

// QR is the Householder factorization A = Q·R of an r×c matrix A with r ≥ c,
// where Q is r×c with orthonormal columns (the thin Q) and R is c×c upper
// triangular. The zero value is ready for Factorize; a QR can be reused for
// matrices of the same shape without allocating.
type QR struct {
	// qr holds R on and above the diagonal and the Householder vectors
	// below it (vector k is (1, qr[k+1:, k]), as in LAPACK dgeqrf).
	qr  Dense
	tau []float64
	// col and row are scratch for one column and one row.
	col, row []float64
	ok       bool
}

// Factorize computes the QR factorization of a, which is not modified. It
// returns an error wrapping ErrNotFinite if a holds NaN or Inf; the receiver
// is then unusable until the next successful Factorize. Rank-deficient
// matrices factor without error (R then has zero or tiny diagonal entries).
// Factorize panics if a has fewer rows than columns.
//
// Reflector k is H_k = I − τ_k·v·vᵀ with v_k = 1, chosen so that H_k maps
// column k of the remaining block onto β·e_k with β = −sign(a_kk)·‖a_k:,k‖
// (LAPACK dlarfg); A = H_0·H_1·…·H_{c−1}·R.
func (q *QR) Factorize(a *Dense) error {
	r, c := a.rows, a.cols
	if r < c {
		panic(fmt.Sprintf("linalg: QR.Factorize: matrix %s has fewer rows than columns", shape(a)))
	}
	q.ok = false
	q.qr.reuseAsNonZeroed(r, c)
	q.qr.CopyFrom(a)
	for i := 0; i < r; i++ {
		for _, v := range q.qr.data[i*c : i*c+c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: QR.Factorize: matrix %s holds %g", ErrNotFinite, shape(a), v)
			}
		}
	}
	q.tau = resize(q.tau, c)
	q.col = resize(q.col, r)
	q.row = resize(q.row, c)
	w := q.qr.data
	for k := 0; k < c; k++ {
		// x = column k from row k down.
		x := q.col[:r-k]
		for i := range x {
			x[i] = w[(k+i)*c+k]
		}
		tau, beta := householder(x)
		q.tau[k] = tau
		w[k*c+k] = beta
		for i := 1; i < len(x); i++ {
			w[(k+i)*c+k] = x[i]
		}
		if tau == 0 {
			continue
		}
		// Apply H_k to columns k+1.. : a_j -= τ·(vᵀa_j)·v, done row-wise as
		// s = vᵀ·A_sub (rows in increasing order), then A_sub -= τ·v·sᵀ.
		s := q.row[:c-k-1]
		copy(s, w[k*c+k+1:k*c+c])
		for i := 1; i < len(x); i++ {
			axpy(x[i], w[(k+i)*c+k+1:(k+i)*c+c], s)
		}
		axpy(-tau, s, w[k*c+k+1:k*c+c])
		for i := 1; i < len(x); i++ {
			axpy(-float64(tau*x[i]), s, w[(k+i)*c+k+1:(k+i)*c+c])
		}
	}
	q.ok = true
	return nil
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

func (q *QR) mustBeOK(op string) {
	if !q.ok {
		panic("linalg: QR." + op + ": no successful factorization")
	}
}

// RTo writes the c×c upper triangular factor R into dst, which must be
// empty (it is sized) or c×c. It panics if there is no successful
// factorization.
func (q *QR) RTo(dst *Dense) {
	q.mustBeOK("RTo")
	c := q.qr.cols
	dst.sizeFor("QR.RTo", c, c)
	for i := 0; i < c; i++ {
		row := dst.data[i*dst.stride : i*dst.stride+c]
		clear(row[:i])
		copy(row[i:], q.qr.data[i*c+i:i*c+c])
	}
}

// QTo writes the thin r×c factor Q (orthonormal columns) into dst, which
// must be empty (it is sized) or r×c. It panics if there is no successful
// factorization. Q = H_0·…·H_{c−1}·[I; 0] is accumulated backwards.
func (q *QR) QTo(dst *Dense) {
	q.mustBeOK("QTo")
	r, c := q.qr.rows, q.qr.cols
	dst.sizeFor("QR.QTo", r, c)
	dst.zero()
	for i := 0; i < c; i++ {
		dst.data[i*dst.stride+i] = 1
	}
	w := q.qr.data
	s := q.row[:c]
	for k := c - 1; k >= 0; k-- {
		tau := q.tau[k]
		if tau == 0 {
			continue
		}
		// Rows k.. of columns k.. : Q_sub -= τ·v·(vᵀ·Q_sub), v = (1, w[k+1:, k]).
		sk := s[:c-k]
		copy(sk, dst.data[k*dst.stride+k:k*dst.stride+c])
		for i := k + 1; i < r; i++ {
			axpy(w[i*c+k], dst.data[i*dst.stride+k:i*dst.stride+c], sk)
		}
		axpy(-tau, sk, dst.data[k*dst.stride+k:k*dst.stride+c])
		for i := k + 1; i < r; i++ {
			axpy(-float64(tau*w[i*c+k]), sk, dst.data[i*dst.stride+k:i*dst.stride+c])
		}
	}
}

// resize returns s with length n, reusing its storage when it suffices.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
