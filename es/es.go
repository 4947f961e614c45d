// Package es implements the Hessian Estimation Evolution Strategy (HE-ES)
// family and its baselines behind one ask/tell contract.
//
// # Strategies
//
// Every strategy has a short name used by the library, the command line and
// files alike (the constants ES11, HEES14, ...):
//
//	es11    (1+1)-ES with the 1/5 success rule
//	hees14  (1+4)-HE-ES of Glasmachers & Krause, Algorithm 4
//	hees    full non-elitist HE-ES with mirrored sampling, Algorithm 1
//	hees2   hees with its path as a search direction and more departures
//	lqhees  hees2 ranking on a linear-quadratic model of f while it predicts
//	lmhees  limited-memory HE-ES: a diagonal times m learned directions, O(m d)
//	cma11   (1+1)-CMA-ES, Suttorp, Hansen & Igel 2009 variant
//	cmaes   (mu/mu_w, lambda)-CMA-ES with the active update, pycma 4.4's defaults
//	sepcma  separable CMA-ES as pycma 4.4's CMA_diagonal runs it, O(d)
//	lmmaes  LM-MA-ES, Loshchilov, Glasmachers & Beyer 2019, O(m d)
//
// Start with hees2 (the constant Recommended, the default of the command
// line): it needs fewer evaluations than cmaes and hees on most classic
// test functions and on average over BBOB (BENCHMARKS.md, section
// "hees2"); docs/ALGORITHMS.md Section 17 lists its departures from the
// paper. hees14 and hees are the paper's algorithms exactly. For d in the
// thousands and beyond, where a d×d matrix does not fit or costs too much,
// lmhees, sepcma and lmmaes keep O(m d) numbers, m = O(log d)
// (docs/ALGORITHMS.md Section 21; BENCHMARKS.md, "Large scale"). lqhees
// needs fewer evaluations than hees2 on smooth functions, at far more CPU
// per evaluation and without invariance to monotone transformations of f
// (docs/ALGORITHMS.md Section 22; BENCHMARKS.md, "lqhees").
//
// Strategies and Lookup describe each strategy (Info: its population
// parameter, whether it is elitist, whether it keeps a full transformation
// A, the restarts it supports), so that a caller choosing one by name
// names none itself. The strategies that keep a d×d matrix A implement
// Transformer; one with O(d) memory does not. Each strategy is one file
// and one row of the package's table of strategies (docs/ALGORITHMS.md,
// "Adding a strategy").

// # The ask/tell contract
//
// A Strategy proposes a generation of candidates with Ask and learns from
// their objective values with Tell. The caller may evaluate the candidates
// in any order and in parallel. Given the same Config (seed included) and the
// same values, a Strategy produces bit-identical candidates whether or not the
// evaluation was parallel and whether or not its state was saved with
// MarshalBinary and restored with UnmarshalBinary in between: every random
// draw is a function of (seed, purpose, generation, index) only. Load
// restores any saved strategy.
//
// # Running a strategy
//
// Minimize drives a Strategy on a Problem: it evaluates each generation with
// a pool of Options.Workers goroutines, stops on a budget, a target, a time
// limit, the caller's context or the strategy's own criteria, and names the
// reason in Result.Reason. A Run applies the same stop rules to a loop that
// evaluates the candidates itself, such as an ask/tell driver across
// processes. An objective that can fail or take long implements
// ProblemContext: its errors stop the run, or with Options.OnError and
// Options.Retries are tried again and ranked worst (docs/ALGORITHMS.md
// Section 15), and its evaluations are canceled when the run stops.
// Config.Bounds confines every point handed out to a box, and
// Config.Stds scales the coordinates (docs/ALGORITHMS.md Section 14);
// Config.Steps makes coordinates discrete, integers or the indices of
// choices, which hees2 and cmaes keep exploring with the margin of CMA-ES
// with Margin (Section 19);
// Run.Inject and Options.Inject evaluate known points (Section 16).
// NewNoiseHandler adds uncertainty handling for a noisy objective to hees,
// hees2 or cmaes, and Result.Recommendation then holds the recommended
// point apart from the best single value (Section 20). NewIPOP wraps a strategy with IPOP restarts
// (docs/ALGORITHMS.md Section 4.1), NewBIPOP cmaes, hees or hees2 with BIPOP restarts
// (docs/ALGORITHMS.md Section 8); NewRestarting builds either, or the plain
// strategy, from a restart scheme (Restarts). A Trace records one row per generation,
// with the condition and normalised trace of C = A A^T (and of A^T H A when
// the Hessian is known) every Trace.Interval generations;
// DefaultTraceInterval keeps their O(d^3) cost near a tenth of the run's.
package es

