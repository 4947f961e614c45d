package objectives

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// closeTo reports whether got is within a few ulp of want. The coefficients
// go through a power function whose exponent (i−1)/(d−1) is not always a
// double: 1e6^(1/3) is 100·(1 − 2.6e-16) for the double nearest 1/3.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 2e-15*max(1, math.Abs(want))
}

// point is one hand-computed value of a classic function.
type point struct {
	x []float64
	f float64
}

// TestClassicValues checks every classic function at hand-computed points,
// its optimum, its box, and that the optimum's value is f*.
func TestClassicValues(t *testing.T) {
	must := func(p Problem, err error) Problem {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		p      Problem
		name   string
		xopt   []float64
		points []point
	}{
		{must(NewSphere(3)), "sphere", []float64{0, 0, 0}, []point{
			{[]float64{1, 2, 3}, 14}, {[]float64{-1, 0, 0.5}, 1.25},
		}},
		{must(NewSphere(1)), "sphere", []float64{0}, []point{{[]float64{-3}, 9}}},
		// Coefficients 100^(0, 1/2, 1) = 1, 10, 100.
		{must(NewEllipsoid(3, 100)), "ellipsoid:cond=100", []float64{0, 0, 0}, []point{
			{[]float64{1, 1, 1}, 111}, {[]float64{1, 2, 3}, 1 + 40 + 900}, {[]float64{0, 0, -0.5}, 25},
		}},
		// Default cond 1e6 in d = 4: 1e6^(0, 1/3, 2/3, 1) = 1, 100, 1e4, 1e6.
		{must(NewEllipsoid(4, DefaultCond)), "ellipsoid", []float64{0, 0, 0, 0}, []point{
			{[]float64{1, 1, 1, 1}, 1010101}, {[]float64{0, 2, 0, 0}, 400},
		}},
		{must(NewEllipsoid(1, 1e4)), "ellipsoid:cond=10000", []float64{0}, []point{{[]float64{2}, 4}}},
		{must(NewCigar(3, 1e6)), "cigar", []float64{0, 0, 0}, []point{
			{[]float64{1, 1, 1}, 2000001}, {[]float64{2, 0, 0}, 4}, {[]float64{0, 0, 0.1}, 1e6 * 0.1 * 0.1},
		}},
		{must(NewDiscus(3, 10)), "discus:cond=10", []float64{0, 0, 0}, []point{
			{[]float64{1, 1, 1}, 12}, {[]float64{0, 3, 0}, 9},
		}},
		// ⌊4/2⌋ = 2 and ⌊5/2⌋ = 2 steep coordinates.
		{must(NewTwoAxes(4, 100)), "twoaxes:cond=100", []float64{0, 0, 0, 0}, []point{
			{[]float64{1, 1, 1, 1}, 202}, {[]float64{0, 0, 1, 2}, 5},
		}},
		{must(NewTwoAxes(5, 100)), "twoaxes:cond=100", []float64{0, 0, 0, 0, 0}, []point{
			{[]float64{1, 1, 1, 1, 1}, 203}, {[]float64{0, 1, 1, 0, 0}, 101},
		}},
		// Exponents 2, 7, 12.
		{must(NewDiffPowers(3)), "diffpowers", []float64{0, 0, 0}, []point{
			{[]float64{2, 2, 2}, 4 + 128 + 4096}, {[]float64{-1, 0.5, -1}, 2.0078125},
		}},
		{must(NewDiffPowers(1)), "diffpowers", []float64{0}, []point{{[]float64{-3}, 9}}},
		{must(NewRosenbrock(2)), "rosenbrock", []float64{1, 1}, []point{
			{[]float64{0, 0}, 1}, {[]float64{-1, 1}, 4}, {[]float64{2, 1}, 100*9 + 1},
		}},
		{must(NewRosenbrock(3)), "rosenbrock", []float64{1, 1, 1}, []point{
			{[]float64{0, 0, 0}, 2}, {[]float64{1, 2, 3}, 100 + 100 + 1},
		}},
		{must(NewRastrigin(2)), "rastrigin", []float64{0, 0}, []point{
			{[]float64{1, 1}, 2}, {[]float64{0.5, 0}, 20.25}, {[]float64{-2, 0.5}, 24.25},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			if p.Name() != tc.name {
				t.Errorf("Name() = %q, want %q", p.Name(), tc.name)
			}
			if p.Dim() != len(tc.xopt) {
				t.Errorf("Dim() = %d, want %d", p.Dim(), len(tc.xopt))
			}
			if lo, hi := p.Bounds(); lo != -3 || hi != 3 {
				t.Errorf("Bounds() = %v, %v, want -3, 3", lo, hi)
			}
			xopt, fopt, ok := p.Optimum()
			if !ok || !slices.Equal(xopt, tc.xopt) || fopt != 0 {
				t.Errorf("Optimum() = %v, %v, %v, want %v, 0, true", xopt, fopt, ok, tc.xopt)
			}
			if f := p.Eval(tc.xopt); f != 0 {
				t.Errorf("f(x*) = %v, want 0", f)
			}
			for _, pt := range tc.points {
				if f := p.Eval(pt.x); !closeTo(f, pt.f) {
					t.Errorf("f(%v) = %.17g, want %.17g", pt.x, f, pt.f)
				}
			}
		})
	}
}

// quadraticForm returns 1/2 (x−x*)ᵀ H (x−x*) + f*, the definition of a
// quadratic's Hessian, computed independently of the problem.
func quadraticForm(h *linalg.Dense, x, xopt []float64, fopt float64) float64 {
	n := len(x)
	s := 0.0
	for i := range n {
		for j := range n {
			s += float64(float64((x[i]-xopt[i])*h.At(i, j)) * (x[j] - xopt[j]))
		}
	}
	return float64(0.5*s) + fopt
}

// TestQuadraticHessians checks, for every quadratic, that f agrees with
// 1/2 (x−x*)ᵀ H (x−x*) + f* built from Hessian() at sample points, and that
// the non-quadratics report none.
func TestQuadraticHessians(t *testing.T) {
	for _, spec := range []string{
		"sphere", "ellipsoid", "ellipsoid:cond=1e3", "cigar", "discus", "twoaxes",
		"rotellipsoid", "rotellipsoid:cond=1e4,seed=7", "quadratic", "quadratic:cond=100,seed=3", "bbob/f1/i2",
	} {
		for _, dim := range []int{2, 5, 12} {
			p, err := Parse(spec, dim)
			if err != nil {
				t.Fatal(err)
			}
			h, ok := p.Hessian()
			if !ok {
				t.Fatalf("%s d=%d: no Hessian", spec, dim)
			}
			for i := range dim {
				for j := range dim {
					if h.At(i, j) != h.At(j, i) {
						t.Fatalf("%s d=%d: H not symmetric at (%d, %d)", spec, dim, i, j)
					}
				}
			}
			xopt, fopt, _ := p.Optimum()
			for k := 1; k <= 10; k++ {
				x := referencePoint(1, 1, dim, k)
				want := quadraticForm(h, x, xopt, fopt)
				if got := p.Eval(x); math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
					t.Errorf("%s d=%d: f = %.17g, 1/2 yᵀHy + f* = %.17g", spec, dim, got, want)
				}
			}
			// Hessian returns a copy.
			h.Set(0, 0, -1)
			if h2, _ := p.Hessian(); h2.At(0, 0) == -1 {
				t.Errorf("%s: Hessian shares storage with the problem", spec)
			}
		}
	}
	for _, spec := range []string{"diffpowers", "rosenbrock", "rastrigin", "bbob/f2", "bbob/f10"} {
		p, err := Parse(spec, 3)
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := p.Hessian(); ok || h != nil {
			t.Errorf("%s: Hessian() = %v, %v, want nil, false", spec, h, ok)
		}
	}
}

// TestRotatedEllipsoid checks that the rotation is orthogonal and that the
// rows of R are the axes of the ellipsoid: f(R_k) = cond^((k−1)/(d−1)).
func TestRotatedEllipsoid(t *testing.T) {
	const dim, cond = 5, 1e4
	r, err := RandomRotation(dim, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range dim {
		for j := range dim {
			want := 0.0
			if i == j {
				want = 1
			}
			if got := linalg.Dot(r.RawRow(i), r.RawRow(j)); math.Abs(got-want) > 1e-15 {
				t.Errorf("row %d · row %d = %v, want %v", i, j, got, want)
			}
		}
	}
	p, err := NewRotatedEllipsoid(dim, cond, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "rotellipsoid:cond=10000,seed=3" {
		t.Errorf("Name() = %q", p.Name())
	}
	for k, want := range []float64{1, 10, 100, 1000, 10000} {
		if got := p.Eval(r.RawRow(k)); math.Abs(got-want) > 1e-12*want {
			t.Errorf("f(R_%d) = %.17g, want %v", k, got, want)
		}
	}
	// A different seed is a different rotation.
	q, _ := NewRotatedEllipsoid(dim, cond, 4)
	if x := r.RawRow(4); q.Eval(x) == p.Eval(x) {
		t.Errorf("seeds 3 and 4 give the same value %v", p.Eval(x))
	}
}

// TestQuadratic checks NewQuadratic on a hand-computed example and
// NewRandomQuadratic's spectrum.
func TestQuadratic(t *testing.T) {
	h := linalg.NewDense(2, 2, []float64{2, 1, 1, 2})
	p, err := NewQuadratic(h, []float64{1, -1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	h.Set(0, 0, 100) // the problem keeps its own copy
	for _, pt := range []point{
		{[]float64{1, -1}, 3},
		{[]float64{2, -1}, 4}, // 3 + 1/2·2
		{[]float64{1, 0}, 4},
		{[]float64{2, 0}, 6}, // 3 + 1/2·(1,1)H(1,1)ᵀ = 3 + 3
		{[]float64{0, 0}, 4}, // y = (−1, 1): 3 + 1/2·2
	} {
		if got := p.Eval(pt.x); !closeTo(got, pt.f) {
			t.Errorf("f(%v) = %.17g, want %v", pt.x, got, pt.f)
		}
	}
	if p.Name() != customQuadraticName {
		t.Errorf("Name() = %q", p.Name())
	}
	xopt, fopt, _ := p.Optimum()
	if !slices.Equal(xopt, []float64{1, -1}) || fopt != 3 {
		t.Errorf("Optimum() = %v, %v", xopt, fopt)
	}
	if got, _ := p.Hessian(); got.At(0, 0) != 2 || got.At(0, 1) != 1 {
		t.Errorf("Hessian() = %v", got)
	}
	// nil xopt is the origin.
	if p0, err := NewQuadratic(linalg.NewIdentity(3), nil, 0); err != nil || p0.Eval([]float64{1, 2, 2}) != 4.5 {
		t.Errorf("NewQuadratic(I, nil, 0): err %v", err)
	}

	for _, cond := range []float64{1, 100, 1e6} {
		q, err := NewRandomQuadratic(6, cond, 3)
		if err != nil {
			t.Fatal(err)
		}
		hq, _ := q.Hessian()
		got, err := linalg.CondSym(hq)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-cond) > 1e-9*cond {
			t.Errorf("quadratic cond=%v: cond(H) = %v", cond, got)
		}
	}
}

// TestConstructorErrors checks that bad dimensions and parameters are
// errors that name the problem.
func TestConstructorErrors(t *testing.T) {
	nonSymmetric := linalg.NewDense(2, 2, []float64{2, 1, 0, 2})
	indefinite := linalg.NewDense(2, 2, []float64{1, 2, 2, 1})
	withNaN := linalg.NewDense(2, 2, []float64{1, math.NaN(), math.NaN(), 1})
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"sphere d=0", second(NewSphere(0)), "sphere needs dimension >= 1, got 0"},
		{"cigar d=1", second(NewCigar(1, 10)), "cigar needs dimension >= 2, got 1"},
		{"discus d=1", second(NewDiscus(1, 10)), "discus needs dimension >= 2"},
		{"twoaxes d=1", second(NewTwoAxes(1, 10)), "twoaxes needs dimension >= 2"},
		{"rosenbrock d=1", second(NewRosenbrock(1)), "rosenbrock needs dimension >= 2"},
		{"ellipsoid cond<1", second(NewEllipsoid(3, 0.5)), "cond must be a finite number >= 1, got 0.5"},
		{"ellipsoid cond NaN", second(NewEllipsoid(3, math.NaN())), "got NaN"},
		{"cigar cond Inf", second(NewCigar(3, math.Inf(1))), "got +Inf"},
		{"rotellipsoid too big", second(NewRotatedEllipsoid(MaxMatrixDim+1, 10, 1)), "supports dimensions up to 2000"},
		{"sphere too big", second(NewSphere(MaxDim + 1)), "supports dimensions up to"},
		{"bbob d=1", second(NewBBOB(1, 1, 1)), "bbob/f1/i1 needs dimension >= 2"},
		{"bbob f=0", second(NewBBOB(0, 1, 2)), "BBOB function must be 1 … 24, got 0"},
		{"bbob f=25", second(NewBBOB(25, 1, 2)), "got 25"},
		{"bbob i=0", second(NewBBOB(3, 0, 2)), "BBOB instance must be 1 … 214648, got 0"},
		{"quadratic nil", second(NewQuadratic(nil, nil, 0)), "H is nil"},
		{"quadratic not square", second(NewQuadratic(linalg.NewDense(2, 3, nil), nil, 0)), "H is 2×3, not square"},
		{"quadratic xopt length", second(NewQuadratic(linalg.NewIdentity(2), []float64{1}, 0)), "xopt has length 1"},
		{"quadratic not symmetric", second(NewQuadratic(nonSymmetric, nil, 0)), "not symmetric"},
		{"quadratic indefinite", second(NewQuadratic(indefinite, nil, 0)), "positive definite"},
		{"quadratic NaN", second(NewQuadratic(withNaN, nil, 0)), "H[0][1] is NaN"},
		{"quadratic fopt", second(NewQuadratic(linalg.NewIdentity(2), nil, math.Inf(-1))), "fopt is -Inf"},
		{"quadratic xopt NaN", second(NewQuadratic(linalg.NewIdentity(2), []float64{0, math.NaN()}, 0)), "xopt[1] is NaN"},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if msg := tc.err.Error(); !strings.HasPrefix(msg, "objectives: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", tc.name, msg, tc.want)
		}
	}
}

