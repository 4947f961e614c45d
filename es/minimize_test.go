package es

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// fakeStrategy is a small (1, lambda)-ES used to test the driver apart from
// the real strategies: generation g asks lambda points m + sigma z with z
// drawn from (seed, g, row), moves the mean to the best finite point and
// shrinks sigma by shrink. It stops with stopReason after stopAt
// generations (0: never) and fails its Tell from generation failTellAt on
// (0: never).
type fakeStrategy struct {
	dim, lambda int
	seed        uint64
	mean        []float64
	sigma       float64
	shrink      float64
	a           *linalg.Dense
	stopAt      int
	stopReason  Reason
	failTellAt  int
	meanFirst   bool // row 0 of every generation is the mean itself

	gen, evals int
	pending    bool
	asked      linalg.Dense
	bestX      []float64
	bestF      float64
}

func newFake(dim, lambda int, seed uint64) *fakeStrategy {
	m := make([]float64, dim)
	for i := range m {
		m[i] = 1
	}
	return &fakeStrategy{
		dim: dim, lambda: lambda, seed: seed, mean: m, sigma: 0.5, shrink: 0.9,
		a: linalg.NewIdentity(dim), bestF: math.Inf(1),
	}
}

func (s *fakeStrategy) Name() string             { return "fake" }
func (s *fakeStrategy) Dim() int                 { return s.dim }
func (s *fakeStrategy) PopulationSize() int      { return s.lambda }
func (s *fakeStrategy) Sigma() float64           { return s.sigma }
func (s *fakeStrategy) Transform() *linalg.Dense { return s.a }
func (s *fakeStrategy) Evals() int               { return s.evals }
func (s *fakeStrategy) Generation() int          { return s.gen }

func (s *fakeStrategy) Mean(dst []float64) []float64 {
	return append(dst[:0], s.mean...)
}

func (s *fakeStrategy) Best() ([]float64, float64) {
	if s.bestX == nil {
		return nil, s.bestF
	}
	return slices.Clone(s.bestX), s.bestF
}

func (s *fakeStrategy) Stop() Reason {
	if s.stopAt > 0 && s.gen >= s.stopAt {
		return s.stopReason
	}
	return ""
}

func (s *fakeStrategy) Ask(pop *linalg.Dense) error {
	if s.Stop() != "" {
		return errors.New("fake: stopped")
	}
	pop.ReuseAs(s.lambda, s.dim)
	key := rng.KeyFromSeed(s.seed)
	for k := range s.lambda {
		st := rng.NewStream(key, 1, uint64(s.gen), uint64(k))
		row := pop.RawRow(k)
		if k == 0 && s.meanFirst {
			copy(row, s.mean)
			continue
		}
		st.FillNormal(row)
		for j := range row {
			row[j] = s.mean[j] + s.sigma*row[j]
		}
	}
	s.asked.CopyFrom(pop)
	s.pending = true
	return nil
}

func (s *fakeStrategy) Tell(f []float64) error {
	switch {
	case !s.pending:
		return errors.New("fake: Tell before Ask")
	case len(f) != s.lambda:
		return fmt.Errorf("fake: %d values for %d rows", len(f), s.lambda)
	case s.failTellAt > 0 && s.gen >= s.failTellAt:
		return errors.New("fake: Tell refused")
	}
	best := -1
	for i, v := range f {
		if !math.IsNaN(v) && !math.IsInf(v, 1) && (best < 0 || v < f[best]) {
			best = i
		}
	}
	if best >= 0 {
		copy(s.mean, s.asked.RawRow(best))
		if f[best] < s.bestF {
			s.bestF = f[best]
			s.bestX = slices.Clone(s.mean)
		}
	}
	s.sigma *= s.shrink
	s.gen++
	s.evals += len(f)
	s.pending = false
	return nil
}

func (s *fakeStrategy) MarshalBinary() ([]byte, error) {
	return nil, errors.New("fake: no state")
}

func (s *fakeStrategy) UnmarshalBinary([]byte) error { return errors.New("fake: no state") }

