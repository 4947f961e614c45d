package es

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// HEES2 is the name of hees2.
const HEES2 = "hees2"

// hees2Row is hees2's row of the table of strategies: hees's, with at most
// d pairs by default (departure 3), eta_A = 1 once the pairs fill a frame
// (departure 5) and smaller in d > 10 when they do not (departure 8), a
// larger d_s for more pairs in d > 10 (departure 9), and pycma's tolfun
// (departure 4). Departure 10 lives in the update of A (setup).
var hees2Row = strategyRow{
	Info: Info{
		Name:       HEES2,
		Summary:    "hees with its path as a search direction and nine more departures (Recommended)",
		Population: PopulationPairs,
		Transform:  true,
		MinDim:     2,
		Margin:     true,
		Noise:      true,
	},
	population: hees2Pairs,
	tuning:     []tuning{tuneKappa, tuneEtaA, tuneCS, tuneDS},
	tolFun:     1e-11, // pycma's tolfun, departure 4
	defaults:   hees2Defaults,
	memory:     func(cfg Config) float64 { return denseMemory(cfg.Dim, 2*cfg.Pairs+1) },
	zero:       func() strategy { return new(hees2) },
	// A quarter of CMAwM's 1/(lambda d) with lambda = 2 lambda~, the
	// offspring (docs/ALGORITHMS.md Section 19).
	margin: func(cfg Config) float64 { return 1 / float64(8*cfg.Pairs*cfg.Dim) },
}

// hees2Pairs is hees2's default number of pairs lambda~_0 in d dimensions:
// hees's formula, at most d (departure 3).
func hees2Pairs(d int) int { return min(defaultPairs(d), d) }

// hees2Defaults resolves hees2's defaults (lqhees's too): computeG with
// kappa = 3 and eta_A = 1 when the pairs fill a frame (departure 5), else
// the paper's 0.5 up to d = 10 and 0.5 sqrt(10/d) above (departure 8); c_s
// and d_s as hees, then, in d > 10, a d_s not given grows by
// (lambda~/lambda~_0)^(1/4) when there are more pairs lambda~ than the
// default lambda~_0, as in IPOP's restarts (departure 9).
func hees2Defaults(cfg *Config) error {
	given := cfg.DS != 0
	etaA := 0.5
	switch {
	case cfg.Pairs >= cfg.Dim:
		etaA = 1 // full frames, departure 5
	case cfg.Dim > 10:
		etaA = 0.5 * math.Sqrt(10/float64(cfg.Dim)) // departure 8
	}
	if err := resolveComputeG(cfg, 3, etaA); err != nil {
		return err
	}
	if err := resolveCSA(cfg); err != nil {
		return err
	}
	if ratio := float64(cfg.Pairs) / float64(hees2Pairs(cfg.Dim)); !given && cfg.Dim > 10 && ratio > 1 {
		cfg.DS *= math.Sqrt(math.Sqrt(ratio))
	}
	return nil
}

