package es

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// The generation every strategy follows. A strategy is a struct of its own
// file that embeds core (and dense when it keeps a full transformation A);
// its row of the table (registry.go) makes it known. Its methods follow one
// skeleton, with the helpers of core named here:
//
//	setup(cfg)       from the Config resolve completed: setupCore (mean,
//	                 sigma, best point, counters, the schedule of the
//	                 covariance checks), setupDense for A, then its own
//	                 constants and state
//	Ask(pop)         checkAsk; at the first Ask of a generation, draw its
//	                 vectors, vector k from the sub-stream (seed,
//	                 purposeSample, generation, k), and set pending; write
//	                 the candidates into pop (resize); toBox carries them
//	                 into the box of Config.Bounds
//	Tell(f)          checkTell; count the evaluations; update the best point
//	                 (improves, setBest); rank (rankOrder: NaN and +Inf
//	                 last, ties by row), by penalized values in a box; the
//	                 strategy's update; gen++ and pending = false; the stop
//	                 criteria: its own, then checkSigma and the covariance
//	                 checks (dense.checkCovariance, checkAxes)
//	MarshalBinary    newStateWriter, marshalCore with its shape, its fields
//	UnmarshalBinary  openStrategyState; setup a fresh value with the saved
//	                 Config; unmarshalCore; its fields; r.done(); redraw the
//	                 vectors of a pending generation (a function of the
//	                 seed); then replace the receiver
//
// Nothing else is shared, and nothing here assumes a d×d matrix: core holds
// O(d) numbers.

// The purposes of the random sub-streams of a strategy. A draw is a
// function of (seed, purpose, generation, index) only, so the saved state
// needs no generator position.
const (
	// purposeInit draws the initial mean X0 (generation 0, index 0).
	purposeInit rng.Purpose = 1
	// purposeSample draws the search vectors: vector k of generation g
	// comes from the sub-stream (purposeSample, g, k).
	purposeSample rng.Purpose = 2
)

// core is the state every strategy shares: configuration, the mean and
// sigma of the search distribution, best-so-far, counters and stop state.
type core struct {
	name string
	row  *strategyRow // the strategy's row of the table
	cfg  Config       // resolved: every default filled in; X0 and A0 are not kept
	key  rng.Key
	// out carries the search space to the objective's points: the scales
	// Stds and the map of Bounds (docs/ALGORITHMS.md Section 14). mean,
	// bestX and A live in the search space; Ask, Best and Mean hand out
	// mapped points.
	out searchMap
	// disc holds the discrete coordinates of Config.Steps and their
	// margin (nil for none; docs/ALGORITHMS.md Section 19), shared with
	// out.
	disc *discrete

	mean  []float64
	fMean float64 // f(m) of the current mean, NaN while unknown
	sigma float64

	bestX   []float64 // the best point so far, valid when hasBest
	bestF   float64   // its value, +Inf while !hasBest
	hasBest bool      // a value other than NaN and +Inf was told

	evals     int
	gen       int
	pending   bool // an Ask is waiting for its Tell
	stop      Reason
	nonFinite int // generations in a row without a finite value (Sec. 13 item 8)
	// stallGens counts the generations in a row that meet a strategy's
	// own stall condition: for the elitist strategies, no progress by
	// TolFun from the parent value flatRef (noProgress); for hees2, a mean
	// better than every candidate (departure 7).
	stallGens int
	flatRef   float64

	checks checker
	// ranking is the scratch of the ranking penalty of bounded population
	// strategies (penalized).
	ranking boundRanking
}

// setupCore initialises the state shared by every strategy from a resolved
// configuration: the mean at the preimage of X0 (or of a uniform draw from
// the box of Bounds and [-Box, Box]^d with the seed), sigma = Sigma0, and
// the schedule of the covariance checks for evalsPerGen evaluations per
// generation; evalsPerGen = 0 leaves it empty, for a strategy that runs
// its own criteria.
func (c *core) setupCore(name string, cfg Config, evalsPerGen int) {
	d := cfg.Dim
	c.name = name
	c.row = rowOf(name)
	c.key = rng.KeyFromSeed(cfg.Seed)
	cfg.Bounds, cfg.Stds, cfg.Steps = cfg.Bounds.clone(), slices.Clone(cfg.Stds), slices.Clone(cfg.Steps)
	c.disc = newDiscrete(cfg)
	c.out = newSearchMap(d, cfg.Bounds, cfg.Stds, c.disc)
	c.mean = make([]float64, d)
	if cfg.X0 != nil {
		copy(c.mean, cfg.X0)
	} else {
		cfg.Bounds.drawX0(c.mean, c.key, cfg.Box)
	}
	// resolve checked that X0 lies in the box, and drawX0 draws in it.
	if err := c.out.invert(c.mean, c.mean); err != nil {
		panic(err)
	}
	c.fMean = math.NaN()
	c.sigma = cfg.Sigma0
	c.bestX = make([]float64, d)
	c.bestF = math.Inf(1)
	c.hasBest = false
	c.evals, c.gen, c.pending, c.stop, c.nonFinite = 0, 0, false, "", 0
	c.stallGens, c.flatRef = 0, math.NaN()
	cfg.X0, cfg.A0 = nil, nil
	c.cfg = cfg
	c.checks = checker{}
	if evalsPerGen > 0 {
		c.checks.setup(d, evalsPerGen)
	}
}

