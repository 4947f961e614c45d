package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// detTol is the bound on |log|det A|| beyond which A is rescaled to unit
// determinant (ALGORITHMS.md Section 13 item 5).
const detTol = 1e-8

// adaptation is the matrix adaptation shared by hees and hees14: one
// generation's search directions b_k = |b_k| u_k, the products A u_k used
// both for sampling and for the update, and computeG (Algorithm 3).
type adaptation struct {
	dirs   directions
	au     linalg.Dense // k×d, row k is A u_k with the A of the sampling
	h      []float64    // curvature estimates h_k, NaN for an unusable pair
	alpha  []float64    // (exp(q_k) - 1)/B, the coefficients of G - I
	gram   linalg.Dense // d×d scratch for log det G when B > 1
	kappa  float64
	etaA   float64
	blocks int // B = ceil(k/d)
	// logDetG is log det G of the last update (0 when A was kept).
	logDetG float64
}

// setup sizes the adaptation for k pairs in dimension d.
func (ad *adaptation) setup(k, d int, kappa, etaA float64) {
	ad.dirs.setup(k, d)
	ad.au.ReuseAs(k, d)
	ad.h = make([]float64, k)
	ad.alpha = make([]float64, k)
	ad.kappa, ad.etaA = kappa, etaA
	ad.blocks = (k + d - 1) / d
	if ad.blocks > 1 {
		ad.gram.ReuseAs(d, d)
	}
	ad.logDetG = 0
}

// sample draws the directions of generation gen (Algorithm 1 lines 8-10,
// Algorithm 4 line 4) and computes A u_k, one matrix-vector product per
// direction, shared by the two mirrored candidates.
func (ad *adaptation) sample(key rng.Key, gen int, a *linalg.Dense) error {
	if err := ad.dirs.sampleOrthogonal(key, gen); err != nil {
		return err
	}
	for k := range ad.h {
		linalg.MulVec(ad.au.RawRow(k), a, ad.dirs.u.RawRow(k))
	}
	return nil
}

// candidate writes the mirrored candidate x_k^± = m ± sigma A b_k
// (Algorithm 1 lines 11-12, Algorithm 4 lines 5-6) into dst, with
// A b_k = |b_k| A u_k. Both signs use the same rounded step, so the pair is
// exactly symmetric about m.
func (ad *adaptation) candidate(dst, m []float64, sigma float64, k int, minus bool) {
	t := sigma * ad.dirs.norms[k]
	au := ad.au.RawRow(k)
	for j, mj := range m {
		step := float64(t * au[j])
		if minus {
			dst[j] = mj - step
		} else {
			dst[j] = mj + step
		}
	}
}

// adapt sets A <- A·G with G = computeG(b, f(m), f(x^±)) (Algorithm 1 line
// 13, Algorithm 4 line 8) and then keeps |det A| = 1 (Section 13 item 5).
// fm is f(m); fpm holds f(x_k^+) and f(x_k^-) at 2k and 2k+1.
//
// G = I + (1/B) sum_k (exp(q_k) - 1) u_k u_k^T (the unused vectors of the
// last block have factor 1 and complete the identity), so
// A G = A + sum_k alpha_k (A u_k) u_k^T is one rank-k update that reuses the
// products A u_k of the sampling: O(k d^2), no d×d matrix G is formed.
func (ad *adaptation) adapt(c *core, fm float64, fpm []float64) {
	for k := range ad.h {
		fp, fn := fpm[2*k], fpm[2*k+1]
		if !finite(fp) || !finite(fn) || !finite(fm) {
			// Section 13 item 8: no curvature estimate from this pair.
			ad.h[k] = math.NaN()
			continue
		}
		// Algorithm 3 line 3, h = (f(x^+) + f(x^-) - 2 f(m)) / (sigma^2 |b|^2);
		// the factor sigma^2 cancels in line 8 and is left out, as in the
		// reference code (ALGORITHMS.md Section 3 step 1).
		n := ad.dirs.norms[k]
		ad.h[k] = (fp + fn - 2*fm) / float64(n*n)
	}
	sumQ, ok := computeG(ad.alpha, ad.h, ad.kappa, ad.etaA, ad.blocks)
	ad.logDetG = 0
	if ok {
		c.a.AddOuterSum(ad.alpha, &ad.au, &ad.dirs.u)
		if ad.blocks == 1 {
			// Orthonormal u_k: G has the eigenvalues exp(q_k) and 1.
			ad.logDetG = sumQ
		} else {
			ad.logDetG = ad.logDetBlocks()
		}
		c.logDetA += ad.logDetG
	}
	c.renormalise()
}

// logDetBlocks returns log det G for B > 1 blocks, whose vectors are not
// orthogonal across blocks. B > 1 means k > d, so G = I_d + U^T D U (U the
// k×d matrix of the rows u_k, D = diag(alpha)) is formed as a d×d matrix,
// O(k d^2), and factorised, O(d^3).
func (ad *adaptation) logDetBlocks() float64 {
	g := &ad.gram
	g.SetIdentity()
	g.AddOuterSum(ad.alpha, &ad.dirs.u, &ad.dirs.u)
	return logAbsDet(g)
}

