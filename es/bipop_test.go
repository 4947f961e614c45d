package es

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestBIPOPRegimes follows a BIPOP run restart by restart on a plateau,
// where every run ends soon by TolFun, and checks each new run against the
// budget rule computed independently from the evaluations seen: small iff
// B_s < max(1, B_l), the first run counted as small; a large run doubles
// the population and keeps sigma0; a small run has a population in
// [p_def, p_def 2^k] and sigma0 10^(-2U) in (sigma0/100, sigma0], and ends
// by its budget 0.5 B_l at the latest.
func TestBIPOPRegimes(t *testing.T) {
	for _, name := range []string{"cmaes", "hees", "hees2"} {
		t.Run(name, func(t *testing.T) {
			const d, maxLarge = 4, 5
			w, err := NewBIPOP(name, Config{Dim: d, Seed: 7}, BIPOPConfig{MaxRestarts: maxLarge})
			if err != nil {
				t.Fatal(err)
			}
			row := rowOf(name)
			lambdaOf := func(pop int) int { return row.candidates(row.withPopulation(Config{}, pop)) }
			pop0 := row.population(d)
			var pop linalg.Dense
			f := plateau(0.01)
			small, large, runEvals, large0 := 0, 0, 0, 0
			inSmall, budget, maxLambda := true, math.Inf(1), 0
			smallRuns, largeRuns := 0, 0
			for w.Stop() == "" {
				if w.Generation() > 50000 {
					t.Fatal("no stop after 50000 generations")
				}
				restarts, lambda := w.Restarts(), w.PopulationSize()
				runEvals += len(askTellGeneration(t, w, f, &pop))
				if w.Restarts() == restarts {
					continue
				}
				if float64(runEvals-lambda) >= budget {
					t.Fatalf("restart %d: the small run went on after its budget %g (%d evaluations)", restarts+1, budget, runEvals)
				}
				maxLambda = max(maxLambda, lambda)
				if inSmall {
					small += runEvals
				} else {
					large += runEvals
				}
				runEvals = 0
				wantSmall := float64(small) < max(1, float64(large))
				if gs, gl := w.Budgets(); gs != small || gl != large || w.Small() != wantSmall {
					t.Fatalf("restart %d: budgets %d, %d and small %v; want %d, %d and %v", restarts+1, gs, gl, w.Small(), small, large, wantSmall)
				}
				inSmall = wantSmall
				if inSmall {
					smallRuns++
					budget = 0.5 * float64(large)
					hi := lambdaOf(pop0 << large0)
					if w.PopulationSize() < lambdaOf(pop0) || w.PopulationSize() > hi || !(w.Sigma() > 0.02 && w.Sigma() <= 2) {
						t.Errorf("small restart %d: Lambda %d (want [%d, %d]), Sigma %g", restarts+1, w.PopulationSize(), lambdaOf(pop0), hi, w.Sigma())
					}
				} else {
					largeRuns++
					large0++
					budget = math.Inf(1)
					if w.PopulationSize() != lambdaOf(pop0<<large0) || w.Sigma() != 2 {
						t.Errorf("large restart %d: Lambda %d, Sigma %g; want %d, 2", restarts+1, w.PopulationSize(), w.Sigma(), lambdaOf(pop0<<large0))
					}
				}
				if w.Restarts() != smallRuns+largeRuns {
					t.Fatalf("Restarts %d, want %d", w.Restarts(), smallRuns+largeRuns)
				}
			}
			t.Logf("%d small and %d large restarts; budgets small %d, large %d (+ %d in the last run)", smallRuns, largeRuns, small, large, runEvals)
			if largeRuns != maxLarge || smallRuns < 2 {
				t.Errorf("%d small and %d large restarts, want %d large and small ones between them", smallRuns, largeRuns, maxLarge)
			}
			// The balance: the small regime runs ahead of the large one by
			// at most its last run, which ends within a generation of
			// 0.5 B_l.
			if float64(small) > 1.5*float64(large)+float64(maxLambda) {
				t.Errorf("budgets small %d, large %d: not balanced", small, large)
			}
		})
	}
}

