package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// CMA11 is the name of the (1+1)-CMA-ES, the strategy of cma11.go.
const CMA11 = "cma11"

// cma11Row is the (1+1)-CMA-ES's row of the table of strategies: one
// candidate, elitist, no tuning fields.
var cma11Row = strategyRow{
	Info: Info{
		Name:      CMA11,
		Summary:   "(1+1)-CMA-ES, the 2009 variant with an evolution path",
		Elitist:   true,
		Transform: true,
		MinDim:    1,
	},
	fixed:  1,
	tolFun: 1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	memory: func(cfg Config) float64 { return denseMemory(cfg.Dim, 1) },
	zero:   func() strategy { return new(cma11) },
}

// cma11 is the (1+1)-CMA-ES of Suttorp, Hansen & Igel (2009, Algorithm 2),
// the variant with an evolution path that maintains A and A^{-1}
// (docs/ALGORITHMS.md Section 7 and Section 13 item 4). Generation 0 asks the
// initial mean alone; later generations ask one offspring m + sigma A z.
type cma11 struct {
	core
	dense
	p     cmaParams
	ainv  linalg.Dense // A^{-1}
	pc    []float64    // p_c, the evolution path
	psucc float64      // p_succ, the smoothed success rate
	z     []float64    // the offspring's N(0, I) vector
	y     []float64    // A z with the A of the sampling
	w     []float64    // scratch: A^{-1} p_c
	v     []float64    // scratch: A^{-T} w
}

// cmaParams are the constants of the (1+1)-CMA-ES with lambda = 1
// (Igel, Suttorp & Hansen 2006; Suttorp, Hansen & Igel 2009;
// docs/ALGORITHMS.md Section 7).
type cmaParams struct {
	damping float64 // d = 1 + n/2, the step-size damping
	pTarget float64 // target success probability 2/11
	cp      float64 // c_p = 1/12, smoothing of the success rate
	cc      float64 // c_c = 2/(n + 2), cumulation of the evolution path
	ccov    float64 // c_cov = 2/(n^2 + 6), covariance learning rate
	pThresh float64 // p_thresh = 0.44, above it the path is not updated
}

// newCMAParams returns the (1+1)-CMA-ES constants for dimension d.
func newCMAParams(d int) cmaParams {
	n := float64(d)
	return cmaParams{
		damping: 1 + n/2,
		pTarget: 2.0 / 11,
		cp:      1.0 / 12,
		cc:      2 / (n + 2),
		ccov:    2 / (float64(n*n) + 6),
		pThresh: 0.44,
	}
}

// setup initialises a (1+1)-CMA-ES from a resolved configuration. A0 has
// been checked to be invertible.
func (c *cma11) setup(cfg Config) {
	d := cfg.Dim
	a0 := cfg.A0
	c.setupCore(CMA11, cfg, 1)
	c.setupDense(d, a0, true)
	c.p = newCMAParams(d)
	if a0 != nil {
		// checkA0 has found A0 finite and non-singular.
		_ = c.ainv.Inverse(a0)
	} else {
		c.ainv.ReuseAs(d, d)
		c.ainv.SetIdentity()
	}
	c.pc = make([]float64, d) // p_c = 0
	c.psucc = c.p.pTarget     // p_succ = p_target
	c.z = make([]float64, d)
	c.y = make([]float64, d)
	c.w = make([]float64, d)
	c.v = make([]float64, d)
}

// PopulationSize is 1, the single offspring.
func (c *cma11) PopulationSize() int { return 1 }

// Ask writes the initial mean in generation 0 and the offspring
// m + sigma A z afterwards.
func (c *cma11) Ask(pop *linalg.Dense) error {
	if err := c.checkAsk(pop); err != nil {
		return err
	}
	if c.gen == 0 {
		c.askInitial(pop)
		return nil
	}
	resize(pop, 1, c.cfg.Dim)
	if !c.pending {
		c.draw()
		c.pending = true
	}
	c.offspring(pop.RawRow(0))
	c.toBox(pop)
	return nil
}

// draw samples z ~ N(0, I) for the current generation and y = A z.
func (c *cma11) draw() {
	st := rng.NewStream(c.key, purposeSample, uint64(c.gen), 0)
	st.FillNormal(c.z)
	linalg.MulVec(c.y, &c.a, c.z)
}

// offspring writes x = m + sigma A z into dst.
func (c *cma11) offspring(dst []float64) {
	for j, mj := range c.mean {
		dst[j] = mj + float64(c.sigma*c.y[j])
	}
}