// TestQuadraticNearOverflow: a positive definite H with entries near the
// float64 limit is taken (before: its symmetrisation (a + b)/2 overflowed
// and it was called "not positive definite, pivot 0 is +Inf").
func TestQuadraticNearOverflow(t *testing.T) {
	h := linalg.NewDense(2, 2, []float64{1e308, 0, 0, 1e308})
	p, err := NewQuadratic(h, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := p.Hessian(); !ok || got.At(0, 0) != 1e308 || got.At(1, 1) != 1e308 || got.At(0, 1) != 0 {
		t.Errorf("Hessian %v, %v", got, ok)
	}
}

// second returns the error of a constructor's results.
func second(_ Problem, err error) error { return err }

// TestEvalWrongLength checks the programmer-error panic of Eval.
func TestEvalWrongLength(t *testing.T) {
	for _, spec := range []string{"sphere", "rotellipsoid", "bbob/f21/i1"} {
		p, err := Parse(spec, 4)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "objectives: ") || !strings.Contains(msg, "length 3") || !strings.Contains(msg, "dimension 4") {
					t.Errorf("%s: panic %q, want an objectives: message naming 3 and 4", spec, msg)
				}
			}()
			p.Eval(make([]float64, 3))
		}()
	}
}

// TestDiagonalProblemsHoldNoMatrix: a diagonal problem of the largest
// dimension is built without its dim×dim Hessian (8 TiB at MaxDim), which
// Hessian alone builds.
func TestDiagonalProblemsHoldNoMatrix(t *testing.T) {
	for _, spec := range []string{"sphere", "ellipsoid"} {
		var mem runtime.MemStats
		runtime.ReadMemStats(&mem)
		before := mem.TotalAlloc
		p, err := Parse(spec, MaxDim)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&mem)
		if got := mem.TotalAlloc - before; got > 64*MaxDim {
			t.Errorf("%s in %d dimensions allocated %d bytes, want O(dim)", spec, MaxDim, got)
		}
		if p.Eval(make([]float64, MaxDim)) != 0 {
			t.Errorf("%s: f(0) != 0", spec)
		}
	}
	p, err := Parse("ellipsoid:cond=100", 3)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := p.Hessian()
	if !ok {
		t.Fatal("ellipsoid has no Hessian")
	}
	for i := range 3 {
		for j := range 3 {
			if v := h.At(i, j); (i == j) != (v != 0) {
				t.Errorf("H[%d][%d] = %v", i, j, v)
			}
		}
	}
	if h.At(0, 0) != 2 || h.At(2, 2) != 200 {
		t.Errorf("diagonal %v, %v, want 2 and 200", h.At(0, 0), h.At(2, 2))
	}
}
