package linalg

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// LogDet returns log|det A| and the sign of det A (+1, −1, or 0 for a
// singular A, with logAbs = −Inf) for the square matrix a, by LU
// factorization with partial pivoting of a copy (a is not modified). If a
// holds NaN or Inf, both results are NaN. LogDet panics if a is not square.
//
// The pivots' product is kept as a mantissa and a binary exponent, so it
// neither overflows nor underflows, and a single logarithm (the portable
// xmath.Log) is taken at the end.
func LogDet(a *Dense) (logAbs, sign float64) {
	var acc logAccumulator
	sign = luPivots("LogDet", a, &acc)
	switch {
	case math.IsNaN(sign):
		return math.NaN(), math.NaN()
	case sign == 0:
		return math.Inf(-1), 0
	}
	return acc.log(), sign
}

// Det returns det A for the square matrix a, computed as the product of the
// pivots of an LU factorization with partial pivoting of a copy of a (a is
// not modified). The product may overflow to ±Inf or underflow to 0 where
// LogDet would not. Det returns NaN if a holds NaN or Inf and panics if a is
// not square.
func Det(a *Dense) float64 {
	var acc logAccumulator
	sign := luPivots("Det", a, &acc)
	if math.IsNaN(sign) || sign == 0 {
		return sign
	}
	return sign * math.Ldexp(acc.frac, acc.exp)
}

// luPivots factors a copy of a as P·A = L·U (Doolittle, partial pivoting,
// right-looking, row operations in increasing index) and multiplies |U_ii|
// into acc. It returns the sign of det A, 0 if a pivot is exactly zero, or
// NaN if a holds NaN or Inf.
func luPivots(op string, a *Dense, acc *logAccumulator) (sign float64) {
	if a.rows != a.cols {
		panic(fmt.Sprintf("linalg: %s: matrix %s is not square", op, shape(a)))
	}
	n := a.rows
	var w Dense
	w.CopyFrom(a)
	for i := 0; i < n; i++ {
		for _, v := range w.data[i*n : i*n+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.NaN()
			}
		}
	}
	acc.reset()
	sign = 1
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(w.data[i*n+k]) > math.Abs(w.data[p*n+k]) {
				p = i
			}
		}
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
		acc.mul(math.Abs(piv))
		rk := w.data[k*n+k+1 : k*n+n]
		for i := k + 1; i < n; i++ {
			ri := w.data[i*n+k+1 : i*n+n]
			f := w.data[i*n+k] / piv
			axpy(-f, rk, ri)
		}
	}
	return sign
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