func sphere(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

// countingProblem counts its evaluations and evaluates f.
type countingProblem struct {
	calls atomic.Int64
	f     func(x []float64) float64
}

func (p *countingProblem) Eval(x []float64) float64 {
	p.calls.Add(1)
	return p.f(x)
}

func ptr(v float64) *float64 { return &v }

func TestMinimizeBudget(t *testing.T) {
	for _, workers := range []int{1, 4} {
		for _, budget := range []int{1, 6, 7, 20, 21} {
			t.Run(fmt.Sprintf("workers=%d/budget=%d", workers, budget), func(t *testing.T) {
				p := &countingProblem{f: sphere}
				s := newFake(3, 7, 1)
				res, err := Minimize(context.Background(), p, s, Options{Workers: workers, MaxEvals: budget})
				if budget < 7 {
					// A budget that fits no generation is an error, not a
					// run that evaluates nothing.
					if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the budget MaxEvals = %d is smaller than the first generation's 7 candidates", budget)) || p.calls.Load() != 0 || res.Reason != ReasonMaxEvals {
						t.Errorf("err %v, %d calls, Reason %q", err, p.calls.Load(), res.Reason)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := budget / 7 * 7 // whole generations only
				if got := int(p.calls.Load()); got != want {
					t.Errorf("objective called %d times, want %d", got, want)
				}
				if res.Evals != want || res.Generations != budget/7 || res.Reason != ReasonMaxEvals {
					t.Errorf("got Evals %d, Generations %d, Reason %q; want %d, %d, %q",
						res.Evals, res.Generations, res.Reason, want, budget/7, ReasonMaxEvals)
				}
			})
		}
	}
}

func TestMinimizeBudgetCountsPastEvaluations(t *testing.T) {
	s := newFake(2, 5, 1)
	if _, err := Minimize(context.Background(), Func(sphere), s, Options{MaxEvals: 10}); err != nil {
		t.Fatal(err)
	}
	p := &countingProblem{f: sphere}
	res, err := Minimize(context.Background(), p, s, Options{MaxEvals: 22})
	if err != nil {
		t.Fatal(err)
	}
	if p.calls.Load() != 10 || res.Evals != 20 || res.Reason != ReasonMaxEvals {
		t.Errorf("second call: %d evaluations, Evals %d, Reason %q; want 10, 20, %q",
			p.calls.Load(), res.Evals, res.Reason, ReasonMaxEvals)
	}
}

func TestMinimizeTarget(t *testing.T) {
	var values []float64
	s := newFake(2, 4, 3)
	res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
		f := sphere(x)
		values = append(values, f)
		return f
	}), s, Options{Target: ptr(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonTarget || res.F > 0.5 {
		t.Fatalf("Reason %q, F %g; want %q and F <= 0.5", res.Reason, res.F, ReasonTarget)
	}
	// The run stops after the first generation that reached the target.
	firstHit := slices.IndexFunc(values, func(f float64) bool { return f <= 0.5 })
	if wantEvals := (firstHit/4 + 1) * 4; res.Evals != wantEvals || len(values) != wantEvals {
		t.Errorf("Evals %d, %d evaluations; want %d", res.Evals, len(values), wantEvals)
	}
	if res.F != slices.Min(values) || sphere(res.X) != res.F {
		t.Errorf("F = %g, sphere(X) = %g, min of values = %g", res.F, sphere(res.X), slices.Min(values))
	}
}

func TestMinimizeStrategyStop(t *testing.T) {
	s := newFake(2, 3, 1)
	s.stopAt, s.stopReason = 5, ReasonTolFun
	res, err := Minimize(context.Background(), Func(sphere), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonTolFun || res.Generations != 5 || res.Evals != 15 {
		t.Errorf("got %q after %d generations, %d evals; want %q, 5, 15", res.Reason, res.Generations, res.Evals, ReasonTolFun)
	}
	// A stopped strategy returns at once with its reason.
	p := &countingProblem{f: sphere}
	res, err = Minimize(context.Background(), p, s, Options{})
	if err != nil || res.Reason != ReasonTolFun || p.calls.Load() != 0 {
		t.Errorf("stopped strategy: err %v, Reason %q, %d evaluations", err, res.Reason, p.calls.Load())
	}
}

func TestMinimizeMinusInf(t *testing.T) {
	var calls int
	var minusAt []float64
	s := newFake(2, 3, 1)
	res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
		calls++
		if calls == 8 {
			minusAt = slices.Clone(x)
			return math.Inf(-1)
		}
		return sphere(x)
	}), s, Options{Target: ptr(-1e300)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonMinusInf || !math.IsInf(res.F, -1) || !slices.Equal(res.X, minusAt) || res.Evals != 9 {
		t.Errorf("got Reason %q, F %g, X %v, Evals %d; want %q, -Inf, %v, 9",
			res.Reason, res.F, res.X, res.Evals, ReasonMinusInf, minusAt)
	}
}

func TestMinimizeNotFiniteValuesArePassedOn(t *testing.T) {
	s := newFake(2, 2, 1)
	s.stopAt, s.stopReason = 3, ReasonTolFun
	res, err := Minimize(context.Background(), Func(func([]float64) float64 { return math.NaN() }), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.X != nil || !math.IsInf(res.F, 1) || res.Evals != 6 || res.Reason != ReasonTolFun {
		t.Errorf("all NaN: X %v, F %g, Evals %d, Reason %q; want nil, +Inf, 6, %q", res.X, res.F, res.Evals, res.Reason, ReasonTolFun)
	}
}

func TestMinimizeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &countingProblem{f: sphere}
	res, err := Minimize(ctx, p, newFake(2, 3, 1), Options{Workers: 2})
	if err != nil || res.Reason != ReasonCanceled || p.calls.Load() != 0 {
		t.Errorf("canceled before start: err %v, Reason %q, %d evaluations", err, res.Reason, p.calls.Load())
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	res, err = Minimize(ctx, Func(sphere), newFake(2, 3, 1), Options{Progress: func(p Progress) {
		if p.Generation == 4 {
			cancel()
		}
	}})
	if err != nil || res.Reason != ReasonCanceled || res.Generations != 4 || res.Evals != 12 {
		t.Errorf("canceled in generation 5: err %v, Reason %q, Generations %d, Evals %d", err, res.Reason, res.Generations, res.Evals)
	}
}

// lateContext is a context whose cancel reaches the contexts derived from
// it only when release is called: it stands for the moment, which exists
// for any context, between the close of a parent's Done channel and the
// cancel of its children.
type lateContext struct {
	context.Context // Background: no deadline, no values
	done            chan struct{}
	err             atomic.Value // error
	mu              sync.Mutex
	after           []func()
}

func newLateContext() *lateContext {
	return &lateContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *lateContext) Done() <-chan struct{} { return c.done }

func (c *lateContext) Err() error {
	err, _ := c.err.Load().(error)
	return err
}

func (c *lateContext) cancel() {
	c.err.Store(context.Canceled)
	close(c.done)
}

// AfterFunc makes context.WithCancel register f here rather than start a
// goroutine that watches Done.
func (c *lateContext) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after = append(c.after, f)
	return func() bool { return false }
}

func (c *lateContext) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.after {
		f()
	}
}

// TestMinimizeCanceledParentFirst: an objective that watches the caller's
// context and returns when it is canceled can do so before the cancel has
// reached the contexts Minimize derived from it. Minimize checks the
// caller's context itself, so no evaluation starts after the cancel and the
// generation it cut short is not told.
func TestMinimizeCanceledParentFirst(t *testing.T) {
	// Generations of 12 rows; the cancel comes at call 15, row 2 of
	// generation 1. The other workers may each finish the call they are in.
	const lambda, cancelAt = 12, 15
	for _, workers := range []int{1, 3} {
		ctx := newLateContext()
		var calls atomic.Int64
		p := Func(func(x []float64) float64 {
			if calls.Add(1) == cancelAt {
				ctx.cancel()
				return math.Inf(-1) // means nothing: the run was canceled
			}
			return sphere(x)
		})
		s := newFake(2, lambda, 1)
		res, err := Minimize(ctx, p, s, Options{Workers: workers, MaxEvals: 300})
		ctx.release()
		if err != nil || res.Reason != ReasonCanceled {
			t.Fatalf("workers=%d: err %v, Reason %q; want nil, %q", workers, err, res.Reason, ReasonCanceled)
		}
		if n := calls.Load(); n < cancelAt || n > int64(cancelAt+workers-1) {
			t.Errorf("workers=%d: %d evaluations, want %d to %d: none started after the cancel",
				workers, n, cancelAt, cancelAt+workers-1)
		}
		if s.Generation() != 1 || math.IsInf(res.F, -1) {
			t.Errorf("workers=%d: strategy in generation %d, best %v; want 1 and the canceled generation not told",
				workers, s.Generation(), res.F)
		}
	}
}

func TestMinimizeTimeLimit(t *testing.T) {
	res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
		time.Sleep(time.Millisecond)
		return sphere(x)
	}), newFake(2, 3, 1), Options{MaxTime: 30 * time.Millisecond})
	if err != nil || res.Reason != ReasonTimeLimit {
		t.Errorf("err %v, Reason %q; want nil, %q", err, res.Reason, ReasonTimeLimit)
	}
	if res.Elapsed < 30*time.Millisecond {
		t.Errorf("stopped after %v, before the limit", res.Elapsed)
	}
}

// goroutinesSettle waits until the number of goroutines is back to want
// (exiting goroutines may still be counted for a moment).
func goroutinesSettle(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

func TestMinimizeObjectivePanics(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			before := runtime.NumGoroutine()
			var (
				mu      sync.Mutex
				calls   int
				values  []float64
				panicAt []float64
			)
			s := newFake(2, 4, 5)
			res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls == 11 {
					panicAt = slices.Clone(x)
					panic("boom")
				}
				f := sphere(x)
				values = append(values, f)
				return f
			}), s, Options{Workers: workers})
			var oe *ObjectiveError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an *ObjectiveError", err)
			}
			if !slices.Equal(oe.X, panicAt) || oe.Value != "boom" || oe.Generation != 2 || len(oe.Stack) == 0 {
				t.Errorf("ObjectiveError X %v Value %v Generation %d; want %v, boom, 2", oe.X, oe.Value, oe.Generation, panicAt)
			}
			if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(panicAt)) || !strings.Contains(msg, "boom") {
				t.Errorf("message %q does not name the point %v and the value", msg, panicAt)
			}
			if res.Reason != ReasonObjectiveError || res.Generations != 2 {
				t.Errorf("Reason %q, Generations %d; want %q, 2", res.Reason, res.Generations, ReasonObjectiveError)
			}
			// The best so far is that of the generations told (4 rows each,
			// the first 8 calls): the abandoned generation's values do not count,
			// since which of them were evaluated depends on timing. Evals
			// counts every call that returned.
			if res.F != slices.Min(values[:8]) || sphere(res.X) != res.F || res.Evals != len(values) {
				t.Errorf("F %g (sphere(X) %g), Evals %d; want %g, %d", res.F, sphere(res.X), res.Evals, slices.Min(values[:8]), len(values))
			}
			goroutinesSettle(t, before)
		})
	}
}