// Name returns the strategy's short name.
func (c *core) Name() string { return c.name }

// Dim returns the dimension of the search space.
func (c *core) Dim() int { return c.cfg.Dim }

// Mean copies the current mean, mapped into the box, into dst resized to
// Dim (its storage reused when large enough) and returns it.
func (c *core) Mean(dst []float64) []float64 {
	dst = slicesGrow(dst, len(c.mean))
	c.out.apply(dst, c.mean)
	return dst
}

// toBox carries the candidates that Ask wrote into pop from the search
// space to the objective's points, in place: the one call every strategy's
// Ask ends with (docs/ALGORITHMS.md Section 14). Without Bounds and Stds it
// changes nothing. O(d) per candidate, no allocation.
func (c *core) toBox(pop *linalg.Dense) {
	if c.out.identity() {
		return
	}
	rows, _ := pop.Dims()
	for i := range rows {
		row := pop.RawRow(i)
		c.disc.stretch(row, c.mean) // the margin's factors (discrete coordinates)
		c.out.apply(row, row)
	}
}

// stretchBest applies the margin's factors to the best point the strategy
// has just written into bestX from a candidate of the current generation,
// so that Best maps it to the point that was evaluated (toBox).
func (c *core) stretchBest() { c.disc.stretch(c.bestX, c.mean) }

// askInitial writes the initial mean alone, generation 0 of the elitist
// strategies.
func (c *core) askInitial(pop *linalg.Dense) {
	c.pending = true
	resize(pop, 1, c.cfg.Dim)
	copy(pop.RawRow(0), c.mean)
	c.toBox(pop)
}

// Sigma returns the current global step size.
func (c *core) Sigma() float64 { return c.sigma }

// Best returns a copy of the best point told so far, mapped into the box
// (the point that was evaluated), and its value, or nil and +Inf before a
// finite value was told.
func (c *core) Best() ([]float64, float64) {
	if !c.hasBest {
		return nil, math.Inf(1)
	}
	x := make([]float64, len(c.bestX))
	c.out.apply(x, c.bestX)
	return x, c.bestF
}

// Evals returns the number of objective values told so far.
func (c *core) Evals() int { return c.evals }

// Generation returns the number of completed Ask/Tell rounds.
func (c *core) Generation() int { return c.gen }

// Stop returns the internal stop criterion that fired, or "".
func (c *core) Stop() Reason { return c.stop }

// improves reports whether f would become the new best value: it is not
// NaN or +Inf and is strictly better than the best so far.
func (c *core) improves(f float64) bool {
	return !worstValue(f) && (!c.hasBest || f < c.bestF)
}

// setBest records x (copied) with value f as the best so far.
func (c *core) setBest(x []float64, f float64) {
	copy(c.bestX, x)
	c.bestF = f
	c.hasBest = true
}

// askLambda is the Ask of the strategies with a population of lambda
// (cmaes, sepcma, lmmaes): it writes the lambda candidates of the current
// generation into pop (point writes candidate k), drawing the generation
// first (draw) unless it was asked already, and maps them into the box.
func (c *core) askLambda(pop *linalg.Dense, lambda int, draw func(), point func(dst []float64, k int)) error {
	if err := c.checkAsk(pop); err != nil {
		return err
	}
	if !c.pending {
		draw()
		c.pending = true
	}
	resize(pop, lambda, c.cfg.Dim)
	for k := range lambda {
		point(pop.RawRow(k), k)
	}
	c.toBox(pop)
	return nil
}

