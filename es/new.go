package es

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// The strategy names accepted by New.
const (
	nameES11   = "es11"
	nameHEES14 = "hees14"
	nameHEES   = "hees"
	nameHEES2  = "hees2"
	nameCMA11  = "cma11"
	nameCMAES  = "cmaes"
)

// Names returns the names New accepts, in the order of the package
// documentation.
func Names() []string {
	return []string{nameES11, nameHEES14, nameHEES, nameHEES2, nameCMA11, nameCMAES}
}

// New returns the strategy called name configured by cfg:
//
//	es11    (1+1)-ES with the 1/5 success rule
//	hees14  (1+4)-HE-ES (Algorithm 4 of Glasmachers & Krause)
//	hees    full HE-ES with mirrored sampling (Algorithm 1)
//	hees2   hees with the path as a search direction (see hees2.go)
//	cma11   (1+1)-CMA-ES, 2009 variant with evolution path
//	cmaes   (mu/mu_w, lambda)-CMA-ES with the tutorial's defaults
//
// Every default of cfg is derived here (see the fields of Config). A bad
// configuration, such as Dim < 2 for an HE-ES variant, a non-positive or
// non-finite Sigma0, a non-finite X0 or one of the wrong length, Pairs < 0
// or Pairs set for a fixed-population strategy, Lambda < 2 for cmaes or
// Lambda set for another strategy, is an error that names the field.
func New(name string, cfg Config) (Strategy, error) {
	rc, err := resolve(name, cfg)
	if err != nil {
		return nil, err
	}
	s := newStrategy(name)
	s.setup(rc)
	return s, nil
}

// strategy is a Strategy that can be set up from a resolved Config.
type strategy interface {
	Strategy
	setup(cfg Config)
}

// newStrategy returns the zero value of strategy name, one of Names().
func newStrategy(name string) strategy {
	switch name {
	case nameES11:
		return new(es11)
	case nameHEES14:
		return new(hees14)
	case nameHEES:
		return new(hees)
	case nameHEES2:
		return new(hees2)
	case nameCMA11:
		return new(cma11)
	case nameCMAES:
		return new(cmaes)
	}
	panic("es: no strategy " + name) // resolve and Load accept only Names()
}

// Load restores a strategy from a state written by its MarshalBinary,
// whichever strategy it was. The state names its strategy; Load returns an
// error for a state that is not one, is truncated or corrupt, or has an
// unsupported version.
func Load(data []byte) (Strategy, error) {
	name, _, err := parseStateHeader(data)
	if err != nil {
		return nil, err
	}
	var s Strategy
	switch {
	case name == ipopStateName:
		s = new(IPOP)
	case slices.Contains(Names(), name):
		s = newStrategy(name)
	default:
		return nil, fmt.Errorf("es: saved state of unknown strategy %q", name)
	}
	if err := s.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return s, nil
}