func TestObjectiveErrorLongPoint(t *testing.T) {
	x := make([]float64, 12)
	for i := range x {
		x[i] = float64(i)
	}
	msg := (&ObjectiveError{X: x, Generation: 3, Row: 1, Value: "bad"}).Error()
	want := "es: objective panicked at x = [0 1 2 3 4 5 6 7 8 9 ... (d = 12)] (generation 3, row 1): bad"
	if msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
}

func TestMinimizePanicValueError(t *testing.T) {
	cause := errors.New("cause")
	_, err := Minimize(context.Background(), Func(func([]float64) float64 { panic(cause) }), newFake(2, 2, 1), Options{})
	if !errors.Is(err, cause) {
		t.Errorf("err %v does not wrap the panic's error", err)
	}
}

func TestMinimizeBlockingObjective(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	blocked := make(chan struct{})
	var calls atomic.Int64
	go func() {
		<-blocked
		cancel()
	}()
	s := newFake(3, 6, 1)
	res, err := Minimize(ctx, Func(func(x []float64) float64 {
		if calls.Add(1) == 10 {
			close(blocked)
			<-ctx.Done() // blocks until the run is canceled
			return -1    // a value that means nothing
		}
		return sphere(x)
	}), s, Options{Workers: 4})
	if err != nil || res.Reason != ReasonCanceled {
		t.Fatalf("err %v, Reason %q; want nil, %q", err, res.Reason, ReasonCanceled)
	}
	// The second generation is discarded: not told, and not in the best
	// point, although its evaluations count.
	if _, told := s.Best(); res.Generations != 1 || res.Evals < 10 || res.Evals > 12 || res.F != told {
		t.Errorf("Generations %d, Evals %d, F %g; want 1, 10..12, %g (the first generation's best)", res.Generations, res.Evals, res.F, told)
	}
	goroutinesSettle(t, before)
}