// TestBIPOPMatchesPlainStrategyUntilRestart: the first run is the plain
// strategy with the Config as given.
func TestBIPOPMatchesPlainStrategyUntilRestart(t *testing.T) {
	for _, name := range []string{"cmaes", "hees", "hees2"} {
		cfg := Config{Dim: 5, Seed: 3}
		plain, err := New(name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewBIPOP(name, cfg, BIPOPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		var a, b linalg.Dense
		for range 30 {
			askTellGeneration(t, plain, sphere, &a)
			askTellGeneration(t, w, sphere, &b)
			if matrixLines(&a) != matrixLines(&b) {
				t.Fatalf("%s generation %d: BIPOP asked other candidates", name, plain.Generation())
			}
		}
		if w.Restarts() != 0 || w.Name() != "bipop-"+name || !w.Small() {
			t.Errorf("%s: Restarts %d, Name %q, Small %v", name, w.Restarts(), w.Name(), w.Small())
		}
	}
}

// TestBIPOPSaveResume saves a BIPOP at many points of a run with restarts
// in both regimes (in the middle of small and of large runs), restores each
// state with Load and checks that the restored wrapper asks the same
// candidates as the original, bit for bit, for 30 generations (across
// restarts) and ends in the same state.
func TestBIPOPSaveResume(t *testing.T) {
	for _, name := range []string{"cmaes", "hees", "hees2"} {
		t.Run(name, func(t *testing.T) {
			w, err := NewBIPOP(name, Config{Dim: 3, Seed: 4}, BIPOPConfig{MaxRestarts: 3})
			if err != nil {
				t.Fatal(err)
			}
			f := plateau(0.02)
			var pop linalg.Dense
			saved := map[bool]bool{}
			for g := 0; w.Stop() == "" && g < 20000; g++ {
				askTellGeneration(t, w, f, &pop)
				if g%7 != 3 || w.Restarts() == 0 {
					continue
				}
				s := stReload(t, w)
				r, ok := s.(*BIPOP)
				if !ok || r.Name() != w.Name() || r.Restarts() != w.Restarts() || r.Small() != w.Small() || r.Evals() != w.Evals() {
					t.Fatalf("Load gave %T %q", s, s.Name())
				}
				saved[w.Small()] = true
				stLockstep(t, w, r, f, 30, nil) // the restored copy beside the original
			}
			if !saved[true] || !saved[false] {
				t.Errorf("states saved in small runs %v, in large runs %v; want both", saved[true], saved[false])
			}
		})
	}
}

// TestBIPOPResumeBitIdentical saves a BIPOP in the middle of its run,
// restores it and runs both to the end: every later generation and the
// final state are bit-identical.
func TestBIPOPResumeBitIdentical(t *testing.T) {
	w, err := NewBIPOP("cmaes", Config{Dim: 3, Seed: 9}, BIPOPConfig{MaxRestarts: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := plateau(0.02)
	var pop linalg.Dense
	for w.Restarts() < 3 {
		askTellGeneration(t, w, f, &pop)
	}
	s := stReload(t, w)
	stLockstep(t, w, s, f, math.MaxInt, func() bool { return w.Restarts() == s.(*BIPOP).Restarts() })
}

// TestBIPOPWorkers runs Minimize with 1 and 4 workers: the results agree
// (Elapsed aside).
func TestBIPOPWorkers(t *testing.T) {
	for _, name := range []string{"cmaes", "hees", "hees2"} {
		var results []Result
		for _, workers := range []int{1, 4} {
			w, err := NewBIPOP(name, Config{Dim: 4, Seed: 2}, BIPOPConfig{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Minimize(context.Background(), Func(plateau(0.03)), w, Options{Workers: workers, MaxEvals: 20000})
			if err != nil {
				t.Fatal(err)
			}
			res.Elapsed = 0
			results = append(results, res)
		}
		a, b := results[0], results[1]
		if !slices.Equal(a.X, b.X) || a.F != b.F || a.Evals != b.Evals || a.Restarts != b.Restarts || a.Reason != b.Reason {
			t.Errorf("%s: workers 1 %+v, workers 4 %+v", name, a, b)
		}
		if a.Restarts < 2 || a.Reason != ReasonMaxEvals {
			t.Errorf("%s: %d restarts, reason %q; want restarts until the budget", name, a.Restarts, a.Reason)
		}
	}
}

// TestBIPOPErrors checks the errors of NewBIPOP, of a zero BIPOP and of
// UnmarshalBinary.
func TestBIPOPErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		b    BIPOPConfig
		want string
	}{
		{"es11", Config{Dim: 3}, BIPOPConfig{}, `strategy "es11" has no population`},
		{"cmaes", Config{Dim: 3}, BIPOPConfig{MaxRestarts: -2}, "MaxRestarts = -2"},
		{"cmaes", Config{Dim: 0}, BIPOPConfig{}, "Dim"},
	} {
		if w, err := NewBIPOP(c.name, c.cfg, c.b); err == nil || w != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewBIPOP(%q, %+v, %+v) = %v, %v; want an error containing %q", c.name, c.cfg, c.b, w, err, c.want)
		}
	}
	var zero BIPOP
	var pop linalg.Dense
	if err := zero.Ask(&pop); err != errZeroBIPOP {
		t.Errorf("Ask: %v", err)
	}
	if err := zero.Tell([]float64{1}); err != errZeroBIPOP {
		t.Errorf("Tell: %v", err)
	}
	if _, err := zero.MarshalBinary(); err != errZeroBIPOP {
		t.Errorf("MarshalBinary: %v", err)
	}
	w, err := NewBIPOP("hees", Config{Dim: 3, Seed: 1}, BIPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	state, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ipop, err := NewIPOP("hees", Config{Dim: 3}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ipopState, _ := ipop.MarshalBinary()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a saved strategy state"},
		{"ipop", ipopState, `"ipop"`},
		{"truncated", state[:len(state)/2], "truncated"},
		{"corrupt", append(slices.Clone(state[:30]), append([]byte{state[30] ^ 1}, state[31:]...)...), "corrupt"},
	} {
		var v BIPOP
		err := v.UnmarshalBinary(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) || v.inner != nil {
			t.Errorf("%s: err %v, want one containing %q (value unchanged)", tc.name, err, tc.want)
		}
	}
}
