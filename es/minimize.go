package es

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/linalg"
)

// Problem is an objective function to minimise.
type Problem interface {
	// Eval returns f(x). With Options.Workers > 1, Minimize calls Eval from
	// several goroutines at once, so it must then be safe for concurrent
	// use. Eval must neither keep nor change x. It may return NaN or ±Inf:
	// NaN and +Inf rank worst (ALGORITHMS.md Section 13 item 8) and -Inf
	// stops the run.
	Eval(x []float64) float64
}

// Func adapts an ordinary function to the Problem interface.
type Func func(x []float64) float64

// Eval calls f(x).
func (f Func) Eval(x []float64) float64 { return f(x) }

// MaxWorkers bounds Options.Workers: each worker is a goroutine with its
// own stack, and more workers than this would rarely find a candidate to
// evaluate.
const MaxWorkers = 4096

// Options control a Minimize run. The zero value means one worker and no
// limit other than the strategy's own stopping criteria.
type Options struct {
	// Workers is the number of goroutines that evaluate a generation's
	// candidates, the calling goroutine included. 0 means 1: evaluation in
	// the calling goroutine alone. The results do not depend on Workers:
	// each value goes back to the strategy by its row index. Handing a
	// generation to the other goroutines costs a few microseconds, so more
	// workers pay only for objectives slower than that. At most
	// MaxWorkers.
	Workers int
	// MaxEvals is the evaluation budget, counted against the strategy's
	// Evals (so a restored strategy brings its past evaluations, and an
	// IPOP wrapper shares one budget across its restarts). 0 means no
	// budget. Because a strategy needs every value of a generation,
	// Minimize never evaluates part of one: it stops with ReasonMaxEvals
	// before a generation whose candidates would exceed the budget, so the
	// objective is never called more than MaxEvals - Evals() times and a
	// few evaluations of the budget may stay unused.
	MaxEvals int
	// Target, when not nil, stops the run with ReasonTarget after the
	// first generation that evaluated a value <= *Target. Nil means no
	// target.
	Target *float64
	// MaxTime limits the wall-clock time of the call. 0 means no limit.
	// When it passes, evaluations under way finish, the generation is
	// abandoned and the run stops with ReasonTimeLimit.
	MaxTime time.Duration
	// Progress, when not nil, is called in the calling goroutine after
	// every generation. A nil Progress costs nothing.
	Progress func(Progress)
	// Trace, when not nil, receives a row after every generation (see
	// Trace for the columns and the cost).
	Trace *Trace
	// Hessian is the Hessian H of the objective when it is known (a
	// quadratic); the trace then also reports cond and normalised trace of
	// A^T H A (ALGORITHMS.md Section 13 item 6). It must be Dim x Dim. Nil
	// means unknown. Only the trace uses it.
	Hessian *linalg.Dense
}

// Progress describes the state of a run after one generation.
type Progress struct {
	// Strategy is the strategy being run. Read it; do not call Ask or Tell.
	Strategy Strategy
	// Generation and Evals are the strategy's counts after the generation.
	Generation, Evals int
	// GenerationBest is the smallest value of the generation (NaN if all
	// its values were NaN).
	GenerationBest float64
	// Best is the best value found so far.
	Best float64
	// Restarts is the number of restarts so far (0 for a strategy without
	// restarts).
	Restarts int
	// Elapsed is the wall-clock time since Minimize started.
	Elapsed time.Duration
}

// Result is the outcome of Minimize.
type Result struct {
	// X is the best point found (nil when no value below +Inf was found)
	// and F its value (+Inf then).
	X []float64
	F float64
	// Evals counts objective evaluations: those told to the strategy over
	// its whole life (a restored strategy includes its past), plus those
	// of a generation abandoned by a stop (cancel, time limit, panic)
	// that returned a value, which the strategy never saw. A call that
	// panicked returned no value and is not counted.
	Evals int
	// Generations is the strategy's number of completed generations.
	Generations int
	// Reason says why the run stopped; it is never empty.
	Reason Reason
	// Restarts is the number of restarts of a restarting strategy (IPOP),
	// 0 otherwise.
	Restarts int
	// Elapsed is the wall-clock time of the call. Two runs with the same
	// seed and options differ only in Elapsed, unless they stop by the time
	// limit or a cancel, which depend on timing.
	Elapsed time.Duration
}