// logAbsDet returns log|det M| by Gaussian elimination with partial
// pivoting, overwriting m. It uses the portable logarithm, because the
// result feeds the determinant normalisation of A.
func logAbsDet(m *linalg.Dense) float64 {
	n, _ := m.Dims()
	var logDet float64
	for col := 0; col < n; col++ {
		piv := col
		for i := col + 1; i < n; i++ {
			if math.Abs(m.At(i, col)) > math.Abs(m.At(piv, col)) {
				piv = i
			}
		}
		if piv != col {
			rp, rc := m.RawRow(piv), m.RawRow(col)
			for j := col; j < n; j++ {
				rp[j], rc[j] = rc[j], rp[j]
			}
		}
		top := m.RawRow(col)
		p := top[col]
		if p == 0 {
			return math.Inf(-1)
		}
		logDet += xmath.Log(math.Abs(p))
		for i := col + 1; i < n; i++ {
			row := m.RawRow(i)
			l := row[col] / p
			for j := col + 1; j < n; j++ {
				row[j] -= float64(l * top[j])
			}
		}
	}
	return logDet
}

// computeG is Algorithm 3 (ALGORITHMS.md Section 3) for the curvature
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
	used := 0
	maxH := math.Inf(-1)
	nonPositive := false
	for _, v := range h {
		if finite(v) {
			used++
			maxH = max(maxH, v)
			nonPositive = nonPositive || v <= 0
		}
	}
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

