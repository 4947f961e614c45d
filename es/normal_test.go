package es

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNormal checks erfc, normCDF and upperQuantile against package math
// (whose Erfc and Erfinv have the same coefficients, computed without the
// pinned rounding) and the quantile against the distribution function.
func TestNormal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		x := (r.Float64()*2 - 1) * 30
		if k := r.IntN(4); k == 0 {
			x /= 1e6
		}
		got, want := erfc(x), math.Erfc(x)
		if d := math.Abs(got - want); d > 4e-16*math.Max(want, 1e-300) && d > 1e-300 {
			t.Fatalf("erfc(%v) = %v, math.Erfc %v", x, got, want)
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), 0, -0.0, 28, -28, 6.5, -6.5} {
		if got, want := erfc(x), math.Erfc(x); got != want {
			t.Errorf("erfc(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(erfc(math.NaN())) {
		t.Error("erfc(NaN) is not NaN")
	}
	for range 20000 {
		p := math.Pow(10, -10*r.Float64()) / 2 // (5e-11, 0.5]
		z := upperQuantile(p)
		want := math.Sqrt2 * math.Erfinv(1-2*p) // loses p's precision in 1 - 2p for small p
		if d := math.Abs(z - want); p > 1e-3 && d > 1e-14*math.Max(1, want) {
			t.Fatalf("upperQuantile(%v) = %v, math %v", p, z, want)
		}
		// The tail keeps p's precision, which 1 - 2p loses.
		if back := normCDF(-z); math.Abs(back-p) > 1e-13*p {
			t.Fatalf("Φ(-upperQuantile(%v)) = %v", p, back)
		}
	}
	if z := upperQuantile(0.5); z != 0 {
		t.Errorf("upperQuantile(1/2) = %v, want 0", z)
	}
}
