package es

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// IPOPConfig configures the restarts of an IPOP wrapper.
type IPOPConfig struct {
	// MaxRestarts is the largest number of restarts; 0 means no limit
	// (the run then ends by the driver's budget, target or time, as in the
	// reference code's fmin, docs/ALGORITHMS.md Section 4.1).
	MaxRestarts int
}

// maxPopulation bounds Config.Pairs and Config.Lambda, in
// New, in Load and in the doubling of IPOP, which does not restart when the
// new run would need more: the strategy's memory grows with its population.
const maxPopulation = 1 << 20

// purposeRestart keys the seed of each restart of IPOP: restart r runs its
// inner strategy with the seed drawn from (Seed, purposeRestart, r, 0).
// The value is chosen apart from the strategies' purposes (es/core.go).
const purposeRestart rng.Purpose = 0x1905

// IPOP runs a strategy with restarts and an increasing population (Auger &
// Hansen 2005; for HE-ES as in the reference code's fmin, docs/ALGORITHMS.md
// Section 4.1). It is itself a Strategy: its Evals, Generation and Best span
// all runs, so the driver's budget is shared across restarts.
//
// When the inner strategy stops (its Stop reports a reason other than
// ReasonMinusInf; for the full HE-ES the usual one is the spread of the
// offspring values falling below its TolFun, 1e-9 by default), the next Tell
// starts a new inner strategy: with the population doubled (Pairs for the
// full HE-ES, Lambda for the CMA-ES; the elitist strategies keep their fixed
// population), a new initial mean
// uniform in [-Box, Box]^Dim, the same Sigma0, and the seed of restart r
// drawn from (Seed, r); the other fields of the Config (Sigma0, Box, A0,
// the strategy parameters) stay as given. The first run uses the Config as
// given, so until its first restart an IPOP is bit-identical to the plain
// strategy. Once MaxRestarts restarts are used up, Stop reports the last
// run's reason.
//
// Build an IPOP with NewIPOP; the zero IPOP is only a destination for
// UnmarshalBinary. Until it is set up its methods return zero values, Ask,
// Tell and MarshalBinary return an error, and so does Minimize.
type IPOP struct {
	name        string // the inner strategy's name
	cfg         Config // the Config of the first run
	maxRestarts int
	population0 int // Pairs (hees, hees2) or Lambda (cmaes) of the first run; 0 for fixed populations

	inner     Strategy
	restarts  int
	pastEvals int // evaluations of the finished runs
	pastGens  int // generations of the finished runs
	pastBestX []float64
	pastBestF float64 // best value of the finished runs (+Inf if none)
}

// NewIPOP returns an IPOP wrapper around the strategy New(name, cfg) would
// return. It reports the errors of New and a negative MaxRestarts.
func NewIPOP(name string, cfg Config, ipop IPOPConfig) (*IPOP, error) {
	if ipop.MaxRestarts < 0 {
		return nil, fmt.Errorf("es: NewIPOP: MaxRestarts = %d is negative", ipop.MaxRestarts)
	}
	inner, rc, err := newResolved(name, cfg)
	if err != nil {
		return nil, err
	}
	w := &IPOP{name: name, cfg: cfg, maxRestarts: ipop.MaxRestarts, pastBestF: math.Inf(1),
		population0: rowOf(name).populationOf(rc), inner: inner}
	// w.cfg outlives the call (restarts, MarshalBinary): keep copies of X0,
	// A0, Bounds, Stds and Steps, as New does.
	w.cfg.Bounds, w.cfg.Stds, w.cfg.Steps = cfg.Bounds.clone(), slices.Clone(cfg.Stds), slices.Clone(cfg.Steps)
	if cfg.X0 != nil {
		w.cfg.X0 = append([]float64(nil), cfg.X0...)
	}
	if cfg.A0 != nil {
		w.cfg.A0 = new(linalg.Dense)
		w.cfg.A0.CopyFrom(cfg.A0)
	}
	return w, nil
}

// restartSeed is the seed of restart r >= 1.
func restartSeed(seed uint64, r int) uint64 {
	s := rng.NewStream(rng.KeyFromSeed(seed), purposeRestart, uint64(r), 0)
	return s.Uint64()
}

// runConfig returns the Config of run r (r = 0 is the first run), and
// whether that run is allowed (its population stays within
// maxPopulation, maxSamples and MaxMemory).
func (w *IPOP) runConfig(r int) (Config, bool) {
	if r == 0 {
		return w.cfg, true
	}
	c := w.restartConfig(r)
	if w.population0 > 0 {
		if r >= 31 || w.population0 > maxPopulation>>r {
			return c, false
		}
		// IPOP: the population doubles at each restart (docs/ALGORITHMS.md
		// Section 4.1 for hees, Section 8 for the CMA-ES).
		row := rowOf(w.name)
		c = row.withPopulation(c, w.population0<<r)
		if checkMemory(row, c) != nil {
			return c, false
		}
	}
	return c, true
}

