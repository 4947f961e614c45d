package es

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// detTol is the bound on |log|det A|| beyond which A is rescaled to unit
// determinant (docs/ALGORITHMS.md Section 13 item 5).
const detTol = 1e-8

// adaptation is the HE-ES's search directions and matrix adaptation, shared
// by hees, hees2 and hees14: one generation's directions b_k = |b_k| u_k
// (Algorithm 2), the products A u_k used both for the candidates and for
// the update of A, and computeG (Algorithm 3).
type adaptation struct {
	u     linalg.Dense // k×d, row k is u_k = b_k/|b_k|, orthonormal within a block of d rows
	norms []float64    // |b_k|, chi_d distributed
	block linalg.Dense // scratch for one block when there are several
	au    linalg.Dense // k×d, row k is A u_k with the A of the sampling
	h     []float64    // curvature estimates h_k, NaN for an unusable pair
	alpha []float64    // (exp(q_k) - 1)/B, the coefficients of G - I
	gram  linalg.Dense // d×d workspace for log det G when B > 1
	kappa float64
	etaA  float64
	// damped scales eta_A in each generation by roughDamping (hees2's
	// departure 10, lqhees's too).
	damped bool
	// blocks is B = ceil(k/d), the number of orthogonal blocks.
	blocks int
	// logDetG is log det G of the last update (0 when A was kept).
	logDetG float64
}

// setup sizes the adaptation for k pairs in dimension d.
func (ad *adaptation) setup(k, d int, kappa, etaA float64) {
	ad.u.ReuseAs(k, d)
	ad.norms = make([]float64, k)
	if k > d {
		ad.block.ReuseAs(d, d)
	}
	ad.au.ReuseAs(k, d)
	ad.h = make([]float64, k)
	ad.alpha = make([]float64, k)
	ad.kappa, ad.etaA = kappa, etaA
	ad.damped = false
	ad.blocks = (k + d - 1) / d
	if ad.blocks > 1 {
		ad.gram.ReuseAs(d, d)
	}
	ad.logDetG = 0
}

// sample draws the directions of generation gen (Algorithm 1 lines 8-10,
// Algorithm 4 line 4), Algorithm 2 (docs/ALGORITHMS.md Section 2): fill,
// then orthogonalise; then it computes A u_k (transform). The cost is
// O(d k min(k, d)) for the directions and O(k d^2) for the products.
func (ad *adaptation) sample(key rng.Key, gen int, a *linalg.Dense) error {
	ad.fill(key, gen)
	if err := ad.orthogonalise(); err != nil {
		return err
	}
	ad.transform(a)
	return nil
}

// fill draws the Gaussian vectors of generation gen into the rows of u:
// vector k is N(0, I_d) from the sub-stream (purposeSample, gen, k).
func (ad *adaptation) fill(key rng.Key, gen int) {
	for i := range ad.norms {
		st := rng.NewStream(key, purposeSample, uint64(gen), uint64(i))
		st.FillNormal(ad.u.RawRow(i))
	}
}

// orthogonalise orthonormalises the rows of u by blocks (Algorithm 2
// lines 3-4): the vectors of block j (numbers j·d .. j·d+d-1, block-major
// as in the reference code) by Gram-Schmidt among themselves in order,
// writing their original lengths into norms. Gram-Schmidt on the first
// vectors of a block does not depend on the later ones, so the unused
// vectors of the last block are never drawn (docs/ALGORITHMS.md Section 1,
// index typos).
func (ad *adaptation) orthogonalise() error {
	k, d := ad.u.Dims()
	if k <= d {
		return orthonormalise(&ad.u, ad.norms)
	}
	for j0 := 0; j0 < k; j0 += d {
		n := min(d, k-j0)
		resize(&ad.block, n, d)
		for i := 0; i < n; i++ {
			copy(ad.block.RawRow(i), ad.u.RawRow(j0+i))
		}
		if err := orthonormalise(&ad.block, ad.norms[j0:j0+n]); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			copy(ad.u.RawRow(j0+i), ad.block.RawRow(i))
		}
	}
	return nil
}

// transform computes A u_k for every direction, shared by the two mirrored
// candidates and the update of A, O(k d^2): the k products in one
// DotRows, which reads A from memory once for all of them.
func (ad *adaptation) transform(a *linalg.Dense) {
	ad.au.DotRows(&ad.u, a) // row k is MulVec(A, u_k) bit for bit
}

// orthonormalise runs Gram-Schmidt on the rows of v (Algorithm 2 lines
// 3-4), writing the lengths before orthogonalisation into norms.
func orthonormalise(v *linalg.Dense, norms []float64) error {
	if err := linalg.GramSchmidt(v, norms); err != nil {
		// Gaussian vectors are dependent with probability zero.
		return fmt.Errorf("es: sampleOrthogonal: %w", err)
	}
	return nil
}

// candidate writes the mirrored candidate x_k^± = m ± sigma A b_k
// (Algorithm 1 lines 11-12, Algorithm 4 lines 5-6) into dst, with
// A b_k = |b_k| A u_k: dst = m + (±t) A u_k, t = sigma |b_k|, each step
// rounded before it is added (linalg.Axpy). Both signs use the same
// rounded step, as rounding commutes with the sign, so the pair is exactly
// symmetric about m. dst may be m.
func (ad *adaptation) candidate(dst, m []float64, sigma float64, k int, minus bool) {
	t := sigma * ad.norms[k]
	if minus {
		t = -t
	}
	copy(dst, m)
	linalg.Axpy(t, ad.au.RawRow(k), dst)
}

// adapt sets A <- A·G with G = computeG(b, f(m), f(x^±)) (Algorithm 1 line
// 13, Algorithm 4 line 8) and then keeps |det A| = 1 (Section 13 item 5).
// fm is f(m); fpm holds f(x_k^+) and f(x_k^-) at 2k and 2k+1.
//
// G = I + (1/B) sum_k (exp(q_k) - 1) u_k u_k^T (the unused vectors of the
// last block have factor 1 and complete the identity), so
// A G = A + sum_k alpha_k (A u_k) u_k^T is one rank-k update that reuses the
// products A u_k of the sampling: O(k d^2), no d×d matrix G is formed.
func (ad *adaptation) adapt(c *core, m *dense, fm float64, fpm []float64) {
	for k := range ad.h {
		fp, fn := fpm[2*k], fpm[2*k+1]
		if !finite(fp) || !finite(fn) || !finite(fm) {
			// Section 13 item 8: no curvature estimate from this pair.
			ad.h[k] = math.NaN()
			continue
		}
		// Algorithm 3 line 3, h = (f(x^+) + f(x^-) - 2 f(m)) / (sigma^2 |b|^2);
		// the factor sigma^2 cancels in line 8 and is left out, as in the
		// reference code (docs/ALGORITHMS.md Section 3 step 1).
		n := ad.norms[k]
		ad.h[k] = (fp + fn - 2*fm) / float64(n*n)
	}
	etaA := ad.etaA
	if ad.damped {
		etaA *= roughDamping(ad.h, ad.kappa)
	}
	sumQ, ok := computeG(ad.alpha, ad.h, ad.kappa, etaA, ad.blocks)
	ad.logDetG = 0
	if ok {
		m.a.AddOuterSum(ad.alpha, &ad.au, &ad.u)
		if ad.blocks == 1 {
			// Orthonormal u_k: G has the eigenvalues exp(q_k) and 1.
			ad.logDetG = sumQ
		} else {
			// B > 1 blocks (k > d), whose vectors are not orthogonal across
			// blocks: G = I_d + U^T D U (U the k×d matrix of the rows u_k,
			// D = diag(alpha)) is formed, O(k d^2), and factorised, O(d^3).
			g := &ad.gram
			g.SetIdentity()
			g.AddOuterSum(ad.alpha, &ad.u, &ad.u)
			ad.logDetG = linalg.LogAbsDetInPlace(g)
		}
		m.logDetA += ad.logDetG
	}
	// Section 13 item 5: rescale A to |det A| = 1, and sigma by the same
	// factor, when |log|det A|| exceeds detTol. The sampling distribution
	// sigma·A·N(0, I) does not change, and neither does the HE-ES's
	// behaviour: computeG and the step-size rules are invariant to it.
	if math.Abs(m.logDetA) > detTol {
		s := xmath.Exp(m.logDetA / float64(c.cfg.Dim))
		m.a.Scale(1/s, &m.a)
		c.sigma *= s
		m.logDetA = 0
	}
}

// roughDamping is the factor of eta_A of hees2's departure 10: max(0.05,
// 1 - 2c), c the share of the finite curvature estimates h that the trust
// region of computeG raises (h_k < max(h)/kappa). On a smooth function the
// trust region raises few estimates; where f is rough at the scale of the
// steps, the estimates are mostly noise and many are raised (BBOB f16,
// docs/ALGORITHMS.md Section 17.4). 1 when no estimate is positive, where
// computeG makes no update.
func roughDamping(h []float64, kappa float64) float64 {
	maxH, used, _ := scanEstimates(h)
	if !(maxH > 0) {
		return 1
	}
	raised := 0
	for _, v := range h {
		if finite(v) && v < maxH/kappa {
			raised++
		}
	}
	return max(0.05, 1-2*float64(raised)/float64(used))
}

// scanEstimates returns the largest of the finite curvature estimates h
// (-Inf when none is), how many are finite, and whether one of those is
// not positive.
func scanEstimates(h []float64) (maxH float64, used int, nonPositive bool) {
	maxH = math.Inf(-1)
	for _, v := range h {
		if finite(v) {
			used++
			maxH = max(maxH, v)
			nonPositive = nonPositive || v <= 0
		}
	}
	return maxH, used, nonPositive
}

// computeG is Algorithm 3 (docs/ALGORITHMS.md Section 3) for the curvature
// estimates h (NaN marks a pair without an estimate, which gets factor 1
// and is left out of the mean of q, Section 13 item 8). It writes
// alpha_k = (exp(q_k) - 1)/B, the coefficients of G - I, returns
// sum_k q_k and reports false when G = I.
//
// With kappa = +Inf there is no trust region, and G = I as soon as one
// estimate is not positive (Section 13 item 2); with eta_A = 1 and two
// pairs this is the closed form G = I + (gamma_1 - 1) u_1 u_1^T +
// (gamma_2 - 1) u_2 u_2^T with gamma_1 = (h2/h1)^(1/4) (Section 1, the
// corrected sign of the paper's eq. (G)).
func computeG(alpha, h []float64, kappa, etaA float64, blocks int) (sumQ float64, ok bool) {
	clear(alpha)
	maxH, used, nonPositive := scanEstimates(h)
	// Line 4: no update when no estimate is positive; one estimate alone
	// carries no relative information (its q is 0 after line 8).
	if used < 2 || maxH <= 0 || (math.IsInf(kappa, 1) && nonPositive) {
		return 0, false
	}
	// Lines 5-7: trust region h_k >= max(h)/kappa, then q_k = ln h_k.
	c := maxH / kappa
	var mean float64
	for k, v := range h {
		if finite(v) {
			q := xmath.Log(max(v, c))
			alpha[k] = q
			mean += q
		}
	}
	// Line 8: subtract the mean of q over the used vectors (unit determinant).
	mean /= float64(used)
	// Line 9: q_k <- -(eta_A/2) q_k (learning rate, inverse square root).
	scale := -0.5 * etaA
	inv := 1 / float64(blocks)
	for k, v := range h {
		if !finite(v) {
			continue // line 10: factor 1
		}
		q := float64(scale * (alpha[k] - mean))
		sumQ += q
		// Line 11: G = (1/B) sum exp(q) u u^T = I + (1/B) sum (exp(q) - 1) u u^T.
		alpha[k] = float64(xmath.Expm1(q) * inv)
	}
	return sumQ, true
}

// resolveComputeG fills in Kappa and EtaA, the trust-region ratio and the
// learning rate of computeG (Algorithm 3), with the defaults kappa and
// etaA of the strategy, and checks them.
func resolveComputeG(cfg *Config, kappa, etaA float64) error {
	if cfg.Kappa == 0 {
		cfg.Kappa = kappa
	}
	if !(cfg.Kappa >= 1) {
		return fmt.Errorf("es: Config.Kappa = %v: must be at least 1 (+Inf switches the trust region off)", cfg.Kappa)
	}
	if cfg.EtaA == 0 {
		cfg.EtaA = etaA
	}
	if !(cfg.EtaA > 0) || math.IsInf(cfg.EtaA, 1) {
		return fmt.Errorf("es: Config.EtaA = %v: must be positive and finite", cfg.EtaA)
	}
	return nil
}
