package es

import (
	"errors"
	"fmt"
	"math"

	"github.com/hees-dev/hees/linalg"
)

// Limits are the stop rules of a Run besides the strategy's own.
type Limits struct {
	// MaxEvals is the evaluation budget, counted against the strategy's
	// Evals; 0 means none. A generation whose candidates would exceed it
	// is not asked: the run stops with ReasonMaxEvals before it, and when
	// that is the first generation of a strategy that has evaluated
	// nothing, Ask returns an error that says so.
	MaxEvals int
	// Target, when not nil, stops the run with ReasonTarget after the
	// first generation that evaluated a value <= *Target; for a strategy
	// that recommends a point (a Recommender, such as a NoiseHandler),
	// after the first generation whose recommendation has an estimated
	// value <= *Target, since under noise a single value at the target
	// is luck.
	Target *float64
}

// check validates the limits; prefix names them in the error.
func (l *Limits) check(prefix string) error {
	switch {
	case l.MaxEvals < 0:
		return fmt.Errorf("es: %sMaxEvals = %d is negative", prefix, l.MaxEvals)
	case l.Target != nil && math.IsNaN(*l.Target):
		return fmt.Errorf("es: %sTarget is NaN", prefix)
	}
	return nil
}

// Run is one optimisation run of a strategy, driven one generation at a
// time by whoever evaluates the candidates: Minimize with its pool of
// workers, or a caller that evaluates them elsewhere (another process, a
// job system) and may keep the run across processes by saving the
// strategy and the Reason.
//
// Run applies the stop rules in Minimize's order: before a generation, the
// strategy's own Stop (which for a restarting strategy such as IPOP reports
// a reason only once no restart is left) and then the budget; after it, a
// value of -Inf (ReasonMinusInf) and then the target. It keeps the best
// point and value, and builds the Result. Inject adds known points, which
// the next Ask hands out as a batch of their own (docs/ALGORITHMS.md
// Section 16). A Run is not safe for concurrent use.
type Run struct {
	s      Strategy
	limits Limits
	reason Reason

	pop  linalg.Dense // the candidates of the generation asked
	rows int          // rows of the generation asked; 0 when none is pending

	x         []float64 // the best point (its storage is kept once set)
	f         float64   // its value, +Inf when none below +Inf was found
	genBest   float64   // the smallest value of the last generation told
	abandoned int       // evaluations of a generation stopped, not told

	queue     [][]float64 // known points waiting for their batch (Inject)
	injecting bool        // the batch asked is the queue's
}

// NewRun starts a run of s, fresh or restored: the run continues from the
// state of s, with the best point the strategy has. It reports a nil
// strategy and bad limits.
func NewRun(s Strategy, limits Limits) (*Run, error) {
	if s == nil {
		return nil, errors.New("es: NewRun: nil Strategy")
	}
	if err := limits.check("NewRun: Limits."); err != nil {
		return nil, err
	}
	r := &Run{s: s, limits: limits, genBest: math.NaN()}
	r.x, r.f = s.Best()
	if r.x == nil {
		r.x = make([]float64, s.Dim())
	}
	return r, nil
}

// errZeroRun is the error of the methods of a Run not made by NewRun.
var errZeroRun = errors.New("es: Run not set up (use NewRun)")

// unset reports whether r is nil or was not made by NewRun.
func (r *Run) unset() bool { return r == nil || r.s == nil }

// Strategy is the strategy being run. Read it; do not call Ask or Tell.
func (r *Run) Strategy() Strategy { return r.s }

// Reason says why the run stopped, "" while it goes on.
func (r *Run) Reason() Reason { return r.reason }

// Ask returns the candidates of the current generation, one per row (or
// the batch of points queued by Inject, before the generation), or nil
// once the run has stopped (Reason says why): by the strategy's own
// criteria, because the generation would exceed the budget, or by Stop.
// The matrix belongs to the run and stays valid until the next Tell or
// Stop. Asking again before a Tell returns the same candidates. An error
// of the strategy's Ask stops the run with ReasonStrategyError.
func (r *Run) Ask() (*linalg.Dense, error) {
	if r.unset() {
		return nil, errZeroRun
	}
	if r.reason != "" {
		return nil, nil
	}
	if r.rows > 0 {
		return &r.pop, nil
	}
	if reason := r.s.Stop(); reason != "" {
		r.reason = reason
		return nil, nil
	}
	if len(r.queue) > 0 {
		r.askInjected()
	} else if err := r.s.Ask(&r.pop); err != nil {
		r.reason = ReasonStrategyError
		return nil, err
	}
	rows, cols := r.pop.Dims()
	if rows == 0 || cols != r.s.Dim() {
		// A Strategy of the caller's that breaks the contract of Ask.
		r.reason = ReasonStrategyError
		return nil, fmt.Errorf("es: %s: Ask wrote %d candidates of %d coordinates, want at least one of Dim = %d",
			r.s.Name(), rows, cols, r.s.Dim())
	}
	if r.limits.MaxEvals > 0 && r.s.Evals()+rows > r.limits.MaxEvals {
		r.reason = ReasonMaxEvals
		r.injecting = false
		if r.s.Evals() == 0 {
			// Not a budget spent but one that fits no generation: the
			// run would end with nothing evaluated and no best point.
			return nil, fmt.Errorf("es: %s: the budget MaxEvals = %d is smaller than the first generation's %d candidates: nothing would be evaluated",
				r.s.Name(), r.limits.MaxEvals, rows)
		}
		return nil, nil
	}
	r.rows = rows
	return &r.pop, nil
}

