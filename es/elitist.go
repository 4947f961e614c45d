package es

import "math"

// The elitist strategies (es11, hees14, cma11) share the acceptance of an
// offspring, the generation 0 that evaluates the initial mean alone, and
// the end of a generation with its stop criteria.

// accepts is the elitist acceptance f(x) <= f(m) (non-strict, Algorithm 4
// line 9). A NaN or +Inf offspring is a failure; any other offspring
// replaces a parent whose value is NaN or +Inf (Section 13 item 8).
func accepts(fx, fm float64) bool {
	if worstValue(fx) {
		return false
	}
	return worstValue(fm) || fx <= fm
}

// tellInitial records the value of the initial mean (generation 0 of the
// elitist strategies).
func (c *core) tellInitial(fm float64) {
	c.fMean = fm
	if c.improves(fm) {
		c.setBest(c.mean, fm)
	}
	c.nonFinite = 0
	if !finite(fm) {
		c.nonFinite = 1
	}
	c.gen++
	c.pending = false
	if math.IsInf(fm, -1) {
		c.stop = ReasonMinusInf
	}
}

// finishElitist ends a generation of an elitist strategy: counters and the
// stop criteria but the covariance check, which the strategy runs after it
// while c.stop is "" (checkAxes, or dense.checkCovariance). f are the
// generation's values.
func (c *core) finishElitist(f []float64) {
	minusInf := false
	anyFinite := false
	for _, v := range f {
		minusInf = minusInf || math.IsInf(v, -1)
		anyFinite = anyFinite || finite(v)
	}
	// Section 13 item 8: count the generations in a row in which neither
	// the parent nor an offspring has a finite value.
	if anyFinite || finite(c.fMean) {
		c.nonFinite = 0
	} else {
		c.nonFinite++
	}
	c.gen++
	c.pending = false
	switch {
	case minusInf:
		c.stop = ReasonMinusInf
	case c.nonFinite >= nonFiniteMax:
		c.stop = ReasonNotFinite
	case c.noProgress(len(f)):
		c.stop = ReasonTolFun
	default:
		c.stop = c.checkSigma()
	}
}

// noProgress reports whether an elitist run has made no progress by TolFun
// for long enough: the parent's value, which is an elitist strategy's best
// value, has moved by less than TolFun over the last 10 + ceil(30 d/lambda)
// generations (the length of pycma's best-value history for tolfun and
// tolfunhist, docs/ALGORITHMS.md Section 8). The spread of one generation is not
// enough on its own: an elitist strategy often fails several times in a row
// while sigma is adapting, and its offspring do not sample the population.
func (c *core) noProgress(lambda int) bool {
	tol := c.cfg.TolFun
	if !(tol > 0) {
		return false
	}
	if math.Abs(c.fMean-c.flatRef) < tol {
		c.stallGens++
	} else {
		c.stallGens = 0
		c.flatRef = c.fMean
	}
	return c.stallGens >= tolFunGens(c.cfg.Dim, lambda)
}
