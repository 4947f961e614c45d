package es

import (
	"math"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// es11 is the (1+1)-ES with the 1/5 success rule (docs/ALGORITHMS.md Section 6):
// Algorithm 4 without the matrix update, with A = I and one offspring
// x = m + sigma z. Generation 0 asks the initial mean alone.
type es11 struct {
	core
	z       []float64 // the offspring's N(0, I) vector
	success float64   // c_sigma
	failure float64   // c_sigma^(-1/4)
}

// setup initialises a (1+1)-ES from a resolved configuration.
func (e *es11) setup(cfg Config) {
	e.setupCore(nameES11, cfg, 1)
	e.z = make([]float64, cfg.Dim)
	e.success = cfg.CSigma
	e.failure = 1 / math.Sqrt(math.Sqrt(cfg.CSigma))
}

// PopulationSize is 1, the single offspring.
func (e *es11) PopulationSize() int { return 1 }

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
	return nil
}

// MarshalBinary saves the complete state under the tag "hees-es/es11/v1".
func (e *es11) MarshalBinary() ([]byte, error) {
	w := newStateWriter(nameES11)
	e.marshalCore(w)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of an es11
// strategy, replacing the receiver's state entirely.
func (e *es11) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, nameES11)
	if err != nil {
		return err
	}
	var fresh es11
	fresh.setup(cfg)
	fresh.unmarshalCore(r)
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