// resolve validates cfg for strategy name and fills in every default. The
// returned X0 and A0 are the caller's (New's setup copies them).
func resolve(name string, cfg Config) (Config, error) {
	heesFamily := name == nameHEES || name == nameHEES14 || name == nameHEES2
	fullHEES := name == nameHEES || name == nameHEES2
	if !slices.Contains(Names(), name) {
		return cfg, fmt.Errorf("es: unknown strategy %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	d := cfg.Dim
	switch {
	case heesFamily && d < 2:
		return cfg, fmt.Errorf("es: Config.Dim = %d: %s needs at least 2 dimensions", d, name)
	case d < 1:
		return cfg, fmt.Errorf("es: Config.Dim = %d: must be at least 1", d)
	}
	if cfg.Sigma0 == 0 {
		cfg.Sigma0 = 2
	}
	if !(cfg.Sigma0 > 0) || math.IsInf(cfg.Sigma0, 1) {
		return cfg, fmt.Errorf("es: Config.Sigma0 = %v: must be positive and finite", cfg.Sigma0)
	}
	if cfg.Box == 0 {
		cfg.Box = 3
	}
	if !(cfg.Box > 0) || math.IsInf(cfg.Box, 1) {
		return cfg, fmt.Errorf("es: Config.Box = %v: must be positive and finite", cfg.Box)
	}
	if cfg.X0 != nil {
		if len(cfg.X0) != d {
			return cfg, fmt.Errorf("es: Config.X0 has length %d, want Dim = %d", len(cfg.X0), d)
		}
		for i, v := range cfg.X0 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return cfg, fmt.Errorf("es: Config.X0[%d] = %v: must be finite", i, v)
			}
		}
	}
	if cfg.A0 != nil {
		if name == nameES11 {
			return cfg, fmt.Errorf("es: Config.A0: %s has no transformation matrix", name)
		}
		if err := checkA0(cfg.A0, d); err != nil {
			return cfg, err
		}
	}
	if cfg.Pairs < 0 || cfg.Pairs > maxPopulation {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: must be in [0, %d]", cfg.Pairs, maxPopulation)
	}
	if fullHEES {
		if cfg.Pairs == 0 {
			cfg.Pairs = pairsOf(name, d)
		}
	} else if cfg.Pairs != 0 && name == nameCMAES {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: %s sets its population with Lambda (leave Pairs 0)", cfg.Pairs, name)
	} else if cfg.Pairs != 0 {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: %s has a fixed population (leave Pairs 0)", cfg.Pairs, name)
	}
	if cfg.Lambda < 0 || cfg.Lambda > maxPopulation {
		return cfg, fmt.Errorf("es: Config.Lambda = %d: must be in [0, %d]", cfg.Lambda, maxPopulation)
	}
	if name == nameCMAES {
		if cfg.Lambda == 0 {
			cfg.Lambda = defaultLambda(d)
		}
		if cfg.Lambda < 2 {
			return cfg, fmt.Errorf("es: Config.Lambda = %d: %s needs at least 2 (mu = floor(lambda/2) parents)", cfg.Lambda, name)
		}
	} else if cfg.Lambda != 0 {
		return cfg, fmt.Errorf("es: Config.Lambda = %d: only cmaes has a population size lambda (leave Lambda 0)", cfg.Lambda)
	}

	if !heesFamily {
		if cfg.Kappa != 0 {
			return cfg, fmt.Errorf("es: Config.Kappa: %s has no computeG (only hees, hees2 and hees14)", name)
		}
		if cfg.EtaA != 0 {
			return cfg, fmt.Errorf("es: Config.EtaA: %s has no computeG (only hees, hees2 and hees14)", name)
		}
	} else {
		if cfg.Kappa == 0 {
			cfg.Kappa = 3 // reference code, ALGORITHMS.md Sec. 3
			if name == nameHEES14 {
				cfg.Kappa = math.Inf(1) // analysed setting, Sec. 13 item 2
			}
		}
		if !(cfg.Kappa >= 1) {
			return cfg, fmt.Errorf("es: Config.Kappa = %v: must be at least 1 (+Inf switches the trust region off)", cfg.Kappa)
		}
		if cfg.EtaA == 0 {
			cfg.EtaA = 0.5 // reference code, ALGORITHMS.md Sec. 3
			if name == nameHEES14 {
				cfg.EtaA = 1 // analysed setting, Sec. 13 item 2
			}
		}
		if !(cfg.EtaA > 0) || math.IsInf(cfg.EtaA, 1) {
			return cfg, fmt.Errorf("es: Config.EtaA = %v: must be positive and finite", cfg.EtaA)
		}
	}

	if !fullHEES {
		if cfg.CS != 0 {
			return cfg, fmt.Errorf("es: Config.CS: only hees and hees2 have cumulative step-size adaptation, not %s", name)
		}
		if cfg.DS != 0 {
			return cfg, fmt.Errorf("es: Config.DS: only hees and hees2 have cumulative step-size adaptation, not %s", name)
		}
	} else {
		if cfg.CS == 0 {
			cfg.CS = newHEESParams(d, cfg.Pairs, 0, 0).cs
		}
		if !(cfg.CS > 0 && cfg.CS <= 1) {
			return cfg, fmt.Errorf("es: Config.CS = %v: must be in (0, 1]", cfg.CS)
		}
		if cfg.DS == 0 {
			cfg.DS = newHEESParams(d, cfg.Pairs, cfg.CS, 0).ds
		}
		if !(cfg.DS > 0) || math.IsInf(cfg.DS, 1) {
			return cfg, fmt.Errorf("es: Config.DS = %v: must be positive and finite", cfg.DS)
		}
	}

	if name == nameES11 || name == nameHEES14 {
		if cfg.CSigma == 0 {
			cfg.CSigma = defaultCSigma(d)
		}
		if !(cfg.CSigma > 1) || math.IsInf(cfg.CSigma, 1) {
			return cfg, fmt.Errorf("es: Config.CSigma = %v: must be greater than 1 and finite", cfg.CSigma)
		}
	} else if cfg.CSigma != 0 {
		return cfg, fmt.Errorf("es: Config.CSigma: only es11 and hees14 use the 1/5 rule, not %s", name)
	}

	if math.IsNaN(cfg.TolFun) {
		return cfg, fmt.Errorf("es: Config.TolFun is NaN (use a negative value to switch it off)")
	}
	if cfg.TolFun == 0 {
		cfg.TolFun = 1e-11 // pycma's tolfun, ALGORITHMS.md Sec. 8
		if name == nameHEES {
			cfg.TolFun = 1e-9 // reference code's restart rule, Sec. 4.1
		}
	}
	return cfg, nil
}