// hees2 is the full HE-ES of Algorithm 1 (docs/ALGORITHMS.md Section 4)
// with ten departures, each made for a measured weakness of the paper's
// algorithm (hees); docs/ALGORITHMS.md Section 17 gives the measurements
// behind each. One generation, with lambda~ = min(floor(2 + 1.5 ln d), d)
// pairs:
//
//	b_1..b_lambda~  sampleOrthogonal with z_1 replaced by p_s, then
//	                b_1 = |z_1| p_s/|p_s|                         (dep. 1)
//	ask             m and x_k^± = m ± sigma A b_k                 (lines 11-12)
//	m               m + sigma sum_k (w_k^+ - w_k^-) A b_k         (lines 14-15)
//	p_s             as Algorithm 1 (g_s of line 16 goes unused)   (line 17)
//	sigma           sigma exp((|p_s| - baseline)/(d_s chi_d)     (dep. 2)
//	                + (c_mu/2) sum_k (w_k^+ + w_k^- - 1/lambda~)
//	                (|b_k|^2/d - 1))                              (dep. 6)
//	                d_s (lambda~/lambda~_0)^(1/4) in d > 10       (dep. 9)
//	                not raised from the 8th generation in a row
//	                whose mean beats every candidate              (dep. 7)
//	A               A computeG(b, f(m), f(x^±)), |det A| = 1,     (line 13)
//	                eta_A = 1 when lambda~ >= d                   (dep. 5)
//	                times max(0.05, 1 - 2 c) then in d > 10,      (dep. 10)
//	                without discrete coordinates
//	                else 0.5 min(1, sqrt(10/d))                   (dep. 8)
//	stop            pycma's tolfun over a full history, tolx      (dep. 4)
//
// The departures:
//
//  1. The path is a search direction (lines 8-10): the first direction of
//     the first block is p_s, the step-size path, with the length |z_0| of
//     the generation's first N(0, I) vector, and the rest of the block is
//     orthogonalised against it. With random directions hees learns a long
//     axis at a rate of order eta_A/d^2; along p_s the curvature of that
//     axis is measured directly and the trust region bounds the rate.
//  2. CSA compares |p_s| with a random-selection baseline, not with
//     chi_d sqrt(g_s) (line 18): ln sigma <- ln sigma + (|p_s| -
//     mean_r |p~_r|)/(d_s chi_d), where p~_r is the path this generation
//     would have given with its ranks permuted at random (baselineDraws
//     permutations drawn from the seed). With p_s among the directions the
//     paper's rule shrinks sigma on a random function; under random
//     selection p~_r and p_s have the same distribution, so E[Delta ln
//     sigma] = 0 exactly. A draw costs O(lambda~), not O(lambda~ d)
//     (baseline).
//  3. lambda~ = min(floor(2 + 1.5 ln d), d) by default (Pairs may still be
//     set higher): the paper's formula gives d = 2 three pairs, two blocks
//     of which the second has one vector.
//  4. Stop: pycma's tolfun replaces the reference code's std(f) < 1e-9,
//     which fires on the sharp ridge (BBOB f13) far from the optimum:
//     max - min of the generation's offspring values and of the best
//     values of the last 10 + ceil(30 d/(2 lambda~)) generations both
//     below TolFun, once that many generations have passed; and pycma's
//     tolx, every sigma sqrt((A A^T)_ii) below 1e-11, for the runs that
//     converge where f is not smooth.
//  5. eta_A = 1, not 0.5, when lambda~ >= d: every generation's first block
//     is then a full frame whose curvature estimates cover every
//     direction, so computeG may take its whole step.
//  6. sigma also follows the lengths of the selected steps, by the part of
//     CMA-ES's rank-mu update that |det A| = 1 takes out of A: ln sigma
//     grows by (c_mu/2) sum_k (w_k^+ + w_k^- - 1/lambda~)(|b_k|^2/d - 1),
//     with pycma's c_mu for hees's mu_eff (cmaRates), w_k^± the weights of
//     the ranks of x_k^±. The weights minus 1/lambda~ sum to zero, so the
//     term has mean zero under random selection.
//  7. sigma is not raised in a generation whose mean's value is below
//     every candidate's when the seven generations before were such too
//     (meanBestGens). On the attractive sector (BBOB f6) in d = 40 the
//     pair along p_s (departure 1) otherwise feeds a runaway: the forward
//     point wins, p_s lengthens, sigma grows and the mean, the best point,
//     stays behind, for dozens of generations until sigma is 10^5. A mean
//     better than all its candidates says sigma is too large; from the
//     first such generation on, the rule would bias sigma down on random
//     values, where one generation in 2 lambda~ + 1 has it.
//  8. eta_A = 0.5 sqrt(10/d), not 0.5, when d > 10 and the pairs do not
//     fill a frame. With 0.5 the update of A runs away in d >= 20 where
//     the curvature changes from one side of the mean to the other: on a
//     sector quadratic whose Hessian has a condition of at most 10^5,
//     cond(A A^T) passes 10^10 in d = 40 and the run never converges
//     (BBOB f6 in d = 40: 0 runs of 15 solved, 15 with the smaller rate).
//     The price is a slower learning of A on convex quadratics: 1.1-1.25
//     times the evaluations on the ellipsoids in d = 20 and 40, 1.3 in
//     d = 80.
//  9. d_s grows by (lambda~/lambda~_0)^(1/4) in d > 10 when there are more
//     pairs lambda~ than the default lambda~_0, as in IPOP's restarts. In
//     large populations sigma otherwise falls faster than f on functions
//     with local minima at every scale near the optimum: on BBOB f18 in
//     d = 40 each restart settles in one of Schaffer's rings 1e-5 to 1e-2
//     above f* (0 runs of 15 solved, 9 with the departure). The price is
//     more evaluations per restart: Rastrigin (f15) and Weierstrass (f16)
//     lose runs in d = 20. In d <= 10, where they and f20 and f23 lost
//     more runs than the others gained, d_s stays hees's.
//  10. With full frames in d > 10, departure 5's eta_A is multiplied in each
//     generation by max(0.05, 1 - 2c), c the share of the curvature
//     estimates that computeG's trust region raises (below max h/kappa;
//     roughDamping). Where f is rough at the scale of the steps, the
//     estimates are mostly noise, the trust region raises many of them,
//     and with eta_A = 1 A follows the noise: on BBOB's Weierstrass
//     function f16 in d = 40 the runs with 60 or 120 pairs ended 0.9 to
//     29 above f*, CMA-ES's with as many points 0.2 to 7e-5 (IPOP on
//     instances 1-15: 0 runs of 15 solved, 3 with the departure; Rastrigin
//     f15 2 and 9). On smooth functions few estimates are raised and the
//     rate stays near 1, which Schaffer's f18 and the sharp ridge f13 need
//     (a fixed 0.5 solved 1 and 12 runs of 15 of them instead of 9 and
//     15). Not with discrete coordinates (Config.Steps), whose cells
//     scatter the estimates of a smooth function as noise would: on
//     bbob-mixint in d = 20 the departure cost the separable ellipsoid f2
//     10 of its 12 runs.
//
// Everything else (computeG with kappa = 3, mirrored sampling, the
// weights, c_s, d_s up to lambda~_0 pairs, the mean update, |det A| = 1)
// is Algorithm 1 as hees runs it; hees2 embeds hees and calls its parts.
type hees2 struct {
	hees
	alongPath bool    // whether the first block has room for p_s and another direction
	cmu       float64 // c_mu, CMA-ES's rank-mu learning rate (departure 6)
	funHist   history // best offspring value of each generation (tolfun)

	proj   []float64 // <u_k, p_s>: the projections of the path on the directions
	perm   []int     // a random permutation of the 2 lambda~ ranks
	scale  []float64 // sqrt(c_s (2 - c_s) mu_eff^mirr) |b_k|
	coefs  []float64 // the coefficients t_k of the b_k in a baseline path
	shadow []float64 // U^T t, when the directions span several blocks
}

