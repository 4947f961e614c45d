package es

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// ES11 is the name of the (1+1)-ES.
const ES11 = "es11"

// es11Row is the (1+1)-ES's row of the table of strategies: a fixed
// population of one, elitist, the 1/5 rule's CSigma, O(d) memory.
var es11Row = strategyRow{
	Info: Info{
		Name:    ES11,
		Summary: "(1+1)-ES with the 1/5 success rule",
		Elitist: true,
		MinDim:  1,
	},
	fixed:    1,
	tuning:   []tuning{tuneCSigma},
	tolFun:   1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	defaults: resolveCSigma,
	memory: func(cfg Config) float64 {
		// The mean, the best point, z, the search map and the scratch of
		// a generation: a few vectors of d numbers.
		return 8 * 16 * float64(cfg.Dim)
	},
	zero: func() strategy { return new(es11) },
}

// resolveCSigma fills in and checks CSigma, the success factor of the 1/5
// rule of es11 and hees14: c_sigma = exp(0.8 / sqrt(d + 1))
// (docs/ALGORITHMS.md Section 13 item 3, after Hansen, Arnold & Auger
// 2015); a failure multiplies sigma by c_sigma^(-1/4).
func resolveCSigma(cfg *Config) error {
	if cfg.CSigma == 0 {
		cfg.CSigma = xmath.Exp(0.8 / math.Sqrt(float64(cfg.Dim+1)))
	}
	if !(cfg.CSigma > 1) || math.IsInf(cfg.CSigma, 1) {
		return fmt.Errorf("es: Config.CSigma = %v: must be greater than 1 and finite", cfg.CSigma)
	}
	return nil
}

// es11 is the (1+1)-ES with the 1/5 success rule (docs/ALGORITHMS.md Section 6):
// Algorithm 4 without the matrix update, with A = I and one offspring
// x = m + sigma z. Generation 0 asks the initial mean alone. It keeps no
// matrix, so its memory and its cost per evaluation are O(d).
type es11 struct {
	core
	identity linalg.Dense // A = I for Transform, built on its first call
	z        []float64    // the offspring's N(0, I) vector
	success  float64      // c_sigma
	failure  float64      // c_sigma^(-1/4)
}

// setup initialises a (1+1)-ES from a resolved configuration.
func (e *es11) setup(cfg Config) {
	e.setupCore(ES11, cfg, 1)
	e.z = make([]float64, cfg.Dim)
	e.success = cfg.CSigma
	e.failure = 1 / math.Sqrt(math.Sqrt(cfg.CSigma))
}

// PopulationSize is 1, the single offspring.
func (e *es11) PopulationSize() int { return 1 }

// Transform returns the identity, es11's constant A (Transformer). It is
// built on the first call: es11 keeps no matrix while it runs.
func (e *es11) Transform() *linalg.Dense {
	if r, _ := e.identity.Dims(); r == 0 {
		e.identity.ReuseAs(e.cfg.Dim, e.cfg.Dim)
		e.identity.SetIdentity()
	}
	return &e.identity
}

// Ask writes the initial mean in generation 0 and the offspring
// m + sigma z afterwards.
func (e *es11) Ask(pop *linalg.Dense) error {
	if err := e.checkAsk(pop); err != nil {
		return err
	}
	if e.gen == 0 {
		e.askInitial(pop)
		return nil
	}
	resize(pop, 1, e.cfg.Dim)
	if !e.pending {
		st := rng.NewStream(e.key, purposeSample, uint64(e.gen), 0)
		st.FillNormal(e.z)
		e.pending = true
	}
	e.offspring(pop.RawRow(0))
	e.toBox(pop)
	return nil
}

// offspring writes x = m + sigma z into dst.
func (e *es11) offspring(dst []float64) {
	for j, mj := range e.mean {
		dst[j] = mj + float64(e.sigma*e.z[j])
	}
}

// Tell takes the value of the row of the last Ask and applies the 1/5
// rule: on f(x) <= f(m) the offspring replaces the mean and sigma grows by
// c_sigma, otherwise sigma shrinks by c_sigma^(-1/4).
func (e *es11) Tell(f []float64) error {
	if err := e.checkTell(f, 1); err != nil {
		return err
	}
	e.evals++
	if e.gen == 0 {
		e.tellInitial(f[0])
		return nil
	}
	parent := e.fMean
	if e.improves(f[0]) {
		e.offspring(e.bestX)
		e.bestF, e.hasBest = f[0], true
	}
	if accepts(f[0], parent) {
		e.offspring(e.mean)
		e.fMean = f[0]
		e.sigma *= e.success
	} else {
		e.sigma *= e.failure
	}
	e.finishElitist(f)
	if e.stop == "" {
		e.stop = e.checkAxes()
	}
	return nil
}

// MarshalBinary saves the complete state under the tag "hees-es/es11/v3"
// (the format without the slot for A).
func (e *es11) MarshalBinary() ([]byte, error) {
	w := newStateWriterVersion(ES11, stateVersionNoA)
	e.marshalCore(w, nil)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of an es11
// strategy, replacing the receiver's state entirely.
func (e *es11) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, ES11)
	if err != nil {
		return err
	}
	var fresh es11
	fresh.setup(cfg)
	var sh shape // versions 1 and 2 hold A = I after sigma
	if r.version < stateVersionNoA {
		sh = identityShape{}
	}
	fresh.unmarshalCore(r, sh)
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending && fresh.gen > 0 {
		st := rng.NewStream(fresh.key, purposeSample, uint64(fresh.gen), 0)
		st.FillNormal(fresh.z)
	}
	*e = fresh
	return nil
}
