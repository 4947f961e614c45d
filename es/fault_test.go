package es

// Fault injection (RELIABILITY.md, The objective): every strategy of Names() and the full
// HE-ES under IPOP restarts is run by Minimize, with 1 and 4 workers, on
// objectives that return NaN or +Inf at random, return -Inf once, panic,
// block until the run is canceled or its time limit passes, or never return
// a number. Each test checks the documented behaviour (docs/ALGORITHMS.md
// Section 13 item 8 and the doc comments of Minimize, Options and Result):
// the Reason and the error, that Result.X and Result.F are the best value
// the objective really returned (and f(Result.X) == Result.F), that
// Result.Evals counts the objective's calls, that 1 and 4 workers give the
// same result where the documentation promises it, and that no goroutine
// outlives Minimize.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hees-dev/hees/linalg"
)

// faultDim is the dimension of the fault-injection runs: small, so that a
// run of a few thousand evaluations takes milliseconds.
const faultDim = 4

// faultWorkers are the worker counts every fault is tried with.
var faultWorkers = []int{1, 4}

// faultConfig is the configuration of the fault-injection runs. X0 is
// given so that a test can check that the mean did not move.
func faultConfig() Config {
	return Config{Dim: faultDim, Seed: 11, X0: []float64{1, -1, 2, 0.5}}
}

// faultEllipsoid is sum_i 10^i (x_i - 0.25)^2 for i = 0..3, an ellipsoid
// with condition 1e3 whose optimum is not at the origin.
func faultEllipsoid(x []float64) float64 {
	var s float64
	w := 1.0
	for _, v := range x {
		d := v - 0.25
		s += float64(w * float64(d*d))
		w *= 10
	}
	return s
}

// faultSubject is a strategy under fault injection, built by new from a
// Config.
type faultSubject struct {
	name string
	new  func(t *testing.T, cfg Config) Strategy
}

// faultSubjects returns every strategy of Names() and "ipop-hees", the
// full HE-ES wrapped by NewIPOP with the given restart settings.
func faultSubjects(ipop IPOPConfig) []faultSubject {
	var subjects []faultSubject
	for _, name := range Names() {
		subjects = append(subjects, faultSubject{name, func(t *testing.T, cfg Config) Strategy {
			t.Helper()
			s, err := New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}})
	}
	subjects = append(subjects, faultSubject{"ipop-hees", func(t *testing.T, cfg Config) Strategy {
		t.Helper()
		s, err := NewIPOP("hees", cfg, ipop)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}})
	return subjects
}

// faultCall is one call of a faultProblem: the point asked and, once the
// call has returned, its value.
type faultCall struct {
	x        []float64
	f        float64
	returned bool
}

// faultProblem is an objective with injected faults that records every call
// under a mutex, in the order the calls started. value is the objective as
// a pure function of the point (the faults that depend on the point only
// are part of it, so f(Result.X) can be checked with it); hook, when not
// nil, runs first at every call with the call's index (0-based) and may
// panic, block, or replace the value by returning true.
type faultProblem struct {
	value func(x []float64) float64
	hook  func(call int, x []float64) (float64, bool)

	mu    sync.Mutex
	calls []faultCall
}

// Eval records the call and returns the hook's or value's result.
func (p *faultProblem) Eval(x []float64) float64 {
	p.mu.Lock()
	i := len(p.calls)
	p.calls = append(p.calls, faultCall{x: slices.Clone(x)})
	p.mu.Unlock()
	var f float64
	replaced := false
	if p.hook != nil {
		f, replaced = p.hook(i, x)
	}
	if !replaced {
		f = p.value(x)
	}
	p.mu.Lock()
	p.calls[i].f, p.calls[i].returned = f, true
	p.mu.Unlock()
	return f
}

// count returns the number of calls so far and how many of them returned.
func (p *faultProblem) count() (calls, returned int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		if c.returned {
			returned++
		}
	}
	return len(p.calls), returned
}

// best returns the smallest value below +Inf returned by the first n calls,
// and the point of the first call that returned it (nil and +Inf if none).
func (p *faultProblem) best(n int) ([]float64, float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var x []float64
	f := math.Inf(1)
	for _, c := range p.calls[:n] {
		if c.returned && c.f < f {
			x, f = c.x, c.f
		}
	}
	return x, f
}

