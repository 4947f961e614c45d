package xmath

import (
	"math"
	"math/bits"
)

const (
	// piby2_1 + piby2_2 + piby2_3 is π/2 to about 160 bits (each the
	// nearest double to the remainder of the previous ones).
	piby2_1 = 0x1.921fb54442d18p+00
	piby2_2 = 0x1.1a62633145c07p-54
	piby2_3 = -0x1.f1976b7ed8fbcp-110
	// twoByPi and quarterPi are 2/π and π/4 rounded to double.
	twoByPi   = 0x1.45f306dc9c883p-01
	quarterPi = 0x1.921fb54442d18p-01
	// cwLimit is where reduce (Cody-Waite) hands over to reduceLarge
	// (Payne-Hanek).
	cwLimit = 0x1p28
	// sixthHi + sixthLo is 1/6 to 106 bits.
	sixthHi = 0x1.5555555555555p-3
	sixthLo = 0x1.5555555555555p-57
)

// reduce returns x = k·pi/2 + (rh + rl) with |rh| <= pi/4·(1 + 2^-20) and
// |rl| <= ulp(rh)/2, for finite |x| < 2^28 (an extended-precision
// Cody-Waite reduction).
//
// x - k·piby2_1 is exact (both are multiples of 2^-53 and the difference is
// below 2, so it needs at most 53 bits; math.FMA rounds it once, exactly),
// k·piby2_2 is split error-free by twoProd, and k·piby2_3 is rounded. The
// reduced argument therefore has an absolute error below 2^-130, which is
// below 2^-68 relative to any reduced argument of a double below 2^28 (none
// lies closer than about 2^-62 to a multiple of pi/2).
func reduce(x float64) (k int, rh, rl float64) {
	if math.Abs(x) <= quarterPi {
		return 0, x, 0
	}
	kf := math.RoundToEven(float64(x * twoByPi))
	a := math.FMA(-kf, piby2_1, x)
	bh, bl := twoProd(kf, piby2_2)
	s, e := twoSum(a, -bh)
	e -= bl + float64(kf*piby2_3)
	rh, rl = fastTwoSum(s, e)
	return int(kf), rh, rl
}

// sinKernel returns sin(rh + rl) for |rh| <= pi/4 + 2^-20, |rl| <= ulp(rh):
// rh - rh³/6 + rh⁵·S(rh²) + rl·(1 - rh²/2), S the Taylor series of
// (sin r - r + r³/6)/r⁵ up to r^12 (sin to r^17, truncation below 2^-62 relative). The
// term rh³/6, up to 0.11 of the result, is formed as a double-double.
func sinKernel(rh, rl float64) float64 {
	z, zl := twoProd(rh, rh)
	c, cl := twoProd(rh, z)
	cl += float64(rh * zl) // rh³ = c + cl to about 2^-100
	t, tl := twoProd(c, -sixthHi)
	tl -= float64(c*sixthLo) + float64(cl*sixthHi)
	q := -1.0/1307674368000 + float64(z*(1.0/355687428096000))
	q = 1.0/6227020800 + float64(z*q)
	q = -1.0/39916800 + float64(z*q)
	q = 1.0/362880 + float64(z*q)
	q = -1.0/5040 + float64(z*q)
	q = 1.0/120 + float64(z*q)
	s, se := fastTwoSum(rh, t)
	tail := float64(float64(c*z)*q) + (rl - float64(float64(0.5*z)*rl))
	return s + (se + tl + tail)
}

// cosKernel returns cos(rh + rl) for |rh| <= pi/4 + 2^-20, |rl| <= ulp(rh):
// 1 - rh²/2 summed error-free, then - rl·sin(rh) + rh⁴·C(rh²), C the Taylor
// series of (cos r - 1 + r²/2)/r⁴ up to r^14 (cos to r^18, truncation below
// 2^-62).
func cosKernel(rh, rl float64) float64 {
	z, zl := twoProd(rh, rh)
	hz, hzl := float64(0.5*z), float64(0.5*zl) // rh²/2 exactly
	q := 1.0/20922789888000 + float64(z*(-1.0/6402373705728000))
	q = -1.0/87178291200 + float64(z*q)
	q = 1.0/479001600 + float64(z*q)
	q = -1.0/3628800 + float64(z*q)
	q = 1.0/40320 + float64(z*q)
	q = -1.0/720 + float64(z*q)
	q = 1.0/24 + float64(z*q)
	w, we := fastTwoSum(1, -hz)
	// -rl·sin(rh) ≈ -rl·rh·(1 - rh²/6), below 2^-53 of the result.
	rs := float64(rh*rl) - float64(float64(rh*rl)*float64(z*sixthHi))
	tail := float64(float64(z*z)*q) - rs - hzl + we
	return w + tail
}

// Sin returns the sine of the radian argument x.
//
// Special cases are:
//
//	Sin(±0) = ±0
//	Sin(±Inf) = NaN
//	Sin(NaN) = NaN
//
// The error is below 0.6 ulp for every finite x (0.548 ulp is the largest
// measured, TestAccuracy; the cosine kernel's rounding analysis gives 0.59).
// The argument reduction by π/2 is exact to better than 2^-68 relative: an
// extended Cody-Waite reduction for |x| < 2^28 ≈ 2.7e8, Payne and Hanek's
// method beyond.
func Sin(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 0):
		return math.NaN()
	case math.Abs(x) < 0x1p-26:
		return x // sin x = x(1 - x²/6 + ...) rounds to x, keeps -0
	}
	k, rh, rl := reduceAny(x)
	switch k & 3 {
	case 0:
		return sinKernel(rh, rl)
	case 1:
		return cosKernel(rh, rl)
	case 2:
		return -sinKernel(rh, rl)
	default:
		return -cosKernel(rh, rl)
	}
}

