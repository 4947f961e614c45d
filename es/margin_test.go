package es

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// mgConfig is a mixed box of d = 5: a binary, an integer in [-3, 4] with
// step 1, a grid of step 0.25 in [0, 2], and two continuous coordinates.
func mgConfig(seed uint64) Config {
	return Config{
		Dim:    5,
		Seed:   seed,
		Bounds: &Bounds{Lower: []float64{0, -3, 0, -5, -5}, Upper: []float64{1, 4, 2, 5, 5}},
		Steps:  []float64{1, 1, 0.25, 0, 0},
	}
}

// mgObjective is a sphere whose minimum (1, -1, 0.75, 0.3, -0.2) lies on
// the grid; it also checks that every discrete coordinate it is given is
// one of the coordinate's values.
func mgObjective(t testing.TB) func(x []float64) float64 {
	return func(x []float64) float64 {
		for i, s := range []float64{1, 1, 0.25} {
			if k := x[i] / s; k != math.Trunc(k) {
				t.Fatalf("coordinate %d = %v is not a value of its grid", i, x[i])
			}
		}
		c := []float64{1, -1, 0.75, 0.3, -0.2}
		var f float64
		for i, v := range x {
			f += (v - c[i]) * (v - c[i])
		}
		return f
	}
}

// TestDiscreteMinimize runs hees2 and cmaes, plain and with IPOP, on the
// mixed sphere: every point handed out has its discrete coordinates on the
// grid and in the box, and the run reaches the minimum.
func TestDiscreteMinimize(t *testing.T) {
	for _, name := range []string{HEES2, CMAES} {
		for _, restarts := range []Restarts{RestartsNone, RestartsIPOP} {
			cfg := mgConfig(3)
			s, err := NewRestarting(name, restarts, cfg, 0)
			if err != nil {
				t.Fatal(err)
			}
			target := 1e-10
			f := mgObjective(t)
			res, err := Minimize(t.Context(), Func(func(x []float64) float64 {
				if !cfg.Bounds.Contains(x) {
					t.Fatalf("%v outside the box", x)
				}
				return f(x)
			}), s, Options{MaxEvals: 20000, Target: &target})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != ReasonTarget {
				t.Errorf("%s: %s after %d evaluations, best %v at %v", s.Name(), res.Reason, res.Evals, res.F, res.X)
			}
			f(res.X) // on the grid
			f(s.Mean(nil))
		}
	}
}