// checkA0 reports whether a0 can be an initial transformation in dimension d.
func checkA0(a0 *linalg.Dense, d int) error {
	r, c := a0.Dims()
	if r != d || c != d {
		return fmt.Errorf("es: Config.A0 is %d×%d, want Dim×Dim = %d×%d", r, c, d, d)
	}
	for i := 0; i < d; i++ {
		for j, v := range a0.RawRow(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("es: Config.A0[%d][%d] = %v: must be finite", i, j, v)
			}
		}
	}
	if _, sign := linalg.LogDet(a0); sign == 0 {
		return fmt.Errorf("es: Config.A0 is singular")
	}
	return nil
}

// core is the state every strategy shares: configuration, search
// distribution m + sigma A N(0, I), best-so-far, counters and stop state.
type core struct {
	name string
	cfg  Config // resolved: every default filled in; X0 and A0 are not kept
	key  rng.Key

	mean    []float64
	fMean   float64 // f(m) of the current mean, NaN while unknown
	sigma   float64
	a       linalg.Dense // the transformation A
	logDetA float64      // log|det A|, tracked incrementally (Sec. 13 item 5)

	bestX   []float64 // the best point so far, valid when hasBest
	bestF   float64   // its value, +Inf while !hasBest
	hasBest bool      // a value other than NaN and +Inf was told

	evals     int
	gen       int
	pending   bool // an Ask is waiting for its Tell
	stop      Reason
	nonFinite int // generations in a row without a finite value (Sec. 13 item 8)
	// flatGens counts the elitist generations in a row without progress by
	// TolFun, measured from the parent value flatRef (see noProgress).
	flatGens int
	flatRef  float64

	checks checker
}

// setupCore initialises the state shared by every strategy from a resolved
// configuration: the mean X0 (or a uniform draw from [-Box, Box]^d with the
// seed), A = A0 (or I), sigma = Sigma0, and the shared covariance checker
// for evalsPerGen evaluations per generation; evalsPerGen = 0 leaves the
// checker empty, for a strategy that runs its own criteria.
func (c *core) setupCore(name string, cfg Config, evalsPerGen int) {
	d := cfg.Dim
	c.name = name
	c.key = rng.KeyFromSeed(cfg.Seed)
	c.mean = make([]float64, d)
	if cfg.X0 != nil {
		copy(c.mean, cfg.X0)
	} else {
		st := rng.NewStream(c.key, purposeInit, 0, 0)
		st.FillFloat64(c.mean)
		for i, u := range c.mean {
			c.mean[i] = float64(cfg.Box * (2*u - 1))
		}
	}
	c.fMean = math.NaN()
	c.sigma = cfg.Sigma0
	if cfg.A0 != nil {
		c.a.CopyFrom(cfg.A0)
		var work linalg.Dense
		work.CopyFrom(cfg.A0)
		c.logDetA = logAbsDet(&work)
	} else {
		c.a.ReuseAs(d, d)
		c.a.SetIdentity()
		c.logDetA = 0
	}
	c.bestX = make([]float64, d)
	c.bestF = math.Inf(1)
	c.hasBest = false
	c.evals, c.gen, c.pending, c.stop, c.nonFinite = 0, 0, false, "", 0
	c.flatGens, c.flatRef = 0, math.NaN()
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

// Mean copies the current mean into dst (allocating when dst is nil) and
// returns it.
func (c *core) Mean(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(c.mean))
	}
	copy(dst, c.mean)
	return dst
}

// Sigma returns the current global step size.
func (c *core) Sigma() float64 { return c.sigma }

// Transform returns the current transformation A, owned by the strategy.
func (c *core) Transform() *linalg.Dense { return &c.a }

