package es

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// runGenerations drives run for n generations (or batches) of f.
func runGenerations(t *testing.T, run *Run, f func([]float64) float64, n int) {
	t.Helper()
	for range n {
		pop, err := run.Ask()
		if err != nil || pop == nil {
			t.Fatalf("Ask: %v, %v (%s)", pop, err, run.Reason())
		}
		rows, _ := pop.Dims()
		v := make([]float64, rows)
		for i := range v {
			v[i] = f(pop.RawRow(i))
		}
		if err := run.Tell(v); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInject checks the rules of docs/ALGORITHMS.md Section 16 for every
// strategy, plain and under IPOP, in a box with scales: injected points are
// asked as a batch of their own and counted; a point better than the best
// becomes the best; an elitist strategy moves its parent to a point at
// least as good, the others do not move; a point worse than everything
// changes nothing but the count, so the run goes on bit for bit as without
// it.
func TestInject(t *testing.T) {
	d := 3
	centre := []float64{0.5, -0.25, 1}
	f := bdShiftedSphere(centre)
	cfg := Config{Dim: d, Seed: 4, Bounds: &Bounds{Lower: []float64{-2, -2, -2}, Upper: []float64{2, 2, 3}}, Stds: []float64{1, 2, 0.5}}
	for _, name := range Names() {
		elitist := name == ES11 || name == HEES14 || name == CMA11
		for _, ipop := range []bool{false, true} {
			mk := func() Strategy {
				if !ipop {
					return stNew(t, name, cfg)
				}
				w, err := NewIPOP(name, cfg, IPOPConfig{})
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			what := fmt.Sprintf("%s (IPOP %v)", name, ipop)
			plain, injected := mk(), mk()
			runPlain, _ := NewRun(plain, Limits{})
			runInj, _ := NewRun(injected, Limits{})
			runGenerations(t, runPlain, f, 5)
			runGenerations(t, runInj, f, 5)
			// A bad point: only the count changes.
			if err := runInj.Inject([][]float64{{-2, 2, -2}}); err != nil {
				t.Fatal(err)
			}
			pop, _ := runInj.Ask()
			if rows, _ := pop.Dims(); rows != 1 || fmt.Sprint(pop.RawRow(0)) != "[-2 2 -2]" {
				t.Fatalf("%s: batch asked %v, want the injected point", what, pop)
			}
			if err := runInj.Tell([]float64{f(pop.RawRow(0))}); err != nil {
				t.Fatal(err)
			}
			if injected.Evals() != plain.Evals()+1 || injected.Generation() != plain.Generation() {
				t.Errorf("%s: Evals %d, Generation %d; want %d, %d", what, injected.Evals(), injected.Generation(), plain.Evals()+1, plain.Generation())
			}
			runGenerations(t, runPlain, f, 5)
			runGenerations(t, runInj, f, 5)
			xp, fp := plain.Best()
			xi, fi := injected.Best()
			if fmt.Sprint(xp, fp, plain.Mean(nil)) != fmt.Sprint(xi, fi, injected.Mean(nil)) {
				t.Errorf("%s: a bad injected point changed the run: %v %v, want %v %v", what, xi, fi, xp, fp)
			}
			// The optimum: the best point; the parent of an elitist run.
			meanBefore := injected.Mean(nil)
			if err := runInj.Inject([][]float64{centre, {1, 1, 1}}); err != nil {
				t.Fatal(err)
			}
			runGenerations(t, runInj, f, 1)
			x, fx := injected.Best()
			if fx != 0 || !sameFloatsTol(x, centre, 1e-15) {
				t.Errorf("%s: best %v %v after injecting the optimum", what, x, fx)
			}
			if rx, rf := runInj.Best(); rf != 0 || fmt.Sprint(rx) != fmt.Sprint(centre) {
				t.Errorf("%s: run's best %v %v after injecting the optimum", what, rx, rf)
			}
			m := injected.Mean(nil)
			if elitist && !sameFloatsTol(m, centre, 1e-15) || !elitist && fmt.Sprint(m) != fmt.Sprint(meanBefore) {
				t.Errorf("%s: mean %v after injecting the optimum (before %v)", what, m, meanBefore)
			}
		}
	}
}

// sameFloatsTol reports whether a and b agree to tol (relative to 1).
func sameFloatsTol(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}

// TestInjectMinimize checks Options.Inject: the known optimum, injected,
// reaches the target in its own batch, before any generation; a bad point
// is an error that names it.
func TestInjectMinimize(t *testing.T) {
	target := 0.0
	centre := []float64{0.5, -0.25, 1}
	for _, workers := range []int{1, 3} {
		res, err := Minimize(context.Background(), Func(bdShiftedSphere(centre)), stNew(t, CMAES, Config{Dim: 3}),
			Options{Workers: workers, Target: &target, Inject: [][]float64{{3, 3, 3}, centre}})
		if err != nil || res.Reason != ReasonTarget || res.Evals != 2 || res.Generations != 0 || fmt.Sprint(res.X) != fmt.Sprint(centre) {
			t.Errorf("workers=%d: %+v, %v; want the target after the 2 injected points", workers, res, err)
		}
	}
	box := &Bounds{Lower: []float64{0, 0, 0}}
	for _, c := range []struct {
		points [][]float64
		want   string
	}{
		{[][]float64{{1, 1, 1}, {1, 1}}, "es: Run.Inject: point 1: length 2, want Dim = 3"},
		{[][]float64{{1, -1, 1}}, "es: Run.Inject: point 0: x[1] = -1 lies outside the bounds [0, +Inf]"},
		{[][]float64{{1, 1, inf}}, "x[2] = +Inf: must be finite"},
	} {
		_, err := Minimize(context.Background(), Func(sphere), stNew(t, HEES, Config{Dim: 3, Bounds: box}), Options{Inject: c.points})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Inject %v: %v, want an error containing %q", c.points, err, c.want)
		}
	}
	run, _ := NewRun(stNew(t, HEES, Config{Dim: 3}), Limits{})
	if _, err := run.Ask(); err != nil {
		t.Fatal(err)
	}
	if err := run.Inject([][]float64{{1, 1, 1}}); err == nil {
		t.Error("Inject while a generation is asked: no error")
	}
}

// TestInjecting checks Run.Injecting and Progress.Injected: true for the
// batch of known points only, false again once a budget too small for the
// batch stops the run before it.
func TestInjecting(t *testing.T) {
	run, _ := NewRun(stNew(t, HEES, Config{Dim: 3}), Limits{})
	if err := run.Inject([][]float64{{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	for batch, want := range []bool{true, false} {
		if _, err := run.Ask(); err != nil {
			t.Fatal(err)
		}
		if run.Injecting() != want {
			t.Fatalf("batch %d: Injecting() = %v, want %v", batch, run.Injecting(), want)
		}
		runGenerations(t, run, sphere, 1)
	}
	// More known points than the budget: refused before anything is
	// queued (rather than a run that evaluates nothing).
	small, _ := NewRun(stNew(t, HEES, Config{Dim: 3}), Limits{MaxEvals: 1})
	if err := small.Inject([][]float64{{1, 1, 1}, {2, 2, 2}}); err == nil || !strings.Contains(err.Error(), "leaves room for 1") {
		t.Errorf("2 known points, budget 1: Inject %v", err)
	}
	if err := small.Inject([][]float64{{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := small.Inject([][]float64{{2, 2, 2}}); err == nil {
		t.Error("a second point beyond the budget of 1 was queued")
	}
	if pop, err := small.Ask(); pop == nil || err != nil || !small.Injecting() {
		t.Errorf("1 known point, budget 1: Ask %v, %v, Injecting %v", pop, err, small.Injecting())
	}
	var injected []bool
	_, err := Minimize(context.Background(), Func(sphere), stNew(t, HEES, Config{Dim: 3}), Options{MaxEvals: 20,
		Inject:   [][]float64{{1, 1, 1}},
		Progress: func(pr Progress) { injected = append(injected, pr.Injected) }})
	if err != nil || len(injected) < 2 || !injected[0] || slices.Contains(injected[1:], true) {
		t.Errorf("Progress.Injected of the batches: %v, %v; want true, then false", injected, err)
	}
}
