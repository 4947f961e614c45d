package es

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
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
	// NaN and +Inf rank worst (docs/ALGORITHMS.md Section 13 item 8) and -Inf
	// stops the run.
	Eval(x []float64) float64
}

// Func adapts an ordinary function to the Problem interface.
type Func func(x []float64) float64

// Eval calls f(x).
func (f Func) Eval(x []float64) float64 { return f(x) }

// ProblemContext is an objective whose evaluation can fail and be canceled,
// such as a simulation in another process. Minimize evaluates a Problem
// that also implements ProblemContext with EvalContext.
type ProblemContext interface {
	// EvalContext returns f(x), or an error when the evaluation failed; a
	// failure is handled by Options.OnError and Options.Retries (by
	// default it stops Minimize with ReasonObjectiveError and an
	// *ObjectiveError that wraps the error). ctx is canceled when the run
	// stops (a cancel, the time limit, another evaluation's failure):
	// EvalContext should then return promptly, with any error, which is
	// not taken for a failure. The rules of Problem.Eval about
	// concurrency, x and the values apply.
	EvalContext(ctx context.Context, x []float64) (float64, error)
}

// FuncContext adapts a function that can fail to ProblemContext. It is
// also a Problem, so that it can be passed to Minimize.
type FuncContext func(ctx context.Context, x []float64) (float64, error)

// EvalContext calls f(ctx, x).
func (f FuncContext) EvalContext(ctx context.Context, x []float64) (float64, error) {
	return f(ctx, x)
}

// Eval calls f with a background context and panics with its error, for
// callers that know only Problem; Minimize calls EvalContext instead.
func (f FuncContext) Eval(x []float64) float64 {
	v, err := f(context.Background(), x)
	if err != nil {
		panic(err)
	}
	return v
}

// KeyedProblem is an objective whose value also depends on a key that the
// caller supplies, such as a noisy test function that draws its noise from
// the key (objectives.Noisy). Minimize evaluates a Problem that also
// implements KeyedProblem, and not ProblemContext, with EvalKeyed, passing
// as key the number of the evaluation in the run: the strategy's Evals()
// before the generation (or the batch of known points) plus the row index.
// Keys are therefore distinct within a run, and a candidate's key depends
// neither on Workers nor on the order of evaluation: a restored strategy
// gives its next generation the keys the run would have given it without
// the interruption. The rules of Problem.Eval about concurrency, x and the
// values apply.
type KeyedProblem interface {
	EvalKeyed(x []float64, key uint64) float64
}

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
	// first generation that evaluated a value <= *Target (for a
	// Recommender, whose recommendation's estimated value is <= *Target;
	// Limits.Target). Nil means no target.
	Target *float64
	// MaxTime limits the wall-clock time of the call. 0 means no limit.
	// When it passes, no evaluation starts, the context of the evaluations
	// in progress of a ProblemContext is canceled (as by a cancel of ctx;
	// the objective should return at once, so that the call ends about
	// MaxTime after it started), the Eval calls of a plain Problem in
	// progress are waited for, the generation is abandoned and the run
	// stops with ReasonTimeLimit.
	MaxTime time.Duration
	// Progress, when not nil, is called in the calling goroutine after
	// every generation, and after the batch of known points of Inject
	// (Progress.Injected). A nil Progress costs nothing.
	Progress func(Progress)
	// Stop, when not nil, is asked in the calling goroutine after every
	// generation and batch of known points, after Progress: a reason it
	// returns (one of Reasons(); "" goes on) stops the run with it. It
	// stops a run on what the strategy does not see, such as the
	// noise-free value of a noisy test problem reaching its target.
	Stop func(Progress) Reason
	// Abandoned, when not nil, is called in the calling goroutine with a
	// generation that a failed evaluation stopped (under OnErrorStop): its
	// candidates, the values of the rows evaluated before the stop and
	// which rows those are (the matrix and slices are the run's: copy what
	// you keep). Their values count for no best point, since which rows
	// were evaluated depends on Workers and timing; this is where a caller
	// keeps them (hees run -log writes them as rows of status
	// "abandoned").
	Abandoned func(pop *linalg.Dense, f []float64, evaluated []bool)
	// Trace, when not nil, receives a row after every generation (see
	// Trace for the columns and the cost), none for the batch of Inject.
	Trace *Trace
	// OnError is the failure policy for an evaluation of a ProblemContext
	// that returns an error (after Retries): OnErrorStop (the zero value)
	// stops the run, OnErrorWorst ranks the point worst and goes on
	// (docs/ALGORITHMS.md Section 15). A panic always stops the run.
	OnError OnError
	// Retries is how many times a failed evaluation is tried again, in the
	// same worker and at once, before OnError applies; 0 means none. A
	// retry is a new call of EvalContext with the same point (an external
	// program's pool can restart the program for it, see extproc).
	Retries int
	// MaxFailures stops a run with OnErrorWorst with ReasonTooManyFailures
	// after that many failed points in a row, counted in row order across
	// generations (so the count does not depend on Workers); 0 means
	// DefaultMaxFailures, a negative value no limit.
	MaxFailures int
	// Inject lists known points to evaluate before the strategy's first
	// generation of this call, as one batch (Run.Inject; what each strategy
	// does with them is in docs/ALGORITHMS.md Section 16). Nil means none.
	Inject [][]float64
	// Hessian is the Hessian H of the objective when it is known (a
	// quadratic); the trace then also reports cond and normalised trace of
	// A^T H A (docs/ALGORITHMS.md Section 13 item 6). It must be Dim x Dim. Nil
	// means unknown. Only the trace uses it.
	Hessian *linalg.Dense
}