func TestMinimizeStrategyError(t *testing.T) {
	s := newFake(2, 2, 1)
	s.failTellAt = 2
	res, err := Minimize(context.Background(), Func(sphere), s, Options{})
	if err == nil || !strings.Contains(err.Error(), "Tell refused") || res.Reason != ReasonStrategyError {
		t.Errorf("err %v, Reason %q; want the strategy's error and %q", err, res.Reason, ReasonStrategyError)
	}
}

func TestMinimizeBadOptions(t *testing.T) {
	s := newFake(2, 2, 1)
	for _, tc := range []struct {
		p    Problem
		s    Strategy
		opt  Options
		want string
	}{
		{nil, s, Options{}, "nil Problem"},
		{Func(sphere), nil, Options{}, "nil Strategy"},
		{Func(sphere), s, Options{Workers: -1}, "Workers = -1: must be in [0, 4096]"},
		{Func(sphere), s, Options{Workers: MaxWorkers + 1}, "Workers = 4097: must be in [0, 4096]"},
		{Func(sphere), s, Options{MaxEvals: -5}, "MaxEvals = -5"},
		{Func(sphere), s, Options{MaxTime: -time.Second}, "MaxTime = -1s"},
		{Func(sphere), s, Options{Target: ptr(math.NaN())}, "Target is NaN"},
		{Func(sphere), s, Options{Hessian: linalg.NewIdentity(3)}, "Hessian is 3x3, want 2x2"},
		{Func(sphere), s, Options{Trace: &Trace{Interval: -1}}, "Interval = -1"},
	} {
		_, err := Minimize(context.Background(), tc.p, tc.s, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want one containing %q", tc.opt, err, tc.want)
		}
	}
}

// progressLog renders what a Progress callback sees, bit for bit.
func progressLog(log *[]string) func(Progress) {
	return func(p Progress) {
		m := p.Strategy.Mean(nil)
		*log = append(*log, fmt.Sprintf("%d %d %x %x %x %x", p.Generation, p.Evals,
			p.GenerationBest, p.Best, p.Strategy.Sigma(), m))
	}
}

func TestMinimizeWorkersIndependent(t *testing.T) {
	run := func(workers int) (Result, []string) {
		var log []string
		res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
			return sphere(x) + 0.1*math.Sin(10*x[0])
		}), newFake(4, 9, 7), Options{Workers: workers, MaxEvals: 900, Progress: progressLog(&log)})
		if err != nil {
			t.Fatal(err)
		}
		res.Elapsed = 0
		return res, log
	}
	want, wantLog := run(1)
	for _, workers := range []int{2, 3, 8, 20} {
		got, gotLog := run(workers)
		if fmt.Sprintf("%x", got) != fmt.Sprintf("%x", want) {
			t.Errorf("workers=%d: result %x, want %x", workers, got, want)
		}
		if !slices.Equal(gotLog, wantLog) {
			t.Errorf("workers=%d: trajectories differ", workers)
		}
	}
}