import (
	"encoding"
	"errors"
	"fmt"
	"slices"

	"github.com/hees-dev/hees/linalg"
)

// Strategy proposes candidate points and learns from their objective values.
//
// A Strategy is not safe for concurrent use. The loop is: Ask writes the
// generation's candidates as the rows of a matrix, the caller evaluates every
// row (in any order, in parallel if desired), and Tell hands back one value
// per row, in row order. NaN and +Inf are ranked worst, ties keep row order.
type Strategy interface {
	// Name is the strategy's short name, such as "hees".
	Name() string
	// Dim is the dimension of the search space.
	Dim() int
	// PopulationSize is the number of candidates Ask writes in one
	// generation: 2·Pairs+1 for hees (the mirrored pairs and the current
	// mean, which it evaluates too), 4 for hees14, 1 for es11 and cma11, and
	// Config.Lambda for cmaes. It is the most a generation asks for: the
	// elitist strategies ask for the initial point alone in generation 0,
	// and lqhees, while its model predicts well, for part of its 2·Pairs+1
	// candidates in a round (its generation).
	PopulationSize() int

	// Ask writes the candidates of the current generation into the rows of
	// pop, the points to evaluate (in the box of Config.Bounds when it has
	// one; the strategy samples in its own space, docs/ALGORITHMS.md
	// Section 14), resizing it (its storage is reused when large enough, so a loop
	// that passes the same matrix does not allocate). Asking twice without a
	// Tell writes the same candidates again. Ask returns an error once the
	// strategy has stopped.
	Ask(pop *linalg.Dense) error
	// Tell takes the objective values of the rows of the last Ask, in row
	// order, and advances to the next generation. It returns an error, and
	// changes nothing, when no Ask is pending or len(f) is not the number of
	// rows asked.
	Tell(f []float64) error

	// Mean copies the current mean into dst, resized to Dim (its storage is
	// reused when large enough, so nil allocates), and returns it; with
	// Config.Bounds or Config.Stds, the mean carried to the objective's
	// space (Section 14.3).
	Mean(dst []float64) []float64
	// Sigma is the current global step size, in the strategy's own space
	// (the units of Config.Stds when given). The strategies that keep a
	// full transformation A (sampling covariance sigma^2 A A^T) implement
	// Transformer as well.
	Sigma() float64
	// Best returns a copy of the best point told so far and its value
	// (+Inf and nil before any finite value was told): a point that was
	// evaluated, so in the box of Config.Bounds.
	Best() (x []float64, f float64)
	// Evals is the number of objective values told so far.
	Evals() int
	// Generation is the number of completed Ask/Tell rounds.
	Generation() int
	// Stop reports the internal criterion that fired, or "" while the
	// strategy can go on.
	Stop() Reason

	// MarshalBinary and UnmarshalBinary save and restore the complete state
	// (configuration, moving state and the random generator's position)
	// under a versioned tag. UnmarshalBinary rejects a state of another
	// strategy or version with an error that says which.
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// Reason names why a run or a strategy stopped. The empty Reason means that
// nothing stopped it.
type Reason string

// The stop reasons. The strings are stable: they appear in the command
// line's output and in saved files.
const (
	// Budget: the evaluation budget is spent.
	ReasonMaxEvals Reason = "max evaluations"
	// A value at or below the target was told.
	ReasonTarget Reason = "target reached"
	// The wall-clock limit passed.
	ReasonTimeLimit Reason = "time limit"
	// The caller's context was canceled.
	ReasonCanceled Reason = "canceled"
	// The spread of one generation's values fell below the tolerance.
	ReasonTolFun Reason = "tolfun"
	// The step size became too small to change the mean.
	ReasonSigmaTooSmall Reason = "sigma too small"
	// The step size grew beyond its limit.
	ReasonSigmaTooLarge Reason = "sigma too large"
	// The condition number of C = A A^T exceeded its limit (1e14).
	ReasonConditionCov Reason = "condition of C"
	// Adding a step along a principal axis no longer changes the mean.
	ReasonNoEffectAxis Reason = "no effect axis"
	// Too many generations in a row gave no finite objective value
	// (docs/ALGORITHMS.md Section 13 item 8).
	ReasonNotFinite Reason = "objective not finite"
	// The objective returned -Inf, which no point can improve on.
	ReasonMinusInf Reason = "objective -Inf"
	// The objective panicked or returned an error.
	ReasonObjectiveError Reason = "objective error"
	// The best values of the recent generations (10 + 30 d/lambda of them)
	// span less than 1e-12 (pycma's tolfunhist; cmaes only).
	ReasonTolFunHist Reason = "tolfunhist"
	// Every coordinate's standard deviation sigma sqrt(C_ii) and every
	// sigma |p_c,i| fell below 1e-11 (pycma's tolx; cmaes, and hees2 with
	// C = A A^T and no p_c).
	ReasonTolX Reason = "tolx"
	// The medians of the recent generations' best and median values stopped
	// improving (pycma's tolstagnation; cmaes only).
	ReasonStagnation Reason = "stagnation"
	// Adding a fifth of a standard deviation in some coordinate no longer
	// changes the mean (pycma's noeffectcoord; cmaes only).
	ReasonNoEffectCoord Reason = "no effect coordinate"
	// Options.MaxFailures points in a row failed under OnErrorWorst.
	ReasonTooManyFailures Reason = "too many failures"
	// The strategy rejected an Ask or a Tell of the driver (a bug, reported
	// with the error), or returned a generation that is not one (no rows,
	// or rows of the wrong length).
	ReasonStrategyError Reason = "strategy error"
	// The run's checkpoint could not be written (hees run -checkpoint).
	ReasonCheckpointError Reason = "checkpoint error"
	// The run's evaluation log or trace could not be written (hees run
	// -log, -trace).
	ReasonLogError Reason = "log error"
	// An ask/tell run whose failure policy is OnErrorStop lost the leases
	// of one candidate more often than it allows: whoever held it vanished
	// each time (a lost node, a SIGKILL, a process stopped past its
	// lease), which says nothing about the point, but more than that means
	// the candidate itself may be what kills its holders (hees worker).
	ReasonLeasesLost Reason = "leases lost"
)

// Reasons returns every stop reason, the one list of them: the reasons a
// saved run may hold besides "".
func Reasons() []Reason {
	return []Reason{ReasonMaxEvals, ReasonTarget, ReasonTimeLimit, ReasonCanceled, ReasonTolFun,
		ReasonSigmaTooSmall, ReasonSigmaTooLarge, ReasonConditionCov, ReasonNoEffectAxis,
		ReasonNotFinite, ReasonMinusInf, ReasonObjectiveError, ReasonTolFunHist, ReasonTolX,
		ReasonStagnation, ReasonNoEffectCoord, ReasonTooManyFailures, ReasonStrategyError,
		ReasonCheckpointError, ReasonLogError, ReasonLeasesLost}
}

// ParseReason returns the stop reason s, one of Reasons() or "" (no stop),
// or an error for any other string: a saved run that holds one is corrupt.
func ParseReason(s string) (Reason, error) {
	if r := Reason(s); r == "" || slices.Contains(Reasons(), r) {
		return r, nil
	}
	return "", fmt.Errorf("es: unknown stop reason %q", s)
}

// knownReason reports whether r is "" or one of Reasons().
func knownReason(r Reason) bool {
	_, err := ParseReason(string(r))
	return err == nil
}

// The errors that callers may want to tell apart, matched with errors.Is:
// the error returned has a message of its own that says more.
var (
	// ErrStopped: Ask or Tell on a strategy or a Run that has stopped.
	ErrStopped = errors.New("es: stopped")
	// ErrNoAsk: Tell without a pending Ask.
	ErrNoAsk = errors.New("es: no pending Ask")
	// ErrCorruptState: Load or UnmarshalBinary of bytes that are not a
	// saved state this build reads (not a state, truncated, corrupt, of
	// another strategy, or of an unknown version).
	ErrCorruptState = errors.New("es: not a usable saved state")
)

// kindError is an error with its own message that errors.Is also matches
// with one of the errors above (its kind).
type kindError struct {
	err  error
	kind error
}

// errorOf returns an error with the message fmt.Errorf(format, args...)
// makes (wrapping what it wraps) that errors.Is matches with kind too.
func errorOf(kind error, format string, args ...any) error {
	return &kindError{err: fmt.Errorf(format, args...), kind: kind}
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }
