package es

import (
	"math"

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

// checker runs the stop criteria that need A every few generations, so
// that their cost per evaluation stays O(d^2). A check tests whether sigma
// still moves the mean (O(d^2)); every eigenEvery-th check adds a d×d
// product and a symmetric eigenvalue decomposition (about 150 times the
// cost of one matrix-vector product at d = 100), and every axisEvery-th of
// those the eigenvectors as well (about 350 times). Spread over the
// evaluations between them, this adds well under 0.1 matrix-vector products
// per evaluation at d = 100 and d = 1000.
type checker struct {
	every  int // generations between two checks
	count  int // checks done so far
	cov    linalg.Dense
	eig    linalg.EigenSym
	values []float64
	axes   linalg.Dense // eigenvectors of C in the columns
}

// setup prepares the checker for dimension d and lambda evaluations per
// generation.
func (k *checker) setup(d, lambda int) {
	k.every = max(1, (checkEvals*d+lambda-1)/lambda)
	k.count = 0
	k.cov.ReuseAs(d, d)
	k.values = make([]float64, d)
	k.axes.ReuseAs(d, d)
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

// checkCovariance runs, every checker.every generations (counted by the
// completed generation c.gen), the criteria that need A:
//
//   - sigma too small: m + 0.1 sigma A e_i == m for every column i of A;
//   - condition of C (every eigenEvery-th check): cond(C) > 1e14, or C not
//     positive definite;
//   - no effect axis (every axisEvery-th decomposition, the j-th such one):
//     m + 0.1 sigma sqrt(lambda_i) v_i == m for the eigenpair
//     (lambda_i, v_i) of C with i = j mod d, as pycma's noeffectaxis.
//
// For identity = true (the (1+1)-ES, whose A is I), C is not decomposed:
// the principal axes are the coordinate axes, tested one per check.
func (c *core) checkCovariance(identity bool) Reason {
	k := &c.checks
	if c.gen%k.every != 0 {
		return ""
	}
	d := c.cfg.Dim
	n := k.count
	k.count++
	step := float64(noEffectStep * c.sigma)
	if identity {
		if noEffect(c.mean, step, nil) {
			return ReasonSigmaTooSmall
		}
		if axis := n % d; c.mean[axis]+step == c.mean[axis] {
			return ReasonNoEffectAxis
		}
		return ""
	}
	if noEffect(c.mean, step, &c.a) {
		return ReasonSigmaTooSmall
	}
	if n%eigenEvery != 0 {
		return ""
	}
	withAxis := n%(eigenEvery*axisEvery) == 0
	axis := (n / (eigenEvery * axisEvery)) % d
	k.cov.MulAAT(&c.a)
	if err := k.eig.Factorize(&k.cov, withAxis); err != nil {
		return ReasonConditionCov
	}
	vals := k.eig.Values(k.values)
	if !(vals[0] > 0) || vals[d-1] > condMax*vals[0] {
		return ReasonConditionCov
	}
	if !withAxis {
		return ""
	}
	k.eig.VectorsTo(&k.axes)
	t := step * math.Sqrt(vals[axis])
	for j := 0; j < d; j++ {
		mj := c.mean[j]
		if mj+float64(t*k.axes.At(j, axis)) != mj {
			return ""
		}
	}
	return ReasonNoEffectAxis
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
