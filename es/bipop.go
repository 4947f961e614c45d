package es

import (
	"errors"
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// BIPOPConfig configures the restarts of a BIPOP wrapper.
type BIPOPConfig struct {
	// MaxRestarts is the largest number of restarts in the large-population
	// regime (as pycma's restarts with bipop, small-population runs do not
	// count); 0 means no limit.
	MaxRestarts int
}

// purposeBIPOP keys the two uniforms U_sigma, U_lambda of each small run:
// restart r draws them from (Seed, purposeBIPOP, r, 0), apart from the
// seed of the run itself (purposeRestart).
const purposeBIPOP rng.Purpose = 0x1906

// BIPOP runs a strategy with Hansen's two restart regimes (BI-population
// CMA-ES, Hansen 2009, "Benchmarking a BI-Population CMA-ES on the
// BBOB-2009 Function Testbed"; pycma's fmin with bipop=True;
// docs/ALGORITHMS.md Section 8). It is a Strategy whose Evals, Generation
// and Best span all runs, like IPOP, for the strategies with a population:
// those whose population parameter is Pairs (hees, hees2, lqhees, lmhees)
// or Lambda (cmaes, sepcma, lmmaes).
//
// The first run uses the Config as given (population p_def). Each later run
// is chosen by the budget balance: with B_s and B_l the evaluations spent
// so far by the runs of the small regime (the first run counts there) and
// of the large regime, the next run is small when B_s < max(1, B_l), large
// otherwise. A large run doubles the population as IPOP does, p_l =
// p_def 2^k for the k-th large run, with Sigma0 as given. A small run draws
// U_sigma and U_lambda uniform in [0, 1) and uses the population
// floor(p_def (p_l/p_def)^(U_lambda^2)), with p_l the last large
// population (p_def before the first), Sigma0 10^(-2 U_sigma), and the
// budget 0.5 B_l evaluations: it ends when it has spent them, unless no run
// could follow it. Every restart r starts from a mean uniform in
// [-Box, Box]^Dim with the seed of restart r drawn from (Seed, r) as IPOP's.
//
// Build a BIPOP with NewBIPOP; the zero BIPOP is only a destination for
// UnmarshalBinary.
type BIPOP struct {
	// ipopPart holds the inner run, the bookkeeping of the finished runs
	// and the first run's Config; its restart count is the number of large
	// runs.
	ipopPart
	sigma0     float64 // Sigma0 of the large runs (the default if not given)
	small      int     // restarts in the small regime
	inSmall    bool    // the current run is small (the first run counts as small)
	smallEvals int     // B_s, evaluations of the finished small runs
	largeEvals int     // B_l, evaluations of the finished large runs
	// runBudget is the budget of the current small run in evaluations,
	// 0 for a large run and the first run.
	runBudget float64
}

// NewBIPOP returns a BIPOP wrapper around the strategy New(name, cfg) would
// return, for a strategy with a population (Pairs or Lambda). It reports
// the errors of New, a strategy with a fixed population and a negative
// MaxRestarts.
func NewBIPOP(name string, cfg Config, bipop BIPOPConfig) (*BIPOP, error) {
	if _, err := lookup(name); err != nil {
		return nil, err
	}
	if !RestartsBIPOP.Supports(name) {
		return nil, fmt.Errorf("es: NewBIPOP: strategy %q has no population to vary (use %s)", name,
			rowsTaking(func(r *strategyRow) bool { return r.Population != PopulationFixed }))
	}
	if bipop.MaxRestarts < 0 {
		return nil, fmt.Errorf("es: NewBIPOP: MaxRestarts = %d is negative", bipop.MaxRestarts)
	}
	w, err := NewIPOP(name, cfg, IPOPConfig{MaxRestarts: bipop.MaxRestarts})
	if err != nil {
		return nil, err
	}
	return &BIPOP{ipopPart: *w, sigma0: w.inner.Sigma(), inSmall: true}, nil
}

// Name is "bipop-" followed by the inner strategy's name
// (RestartsBIPOP.Name), "bipop-" for a nil BIPOP.
func (w *BIPOP) Name() string {
	if w == nil {
		return RestartsBIPOP.Name("")
	}
	return RestartsBIPOP.Name(w.name)
}

// Restarts is the number of restarts so far, in both regimes.
func (w *BIPOP) Restarts() int {
	if w == nil {
		return 0
	}
	return w.restarts + w.small
}

// Budgets returns the evaluations spent by the finished runs of the small
// regime (the first run included) and of the large regime.
func (w *BIPOP) Budgets() (small, large int) {
	if w == nil {
		return 0, 0
	}
	return w.smallEvals, w.largeEvals
}

// Small reports whether the current run belongs to the small regime (the
// first run does).
func (w *BIPOP) Small() bool { return w != nil && w.inSmall }

// ipop returns the IPOP part of w, nil for a nil w: the methods below
// forward to it, whose methods answer a nil or zero IPOP with zero values.
func (w *BIPOP) ipop() *IPOP {
	if w == nil {
		return nil
	}
	return &w.ipopPart
}

// Dim is the dimension of the search space (0 for a zero or nil BIPOP).
func (w *BIPOP) Dim() int { return w.ipop().Dim() }

// PopulationSize is the current run's PopulationSize (0 for a zero or nil
// BIPOP).
func (w *BIPOP) PopulationSize() int { return w.ipop().PopulationSize() }

// Mean copies the current run's mean into dst (dst[:0] for a zero or nil
// BIPOP).
func (w *BIPOP) Mean(dst []float64) []float64 { return w.ipop().Mean(dst) }

// Sigma is the current run's step size (0 for a zero or nil BIPOP).
func (w *BIPOP) Sigma() float64 { return w.ipop().Sigma() }

// Transform is the current run's transformation A (Transformer), or nil.
func (w *BIPOP) Transform() *linalg.Dense { return w.ipop().Transform() }

// Best returns the best point and value over all runs; nil and +Inf for a
// zero or nil BIPOP.
func (w *BIPOP) Best() ([]float64, float64) { return w.ipop().Best() }

// Evals is the number of values told over all runs.
func (w *BIPOP) Evals() int { return w.ipop().Evals() }

// Generation is the number of generations over all runs.
func (w *BIPOP) Generation() int { return w.ipop().Generation() }

// Stop reports the last run's reason once no run can follow, "" before
// (and for a zero or nil BIPOP).
func (w *BIPOP) Stop() Reason { return w.ipop().Stop() }

// checkPoint checks x against the current run's strategy.
func (w *BIPOP) checkPoint(x []float64) error { return w.ipop().checkPoint(x) }

// inject gives the point to the current run.
func (w *BIPOP) inject(x []float64, f float64) { w.ipop().inject(x, f) }

// errZeroBIPOP is the error of Ask, Tell and MarshalBinary on a BIPOP that
// neither NewBIPOP nor UnmarshalBinary set up.
var errZeroBIPOP = errors.New("es: BIPOP not set up (use NewBIPOP or UnmarshalBinary)")

// Ask writes the current run's candidates.
func (w *BIPOP) Ask(pop *linalg.Dense) error {
	if w.ipop().unset() {
		return errZeroBIPOP
	}
	return w.inner.Ask(pop)
}

// Tell tells the current run the values and starts the next run, in the
// regime the budget balance picks, when the current one has stopped (or a
// small run has spent its budget) and a run can follow.
func (w *BIPOP) Tell(f []float64) error {
	if w.ipop().unset() {
		return errZeroBIPOP
	}
	if err := w.inner.Tell(f); err != nil {
		return err
	}
	reason := w.inner.Stop()
	spent := w.runBudget > 0 && float64(w.inner.Evals()) >= w.runBudget
	if reason == ReasonMinusInf || (reason == "" && !spent) {
		return nil
	}
	evals := w.inner.Evals()
	smallEvals, largeEvals := w.smallEvals, w.largeEvals
	if w.inSmall {
		smallEvals += evals
	} else {
		largeEvals += evals
	}
	cfg, small, budget, ok := w.nextRun(smallEvals, largeEvals)
	if !ok {
		return nil // no run can follow: a small run goes on past its budget
	}
	next, err := New(w.name, cfg)
	if err != nil {
		return fmt.Errorf("es: BIPOP restart %d: %w", w.Restarts()+1, err)
	}
	w.smallEvals, w.largeEvals = smallEvals, largeEvals
	if small {
		w.small++
	} else {
		w.restarts++
	}
	w.startRun(next)
	w.inSmall, w.runBudget = small, budget
	return nil
}

// nextRun returns the Config of the next run after the budgets B_s =
// smallEvals and B_l = largeEvals, whether it is small and its budget (0
// for a large run), or ok = false when no run can follow (the large regime
// is chosen and its restarts or population are used up).
func (w *BIPOP) nextRun(smallEvals, largeEvals int) (cfg Config, small bool, budget float64, ok bool) {
	r := w.Restarts() + 1
	if float64(smallEvals) >= max(1, float64(largeEvals)) {
		// The large regime: IPOP's next doubling.
		if w.maxRestarts > 0 && w.restarts >= w.maxRestarts {
			return cfg, false, 0, false
		}
		if cfg, ok = w.runConfig(w.restarts + 1); !ok {
			return cfg, false, 0, false
		}
		cfg.Seed = restartSeed(w.cfg.Seed, r)
		return cfg, false, 0, true
	}
	st := rng.NewStream(rng.KeyFromSeed(w.cfg.Seed), purposeBIPOP, uint64(r), 0)
	uSigma, uLambda := st.Float64(), st.Float64()
	cfg = w.restartConfig(r)
	// Sigma0 10^(-2 U_sigma) (pycma: sigma0 0.01^U).
	cfg.Sigma0 = w.sigma0 * xmath.Exp(float64(-2*uSigma)*math.Ln10)
	// floor(p_def (p_l/p_def)^(U_lambda^2)) with p_l/p_def = 2^k after k
	// large runs.
	pop := int(float64(w.population0) * xmath.Exp(float64(uLambda*uLambda)*float64(w.restarts)*math.Ln2))
	cfg = rowOf(w.name).withPopulation(cfg, max(pop, w.population0))
	return cfg, true, 0.5 * float64(largeEvals), true
}

// ipopPart is IPOP under an unexported name, so that BIPOP embeds it
// without exposing it.
type ipopPart = IPOP

// bipopStateName names the BIPOP state in its header, "hees-es/bipop/v1".
const bipopStateName = "bipop"

// MarshalBinary saves the wrapper's state: the regimes' counts and budgets,
// and the IPOP part (first Config, finished runs, current run) embedded.
func (w *BIPOP) MarshalBinary() ([]byte, error) {
	if w.ipop().unset() {
		return nil, errZeroBIPOP
	}
	ipop, err := w.ipopPart.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("es: BIPOP.MarshalBinary: %w", err)
	}
	b := newStateWriter(bipopStateName)
	b.float(w.sigma0)
	b.int(w.small)
	b.bool(w.inSmall)
	b.int(w.smallEvals)
	b.int(w.largeEvals)
	b.float(w.runBudget)
	b.string(string(ipop))
	return b.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into w, which may
// be a zero BIPOP. It rejects the state of another strategy or version and
// a truncated or corrupt state, and leaves w unchanged on error.
func (w *BIPOP) UnmarshalBinary(data []byte) error {
	if w == nil {
		return errors.New("es: BIPOP.UnmarshalBinary into a nil *BIPOP")
	}
	r, err := openState(data, bipopStateName)
	if err != nil {
		return err
	}
	var v BIPOP
	v.sigma0 = r.float()
	v.small = r.int()
	v.inSmall = r.bool()
	v.smallEvals = r.int()
	v.largeEvals = r.int()
	v.runBudget = r.float()
	ipop := []byte(r.string())
	if err := r.done(); err != nil {
		return err
	}
	if !(v.sigma0 > 0) || math.IsInf(v.sigma0, 1) || v.small < 0 || v.smallEvals < 0 || v.largeEvals < 0 ||
		!(v.runBudget >= 0) || math.IsInf(v.runBudget, 1) {
		return errorOf(ErrCorruptState, "es: saved bipop state corrupt: bad sigma0, count or budget")
	}
	if err := v.ipopPart.UnmarshalBinary(ipop); err != nil {
		return errorOf(ErrCorruptState, "es: saved bipop state: %w", err)
	}
	if !RestartsBIPOP.Supports(v.name) {
		return errorOf(ErrCorruptState, "es: saved bipop state corrupt: strategy %q", v.name)
	}
	*w = v
	return nil
}
