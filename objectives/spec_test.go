package objectives

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestParse checks specs against their canonical names and the constructor
// they stand for.
func TestParse(t *testing.T) {
	tests := []struct {
		spec, name string
		dim        int
		same       func() (Problem, error) // the same problem built directly
	}{
		{"sphere", "sphere", 3, func() (Problem, error) { return NewSphere(3) }},
		{"  sphere ", "sphere", 3, func() (Problem, error) { return NewSphere(3) }},
		{"ellipsoid", "ellipsoid", 4, func() (Problem, error) { return NewEllipsoid(4, 1e6) }},
		{"ellipsoid:cond=1e6", "ellipsoid", 4, func() (Problem, error) { return NewEllipsoid(4, 1e6) }},
		{"ellipsoid:cond=1e4", "ellipsoid:cond=10000", 4, func() (Problem, error) { return NewEllipsoid(4, 1e4) }},
		{"ellipsoid:cond=1e8", "ellipsoid:cond=1e8", 4, func() (Problem, error) { return NewEllipsoid(4, 1e8) }},
		{"ellipsoid: cond = 2.5 ", "ellipsoid:cond=2.5", 4, func() (Problem, error) { return NewEllipsoid(4, 2.5) }},
		{"rotellipsoid:seed=3", "rotellipsoid:seed=3", 5, func() (Problem, error) { return NewRotatedEllipsoid(5, 1e6, 3) }},
		{"rotellipsoid:seed=3,cond=100", "rotellipsoid:cond=100,seed=3", 5, func() (Problem, error) { return NewRotatedEllipsoid(5, 100, 3) }},
		{"rotellipsoid:seed=1", "rotellipsoid", 5, func() (Problem, error) { return NewRotatedEllipsoid(5, 1e6, 1) }},
		{"cigar:cond=1e3", "cigar:cond=1000", 3, func() (Problem, error) { return NewCigar(3, 1e3) }},
		{"discus", "discus", 3, func() (Problem, error) { return NewDiscus(3, 1e6) }},
		{"twoaxes:cond=1.5e-0", "twoaxes:cond=1.5", 3, func() (Problem, error) { return NewTwoAxes(3, 1.5) }},
		{"diffpowers", "diffpowers", 3, func() (Problem, error) { return NewDiffPowers(3) }},
		{"rosenbrock", "rosenbrock", 3, func() (Problem, error) { return NewRosenbrock(3) }},
		{"rastrigin", "rastrigin", 3, func() (Problem, error) { return NewRastrigin(3) }},
		{"quadratic:seed=3,cond=1e4", "quadratic:cond=10000,seed=3", 6, func() (Problem, error) { return NewRandomQuadratic(6, 1e4, 3) }},
		{"quadratic:seed=0", "quadratic:seed=0", 6, func() (Problem, error) { return NewRandomQuadratic(6, 1e6, 0) }},
		{"bbob/f10/i3", "bbob/f10/i3", 5, func() (Problem, error) { return NewBBOB(10, 3, 5) }},
		{"bbob/f010/i03", "bbob/f10/i3", 5, func() (Problem, error) { return NewBBOB(10, 3, 5) }},
		{"bbob/f24", "bbob/f24/i1", 2, func() (Problem, error) { return NewBBOB(24, 1, 2) }},
	}
	for _, tc := range tests {
		p, err := Parse(tc.spec, tc.dim)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if p.Name() != tc.name || p.Dim() != tc.dim {
			t.Errorf("Parse(%q, %d): Name %q Dim %d, want %q %d", tc.spec, tc.dim, p.Name(), p.Dim(), tc.name, tc.dim)
		}
		q, err := tc.same()
		if err != nil {
			t.Fatal(err)
		}
		if q.Name() != p.Name() {
			t.Errorf("Parse(%q) is %q, the constructor gives %q", tc.spec, p.Name(), q.Name())
		}
		for k := 1; k <= 3; k++ {
			x := referencePoint(2, 2, tc.dim, k)
			if a, b := p.Eval(x), q.Eval(x); a != b {
				t.Errorf("Parse(%q) and its constructor differ at r%d: %v, %v", tc.spec, k, a, b)
			}
		}
	}
}

// TestParseErrors checks that every malformed spec is an error that says
// what is wrong.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec string
		dim  int
		want string
	}{
		{"", 3, `unknown problem ""; valid names: sphere, ellipsoid, rotellipsoid, cigar, discus, twoaxes, diffpowers, rosenbrock, rastrigin, quadratic, bbob/f1 … bbob/f24`},
		{"spehre", 3, `unknown problem "spehre"; valid names: sphere,`},
		{"Sphere", 3, `unknown problem "Sphere"`},
		{"sphere:cond=10", 3, `sphere: unknown parameter "cond"; it takes noise, sigma`},
		{"ellipsoid:seed=1", 3, `ellipsoid: unknown parameter "seed"; it takes cond, noise, sigma`},
		{"ellipsoid:cnd=1", 3, `unknown parameter "cnd"`},
		{"ellipsoid:cond", 3, `parameter "cond" is not key=value`},
		{"ellipsoid:cond=", 3, `parameter "cond=" is not key=value`},
		{"ellipsoid:", 3, `parameter "" is not key=value`},
		{"ellipsoid:cond=1e4,", 3, `parameter "" is not key=value`},
		{"ellipsoid:cond=abc", 3, `ellipsoid: cond="abc" is not a valid number`},
		{"ellipsoid:cond=0.5", 3, `cond must be a finite number >= 1, got 0.5`},
		{"ellipsoid:cond=inf", 3, `got +Inf`},
		{"ellipsoid:cond=1e4,cond=1e5", 3, `parameter "cond" given twice`},
		{"rotellipsoid:seed=-1", 3, `seed="-1" is not a valid unsigned integer`},
		{"rotellipsoid:seed=1.5", 3, `seed="1.5" is not a valid unsigned integer`},
		{"rosenbrock", 1, `rosenbrock needs dimension >= 2, got 1`},
		{"sphere", 0, `sphere needs dimension >= 1, got 0`},
		{"sphere", -4, `got -4`},
		{"bbob", 3, `"bbob" is not of the form bbob/fN or bbob/fN/iI`},
		{"bbob/", 3, `function "" is not f followed by digits`},
		{"bbob/f", 3, `function "f" is not f followed by digits`},
		{"bbob/x3", 3, `function "x3" is not f followed by digits`},
		{"bbob/f+3", 3, `function "f+3" is not f followed by digits`},
		{"bbob/f3/3", 3, `instance "3" is not i followed by digits`},
		{"bbob/f3/i", 3, `instance "i" is not i followed by digits`},
		{"bbob/f3/i1/d2", 3, `is not of the form`},
		{"bbob/f3/i99999999999999999999", 3, `instance "i99999999999999999999" is out of range`},
		{"bbob/f25", 3, `BBOB function must be 1 … 24, got 25`},
		{"bbob/f0/i1", 3, `got 0`},
		{"bbob/f3/i0", 3, `BBOB instance must be 1 … 214648, got 0`},
		{"bbob/f3/i214649", 3, `got 214649`},
		{"bbob/f3/i1:cond=2", 3, `BBOB problems take no parameters`},
		{"bbob/f3", 1, `bbob/f3/i1 needs dimension >= 2, got 1`},
		{"quadratic(given H)", 3, `unknown problem "quadratic(given H)"`},
	}
	for _, tc := range tests {
		p, err := Parse(tc.spec, tc.dim)
		if err == nil {
			t.Errorf("Parse(%q, %d) = %s, want an error", tc.spec, tc.dim, p.Name())
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "objectives: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("Parse(%q, %d): error %q\nwant it to contain %q", tc.spec, tc.dim, msg, tc.want)
		}
	}
}

// TestNames checks that every name Names lists parses, in a dimension it
// supports, and that its canonical name starts with it.
func TestNames(t *testing.T) {
	names := Names()
	if len(names) != len(classicFunctions)+3*BBOBFunctions+BBOBNoisyLast-BBOBNoisyFirst+1 {
		t.Fatalf("Names() has %d names", len(names))
	}
	for _, name := range names {
		dim := 2
		if strings.HasPrefix(name, "bbob-mixint/") {
			dim = 5
		}
		p, err := Parse(name, dim)
		if err != nil {
			t.Errorf("Parse(%q, %d): %v", name, dim, err)
			continue
		}
		if !strings.HasPrefix(p.Name(), name) {
			t.Errorf("Parse(%q).Name() = %q", name, p.Name())
		}
	}
	for _, want := range []string{"rotellipsoid", "bbob/f24", "bbob-largescale/f1", "bbob-mixint/f24", "bbob-noisy/f101"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, without %q", names, want)
		}
	}
	if names[len(names)-1] != "bbob-noisy/f130" {
		t.Errorf("Names() = %v", names)
	}
}

// TestFormatNumber checks the canonical number format.
func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		1e6: "1e6", 1e4: "10000", 2.5: "2.5", 1e-7: "1e-7", 1.25e21: "1.25e21", 1: "1", 123456: "123456",
	} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// FuzzParse checks that Parse never panics, that every error is an
// objectives: error, and that a problem it builds is rebuilt from its
// canonical name with identical values.
func FuzzParse(f *testing.F) {
	for _, spec := range []string{
		"sphere", "ellipsoid:cond=1e4", "rotellipsoid:seed=3,cond=10", "quadratic:seed=3,cond=1e4",
		"cigar:cond=1e300", "twoaxes", "bbob/f10/i3", "bbob/f21", "bbob/f7/i214648", "bbob/f20/i01",
		"ellipsoid:cond=1e4,cond=2", "bbob/f3/i1:x=1", ":", "bbob//", "rosenbrock:,",
		"bbob-noisy/f101/i3", "bbob-noisy/f0130", "bbob-noisy/f100", "bbob-noisy//i1",
		"bbob-largescale/f10/i3", "bbob-largescale/f21/i100000", "bbob-mixint/f1", "bbob-mixint/f24/i57",
		"bbob-mixint/f3/i1:x=1", "bbob-largescale//",
	} {
		f.Add(spec, uint8(3))
	}
	f.Fuzz(func(t *testing.T, spec string, dimByte uint8) {
		dim := int(dimByte%40) - 1 // -1 … 38, the small and bad dimensions
		p, err := Parse(spec, dim)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "objectives: ") {
				t.Fatalf("Parse(%q, %d): error without prefix: %v", spec, dim, err)
			}
			return
		}
		if p.Dim() != dim {
			t.Fatalf("Parse(%q, %d).Dim() = %d", spec, dim, p.Dim())
		}
		q, err := Parse(p.Name(), dim)
		if err != nil {
			t.Fatalf("Parse(%q, %d) is %q, which does not parse: %v", spec, dim, p.Name(), err)
		}
		if q.Name() != p.Name() {
			t.Fatalf("%q → %q → %q", spec, p.Name(), q.Name())
		}
		lo, hi := p.Bounds()
		for _, c := range []float64{0, lo, hi, 0.37 * hi} {
			x := make([]float64, dim)
			for i := range x {
				x[i] = c
			}
			a, b := p.Eval(x), q.Eval(x)
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("%q and %q differ at %v: %v, %v", spec, p.Name(), c, a, b)
			}
		}
	})
}
