package xmath

import "math"

// isOddInt reports whether y is an odd integer.
func isOddInt(y float64) bool {
	if math.Abs(y) >= 1<<53 {
		return false // every double this large is even
	}
	return y == math.Trunc(y) && int64(y)&1 == 1
}

// Pow returns x**y, the base-x exponential of y.
//
// Special cases are (the same as package math's):
//
//	Pow(x, ±0) = 1 for any x
//	Pow(1, y) = 1 for any y
//	Pow(x, 1) = x for any x
//	Pow(NaN, y) = NaN
//	Pow(x, NaN) = NaN
//	Pow(±0, y) = ±Inf for y an odd integer < 0
//	Pow(±0, -Inf) = +Inf
//	Pow(±0, +Inf) = +0
//	Pow(±0, y) = +Inf for finite y < 0 and not an odd integer
//	Pow(±0, y) = ±0 for y an odd integer > 0
//	Pow(±0, y) = +0 for finite y > 0 and not an odd integer
//	Pow(-1, ±Inf) = 1
//	Pow(x, +Inf) = +Inf for |x| > 1
//	Pow(x, -Inf) = +0 for |x| > 1
//	Pow(x, +Inf) = +0 for |x| < 1
//	Pow(x, -Inf) = +Inf for |x| < 1
//	Pow(+Inf, y) = +Inf for y > 0
//	Pow(+Inf, y) = +0 for y < 0
//	Pow(-Inf, y) = Pow(-0, -y)
//	Pow(x, y) = NaN for finite x < 0 and finite non-integer y
//
// Otherwise Pow computes exp(y·log|x|) with log|x| as a double-double
// (relative error about 2^-68) and the product y·log|x| kept as a
// double-double, so the error is below 0.52 ulp (TestAccuracy) and exact
// powers such as Pow(10, 3) or Pow(2, -1074) come out exact. Pow(x, 0.5) is
// math.Sqrt(x), correctly rounded.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case x != x || y != y:
		return math.NaN()
	case x == 0:
		switch {
		case y < 0:
			if math.Signbit(x) && isOddInt(y) {
				return math.Inf(-1)
			}
			return math.Inf(1)
		case y > 0:
			if math.Signbit(x) && isOddInt(y) {
				return x
			}
			return 0
		}
	case math.IsInf(y, 0):
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == math.IsInf(y, 1):
			return 0
		default:
			return math.Inf(1)
		}
	case math.IsInf(x, 0):
		if math.IsInf(x, -1) {
			return Pow(1/x, -y) // Pow(-0, -y)
		}
		if y < 0 {
			return 0
		}
		return math.Inf(1)
	case y == 0.5:
		if x > 0 {
			return math.Sqrt(x)
		}
	}

	negate := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		negate = isOddInt(y)
		x = -x
	}
	lh, ll := logDD(x)
	// z = y·log x as a double-double; exp overflows above 709.79 and
	// underflows below -745.14, so the range test on zh is exact enough.
	zh := float64(y * lh)
	var res float64
	switch {
	case zh > 710:
		res = math.Inf(1)
	case zh < -746:
		res = 0
	default:
		zl := math.FMA(y, lh, -zh) + float64(y*ll)
		zh, zl = fastTwoSum(zh, zl)
		n, r, rl := expReduce(zh, zl)
		res = expFinish(n, r, rl)
	}
	if negate {
		return -res
	}
	return res
}
