package es

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// errCrash is the error of the failing objectives below.
var errCrash = errors.New("simulation crashed")

// crashes reports whether the objective "crashes" at x: on about one point
// in ten, as a function of the point's bits alone.
func crashes(x []float64) bool {
	h := fnv.New64a()
	var b []byte
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	h.Write(b)
	return h.Sum64()%10 == 0
}

// TestOnErrorWorst runs every strategy on a sphere that fails on 10% of
// the points: with OnErrorWorst the runs reach the target, count the
// failures, and give the same Result for 1 and 4 workers. (Seed 4: with
// seed 3, lqhees reaches the target in 29 evaluations, none of which fails.)
func TestOnErrorWorst(t *testing.T) {
	target := 1e-8
	for _, name := range Names() {
		var results []string
		for _, workers := range []int{1, 4} {
			var calls, failed atomic.Int64
			p := FuncContext(func(_ context.Context, x []float64) (float64, error) {
				calls.Add(1)
				if crashes(x) {
					failed.Add(1)
					return 0, errCrash
				}
				return sphere(x), nil
			})
			res, err := Minimize(context.Background(), p, stNew(t, name, Config{Dim: 5, Seed: 4}),
				Options{Workers: workers, MaxEvals: 50000, Target: &target, OnError: OnErrorWorst})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.Reason != ReasonTarget || res.F > target {
				t.Errorf("%s workers=%d: %s, f = %g; want the target", name, workers, res.Reason, res.F)
			}
			if res.Failures == 0 || int64(res.Failures) != failed.Load() || int64(res.Evals) != calls.Load() {
				t.Errorf("%s workers=%d: Failures %d, Evals %d; objective failed %d of %d calls",
					name, workers, res.Failures, res.Evals, failed.Load(), calls.Load())
			}
			res.Elapsed = 0
			results = append(results, fmt.Sprintf("%+v", res))
		}
		if results[0] != results[1] {
			t.Errorf("%s: 1 worker %s, 4 workers %s", name, results[0], results[1])
		}
	}
}

// TestOnErrorRetries checks that a point that fails once and succeeds when
// tried again costs nothing with Retries 1: the run is the run of an
// objective that never fails, for both policies and any workers.
func TestOnErrorRetries(t *testing.T) {
	want, err := Minimize(context.Background(), Func(sphere), stNew(t, HEES, Config{Dim: 4, Seed: 2}), Options{MaxEvals: 2000})
	if err != nil {
		t.Fatal(err)
	}
	want.Elapsed = 0
	for _, policy := range []OnError{OnErrorStop, OnErrorWorst} {
		for _, workers := range []int{1, 4} {
			var mu sync.Mutex
			tried := map[string]bool{}
			var calls int
			p := FuncContext(func(_ context.Context, x []float64) (float64, error) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				key := fmt.Sprint(x)
				if crashes(x) && !tried[key] {
					tried[key] = true
					return 0, errCrash
				}
				return sphere(x), nil
			})
			got, err := Minimize(context.Background(), p, stNew(t, HEES, Config{Dim: 4, Seed: 2}),
				Options{Workers: workers, MaxEvals: 2000, OnError: policy, Retries: 1})
			if err != nil {
				t.Fatal(err)
			}
			got.Elapsed = 0
			if fmt.Sprint(got) != fmt.Sprint(want) || calls != want.Evals+len(tried) || len(tried) == 0 {
				t.Errorf("policy %q workers=%d: %+v after %d calls (%d retried), want %+v", policy, workers, got, calls, len(tried), want)
			}
		}
	}
}

// TestOnErrorMaxFailures checks the stop after too many failures in a row:
// an objective that always fails stops a cmaes run (8 candidates per
// generation in 4-D) after the generation in which the 20th failure in a
// row falls, the third (generation 2), with ReasonTooManyFailures and the
// last failure, row 7, as the error; the failures were told as NaN.
func TestOnErrorMaxFailures(t *testing.T) {
	for _, workers := range []int{1, 4} {
		p := FuncContext(func(context.Context, []float64) (float64, error) { return 0, errCrash })
		s := stNew(t, CMAES, Config{Dim: 4, Seed: 1})
		res, err := Minimize(context.Background(), p, s, Options{Workers: workers, OnError: OnErrorWorst, MaxFailures: 20})
		var oe *ObjectiveError
		if !errors.As(err, &oe) || !errors.Is(err, errCrash) || oe.Row != 7 || oe.Generation != 2 {
			t.Errorf("workers=%d: err %v, want the failure of row 7 of generation 2", workers, err)
		}
		if res.Reason != ReasonTooManyFailures || res.Evals != 24 || res.Failures != 24 || s.Evals() != 24 || res.X != nil {
			t.Errorf("workers=%d: %+v, want %q after 24 failed evaluations told", workers, res, ReasonTooManyFailures)
		}
	}
	p := FuncContext(func(context.Context, []float64) (float64, error) { return 0, errCrash })
	for _, opt := range []Options{{OnError: "nan"}, {Retries: -1}, {Retries: MaxRetries + 1}} {
		if _, err := Minimize(context.Background(), p, stNew(t, CMAES, Config{Dim: 4}), opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}

// TestOnErrorWords: the failure policies' words, as the command line and
// saved runs spell them, and the constants' own strings, which older saved
// runs hold, read back; anything else is an error naming the words.
func TestOnErrorWords(t *testing.T) {
	for word, want := range map[string]OnError{"stop": OnErrorStop, "": OnErrorStop, "nan": OnErrorWorst, "worst": OnErrorWorst} {
		got, err := ParseOnError(word)
		if err != nil || got != want {
			t.Errorf("ParseOnError(%q) = %q, %v; want %q", word, got, err, want)
		}
		text, err := got.MarshalText()
		var back OnError
		if err != nil || back.UnmarshalText(text) != nil || back != want || string(text) != want.Word() {
			t.Errorf("%q: MarshalText %q, %v; read back %q", word, text, err, back)
		}
	}
	for _, word := range []string{"Stop", "NaN", "retry", " nan"} {
		if _, err := ParseOnError(word); err == nil || !strings.Contains(err.Error(), "want stop or nan") {
			t.Errorf("ParseOnError(%q): %v, want an error naming the words", word, err)
		}
	}
	if _, err := OnError("bogus").MarshalText(); err == nil {
		t.Error("MarshalText of an unknown policy: no error")
	}
}
