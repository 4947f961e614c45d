package es

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestBoundsPenalizedValues checks the ranking penalty of a bounded run
// (docs/ALGORITHMS.md Section 14.5) on five search points worked out by
// hand. The box [-5, 5]^2 has margins 0.25 and the preimage
// [-5.25, 5.25]^2; sigma = 0.5 and A = diag(1, 2) give sigma_1 = 0.5,
// sigma_2 = 1. The points (0, 0), (6.25, 0), (0, -7.25), (5.25, 5.25) and
// (0.5, -0.5) lie (0, 0), (1, 0), (0, 2), (0, 0) and (0, 0) outside it, so
// p = (0, 2, 2, 0, 0): (1/0.5)^2/2 and (2/1)^2/2. The values 5, 1, 4, 2,
// 3 have the quartiles 2 and 5 (ranks 1 and 4 of 0-4), gamma = 3·3 = 9,
// and the penalized values are 5, 19, 22, 2, 3.
func TestBoundsPenalizedValues(t *testing.T) {
	points := [][]float64{{0, 0}, {6.25, 0}, {0, -7.25}, {5.25, 5.25}, {0.5, -0.5}}
	point := func(dst []float64, k int) { copy(dst, points[k]) }
	newCore := func(b *Bounds, stds []float64) *core {
		return &core{cfg: Config{Dim: 2, Bounds: b, Stds: stds}, out: newSearchMap(2, b, stds, nil), sigma: 0.5}
	}
	// sigma_i = sigma sqrt((A A^T)_ii) for A = diag(1, 2).
	var a dense
	a.setupDense(2, linalg.NewDense(2, 2, []float64{1, 0, 0, 2}), false)
	scales := func(dst []float64) { a.coordStds(dst, 0.5) }
	box := &Bounds{Lower: []float64{-5, -5}, Upper: []float64{5, 5}}
	c := newCore(box, nil)
	f := []float64{5, 1, 4, 2, 3}
	if got, want := c.penalized(f, point, scales), []float64{5, 19, 22, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("penalized values %v, want %v", got, want)
	}
	if f[1] != 1 {
		t.Errorf("penalized changed f: %v", f)
	}
	// Scales of 2 on coordinate 0 halve its distances in search units:
	// point 1, now (3.125, 0), is (1, 0) outside in the box's units, 0.5 in
	// search units, p = (0.5/0.5)^2/2 = 0.5; point 3, now (2.625, 5.25), is
	// on the preimage's corner.
	points[1], points[3] = []float64{3.125, 0}, []float64{2.625, 5.25}
	if got, want := newCore(box, []float64{2, 1}).penalized(f, point, scales), []float64{5, 5.5, 22, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("penalized values with Stds %v, want %v", got, want)
	}
	// f itself (the same slice): without bounds; with every point in the
	// preimage; with fewer than two finite values; with equal values (no
	// spread to scale the penalty by).
	points[1], points[2] = []float64{5.2, 0}, []float64{0, -5.25}
	same := func(what string, c *core, f []float64) {
		t.Helper()
		if got := c.penalized(f, point, scales); &got[0] != &f[0] {
			t.Errorf("%s: penalized values %v, want f itself", what, got)
		}
	}
	same("no bounds", newCore(nil, nil), f)
	same("in the preimage", c, f)
	points[1] = []float64{9, 0}
	nan := math.NaN()
	same("one finite value", c, []float64{nan, 1, nan, math.Inf(1), nan})
	same("equal values", c, []float64{2, 2, 2, 2, 2})
	if got := c.penalized([]float64{nan, 1, nan, 3, nan}, point, scales); !math.IsNaN(got[0]) || got[1] <= 1 || got[3] != 3 {
		t.Errorf("penalized values %v: want NaN kept, the outside point penalized, the others as they are", got)
	}
}

// penaltyCore returns the core of a population strategy with the ranking
// penalty (hees, hees2, cmaes), nil for another.
func penaltyCore(s Strategy) *core {
	switch s := s.(type) {
	case *hees:
		return &s.core
	case *hees2:
		return &s.core
	case *cmaes:
		return &s.core
	}
	return nil
}