// returnedAt reports whether one of the first n calls was at x and returned f.
func (p *faultProblem) returnedAt(n int, x []float64, f float64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls[:n] {
		if c.returned && sameFloats(c.x, x) && sameFloat(c.f, f) {
			return true
		}
	}
	return false
}

// nonFiniteCandidate returns a call whose point has a NaN or infinite
// coordinate, or nil.
func (p *faultProblem) nonFiniteCandidate() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		for _, v := range c.x {
			if !finite(v) {
				return c.x
			}
		}
	}
	return nil
}

// sameFloat reports whether a and b have the same bits.
func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// sameFloats reports whether a and b have the same length and bits (nil and
// empty differ).
func sameFloats(a, b []float64) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFloat(a[i], b[i]) {
			return false
		}
	}
	return true
}

// faultCheckBest checks that res.F is the best value below +Inf that the
// first n calls of p returned, that res.X is a point at which it was
// returned (nil when there is none), and that p.value(res.X) == res.F.
func faultCheckBest(t *testing.T, res Result, p *faultProblem, n int) {
	t.Helper()
	wantX, wantF := p.best(n)
	if !sameFloat(res.F, wantF) {
		t.Errorf("Result.F = %v, want %v (the best value returned by the first %d calls)", res.F, wantF, n)
		return
	}
	if wantX == nil {
		if res.X != nil {
			t.Errorf("Result.X = %v, want nil (no value below +Inf returned)", res.X)
		}
		return
	}
	if !p.returnedAt(n, res.X, res.F) {
		t.Errorf("Result.X = %v was not evaluated to F = %v by the first %d calls (first best at %v)", res.X, res.F, n, wantX)
	}
	if f := p.value(res.X); !sameFloat(f, res.F) {
		t.Errorf("f(Result.X) = %v, Result.F = %v", f, res.F)
	}
}

// faultSameResult returns "" when a and b agree in everything but Elapsed,
// bit for bit, and otherwise says how they differ.
func faultSameResult(a, b Result) string {
	if a.Reason != b.Reason || a.Evals != b.Evals || a.Generations != b.Generations || a.Restarts != b.Restarts ||
		!sameFloat(a.F, b.F) || !sameFloats(a.X, b.X) {
		return fmt.Sprintf("%s\n  vs %s", faultResultString(a), faultResultString(b))
	}
	return ""
}

// faultResultString writes a Result without Elapsed, floats in hex.
func faultResultString(r Result) string {
	return fmt.Sprintf("{Reason %q, Evals %d, Generations %d, Restarts %d, F %x, X %x}",
		r.Reason, r.Evals, r.Generations, r.Restarts, r.F, r.X)
}

// faultLocate replays s (fresh) with sequential Ask/Tell on value until
// the generation that holds call number call (0-based; the calls of a run
// go generation after generation) and returns that generation's number
// (Strategy.Generation), the number of calls before it and its candidates.
func faultLocate(t *testing.T, s Strategy, value func([]float64) float64, call int) (gen, before int, pop *linalg.Dense) {
	t.Helper()
	pop = new(linalg.Dense)
	var f []float64
	for {
		if err := s.Ask(pop); err != nil {
			t.Fatalf("replay to call %d: %v", call, err)
		}
		rows, _ := pop.Dims()
		if before+rows > call {
			return s.Generation(), before, pop
		}
		f = f[:0]
		for i := range rows {
			f = append(f, value(pop.RawRow(i)))
		}
		if err := s.Tell(f); err != nil {
			t.Fatal(err)
		}
		before += rows
	}
}

// faultCheckResume continues s, stopped by a fault, on the faultless
// objective value up to the budget, and checks that the run ends exactly as
// an uninterrupted run of a fresh strategy with the same budget: the
// abandoned generation is asked again and nothing of the run is lost.
func faultCheckResume(t *testing.T, sub faultSubject, cfg Config, s Strategy, value func([]float64) float64, workers, budget int) {
	t.Helper()
	opt := Options{Workers: workers, MaxEvals: budget}
	resumed, err := Minimize(context.Background(), Func(value), s, opt)
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	whole, err := Minimize(context.Background(), Func(value), sub.new(t, cfg), opt)
	if err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	if d := faultSameResult(resumed, whole); d != "" {
		t.Errorf("resumed run differs from the uninterrupted one:\n  %s", d)
	}
}