// OnError is a policy for failed evaluations (Options.OnError), the one
// vocabulary of the library, the command line and the saved runs: its
// words are "stop" and "nan" (ParseOnError, Word).
type OnError string

// The failure policies. The constants' strings are stable: saved runs of
// older versions hold them.
const (
	// OnErrorStop stops the run at the first failed point with
	// ReasonObjectiveError and an *ObjectiveError (the zero value; its
	// word is "stop").
	OnErrorStop OnError = ""
	// OnErrorWorst tells a failed point to the strategy as NaN, which
	// ranks worst: it counts as an evaluation and the run goes on (its
	// word is "nan").
	OnErrorWorst OnError = "worst"
)

// ParseOnError returns the failure policy called word: "stop" or "nan",
// the words of the command line, or the constants' own strings ("" and
// "worst"), which older saved runs hold. Anything else is an error that
// names the words.
func ParseOnError(word string) (OnError, error) {
	switch word {
	case "stop", string(OnErrorStop):
		return OnErrorStop, nil
	case "nan", string(OnErrorWorst):
		return OnErrorWorst, nil
	}
	return OnErrorStop, fmt.Errorf("on-error %q: want stop or nan", word)
}

// Word returns the word of the policy: "stop" or "nan" (for a value that
// is neither constant, its string).
func (o OnError) Word() string {
	switch o {
	case OnErrorStop:
		return "stop"
	case OnErrorWorst:
		return "nan"
	}
	return string(o)
}

// MarshalText writes the policy's word, so that saved runs hold the words
// of the command line.
func (o OnError) MarshalText() ([]byte, error) {
	if _, err := ParseOnError(string(o)); err != nil {
		return nil, fmt.Errorf("es: %w", err)
	}
	return []byte(o.Word()), nil
}

// UnmarshalText reads a word or a constant's string (ParseOnError).
func (o *OnError) UnmarshalText(text []byte) error {
	v, err := ParseOnError(string(text))
	if err != nil {
		return fmt.Errorf("es: %w", err)
	}
	*o = v
	return nil
}

// DefaultMaxFailures is the number of failed points in a row after which a
// run with OnErrorWorst stops (Options.MaxFailures 0).
const DefaultMaxFailures = 50

// MaxRetries bounds Options.Retries, and the retries of every failure
// policy of hees (the command line, the ask/tell state and its workers).
const MaxRetries = 1000

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
	// Stop is the reason the run stops right after this generation, a
	// value of -Inf or the target, and "" when it goes on.
	Stop Reason
	// Candidates holds the generation's candidates, one per row, and
	// Values their values in row order, as told to the strategy. Both
	// belong to the run: read them during the call only.
	Candidates *linalg.Dense
	Values     []float64
	// Failed marks, by row, the candidates whose evaluation failed and that
	// were told as NaN (Options.OnErrorWorst); nil when none failed. It
	// belongs to the run like Candidates.
	Failed []bool
	// Injected says that the batch was the known points of Options.Inject
	// (Run.Inject), no generation of the strategy: Generation is then
	// unchanged, the count of the generation the batch came before.
	Injected bool
}