// Cos returns the cosine of the radian argument x.
//
// Special cases are:
//
//	Cos(±Inf) = NaN
//	Cos(NaN) = NaN
//
// The error is below 0.6 ulp for every finite x (TestAccuracy); see Sin.
func Cos(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 0):
		return math.NaN()
	case math.Abs(x) < 0x1p-27:
		return 1 // 1 - x²/2 with x²/2 < 2^-55 rounds to 1
	}
	k, rh, rl := reduceAny(x)
	switch k & 3 {
	case 0:
		return cosKernel(rh, rl)
	case 1:
		return -sinKernel(rh, rl)
	case 2:
		return -cosKernel(rh, rl)
	default:
		return sinKernel(rh, rl)
	}
}

// Sincos returns Sin(x), Cos(x), with the same bits as the two calls but one
// argument reduction.
func Sincos(x float64) (sin, cos float64) {
	switch {
	case x != x || math.IsInf(x, 0):
		return math.NaN(), math.NaN()
	case math.Abs(x) < 0x1p-27:
		return x, 1
	case math.Abs(x) < 0x1p-26:
		return x, cosKernel(x, 0)
	}
	k, rh, rl := reduceAny(x)
	s, c := sinKernel(rh, rl), cosKernel(rh, rl)
	switch k & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	default:
		return -c, s
	}
}

// reduceAny reduces any finite x = k·π/2 + (rh + rl): with reduce below 2^28,
// otherwise with reduceLarge.
func reduceAny(x float64) (k int, rh, rl float64) {
	if math.Abs(x) < cwLimit {
		return reduce(x)
	}
	return reduceLarge(x)
}

// twoOverPiWords is the number of 64-bit words of 2/π that reduceLarge
// needs: its 192-bit window starts at most at bit 971 (|x| < 2^1024).
const twoOverPiWords = 19

// twoOverPiWindow returns the 64 bits of 2/π starting at bit j (bit 1 is
// the first after the binary point; bits j < 1 are the zero integer part).
func twoOverPiWindow(j int) uint64 {
	if j <= -64 {
		return 0
	}
	if j < 1 {
		return twoOverPi[0] >> uint(1-j)
	}
	k, off := (j-1)/64, uint((j-1)%64)
	w := twoOverPi[k] << off
	if off > 0 && k+1 < twoOverPiWords {
		w |= twoOverPi[k+1] >> (64 - off)
	}
	return w
}

// reduceLarge reduces a finite |x| >= 2^28 by Payne and Hanek's method
// ("Radian reduction for trigonometric functions", SIGNUM Newsletter 18,
// 1983): with |x| = M·2^e (M a 53-bit integer), only the 192 bits of 2/π
// from bit e-1 on matter for x·2/π modulo 4. Their product with M, in
// integer arithmetic, gives the quadrant and the fraction of a quadrant to
// 128 bits, which is converted to a double-double and multiplied by π/2.
// The reduced argument has a relative error below 2^-70 for every double.
func reduceLarge(x float64) (k int, rh, rl float64) {
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1075
	m := b&(1<<52-1) | 1<<52
	j := e - 1
	w0, w1, w2 := twoOverPiWindow(j), twoOverPiWindow(j+64), twoOverPiWindow(j+128)

	// y = 4·frac(M·0.w0w1w2) is x·2/π modulo 4: fraction words a, b, c of
	// M·0.w0w1w2, the integer part dropped.
	h2, c := bits.Mul64(m, w2)
	h1, l1 := bits.Mul64(m, w1)
	_, l0 := bits.Mul64(m, w0)
	bw, carry := bits.Add64(l1, h2, 0)
	a, _ := bits.Add64(l0, h1, carry)

	q := int(a >> 62)
	// The fraction of a quadrant, z in [0, 1), as the 128-bit zh:zl.
	zh := a<<2 | bw>>62
	zl := bw<<2 | c>>62
	negative := zh>>63 == 1
	if negative {
		// z >= 1/2: use z - 1 in [-1/2, 0) and the next quadrant.
		q++
		zl, carry = bits.Sub64(0, zl, 0)
		zh, _ = bits.Sub64(0, zh, carry)
	}
	// Normalize and convert |z| to a double-double.
	lz := bits.LeadingZeros64(zh)
	if lz == 64 {
		zh, zl, lz = zl, 0, 64+bits.LeadingZeros64(zl)
		zh <<= uint(lz - 64)
	} else if lz > 0 {
		zh = zh<<uint(lz) | zl>>uint(64-lz)
		zl <<= uint(lz)
	}
	fh := math.Ldexp(float64(zh>>11), -53-lz)
	fl := math.Ldexp(float64(zh&(1<<11-1)<<53|zl>>11), -117-lz)
	// r = z·π/2 as a double-double.
	rh, rl = twoProd(fh, piby2_1)
	rl += float64(fh*piby2_2) + float64(fl*piby2_1)
	rh, rl = fastTwoSum(rh, rl)
	if negative {
		rh, rl = -rh, -rl
	}
	if x < 0 {
		return -q, -rh, -rl
	}
	return q, rh, rl
}