// Tell takes the value of the row of the last Ask and performs one
// iteration of the (1+1)-CMA-ES.
func (c *cma11) Tell(f []float64) error {
	if err := c.checkTell(f, 1); err != nil {
		return err
	}
	c.evals++
	if c.gen == 0 {
		c.tellInitial(f[0])
		return nil
	}
	parent := c.fMean
	if c.improves(f[0]) {
		c.offspring(c.bestX)
		c.bestF, c.hasBest = f[0], true
	}
	success := accepts(f[0], parent)
	if success {
		c.offspring(c.mean) // m <- x
		c.fMean = f[0]
	}
	// updateStepSize: p_succ <- (1 - c_p) p_succ + c_p [success],
	// sigma <- sigma exp((p_succ - p_target) / (d (1 - p_target))).
	p := &c.p
	var s float64
	if success {
		s = 1
	}
	c.psucc = float64((1-p.cp)*c.psucc) + float64(p.cp*s)
	c.sigma *= xmath.Exp((c.psucc - p.pTarget) / float64(p.damping*(1-p.pTarget)))
	if success {
		c.updateCovariance()
	}
	c.finishElitist(f)
	if c.stop == "" {
		c.stop = c.checkCovariance(&c.core)
	}
	return nil
}

// updateCovariance is the 2009 update of A and A^{-1} after a success,
// equivalent to C <- alpha C + beta p_c p_c^T for C = A A^T (docs/ALGORITHMS.md
// Section 7).
func (c *cma11) updateCovariance() {
	p := &c.p
	alpha := 1 - p.ccov
	if c.psucc < p.pThresh {
		// p_c <- (1 - c_c) p_c + sqrt(c_c (2 - c_c)) A z.
		g := math.Sqrt(float64(p.cc * (2 - p.cc)))
		for j, v := range c.y {
			c.pc[j] = float64((1-p.cc)*c.pc[j]) + float64(g*v)
		}
	} else {
		// p_c <- (1 - c_c) p_c; alpha = 1 - c_cov + c_cov c_c (2 - c_c).
		for j := range c.pc {
			c.pc[j] *= 1 - p.cc
		}
		alpha += float64(p.ccov * float64(p.cc*(2-p.cc)))
	}
	beta := p.ccov
	// w = A^{-1} p_c.
	linalg.MulVec(c.w, &c.ainv, c.pc)
	var w2 float64
	for _, v := range c.w {
		w2 += float64(v * v)
	}
	// With sa = sqrt(alpha) and r = sqrt(1 + beta |w|^2 / alpha):
	// A <- sa A + (sa/|w|^2)(r - 1) p_c w^T
	// A^{-1} <- A^{-1}/sa - (1/(sa |w|^2))(1 - 1/r) w (w^T A^{-1}).
	// Using r - 1 = (beta |w|^2/alpha)/(r + 1) removes the division by
	// |w|^2 (and its cancellation for small |w|).
	sa := math.Sqrt(alpha)
	r := math.Sqrt(1 + float64(beta*w2)/alpha)
	coefA := sa * beta / float64(alpha*(r+1))
	coefInv := beta / float64(float64(sa*alpha)*float64(r*(r+1)))
	linalg.MulVecT(c.v, &c.ainv, c.w) // (w^T A^{-1})^T
	c.a.Scale(sa, &c.a)
	c.a.AddOuter(coefA, c.pc, c.w)
	c.ainv.Scale(1/sa, &c.ainv)
	c.ainv.AddOuter(-coefInv, c.w, c.v)
	// det(alpha C + beta p_c p_c^T) = alpha^d det(C) r^2.
	c.logDetA += float64(float64(c.cfg.Dim)*xmath.Log(sa)) + xmath.Log(r)
}

// MarshalBinary saves the complete state under the tag "hees-es/cma11/v1".
func (c *cma11) MarshalBinary() ([]byte, error) {
	w := newStateWriter(CMA11)
	c.marshalCore(w, &c.dense)
	w.matrix(&c.ainv)
	w.floats(c.pc)
	w.float(c.psucc)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a cma11
// strategy, replacing the receiver's state entirely.
func (c *cma11) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, CMA11)
	if err != nil {
		return err
	}
	var fresh cma11
	fresh.setup(cfg)
	fresh.unmarshalCore(r, &fresh.dense)
	r.matrix(&fresh.ainv)
	fresh.pc = r.floats(fresh.pc)
	fresh.psucc = r.float()
	d := cfg.Dim
	if rows, cols := fresh.ainv.Dims(); r.err == nil && (rows != d || cols != d || len(fresh.pc) != d) {
		r.fail("A^-1 is %d×%d and p_c has length %d, want dimension %d", rows, cols, len(fresh.pc), d)
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending && fresh.gen > 0 {
		fresh.draw()
	}
	*c = fresh
	return nil
}