// Result is the outcome of Minimize.
type Result struct {
	// X is the best point found (nil when no value below +Inf was found)
	// and F its value (+Inf then): the best single evaluation.
	X []float64
	F float64
	// Evals counts objective evaluations: those told to the strategy over
	// its whole life (a restored strategy includes its past), plus those
	// of a generation abandoned by a stop (cancel, time limit, failed
	// evaluation) that returned a value, which the strategy never saw. A
	// call that panicked or returned an error returned no value and is not
	// counted.
	Evals int
	// Generations is the strategy's number of completed generations.
	Generations int
	// Reason says why the run stopped; it is never empty.
	Reason Reason
	// Restarts is the number of restarts of a restarting strategy (IPOP),
	// 0 otherwise.
	Restarts int
	// Doublings is the number of times a NoiseHandler doubled the
	// population (NoiseHandler.Doublings), 0 for another strategy.
	Doublings int
	// Recommendation is the point the strategy recommends apart from X,
	// with its estimated value: a NoiseHandler's mean (Recommender). On a
	// noisy objective X and F are the luckiest single evaluation, the
	// Recommendation is the point to use. Its X is nil for the strategies
	// without one.
	Recommendation Recommendation
	// Failures is the number of points of this call whose evaluation
	// failed (after Options.Retries) and that were told as NaN under
	// OnErrorWorst; they are counted in Evals.
	Failures int
	// Elapsed is the wall-clock time of the call. Two runs with the same
	// seed and options differ only in Elapsed, unless they stop by the time
	// limit or a cancel, which depend on timing.
	Elapsed time.Duration
}

// ObjectiveError reports a failed evaluation of the objective function: an
// error of ProblemContext.EvalContext, or a panic.
type ObjectiveError struct {
	// X is a copy of the point whose evaluation failed.
	X []float64
	// Generation is the strategy's generation and Row the candidate's row.
	Generation, Row int
	// Err is the error EvalContext returned; nil for a panic.
	Err error
	// Value is the value passed to panic; nil for an error.
	Value any
	// Stack is the goroutine's stack at the panic; nil for an error.
	Stack []byte
}

// Error names the point (its first 10 coordinates when there are more) and
// the error or the panic value.
func (e *ObjectiveError) Error() string {
	x := fmt.Sprint(e.X)
	if len(e.X) > 10 {
		x = fmt.Sprintf("%v ... (d = %d)]", strings.TrimSuffix(fmt.Sprint(e.X[:10]), "]"), len(e.X))
	}
	if e.Err != nil {
		return fmt.Sprintf("es: objective failed at x = %s (generation %d, row %d): %v",
			x, e.Generation, e.Row, e.Err)
	}
	return fmt.Sprintf("es: objective panicked at x = %s (generation %d, row %d): %v",
		x, e.Generation, e.Row, e.Value)
}

// Unwrap returns Err, or the panic value when it is an error.
func (e *ObjectiveError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	err, _ := e.Value.(error)
	return err
}

