package es

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMinimizeContextError checks that an error of EvalContext stops the
// run like a panic: an *ObjectiveError that wraps the error and names the
// point, ReasonObjectiveError, and the best point of the generations told
// (the failing generation's values do not count).
func TestMinimizeContextError(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cause := errors.New("simulation diverged")
			var (
				mu     sync.Mutex
				calls  int
				values []float64
				failAt []float64
			)
			res, err := Minimize(context.Background(), FuncContext(func(_ context.Context, x []float64) (float64, error) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls == 11 {
					failAt = slices.Clone(x)
					return 0, cause
				}
				f := sphere(x)
				values = append(values, f)
				return f, nil
			}), newFake(2, 4, 5), Options{Workers: workers})
			var oe *ObjectiveError
			if !errors.As(err, &oe) || !errors.Is(err, cause) {
				t.Fatalf("err = %v, want an *ObjectiveError wrapping the cause", err)
			}
			if !slices.Equal(oe.X, failAt) || oe.Value != nil || oe.Stack != nil || oe.Generation != 2 {
				t.Errorf("ObjectiveError %+v; want X %v, generation 2, no panic value", oe, failAt)
			}
			want := fmt.Sprintf("es: objective failed at x = %v (generation 2, row %d): simulation diverged", failAt, oe.Row)
			if err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
			if res.Reason != ReasonObjectiveError || res.Generations != 2 || res.Evals != len(values) || res.F != slices.Min(values[:8]) {
				t.Errorf("Reason %q, Generations %d, Evals %d, F %g; want %q, 2, %d, %g",
					res.Reason, res.Generations, res.Evals, res.F, ReasonObjectiveError, len(values), slices.Min(values[:8]))
			}
		})
	}
}

// blockUntilCanceled is an evaluation that never returns on its own: it
// returns the error of its context once that is canceled.
func blockUntilCanceled(ctx context.Context) (float64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestMinimizeCancelsEvaluations checks that Minimize cancels the context
// of the evaluations in progress when it stops: after a failure of another
// evaluation, and when MaxTime passes; the errors the cancel causes are not
// failures.
func TestMinimizeCancelsEvaluations(t *testing.T) {
	before := runtime.NumGoroutine()
	cause := errors.New("crash")
	start := time.Now()
	var calls atomic.Int64
	res, err := Minimize(context.Background(), FuncContext(func(ctx context.Context, _ []float64) (float64, error) {
		if calls.Add(1) == 1 {
			time.Sleep(10 * time.Millisecond) // the other workers are blocked by now
			return 0, cause
		}
		return blockUntilCanceled(ctx)
	}), newFake(2, 8, 1), Options{Workers: 8})
	if !errors.Is(err, cause) || res.Reason != ReasonObjectiveError || res.Evals != 0 {
		t.Errorf("err %v, Reason %q, Evals %d; want the crash, %q, 0", err, res.Reason, res.Evals, ReasonObjectiveError)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the failure took %v to stop the run", took)
	}

	start = time.Now()
	res, err = Minimize(context.Background(), FuncContext(func(ctx context.Context, _ []float64) (float64, error) {
		return blockUntilCanceled(ctx)
	}), newFake(2, 4, 1), Options{Workers: 2, MaxTime: 50 * time.Millisecond})
	if err != nil || res.Reason != ReasonTimeLimit || res.Evals != 0 {
		t.Errorf("err %v, Reason %q, Evals %d; want nil, %q, 0", err, res.Reason, res.Evals, ReasonTimeLimit)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("MaxTime 50ms: the run took %v", took)
	}
	goroutinesSettle(t, before)
}

// TestFuncContextEval checks that a FuncContext passed where a Problem is
// expected evaluates, and panics with its error.
func TestFuncContextEval(t *testing.T) {
	cause := errors.New("no")
	f := FuncContext(func(_ context.Context, x []float64) (float64, error) {
		if x[0] < 0 {
			return 0, cause
		}
		return x[0], nil
	})
	if v := f.Eval([]float64{2}); v != 2 {
		t.Errorf("Eval = %g, want 2", v)
	}
	defer func() {
		if v := recover(); v != cause {
			t.Errorf("recovered %v, want the error", v)
		}
	}()
	f.Eval([]float64{-1})
}
