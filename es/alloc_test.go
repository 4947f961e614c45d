package es

import (
	"math"
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
		s := stNew(t, c.strategy, farFromStops(c.cfg))
		if allocs := allocsPerGeneration(t, s, 20); allocs != 0 {
			t.Errorf("%s: %v allocations per generation, want 0", c.name, allocs)
		}
		if s.Stop() != "" {
			t.Errorf("%s: stopped (%s), so not every generation was measured", c.name, s.Stop())
		}
	}
}

// TestZeroAllocsNoiseHandler checks that a generation of hees2 and cmaes
// with noise handling allocates nothing in steady state either, the
// window of the recommendation full (more generations than it keeps). The
// sphere's centre moves by (1, ..., 1) in each generation and its values
// halve every 100 generations: on a fixed sphere the runs would converge
// and stop, on a moving one with the same values cmaes's stagnation would
// fire, and a stop starts a handled run anew with twice the population
// (docs/ALGORITHMS.md Section 20 item 4).
func TestZeroAllocsNoiseHandler(t *testing.T) {
	for _, name := range []string{HEES2, CMAES} {
		h := newHandled(t, name, farFromStops(Config{Dim: 10, Seed: 1}), false, NoiseConfig{})
		moving := func(x []float64) float64 {
			c := float64(h.Generation())
			var f float64
			for _, v := range x {
				f += float64((v - c) * (v - c))
			}
			return f * math.Pow(0.5, c/100)
		}
		if allocs := allocsPerGenerationOn(t, h, recRing+10, moving); allocs != 0 {
			t.Errorf("%s: %v allocations per generation, want 0", name, allocs)
		}
		if h.Stop() != "" || h.win.gens <= recRing {
			t.Errorf("%s: stopped (%s) after %d generations of the window", name, h.Stop(), h.win.gens)
		}
	}
}

// farFromStops returns cfg started far from the optimum of stSphere with a
// small sigma0 and without tolfun, so that no stop criterion fires while
// allocations are counted.
func farFromStops(cfg Config) Config {
	cfg.TolFun = -1
	cfg.Sigma0 = 1e-3
	cfg.X0 = make([]float64, cfg.Dim)
	for i := range cfg.X0 {
		cfg.X0[i] = 1e3
	}
	return cfg
}

// allocsPerGeneration runs warmup generations of s on stSphere, reusing
// the population matrix and the value slice, and returns the allocations
// of a generation after them (testing.AllocsPerRun over 200).
func allocsPerGeneration(t *testing.T, s Strategy, warmup int) float64 {
	t.Helper()
	return allocsPerGenerationOn(t, s, warmup, stSphere)
}

// allocsPerGenerationOn is allocsPerGeneration on the objective f.
func allocsPerGenerationOn(t *testing.T, s Strategy, warmup int, f func([]float64) float64) float64 {
	t.Helper()
	var pop linalg.Dense
	vals := make([]float64, s.PopulationSize())
	generation := func() {
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		r, _ := pop.Dims()
		for i := 0; i < r; i++ {
			vals[i] = f(pop.RawRow(i))
		}
		if err := s.Tell(vals[:r]); err != nil {
			t.Fatal(err)
		}
	}
	for range warmup {
		generation()
	}
	return testing.AllocsPerRun(200, generation)
}