// Best returns a copy of the best point told so far and its value, or nil
// and +Inf before a finite value was told.
func (c *core) Best() ([]float64, float64) {
	if !c.hasBest {
		return nil, math.Inf(1)
	}
	return append([]float64(nil), c.bestX...), c.bestF
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

// checkAsk returns an error when the strategy cannot be asked.
func (c *core) checkAsk() error {
	if c.stop != "" {
		return fmt.Errorf("es: %s: Ask after the strategy stopped (%s)", c.name, c.stop)
	}
	return nil
}

// checkTell returns an error when the values f cannot be told.
func (c *core) checkTell(f []float64, rows int) error {
	if !c.pending {
		return fmt.Errorf("es: %s: Tell without a pending Ask", c.name)
	}
	if len(f) != rows {
		return fmt.Errorf("es: %s: Tell got %d values for the %d candidates asked", c.name, len(f), rows)
	}
	return nil
}

// marshalCore writes the configuration and the shared moving state.
func (c *core) marshalCore(w *stateWriter) {
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
	w.matrix(&c.a)
	w.float(c.logDetA)
	w.bool(c.hasBest)
	w.floats(c.bestX)
	w.float(c.bestF)
	w.int(c.evals)
	w.int(c.gen)
	w.bool(c.pending)
	w.string(string(c.stop))
	w.int(c.nonFinite)
	w.int(c.flatGens)
	w.float(c.flatRef)
	w.int(c.checks.count)
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
	// rest of the state holds A, Dim×Dim floats, and no population exceeds
	// the bound of IPOP, which doubles it.
	if d := cfg.Dim; d > 0 && d > len(r.b)/8/d {
		r.fail("Dim = %d with %d bytes left", d, len(r.b))
		return cfg, r.err
	}
	if cfg.Pairs > maxPopulation {
		r.fail("Pairs = %d exceeds %d", cfg.Pairs, maxPopulation)
		return cfg, r.err
	}
	rc, err := resolve(name, cfg)
	if err != nil {
		return cfg, fmt.Errorf("es: saved %s state corrupt: %w", name, err)
	}
	return rc, nil
}

// writeTuning writes the tuning fields of cfg, the tail of both saved
// configurations (a strategy's, resolved, and IPOP's, as given).
func writeTuning(w *stateWriter, cfg *Config) {
	w.float(cfg.Kappa)
	w.float(cfg.EtaA)
	w.float(cfg.CS)
	w.float(cfg.DS)
	w.float(cfg.CSigma)
	w.float(cfg.TolFun)
}

// readTuning reads the fields written by writeTuning into cfg.
func readTuning(r *stateReader, cfg *Config) {
	cfg.Kappa = r.float()
	cfg.EtaA = r.float()
	cfg.CS = r.float()
	cfg.DS = r.float()
	cfg.CSigma = r.float()
	cfg.TolFun = r.float()
}

// unmarshalCore reads the shared moving state written by marshalCore (after
// the configuration) into a core already set up with that configuration.
func (c *core) unmarshalCore(r *stateReader) {
	d := c.cfg.Dim
	c.mean = r.floats(c.mean)
	c.fMean = r.float()
	c.sigma = r.float()
	r.matrix(&c.a)
	c.logDetA = r.float()
	c.hasBest = r.bool()
	c.bestX = r.floats(c.bestX)
	c.bestF = r.float()
	c.evals = r.int()
	c.gen = r.int()
	c.pending = r.bool()
	c.stop = Reason(r.string())
	c.nonFinite = r.int()
	c.flatGens = r.int()
	c.flatRef = r.float()
	c.checks.count = r.int()
	if r.err != nil {
		return
	}
	rows, cols := c.a.Dims()
	switch {
	case len(c.mean) != d:
		r.fail("mean has length %d, want %d", len(c.mean), d)
	case rows != d || cols != d:
		r.fail("A is %d×%d, want %d×%d", rows, cols, d, d)
	case len(c.bestX) != d:
		r.fail("best point has length %d, want %d", len(c.bestX), d)
	case !c.hasBest && c.bestF != math.Inf(1):
		r.fail("best value %v without a best point", c.bestF)
	case !(c.sigma > 0):
		r.fail("sigma = %v", c.sigma)
	case c.evals < 0 || c.gen < 0 || c.nonFinite < 0 || c.flatGens < 0 || c.checks.count < 0:
		r.fail("negative counter")
	}
}