// checkAsk returns an error when the strategy cannot be asked or pop is nil.
func (c *core) checkAsk(pop *linalg.Dense) error {
	if pop == nil {
		return fmt.Errorf("es: %s: Ask needs a matrix to write the candidates into, got nil", c.name)
	}
	if c.stop != "" {
		return errorOf(ErrStopped, "es: %s: Ask after the strategy stopped (%s)", c.name, c.stop)
	}
	return nil
}

// checkTell returns an error when the values f cannot be told.
func (c *core) checkTell(f []float64, rows int) error {
	if !c.pending {
		return errorOf(ErrNoAsk, "es: %s: Tell without a pending Ask", c.name)
	}
	if len(f) != rows {
		return fmt.Errorf("es: %s: Tell got %d values for the %d candidates asked", c.name, len(f), rows)
	}
	return nil
}

// marshalCore writes the configuration and the shared moving state, with
// the strategy's shape (its A, or nothing) after sigma.
func (c *core) marshalCore(w *stateWriter, sh shape) {
	cfg := &c.cfg
	w.int(cfg.Dim)
	w.uint(cfg.Seed)
	w.float(cfg.Sigma0)
	w.float(cfg.Box)
	w.int(cfg.Pairs)
	writeTuning(w, cfg)

	w.floats(c.mean)
	w.float(c.fMean)
	w.float(c.sigma)
	if sh != nil {
		sh.writeShape(w, c.cfg.Dim)
	}
	w.bool(c.hasBest)
	w.floats(c.bestX)
	w.float(c.bestF)
	w.int(c.evals)
	w.int(c.gen)
	w.bool(c.pending)
	w.string(string(c.stop))
	w.int(c.nonFinite)
	w.int(c.stallGens)
	w.float(c.flatRef)
	w.int(c.checks.count)
}

// openStrategyState opens the state of strategy name (openState) and reads
// its configuration (readConfig).
func openStrategyState(data []byte, name string) (*stateReader, Config, error) {
	r, err := openState(data, name)
	if err != nil {
		return nil, Config{}, err
	}
	cfg, err := readConfig(r, name)
	return r, cfg, err
}

// readConfig reads the configuration written by marshalCore and validates
// it as a configuration of strategy name (a corrupted field is an error).
func readConfig(r *stateReader, name string) (Config, error) {
	var cfg Config
	cfg.Dim = r.int()
	cfg.Seed = r.uint()
	cfg.Sigma0 = r.float()
	cfg.Box = r.float()
	cfg.Pairs = r.int()
	readTuning(r, &cfg)
	if r.err != nil {
		return cfg, r.err
	}
	// The sizes decide what setup allocates, so they are checked first: the
	// rest of the state holds A, Dim×Dim floats (before version 3), or at
	// least the mean, Dim floats, and no population exceeds the bound of
	// IPOP, which doubles it.
	d, room := cfg.Dim, len(r.b)/8
	if r.version != stateVersionNoA && d > 0 {
		room /= d
	}
	if d > room {
		r.fail("Dim = %d with %d bytes left", d, len(r.b))
		return cfg, r.err
	}
	if cfg.Pairs > maxPopulation {
		r.fail("Pairs = %d exceeds %d", cfg.Pairs, maxPopulation)
		return cfg, r.err
	}
	rc, err := resolve(name, cfg)
	if err != nil {
		return cfg, errorOf(ErrCorruptState, "es: saved %s state corrupt: %w", name, err)
	}
	return rc, nil
}

// writeTuning writes the tuning fields of cfg, the tail of both saved
// configurations (a strategy's, resolved, and IPOP's, as given), and, when
// cfg has Bounds or Stds, those (in the latest version of the format; a
// state without them stays in the plain version).
func writeTuning(w *stateWriter, cfg *Config) {
	w.float(cfg.Kappa)
	w.float(cfg.EtaA)
	w.float(cfg.CS)
	w.float(cfg.DS)
	w.float(cfg.CSigma)
	w.float(cfg.TolFun)
	if cfg.Bounds == nil && cfg.Stds == nil && cfg.Steps == nil && w.version == stateVersionPlain {
		return // the plain version: byte for byte as before bounds existed
	}
	if cfg.Steps != nil {
		w.upgrade(stateVersionSteps)
	} else {
		w.upgrade(stateVersionBounds)
	}
	b := cfg.Bounds
	if b == nil {
		b = &Bounds{}
	}
	for _, v := range [][]float64{b.Lower, b.Upper, cfg.Stds} {
		w.optFloats(v)
	}
	if w.version >= stateVersionSteps {
		w.optFloats(cfg.Steps)
		w.float(cfg.Margin)
	}
}

// readTuning reads the fields written by writeTuning into cfg.
func readTuning(r *stateReader, cfg *Config) {
	cfg.Kappa = r.float()
	cfg.EtaA = r.float()
	cfg.CS = r.float()
	cfg.DS = r.float()
	cfg.CSigma = r.float()
	cfg.TolFun = r.float()
	if r.version < stateVersionBounds {
		return // no bounds, no scales
	}
	var v [3][]float64
	for i := range v {
		v[i], _ = r.optFloats()
	}
	if v[0] != nil || v[1] != nil {
		cfg.Bounds = &Bounds{Lower: v[0], Upper: v[1]}
	}
	cfg.Stds = v[2]
	if r.version >= stateVersionSteps {
		cfg.Steps, _ = r.optFloats()
		cfg.Margin = r.float()
	}
}

// unmarshalCore reads the shared moving state written by marshalCore (after
// the configuration) into a core already set up with that configuration,
// and the shape into sh.
func (c *core) unmarshalCore(r *stateReader, sh shape) {
	d := c.cfg.Dim
	c.mean = r.floats(c.mean)
	c.fMean = r.float()
	c.sigma = r.float()
	if sh != nil {
		sh.readShape(r, d)
	}
	c.hasBest = r.bool()
	c.bestX = r.floats(c.bestX)
	c.bestF = r.float()
	c.evals = r.int()
	c.gen = r.int()
	c.pending = r.bool()
	c.stop = Reason(r.string())
	c.nonFinite = r.int()
	c.stallGens = r.int()
	c.flatRef = r.float()
	c.checks.count = r.int()
	if r.err != nil {
		return
	}
	switch {
	case len(c.mean) != d:
		r.fail("mean has length %d, want %d", len(c.mean), d)
	case len(c.bestX) != d:
		r.fail("best point has length %d, want %d", len(c.bestX), d)
	case !c.hasBest && c.bestF != math.Inf(1):
		r.fail("best value %v without a best point", c.bestF)
	case c.hasBest && (math.IsNaN(c.bestF) || math.IsInf(c.bestF, 1)):
		r.fail("best point with the value %v, which is never a best value", c.bestF)
	case !(c.sigma > 0):
		r.fail("sigma = %v", c.sigma)
	case !knownReason(c.stop):
		r.fail("unknown stop reason %q", c.stop)
	case c.evals < 0 || c.gen < 0 || c.nonFinite < 0 || c.stallGens < 0 || c.checks.count < 0:
		r.fail("negative counter")
	}
}

// resize makes m an r×c zero matrix, reusing its storage when it is large
// enough: the contract of Ask for the caller's population matrix, whose
// shape may change between generations.
func resize(m *linalg.Dense, r, c int) {
	if rows, cols := m.Dims(); rows != r || cols != c {
		m.Reset()
	}
	m.ReuseAs(r, c)
}

// StepSize returns the global step size of s in the objective's units:
// Sigma times the geometric mean of the per-coordinate scales
// Config.Stds, since the step along coordinate i is Sigma·Stds_i (before
// A and the box map), and Sigma itself without Stds. With the scales that
// Bounds give by default, whose geometric mean is 1, it is Sigma. A nil
// strategy has step size 0.
func StepSize(s Strategy) float64 {
	if s == nil {
		return 0
	}
	if sc, ok := s.(scaled); ok {
		return s.Sigma() * sc.scaleMean()
	}
	return s.Sigma()
}

// scaled is implemented by the strategies (through core) and the restart
// wrappers: the geometric mean of the scales that carry the strategy's
// coordinates to the objective's.
type scaled interface {
	scaleMean() float64
}

// scaleMean returns the geometric mean of Config.Stds, 1 without them.
func (c *core) scaleMean() float64 {
	if c.out.stds == nil {
		return 1
	}
	var logs float64
	for _, s := range c.out.stds {
		logs += xmath.Log(s)
	}
	return xmath.Exp(logs / float64(len(c.out.stds)))
}

// scaleMean is the current run's (1 for a zero or nil IPOP).
func (w *IPOP) scaleMean() float64 {
	if w.unset() {
		return 1
	}
	if sc, ok := w.inner.(scaled); ok {
		return sc.scaleMean()
	}
	return 1
}

// scaleMean is the current run's (1 for a zero or nil BIPOP).
func (w *BIPOP) scaleMean() float64 { return w.ipop().scaleMean() }
