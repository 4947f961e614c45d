package xmath

import (
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hees-dev/hees/internal/xmath/bigref"
)

// alike reports whether a and b are the same value: NaN equals NaN and the
// sign of zero counts (package math's test helper of the same name).
func alike(a, b float64) bool {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return true
	case a == b:
		return math.Signbit(a) == math.Signbit(b)
	}
	return false
}

var (
	inf  = math.Inf(1)
	nan  = math.NaN()
	negZ = math.Copysign(0, -1)
)

func TestSpecialCases(t *testing.T) {
	const minSub = 0x1p-1074
	for _, c := range []struct {
		name    string
		f       func(float64) float64
		in, out float64
	}{
		{"Exp", Exp, nan, nan},
		{"Exp", Exp, inf, inf},
		{"Exp", Exp, -inf, 0},
		{"Exp", Exp, 0, 1},
		{"Exp", Exp, negZ, 1},
		{"Exp", Exp, 1, math.E},
		{"Exp", Exp, minSub, 1},
		{"Exp", Exp, 709.782712893384, 1.7976931348622732e308},
		{"Exp", Exp, 709.7827128933841, inf},
		{"Exp", Exp, -745.1332191019411, minSub},
		{"Exp", Exp, -745.1332191019412, 0},
		{"Exp", Exp, 1e300, inf},
		{"Exp", Exp, -1e300, 0},
		{"Expm1", Expm1, nan, nan},
		{"Expm1", Expm1, inf, inf},
		{"Expm1", Expm1, -inf, -1},
		{"Expm1", Expm1, 0, 0},
		{"Expm1", Expm1, negZ, negZ},
		{"Expm1", Expm1, minSub, minSub},
		{"Expm1", Expm1, -minSub, -minSub},
		{"Expm1", Expm1, -36, -1 + 0x1p-52}, // e^-36 = 2.3e-16 ≈ 2.07·2^-53
		{"Expm1", Expm1, -40, -1},           // e^-40 < 2^-54
		{"Expm1", Expm1, -1e300, -1},
		{"Expm1", Expm1, 709.7827128933841, inf},
		{"Log", Log, nan, nan},
		{"Log", Log, inf, inf},
		{"Log", Log, -inf, nan},
		{"Log", Log, -1, nan},
		{"Log", Log, 0, -inf},
		{"Log", Log, negZ, -inf},
		{"Log", Log, 1, 0},
		{"Log", Log, math.E, 1},
		{"Log", Log, minSub, -744.4400719213812},
		{"Log", Log, math.MaxFloat64, 709.782712893384},
		{"Log1p", Log1p, nan, nan},
		{"Log1p", Log1p, inf, inf},
		{"Log1p", Log1p, -1, -inf},
		{"Log1p", Log1p, -1.5, nan},
		{"Log1p", Log1p, -inf, nan},
		{"Log1p", Log1p, 0, 0},
		{"Log1p", Log1p, negZ, negZ},
		{"Log1p", Log1p, minSub, minSub},
		{"Log1p", Log1p, math.E - 1, 1},
		{"Sin", Sin, nan, nan},
		{"Sin", Sin, inf, nan},
		{"Sin", Sin, -inf, nan},
		{"Sin", Sin, 0, 0},
		{"Sin", Sin, negZ, negZ},
		{"Sin", Sin, minSub, minSub},
		{"Sin", Sin, math.Pi, 1.2246467991473532e-16},
		{"Sin", Sin, math.Pi / 2, 1},
		{"Sin", Sin, -math.Pi / 2, -1},
		{"Cos", Cos, nan, nan},
		{"Cos", Cos, inf, nan},
		{"Cos", Cos, -inf, nan},
		{"Cos", Cos, 0, 1},
		{"Cos", Cos, negZ, 1},
		{"Cos", Cos, math.Pi, -1},
		{"Cos", Cos, math.Pi / 2, 6.123233995736766e-17},
	} {
		if got := c.f(c.in); !alike(got, c.out) {
			t.Errorf("%s(%v) = %v, want %v", c.name, c.in, got, c.out)
		}
	}
}