// TestMinimizeAllocatesNothingPerGeneration compares the allocations of a
// short and a long run of hees: Minimize allocates only when it starts
// (and the strategy only when it is built), never per generation.
func TestMinimizeAllocatesNothingPerGeneration(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, workers := range []int{1, 2} {
		allocs := func(gens int) float64 {
			return testing.AllocsPerRun(3, func() {
				s, err := New("hees", Config{Dim: 6, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				res, err := Minimize(context.Background(), Func(sphere), s, Options{Workers: workers, MaxEvals: gens * s.PopulationSize()})
				if err != nil || res.Generations != gens {
					t.Fatalf("err %v, %d generations, want %d", err, res.Generations, gens)
				}
			})
		}
		if short, long := allocs(10), allocs(70); long != short {
			t.Errorf("workers=%d: %v allocations for 10 generations, %v for 70", workers, short, long)
		}
	}
}

// TestMinimizeNotFiniteStopsHEES passes NaN and +Inf on to the full HE-ES,
// which stops after 10 generations in a row without a finite value
// (docs/ALGORITHMS.md Section 13 item 8).
func TestMinimizeNotFiniteStopsHEES(t *testing.T) {
	s, err := New("hees", Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	res, err := Minimize(context.Background(), Func(func([]float64) float64 {
		if calls.Add(1)%2 == 0 {
			return math.Inf(1)
		}
		return math.NaN()
	}), s, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonNotFinite || res.Generations != 10 || res.X != nil || !math.IsInf(res.F, 1) {
		t.Errorf("Reason %q after %d generations, X %v, F %g; want %q after 10, nil, +Inf", res.Reason, res.Generations, res.X, res.F, ReasonNotFinite)
	}
}

// TestProgressCandidates checks that Progress hands over each generation's
// candidates and the values told for them, in row order.
func TestProgressCandidates(t *testing.T) {
	s, err := New("hees", Config{Dim: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	gens := 0
	opt := Options{Workers: 3, MaxEvals: 5 * s.PopulationSize(), Progress: func(pr Progress) {
		gens++
		rows, cols := pr.Candidates.Dims()
		if rows != s.PopulationSize() || cols != 4 || len(pr.Values) != rows {
			t.Fatalf("generation %d: %dx%d candidates, %d values", pr.Generation, rows, cols, len(pr.Values))
		}
		for i, v := range pr.Values {
			if want := sphere(pr.Candidates.RawRow(i)); v != want {
				t.Errorf("generation %d row %d: value %v, f(row) = %v", pr.Generation, i, v, want)
			}
		}
	}}
	if _, err := Minimize(context.Background(), Func(sphere), s, opt); err != nil {
		t.Fatal(err)
	}
	if gens != 5 {
		t.Errorf("%d generations reported, want 5", gens)
	}
}

// TestMinimizeStopHook: Options.Stop stops the run after the generation it
// returns a reason for, with that reason; an unknown reason is an error.
func TestMinimizeStopHook(t *testing.T) {
	s := stNew(t, HEES2, Config{Dim: 4, Seed: 2})
	res, err := Minimize(context.Background(), Func(stSphere), s, Options{MaxEvals: 10000,
		Stop: func(pr Progress) Reason {
			if pr.Generation == 7 {
				return ReasonTarget
			}
			return ""
		}})
	if err != nil || res.Reason != ReasonTarget || res.Generations != 7 {
		t.Errorf("stopped at generation 7: %v, reason %q after %d generations", err, res.Reason, res.Generations)
	}
	_, err = Minimize(context.Background(), Func(stSphere), stNew(t, HEES2, Config{Dim: 4}), Options{MaxEvals: 1000,
		Stop: func(Progress) Reason { return "bogus" }})
	if err == nil || !strings.Contains(err.Error(), "Options.Stop") {
		t.Errorf("an unknown reason: %v", err)
	}
}

// TestMinimizeAbandoned: under OnErrorStop, Options.Abandoned hears of the
// generation a failure stopped, with the rows evaluated before it and
// their values, which the Result leaves out.
func TestMinimizeAbandoned(t *testing.T) {
	calls := 0
	p := FuncContext(func(_ context.Context, x []float64) (float64, error) {
		calls++
		if calls == 4 {
			return 0, errors.New("simulated failure")
		}
		return stSphere(x), nil
	})
	var got []float64
	res, err := Minimize(context.Background(), p, stNew(t, HEES2, Config{Dim: 3, Pairs: 4}), Options{MaxEvals: 100,
		Abandoned: func(pop *linalg.Dense, f []float64, evaluated []bool) {
			for i, ok := range evaluated {
				if ok {
					if f[i] != stSphere(pop.RawRow(i)) {
						t.Errorf("row %d: value %v, its point's %v", i, f[i], stSphere(pop.RawRow(i)))
					}
					got = append(got, f[i])
				}
			}
		}})
	if err == nil || res.Reason != ReasonObjectiveError || len(got) != 3 || res.X != nil || res.Evals != 3 {
		t.Errorf("%v, reason %q: %d abandoned values, X %v, %d evaluations", err, res.Reason, len(got), res.X, res.Evals)
	}
}