// TestBoundsPenaltyKeepsMean runs the population strategies on 3-D
// Rastrigin in a box whose map folds the landscape (the box is narrower
// than sigma0's spread on two coordinates): with the ranking penalty every
// run stops by its own criterion within 6000 evaluations, with its mean in
// the preimage of the box, where the map is one-to-one. Without it most
// runs end with the mean on a mirrored copy outside it, and some do not
// stop (docs/ALGORITHMS.md Section 14.5).
func TestBoundsPenaltyKeepsMean(t *testing.T) {
	b := &Bounds{Lower: []float64{0.5, -3, -3}, Upper: []float64{3, 3, 0.25}}
	rastrigin := func(x []float64) float64 {
		s := 10 * float64(len(x))
		for _, v := range x {
			s += v*v - 10*math.Cos(2*math.Pi*v)
		}
		return s
	}
	for _, name := range []string{HEES, HEES2, CMAES} {
		for seed := uint64(1); seed <= 30; seed++ {
			s := stNew(t, name, Config{Dim: 3, Seed: seed, Bounds: b})
			p := &bdProblem{b: b, f: rastrigin}
			res, err := Minimize(context.Background(), p, s, Options{MaxEvals: 6000})
			if err != nil {
				t.Fatal(err)
			}
			c := penaltyCore(s)
			switch {
			case p.outside != 0:
				t.Errorf("%s seed %d: %d points outside the box", name, seed, p.outside)
			case res.Reason == ReasonMaxEvals:
				t.Errorf("%s seed %d: no stop of its own within %d evaluations", name, seed, res.Evals)
			case c.out.preimageOutside(c.mean):
				t.Errorf("%s seed %d: the mean %v lies outside the preimage of the box", name, seed, c.mean)
			}
		}
	}
}

// coordSum is the objective sum_i y_i of TestBoundsPenaltyZeroAllocs and
// BenchmarkBoundsPenalty.
func coordSum(y []float64) float64 {
	var s float64
	for _, v := range y {
		s += v
	}
	return s
}

// TestBoundsPenaltyZeroAllocs checks that a generation of hees, hees2 and
// cmaes in which the ranking penalty applies allocates nothing in steady
// state. The objective sum_i y_i of the box's points y is least on the
// box's lower side, where the search points converge to the edge of its
// preimage, so that some of every generation's points lie outside it: the
// test counts the generations in which the penalty applied by a sentinel
// in its scratch, and wants all of them.
func TestBoundsPenaltyZeroAllocs(t *testing.T) {
	const d = 10
	for _, name := range []string{HEES, HEES2, CMAES} {
		cfg := Config{Dim: d, Seed: 1, TolFun: -1, Bounds: &Bounds{Lower: make([]float64, d)}, X0: make([]float64, d)}
		s := stNew(t, name, cfg)
		c := penaltyCore(s)
		var pop linalg.Dense
		vals := make([]float64, s.PopulationSize())
		gens, penalized := 0, 0
		generation := func() {
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			r, _ := pop.Dims()
			for i := range r {
				vals[i] = coordSum(pop.RawRow(i))
			}
			if len(c.ranking.values) > 0 {
				c.ranking.values[0] = math.NaN() // f[0] is finite
			}
			if err := s.Tell(vals[:r]); err != nil {
				t.Fatal(err)
			}
			gens++
			if len(c.ranking.values) > 0 && !math.IsNaN(c.ranking.values[0]) {
				penalized++
			}
		}
		for range 20 {
			generation()
		}
		gens, penalized = 0, 0
		if allocs := testing.AllocsPerRun(200, generation); allocs != 0 {
			t.Errorf("%s: %v allocations per generation, want 0", name, allocs)
		}
		if penalized != gens || s.Stop() != "" {
			t.Errorf("%s: the penalty applied in %d of %d generations, stop %q: not every generation measured it", name, penalized, gens, s.Stop())
		}
	}
}

// BenchmarkBoundsPenalty measures the ranking penalty of one generation of
// hees and cmaes in 100 dimensions, on a generation of the setup of
// TestBoundsPenaltyZeroAllocs, in which some search points lie outside the
// preimage of the box.
func BenchmarkBoundsPenalty(b *testing.B) {
	const d = 100
	for _, name := range []string{HEES, CMAES} {
		b.Run(name, func(b *testing.B) {
			cfg := Config{Dim: d, Seed: 1, TolFun: -1, Bounds: &Bounds{Lower: make([]float64, d)}, X0: make([]float64, d)}
			s, err := New(name, cfg)
			if err != nil {
				b.Fatal(err)
			}
			var pop linalg.Dense
			vals := make([]float64, s.PopulationSize())
			ask := func() int {
				if err := s.Ask(&pop); err != nil {
					b.Fatal(err)
				}
				r, _ := pop.Dims()
				for i := range r {
					vals[i] = coordSum(pop.RawRow(i))
				}
				return r
			}
			for range 20 {
				r := ask()
				if err := s.Tell(vals[:r]); err != nil {
					b.Fatal(err)
				}
			}
			r := ask()
			c := penaltyCore(s)
			var point func([]float64, int)
			var stds func([]float64)
			switch s := s.(type) {
			case *hees:
				point, stds = s.searchPoint, s.stds
			case *cmaes:
				point, stds = s.candidate, s.stds
			}
			if v := c.penalized(vals[:r], point, stds); &v[0] == &vals[0] {
				b.Fatal("the penalty does not apply")
			}
			for b.Loop() {
				c.penalized(vals[:r], point, stds)
			}
		})
	}
}
