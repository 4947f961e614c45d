package rng

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// Ziggurat parameters for 256 layers (Marsaglia & Tsang, "The Ziggurat
// Method for Generating Random Variables", J. Stat. Softw. 5(8), 2000): the
// base layer starts at zigR and every layer has area zigV under the
// unnormalized density f(x) = exp(-x²/2).
const (
	zigR = 3.6541528853610088
	zigV = 0.00492867323399
)

// Normal returns a standard normal deviate (mean 0, variance 1).
//
// The method is a 256-layer ziggurat (Marsaglia & Tsang 2000) with 64-bit
// words: the low 8 bits of a word pick the layer i, bit 8 the sign and the
// top 52 bits j a position x = j·w[i] in the layer. 98.5% of words are
// accepted by the integer test j < k[i] at the cost of one multiply. The
// rest go to the wedge test (one more word and one xmath.Exp) or, for the
// base layer, to Marsaglia's exact tail method beyond zigR (two words and two
// xmath.Log per try). Words are taken from the sub-stream in order, so the
// number of words per normal varies (1.022 on average) but the sequence is a
// pure function of the sub-stream.
//
// The tables are constants (ztable.go): the correctly rounded values of the
// exact layer edges for zigR and zigV, generated with math/big by
// TestZigguratTable. The wedge and tail use xmath.Exp and xmath.Log, so the
// bits are the same on every platform (golden test testdata/normals.golden).
// Against the same sampler with math.Exp and math.Log, 16 of 10^7 draws
// differ, by 1 ulp, all in the tail (TestNormalVersusMath). The tail is
// exact up to the 53-bit resolution of the uniforms: the largest possible |z|
// is zigR + 53·ln2/zigR ≈ 13.7. The distribution is exact up to the 52-bit
// resolution of x within a layer and the 12 digits of the published zigV
// (the top layer's area is off by 1e-9 relative, TestZigguratGeometry).
func (s *Stream) Normal() float64 {
	u, ok := s.buffered()
	if !ok {
		u = s.Uint64()
	}
	if z, ok := zigRect(u); ok {
		return z
	}
	return s.normalFrom(u)
}

// FillNormal fills dst with standard normal deviates, exactly as repeated
// calls to Normal would.
func (s *Stream) FillNormal(dst []float64) {
	for i := range dst {
		u, ok := s.buffered()
		if !ok {
			u = s.Uint64()
		}
		z, ok := zigRect(u)
		if !ok {
			z = s.normalFrom(u)
		}
		dst[i] = z
	}
}

// zigRect returns the deviate of the word u and true when u falls inside
// its layer's rectangle, under the curve: the low 8 bits pick the layer i,
// the top 52 bits j the position x = j·w[i], and the integer test
// j < k[i] accepts. Bit 8 of u becomes the sign bit (no branch: the sign is
// unpredictable).
func zigRect(u uint64) (float64, bool) {
	i := u & 0xff
	j := u >> 12
	x := float64(float64(j) * zigW[i])
	return math.Float64frombits(math.Float64bits(x) | (u&0x100)<<55), j < zigK[i]
}

// normalFrom finishes a deviate whose word u fell outside its layer's
// rectangle: the tail beyond zigR for the base layer, the wedge test
// otherwise, and on rejection the next words, from the rectangle test on.
func (s *Stream) normalFrom(u uint64) float64 {
	for {
		i := u & 0xff
		if i == 0 {
			return s.normalTail(u&0x100 != 0)
		}
		x := float64(float64(u>>12) * zigW[i])
		// Wedge: accept x if a uniform height in [f(x_i), f(x_{i+1})) is
		// below f(x).
		y := zigF[i] + float64(s.Float64()*(zigF[i+1]-zigF[i]))
		if y < xmath.Exp(-0.5*float64(x*x)) {
			if u&0x100 != 0 {
				return -x
			}
			return x
		}
		u = s.Uint64()
		if z, ok := zigRect(u); ok {
			return z
		}
	}
}

// normalTail samples the normal tail beyond zigR by Marsaglia's method
// (1964): a = -log(u1)/r, b = -log(u2), accept r + a when 2b > a².
// The uniforms are in (0, 1] so the logarithms are finite.
func (s *Stream) normalTail(negative bool) float64 {
	for {
		a := -xmath.Log(float64(s.Uint64()>>11+1)*0x1p-53) / zigR
		b := -xmath.Log(float64(s.Uint64()>>11+1) * 0x1p-53)
		if b+b > float64(a*a) {
			if negative {
				return -(zigR + a)
			}
			return zigR + a
		}
	}
}