// TestPowSpecialCases checks every special case that math.Pow documents
// against math.Pow itself, and the remaining combinations of the same
// values against the exact result (math.Pow is inaccurate on some of them,
// e.g. math.Pow(5e-324, 0.25) is 1.03e-77 instead of 1.49e-81).
func TestPowSpecialCases(t *testing.T) {
	values := []float64{nan, inf, -inf, 0, negZ, 1, -1, 0.5, -0.5, 2, -2, 3, -3,
		0.25, 1.5, -1.5, 1e300, -1e300, 1e-300, 0x1p-1074, 1<<53 + 2, -(1<<53 + 2), 1 << 52, math.MaxFloat64}
	special := func(x, y float64) bool {
		return math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) ||
			x == 0 || y == 0 || x == 1 || y == 1 || (x < 0 && y != math.Trunc(y))
	}
	for _, x := range values {
		for _, y := range values {
			got := Pow(x, y)
			if special(x, y) {
				if want := math.Pow(x, y); !alike(got, want) {
					t.Errorf("Pow(%v, %v) = %v, math.Pow gives %v", x, y, got, want)
				}
				continue
			}
			if e := powError(got, x, y); e > 0.52 {
				t.Errorf("Pow(%v, %v) = %v: error %.3g ulp", x, y, got, e)
			}
		}
	}
}

