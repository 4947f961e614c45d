package es

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
)

// keyedPlateau is a KeyedProblem: ipopPlateau (which makes IPOP restart)
// with, above the plateau, a factor that the key alone decides, as a noisy
// function's noise. It records the keys it was given; Eval must not be
// called.
type keyedPlateau struct {
	f    func([]float64) float64
	mu   sync.Mutex
	keys map[uint64]int
}

func (p *keyedPlateau) Eval([]float64) float64 { panic("Eval called on a KeyedProblem") }

func (p *keyedPlateau) EvalKeyed(x []float64, key uint64) float64 {
	p.mu.Lock()
	p.keys[key]++
	p.mu.Unlock()
	z := (key + 1) * 0x9E3779B97F4A7C15
	z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9
	v := p.f(x)
	if v == 1e4 {
		return v // the plateau
	}
	return v * (1 + 0.5*float64(z>>11)*0x1p-53)
}

// TestMinimizeKeyed checks that Minimize passes each evaluation its number
// in the run as key (known points first, across IPOP's restarts, each key
// once), and that the run does not depend on Workers or on a save and
// restore in between.
func TestMinimizeKeyed(t *testing.T) {
	const budget = 1500
	inject := [][]float64{{1, 2, 3, 4, 5}, {0, 0, 0, 0, 1}}
	newIPOP := func() *IPOP {
		w, err := NewIPOP("hees", Config{Dim: 5, Seed: 1}, IPOPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	run := func(s Strategy, maxEvals, workers int, inject [][]float64) ([]string, Result, map[uint64]int) {
		p := &keyedPlateau{f: ipopPlateau(t), keys: map[uint64]int{}}
		var log []string
		res, err := Minimize(context.Background(), p, s, Options{MaxEvals: maxEvals, Workers: workers, Inject: inject,
			Progress: func(pr Progress) {
				log = append(log, fmt.Sprintf("%d %d %s %s %d", pr.Generation, pr.Evals, hexFloat(pr.GenerationBest),
					hexFloats(pr.Strategy.Mean(nil)), pr.Restarts))
			}})
		if err != nil {
			t.Fatal(err)
		}
		res.Elapsed = 0
		return log, res, p.keys
	}

	wantLog, want, keys := run(newIPOP(), budget, 1, inject)
	if want.Restarts == 0 {
		t.Fatalf("no restart in %d evaluations", want.Evals)
	}
	for k := range uint64(want.Evals) {
		if keys[k] != 1 {
			t.Fatalf("key %d used %d times", k, keys[k])
		}
	}
	if len(keys) != want.Evals {
		t.Fatalf("%d keys for %d evaluations", len(keys), want.Evals)
	}
	for _, workers := range []int{3, 8} {
		gotLog, got, _ := run(newIPOP(), budget, workers, inject)
		compareLines(t, fmt.Sprintf("%d workers", workers), wantLog, gotLog)
		if fmt.Sprintf("%x", got) != fmt.Sprintf("%x", want) {
			t.Errorf("%d workers: result %x, want %x", workers, got, want)
		}
	}

	s := newIPOP()
	firstLog, first, _ := run(s, budget/3, 2, inject)
	if first.Reason != ReasonMaxEvals {
		t.Fatalf("first part stopped by %q", first.Reason)
	}
	data, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var restored IPOP
	if err := restored.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	secondLog, got, secondKeys := run(&restored, budget, 4, nil)
	compareLines(t, "resumed", wantLog, slices.Concat(firstLog, secondLog))
	if fmt.Sprintf("%x", got) != fmt.Sprintf("%x", want) {
		t.Errorf("resumed result %x, want %x", got, want)
	}
	if k := slices.Min(mapKeys(secondKeys)); k != uint64(first.Evals) {
		t.Errorf("the resumed run starts at key %d, want %d", k, first.Evals)
	}
}

func mapKeys(m map[uint64]int) []uint64 {
	var out []uint64
	for k := range m {
		out = append(out, k)
	}
	return out
}

// keyedContext implements both KeyedProblem and ProblemContext:
// EvalContext wins.
type keyedContext struct{}

func (keyedContext) Eval(x []float64) float64 { return sphere(x) }
func (keyedContext) EvalKeyed([]float64, uint64) float64 {
	panic("EvalKeyed called on a ProblemContext")
}
func (keyedContext) EvalContext(_ context.Context, x []float64) (float64, error) {
	return sphere(x), nil
}

func TestMinimizeKeyedContextFirst(t *testing.T) {
	s, err := New("es11", Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Minimize(context.Background(), keyedContext{}, s, Options{MaxEvals: 50})
	if err != nil || math.IsInf(res.F, 1) {
		t.Fatalf("err %v, f %v", err, res.F)
	}
}
