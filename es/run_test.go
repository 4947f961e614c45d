package es

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestRunStopsAfterGeneration checks the stops a Run applies after a
// generation is told, and that Minimize reports them in Progress.Stop: -Inf
// stops the run (before the target), a value at or below the target stops
// it, and nothing else does (NaN, a value above the target, any finite
// value without a target).
func TestRunStopsAfterGeneration(t *testing.T) {
	for _, c := range []struct {
		f      []float64
		target *float64
		want   Reason
	}{
		{[]float64{0.75, 1}, ptr(0.5), ""},
		{[]float64{math.NaN(), math.NaN()}, ptr(0.5), ""},
		{[]float64{1, 0.5}, ptr(0.5), ReasonTarget},
		{[]float64{-1, 2}, ptr(0.5), ReasonTarget},
		{[]float64{0.25, math.Inf(-1)}, ptr(0.5), ReasonMinusInf},
		{[]float64{-1e300, 1}, nil, ""},
		{[]float64{math.Inf(-1), 1}, nil, ReasonMinusInf},
	} {
		run, err := NewRun(newFake(2, 2, 1), Limits{Target: c.target})
		if err != nil {
			t.Fatal(err)
		}
		if pop, err := run.Ask(); pop == nil || err != nil {
			t.Fatalf("Ask: %v, %v", pop, err)
		}
		if err := run.Tell(c.f); err != nil {
			t.Fatal(err)
		}
		if run.Reason() != c.want {
			t.Errorf("values %v, target %v: reason %q, want %q", c.f, c.target, run.Reason(), c.want)
		}

	}
}

// TestMinimizeProgressStop checks that Progress.Stop names the stop after
// the generation that causes it, and only there.
func TestMinimizeProgressStop(t *testing.T) {
	for _, c := range []struct {
		last   float64 // the value of every candidate of generation 3
		target *float64
		want   Reason
	}{
		{0.5, ptr(0.5), ReasonTarget},
		{math.Inf(-1), ptr(0.5), ReasonMinusInf},
	} {
		var (
			calls int
			stops []Reason
		)
		res, err := Minimize(context.Background(), Func(func([]float64) float64 {
			calls++
			if calls > 4 {
				return c.last
			}
			return 1
		}), newFake(2, 2, 1), Options{Target: c.target, Progress: func(pr Progress) {
			stops = append(stops, pr.Stop)
		}})
		if err != nil || res.Reason != c.want || !slices.Equal(stops, []Reason{"", "", c.want}) {
			t.Errorf("last value %v: err %v, Reason %q, Progress.Stop %q; want %q after generation 3", c.last, err, res.Reason, stops, c.want)
		}
	}
}
