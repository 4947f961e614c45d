package es

import (
	"math"

	"github.com/hees-dev/hees/linalg"
)

// HEES14 is the name of the (1+4)-HE-ES.
const HEES14 = "hees14"

// hees14Row is the (1+4)-HE-ES's row of the table of strategies: four
// candidates, elitist, computeG's Kappa and EtaA in the analysed setting
// and the 1/5 rule's CSigma.
var hees14Row = strategyRow{
	Info: Info{
		Name:      HEES14,
		Summary:   "(1+4)-HE-ES, Algorithm 4 of Glasmachers & Krause",
		Elitist:   true,
		Transform: true,
		MinDim:    2, // two directions to compare curvatures
	},
	fixed:  4,
	tuning: []tuning{tuneKappa, tuneEtaA, tuneCSigma},
	tolFun: 1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	defaults: func(cfg *Config) error {
		// The analysed setting (docs/ALGORITHMS.md Section 13 item 2): no
		// trust region, eta_A = 1.
		if err := resolveComputeG(cfg, math.Inf(1), 1); err != nil {
			return err
		}
		return resolveCSigma(cfg)
	},
	memory: func(cfg Config) float64 { return denseMemory(cfg.Dim, 4) },
	zero:   func() strategy { return new(hees14) },
}

// hees14 is the (1+4)-HE-ES (Algorithm 4, docs/ALGORITHMS.md Section 5). Its
// generation 0 asks the initial mean alone; every later generation asks the
// two mirrored pairs x_1^+, x_1^-, x_2^+, x_2^- (rows 0-3) along two
// orthogonal directions. The four values adapt A; x_1^+ alone drives the
// mean and the 1/5 rule.
type hees14 struct {
	core
	dense
	ad      adaptation
	success float64 // c_sigma, the step-size factor on success
	failure float64 // c_sigma^(-1/4), the factor on failure
}

// setup initialises a (1+4)-HE-ES from a resolved configuration.
func (h *hees14) setup(cfg Config) {
	h.setupCore(HEES14, cfg, 4)
	h.setupDense(cfg.Dim, cfg.A0, true)
	h.ad.setup(2, cfg.Dim, cfg.Kappa, cfg.EtaA)
	h.success = cfg.CSigma
	h.failure = 1 / math.Sqrt(math.Sqrt(cfg.CSigma))
}

// PopulationSize is 4, the offspring of one generation after the first.
func (h *hees14) PopulationSize() int { return 4 }

// Ask writes the initial mean in generation 0 and x_1^+, x_1^-, x_2^+,
// x_2^- afterwards.
func (h *hees14) Ask(pop *linalg.Dense) error {
	if err := h.checkAsk(pop); err != nil {
		return err
	}
	if h.gen == 0 {
		h.askInitial(pop)
		return nil
	}
	if !h.pending {
		// Algorithm 4 line 4: two directions of one orthogonal block.
		if err := h.ad.sample(h.key, h.gen, &h.a); err != nil {
			return err
		}
		h.pending = true
	}
	resize(pop, 4, h.cfg.Dim)
	for k := 0; k < 2; k++ {
		// Lines 5-6: mirrored sampling.
		h.ad.candidate(pop.RawRow(2*k), h.mean, h.sigma, k, false)
		h.ad.candidate(pop.RawRow(2*k+1), h.mean, h.sigma, k, true)
	}
	h.toBox(pop)
	return nil
}

// Tell takes the values of the rows of the last Ask and performs one
// iteration of Algorithm 4.
func (h *hees14) Tell(f []float64) error {
	rows := 4
	if h.gen == 0 {
		rows = 1
	}
	if err := h.checkTell(f, rows); err != nil {
		return err
	}
	h.evals += rows
	if h.gen == 0 {
		h.tellInitial(f[0])
		return nil
	}
	parent := h.fMean
	best := 0
	for i := 1; i < 4; i++ {
		if compareValues(f[i], f[best]) < 0 {
			best = i
		}
	}
	if h.improves(f[best]) {
		h.ad.candidate(h.bestX, h.mean, h.sigma, best/2, best%2 == 1)
		h.bestF, h.hasBest = f[best], true
	}
	// Lines 9-14: the 1/5 rule on x_1^+ alone, accepting f_1^+ <= f(m).
	if accepts(f[0], parent) {
		h.ad.candidate(h.mean, h.mean, h.sigma, 0, false)
		h.fMean = f[0]
		h.sigma *= h.success
	} else {
		h.sigma *= h.failure
	}
	// Line 8: A <- A computeG(b_1, b_2, f(m^(t)), f_i^±). It comes last
	// because its determinant normalisation rescales sigma; lines 9-14 do
	// not read A.
	h.ad.adapt(&h.core, &h.dense, parent, f)
	h.finishElitist(f)
	if h.stop == "" {
		h.stop = h.checkCovariance(&h.core)
	}
	return nil
}

// MarshalBinary saves the complete state under the tag "hees-es/hees14/v1".
func (h *hees14) MarshalBinary() ([]byte, error) {
	w := newStateWriter(HEES14)
	h.marshalCore(w, &h.dense)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a hees14
// strategy, replacing the receiver's state entirely.
func (h *hees14) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, HEES14)
	if err != nil {
		return err
	}
	var fresh hees14
	fresh.setup(cfg)
	fresh.unmarshalCore(r, &fresh.dense)
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending && fresh.gen > 0 {
		// The directions are a function of (seed, generation): redraw them.
		if err := fresh.ad.sample(fresh.key, fresh.gen, &fresh.a); err != nil {
			return err
		}
	}
	*h = fresh
	return nil
}
