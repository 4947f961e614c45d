package xmath

import "math"

// Log table layout: the mantissa m in [1/√2, √2) falls in the cell
// [j/128, (j+1)/128) with j = floor(128 m) in [90, 181].
const (
	logTableFirst = 90
	logTableSize  = 181 - logTableFirst + 1

	// ln2Hi + ln2Lo is ln 2 to about 95 bits; ln2Hi has its low 12 bits
	// zero so that k*ln2Hi is exact for |k| < 2^12.
	ln2Hi = 0x1.62e42fefa3p-01
	ln2Lo = 0x1.3de6af278ece6p-42

	// sqrt2Mant is the mantissa field of √2: mantissas at or above it are
	// halved so that m lies in [1/√2, √2).
	sqrt2Mant = 0x6a09e667f3bcd
	mantMask  = 1<<52 - 1
)

// log1pPoly returns (log(1+r) - r + r²/2)/r³ for |r| <= 2^-7 as the Taylor
// series 1/3 - r/4 + r²/5 - ... - r⁷/10 (the omitted term is below 2^-70
// relative to log(1+r)).
func log1pPoly(r float64) float64 {
	q := 1.0/9 + float64(r*(-1.0/10))
	q = -1.0/8 + float64(r*q)
	q = 1.0/7 + float64(r*q)
	q = -1.0/6 + float64(r*q)
	q = 1.0/5 + float64(r*q)
	q = -1.0/4 + float64(r*q)
	return 1.0/3 + float64(r*q)
}

// logDD returns log(x) as a double-double hi + lo for a positive finite x,
// with |lo| <= ulp(hi)/2 and a relative error below about 2^-68.
//
// Method: x = 2^k·m with m in [1/√2, √2); c ≈ 1/m from the cell of m (c = 1
// next to 1), r = m·c - 1 exactly as a double-double (|r| <= 2^-7), and
// log x = k·ln2 - log c + log(1+r), with log(1+r) = r - r²/2 + r³·P(r).
func logDD(x float64) (hi, lo float64) {
	bits := math.Float64bits(x)
	k := int(bits>>52) - 1023
	if k == -1023 {
		// Subnormal: normalize exactly.
		bits = math.Float64bits(x * 0x1p52)
		k = int(bits>>52) - 1023 - 52
	}
	mant := bits & mantMask
	if mant >= sqrt2Mant {
		k++
		bits = mant | 1022<<52 // m in [√2/2, 1)
	} else {
		bits = mant | 1023<<52 // m in [1, √2)
	}
	m := math.Float64frombits(bits)
	cell := &logTable[int(float64(m*128))-logTableFirst]
	c, negLogcHi, negLogcLo := cell[0], cell[1], cell[2]

	// r = m·c - 1 exactly: m·c = p + pe (error-free), p - 1 is exact
	// (Sterbenz, p in [1/2, 2]).
	p, pe := twoProd(m, c)
	r, rl := fastTwoSum(p-1, pe)
	return logSum(float64(k), negLogcHi, negLogcLo, r, rl)
}

// logSum returns k·ln2 + (tHi + tLo) + log(1 + r + rl) as a normalized
// double-double, for |r| <= 2^-7 and |rl| <= ulp(r), with
// log(1+r) = r - r²/2 + r³·P(r) and the leading terms summed error-free.
func logSum(kf, tHi, tLo, r, rl float64) (hi, lo float64) {
	// log(1 + r + rl) = r - r²/2 + r³·P(r) + rl·(1 - r) + O(2^-60 rl).
	h, hl := twoProd(r, r)
	h, hl = float64(-0.5*h), float64(-0.5*hl) // -r²/2 exactly
	r3 := float64(float64(r*r) * r)
	tail := float64(r3*log1pPoly(r)) + float64(rl-float64(rl*r))

	s, e1 := twoSum(float64(kf*ln2Hi), tHi)
	s, e2 := twoSum(s, r)
	s, e3 := twoSum(s, h)
	lo = float64(kf*ln2Lo) + tLo + hl + tail + e1 + e2 + e3
	return fastTwoSum(s, lo)
}

// Log returns the natural logarithm of x.
//
// Special cases are:
//
//	Log(+Inf) = +Inf
//	Log(0) = -Inf
//	Log(x < 0) = NaN
//	Log(NaN) = NaN
//
// The error is below 0.51 ulp (TestAccuracy).
func Log(x float64) float64 {
	switch {
	case x != x || x == math.Inf(1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	hi, lo := logDD(x)
	return hi + lo
}

// Log1p returns the natural logarithm of 1 plus its argument x, accurate
// also when x is near zero.
//
// Special cases are:
//
//	Log1p(+Inf) = +Inf
//	Log1p(±0) = ±0
//	Log1p(-1) = -Inf
//	Log1p(x < -1) = NaN
//	Log1p(NaN) = NaN
//
// The error is below 0.51 ulp (TestAccuracy).
func Log1p(x float64) float64 {
	switch {
	case x != x || x == math.Inf(1):
		return x
	case x < -1:
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	case -0x1p-54 < x && x < 0x1p-54:
		// log(1+x) = x - x²/2 + ...: x is the correctly rounded result,
		// and this keeps the sign of zero.
		return x
	case -0x1p-7 <= x && x <= 0x1p-7:
		// The series directly, without forming 1 + x.
		hi, lo := logSum(0, 0, 0, x, 0)
		return hi + lo
	}
	// 1 + x = u + ue exactly; log(u + ue) = log u + ue/u, where ue/u is
	// below 2^-45 of the result.
	u, ue := twoSum(1, x)
	hi, lo := logDD(u)
	return hi + (lo + ue/u)
}