// Tell takes the values of every candidate of the generation asked, in row
// order: it folds them into the best point, tells them to the strategy, and
// stops the run when a value is -Inf or reaches the target. An error of the
// strategy's Tell stops the run with ReasonStrategyError; a Tell after the
// run stopped (ErrStopped), without a pending Ask (ErrNoAsk), or with the
// wrong number of values is an error that changes nothing.
func (r *Run) Tell(f []float64) error {
	switch {
	case r.unset():
		return errZeroRun
	case r.reason != "":
		return errorOf(ErrStopped, "es: Run.Tell after the run stopped (%s)", r.reason)
	case r.rows == 0:
		return errorOf(ErrNoAsk, "es: Run.Tell without a generation asked")
	case len(f) != r.rows:
		return fmt.Errorf("es: Run.Tell: %d values for %d candidates", len(f), r.rows)
	}
	minusInf, reached := r.foldBest(f)
	if r.injecting {
		r.tellInjected(f)
	} else if err := r.s.Tell(f); err != nil {
		r.rows = 0
		r.reason = ReasonStrategyError
		return err
	}
	if rec, ok := r.s.(Recommender); ok && r.limits.Target != nil {
		v := rec.Recommend()
		reached = v.Evals > 0 && v.F <= *r.limits.Target
	}
	r.rows = 0
	switch {
	case minusInf:
		r.reason = ReasonMinusInf
	case reached:
		r.reason = ReasonTarget
	}
	return nil
}

// Stop ends the run for reason (not ""), a stop from outside the strategy
// such as a cancel, the time limit or a failed evaluation. A generation
// asked and not told is abandoned: the strategy never sees it, and
// evaluated marks the rows of it that were evaluated (nil: none), which
// Result.Evals counts. Their values do not count for the best point: after
// a cancel or the time limit an objective that watches its context may
// have returned values that mean nothing, and after a failure which rows
// were evaluated depends on timing (docs/ALGORITHMS.md Section 15). A Run
// restored from a file that recorded a stop is stopped with its reason and
// nil values. Stopping a run that has stopped changes nothing; a reason
// that is not one of Reasons() or evaluated of another length than the
// generation asked is an error that changes nothing.
func (r *Run) Stop(reason Reason, evaluated []bool) error {
	if r.unset() {
		return errZeroRun
	}
	if reason == "" || !knownReason(reason) {
		return fmt.Errorf("es: Run.Stop: reason %q is not a stop reason", reason)
	}
	if r.reason != "" {
		return nil
	}
	if evaluated != nil && len(evaluated) != r.rows {
		return fmt.Errorf("es: Run.Stop: %d rows marked evaluated, the generation asked has %d", len(evaluated), r.rows)
	}
	r.reason = reason
	for _, ok := range evaluated {
		if ok {
			r.abandoned++
		}
	}
	r.rows = 0
	r.injecting = false
	return nil
}

// foldBest folds the values of the generation asked into the best so far,
// scanning the rows in order so that ties go to the lowest row whatever the
// order of evaluation. It records the generation's smallest value (NaN
// when none is a number) and reports whether a value is -Inf and whether
// one is at or below the target.
func (r *Run) foldBest(f []float64) (minusInf, reached bool) {
	r.genBest = math.NaN()
	for i, v := range f {
		if math.IsNaN(r.genBest) || v < r.genBest {
			r.genBest = v
		}
		if v < r.f {
			r.f = v
			copy(r.x, r.pop.RawRow(i))
		}
		minusInf = minusInf || math.IsInf(v, -1)
		reached = reached || (r.limits.Target != nil && v <= *r.limits.Target)
	}
	return minusInf, reached
}

// GenerationBest is the smallest value of the last generation told (NaN
// when none of its values was a number, or before the first).
func (r *Run) GenerationBest() float64 { return r.genBest }

// Best returns the best point found (nil when no value below +Inf was
// found) and its value (+Inf then). The point is the run's: copy it to
// keep it across a Tell.
func (r *Run) Best() ([]float64, float64) {
	switch {
	case r.unset():
		return nil, math.Inf(1)
	case math.IsInf(r.f, 1):
		return nil, r.f
	}
	return r.x, r.f
}

// Restarts is the number of restarts of a restarting strategy (one with a
// Restarts() int method, such as IPOP), 0 for another.
func (r *Run) Restarts() int { return restartsOf(r.s) }

// Result returns the outcome of the run so far; Elapsed is left 0 for the
// caller, who knows the time. Evals counts the evaluations told to the
// strategy over its whole life and those of a generation abandoned by Stop.
func (r *Run) Result() Result {
	if r.unset() {
		return Result{F: math.Inf(1)}
	}
	x, f := r.Best()
	if x != nil {
		x = append([]float64(nil), x...)
	}
	res := Result{
		X:           x,
		F:           f,
		Evals:       r.s.Evals() + r.abandoned,
		Generations: r.s.Generation(),
		Reason:      r.reason,
		Restarts:    r.Restarts(),
	}
	if rec, ok := r.s.(Recommender); ok {
		res.Recommendation = rec.Recommend()
	}
	if h, ok := r.s.(*NoiseHandler); ok {
		res.Doublings = h.Doublings()
	}
	return res
}

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