// Minimize runs strategy s on problem p until a stopping criterion fires,
// and returns the best point found.
//
// Each generation, Minimize asks s for its candidates, evaluates them with
// opt.Workers goroutines and tells s the values in row order, so the run is
// bit-identical for any number of workers. It stops, checking in this order,
// when a value is -Inf (ReasonMinusInf), a value (for a Recommender, its
// recommendation's estimate) reaches opt.Target (ReasonTarget), the
// strategy's Stop fires (its reason), the next
// generation would exceed opt.MaxEvals (ReasonMaxEvals), or ctx is canceled
// (ReasonCanceled) or opt.MaxTime passes (ReasonTimeLimit); a Run applies
// these rules, which a caller who evaluates the candidates elsewhere can use
// alone. Cancellation and the time limit are checked before every
// evaluation. A generation during which ctx was canceled, or that ended
// past the time limit, is discarded: it is not told to the strategy and
// its values do not count for the best point.
// These are normal stops: err is nil and Result.Reason names them.
//
// When p implements ProblemContext, Minimize calls EvalContext instead of
// Eval, with a context that it cancels as soon as the run stops for any
// reason (a cancel of ctx, the time limit, a failed or panicking
// evaluation), so that evaluations in progress end at once; the Eval of a
// plain Problem cannot be interrupted and is waited for.
//
// The error is non-nil when the options are invalid, when the strategy
// rejects an Ask or Tell, and when an evaluation fails (EvalContext returns
// an error, after opt.Retries more tries, under OnErrorStop) or panics:
// this becomes an *ObjectiveError naming the point, Result.Reason is
// ReasonObjectiveError, and the Result holds the best point of the
// generations told before; the failing generation's values do not count,
// so that X and F do not depend on Workers (Evals counts its calls that
// returned, which does). Under OnErrorWorst a failed point is told as NaN
// and the run goes on, until opt.MaxFailures points in a row have failed
// (ReasonTooManyFailures, with the last failure as the error);
// docs/ALGORITHMS.md Section 15 states the rules. Minimize's goroutines
// have all exited when it returns.
//
// s can be a fresh or a restored strategy; Minimize continues from its
// state, and a strategy that has stopped returns at once with its reason.
func Minimize(ctx context.Context, p Problem, s Strategy, opt Options) (Result, error) {
	start := time.Now()
	if ctx == nil {
		return Result{F: math.Inf(1)}, errors.New("es: Minimize: nil Context (use context.Background())")
	}
	if err := checkOptions(p, s, opt); err != nil {
		return Result{F: math.Inf(1)}, err
	}
	run, err := NewRun(s, Limits{MaxEvals: opt.MaxEvals, Target: opt.Target})
	if err != nil {
		return Result{F: math.Inf(1)}, err
	}
	if opt.Inject != nil {
		if err := run.Inject(opt.Inject); err != nil {
			return Result{F: math.Inf(1)}, err
		}
	}
	workers := max(opt.Workers, 1)

	parent := ctx
	var deadline time.Time
	if opt.MaxTime > 0 {
		deadline = start.Add(opt.MaxTime)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	// The evaluations' context: the run's, also canceled by a failure.
	evalCtx, cancelEvals := context.WithCancel(ctx)
	defer cancelEvals()
	ev := &evaluator{problem: p, outer: parent, deadline: deadline, ctx: evalCtx, cancel: cancelEvals, workers: workers,
		policy: opt.OnError, retries: opt.Retries}
	ev.problemCtx, _ = p.(ProblemContext)
	if ev.problemCtx == nil {
		ev.keyed, _ = p.(KeyedProblem)
	}
	if workers > 1 {
		ev.startWorkers(workers - 1) // the calling goroutine is the last worker
		defer ev.stopWorkers()
	}

	maxFailures := opt.MaxFailures
	if maxFailures == 0 {
		maxFailures = DefaultMaxFailures
	}
	var mean []float64 // m_t before Ask, kept only for the trace
	finish := func() (Result, error) {
		res := run.Result()
		res.Elapsed = time.Since(start)
		res.Failures = ev.failures
		if ev.failed != nil {
			return res, ev.failed
		}
		return res, nil
	}
	for {
		if opt.Trace != nil {
			mean = s.Mean(mean)
		}
		pop, err := run.Ask()
		if err != nil {
			res, _ := finish()
			return res, fmt.Errorf("es: Minimize: %w", err)
		}
		if pop == nil {
			return finish()
		}
		if ev.canceled() {
			run.Stop(haltReason(parent), nil)
			return finish()
		}

		ev.generation = s.Generation()
		ev.keyBase = uint64(s.Evals())
		injected := run.injecting // a batch of known points, no generation
		complete := ev.evaluate(pop)
		if ev.failed != nil {
			// The generation is not told, and none of its values
			// counts for the best so far: which rows were evaluated
			// before the stop depends on timing.
			if opt.Abandoned != nil {
				opt.Abandoned(pop, ev.f, ev.evaluated)
			}
			run.Stop(ReasonObjectiveError, ev.evaluated)
			return finish()
		}
		if !complete || ev.canceled() {
			// Cut short by a cancel or the time limit: an objective
			// that watches ctx may have returned values that mean
			// nothing, so the whole generation is discarded.
			run.Stop(haltReason(parent), ev.evaluated)
			return finish()
		}
		if err := run.Tell(ev.f); err != nil {
			res, _ := finish()
			return res, fmt.Errorf("es: Minimize: %w", err)
		}
		if ev.countFailures(maxFailures) {
			run.Stop(ReasonTooManyFailures, nil)
		}
		_, best := run.Best()
		if opt.Trace != nil && !injected {
			fMean, meanKnown := meanValue(mean, pop, ev.f)
			opt.Trace.record(s, fMean, meanKnown, run.GenerationBest(), best, opt.Hessian)
		}
		if opt.Progress != nil || opt.Stop != nil {
			pr := Progress{
				Strategy:       s,
				Generation:     s.Generation(),
				Evals:          s.Evals(),
				GenerationBest: run.GenerationBest(),
				Best:           best,
				Restarts:       run.Restarts(),
				Elapsed:        time.Since(start),
				Stop:           run.Reason(),
				Candidates:     pop,
				Values:         ev.f,
				Failed:         ev.failedRows(),
				Injected:       injected,
			}
			if opt.Progress != nil {
				opt.Progress(pr)
			}
			if opt.Stop != nil && run.Reason() == "" {
				if reason := opt.Stop(pr); reason != "" {
					if err := run.Stop(reason, nil); err != nil {
						res, _ := finish()
						return res, fmt.Errorf("es: Minimize: Options.Stop: %w", err)
					}
				}
			}
		}
		if run.Reason() != "" {
			return finish()
		}
	}
}

// checkOptions validates the arguments of Minimize.
func checkOptions(p Problem, s Strategy, opt Options) error {
	switch {
	case p == nil:
		return errors.New("es: Minimize: nil Problem")
	case s == nil:
		return errors.New("es: Minimize: nil Strategy")
	case unsetWrapper(s) != nil:
		return fmt.Errorf("es: Minimize: %w", unsetWrapper(s))
	case opt.Workers < 0 || opt.Workers > MaxWorkers:
		return fmt.Errorf("es: Minimize: Options.Workers = %d: must be in [0, %d]", opt.Workers, MaxWorkers)
	case opt.MaxTime < 0:
		return fmt.Errorf("es: Minimize: Options.MaxTime = %v is negative", opt.MaxTime)
	case opt.OnError != OnErrorStop && opt.OnError != OnErrorWorst:
		return fmt.Errorf("es: Minimize: Options.OnError = %q: want OnErrorStop or OnErrorWorst", opt.OnError)
	case opt.Retries < 0 || opt.Retries > MaxRetries:
		return fmt.Errorf("es: Minimize: Options.Retries = %d: must be in [0, %d]", opt.Retries, MaxRetries)
	}
	lim := Limits{MaxEvals: opt.MaxEvals, Target: opt.Target}
	if err := lim.check("Minimize: Options."); err != nil {
		return err
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
// itself (the full HE-ES evaluates its mean every generation, docs/ALGORITHMS.md
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
	problemCtx ProblemContext     // p as a ProblemContext; nil for a plain Problem
	keyed      KeyedProblem       // p as a KeyedProblem when it is not a ProblemContext, else nil
	keyBase    uint64             // the key of row 0: the strategy's Evals() before the generation
	outer      context.Context    // the caller's, an ancestor of ctx
	deadline   time.Time          // the time limit's; zero for none
	ctx        context.Context    // the evaluations': the run's, canceled by a failure
	cancel     context.CancelFunc // cancels ctx
	pop        *linalg.Dense
	f          []float64
	evaluated  []bool
	generation int // for the failure report
	workers    int // goroutines that evaluate, the caller included

	policy    OnError
	retries   int
	lost      []*ObjectiveError // per row: its failure under OnErrorWorst, else nil
	inRow     int               // failed points in a row, in row order
	failures  int               // points told as NaN after a failure
	last      *ObjectiveError   // the last of them, in row order
	failedBuf []bool            // failedRows's result

	rows int
	next atomic.Int64 // next row to claim
	halt atomic.Bool  // set by a failure

	mu     sync.Mutex      // guards failed
	failed *ObjectiveError // the first failed evaluation

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

// evaluate computes the values of the rows of pop into e.f and reports
// whether every row was evaluated (false after a halt or a failure).
func (e *evaluator) evaluate(pop *linalg.Dense) bool {
	rows, _ := pop.Dims()
	e.pop = pop
	if cap(e.f) < rows {
		e.f = make([]float64, rows)
		e.evaluated = make([]bool, rows)
		e.lost = make([]*ObjectiveError, rows)
	}
	e.f = e.f[:rows]
	e.evaluated = e.evaluated[:rows]
	e.lost = e.lost[:rows]
	clear(e.evaluated)
	clear(e.lost)
	e.rows = rows
	e.next.Store(0)
	helpers := min(e.workers, rows) - 1 // goroutines besides the caller
	e.genDone.Add(helpers)
	for range helpers {
		e.start <- struct{}{}
	}
	e.claimRows()
	e.genDone.Wait()
	for _, ok := range e.evaluated {
		if !ok {
			return false
		}
	}
	return true
}

// canceled reports whether the caller's context or the evaluations' is
// done, or the time limit has passed. All are checked: a canceled context
// closes its Done channel before it cancels its children, so an objective
// that watches the caller's context can see the cancel, and return, before
// e.ctx is canceled; and the timer that cancels e.ctx at the deadline runs
// in a goroutine of its own, which a loaded machine may start late.
func (e *evaluator) canceled() bool {
	return e.outer.Err() != nil || e.ctx.Err() != nil ||
		(!e.deadline.IsZero() && !time.Now().Before(e.deadline))
}

// claimRows evaluates rows until none is left or the run is halted. The
// contexts are checked before every evaluation, so that no evaluation
// starts after a cancel, the time limit or a failure.
func (e *evaluator) claimRows() {
	for !e.halt.Load() && !e.canceled() {
		i := int(e.next.Add(1) - 1)
		if i >= e.rows {
			return
		}
		e.evalRow(i)
	}
}

// evalRow evaluates row i. A panic of the objective and an error of
// EvalContext are failures (see fail); an error once the evaluations'
// context is done is the end of an evaluation interrupted by a stop, and
// leaves the row unevaluated.
func (e *evaluator) evalRow(i int) {
	x := e.pop.RawRow(i)
	defer func() {
		if v := recover(); v != nil {
			e.fail(&ObjectiveError{X: slices.Clone(x), Generation: e.generation, Row: i, Value: v, Stack: debug.Stack()})
		}
	}()
	if e.problemCtx == nil {
		if e.keyed != nil {
			e.f[i] = e.keyed.EvalKeyed(x, e.keyBase+uint64(i))
		} else {
			e.f[i] = e.problem.Eval(x)
		}
		e.evaluated[i] = true
		return
	}
	v, err := e.problemCtx.EvalContext(e.ctx, x)
	for try := 0; err != nil && try < e.retries && !e.canceled(); try++ {
		v, err = e.problemCtx.EvalContext(e.ctx, x)
	}
	switch {
	case err == nil:
		e.f[i] = v
		e.evaluated[i] = true
	case e.canceled():
		// Interrupted by a stop: not a failure, the row stays unevaluated.
	case e.policy == OnErrorWorst:
		e.lost[i] = &ObjectiveError{X: slices.Clone(x), Generation: e.generation, Row: i, Err: err}
		e.f[i] = math.NaN()
		e.evaluated[i] = true
	default:
		e.fail(&ObjectiveError{X: slices.Clone(x), Generation: e.generation, Row: i, Err: err})
	}
}

// failedRows returns which rows of the generation just told failed, or nil
// when none did. The slice is reused from one generation to the next.
func (e *evaluator) failedRows() []bool {
	if !slices.ContainsFunc(e.lost, func(l *ObjectiveError) bool { return l != nil }) {
		return nil
	}
	e.failedBuf = slices.Grow(e.failedBuf[:0], len(e.lost))[:len(e.lost)]
	for i, l := range e.lost {
		e.failedBuf[i] = l != nil
	}
	return e.failedBuf
}

// countFailures counts the failed points of the generation just told, in
// row order, and reports whether maxFailures (> 0) of them came in a row.
// Row order, not the order in which the workers finished, makes the count
// the same for any Workers.
func (e *evaluator) countFailures(maxFailures int) bool {
	stop := false
	for _, lost := range e.lost {
		if lost == nil {
			e.inRow = 0
			continue
		}
		e.failures++
		e.inRow++
		e.last = lost
		stop = stop || (maxFailures > 0 && e.inRow >= maxFailures)
	}
	if stop {
		e.failed = e.last
	}
	return stop
}

// fail applies the failure policy to a failed evaluation: the first
// failure of a generation stops the run with ReasonObjectiveError, and the
// evaluations in progress are canceled (their errors, which follow from
// the cancel, are not failures).
func (e *evaluator) fail(err *ObjectiveError) {
	e.mu.Lock()
	if e.failed == nil {
		e.failed = err
	}
	e.mu.Unlock()
	e.halt.Store(true)
	e.cancel()
}
