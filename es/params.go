package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// heesParams are the fixed parameters of the full HE-ES (Algorithm 1) that
// follow from the dimension and the number of pairs (ALGORITHMS.md Section 4,
// the reference code's constants).
type heesParams struct {
	pairs  int // lambda~, the number of mirrored pairs
	blocks int // B = ceil(lambda~ / d), the number of orthogonal blocks
	// weights[r] is the recombination weight of the offspring of rank r
	// (0 = best) among the 2 lambda~ offspring; they sum to 1.
	weights   []float64
	muEff     float64 // mu_eff = 1 / sum w^2
	muEffMirr float64 // mu_eff^mirrored, the CSA correction for mirrored sampling
	cs        float64 // c_s, cumulation constant of CSA
	ds        float64 // d_s, damping of CSA
	chi       float64 // chi_d, approximation of E|N(0, I_d)|
}

// defaultPairs is lambda~ = floor(2 + 1.5 ln d) (ALGORITHMS.md Section 4,
// reference code S1).
func defaultPairs(d int) int {
	return int(math.Floor(2 + float64(1.5*xmath.Log(float64(d)))))
}

// newHEESParams derives the HE-ES constants for dimension d and lambda~ =
// pairs. cs and ds override c_s and d_s when positive.
func newHEESParams(d, pairs int, cs, ds float64) heesParams {
	p := heesParams{pairs: pairs, blocks: (pairs + d - 1) / d}
	// ALGORITHMS.md Sec. 4: w'_k = ln(lambda~ + 1/2) - ln(min(k, lambda~ + 1/2))
	// for ranks k = 1..2 lambda~, normalised to sum 1.
	p.weights = make([]float64, 2*pairs)
	p.muEff = logWeights(p.weights, pairs, xmath.Log(float64(pairs)+0.5))
	// mu_eff^mirr = 1 / (1/mu_eff - (1 - 1/mu_eff) / (2 lambda~ - 1)) (S1 symmMuEff).
	inv := 1 / p.muEff
	p.muEffMirr = 1 / (inv - (1-inv)/float64(2*pairs-1))
	// c_s = (mu_eff^mirr + 2) / (d + mu_eff^mirr + 3).
	p.cs = (p.muEffMirr + 2) / (float64(d) + p.muEffMirr + 3)
	if cs > 0 {
		p.cs = cs
	}
	// d_s = 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1), with the plain mu_eff.
	p.ds = 1 + p.cs + 2*max(0, math.Sqrt((p.muEff-1)/float64(d+1))-1)
	if ds > 0 {
		p.ds = ds
	}
	p.chi = chiD(d)
	return p
}

// chiD is chi_d = sqrt(d) (1 - 1/(4d) + 1/(21 d^2)), the usual approximation
// of E|N(0, I_d)| (ALGORITHMS.md Section 4).
func chiD(d int) float64 {
	n := float64(d)
	return float64(math.Sqrt(n) * (1 - 1/(4*n) + 1/float64(21*n*n)))
}

// defaultCSigma is the success factor of the 1/5 rule, c_sigma =
// exp(0.8 / sqrt(d + 1)) (ALGORITHMS.md Section 13 item 3, after Hansen,
// Arnold & Auger 2015); a failure multiplies sigma by c_sigma^(-1/4).
func defaultCSigma(d int) float64 {
	return xmath.Exp(0.8 / math.Sqrt(float64(d+1)))
}

// cmaParams are the constants of the (1+1)-CMA-ES with lambda = 1
// (Igel, Suttorp & Hansen 2006; Suttorp, Hansen & Igel 2009;
// ALGORITHMS.md Section 7).
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

// logWeights sets the CMA-style log weights: w[k-1] = top - ln k for the
// ranks k = 1..n and 0 for the rest of w, normalised to sum 1, and returns
// mu_eff = 1 / sum w_k^2 (ALGORITHMS.md Sections 4 and 8; top is
// ln(lambda~ + 1/2) for HE-ES and ln((lambda + 1)/2) for CMA-ES).
func logWeights(w []float64, n int, top float64) float64 {
	var sum float64
	for k := 1; k <= n; k++ {
		v := top - xmath.Log(float64(k))
		w[k-1] = v
		sum += v
	}
	var sumSq float64
	for k := range w {
		w[k] /= sum
		sumSq += float64(w[k] * w[k])
	}
	return 1 / sumSq
}