// renormalise rescales A to |det A| = 1 and sigma by the same factor when
// |log|det A|| exceeds 1e-8 (ALGORITHMS.md Section 13 item 5). The sampling
// distribution sigma·A·N(0, I) does not change, and neither does the
// HE-ES's behaviour: computeG and the step-size rules are invariant to it.
func (c *core) renormalise() {
	if !(math.Abs(c.logDetA) > detTol) {
		return
	}
	s := xmath.Exp(c.logDetA / float64(c.cfg.Dim))
	c.a.Scale(1/s, &c.a)
	c.sigma *= s
	c.logDetA = 0
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// hees is the full non-elitist HE-ES with mirrored sampling (Algorithm 1,
// ALGORITHMS.md Section 4). A generation asks 2 lambda~ + 1 rows: row 0 is
// the current mean m_t, whose value computeG of this generation needs
// (the reference code evaluates every new mean), and rows 2k+1, 2k+2 are
// the mirrored pair x_k^+, x_k^-.
type hees struct {
	core
	p  heesParams
	ad adaptation

	ps []float64 // p_s, the evolution path of CSA in b-coordinates
	gs float64   // g_s, the expected |p_s|^2/d under random selection

	order []int     // offspring indices from best to worst
	rank  []int     // rank of each offspring
	dw    []float64 // w_k^+ - w_k^- per pair
	delta []float64 // scratch vector of length d
}

// setup initialises a full HE-ES from a resolved configuration.
func (h *hees) setup(cfg Config) {
	d, n := cfg.Dim, cfg.Pairs
	h.p = newHEESParams(d, n, cfg.CS, cfg.DS)
	h.setupCore(nameHEES, cfg, 2*n+1)
	h.ad.setup(n, d, cfg.Kappa, cfg.EtaA)
	h.ps = make([]float64, d) // Algorithm 1 line 4: p_s = 0
	h.gs = 0                  // line 5: g_s = 0
	h.order = make([]int, 2*n)
	h.rank = make([]int, 2*n)
	h.dw = make([]float64, n)
	h.delta = make([]float64, d)
}

// Lambda is 2 lambda~ + 1: the current mean and lambda~ mirrored pairs.
func (h *hees) Lambda() int { return 2*h.p.pairs + 1 }

// Ask writes the current mean (row 0) and the mirrored pairs (rows 2k+1 =
// x_k^+, 2k+2 = x_k^-) of the current generation into pop.
func (h *hees) Ask(pop *linalg.Dense) error {
	if err := h.checkAsk(pop); err != nil {
		return err
	}
	if !h.pending {
		if err := h.ad.sample(h.key, h.gen, &h.a); err != nil {
			return err
		}
		h.pending = true
	}
	pop.ReuseAs(h.Lambda(), h.cfg.Dim)
	copy(pop.RawRow(0), h.mean)
	for k := 0; k < h.p.pairs; k++ {
		h.ad.candidate(pop.RawRow(2*k+1), h.mean, h.sigma, k, false)
		h.ad.candidate(pop.RawRow(2*k+2), h.mean, h.sigma, k, true)
	}
	return nil
}

// Tell takes the values of the rows of the last Ask and performs one
// generation of Algorithm 1.
func (h *hees) Tell(f []float64) error {
	if err := h.checkTell(f, h.Lambda()); err != nil {
		return err
	}
	off := f[1:]
	h.evals += len(f)
	h.fMean = f[0]
	rankOrder(h.order, off) // line 14: ranks of the offspring

	// Best so far: the mean first, so that it wins a tie.
	if h.improves(f[0]) {
		h.setBest(h.mean, f[0])
	}
	if b := h.order[0]; h.improves(off[b]) {
		h.ad.candidate(h.bestX, h.mean, h.sigma, b/2, b%2 == 1)
		h.bestF, h.hasBest = off[b], true
	}
	minusInf := false
	usable := 0
	for _, v := range f {
		minusInf = minusInf || math.IsInf(v, -1)
	}
	for _, v := range off {
		if finite(v) {
			usable++
		}
	}

	if usable == 0 {
		// Section 13 item 8: a generation without a finite offspring value
		// is rejected: m and A stay, sigma is halved.
		h.sigma *= 0.5
		h.nonFinite++
	} else {
		h.nonFinite = 0
		h.step()
		// Line 13: A <- A computeG(...), with f(m_t). Done after the mean
		// and CSA because its determinant normalisation rescales sigma;
		// none of lines 13-18 reads what another one writes.
		h.ad.adapt(&h.core, f[0], off)
	}

	h.gen++
	h.pending = false
	switch {
	case minusInf:
		h.stop = ReasonMinusInf
	case h.nonFinite >= nonFiniteMax:
		h.stop = ReasonNotFinite
	case h.cfg.TolFun > 0 && stdDev(off) < h.cfg.TolFun:
		// The reference code's restart rule (ALGORITHMS.md Section 4.1).
		h.stop = ReasonTolFun
	default:
		if r := h.checkSigma(); r != "" {
			h.stop = r
		} else {
			h.stop = h.checkCovariance(false)
		}
	}
	return nil
}

// step applies the mean update and CSA (Algorithm 1 lines 14-18) using the
// ranks in h.order.
func (h *hees) step() {
	n := h.p.pairs
	w := h.p.weights
	for r, i := range h.order {
		h.rank[i] = r
	}
	// Line 14: each offspring gets the weight of its rank.
	for k := 0; k < n; k++ {
		h.dw[k] = w[h.rank[2*k]] - w[h.rank[2*k+1]]
	}
	// Line 15: m <- sum w x = m + sigma sum_k (w_k^+ - w_k^-) |b_k| A u_k
	// (the weights sum to 1 and the pairs are mirrored).
	clear(h.delta)
	for k := 0; k < n; k++ {
		t := float64(h.sigma*h.dw[k]) * h.ad.dirs.norms[k]
		for j, v := range h.ad.au.RawRow(k) {
			h.delta[j] += float64(t * v)
		}
	}
	for j := range h.mean {
		h.mean[j] += h.delta[j]
	}
	h.fMean = math.NaN() // f(m_{t+1}) is asked in the next generation

	// Line 16: g_s <- (1 - c_s)^2 g_s + c_s (2 - c_s).
	cs := h.p.cs
	om := 1 - cs
	h.gs = float64(float64(om*om)*h.gs) + float64(cs*(2-cs))
	// Line 17: p_s <- (1 - c_s) p_s + sqrt(c_s (2 - c_s) mu_eff^mirr)
	// sum_k (w_k^+ - w_k^-) b_k, in b-coordinates.
	clear(h.delta)
	for k := 0; k < n; k++ {
		t := h.dw[k] * h.ad.dirs.norms[k]
		for j, v := range h.ad.dirs.u.RawRow(k) {
			h.delta[j] += float64(t * v)
		}
	}
	coef := math.Sqrt(float64(cs*(2-cs)) * h.p.muEffMirr)
	var norm2 float64
	for j, v := range h.delta {
		p := float64(om*h.ps[j]) + float64(coef*v)
		h.ps[j] = p
		norm2 += float64(p * p)
	}
	// Line 18: sigma <- sigma exp((c_s/d_s) (|p_s|/chi_d - sqrt(g_s))).
	h.sigma *= xmath.Exp(float64((cs / h.p.ds) * (math.Sqrt(norm2)/h.p.chi - math.Sqrt(h.gs))))
}

// stdDev is the population standard deviation of v (NaN if a value is not
// finite).
func stdDev(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	var ss float64
	for _, x := range v {
		dx := x - mean
		ss += float64(dx * dx)
	}
	return math.Sqrt(ss / float64(len(v)))
}

// MarshalBinary saves the complete state under the tag "hees-es/hees/v1".
func (h *hees) MarshalBinary() ([]byte, error) {
	w := newStateWriter(nameHEES)
	h.marshalCore(w)
	w.floats(h.ps)
	w.float(h.gs)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a hees
// strategy, replacing the receiver's state entirely.
func (h *hees) UnmarshalBinary(data []byte) error {
	r, err := openState(data, nameHEES)
	if err != nil {
		return err
	}
	cfg, err := readConfig(r, nameHEES)
	if err != nil {
		return err
	}
	var fresh hees
	fresh.setup(cfg)
	fresh.unmarshalCore(r)
	fresh.ps = r.floats(fresh.ps)
	fresh.gs = r.float()
	if len(fresh.ps) != cfg.Dim {
		r.fail("p_s has length %d, want %d", len(fresh.ps), cfg.Dim)
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The directions are a function of (seed, generation): redraw them.
		if err := fresh.ad.sample(fresh.key, fresh.gen, &fresh.a); err != nil {
			return err
		}
	}
	*h = fresh
	return nil
}