// powError returns |got - x^y| in ulps of the exact value x^y, for finite
// nonzero x and y (x < 0 only with integer y); an overflowing exact value
// must give ±Inf and one below half the smallest subnormal ±0.
func powError(got, x, y float64) float64 {
	ax := math.Abs(x)
	z := bigref.Mul(bigref.New(y), bigref.Log(bigref.New(ax)))
	var want *big.Float
	switch zf, _ := z.Float64(); {
	case zf > 800:
		want = bigref.New(math.MaxFloat64)
		want = bigref.Mul(want, want) // rounds to +Inf below
	case zf < -800:
		want = bigref.New(0x1p-1074)
		want = bigref.Mul(want, want)
	default:
		want = bigref.Exp(z)
	}
	if x < 0 && math.Mod(y, 2) != 0 {
		want.Neg(want)
	}
	if wf, _ := want.Float64(); math.IsInf(wf, 0) || wf == 0 {
		if got == wf {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(bigref.ULPError(got, want))
}

// TestPowExact checks that exact powers come out exact: every power of two
// from 2^-1074 to 2^1023, 10^k for k <= 22 and small integer powers.
func TestPowExact(t *testing.T) {
	for k := -1074; k <= 1023; k++ {
		if got, want := Pow(2, float64(k)), math.Ldexp(1, k); got != want {
			t.Errorf("Pow(2, %d) = %v, want %v", k, got, want)
		}
		if got, want := Pow(0.5, float64(-k)), math.Ldexp(1, k); got != want {
			t.Errorf("Pow(0.5, %d) = %v, want %v", -k, got, want)
		}
	}
	p := 1.0
	for k := range 23 {
		if got := Pow(10, float64(k)); got != p {
			t.Errorf("Pow(10, %d) = %v, want %v", k, got, p)
		}
		p *= 10
	}
	for x := -20.0; x <= 20; x++ {
		for y := 0.0; y <= 10; y++ {
			want := 1.0
			for range int(y) {
				want *= x // exact: |x|^10 < 2^44
			}
			if got := Pow(x, y); got != want {
				t.Errorf("Pow(%v, %v) = %v, want %v", x, y, got, want)
			}
		}
	}
	if got := Pow(-2, -1075); !alike(got, negZ) {
		t.Errorf("Pow(-2, -1075) = %v, want -0", got)
	}
	if got := Pow(-2, 1025); got != -inf {
		t.Errorf("Pow(-2, 1025) = %v, want -Inf", got)
	}
}

// ulps returns the distance of a and b in units in the last place (the
// number of doubles between them), for finite values of the same sign.
func ulps(a, b float64) int64 {
	if a == b {
		return 0
	}
	if math.Signbit(a) != math.Signbit(b) || math.IsInf(a, 0) != math.IsInf(b, 0) {
		return math.MaxInt64
	}
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	return max(d, -d)
}

// TestAgainstMath compares with package math on 10^6 points per function
// (10^5 with -short). Expm1, Log and Log1p differ from math by at most 1
// ulp (both are within 1 ulp of the exact value, so they can differ by
// one); Exp, Sin and Cos by at most 2, since math.Exp (amd64 assembly, FMA
// path), math.Sin and math.Cos are themselves off by up to about 1.7 ulp. The domains leave out where math
// is wrong on this platform (checked against bigref): on linux/amd64, Go
// 1.26, math.Exp overflows to +Inf from x ≈ 709.44 instead of 709.78, and
// math.Log is wrong for subnormal inputs (math.Log(5e-324) = -709.09 instead
// of -744.44); TestAccuracy covers those ranges against the exact values. Pow is compared with the
// exact value in TestAccuracy only: math.Pow is off by up to 19 ulp here
// (logged).
func TestAgainstMath(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	r := rand.New(rand.NewPCG(1, 2))
	wide := func(lo, hi float64) func() float64 {
		return func() float64 { return lo + (hi-lo)*r.Float64() }
	}
	anyNormal := func() float64 {
		for {
			x := math.Float64frombits(r.Uint64() >> 1)
			if x >= 0x1p-1022 && x <= math.MaxFloat64 {
				return x
			}
		}
	}
	small := func() float64 { return math.Ldexp(2*r.Float64()-1, -r.IntN(60)) }
	for _, c := range []struct {
		name   string
		f, ref func(float64) float64
		inputs []func() float64
		maxULP int64
	}{
		{"Exp", Exp, math.Exp, []func() float64{wide(-745.2, 709.4), wide(-1, 1), small}, 2},
		{"Expm1", Expm1, math.Expm1, []func() float64{wide(-40, 709.8), wide(-1, 1), small}, 1},
		{"Log", Log, math.Log, []func() float64{anyNormal, wide(0.5, 2), wide(0.99, 1.01)}, 1},
		{"Log1p", Log1p, math.Log1p, []func() float64{wide(-1, 1), small, anyNormal}, 1},
		{"Sin", Sin, math.Sin, []func() float64{wide(-1e4, 1e4), wide(-4, 4), small, wide(-1e8, 1e8)}, 2},
		{"Cos", Cos, math.Cos, []func() float64{wide(-1e4, 1e4), wide(-4, 4), small, wide(-1e8, 1e8)}, 2},
	} {
		worst, worstX := int64(0), 0.0
		differ := 0
		for i := range n {
			x := c.inputs[i%len(c.inputs)]()
			got, want := c.f(x), c.ref(x)
			if d := ulps(got, want); d > 0 {
				differ++
				if d > worst {
					worst, worstX = d, x
				}
			}
		}
		t.Logf("%s: %d of %d differ from math, by at most %d ulp", c.name, differ, n, worst)
		if worst > c.maxULP {
			t.Errorf("%s(%v) = %v, math gives %v: %d ulp apart", c.name, worstX, c.f(worstX), c.ref(worstX), worst)
		}
	}
	worst := int64(0)
	for range n / 10 {
		x, y := math.Exp(40*r.Float64()-20), 60*r.Float64()-30
		worst = max(worst, ulps(Pow(x, y), math.Pow(x, y)))
	}
	t.Logf("Pow: up to %d ulp from math.Pow on %d points (math.Pow's own error; see TestAccuracy)", worst, n/10)
}

// hardSin is the double closest to a multiple of π/2 of all
// (6381956970095103·2^797, within 2^-60.9 of one; Muller, "Elementary
// Functions", Table 11.1) and its neighbours, and the limit 2^28 between
// the two reductions with its neighbours.
var hardSin = []float64{
	6381956970095103 * 0x1p797, math.Nextafter(6381956970095103*0x1p797, 0), math.Nextafter(6381956970095103*0x1p797, inf),
	0x1p28, math.Nextafter(0x1p28, 0), math.Nextafter(0x1p28, inf),
}

var accuracyPoints = flag.Int("accuracy", 1000, "points per case in TestAccuracy (a tenth with -short)")

// TestAccuracy measures the true error in ulps against a 200-bit reference
// (bigref) and asserts the bounds documented on each function. The figures
// in the package comment come from go test -run TestAccuracy -accuracy
// 100000 -v.
func TestAccuracy(t *testing.T) {
	n := *accuracyPoints
	if testing.Short() {
		n = max(1, n/10)
	}
	r := rand.New(rand.NewPCG(3, 4))
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	halfPi := bigref.Quo(bigref.Pi(), bigref.Int(2))
	// nearPiMultiple returns the double nearest to k·π/2 for a random k
	// below 2^30 (both reductions), or a neighbour: the hardest inputs for
	// the reduction.
	nearPiMultiple := func() float64 {
		k := r.IntN(1<<30) + 1
		x, _ := bigref.Mul(bigref.Int(int64(k)), halfPi).Float64()
		for range r.IntN(3) {
			x = math.Nextafter(x, inf)
		}
		return x
	}
	type sample struct {
		x, y float64 // y for Pow only
	}
	for _, c := range []struct {
		name  string
		bound float64
		input func() sample
		f     func(sample) float64
		exact func(sample) *big.Float // nil: powError
	}{
		{"Exp", 0.51, func() sample { return sample{x: uniform(-745.1, 709.7)} },
			func(s sample) float64 { return Exp(s.x) },
			func(s sample) *big.Float { return bigref.Exp(bigref.New(s.x)) }},
		{"Exp(subnormal)", 0.51, func() sample { return sample{x: uniform(-745.13, -708.4)} },
			func(s sample) float64 { return Exp(s.x) },
			func(s sample) *big.Float { return bigref.Exp(bigref.New(s.x)) }},
		{"Exp(small)", 0.51, func() sample { return sample{x: uniform(-0.01, 0.01)} },
			func(s sample) float64 { return Exp(s.x) },
			func(s sample) *big.Float { return bigref.Exp(bigref.New(s.x)) }},
		{"Expm1", 0.51, func() sample { return sample{x: uniform(-40, 100)} },
			func(s sample) float64 { return Expm1(s.x) },
			func(s sample) *big.Float { return bigref.Sub(bigref.Exp(bigref.New(s.x)), bigref.Int(1)) }},
		{"Expm1(small)", 0.51, func() sample { return sample{x: math.Ldexp(uniform(-1, 1), -r.IntN(50))} },
			func(s sample) float64 { return Expm1(s.x) },
			func(s sample) *big.Float { return bigref.Sub(bigref.Exp(bigref.New(s.x)), bigref.Int(1)) }},
		{"Log", 0.51, func() sample { return sample{x: math.Ldexp(uniform(0.5, 1), r.IntN(2098)-1073)} },
			func(s sample) float64 { return Log(s.x) },
			func(s sample) *big.Float { return bigref.Log(bigref.New(s.x)) }},
		{"Log(near 1)", 0.51, func() sample { return sample{x: 1 + math.Ldexp(uniform(-1, 1), -r.IntN(50))} },
			func(s sample) float64 { return Log(s.x) },
			func(s sample) *big.Float { return bigref.Log(bigref.New(s.x)) }},
		{"Log1p", 0.51, func() sample { return sample{x: math.Ldexp(uniform(-1, 1), -r.IntN(60))} },
			func(s sample) float64 { return Log1p(s.x) },
			func(s sample) *big.Float { return bigref.Log(bigref.Add(bigref.Int(1), bigref.New(s.x))) }},
		{"Log1p(large)", 0.51, func() sample { return sample{x: math.Ldexp(uniform(0.5, 1), r.IntN(1024))} },
			func(s sample) float64 { return Log1p(s.x) },
			func(s sample) *big.Float { return bigref.Log(bigref.Add(bigref.Int(1), bigref.New(s.x))) }},
		{"Pow", 0.52, func() sample { return sample{x: math.Exp(uniform(-30, 30)), y: uniform(-20, 20)} },
			func(s sample) float64 { return Pow(s.x, s.y) }, nil},
		{"Pow(large z)", 0.52, func() sample {
			x := uniform(0.5, 2)
			return sample{x: x, y: uniform(-745, 709) / math.Log(x)}
		}, func(s sample) float64 { return Pow(s.x, s.y) }, nil},
		{"Pow(near 1)", 0.52, func() sample {
			x := 1 + math.Ldexp(uniform(-1, 1), -r.IntN(50))
			return sample{x: x, y: uniform(-1, 1) * math.Ldexp(1, r.IntN(60))}
		}, func(s sample) float64 { return Pow(s.x, s.y) }, nil},
		{"Pow(x<0)", 0.52, func() sample { return sample{x: -uniform(0, 1e3), y: float64(r.IntN(201) - 100)} },
			func(s sample) float64 { return Pow(s.x, s.y) }, nil},
		{"Sin", 0.6, func() sample { return sample{x: uniform(-1e4, 1e4)} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Cos", 0.6, func() sample { return sample{x: uniform(-1e4, 1e4)} },
			func(s sample) float64 { return Cos(s.x) },
			func(s sample) *big.Float { _, v := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Sin(small)", 0.6, func() sample { return sample{x: uniform(-1, 1)} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Cos(small)", 0.6, func() sample { return sample{x: uniform(-1, 1)} },
			func(s sample) float64 { return Cos(s.x) },
			func(s sample) *big.Float { _, v := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Sin(near kπ/2)", 0.6, func() sample { return sample{x: nearPiMultiple()} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Cos(near kπ/2)", 0.6, func() sample { return sample{x: nearPiMultiple()} },
			func(s sample) float64 { return Cos(s.x) },
			func(s sample) *big.Float { _, v := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Sin(large)", 0.6, func() sample { return sample{x: math.Ldexp(uniform(-1, 1), 29+r.IntN(995))} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Cos(large)", 0.6, func() sample { return sample{x: math.Ldexp(uniform(-1, 1), 29+r.IntN(995))} },
			func(s sample) float64 { return Cos(s.x) },
			func(s sample) *big.Float { _, v := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Sin(hardest)", 0.6, func() sample { return sample{x: hardSin[r.IntN(len(hardSin))]} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Cos(hardest)", 0.6, func() sample { return sample{x: hardSin[r.IntN(len(hardSin))]} },
			func(s sample) float64 { return Cos(s.x) },
			func(s sample) *big.Float { _, v := bigref.SinCos(bigref.New(s.x)); return v }},
		{"Sin(<2^28)", 0.6, func() sample { return sample{x: uniform(-0x1p28, 0x1p28)} },
			func(s sample) float64 { return Sin(s.x) },
			func(s sample) *big.Float { v, _ := bigref.SinCos(bigref.New(s.x)); return v }},
	} {
		worst, worstS := 0.0, sample{}
		for range n {
			s := c.input()
			var e float64
			if c.exact == nil { // Pow
				e = powError(c.f(s), s.x, s.y)
			} else {
				e = math.Abs(bigref.ULPError(c.f(s), c.exact(s)))
			}
			if e > worst {
				worst, worstS = e, s
			}
		}
		t.Logf("%-16s max error %.4f ulp on %d points", c.name, worst, n)
		if worst > c.bound {
			t.Errorf("%s: error %.4f ulp at x = %v, y = %v; documented bound %.2f", c.name, worst, worstS.x, worstS.y, c.bound)
		}
	}
}

// TestSincos checks that Sincos gives the bits of Sin and Cos.
func TestSincos(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 100000 {
		x := math.Ldexp(2*r.Float64()-1, r.IntN(80)-40)
		if i < 4 {
			x = []float64{0, negZ, 0x1.8p-27, 0x1p-26}[i]
		}
		s, c := Sincos(x)
		if !alike(s, Sin(x)) || !alike(c, Cos(x)) {
			t.Fatalf("Sincos(%v) = %v, %v; Sin, Cos give %v, %v", x, s, c, Sin(x), Cos(x))
		}
	}
}
