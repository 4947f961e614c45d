package es

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// resumeGeneration is where the resumed runs are saved and restored.
const resumeGeneration = 37

// ipopPlateau is the objective of the IPOP cases: the rotated ellipsoid
// cut off at a level that its runs reach within a few dozen generations, so
// that IPOP restarts before and after resumeGeneration (several times
// within goldenGenerations with seed 1; TestReproducibleAfterMarshal checks
// that restarts fall on both sides).
func ipopPlateau(t testing.TB) func([]float64) float64 {
	p := goldenProblem(t)
	return func(x []float64) float64 { return max(p.Eval(x), 1e4) }
}

// subject is a strategy under a reproducibility test.
type subject struct {
	name    string
	newFn   func(t *testing.T) Strategy
	restore func(t *testing.T, data []byte) Strategy // into a fresh value
	f       func([]float64) float64
}

// subjects are the strategies (seed 1, d = 5, on the golden rotated
// ellipsoid, lqhees on the Rosenbrock function) and IPOP around hees (on
// ipopPlateau).
func subjects(t *testing.T) []subject {
	var list []subject
	rosenbrock, err := objectives.Parse("rosenbrock", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		f := goldenProblem(t).Eval
		if name == LQHEES {
			// lqhees solves the ellipsoid within the first part of
			// TestReproducibleMinimizeResumed.
			f = rosenbrock.Eval
		}
		list = append(list, subject{
			name: name,
			newFn: func(t *testing.T) Strategy {
				s, err := New(name, Config{Dim: 5, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			restore: func(t *testing.T, data []byte) Strategy {
				s, err := Load(data)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			f: f,
		})
	}
	return append(list, subject{
		name: "ipop-hees",
		newFn: func(t *testing.T) Strategy {
			w, err := NewIPOP("hees", Config{Dim: 5, Seed: 1}, IPOPConfig{})
			if err != nil {
				t.Fatal(err)
			}
			return w
		},
		restore: func(t *testing.T, data []byte) Strategy {
			var w IPOP
			if err := w.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			return &w
		},
		f: ipopPlateau(t),
	})
}

// runLines runs s for gens generations with an ask/tell loop and returns
// the state line of each generation and the restart count at the end.
// reverse evaluates the rows from last to first. At resumeAt > 0 the state
// is saved before the Ask of that generation (pending = false) or between
// its Ask and Tell (pending = true) and the run continues on restore(state).
func runLines(t *testing.T, sub subject, gens int, reverse bool, resumeAt int, pending bool) ([]string, int) {
	s := sub.newFn(t)
	var pop linalg.Dense
	var lines []string
	save := func() {
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s = sub.restore(t, data)
	}
	for g := range gens {
		if s.Stop() != "" {
			break
		}
		if g == resumeAt && resumeAt > 0 && !pending {
			save()
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		if g == resumeAt && resumeAt > 0 && pending {
			asked := matrixLines(&pop)
			save()
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			if matrixLines(&pop) != asked {
				t.Fatalf("restored with a pending Ask, the strategy asks other candidates")
			}
		}
		rows, _ := pop.Dims()
		values := make([]float64, rows)
		for k := range rows {
			i := k
			if reverse {
				i = rows - 1 - k
			}
			values[i] = sub.f(pop.RawRow(i))
		}
		if err := s.Tell(values); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, stateLine(s, values))
	}
	return lines, restartsOf(s)
}

// compareLines reports the first generation where got differs from want.
func compareLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("%s: generation %d differs:\nwant %s\ngot  %s", what, i+1, want[i], got[i])
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d generations, want %d", what, len(got), len(want))
	}
}

func TestReproducibleEvaluationOrder(t *testing.T) {
	for _, sub := range subjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			want, _ := runLines(t, sub, goldenGenerations, false, 0, false)
			got, _ := runLines(t, sub, goldenGenerations, true, 0, false)
			compareLines(t, "reverse order", want, got)
		})
	}
}

func TestReproducibleAfterMarshal(t *testing.T) {
	for _, sub := range subjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			want, restarts := runLines(t, sub, goldenGenerations, false, 0, false)
			if len(want) <= resumeGeneration {
				t.Fatalf("the run stopped after %d generations, before the resume point", len(want))
			}
			for _, pending := range []bool{false, true} {
				got, _ := runLines(t, sub, goldenGenerations, false, resumeGeneration, pending)
				compareLines(t, fmt.Sprintf("resumed at %d (pending Ask %v)", resumeGeneration, pending), want, got)
			}
			if sub.name != "ipop-hees" {
				return
			}
			// The IPOP case must cross restarts on both sides of the
			// resume point to test what it claims.
			_, before := runLines(t, sub, resumeGeneration, false, 0, false)
			if before == 0 || restarts <= before {
				t.Errorf("restarts: %d before generation %d, %d in all; want some on each side", before, resumeGeneration, restarts)
			}
		})
	}
}

// minimizeLog runs Minimize and renders every generation and the result.
func minimizeLog(t *testing.T, s Strategy, f func([]float64) float64, opt Options) ([]string, Result) {
	var log []string
	opt.Progress = func(p Progress) {
		log = append(log, fmt.Sprintf("%d %d %s %s %s %s %d", p.Generation, p.Evals, hexFloat(p.GenerationBest),
			hexFloat(p.Best), hexFloat(p.Strategy.Sigma()), hexFloats(p.Strategy.Mean(nil)), p.Restarts))
	}
	res, err := Minimize(context.Background(), Func(f), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	res.Elapsed = 0
	return log, res
}

func TestReproducibleWorkers(t *testing.T) {
	for _, sub := range subjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			opt := Options{MaxEvals: 1500}
			want, wantRes := minimizeLog(t, sub.newFn(t), sub.f, opt)
			for _, workers := range []int{2, 8} {
				opt.Workers = workers
				got, gotRes := minimizeLog(t, sub.newFn(t), sub.f, opt)
				compareLines(t, fmt.Sprintf("%d workers", workers), want, got)
				if fmt.Sprintf("%x", gotRes) != fmt.Sprintf("%x", wantRes) {
					t.Errorf("%d workers: result %x, want %x", workers, gotRes, wantRes)
				}
			}
		})
	}
}

// TestReproducibleMinimizeResumed splits one Minimize run into two calls
// with a save and restore in between: the budget counts the strategy's
// past evaluations, so the second call ends where the single run ends.
func TestReproducibleMinimizeResumed(t *testing.T) {
	for _, sub := range subjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			const budget = 1200
			wantLog, want := minimizeLog(t, sub.newFn(t), sub.f, Options{MaxEvals: budget, Workers: 2})

			s := sub.newFn(t)
			firstLog, first := minimizeLog(t, s, sub.f, Options{MaxEvals: budget / 3})
			if first.Reason != ReasonMaxEvals {
				t.Fatalf("first part stopped by %q", first.Reason)
			}
			data, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			restored := sub.restore(t, data)
			secondLog, got := minimizeLog(t, restored, sub.f, Options{MaxEvals: budget, Workers: 2})
			// The second call's best so far starts from the strategy's
			// Best, which covers the first call.
			compareLines(t, "resumed Minimize", wantLog, slices.Concat(firstLog, secondLog))
			if fmt.Sprintf("%x", got) != fmt.Sprintf("%x", want) {
				t.Errorf("resumed result %x, want %x", got, want)
			}
		})
	}
}

// shortLine renders the state of s after a generation without the values.
func shortLine(s Strategy) string {
	_, best := s.Best()
	return fmt.Sprintf("%d %d %s %s %s", s.Generation(), s.Evals(), hexFloat(s.Sigma()), hexFloat(best), hexFloats(s.Mean(nil)))
}

// TestMinimizeMatchesAskTell checks that Minimize drives a strategy exactly
// as a plain ask/tell loop does.
func TestMinimizeMatchesAskTell(t *testing.T) {
	for _, sub := range subjects(t) {
		t.Run(sub.name, func(t *testing.T) {
			s := sub.newFn(t)
			var want []string
			var pop linalg.Dense
			for range goldenGenerations {
				askTellGeneration(t, s, sub.f, &pop)
				want = append(want, shortLine(s))
			}
			var got []string
			res, err := Minimize(context.Background(), Func(sub.f), sub.newFn(t), Options{Workers: 3, MaxEvals: s.Evals(),
				Progress: func(p Progress) { got = append(got, shortLine(p.Strategy)) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Evals != s.Evals() {
				t.Errorf("Minimize made %d evaluations, the loop %d", res.Evals, s.Evals())
			}
			compareLines(t, "Minimize vs ask/tell", want, got)
		})
	}
}