// baselineDraws is the number of random permutations whose paths make the
// baseline of CSA (departure 2); more draws lower its noise, whose variance
// is 1/baselineDraws of that of |p_s| itself.
const baselineDraws = 8

// purposeBaseline keys the random permutations of the CSA baseline: those
// of generation g come one after another from the sub-stream
// (purposeBaseline, g, 0). The value is chosen apart from the other
// purposes of the package.
const purposeBaseline rng.Purpose = 0x4832

// setup initialises hees2 from a resolved configuration: the state of
// Algorithm 1 lines 3-6 (set up by hees) and the tolfun history.
func (h *hees2) setup(cfg Config) {
	h.hees.setupAs(HEES2, cfg)
	d := cfg.Dim
	h.ad.damped = cfg.Pairs >= d && d > 10 && h.disc == nil // departure 10
	// One direction along p_s alone would never leave the line of p_s.
	h.alongPath = min(cfg.Pairs, d) >= 2
	_, h.cmu = cmaRates(d, 2*cfg.Pairs, h.muEff)
	h.funHist = history{buf: make([]float64, tolFunGens(d, 2*cfg.Pairs))}
	h.proj = make([]float64, cfg.Pairs)
	h.perm = make([]int, 2*cfg.Pairs)
	h.scale = make([]float64, cfg.Pairs)
	h.coefs = make([]float64, cfg.Pairs)
	h.shadow = make([]float64, d)
}

// Ask writes the current mean (row 0) and the mirrored pairs (rows 2k+1 =
// x_k^+, 2k+2 = x_k^-) of the current generation into pop.
func (h *hees2) Ask(pop *linalg.Dense) error {
	if err := h.checkAsk(pop); err != nil {
		return err
	}
	if !h.pending {
		if err := h.sample(); err != nil { // departure 1
			return err
		}
		h.pending = true
	}
	h.writePopulation(pop)
	return nil
}