// TestDiscreteResume saves and restores hees2 and cmaes with discrete
// coordinates (and IPOP around them) every few generations: the run is
// bit-identical to the uninterrupted one, and the state is in version 4.
func TestDiscreteResume(t *testing.T) {
	const gens = 80
	f := func(x []float64) float64 {
		c := []float64{1, -1, 0.75, 0.3, -0.2}
		var s float64
		for i, v := range x {
			s += float64(i+1) * (v - c[i]) * (v - c[i])
		}
		return s
	}
	for _, name := range []string{HEES2, CMAES} {
		for _, ipop := range []bool{false, true} {
			mk := func() Strategy {
				cfg := mgConfig(7)
				cfg.TolFun = -1
				if ipop {
					s, err := NewIPOP(name, cfg, IPOPConfig{})
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				return stNew(t, name, cfg)
			}
			want := stTrajectory(t, mk(), f, gens, -1, false, nil)
			for _, pending := range []bool{false, true} {
				got := stTrajectory(t, mk(), f, gens, 23, pending, func(data []byte) Strategy {
					if !strings.Contains(string(data[:30]), "/v4\n") {
						t.Fatalf("state header %q, want version 4", data[:20])
					}
					s, err := Load(data)
					if err != nil {
						t.Fatal(err)
					}
					return s
				})
				if !slices.Equal(want, got) {
					t.Errorf("%s ipop %v pending %v: the resumed run differs", name, ipop, pending)
				}
			}
		}
	}
}

// TestDiscreteZeroSteps: Steps of zeros only are nil, bit for bit, and
// the state stays in the version of a run without them.
func TestDiscreteZeroSteps(t *testing.T) {
	f := stEllipsoid(4, 1e3)
	b := &Bounds{Lower: []float64{-5, -5, -5, -5}, Upper: []float64{5, 5, 5, 5}}
	for _, name := range []string{HEES2, CMAES} {
		plain := stTrajectory(t, stNew(t, name, Config{Dim: 4, Seed: 2, Bounds: b}), f, 40, -1, false, nil)
		zeros := stTrajectory(t, stNew(t, name, Config{Dim: 4, Seed: 2, Bounds: b, Steps: make([]float64, 4)}), f, 40, -1, false, nil)
		if !slices.Equal(plain, zeros) {
			t.Errorf("%s: Steps of zeros change the run", name)
		}
		if bb, steps := Box(stNew(t, name, Config{Dim: 4, Bounds: b, Steps: make([]float64, 4)})); steps != nil || !slices.Equal(bb.Upper, b.Upper) {
			t.Errorf("%s: Box gives %v, %v", name, bb, steps)
		}
	}
}

func TestDiscreteConfigErrors(t *testing.T) {
	box := &Bounds{Lower: []float64{0, 0}, Upper: []float64{3, 1}}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{HEES2, Config{Dim: 2, Steps: []float64{1}, Bounds: box}, "Steps has length 1"},
		{HEES2, Config{Dim: 2, Steps: []float64{-1, 0}, Bounds: box}, "Steps[0] = -1"},
		{HEES2, Config{Dim: 2, Steps: []float64{math.NaN(), 0}, Bounds: box}, "Steps[0] = NaN"},
		{HEES2, Config{Dim: 2, Steps: []float64{math.Inf(1), 0}, Bounds: box}, "Steps[0] = +Inf"},
		{HEES2, Config{Dim: 2, Steps: []float64{1, 0}}, "needs a lower and an upper bound"},
		{HEES2, Config{Dim: 2, Steps: []float64{1, 0}, Bounds: &Bounds{Lower: []float64{0, 0}}}, "needs a lower and an upper bound"},
		{HEES2, Config{Dim: 2, Steps: []float64{0.7, 0}, Bounds: box}, "not a whole number of steps"},
		{HEES2, Config{Dim: 2, Steps: []float64{0, 2}, Bounds: box}, "not a whole number of steps"},
		{HEES2, Config{Dim: 2, Steps: []float64{0, 1}, Bounds: &Bounds{Lower: []float64{0, 0}, Upper: []float64{3, 1e-12}}}, "hold one value"},
		{HEES2, Config{Dim: 2, Steps: []float64{1, 0}, Bounds: box, Margin: math.NaN()}, "Margin is NaN"},
		{HEES2, Config{Dim: 2, Steps: []float64{1, 0}, Bounds: box, Margin: 0.5}, "must be below 1/2"},
		{HEES2, Config{Dim: 2, Margin: 0.1}, "without discrete coordinates"},
		{HEES, Config{Dim: 2, Steps: []float64{1, 0}, Bounds: box}, "hees has no discrete coordinates (only hees2 and cmaes)"},
		{ES11, Config{Dim: 2, Steps: []float64{1, 0}, Bounds: box}, "only hees2 and cmaes"},
	} {
		_, err := New(c.name, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", c.name, c.cfg, err, c.want)
		}
	}
	// A step that divides the width only up to rounding is a step.
	if _, err := New(HEES2, Config{Dim: 2, Steps: []float64{0.1, 0}, Bounds: &Bounds{Lower: []float64{0, 0}, Upper: []float64{0.3, 1}}}); err != nil {
		t.Error(err)
	}
	for _, info := range Strategies() {
		if info.Margin != (rowOf(info.Name).margin != nil) {
			t.Errorf("%s: Info.Margin %v disagrees with its row", info.Name, info.Margin)
		}
	}
}

