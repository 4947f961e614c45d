package xmath

import "math"

// twoSum returns s = fl(a+b) and the exact error e = a + b - s (Knuth's
// TwoSum, six operations, no precondition on the magnitudes).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bv := s - a
	av := s - bv
	e = (a - av) + (b - bv)
	return s, e
}

// fastTwoSum returns s = fl(a+b) and the exact error e = a + b - s, provided
// |a| >= |b| or a == 0 (Dekker's Fast2Sum).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd returns p = fl(a*b) and the exact error e = a*b - p, using one
// correctly rounded fused multiply-add (exact on every platform).
func twoProd(a, b float64) (p, e float64) {
	p = float64(a * b)
	e = math.FMA(a, b, -p)
	return p, e
}

// scale2 returns y·2^k for y in [0.5, 2) and k >= -1022 (normal results,
// exact) or k > 1023 (overflow to +Inf unless y·2^1024 still fits).
func scale2(y float64, k int) float64 {
	if k > 1023 {
		// 2^1024 is not a float64: split the scaling.
		return float64(float64(y*0x1p1023) * math.Float64frombits(uint64(min(k-1023, 1023)+1023)<<52))
	}
	return float64(y * math.Float64frombits(uint64(k+1023)<<52))
}