// sample draws the directions of the current generation (Algorithm 1 lines
// 8-10 with departure 1) and the products A u_k. When p_s is not zero, it
// replaces the first Gaussian vector z_0 by p_s before Gram-Schmidt, so
// that u_0 = p_s/|p_s| and the other directions of the first block are a
// uniformly random orthonormal frame of the complement of p_s, and then
// gives b_0 the chi_d-distributed length |z_0|.
func (h *hees2) sample() error {
	ad := &h.ad
	ad.fill(h.key, h.gen)
	along := h.alongPath && nonZero(h.ps)
	var z0 float64
	if along {
		row := ad.u.RawRow(0)
		z0 = linalg.Norm(row)
		copy(row, h.ps)
	}
	if err := ad.orthogonalise(); err != nil {
		// With p_s: it lies in the span of the others, probability zero.
		return fmt.Errorf("es: %s: %w", h.name, err)
	}
	if along {
		ad.norms[0] = z0
	}
	ad.transform(&h.a)
	return nil
}

// meanBestGens is the number of generations in a row whose mean is better
// than every candidate from which hees2 no longer raises sigma (departure
// 7). On random values such a generation has probability 1/(2 lambda~ +
// 1), so a rule from the first one would bias sigma down; from the third
// or the fifth on it still cost runs or evaluations on BBOB f7 and f18 in
// d = 5 and 10, and from the eighth it does not, while it still stops the
// runaway on f6 in d = 40 (docs/ALGORITHMS.md Section 17.3).
const meanBestGens = 8

// meanBest reports whether v[0], the mean's value, is below every
// candidate's value v[1:].
func meanBest(v []float64) bool {
	for _, x := range v[1:] {
		if !(v[0] < x) {
			return false
		}
	}
	return true
}

// nonZero reports whether some v_i is not zero.
func nonZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// Tell takes the values of the rows of the last Ask and performs one
// generation: lines 14-17 and 13 as hees, the step size by departures 2,
// 6 and 7 and the stop criteria with departure 4.
func (h *hees2) Tell(f []float64) error {
	if err := h.checkTell(f, h.PopulationSize()); err != nil {
		return err
	}
	off := f[1:]
	v := h.penalized(f, h.searchPoint, h.stds) // f unless a bounded run's penalty applies (Section 14.5)
	if h.observe(f, v) {
		h.recombine()
		baseline := h.baseline() // from p_s before line 17 updates it
		norm := h.cumulate()
		// Departures 2 and 6: ln sigma <- ln sigma + (|p_s| - baseline)/(d_s chi_d)
		// + (c_mu/2) sum_k (w_k^+ + w_k^- - 1/lambda~)(|b_k|^2/d - 1).
		step := (norm-baseline)/float64(h.ds*h.chi) + h.lengths()
		// Departure 7: not raised from the meanBestGens-th generation in a
		// row whose mean is better than every candidate.
		if meanBest(v) {
			h.stallGens++
		} else {
			h.stallGens = 0
		}
		if h.stallGens >= meanBestGens {
			step = min(step, 0)
		}
		h.sigma *= xmath.Exp(step)
		h.ad.adapt(&h.core, &h.dense, v[0], v[1:])
		h.correctMargin()
	}
	best, worst := off[bestIndex(off)], off[worstIndex(off)]
	h.funHist.push(best)

	h.gen++
	h.pending = false
	// Departure 4: pycma's tolfun, once the history is full, and tolx.
	h.stop = h.stopReason(f, h.cfg.TolFun > 0 && worst-best < h.cfg.TolFun &&
		h.funHist.size() == len(h.funHist.buf) && h.funHist.spread() < h.cfg.TolFun)
	if h.stop == "" && h.cfg.TolFun > 0 && h.tolX() {
		h.stop = ReasonTolX
	}
	return nil
}

// correctMargin applies the margin to the mean after an update
// (docs/ALGORITHMS.md Section 19), with the standard deviation
// sigma |row i of A| of the sampling along each discrete coordinate.
func (h *hees2) correctMargin() {
	g := h.disc
	if g == nil {
		return
	}
	for j, i := range g.idx {
		g.sd[j] = float64(h.sigma * linalg.Norm(h.a.RawRow(i)))
	}
	g.correct(h.mean)
}

