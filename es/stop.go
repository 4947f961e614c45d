package es

import (
	"github.com/hees-dev/hees/linalg"
)

// Limits of the internal stop criteria (docs/ALGORITHMS.md Section 8, pycma's
// defaults, and Section 13 item 8).
const (
	// sigmaMin: below it sigma is treated as vanished.
	sigmaMin = 1e-300
	// sigmaMax: above it sigma is treated as diverged. Candidates of that
	// scale have squares beyond the float64 range (about 1.8e308), so most
	// objectives would only return +Inf; New refuses a Sigma0 (times the
	// largest entry of A0) above it.
	sigmaMax = 1e150
	// sigmaGrowthMax is pycma's tolupsigma: sigma/sigma0 above it stops.
	sigmaGrowthMax = 1e20
	// condMax is pycma's tolconditioncov: cond(C) above it stops.
	condMax = 1e14
	// nonFiniteMax is the number of generations in a row without a finite
	// value after which a run stops (docs/ALGORITHMS.md Section 13 item 8).
	nonFiniteMax = 10
	// checkEvals is the number of evaluations per dimension between two
	// checks of the stop criteria that need A: they run every
	// max(1, ceil(checkEvals·d/lambda)) generations.
	checkEvals = 10
	// eigenEvery: every eigenEvery-th check also decomposes C = A A^T for
	// the condition number, so that the O(d^3) step comes once per
	// 50·d evaluations.
	eigenEvery = 5
	// axisEvery: every axisEvery-th decomposition also computes the
	// eigenvectors of C for the no-effect-axis test, which triples its cost.
	axisEvery = 5
	// noEffectStep is the fraction of sigma of the no-effect tests
	// (pycma's noeffectaxis uses 0.1).
	noEffectStep = 0.1
)

// tolFunGens is the length 10 + ceil(30 d/lambda) of pycma's history of
// best values for tolfun (docs/ALGORITHMS.md Section 8), in generations
// of lambda offspring.
func tolFunGens(d, lambda int) int {
	return 10 + (30*d+lambda-1)/lambda
}

// checker schedules the stop criteria that look at the shape of the
// search distribution (the covariance checks of the strategies with a
// transformation A, dense.checkCovariance, and the axis test of es11,
// checkAxes): they run every few generations, so that their cost per
// evaluation stays O(d^2) for a d×d matrix and O(1) per coordinate for
// the others.
type checker struct {
	every int // generations between two checks
	count int // checks done so far
}

// setup schedules a check every ceil(checkEvals·d/lambda) generations for
// dimension d and lambda evaluations per generation.
func (k *checker) setup(d, lambda int) {
	k.every = max(1, (checkEvals*d+lambda-1)/lambda)
	k.count = 0
}

// due reports whether a check runs after the generation just completed,
// and counts it; n is the number of checks before it.
func (c *core) checkDue() (n int, due bool) {
	k := &c.checks
	if k.every == 0 || c.gen%k.every != 0 {
		return 0, false
	}
	n = k.count
	k.count++
	return n, true
}

// checkSigma applies the O(1) step-size limits.
func (c *core) checkSigma() Reason {
	switch {
	case !(c.sigma >= sigmaMin):
		return ReasonSigmaTooSmall
	case c.sigma > sigmaMax || c.sigma/c.cfg.Sigma0 > sigmaGrowthMax:
		return ReasonSigmaTooLarge
	}
	return ""
}

// checkAxes is the covariance check of a strategy that samples with A = I
// (es11): every checker.every generations, sigma too small when m +
// 0.1 sigma e_i == m for every unit vector e_i, and no effect axis when
// that holds for the axis i = n mod d of the n-th check (the principal
// axes are the coordinate axes, tested one per check).
func (c *core) checkAxes() Reason {
	n, due := c.checkDue()
	if !due {
		return ""
	}
	step := float64(noEffectStep * c.sigma)
	if noEffect(c.mean, step, nil) {
		return ReasonSigmaTooSmall
	}
	if axis := n % c.cfg.Dim; c.mean[axis]+step == c.mean[axis] {
		return ReasonNoEffectAxis
	}
	return ""
}

// noEffect reports whether m + step·a_i == m for every column a_i of a, or
// m + step·e_i == m for every unit vector e_i when a is nil.
func noEffect(m []float64, step float64, a *linalg.Dense) bool {
	if a == nil {
		for _, mj := range m {
			if mj+step != mj {
				return false
			}
		}
		return true
	}
	for j, mj := range m {
		for _, v := range a.RawRow(j) {
			if mj+float64(step*v) != mj {
				return false
			}
		}
	}
	return true
}