// restartConfig returns the first run's Config with the seed of restart
// r and no X0: a new uniform start in the box (Bounds, Box) from that seed.
func (w *IPOP) restartConfig(r int) Config {
	c := w.cfg
	c.X0 = nil
	c.Seed = restartSeed(w.cfg.Seed, r)
	return c
}

// Name is "ipop-" followed by the inner strategy's name
// (RestartsIPOP.Name), "ipop-" for a nil IPOP.
func (w *IPOP) Name() string {
	if w == nil {
		return RestartsIPOP.Name("")
	}
	return RestartsIPOP.Name(w.name)
}

// Dim is the dimension of the search space (0 for a zero or nil IPOP).
func (w *IPOP) Dim() int {
	if w == nil {
		return 0
	}
	return w.cfg.Dim
}

// PopulationSize is the current run's PopulationSize (0 for a zero IPOP).
func (w *IPOP) PopulationSize() int {
	if w.unset() {
		return 0
	}
	return w.inner.PopulationSize()
}

// Restarts is the number of restarts so far (0 for a nil IPOP).
func (w *IPOP) Restarts() int {
	if w == nil {
		return 0
	}
	return w.restarts
}

// errZeroIPOP is the error of Ask, Tell and MarshalBinary on an IPOP that
// neither NewIPOP nor UnmarshalBinary set up.
var errZeroIPOP = errors.New("es: IPOP not set up (use NewIPOP or UnmarshalBinary)")

// unsetWrapper returns the error of an *IPOP or *BIPOP that is nil or not
// set up, nil for any other strategy.
func unsetWrapper(s Strategy) error {
	switch w := s.(type) {
	case *IPOP:
		if w.unset() {
			return errZeroIPOP
		}
	case *BIPOP:
		if w.ipop().unset() {
			return errZeroBIPOP
		}
	}
	return nil
}

// unset reports whether w is nil or was set up by neither NewIPOP nor
// UnmarshalBinary.
func (w *IPOP) unset() bool { return w == nil || w.inner == nil }

// Ask writes the current run's candidates.
func (w *IPOP) Ask(pop *linalg.Dense) error {
	if w.unset() {
		return errZeroIPOP
	}
	return w.inner.Ask(pop)
}

// Tell tells the current run the values and starts the next run when the
// current one has stopped and a restart is left.
func (w *IPOP) Tell(f []float64) error {
	if w.unset() {
		return errZeroIPOP
	}
	if err := w.inner.Tell(f); err != nil {
		return err
	}
	reason := w.inner.Stop()
	if reason == "" || reason == ReasonMinusInf {
		return nil
	}
	if w.maxRestarts > 0 && w.restarts >= w.maxRestarts {
		return nil
	}
	cfg, ok := w.runConfig(w.restarts + 1)
	if !ok {
		return nil
	}
	next, err := New(w.name, cfg)
	if err != nil {
		// The first run's Config was valid, so only a derived field can
		// fail; stay stopped and say why.
		return fmt.Errorf("es: IPOP restart %d: %w", w.restarts+1, err)
	}
	w.restarts++
	w.startRun(next)
	return nil
}

// startRun folds the current run into the best point and the counts of
// the finished runs, and makes next the current run.
func (w *IPOP) startRun(next Strategy) {
	if x, f := w.inner.Best(); f < w.pastBestF {
		w.pastBestX, w.pastBestF = x, f
	}
	w.pastEvals += w.inner.Evals()
	w.pastGens += w.inner.Generation()
	w.inner = next
}

// Mean copies the current run's mean into dst (dst[:0] for a zero IPOP).
func (w *IPOP) Mean(dst []float64) []float64 {
	if w.unset() {
		return dst[:0]
	}
	return w.inner.Mean(dst)
}

// Sigma is the current run's step size (0 for a zero IPOP).
func (w *IPOP) Sigma() float64 {
	if w.unset() {
		return 0
	}
	return w.inner.Sigma()
}

// Transform is the current run's transformation A (Transformer), or nil
// when the current run keeps none or w is a zero IPOP.
func (w *IPOP) Transform() *linalg.Dense {
	if w.unset() {
		return nil
	}
	return TransformOf(w.inner)
}

// Best returns the best point and value over all runs (the earliest run
// wins a tie); nil and +Inf for a zero IPOP.
func (w *IPOP) Best() ([]float64, float64) {
	if w.unset() {
		return nil, math.Inf(1)
	}
	x, f := w.inner.Best()
	if w.pastBestF <= f {
		return append([]float64(nil), w.pastBestX...), w.pastBestF
	}
	return x, f
}

// Evals is the number of values told over all runs.
func (w *IPOP) Evals() int {
	if w.unset() {
		return 0 // nothing was told to a zero IPOP
	}
	return w.pastEvals + w.inner.Evals()
}

// Generation is the number of generations over all runs.
func (w *IPOP) Generation() int {
	if w.unset() {
		return 0
	}
	return w.pastGens + w.inner.Generation()
}

// Stop reports the last run's reason once no restart is left (MaxRestarts
// used up, the population at its bound, or -Inf told), and "" before (and
// for a zero IPOP).
func (w *IPOP) Stop() Reason {
	if w.unset() {
		return ""
	}
	return w.inner.Stop()
}

// ipopStateName names the IPOP state in its header, "hees-es/ipop/v1"; the
// format and checksum are those of the strategies' states (es/state.go).
const ipopStateName = "ipop"

// MarshalBinary saves the wrapper's state: the first run's Config, the
// counts and best point of the finished runs, and the current run's own
// state (its MarshalBinary bytes) embedded.
func (w *IPOP) MarshalBinary() ([]byte, error) {
	if w.unset() {
		return nil, errZeroIPOP
	}
	inner, err := w.inner.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("es: IPOP.MarshalBinary: %w", err)
	}
	b := newStateWriter(ipopStateName)
	b.string(w.name)
	writeConfig(b, &w.cfg)
	b.int(w.maxRestarts)
	b.int(w.restarts)
	b.int(w.pastEvals)
	b.int(w.pastGens)
	b.optFloats(w.pastBestX)
	b.float(w.pastBestF)
	b.string(string(inner))
	return b.finish(), nil
}

// writeConfig writes every field of cfg, as given by the user (defaults
// are derived again by New at each restart, for the doubled pairs).
func writeConfig(b *stateWriter, cfg *Config) {
	b.int(cfg.Dim)
	b.uint(cfg.Seed)
	b.float(cfg.Sigma0)
	b.optFloats(cfg.X0)
	b.float(cfg.Box)
	b.int(cfg.Pairs)
	b.int(cfg.Lambda)
	b.bool(cfg.A0 != nil)
	if cfg.A0 != nil {
		b.matrix(cfg.A0)
	}
	writeTuning(b, cfg)
}

// readUserConfig reads a Config written by writeConfig.
func readUserConfig(r *stateReader) Config {
	var cfg Config
	cfg.Dim = r.int()
	cfg.Seed = r.uint()
	cfg.Sigma0 = r.float()
	cfg.X0, _ = r.optFloats()
	cfg.Box = r.float()
	cfg.Pairs = r.int()
	cfg.Lambda = r.int()
	if r.bool() {
		cfg.A0 = new(linalg.Dense)
		r.matrix(cfg.A0)
	}
	readTuning(r, &cfg)
	return cfg
}

// UnmarshalBinary restores a state saved by MarshalBinary into w, which may
// be a zero IPOP. It rejects the state of another strategy or version and a
// truncated or corrupt state, and leaves w unchanged on error.
func (w *IPOP) UnmarshalBinary(data []byte) error {
	if w == nil {
		return errors.New("es: IPOP.UnmarshalBinary into a nil *IPOP")
	}
	r, err := openState(data, ipopStateName)
	if err != nil {
		return err
	}
	v := IPOP{name: r.string()}
	v.cfg = readUserConfig(r)
	v.maxRestarts = r.int()
	v.restarts = r.int()
	v.pastEvals = r.int()
	v.pastGens = r.int()
	var hasBest bool
	v.pastBestX, hasBest = r.optFloats()
	v.pastBestF = r.float()
	inner := []byte(r.string())
	if err := r.done(); err != nil {
		return err
	}
	switch {
	case !hasBest && v.pastBestF != math.Inf(1):
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: best value %v of the finished runs without a best point", v.pastBestF)
	case hasBest && (math.IsNaN(v.pastBestF) || math.IsInf(v.pastBestF, 1)):
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: best point of the finished runs with the value %v", v.pastBestF)
	case hasBest && len(v.pastBestX) != v.cfg.Dim:
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: best point of length %d, want Dim = %d", len(v.pastBestX), v.cfg.Dim)
	}
	if v.maxRestarts < 0 || v.restarts < 0 || v.pastEvals < 0 || v.pastGens < 0 {
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: negative count")
	}
	// NewIPOP accepted the name and the Config, so a state that New would
	// reject is corrupt (its next restart would fail). The population is
	// bounded first, as in readConfig: resolve allocates per pair.
	if v.cfg.Pairs > maxPopulation || v.cfg.Lambda > maxPopulation {
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: Pairs = %d, Lambda = %d exceeds %d",
			v.cfg.Pairs, v.cfg.Lambda, maxPopulation)
	}
	rc, err := resolve(v.name, v.cfg)
	if err != nil {
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: %w", err)
	}
	v.population0 = rowOf(v.name).populationOf(rc)
	if _, ok := v.runConfig(v.restarts); !ok {
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: restart %d is beyond the bound on the population", v.restarts)
	}
	s, err := Load(inner)
	if err != nil {
		return errorOf(ErrCorruptState, "es: saved ipop state: inner strategy: %w", err)
	}
	if s.Name() != v.name || s.Dim() != v.cfg.Dim {
		return errorOf(ErrCorruptState, "es: saved ipop state corrupt: inner strategy %s in %d dimensions, want %s in %d",
			s.Name(), s.Dim(), v.name, v.cfg.Dim)
	}
	v.inner = s
	*w = v
	return nil
}