// faultHash maps a point to 64 well-mixed bits: FNV-1a over the bits of the
// coordinates, keyed by seed, and the SplitMix64 finaliser. The fault a
// point gets is then a function of the point alone, the same whatever the
// order and the worker that evaluates it.
func faultHash(x []float64, seed uint64) uint64 {
	h := 14695981039346656037 ^ seed
	for _, v := range x {
		b := math.Float64bits(v)
		for range 8 {
			h ^= b & 0xff
			h *= 1099511628211
			b >>= 8
		}
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// faultRandomNonFinite returns f with about one point in ten evaluated to
// NaN and one in ten to +Inf, chosen by faultHash.
func faultRandomNonFinite(f func([]float64) float64, seed uint64) func([]float64) float64 {
	return func(x []float64) float64 {
		switch faultHash(x, seed) % 10 {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		}
		return f(x)
	}
}

// TestFaultRandomNonFinite: an objective that returns NaN or +Inf at
// about one point in five does not stop or derail any strategy (NaN and
// +Inf rank last, docs/ALGORITHMS.md Section 13 item 8): every candidate stays
// finite, the run spends its budget or stops by its own criterion, the
// best point is the best finite value returned, every call is counted, and
// the result does not depend on the number of workers.
func TestFaultRandomNonFinite(t *testing.T) {
	const budget = 3000
	before := runtime.NumGoroutine()
	value := faultRandomNonFinite(faultEllipsoid, 0x5eed)
	for _, sub := range faultSubjects(IPOPConfig{}) {
		t.Run(sub.name, func(t *testing.T) {
			cfg := faultConfig()
			if sub.name == "ipop-hees" {
				cfg.TolFun = 1e-4 // restarts within the budget
			}
			var results []Result
			for _, workers := range faultWorkers {
				p := &faultProblem{value: value}
				s := sub.new(t, cfg)
				res, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxEvals: budget})
				if err != nil {
					t.Fatalf("workers=%d: %v", workers, err)
				}
				if res.Reason != ReasonMaxEvals && res.Reason != s.Stop() || res.Reason == ReasonNotFinite {
					t.Errorf("workers=%d: Reason %q (strategy's Stop %q), want the budget or the strategy's own criterion",
						workers, res.Reason, s.Stop())
				}
				calls, returned := p.count()
				if res.Evals != calls || returned != calls || s.Evals() != calls {
					t.Errorf("workers=%d: Result.Evals %d, strategy's Evals %d, objective called %d times (%d returned)",
						workers, res.Evals, s.Evals(), calls, returned)
				}
				if res.Generations != s.Generation() || res.Restarts != restartsOf(s) {
					t.Errorf("workers=%d: Generations %d, Restarts %d; the strategy says %d, %d",
						workers, res.Generations, res.Restarts, s.Generation(), restartsOf(s))
				}
				faultCheckBest(t, res, p, calls)
				if x := p.nonFiniteCandidate(); x != nil {
					t.Errorf("workers=%d: non-finite candidate %v", workers, x)
				}
				// The faults were really injected, and did not derail the
				// search (f(X0) = 384.9).
				var nans, infs int
				for _, c := range p.calls {
					nans += boolInt(math.IsNaN(c.f))
					infs += boolInt(math.IsInf(c.f, 1))
				}
				if nans == 0 || infs == 0 {
					t.Errorf("workers=%d: %d NaN and %d +Inf values among %d calls; the test injects no fault", workers, nans, infs, calls)
				}
				if !(res.F < faultProgress(sub.name)) {
					t.Errorf("workers=%d: best value %g after %d evaluations, want < %g", workers, res.F, res.Evals, faultProgress(sub.name))
				}
				if sub.name == "ipop-hees" && res.Restarts == 0 {
					t.Errorf("workers=%d: no restart; the test does not exercise IPOP's restarts under faults", workers)
				}
				results = append(results, res)
			}
			if d := faultSameResult(results[0], results[1]); d != "" {
				t.Errorf("1 and 4 workers differ:\n  %s", d)
			}
		})
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}

// faultProgress is the value a strategy reaches on faultEllipsoid within
// 3000 evaluations despite the faults of TestFaultRandomNonFinite: 1e-8
// for those that learn the ellipsoid's shape (without faults they reach
// 1e-10 to 1e-14, or 3e-7 for IPOP with TolFun 1e-4), and a thousandth of
// f(X0) for the isotropic (1+1)-ES, which needs many more evaluations at
// condition 1e3 (0.017 without faults; NaN and +Inf count as failures of
// its 1/5 rule and shrink sigma).
func faultProgress(name string) float64 {
	if name == ES11 {
		return faultEllipsoid(faultConfig().X0) / 1e3
	}
	return 1e-8
}

// boolInt is 1 for true and 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFaultMinusInfOnce: an objective that returns -Inf once, at the
// first call or in the middle of a run, stops the run after that
// generation with ReasonMinusInf and no error; the -Inf point is the
// result, the generation was told to the strategy (which stops as well and
// then returns at once), every call is counted, and 1 and 4 workers agree.
// The -Inf point is the point of the k-th call of the run with one worker,
// so that the fault hits the same point with four workers.
func TestFaultMinusInfOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, sub := range faultSubjects(IPOPConfig{}) {
		for _, k := range []int{0, 60} {
			t.Run(fmt.Sprintf("%s/call=%d", sub.name, k), func(t *testing.T) {
				cfg := faultConfig()
				// The point of call k: one worker evaluates the rows in order.
				_, calls0, pop := faultLocate(t, sub.new(t, cfg), faultEllipsoid, k)
				minusAt := slices.Clone(pop.RawRow(k - calls0))
				value := func(x []float64) float64 {
					if sameFloats(x, minusAt) {
						return math.Inf(-1)
					}
					return faultEllipsoid(x)
				}
				var results []Result
				for _, workers := range faultWorkers {
					var once sync.Once
					p := &faultProblem{value: faultEllipsoid, hook: func(_ int, x []float64) (float64, bool) {
						minus := false
						if sameFloats(x, minusAt) {
							once.Do(func() { minus = true })
						}
						return math.Inf(-1), minus
					}}
					s := sub.new(t, cfg)
					res, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxEvals: 10000})
					if err != nil || res.Reason != ReasonMinusInf {
						t.Fatalf("workers=%d: err %v, Reason %q; want nil, %q", workers, err, res.Reason, ReasonMinusInf)
					}
					calls, _ := p.count()
					p.value = value
					faultCheckBest(t, res, p, calls)
					if !math.IsInf(res.F, -1) || !sameFloats(res.X, minusAt) {
						t.Errorf("workers=%d: X %v, F %v; want %v, -Inf", workers, res.X, res.F, minusAt)
					}
					// Whole generations only: the -Inf generation was told.
					if res.Evals != calls || s.Evals() != calls || res.Generations != s.Generation() {
						t.Errorf("workers=%d: Evals %d, Generations %d; objective called %d times, strategy's Evals %d, Generation %d",
							workers, res.Evals, res.Generations, calls, s.Evals(), s.Generation())
					}
					if x, f := s.Best(); s.Stop() != ReasonMinusInf || !math.IsInf(f, -1) || !sameFloats(x, minusAt) {
						t.Errorf("workers=%d: strategy's Stop %q, Best %v %v; want %q, %v, -Inf", workers, s.Stop(), x, f, ReasonMinusInf, minusAt)
					}
					again, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxEvals: calls + 100})
					if n, _ := p.count(); err != nil || again.Reason != ReasonMinusInf || n != calls || !math.IsInf(again.F, -1) {
						t.Errorf("workers=%d: Minimize on the stopped strategy: err %v, Reason %q, F %v, %d new calls",
							workers, err, again.Reason, again.F, n-calls)
					}
					results = append(results, res)
				}
				if d := faultSameResult(results[0], results[1]); d != "" {
					t.Errorf("1 and 4 workers differ:\n  %s", d)
				}
			})
		}
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}

// faultImprovingCall returns the index of the call that evaluates the last
// row of the first generation (after the first) whose other rows hold a
// value below the best of the generations before, and that best; -1 when
// no generation of the first 200 has one (a strategy that asks one row per
// generation).
func faultImprovingCall(t *testing.T, s Strategy, value func([]float64) float64) (call int, bestBefore float64) {
	t.Helper()
	var pop linalg.Dense
	var f []float64
	before := 0
	for g := 0; g < 200; g++ {
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		rows, _ := pop.Dims()
		f = f[:0]
		for i := range rows {
			f = append(f, value(pop.RawRow(i)))
		}
		if _, best := s.Best(); g > 0 && rows > 1 && slices.Min(f[:rows-1]) < best {
			return before + rows - 1, best
		}
		if err := s.Tell(f); err != nil {
			t.Fatal(err)
		}
		before += rows
	}
	return -1, math.Inf(1)
}

// errSimulator is the error the panicking objective panics with.
var errSimulator = errors.New("simulator crashed")

// TestFaultPanic: an objective that panics at its k-th call stops the run
// with ReasonObjectiveError and an *ObjectiveError that names the point,
// its generation and row, wraps the panic's error and carries the stack.
// The result holds the best value of the generations told before, for any
// number of workers: the panicking generation's values do not count (which
// of them were evaluated depends on timing); Result.Evals counts every call
// that returned (the one that panicked returned no value). The abandoned
// generation was not told: continuing the strategy with Minimize ends
// exactly as a run that never panicked. The calls tried are the first,
// one in the middle of the run, and the last row of a generation whose
// other rows improve on the best so far, which must not be in the result.
func TestFaultPanic(t *testing.T) {
	const budget = 600
	before := runtime.NumGoroutine()
	for _, sub := range faultSubjects(IPOPConfig{}) {
		improving, bestBefore := faultImprovingCall(t, sub.new(t, faultConfig()), faultEllipsoid)
		for _, k := range []int{0, 40, improving} {
			if k < 0 {
				continue // one row per generation: nothing returned beside the panic
			}
			t.Run(fmt.Sprintf("%s/call=%d", sub.name, k), func(t *testing.T) {
				cfg := faultConfig()
				gen, calls0, pop := faultLocate(t, sub.new(t, cfg), faultEllipsoid, k)
				rows, _ := pop.Dims()
				for _, workers := range faultWorkers {
					var panicAt []float64
					p := &faultProblem{value: faultEllipsoid, hook: func(call int, x []float64) (float64, bool) {
						if call == k {
							panicAt = slices.Clone(x)
							panic(fmt.Errorf("at call %d: %w", call, errSimulator))
						}
						return 0, false
					}}
					s := sub.new(t, cfg)
					res, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxEvals: budget})
					var oe *ObjectiveError
					if !errors.As(err, &oe) {
						t.Fatalf("workers=%d: err = %v, want an *ObjectiveError", workers, err)
					}
					if !errors.Is(err, errSimulator) {
						t.Errorf("workers=%d: err %v does not wrap the panic's error", workers, err)
					}
					if !sameFloats(oe.X, panicAt) || oe.Generation != gen || oe.Row < 0 || oe.Row >= rows ||
						!sameFloats(pop.RawRow(oe.Row), oe.X) || len(oe.Stack) == 0 {
						t.Errorf("workers=%d: ObjectiveError X %v, Generation %d, Row %d, %d stack bytes; want X %v (row %d of generation %d)",
							workers, oe.X, oe.Generation, oe.Row, len(oe.Stack), panicAt, k-calls0, gen)
					}
					if workers == 1 && oe.Row != k-calls0 {
						t.Errorf("workers=1: Row %d, want %d", oe.Row, k-calls0)
					}
					if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(panicAt)) || !strings.Contains(msg, errSimulator.Error()) {
						t.Errorf("workers=%d: message %q does not name the point %v and the panic", workers, msg, panicAt)
					}
					if res.Reason != ReasonObjectiveError || res.Generations != gen || s.Generation() != gen || s.Evals() != calls0 {
						t.Errorf("workers=%d: Reason %q, Generations %d, strategy's Generation %d and Evals %d; want %q, %d, %d, %d",
							workers, res.Reason, res.Generations, s.Generation(), s.Evals(), ReasonObjectiveError, gen, gen, calls0)
					}
					calls, returned := p.count()
					if returned != calls-1 || res.Evals != returned {
						t.Errorf("workers=%d: Result.Evals %d; objective called %d times, %d returned", workers, res.Evals, calls, returned)
					}
					faultCheckBest(t, res, p, calls0)
					if k == improving && res.F != bestBefore {
						t.Errorf("workers=%d: F %v, want %v, the best before the panicking generation", workers, res.F, bestBefore)
					}
					faultCheckResume(t, sub, cfg, s, faultEllipsoid, workers, budget)
				}
			})
		}
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}

// TestFaultBlockUntilCanceled: an objective that blocks at its k-th call
// until the caller's context is canceled from another goroutine, and then
// returns a value that means nothing (-Inf), stops the run with
// ReasonCanceled and no error; so does an objective that cancels the
// context itself (a shutdown noticed inside the objective). Minimize waits
// for the call; the generation it belongs to is discarded: not told, not
// in the result, but its calls are counted in Result.Evals. Cancellation
// is checked before every evaluation, so with one worker no call starts
// after the k-th. 1 and 4 workers give the same result but for Evals (the
// other workers go on with the generation until they see the cancel). The
// strategy then continues as if nothing had happened. A last case cancels
// from another goroutine while the objective runs freely, at a moment that
// depends on scheduling; the same accounting holds.
func TestFaultBlockUntilCanceled(t *testing.T) {
	const budget = 600
	before := runtime.NumGoroutine()
	for _, sub := range faultSubjects(IPOPConfig{}) {
		for _, c := range []struct {
			how string
			k   int
		}{{"blocked", 0}, {"blocked", 40}, {"canceling", 0}, {"canceling", 40}} {
			t.Run(fmt.Sprintf("%s/%s/call=%d", sub.name, c.how, c.k), func(t *testing.T) {
				k := c.k
				cfg := faultConfig()
				gen, calls0, pop := faultLocate(t, sub.new(t, cfg), faultEllipsoid, k)
				rows, _ := pop.Dims()
				var results []Result
				for _, workers := range faultWorkers {
					ctx, cancel := context.WithCancel(context.Background())
					blocked := make(chan struct{})
					canceled := make(chan struct{})
					go func() {
						defer close(canceled)
						<-blocked
						cancel()
					}()
					p := &faultProblem{value: faultEllipsoid, hook: func(call int, _ []float64) (float64, bool) {
						if call != k {
							return 0, false
						}
						if c.how == "canceling" {
							cancel()
						}
						close(blocked)
						<-ctx.Done()
						return math.Inf(-1), true // means nothing: the run was canceled
					}}
					s := sub.new(t, cfg)
					res, err := Minimize(ctx, p, s, Options{Workers: workers, MaxEvals: budget})
					<-canceled
					if err != nil || res.Reason != ReasonCanceled {
						t.Fatalf("workers=%d: err %v, Reason %q; want nil, %q", workers, err, res.Reason, ReasonCanceled)
					}
					calls, returned := p.count()
					if returned != calls || res.Evals != calls {
						t.Errorf("workers=%d: Result.Evals %d; objective called %d times, %d returned", workers, res.Evals, calls, returned)
					}
					if calls <= k || calls > calls0+rows {
						t.Errorf("workers=%d: %d calls, want %d..%d (up to the end of the canceled generation)", workers, calls, k+1, calls0+rows)
					}
					if workers == 1 && calls != k+1 {
						t.Errorf("workers=1: %d calls started after the cancel, want none", calls-k-1)
					}
					if res.Generations != gen || s.Generation() != gen || s.Evals() != calls0 {
						t.Errorf("workers=%d: Generations %d, strategy's Generation %d and Evals %d; want %d, %d, %d (the canceled generation not told)",
							workers, res.Generations, s.Generation(), s.Evals(), gen, gen, calls0)
					}
					faultCheckBest(t, res, p, calls0)
					faultCheckResume(t, sub, cfg, s, faultEllipsoid, workers, budget)
					results = append(results, res)
				}
				results[0].Evals, results[1].Evals = 0, 0
				if d := faultSameResult(results[0], results[1]); d != "" {
					t.Errorf("1 and 4 workers differ:\n  %s", d)
				}
			})
		}
		t.Run(sub.name+"/async", func(t *testing.T) {
			cfg := faultConfig()
			cfg.TolFun = -1 // no stop by the strategy before the cancel
			for _, workers := range faultWorkers {
				ctx, cancel := context.WithCancel(context.Background())
				started := make(chan struct{})
				canceled := make(chan struct{})
				go func() {
					defer close(canceled)
					<-started
					cancel()
				}()
				var once sync.Once
				p := &faultProblem{value: faultEllipsoid, hook: func(call int, _ []float64) (float64, bool) {
					if call == 30 {
						once.Do(func() { close(started) })
					}
					time.Sleep(20 * time.Microsecond) // a slowish objective
					return 0, false
				}}
				s := sub.new(t, cfg)
				res, err := Minimize(ctx, p, s, Options{Workers: workers, MaxEvals: 1 << 20})
				<-canceled
				if err != nil || res.Reason != ReasonCanceled {
					t.Fatalf("workers=%d: err %v, Reason %q; want nil, %q", workers, err, res.Reason, ReasonCanceled)
				}
				calls, returned := p.count()
				if returned != calls || res.Evals != calls || s.Evals() > calls || res.Generations != s.Generation() {
					t.Errorf("workers=%d: Result.Evals %d, Generations %d; %d calls (%d returned), strategy's Evals %d, Generation %d",
						workers, res.Evals, res.Generations, calls, returned, s.Evals(), s.Generation())
				}
				faultCheckBest(t, res, p, s.Evals())
			}
		})
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}

// TestFaultBlockTimeLimit: an objective that blocks at its k-th call past
// Options.MaxTime stops the run with ReasonTimeLimit and no error once the
// call returns; the generation is discarded as for a cancel, and its calls
// are counted. The block starts a few generations into the run; should the
// machine be so slow that the time limit passes before call k (the hook is
// then never called), only the accounting is checked.
func TestFaultBlockTimeLimit(t *testing.T) {
	const maxTime = 100 * time.Millisecond
	before := runtime.NumGoroutine()
	for _, sub := range faultSubjects(IPOPConfig{}) {
		t.Run(sub.name, func(t *testing.T) {
			const k = 20
			cfg := faultConfig()
			gen, calls0, _ := faultLocate(t, sub.new(t, cfg), faultEllipsoid, k)
			for _, workers := range faultWorkers {
				var start time.Time // of the first call, after Minimize started
				var mu sync.Mutex
				hooked := false
				p := &faultProblem{value: faultEllipsoid, hook: func(call int, _ []float64) (float64, bool) {
					mu.Lock()
					if start.IsZero() {
						start = time.Now()
					}
					first := start
					mu.Unlock()
					if call != k {
						return 0, false
					}
					hooked = true
					// Past the time limit, whatever the machine's load
					// between the start and this call.
					time.Sleep(maxTime + 50*time.Millisecond - time.Since(first))
					return math.Inf(-1), true // too late: the generation is discarded
				}}
				s := sub.new(t, cfg)
				res, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxTime: maxTime})
				if err != nil || res.Reason != ReasonTimeLimit || res.Elapsed < maxTime {
					t.Fatalf("workers=%d: err %v, Reason %q after %v; want nil, %q after %v",
						workers, err, res.Reason, res.Elapsed, ReasonTimeLimit, maxTime)
				}
				calls, returned := p.count()
				if returned != calls || res.Evals != calls || res.Generations != s.Generation() {
					t.Errorf("workers=%d: Result.Evals %d, Generations %d; %d calls (%d returned), strategy's Generation %d",
						workers, res.Evals, res.Generations, calls, returned, s.Generation())
				}
				if !hooked {
					t.Logf("workers=%d: the time limit passed before call %d", workers, k)
				} else if res.Generations != gen || s.Evals() != calls0 {
					t.Errorf("workers=%d: Generations %d, strategy's Evals %d; want %d, %d (the blocked generation not told)",
						workers, res.Generations, s.Evals(), gen, calls0)
				}
				faultCheckBest(t, res, p, s.Evals())
			}
		})
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}