// TestDiscreteGrid checks the values and the cells of a grid whose step
// divides its width only up to rounding.
func TestDiscreteGrid(t *testing.T) {
	cfg := Config{Dim: 2, Bounds: &Bounds{Lower: []float64{0, -1}, Upper: []float64{0.3, 1}}, Steps: []float64{0.1, 0}}
	rc, err := resolve(HEES2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := newDiscrete(rc)
	if g.last[0] != 3 || g.value(0, 3) != 0.3 || g.value(0, 1) != 0.1 {
		t.Fatalf("last %v, values %v %v", g.last[0], g.value(0, 1), g.value(0, 3))
	}
	for _, c := range []struct{ x, want float64 }{
		{-1, 0}, {0.05, 0}, {0.0500001, 0.1}, {0.25, 0.2}, {0.2500001, 0.3}, {7, 0.3}, {math.Inf(1), 0.3}, {math.Inf(-1), 0},
	} {
		if got := g.snap(0, c.x); got != c.want {
			t.Errorf("snap(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(g.snap(0, math.NaN())) {
		t.Error("snap(NaN) is not NaN")
	}
	if !g.onGrid(0, 0.2) || g.onGrid(0, 0.21) {
		t.Error("onGrid")
	}
}

// TestMarginCorrect checks the margin on a mean deep inside a cell with a
// tiny standard deviation: afterwards the candidates leave the cell on
// each side with probability alpha/2, the mean stays in its cell, and a
// margin that holds already changes nothing.
func TestMarginCorrect(t *testing.T) {
	for _, sc := range []float64{1, 2.5} {
		cfg := Config{Dim: 2, Bounds: &Bounds{Lower: []float64{0, -1}, Upper: []float64{7, 1}}, Steps: []float64{1, 0}, Margin: 0.02,
			Stds: []float64{sc, 1}}
		rc, err := resolve(CMAES, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, mean := range []float64{3.2, 0.1, -0.3, 6.9, 7.3} {
			g := newDiscrete(rc)
			m := []float64{mean / sc, 0} // the search point of the scaled mean
			g.sd[0] = 1e-3
			g.correct(m)
			mu := m[0] * sc
			tl, tu := g.around(0, mu)
			sd := g.sd[0] * sc * g.a[0]
			pLow, pUp := normCDF((tl-mu)/sd), normCDF((mu-tu)/sd)
			if math.Abs(pLow-0.01) > 1e-9 || math.Abs(pUp-0.01) > 1e-9 {
				t.Errorf("stds %v, mean %v: p_low %v, p_up %v, want 0.01 each (A = %v)", sc, mean, pLow, pUp, g.a[0])
			}
			if got, want := g.snap(0, g.box[0].apply(mu)), g.snap(0, g.box[0].apply(mean)); got != want {
				t.Errorf("stds %v, mean %v moved to the value %v from %v", sc, mean, got, want)
			}
			a, m0 := g.a[0], m[0]
			g.correct(m)
			if math.Abs(g.a[0]/a-1) > 1e-12 || math.Abs(m[0]-m0) > 1e-12 {
				t.Errorf("stds %v, mean %v: a second correction changes A %v -> %v, m %v -> %v", sc, mean, a, g.a[0], m0, m[0])
			}
		}
	}
}

// TestMarginCorrectEnds: a mean beyond the preimage is folded back to the
// same value, and the margin then holds there.
func TestMarginCorrectEnds(t *testing.T) {
	cfg := Config{Dim: 2, Bounds: &Bounds{Lower: []float64{0, -1}, Upper: []float64{7, 1}}, Steps: []float64{1, 0}, Stds: []float64{1, 1}}
	rc, err := resolve(HEES2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, mean := range []float64{-0.2, -3, 7.4, 20} {
		g := newDiscrete(rc)
		m := []float64{mean, 0}
		g.sd[0] = 1e-4
		g.correct(m)
		if c := g.box[0]; m[0] < c.lo || m[0] > c.hi {
			t.Errorf("mean %v stays outside the preimage [%v, %v] at %v", mean, c.lo, c.hi, m[0])
		}
		if got, want := g.snap(0, g.box[0].apply(m[0])), g.snap(0, g.box[0].apply(mean)); got != want {
			t.Errorf("mean %v moved to the value %v from %v", mean, got, want)
		}
	}
}

// TestDiscreteInject: a known point must have its discrete coordinates on
// the grid.
func TestDiscreteInject(t *testing.T) {
	s := stNew(t, HEES2, mgConfig(1))
	run, err := NewRun(s, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Inject([][]float64{{1, 2, 0.5, 0.1, 0.2}}); err != nil {
		t.Error(err)
	}
	if err := run.Inject([][]float64{{1, 2, 0.6, 0.1, 0.2}}); err == nil || !strings.Contains(err.Error(), "x[2] = 0.6 is not one of the values") {
		t.Errorf("off the grid: %v", err)
	}
	var pop linalg.Dense
	run2, _ := NewRun(stNew(t, HEES2, mgConfig(1)), Limits{})
	run2.Inject([][]float64{{1, 2, 0.5, 0.1, 0.2}})
	if err := askTell(run2, &pop, func(x []float64) float64 { return -1 }); err != nil {
		t.Fatal(err)
	}
	if x, f := run2.Strategy().Best(); f != -1 || !slices.Equal(x, []float64{1, 2, 0.5, 0.1, 0.2}) {
		t.Errorf("best %v %v, want the known point", x, f)
	}
}

// askTell asks one batch of run and tells the values of f.
func askTell(run *Run, pop *linalg.Dense, f func([]float64) float64) error {
	p, err := run.Ask()
	if err != nil {
		return err
	}
	r, _ := p.Dims()
	v := make([]float64, r)
	for i := range v {
		v[i] = f(p.RawRow(i))
	}
	return run.Tell(v)
}

// TestDiscreteStateErrors: a state whose margin factors are corrupt is an
// error, and states of other lengths of the factors too.
func TestDiscreteStateErrors(t *testing.T) {
	for _, name := range []string{HEES2, CMAES} {
		s := stNew(t, name, mgConfig(4))
		var pop linalg.Dense
		for range 5 {
			askTellGeneration(t, s, mgObjective(t), &pop)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// The factors are the last 3 floats before the checksum: set the
		// first to -1 and to NaN, with a valid checksum.
		for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
			c := slices.Clone(data[:len(data)-4])
			off := len(c) - 3*8
			w := &stateWriter{b: c[:off]}
			w.float(bad)
			w.b = append(w.b, c[off+8:]...)
			w.name, w.version = name, stateVersionSteps
			if _, err := Load(w.finish()); err == nil || !strings.Contains(err.Error(), "margin factor") {
				t.Errorf("%s with the factor %v: %v", name, bad, err)
			}
		}
	}
}

// TestDiscreteAllocs: a generation with discrete coordinates allocates
// nothing.
func TestDiscreteAllocs(t *testing.T) {
	for _, name := range []string{HEES2, CMAES} {
		cfg := mgConfig(1)
		cfg.TolFun = -1
		s := stNew(t, name, cfg)
		var pop linalg.Dense
		vals := make([]float64, s.PopulationSize())
		gen := func() {
			s.Ask(&pop)
			r, _ := pop.Dims()
			for i := range r {
				vals[i] = stSphere(pop.RawRow(i))
			}
			s.Tell(vals[:r])
		}
		for range 20 {
			gen()
		}
		if a := testing.AllocsPerRun(100, gen); a != 0 {
			t.Errorf("%s: %v allocations per generation", name, a)
		}
	}
}

// ExampleConfig_steps runs hees2 on a function of an integer, a choice
// among three values (by its index) and a real.
func ExampleConfig_steps() {
	cfg := Config{
		Dim:    3,
		Seed:   1,
		Bounds: &Bounds{Lower: []float64{1, 0, -5}, Upper: []float64{64, 2, 5}},
		Steps:  []float64{1, 1, 0}, // an integer in 1 … 64, an index 0 … 2, a real
	}
	s, err := New(HEES2, cfg)
	if err != nil {
		panic(err)
	}
	target := 1e-9
	res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
		return (x[0]-24)*(x[0]-24) + (x[1]-2)*(x[1]-2) + x[2]*x[2]
	}), s, Options{Target: &target, MaxEvals: 10000})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Reason, res.X[0], res.X[1])
	// Output: target reached 24 2
}

// TestGoldenMargin compares 100 generations of hees2 and cmaes with
// discrete coordinates (bbob-mixint f10, instance 1, d = 5, with the
// problem's domains as the box and step 1 on its integer coordinates) with
// testdata/<name>-margin.golden: the margin's normal distribution function
// and quantile, its factors and the rounded candidates, bit for bit on
// every platform.
func TestGoldenMargin(t *testing.T) {
	p, err := objectives.NewBBOBMixint(10, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	b := &Bounds{}
	var steps []float64
	for _, d := range objectives.DomainsOf(p) {
		b.Lower, b.Upper = append(b.Lower, d.Lo), append(b.Upper, d.Hi)
		steps = append(steps, boolFloat(d.Integer))
	}
	for _, name := range []string{HEES2, CMAES} {
		t.Run(name, func(t *testing.T) {
			s, err := New(name, Config{Dim: 5, Seed: 1, Bounds: b, Steps: steps})
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			fmt.Fprintf(&out, "# %s, seed 1, %s in d = 5 with steps %v: generation evals sigma best f(rows) mean, margin factors, best point; floats in hex\n",
				name, p.Name(), steps)
			var pop linalg.Dense
			for range goldenGenerations {
				if reason := s.Stop(); reason != "" {
					fmt.Fprintf(&out, "stop %q\n", reason)
					break
				}
				values := askTellGeneration(t, s, p.Eval, &pop)
				x, _ := s.Best()
				var a []float64
				switch v := s.(type) {
				case *hees2:
					a = v.disc.a
				case *cmaes:
					a = v.disc.a
				}
				fmt.Fprintf(&out, "%s a=%s x=%s\n", stateLine(s, values), hexFloats(a), hexFloats(x))
			}
			golden.Check(t, filepath.Join("testdata", name+"-margin.golden"), []byte(out.String()), *update)
		})
	}
}

// TestDiscreteConfigCopied: New, NewIPOP and NewBIPOP keep copies of Steps,
// and es.Box reports them through the wrappers.
func TestDiscreteConfigCopied(t *testing.T) {
	for _, r := range RestartSchemes() {
		cfg := mgConfig(2)
		s, err := NewRestarting(HEES2, r, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Steps[0], cfg.Bounds.Upper[1] = 7, 99
		b, steps := Box(s)
		if !slices.Equal(steps, []float64{1, 1, 0.25, 0, 0}) || b.Upper[1] != 4 {
			t.Errorf("%s: Box %v %v after the caller changed its Config", s.Name(), b, steps)
		}
	}
	if b, steps := Box(new(IPOP)); b != nil || steps != nil {
		t.Error("Box of a zero IPOP")
	}
}