// ObjectiveError reports a panic of the objective function.
type ObjectiveError struct {
	// X is a copy of the point whose evaluation panicked.
	X []float64
	// Generation is the strategy's generation and Row the candidate's row.
	Generation, Row int
	// Value is the value passed to panic.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

// Error names the point (its first 10 coordinates when there are more) and
// the panic value.
func (e *ObjectiveError) Error() string {
	x := fmt.Sprint(e.X)
	if len(e.X) > 10 {
		x = fmt.Sprintf("%v ... (d = %d)]", strings.TrimSuffix(fmt.Sprint(e.X[:10]), "]"), len(e.X))
	}
	return fmt.Sprintf("es: objective panicked at x = %s (generation %d, row %d): %v",
		x, e.Generation, e.Row, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *ObjectiveError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ReasonStrategyError: the strategy rejected an Ask or a Tell of the driver
// (a bug, reported with the error). The string is stable like the others.
const ReasonStrategyError Reason = "strategy error"

// restarter is implemented by strategies that restart (IPOP).
type restarter interface {
	Restarts() int
}

// restartsOf reports the restart count of s, 0 for a strategy that does not
// restart.
func restartsOf(s Strategy) int {
	if r, ok := s.(restarter); ok {
		return r.Restarts()
	}
	return 0
}

// Minimize runs strategy s on problem p until a stopping criterion fires,
// and returns the best point found.
//
// Each generation, Minimize asks s for its candidates, evaluates them with
// opt.Workers goroutines and tells s the values in row order, so the run is
// bit-identical for any number of workers. It stops, checking in this order,
// when a value is -Inf (ReasonMinusInf), a value reaches opt.Target
// (ReasonTarget), the strategy's Stop fires (its reason), the next
// generation would exceed opt.MaxEvals (ReasonMaxEvals), or ctx is canceled
// (ReasonCanceled) or opt.MaxTime passes (ReasonTimeLimit). Cancellation and
// the time limit are checked before every evaluation; evaluations under way
// are waited for (an objective that may block should watch ctx itself), and
// a generation during which ctx was canceled is discarded: it is not told to
// the strategy and its values do not count for the best point. These are
// normal stops: err is nil and Result.Reason names them.
//
// The error is non-nil when the options are invalid, when the strategy
// rejects an Ask or Tell, and when the objective panics: the panic becomes
// an *ObjectiveError naming the point, Result.Reason is
// ReasonObjectiveError, and the Result holds the best point found before,
// including the values of the panicking generation that were returned.
// Minimize's goroutines have all exited when it returns.
//
// s can be a fresh or a restored strategy; Minimize continues from its
// state, and a strategy that has stopped returns at once with its reason.
func Minimize(ctx context.Context, p Problem, s Strategy, opt Options) (Result, error) {
	start := time.Now()
	res := Result{F: math.Inf(1)}
	if err := checkOptions(p, s, opt); err != nil {
		return res, err
	}
	workers := max(opt.Workers, 1)

	parent := ctx
	if opt.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.MaxTime)
		defer cancel()
	}
	ev := &evaluator{problem: p, ctx: ctx, generation: s.Generation()}
	if workers > 1 {
		ev.startWorkers(workers - 1) // the calling goroutine is the last worker
		defer ev.stopWorkers()
	}

	res.X, res.F = s.Best()
	if res.X == nil {
		res.X = make([]float64, s.Dim())
	}
	var (
		abandoned int       // evaluations of a generation not told
		mean      []float64 // m_t before Ask, kept only for the trace
	)
	finish := func(reason Reason) Result {
		res.Reason = reason
		res.Evals = s.Evals() + abandoned
		res.Generations = s.Generation()
		res.Restarts = restartsOf(s)
		if math.IsInf(res.F, 1) { // no value below +Inf was found
			res.X = nil
		}
		res.Elapsed = time.Since(start)
		return res
	}

	for {
		if reason := s.Stop(); reason != "" {
			return finish(reason), nil
		}
		if opt.Trace != nil {
			mean = s.Mean(mean)
		}
		if err := s.Ask(&ev.pop); err != nil {
			return finish(ReasonStrategyError), fmt.Errorf("es: Minimize: %w", err)
		}
		rows, _ := ev.pop.Dims()
		if opt.MaxEvals > 0 && s.Evals()+rows > opt.MaxEvals {
			return finish(ReasonMaxEvals), nil
		}
		if ctx.Err() != nil {
			return finish(haltReason(parent)), nil
		}

		ev.generation = s.Generation()
		complete := ev.evaluate(rows, workers)
		if ev.panicked != nil {
			// The other values returned normally and count for the
			// best so far; the generation is not told.
			ev.updateBest(&res, opt.Target)
			abandoned = ev.count
			return finish(ReasonObjectiveError), ev.panicked
		}
		if !complete || ctx.Err() != nil {
			// Cut short by a cancel or the time limit: an objective
			// that watches ctx may have returned values that mean
			// nothing, so the whole generation is discarded.
			abandoned = ev.count
			return finish(haltReason(parent)), nil
		}
		genBest, minusInf, reached := ev.updateBest(&res, opt.Target)
		if err := s.Tell(ev.f[:rows]); err != nil {
			return finish(ReasonStrategyError), fmt.Errorf("es: Minimize: %w", err)
		}
		if opt.Trace != nil {
			fMean, meanKnown := meanValue(mean, &ev.pop, ev.f)
			opt.Trace.record(s, fMean, meanKnown, genBest, res.F, opt.Hessian)
		}
		if opt.Progress != nil {
			opt.Progress(Progress{
				Strategy:       s,
				Generation:     s.Generation(),
				Evals:          s.Evals(),
				GenerationBest: genBest,
				Best:           res.F,
				Restarts:       restartsOf(s),
				Elapsed:        time.Since(start),
			})
		}
		if minusInf {
			return finish(ReasonMinusInf), nil
		}
		if reached {
			return finish(ReasonTarget), nil
		}
	}
}

// updateBest folds the values evaluated in the last generation into the best
// so far (res.X, res.F), scanning the rows in order so that ties go to the
// lowest row whatever the order of evaluation. It returns the generation's
// smallest value (NaN when none is a number), whether a value is -Inf and
// whether one is at or below the target.
func (e *evaluator) updateBest(res *Result, target *float64) (genBest float64, minusInf, reached bool) {
	genBest = math.NaN()
	for i, ok := range e.evaluated {
		if !ok {
			continue
		}
		f := e.f[i]
		if math.IsNaN(genBest) || f < genBest {
			genBest = f
		}
		if f < res.F {
			res.F = f
			copy(res.X, e.pop.RawRow(i))
		}
		minusInf = minusInf || math.IsInf(f, -1)
		reached = reached || (target != nil && f <= *target)
	}
	return genBest, minusInf, reached
}

// checkOptions validates the arguments of Minimize.
func checkOptions(p Problem, s Strategy, opt Options) error {
	switch {
	case p == nil:
		return errors.New("es: Minimize: nil Problem")
	case s == nil:
		return errors.New("es: Minimize: nil Strategy")
	case isUnsetIPOP(s):
		return fmt.Errorf("es: Minimize: %w", errZeroIPOP)
	case opt.Workers < 0 || opt.Workers > MaxWorkers:
		return fmt.Errorf("es: Minimize: Options.Workers = %d: must be in [0, %d]", opt.Workers, MaxWorkers)
	case opt.MaxEvals < 0:
		return fmt.Errorf("es: Minimize: Options.MaxEvals = %d is negative", opt.MaxEvals)
	case opt.MaxTime < 0:
		return fmt.Errorf("es: Minimize: Options.MaxTime = %v is negative", opt.MaxTime)
	case opt.Target != nil && math.IsNaN(*opt.Target):
		return errors.New("es: Minimize: Options.Target is NaN")
	}
	if opt.Hessian != nil {
		r, c := opt.Hessian.Dims()
		if d := s.Dim(); r != d || c != d {
			return fmt.Errorf("es: Minimize: Options.Hessian is %dx%d, want %dx%d (the strategy's Dim)", r, c, d, d)
		}
	}
	if opt.Trace != nil && opt.Trace.Interval < 0 {
		return fmt.Errorf("es: Minimize: Trace.Interval = %d is negative", opt.Trace.Interval)
	}
	return nil
}

// haltReason tells a cancellation of the caller's context from the time
// limit once the context halted the evaluation.
func haltReason(parent context.Context) Reason {
	if parent.Err() != nil {
		return ReasonCanceled
	}
	return ReasonTimeLimit
}

// meanValue returns f(m_t) when row 0 of the generation is the mean m_t
// itself (the full HE-ES evaluates its mean every generation, ALGORITHMS.md
// Section 4 step 4; the elitist strategies ask their initial mean alone in
// generation 0).
func meanValue(mean []float64, pop *linalg.Dense, f []float64) (float64, bool) {
	if rows, _ := pop.Dims(); rows == 0 {
		return 0, false
	}
	row := pop.RawRow(0)
	for j, m := range mean {
		if math.Float64bits(row[j]) != math.Float64bits(m) {
			return 0, false
		}
	}
	return f[0], true
}

// evaluator evaluates the rows of a population in the calling goroutine,
// helped by a pool of workers; all claim rows through an atomic counter.
type evaluator struct {
	problem    Problem
	ctx        context.Context // the run's: the caller's with the time limit
	pop        linalg.Dense
	f          []float64
	evaluated  []bool
	generation int // for the panic report

	rows  int
	next  atomic.Int64 // next row to claim
	count int          // rows evaluated in the last generation
	halt  atomic.Bool  // set by a panic

	mu       sync.Mutex // guards panicked
	panicked *ObjectiveError

	start   chan struct{}  // one token per helping worker and generation
	genDone sync.WaitGroup // the workers' share of one generation
	exited  sync.WaitGroup // the workers' goroutines
}

// startWorkers starts n goroutines that wait for generations.
func (e *evaluator) startWorkers(n int) {
	e.start = make(chan struct{})
	e.exited.Add(n)
	for range n {
		go func() {
			defer e.exited.Done()
			for range e.start {
				e.claimRows()
				e.genDone.Done()
			}
		}()
	}
}

// stopWorkers ends the worker goroutines and waits until they have exited.
func (e *evaluator) stopWorkers() {
	close(e.start)
	e.exited.Wait()
}

// evaluate computes the values of the first rows of e.pop into e.f and
// reports whether every row was evaluated (false after a halt or a panic).
func (e *evaluator) evaluate(rows, workers int) bool {
	if cap(e.f) < rows {
		e.f = make([]float64, rows)
		e.evaluated = make([]bool, rows)
	}
	e.f = e.f[:rows]
	e.evaluated = e.evaluated[:rows]
	clear(e.evaluated)
	e.rows = rows
	e.next.Store(0)
	helpers := min(workers, rows) - 1 // goroutines besides the caller
	e.genDone.Add(helpers)
	for range helpers {
		e.start <- struct{}{}
	}
	e.claimRows()
	e.genDone.Wait()
	e.count = 0
	for _, ok := range e.evaluated {
		if ok {
			e.count++
		}
	}
	return e.count == rows
}

// claimRows evaluates rows until none is left or the run is halted. The
// context is checked before every evaluation (an atomic load), so that no
// evaluation starts after a cancel or the time limit.
func (e *evaluator) claimRows() {
	for !e.halt.Load() && e.ctx.Err() == nil {
		i := int(e.next.Add(1) - 1)
		if i >= e.rows {
			return
		}
		e.evalRow(i)
	}
}

// evalRow evaluates row i, turning a panic of the objective into an
// ObjectiveError and halting the generation.
func (e *evaluator) evalRow(i int) {
	x := e.pop.RawRow(i)
	defer func() {
		if v := recover(); v != nil {
			e.mu.Lock()
			if e.panicked == nil {
				e.panicked = &ObjectiveError{
					X:          append([]float64(nil), x...),
					Generation: e.generation,
					Row:        i,
					Value:      v,
					Stack:      debug.Stack(),
				}
			}
			e.mu.Unlock()
			e.halt.Store(true)
		}
	}()
	e.f[i] = e.problem.Eval(x)
	e.evaluated[i] = true
}