// faultNotFiniteGenerations is the number of generations in a row without
// a finite value after which a run stops (docs/ALGORITHMS.md Section 13 item 8).
const faultNotFiniteGenerations = 10

// TestFaultAllNaN: an objective that never returns a number (NaN, or +Inf,
// everywhere) stops every strategy with ReasonNotFinite after 10
// generations in a row (docs/ALGORITHMS.md Section 13 item 8),
// without an error, without a best point (X nil, F +Inf), with every call
// counted and the same result for 1 and 4 workers. The rejected
// generations leave the mean and, for the full HE-ES, A in place and halve
// sigma. IPOP restarts after each such stop, with the population doubled,
// until its restarts are used up.
func TestFaultAllNaN(t *testing.T) {
	before := runtime.NumGoroutine()
	const restarts = 2
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		for _, sub := range faultSubjects(IPOPConfig{MaxRestarts: restarts}) {
			t.Run(fmt.Sprintf("%v/%s", bad, sub.name), func(t *testing.T) {
				cfg := faultConfig()
				value := func([]float64) float64 { return bad }
				var results []Result
				for _, workers := range faultWorkers {
					p := &faultProblem{value: value}
					s := sub.new(t, cfg)
					res, err := Minimize(context.Background(), p, s, Options{Workers: workers})
					if err != nil || res.Reason != ReasonNotFinite {
						t.Fatalf("workers=%d: err %v, Reason %q; want nil, %q", workers, err, res.Reason, ReasonNotFinite)
					}
					calls, returned := p.count()
					if res.X != nil || !math.IsInf(res.F, 1) || res.Evals != calls || returned != calls || s.Evals() != calls {
						t.Errorf("workers=%d: X %v, F %v, Evals %d, strategy's Evals %d; want nil, +Inf, %d calls",
							workers, res.X, res.F, res.Evals, s.Evals(), calls)
					}
					runs := 1
					if sub.name == "ipop-hees" {
						runs = restarts + 1
						// Each restart doubles the pairs: 2 lambda~ 2^r + 1
						// evaluations per generation of run r.
						pairs, want := defaultPairs(faultDim), 0
						for r := range runs {
							want += faultNotFiniteGenerations * (2*pairs<<r + 1)
						}
						if calls != want {
							t.Errorf("workers=%d: %d calls, want %d over %d runs", workers, calls, want, runs)
						}
					}
					if res.Generations != runs*faultNotFiniteGenerations || res.Restarts != runs-1 {
						t.Errorf("workers=%d: Generations %d, Restarts %d; want %d, %d", workers, res.Generations, res.Restarts, runs*faultNotFiniteGenerations, runs-1)
					}
					if sub.name != "ipop-hees" {
						if m := s.Mean(nil); !sameFloats(m, cfg.X0) {
							t.Errorf("workers=%d: mean moved to %v from %v", workers, m, cfg.X0)
						}
					}
					if sub.name == "hees" || sub.name == "cmaes" {
						var id linalg.Dense
						id.ReuseAs(faultDim, faultDim)
						id.SetIdentity()
						want := cfg.Sigma0
						if want == 0 {
							want = 2
						}
						want = math.Ldexp(want, -faultNotFiniteGenerations)
						if s.Sigma() != want || !sameMatrix(TransformOf(s), &id) {
							t.Errorf("workers=%d: sigma %v, A %v; want %v (halved %d times) and A = I",
								workers, s.Sigma(), TransformOf(s).RawRow(0), want, faultNotFiniteGenerations)
						}
					}
					results = append(results, res)
				}
				if d := faultSameResult(results[0], results[1]); d != "" {
					t.Errorf("1 and 4 workers differ:\n  %s", d)
				}
			})
		}
	}
	goroutinesSettle(t, before) // no goroutine leaked (es/minimize_test.go)
}
