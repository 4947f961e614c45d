package objectives

import (
	"math"
	"strings"
	"testing"
)

// TestNoisyClassicParse checks the specs of the noisy classic functions:
// their canonical names parse back to the same problem, and the bad ones
// are errors that say what is wrong.
func TestNoisyClassicParse(t *testing.T) {
	for _, tc := range []struct{ spec, name string }{
		{"sphere:noise=add", "sphere:noise=add"},
		{"sphere:noise=add,sigma=0.1", "sphere:noise=add"},
		{"sphere:sigma=1e-2,noise=mul", "sphere:noise=mul,sigma=0.01"},
		{"rosenbrock:noise=add,sigma=1", "rosenbrock:noise=add,sigma=1"},
		{"ellipsoid:noise=mul,cond=1e4", "ellipsoid:cond=10000,noise=mul"},
		{"rotellipsoid:seed=3,noise=add,sigma=2", "rotellipsoid:seed=3,noise=add,sigma=2"},
	} {
		p, err := Parse(tc.spec, 4)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.spec, err)
		}
		if p.Name() != tc.name {
			t.Errorf("Parse(%q).Name() = %q, want %q", tc.spec, p.Name(), tc.name)
		}
		q, err := Parse(p.Name(), 4)
		if err != nil || q.Name() != p.Name() {
			t.Errorf("Parse(%q) = %v, %v", p.Name(), q, err)
		}
		if _, ok := p.(Noisy); !ok {
			t.Errorf("%s is not Noisy", tc.spec)
		}
	}
	for _, tc := range []struct{ spec, want string }{
		{"sphere:noise=gauss", `noise "gauss": want add (additive) or mul (multiplicative)`},
		{"sphere:noise=add,sigma=0", `noise sigma 0: want a positive finite number, at most 1e+100`},
		// Beyond it some values overflow to ±Inf, and -Inf ended runs as
		// "objective -Inf".
		{"sphere:noise=add,sigma=1e308", `noise sigma 1e+308: want a positive finite number, at most 1e+100`},
		{"sphere:noise=mul,sigma=2e100", `noise sigma 2e+100`},
		{"sphere:noise=add,sigma=inf", `noise sigma +Inf`},
		{"sphere:noise=add,sigma=x", `sigma="x" is not a valid number`},
		{"sphere:sigma=1", `sphere: sigma= needs noise=add or noise=mul`},
		{"sphere:noise=add,noise=mul", `parameter "noise" given twice`},
		{"bbob-noisy/f101/i1:noise=add", `take no parameters`},
	} {
		if _, err := Parse(tc.spec, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %v, want it to contain %q", tc.spec, err, tc.want)
		}
	}
}

// TestNoisyClassicRefusesSuites: a suite's problem with noise would get
// a name Parse does not read back ("bbob/f1/i1:noise=add"); it is refused.
func TestNoisyClassicRefusesSuites(t *testing.T) {
	// A suite's problem would get a name Parse does not read back.
	for _, spec := range []string{"bbob/f1/i1", "bbob-largescale/f1/i1", "bbob-mixint/f1/i1"} {
		p, err := Parse(spec, 5)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewNoisyClassic(p, NoiseAdditive, 0.1); err == nil || !strings.Contains(err.Error(), "noise is for the classic functions") {
			t.Errorf("NewNoisyClassic(%s): %v", spec, err)
		}
	}
}

// TestNoisyClassicValues checks the noise of both models: EvalKeyed is a
// pure function of (x, seed, key), Noiseless is the function's value, and
// the noise has mean 0 and the standard deviation sigma (additive) or
// sigma |f(x)| (multiplicative) over 20000 keys, within 4 standard errors;
// Eval follows the keys 0, 1, 2, … of seed 0.
func TestNoisyClassicValues(t *testing.T) {
	x := []float64{0.5, -1, 2}
	for _, tc := range []struct {
		spec  string
		scale float64 // the noise's standard deviation at x
	}{
		{"sphere:noise=add,sigma=0.3", 0.3},
		{"sphere:noise=mul,sigma=0.3", 0.3 * 5.25},
	} {
		p, err := Parse(tc.spec, 3)
		if err != nil {
			t.Fatal(err)
		}
		n := p.(Noisy)
		if got := n.Noiseless(x); got != 5.25 {
			t.Fatalf("%s: Noiseless = %v, want 5.25", tc.spec, got)
		}
		if a, b := n.EvalKeyed(x, 7, 3), n.EvalKeyed(x, 7, 3); a != b || a == n.EvalKeyed(x, 7, 4) || a == n.EvalKeyed(x, 8, 3) {
			t.Errorf("%s: EvalKeyed is not a function of (seed, key) alone", tc.spec)
		}
		for key := range uint64(3) {
			if a, b := p.Eval(x), n.EvalKeyed(x, 0, key); a != b {
				t.Errorf("%s: Eval #%d = %v, EvalKeyed(x, 0, %d) = %v", tc.spec, key, a, key, b)
			}
		}
		const m = 20000
		var sum, sq float64
		for key := range uint64(m) {
			e := n.EvalKeyed(x, 1, key) - 5.25
			sum += e
			sq += e * e
		}
		mean, sd := sum/m, math.Sqrt(sq/m)
		if math.Abs(mean) > 4*tc.scale/math.Sqrt(m) || math.Abs(sd/tc.scale-1) > 4/math.Sqrt(2*m) {
			t.Errorf("%s: noise mean %v, sd %v, want 0 and %v", tc.spec, mean, sd, tc.scale)
		}
	}
	p, _ := Parse("sphere:noise=add", 2)
	if v := p.Eval([]float64{math.Inf(1), 0}); !math.IsInf(v, 1) {
		t.Errorf("a point with an infinite coordinate: %v, want +Inf without noise", v)
	}
}
