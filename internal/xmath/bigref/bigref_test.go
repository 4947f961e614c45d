package bigref

import (
	"math"
	"math/big"
	"testing"
)

// digits returns v to 50 significant decimal digits (166 bits).
func digits(v *big.Float) string { return v.Text('g', 50) }

// TestConstants checks π, ln 2, e and log 10 against their published
// decimal expansions to 50 digits.
func TestConstants(t *testing.T) {
	for _, c := range []struct {
		name string
		got  *big.Float
		want string
	}{
		{"pi", Pi(), "3.1415926535897932384626433832795028841971693993751"},
		{"ln2", Ln2(), "0.69314718055994530941723212145817656807550013436026"},
		{"e", Exp(Int(1)), "2.7182818284590452353602874713526624977572470937"},
		{"log 10", Log(Int(10)), "2.3025850929940456840179914546843642076011014886288"},
	} {
		if got := digits(c.got); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
	// 2/π: 0.A2F9836E4E441529FC2757D1F534DDC0DB629599... (hexadecimal).
	if w := TwoOverPiBits(3); w[0] != 0xa2f9836e4e441529 || w[1] != 0xfc2757d1f534ddc0 || w[2]>>32 != 0xdb629599 {
		t.Errorf("TwoOverPiBits = %x", w)
	}
}

// relDiff returns |a-b|/|b| as a float64.
func relDiff(a, b *big.Float) float64 {
	d, _ := Quo(Sub(a, b), b).Float64()
	return math.Abs(d)
}

// TestIdentities checks log(exp(x)) = x, exp(a+b) = exp(a)·exp(b) and
// sin² + cos² = 1 to 2^-175 relative (the package's documented accuracy),
// over wide ranges.
func TestIdentities(t *testing.T) {
	const tol = 0x1p-175
	for _, x := range []float64{-700, -1.5, -0.1, 0.3, 1, 2.5, 88, 700} {
		bx := New(x)
		if d := relDiff(Log(Exp(bx)), bx); d > tol {
			t.Errorf("log(exp(%v)) off by %g relative", x, d)
		}
		a, b := New(x/3), New(x-x/3)
		if d := relDiff(Mul(Exp(a), Exp(b)), Exp(Add(a, b))); d > tol {
			t.Errorf("exp(%v)·exp(%v) off by %g relative", x/3, x-x/3, d)
		}
	}
	for _, x := range []float64{1e-300, 0.5, 1, 3, 1e4, 1e22, 0x1p300, math.MaxFloat64} {
		s, c := SinCos(New(x))
		if d := relDiff(Add(Mul(s, s), Mul(c, c)), Int(1)); d > tol {
			t.Errorf("sin²+cos² of %v off by %g", x, d)
		}
	}
	// sin(1e22) = -0.8522008497671888017727...
	if s, _ := SinCos(New(1e22)); digits(s)[:20] != "-0.85220084976718880" {
		t.Errorf("sin(1e22) = %s", digits(s))
	}
}

// TestULPError checks the ulp measure at ordinary values, at a power of two
// and in the subnormal range.
func TestULPError(t *testing.T) {
	for _, c := range []struct {
		got  float64
		want *big.Float
		ulps float64
	}{
		{1 + 0x1p-52, Int(1), 1},
		{1 - 0x1p-53, Int(1), -0.5}, // the spacing above 1 is 2^-52
		{1, New(1 - 0x1p-53), 1},    // the spacing below 1 is 2^-53
		{0x1p-1074, Int(0), math.Inf(1)},
		{3 * 0x1p-1074, New(0x1p-1074), 2},
	} {
		if got := ULPError(c.got, c.want); got != c.ulps {
			t.Errorf("ULPError(%v, %v) = %v, want %v", c.got, c.want, got, c.ulps)
		}
	}
}
