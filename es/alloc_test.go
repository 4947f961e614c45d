package es

import (
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestZeroAllocsPerGeneration checks that a generation (Ask, Tell and the
// periodic covariance checks) allocates nothing in steady state when the
// caller reuses the population matrix and the value slice. The objective
// is a sum of squares that itself does not allocate.
func TestZeroAllocsPerGeneration(t *testing.T) {
	for _, c := range []struct {
		name     string
		cfg      Config
		strategy string
	}{
		{"hees/d=10", Config{Dim: 10, Seed: 1}, "hees"},
		{"hees/d=2 (two blocks)", Config{Dim: 2, Seed: 1}, "hees"},
		{"hees/d=3 pairs=8 (three blocks)", Config{Dim: 3, Pairs: 8, Seed: 1}, "hees"},
		{"hees2/d=10", Config{Dim: 10, Seed: 1}, "hees2"},
		{"hees2/d=2", Config{Dim: 2, Seed: 1}, "hees2"},
		{"hees2/d=3 pairs=8 (three blocks)", Config{Dim: 3, Pairs: 8, Seed: 1}, "hees2"},
		{"hees14/d=10", Config{Dim: 10, Seed: 1}, "hees14"},
		{"es11/d=10", Config{Dim: 10, Seed: 1}, "es11"},
		{"cma11/d=10", Config{Dim: 10, Seed: 1}, "cma11"},
		{"sepcma/d=10", Config{Dim: 10, Seed: 1}, "sepcma"},
		{"lmmaes/d=10", Config{Dim: 10, Seed: 1}, "lmmaes"},
		{"lmhees/d=10", Config{Dim: 10, Seed: 1}, "lmhees"},
		{"lqhees/d=10", Config{Dim: 10, Seed: 1}, "lqhees"},
		{"sepcma/d=10 bounds", Config{Dim: 10, Seed: 1, Bounds: &Bounds{Lower: make([]float64, 10)}}, "sepcma"},
		{"hees/d=10 bounds stds", Config{Dim: 10, Seed: 1, Bounds: &Bounds{Lower: make([]float64, 10)}, Stds: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, "hees"},
		{"cma11/d=10 bounds", Config{Dim: 10, Seed: 1, Bounds: &Bounds{Lower: make([]float64, 10)}}, "cma11"},
	} {
		c.cfg.TolFun = -1
		c.cfg.Sigma0 = 1e-3 // stay far from every stop criterion
		c.cfg.X0 = make([]float64, c.cfg.Dim)
		for i := range c.cfg.X0 {
			c.cfg.X0[i] = 1e3
		}
		s := stNew(t, c.strategy, c.cfg)
		var pop linalg.Dense
		vals := make([]float64, s.PopulationSize())
		generation := func() {
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			r, _ := pop.Dims()
			for i := 0; i < r; i++ {
				vals[i] = stSphere(pop.RawRow(i))
			}
			if err := s.Tell(vals[:r]); err != nil {
				t.Fatal(err)
			}
		}
		for g := 0; g < 20; g++ {
			generation()
		}
		if allocs := testing.AllocsPerRun(200, generation); allocs != 0 {
			t.Errorf("%s: %v allocations per generation, want 0", c.name, allocs)
		}
		if s.Stop() != "" {
			t.Errorf("%s: stopped (%s), so not every generation was measured", c.name, s.Stop())
		}
	}
}

// TestZeroAllocsNoiseHandler checks that a generation of hees2 and cmaes
// with noise handling allocates nothing in steady state either, the
// window of the recommendation full (more generations than it keeps).
func TestZeroAllocsNoiseHandler(t *testing.T) {
	for _, name := range []string{HEES2, CMAES} {
		cfg := Config{Dim: 10, Seed: 1, TolFun: -1, Sigma0: 1e-3, X0: make([]float64, 10)}
		for i := range cfg.X0 {
			cfg.X0[i] = 1e3
		}
		h := newHandled(t, name, cfg, false, NoiseConfig{})
		var pop linalg.Dense
		vals := make([]float64, h.PopulationSize())
		generation := func() {
			if err := h.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			r, _ := pop.Dims()
			for i := 0; i < r; i++ {
				vals[i] = stSphere(pop.RawRow(i))
			}
			if err := h.Tell(vals[:r]); err != nil {
				t.Fatal(err)
			}
		}
		for range recRing + 10 {
			generation()
		}
		if allocs := testing.AllocsPerRun(200, generation); allocs != 0 {
			t.Errorf("%s: %v allocations per generation, want 0", name, allocs)
		}
		if h.Stop() != "" || h.win.gens <= recRing {
			t.Errorf("%s: stopped (%s) after %d generations of the window", name, h.Stop(), h.win.gens)
		}
	}
}
