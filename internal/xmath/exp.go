package xmath

import "math"

// Exp reduction constants (Tang, "Table-driven implementation of the
// exponential function in IEEE floating-point arithmetic", ACM TOMS 15(2),
// 1989): x = (128m + j)·ln2/128 + r with |r| <= ln2/256, so that
// exp(x) = 2^m · 2^(j/128) · exp(r).
const (
	expTableBits = 7
	expTableSize = 1 << expTableBits
	// invLn2x128 is 128/ln2 rounded to double.
	invLn2x128 = 0x1.71547652b82fep+7
	// ln2by128Hi + ln2by128Lo is ln2/128 to about 86 bits; ln2by128Hi
	// has its low 20 bits zero so that n*ln2by128Hi is exact for
	// |n| < 2^20 (Cody-Waite).
	ln2by128Hi = 0x1.62e42fefp-08
	ln2by128Lo = 0x1.473de6af278edp-41

	// expOverflow and expUnderflow are the thresholds beyond which exp
	// overflows to +Inf or underflows to 0 (the same as package math's).
	expOverflow  = 7.09782712893383973096e+02
	expUnderflow = -7.45133219101941108420e+02
)

// expPoly returns exp(r) - 1 - r for |r| <= ~ln2/256 + 2^-30, as
// r²·(1/2 + r/6 + r²/24 + r³/120 + r⁴/720 + r⁵/5040) (Taylor; the omitted
// term is below 2^-70 relative to exp(r)).
func expPoly(r float64) float64 {
	q := 1.0/720 + float64(r*(1.0/5040))
	q = 1.0/120 + float64(r*q)
	q = 1.0/24 + float64(r*q)
	q = 1.0/6 + float64(r*q)
	q = 0.5 + float64(r*q)
	return float64(float64(r*r) * q)
}

// expReduce splits x + xl (|xl| tiny relative to 2^-8) as
// x + xl = n·ln2/128 + (r + rl) and returns n, r and rl. |x| must be below
// 2^20·ln2/128 ≈ 5678.
func expReduce(x, xl float64) (n int, r, rl float64) {
	nf := math.RoundToEven(float64(x * invLn2x128))
	// x - nf*ln2by128Hi is exact (Sterbenz).
	// nf*ln2by128Lo is up to 2^-23 relative to r: renormalize so that
	// |rl| <= ulp(r)/2 and the cross terms r·rl can be dropped.
	r, rl = twoSum(x-float64(nf*ln2by128Hi), xl-float64(nf*ln2by128Lo))
	return int(nf), r, rl
}

// expFinish returns 2^(n/128) · exp(r + rl), where |r| <= ~ln2/256 and
// |rl| <= ulp(r). It carries the table's double-double value and rounds once
// at the end, so the result is within about 0.501 ulp of the exact value,
// subnormal results included.
func expFinish(n int, r, rl float64) float64 {
	j := n & (expTableSize - 1)
	m := n >> expTableBits
	th, tl := expTable[j][0], expTable[j][1]
	// exp(r+rl) - 1 = r + rl + (exp(r) - 1 - r) + O(r·rl).
	p := r + (rl + expPoly(r))
	// 2^(j/128)·(1+p) = th + (tl + th·p + tl·p); tl·p is below 2^-62·th.
	yl := tl + float64(th*p)
	y := th + yl
	if m > -1022 || (m == -1022 && y >= 1) {
		return scale2(y, m)
	}
	// Subnormal result: round (th + yl)·2^k, k = m + 1022 <= 0, once, to a
	// multiple of 2^-52 by adding 1 (whose ulp is 2^-52), then scale by
	// 2^-1022 exactly.
	k := m + 1022
	if k < -54 {
		return 0
	}
	s := math.Float64frombits(uint64(k+1023) << 52)
	t, e := fastTwoSum(1, float64(th*s)) // th*s is exact
	v := t + (e + float64(yl*s))
	return float64((v - 1) * 0x1p-1022)
}

// Exp returns e**x, the base-e exponential of x.
//
// Special cases are:
//
//	Exp(+Inf) = +Inf
//	Exp(NaN) = NaN
//
// Very large values overflow to 0 or +Inf. Very small values round to 1.
// The error is below 0.51 ulp (TestAccuracy), subnormal results included.
func Exp(x float64) float64 {
	switch {
	case x != x || x == math.Inf(1):
		return x
	case x > expOverflow:
		return math.Inf(1)
	case x < expUnderflow:
		return 0
	case -0x1p-54 < x && x < 0x1p-54:
		return 1 + x
	}
	n, r, rl := expReduce(x, 0)
	return expFinish(n, r, rl)
}

// Expm1 returns e**x - 1, accurate also when x is near zero.
//
// Special cases are:
//
//	Expm1(+Inf) = +Inf
//	Expm1(-Inf) = -1
//	Expm1(NaN) = NaN
//
// Very large values overflow to -1 or +Inf. The error is below 0.51 ulp
// (TestAccuracy).
func Expm1(x float64) float64 {
	switch {
	case x != x || x == math.Inf(1):
		return x
	case x > expOverflow:
		return math.Inf(1)
	case x < -40:
		// e**x < 2^-57 is below half an ulp of 1 (2^-54): rounds to -1.
		return -1
	case -0x1p-54 < x && x < 0x1p-54:
		return x
	}
	n, r, rl := expReduce(x, 0)
	if n == 0 {
		// e**r - 1 directly: no table, no cancellation.
		return r + (rl + expPoly(r))
	}
	j := n & (expTableSize - 1)
	m := n >> expTableBits
	th, tl := expTable[j][0], expTable[j][1]
	if m > 1000 {
		y := th + (tl + float64(th*(r+(rl+expPoly(r)))))
		return scale2(y, m)
	}
	// e**x - 1 = 2^m·(th + tl)·(1 + ph + pl) - 1: the leading terms
	// 2^m·th - 1 and 2^m·th·ph are summed error-free, since they may
	// cancel; the rest is below 2^-8 of the result.
	ph, pl := fastTwoSum(r, rl+expPoly(r))
	s := math.Float64frombits(uint64(m+1023) << 52)
	a, ae := twoSum(float64(th*s), -1) // th*s is exact (power of two)
	q, qe := twoProd(th, ph)
	b, be := twoSum(a, float64(q*s))
	lo := float64((qe + float64(th*pl) + float64(tl*ph) + tl) * s)
	return b + (be + ae + lo)
}