// lengths returns the rank-mu term of departure 6, (c_mu/2) sum_k (w_k^+ +
// w_k^- - 1/lambda~)(|b_k|^2/d - 1), where w_k^+ and w_k^- are the weights
// the ranks of x_k^+ and x_k^- give them (both points of a pair have the
// length |b_k|).
func (h *hees2) lengths() float64 {
	d := float64(h.cfg.Dim)
	even := 1 / float64(h.pairs)
	var sum float64
	for k, n := range h.ad.norms {
		w := h.weights[h.rank[2*k]] + h.weights[h.rank[2*k+1]] - even
		sum += float64(w * (float64(n*n)/d - 1))
	}
	return float64(float64(h.cmu/2) * sum) // rounded: Tell adds it to another term
}

// tolX reports pycma's tolx on the sampling distribution sigma A N(0, I):
// every coordinate's standard deviation sigma sqrt((A A^T)_ii) is below
// 1e-11. As |det A| = 1, some row of A has a norm of at least 1
// (Hadamard's inequality), so the O(d^2) row norms are only computed
// once sigma < 1e-11.
func (h *hees2) tolX() bool {
	if !(h.sigma < tolX) {
		return false
	}
	for i := range h.cfg.Dim {
		if !(float64(h.sigma*linalg.Norm(h.a.RawRow(i))) < tolX) {
			return false
		}
	}
	return true
}

// baseline returns the baseline of departure 2: the mean of |p~_r| over
// baselineDraws random permutations r of the ranks of this generation,
// where p~_r = (1 - c_s) p_s + U^T t_r with t_{r,k} = sqrt(c_s (2 - c_s)
// mu_eff^mirr) (w^+_k - w^-_k)_r |b_k| is the path permutation r would have
// given from the current p_s. With the projections c_k = <u_k, p_s>,
// computed once,
//
//	|p~_r|^2 = (1 - c_s)^2 |p_s|^2 + 2 (1 - c_s) <t_r, c> + |U^T t_r|^2,
//
// and |U^T t_r| = |t_r| for the orthonormal directions of one block, so a
// draw costs O(lambda~), not O(lambda~ d); only when the directions span
// several blocks (lambda~ > d) is U^T t_r formed.
func (h *hees2) baseline() float64 {
	om := 1 - h.cs
	coef := h.pathCoef()
	w := h.weights
	ad := &h.ad
	linalg.MulVec(h.proj, &ad.u, h.ps)
	base := float64(float64(om*om) * linalg.Dot(h.ps, h.ps)) // rounded: added in every draw
	st := rng.NewStream(h.key, purposeBaseline, uint64(h.gen), 0)
	for i := range h.perm {
		h.perm[i] = i
	}
	for k, n := range ad.norms {
		h.scale[k] = coef * n
	}
	perm, proj := h.perm[:2*len(h.scale)], h.proj[:len(h.scale)]
	var sum float64
	for range baselineDraws {
		st.Shuffle(perm) // uniform whatever the permutation it starts from
		var tc, tt float64
		for k, s := range h.scale {
			t := float64((w[perm[2*k]] - w[perm[2*k+1]]) * s)
			h.coefs[k] = t
			tc += float64(t * proj[k])
			tt += float64(t * t)
		}
		if ad.blocks > 1 {
			linalg.MulVecT(h.shadow, &ad.u, h.coefs)
			tt = linalg.Dot(h.shadow, h.shadow)
		}
		sq := base + float64(float64(2*om)*tc) + tt
		sum += math.Sqrt(max(sq, 0)) // sq < 0 only by rounding
	}
	return sum / baselineDraws
}

// MarshalBinary saves the complete state under the tag "hees-es/hees2/v1":
// that of hees, then the tolfun history.
func (h *hees2) MarshalBinary() ([]byte, error) {
	w := newStateWriter(HEES2)
	h.writeState(w)
	h.funHist.write(w)
	if h.disc != nil {
		h.disc.writeState(w) // version 4
	}
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a hees2
// strategy, replacing the receiver's state entirely.
func (h *hees2) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, HEES2)
	if err != nil {
		return err
	}
	var fresh hees2
	fresh.setup(cfg)
	fresh.readState(r)
	fresh.funHist.read(r)
	if fresh.disc != nil {
		fresh.disc.readState(r)
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The directions are a function of (seed, generation, p_s): redraw them.
		if err := fresh.sample(); err != nil {
			return err
		}
	}
	*h = fresh
	return nil
}
