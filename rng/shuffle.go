package rng

import "math/bits"

// Shuffle puts the elements of p into a uniformly random order, exactly:
// the Fisher-Yates shuffle (for i = len(p)-1 down to 1, swap p[i] with p[j],
// j uniform on 0..i), whose indices are drawn in batches from single words
// (Brackett-Rozinsky and Lemire, "Batched ranged random integer
// generation", 2024). A word r serves the consecutive bounds b_1, ..., b_m
// whose product P stays below 2^64: the indices are the mixed-radix digits
// of floor(r P / 2^64), and r is drawn again when (r P) mod 2^64 is below
// 2^64 mod P, which makes every value of the digits equally likely. Up to
// 20 elements take one word, and another with probability below P/2^64.
// Shuffle does not allocate.
func (s *Stream) Shuffle(p []int) {
	for i := len(p) - 1; i > 0; {
		// The bounds i+1, i, ..., i-m+2 whose product fits in a word: all
		// of them, whose product is (i+1)!, from 20 elements down.
		prod, m := uint64(1), 0
		if i < len(factorials) {
			prod, m = factorials[i], i
		}
		for ; m < i; m++ {
			hi, lo := bits.Mul64(prod, uint64(i+1-m))
			if hi != 0 {
				break
			}
			prod = lo
		}
		r := s.Uint64()
		if r*prod < prod { // the rejection test only when it can fire
			for thresh := -prod % prod; r*prod < thresh; {
				r = s.Uint64()
			}
		}
		for range m {
			j, lo := bits.Mul64(r, uint64(i+1))
			p[i], p[j] = p[j], p[i]
			r = lo
			i--
		}
	}
}

// factorials[i] is (i+1)!, for the (i+1)! < 2^64 that Shuffle takes at once.
var factorials = func() (f [20]uint64) {
	f[0] = 1
	for i := 1; i < len(f); i++ {
		f[i] = f[i-1] * uint64(i+1)
	}
	return f
}()
