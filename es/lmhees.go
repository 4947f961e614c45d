package es

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// LMHEES is the name of the limited-memory HE-ES.
const LMHEES = "lmhees"

// lmheesRow is the limited-memory HE-ES's row of the table of strategies:
// its population is Pairs, computeG's trust region Kappa and learning rate
// EtaA apply to its learned directions, CS and DS are hees's CSA
// constants; O(d log d) memory and cost per evaluation.
var lmheesRow = strategyRow{
	Info: Info{
		Name:       LMHEES,
		Summary:    "limited-memory HE-ES: a diagonal times learned path directions, their curvatures from mirrored pairs, O(d log d) per evaluation",
		Population: PopulationPairs,
		MinDim:     2, // two directions to compare curvatures
	},
	population: lmheesPairs,
	tuning:     []tuning{tuneKappa, tuneEtaA, tuneCS, tuneDS},
	tolFun:     1e-11, // pycma's tolfun, as hees2 (docs/ALGORITHMS.md Sec. 17 item 4)
	defaults: func(cfg *Config) error {
		// The trust region of the reference code, and eta_A = 1: a learned
		// direction is measured only every m'/r generations, so each
		// measurement applies its whole correction (docs/ALGORITHMS.md
		// Section 21.1).
		if err := resolveComputeG(cfg, 3, 1); err != nil {
			return err
		}
		if cfg.CS == 0 {
			cfg.CS = max(heesCS(cfg.Dim, cfg.Pairs), lmheesMinCS)
		}
		return resolveCSA(cfg)
	},
	memory: func(cfg Config) float64 {
		// u and A u (Pairs×d each), the candidates the caller holds
		// ((2 Pairs + 1)×d), the paths and the basis they give (2m×d), and
		// about twenty-four vectors of d numbers.
		p := float64(cfg.Pairs)
		return 8 * float64(cfg.Dim) * (2*p + 2*p + 1 + 2*float64(lmheesSlots(cfg.Dim, cfg.Pairs)) + 24)
	},
	zero: func() strategy { return new(lmhees) },
}

// lmheesPairs is the default number of mirrored pairs, floor(4 + 1.5 ln
// d): hees's floor(2 + 1.5 ln d) and two more, since r of them measure the
// learned directions (docs/ALGORITHMS.md Section 21.1). It is at most d
// (one orthogonal frame) and at most the number of pairs whose candidates
// fit in maxSamples numbers (20 at d = 10^5).
func lmheesPairs(d int) int {
	n := int(math.Floor(4 + float64(1.5*xmath.Log(float64(d)))))
	return max(1, min(n, d, (maxSamples/d-1)/2))
}

// lmheesSlots is m, the number of evolution paths whose directions
// lmhees learns: 4 + floor(3 ln d), the memory of LM-MA-ES (its m), at
// most d - 1 (d orthonormal directions would leave D nothing to fit and W
// would then be a full basis), and none with fewer than three pairs,
// which could not spare one to measure them.
func lmheesSlots(d, pairs int) int {
	if pairs < 3 {
		return 0
	}
	return min(4+int(math.Floor(float64(3*xmath.Log(float64(d))))), d-1)
}

// lmheesMeasured is r, the number of learned directions measured by a
// pair in each generation, in turn: floor((lambda~ + 2)/5), at least 1,
// and at most lambda~ - 2 so that two pairs sample random directions.
func lmheesMeasured(pairs int) int {
	return max(0, min(max(1, (pairs+2)/5), pairs-2))
}

// The constants of lmhees that have no Config field (docs/ALGORITHMS.md
// Section 21.1).
const (
	// lmheesDiagRate is c_D, the multiple of the least-squares fit of the
	// diagonal to a generation's curvatures that is applied when the
	// generations agree on it (rho = 1).
	lmheesDiagRate = 1.2
	// lmheesDiagPath is the cumulation constant of the diagonal's
	// consistency path p_D.
	lmheesDiagPath = 0.05
	// lmheesDiagSignal is by how many of its standard deviations sqrt(2 d)
	// |p_D|^2 must exceed its expectation d under coordinate-free
	// curvatures for the diagonal to move: rho = max(0, 1 - (d +
	// lmheesDiagSignal sqrt(2 d))/|p_D|^2).
	lmheesDiagSignal = 4
	// lmheesSlotTol is the fraction of a path's length that must remain
	// after it is orthogonalised against the slower paths for it to give a
	// learned direction.
	lmheesSlotTol = 1e-8
	// lmheesMinCS is the least default c_s: hees's (mu_eff^mirr + 2)/(d
	// + mu_eff^mirr + 3) falls below it above d = 205, and with it sigma
	// (a time scale of 78 generations in d = 1000) lagged behind the
	// turning learned directions (docs/ALGORITHMS.md Section 21.1 item 6).
	lmheesMinCS = 0.05
	// lmheesPathRatio is the ratio of the time scales of two successive
	// paths: c_j = lambda~/(1.5^j d).
	lmheesPathRatio = 1.5
	// lmheesModelRate is the rate of the running means of the curvature
	// and the squared slope along the random pairs, from which the step
	// size's bound is computed (capSigma).
	lmheesModelRate = 0.2
	// lmheesSigmaCap is the bound of capSigma on the normalised step
	// size, in units of mu_eff^mirr.
	lmheesSigmaCap = 1.3
)

// lmhees is the limited-memory HE-ES (docs/ALGORITHMS.md Section 21.1), an
// HE-ES whose transformation is
//
//	A = diag(D) W,  W = I + sum_j (gamma_j - 1) v_j v_j^T,
//
// O(m d) numbers: a diagonal D and m learned directions v_j, the
// orthonormalised evolution paths of m time scales (slowest first), each
// with its scale gamma_j. One generation with lambda~ pairs, of which r
// measure learned directions:
//
//	b_t      v_j with the length of an N(0, I) vector, t < r, j = (g r + t) mod m'
//	b_k      N(0, I), orthogonal to those and to each other      (k >= r, Algorithm 2)
//	ask      m and x_k^± = m ± sigma A b_k                       (Algorithm 1 lines 11-12)
//	h_k      (f(x_k^+) + f(x_k^-) - 2 f(m))/|b_k|^2              (Algorithm 3 line 3)
//	q_t      -(eta_A/2)(ln max(h_t, max h/kappa) - r̄), r̄ the mean over the random pairs
//	gamma_j  gamma_j exp(q_t)                                    (Algorithm 3 along v_j)
//	D_i      D_i exp(c_D rho (d/2) sum_k q~_k (u_k,i^2 - 1/d))   (the diagonal's fit, q~_k from the random pairs)
//	m, p_s, sigma as hees2 (departures 2 and 6), c_s at least 1/20
//	sigma    at most 1.3 mu_eff^mirr |A^T grad f|/Tr(A^T H A), both from the random pairs
//	P_j      (1 - c_j) P_j + sqrt(c_j (2 - c_j) mu_eff^mirr) W^(1/2) sum_k (w_k^+ - w_k^-) b_k
//	|det A| = 1, sigma absorbing the factor                      (Section 13 item 5)
//
// with c_j = lambda~/(1.5^j d), m' <= m the paths that are not parallel to
// slower ones, and rho in [0, 1] the share of the diagonal fit's signal
// that the generations agree on (p_D). No step is O(d^2): a generation
// costs O(lambda~^2 d + lambda~ m d), O(m d) per evaluation with m =
// O(log d).
type lmhees struct {
	core

	pairs, slots, measure int
	weights               []float64 // recombination weights by rank, hees's
	muEff                 float64
	muEffMirr             float64
	cs, ds, chi           float64 // CSA, as hees
	cmu                   float64 // c_mu of hees2's departure 6
	kappa, eta            float64
	pathRate              []float64 // c_j
	pathCoef              []float64 // sqrt(c_j (2 - c_j) mu_eff^mirr)

	diag    []float64    // D
	paths   linalg.Dense // m×d: P_j, in the space of W^(1/2)
	ell     []float64    // ln gamma_j
	ps      []float64    // p_s, hees's CSA path, in b coordinates
	pd      []float64    // p_D, the diagonal's consistency path
	logDet  float64      // ln |det A| = sum ln D_i + sum ell_j, tracked (Sec. 13 item 5)
	rho     float64      // the last generation's rho
	curv    float64      // running mean of Tr(A^T H A)/(2d), H the Hessian of f (capSigma)
	slope   float64      // running mean of |A^T grad f|^2/d (capSigma)
	funHist history      // best offspring value of each generation (tolfun)

	// The current generation, a function of (seed, generation) and the
	// state above, redrawn on UnmarshalBinary.
	basis    linalg.Dense // m'×d: v_j, the orthonormalised paths
	learned  []int        // the path of each row of basis
	gammas   []float64    // gamma of each row of basis
	measured []int        // the row of basis that row t < r of u measures
	u        linalg.Dense // pairs×d: u_k, b_k = |b_k| u_k
	au       linalg.Dense // pairs×d: A u_k = D W u_k
	norms    []float64    // |b_k|

	order  []int     // offspring from best to worst
	rank   []int     // rank of each offspring
	dw     []float64 // w_k^+ - w_k^-
	h      []float64 // curvature estimates
	lh     []float64 // their logarithms, with the trust region
	y      []float64 // sum_k dw_k b_k, the step in b coordinates
	yw     []float64 // W^(1/2) y
	expo   []float64 // the exponent of D's update
	proj   []float64 // <u_k, p_s>
	perm   []int
	scale  []float64
	coefs  []float64
	shadow []float64
	std    []float64 // scratch of tolX and the no-effect test
}

// setup initialises lmhees from a resolved configuration: m = X0, sigma =
// Sigma0, D = 1, the paths 0 (no learned direction), p_s = 0.
func (l *lmhees) setup(cfg Config) {
	d, n := cfg.Dim, cfg.Pairs
	l.pairs = n
	l.slots = lmheesSlots(d, n)
	l.measure = lmheesMeasured(n)
	l.weights, l.muEff, l.muEffMirr = heesWeights(n)
	l.cs, l.ds = cfg.CS, cfg.DS
	l.chi = chiD(d)
	_, l.cmu = cmaRates(d, 2*n, l.muEff)
	l.kappa, l.eta = cfg.Kappa, cfg.EtaA
	l.setupCore(LMHEES, cfg, 2*n+1)
	l.pathRate = make([]float64, l.slots)
	l.pathCoef = make([]float64, l.slots)
	for j := range l.slots {
		c := min(1, float64(n)/float64(float64(d)*xmath.Pow(lmheesPathRatio, float64(j))))
		l.pathRate[j] = c
		l.pathCoef[j] = math.Sqrt(float64(c*(2-c)) * l.muEffMirr)
	}
	l.diag = make([]float64, d)
	for i := range l.diag {
		l.diag[i] = 1
	}
	if l.slots > 0 {
		l.paths.ReuseAs(l.slots, d) // 0×0 without paths, so that the state can hold it
		l.basis.ReuseAs(l.slots, d)
	}
	l.ell = make([]float64, l.slots)
	l.ps = make([]float64, d)
	l.pd = make([]float64, d)
	l.logDet, l.rho = 0, 0
	l.curv, l.slope = 0, 0
	l.funHist = history{buf: make([]float64, tolFunGens(d, 2*n))}
	l.learned = make([]int, 0, l.slots)
	l.gammas = make([]float64, 0, l.slots)
	l.measured = make([]int, 0, l.measure)
	l.u.ReuseAs(n, d)
	l.au.ReuseAs(n, d)
	l.norms = make([]float64, n)
	l.order = make([]int, 2*n)
	l.rank = make([]int, 2*n)
	l.dw = make([]float64, n)
	l.h = make([]float64, n)
	l.lh = make([]float64, n)
	l.y = make([]float64, d)
	l.yw = make([]float64, d)
	l.expo = make([]float64, d)
	l.proj = make([]float64, n)
	l.perm = make([]int, 2*n)
	l.scale = make([]float64, n)
	l.coefs = make([]float64, n)
	l.shadow = make([]float64, d)
	l.std = make([]float64, d)
}

// PopulationSize is 2 lambda~ + 1: the mean and lambda~ mirrored pairs.
func (l *lmhees) PopulationSize() int { return 2*l.pairs + 1 }

// Ask writes the current mean (row 0) and the mirrored pairs (rows 2k+1 =
// x_k^+, 2k+2 = x_k^-) of the current generation into pop.
func (l *lmhees) Ask(pop *linalg.Dense) error {
	if err := l.checkAsk(pop); err != nil {
		return err
	}
	if !l.pending {
		if err := l.sample(); err != nil {
			return err
		}
		l.pending = true
	}
	resize(pop, l.PopulationSize(), l.cfg.Dim)
	copy(pop.RawRow(0), l.mean)
	for k := range l.pairs {
		l.candidate(pop.RawRow(2*k+1), k, false)
		l.candidate(pop.RawRow(2*k+2), k, true)
	}
	l.toBox(pop)
	return nil
}

// sample draws the directions of the current generation and the products
// W u_k and A u_k. The Gaussian vector z_k of row k comes from the
// sub-stream (purposeSample, generation, k). The learned directions are
// the paths, slowest first, each orthogonalised against the slower ones
// (a path that keeps less than lmheesSlotTol of its length is skipped);
// rows t < r of u are r of them in turn, (g r + t) mod m' in generation g,
// with the length |z_t|; the other rows are the z_k, orthogonalised
// against the rows before them in their block of d rows (Algorithm 2),
// with their own lengths.
func (l *lmhees) sample() error {
	d, n := l.cfg.Dim, l.pairs
	for k := range n {
		st := rng.NewStream(l.key, purposeSample, uint64(l.gen), uint64(k))
		row := l.u.RawRow(k)
		st.FillNormal(row)
		l.norms[k] = linalg.Norm(row)
	}
	l.learned, l.gammas = l.learned[:0], l.gammas[:0]
	for j := l.slots - 1; j >= 0; j-- {
		v := l.basis.RawRow(len(l.learned))
		copy(v, l.paths.RawRow(j))
		orig := linalg.Norm(v)
		if !(orig > 0) || math.IsInf(orig, 1) {
			continue
		}
		if rest := orthogonalizeAgainst(v, &l.basis, len(l.learned)); rest > lmheesSlotTol*orig {
			scaleVec(v, 1/rest)
			l.learned = append(l.learned, j)
			l.gammas = append(l.gammas, xmath.Exp(l.ell[j]))
		}
	}
	l.measured = l.measured[:0]
	if nb := len(l.learned); nb > 0 {
		for t := range min(l.measure, nb) {
			l.measured = append(l.measured, (l.gen*l.measure+t)%nb)
		}
	}
	for t, b := range l.measured {
		copy(l.u.RawRow(t), l.basis.RawRow(b))
	}
	for k := len(l.measured); k < n; k++ {
		row := l.u.RawRow(k)
		orig := linalg.Norm(row)
		if rest := orthogonalizeAgainst(row, &l.u, k); rest > float64(d)*0x1p-52*orig {
			scaleVec(row, 1/rest)
		} else {
			// Gaussian vectors are dependent with probability zero.
			return fmt.Errorf("es: %s: sampleOrthogonal: row %d is dependent on the rows before it", l.name, k)
		}
	}
	for k := range n {
		l.transform(k)
	}
	return nil
}

// orthogonalizeAgainst subtracts from v its projections on the rows
// [b, k) of m, where b is the first row of v's block of d rows (modified
// Gram-Schmidt, twice, "twice is enough"), and returns the norm of what
// remains.
func orthogonalizeAgainst(v []float64, m *linalg.Dense, k int) float64 {
	d := len(v)
	first := k - k%d
	for range 2 {
		for i := first; i < k; i++ {
			r := m.RawRow(i)
			c := linalg.Dot(r, v)
			for t, x := range r {
				v[t] -= float64(c * x)
			}
		}
	}
	return linalg.Norm(v)
}

// scaleVec multiplies v by s.
func scaleVec(v []float64, s float64) {
	for i := range v {
		v[i] *= s
	}
}

// transform computes A u_k = D (W u_k) of row k, with W u_k = gamma v_j
// for a measured direction v_j and u_k + sum_j (gamma_j - 1) <v_j, u_k>
// v_j for the others. O(m d).
func (l *lmhees) transform(k int) {
	u, au := l.u.RawRow(k), l.au.RawRow(k)
	if k < len(l.measured) {
		g := l.gammas[l.measured[k]]
		for i, x := range u {
			au[i] = float64(g * x)
		}
	} else {
		l.stretch(au, u, false)
	}
	for i, x := range au {
		au[i] = float64(l.diag[i] * x)
	}
}

// stretch writes W x = x + sum_j (gamma_j - 1) <v_j, x> v_j into dst, or
// W^(1/2) x, with gamma_j^(1/2) in place of gamma_j, when half is set.
// O(m d).
func (l *lmhees) stretch(dst, x []float64, half bool) {
	copy(dst, x)
	for b, g := range l.gammas {
		if half {
			g = math.Sqrt(g)
		}
		v := l.basis.RawRow(b)
		if c := float64((g - 1) * linalg.Dot(v, x)); c != 0 {
			for i, e := range v {
				dst[i] += float64(c * e)
			}
		}
	}
}

// candidate writes x_k^± = m ± sigma |b_k| A u_k into dst, both signs from
// the same rounded step.
func (l *lmhees) candidate(dst []float64, k int, minus bool) {
	t := l.sigma * l.norms[k]
	au := l.au.RawRow(k)
	for i, mi := range l.mean {
		step := float64(t * au[i])
		if minus {
			dst[i] = mi - step
		} else {
			dst[i] = mi + step
		}
	}
}

// searchPoint writes the search point of row k of the last Ask into dst.
func (l *lmhees) searchPoint(dst []float64, k int) {
	if k == 0 {
		copy(dst, l.mean)
		return
	}
	l.candidate(dst, (k-1)/2, k%2 == 0)
}

// Tell takes the values of the rows of the last Ask and performs one
// generation.
func (l *lmhees) Tell(f []float64) error {
	if err := l.checkTell(f, l.PopulationSize()); err != nil {
		return err
	}
	off := f[1:]
	v := l.penalized(f, l.searchPoint, l.stds) // f unless a bounded run's penalty applies (Section 14.5)
	if l.observe(f, v) {
		l.recombine()
		baseline := l.baseline() // from p_s before it is updated
		norm := l.cumulate()
		sampled := l.sigma
		// hees2's departures 2 and 6.
		l.sigma *= xmath.Exp((norm-baseline)/float64(l.ds*l.chi) + l.lengths())
		hmax := l.curvatures(v[0], v[1:])
		l.capSigma(sampled, v[1:])
		l.updatePaths()
		l.adapt(hmax)
	}
	best, worst := off[bestIndex(off)], off[worstIndex(off)]
	l.funHist.push(best)
	l.gen++
	l.pending = false
	l.stop = l.stopReason(f, l.cfg.TolFun > 0 && worst-best < l.cfg.TolFun &&
		l.funHist.size() == len(l.funHist.buf) && l.funHist.spread() < l.cfg.TolFun)
	return nil
}

// observe counts the values f, ranks the offspring by the values v[1:]
// (f, or f with a bounded run's penalty), updates the best so far from f
// and reports whether the generation has a finite offspring value
// (observePairs).
func (l *lmhees) observe(f, v []float64) bool {
	return l.observePairs(f, v, l.order, l.candidate)
}

// recombine moves the mean: m <- m + sigma sum_k (w_k^+ - w_k^-) |b_k| A
// u_k (Algorithm 1 lines 14-15).
func (l *lmhees) recombine() {
	w := l.weights
	for r, i := range l.order {
		l.rank[i] = r
	}
	for k := range l.pairs {
		l.dw[k] = w[l.rank[2*k]] - w[l.rank[2*k+1]]
	}
	for k := range l.pairs {
		t := float64(l.sigma*l.dw[k]) * l.norms[k]
		for i, x := range l.au.RawRow(k) {
			l.mean[i] += float64(t * x)
		}
	}
	l.fMean = math.NaN()
}

// pathCoefS is sqrt(c_s (2 - c_s) mu_eff^mirr), as hees's pathCoef.
func (l *lmhees) pathCoefS() float64 {
	return math.Sqrt(float64(l.cs*(2-l.cs)) * l.muEffMirr)
}

// cumulate computes the step y = sum_k (w_k^+ - w_k^-) b_k in b
// coordinates, updates p_s (Algorithm 1 line 17) with it and returns
// |p_s|.
func (l *lmhees) cumulate() float64 {
	clear(l.y)
	for k := range l.pairs {
		t := float64(l.dw[k] * l.norms[k])
		for i, x := range l.u.RawRow(k) {
			l.y[i] += float64(t * x)
		}
	}
	om, coef := 1-l.cs, l.pathCoefS()
	for i, x := range l.y {
		l.ps[i] = float64(om*l.ps[i]) + float64(coef*x)
	}
	return linalg.Norm(l.ps)
}

// baseline is hees2's departure 2 (hees2.baseline): the mean of |p~_r|
// over baselineDraws random permutations r of the ranks, computed from
// the projections <u_k, p_s> before p_s is updated.
func (l *lmhees) baseline() float64 {
	om := 1 - l.cs
	coef := l.pathCoefS()
	w := l.weights
	linalg.MulVec(l.proj, &l.u, l.ps)
	base := float64(float64(om*om) * linalg.Dot(l.ps, l.ps))
	st := rng.NewStream(l.key, purposeBaseline, uint64(l.gen), 0)
	for i := range l.perm {
		l.perm[i] = i
	}
	for k, n := range l.norms {
		l.scale[k] = coef * n
	}
	blocks := l.pairs > l.cfg.Dim
	var sum float64
	for range baselineDraws {
		st.Shuffle(l.perm)
		var tc, tt float64
		for k, s := range l.scale {
			t := float64((w[l.perm[2*k]] - w[l.perm[2*k+1]]) * s)
			l.coefs[k] = t
			tc += float64(t * l.proj[k])
			tt += float64(t * t)
		}
		if blocks {
			linalg.MulVecT(l.shadow, &l.u, l.coefs)
			tt = linalg.Dot(l.shadow, l.shadow)
		}
		sq := base + float64(float64(2*om)*tc) + tt
		sum += math.Sqrt(max(sq, 0))
	}
	return sum / baselineDraws
}

// capSigma bounds sigma by the step size that the local quadratic model
// along the random pairs deems best (docs/ALGORITHMS.md Section 21.1 item
// 8), from the values fpm of the pairs and the curvature estimates h_k of
// curvatures. With D1_k = (f(x_k^+) - f(x_k^-))/2 and D2_k = (f(x_k^+) +
// f(x_k^-))/2 - f(m) = h_k |b_k|^2/2, a random pair sampled at the step
// size s measures
// D1_k^2/|b_k|^2 = s^2 |A^T grad f|^2/d and D2_k/|b_k|^2 = s^2
// Tr(A^T H A)/(2d) in expectation; curv and slope are running means
// (rate lmheesModelRate) of their averages over the generation's random
// pairs divided by s^2, and the normalised step size sigma Tr(A^T H
// A)/|A^T grad f| = 2 sigma sqrt(d) curv/sqrt(slope) is held at most at
// 1.3 mu_eff^mirr (lmheesSigmaCap), a little above the sphere's best for
// this recombination. Where the model has no positive curvature (curv <=
// 0) sigma is CSA's alone.
func (l *lmhees) capSigma(sampled float64, fpm []float64) {
	var c, s float64
	used := 0
	for k := len(l.measured); k < l.pairs; k++ {
		if math.IsNaN(l.h[k]) {
			continue // a value that is not finite (curvatures)
		}
		c += float64(0.5 * l.h[k])
		d1 := float64(0.5 * (fpm[2*k] - fpm[2*k+1]))
		s += float64(d1*d1) / float64(l.norms[k]*l.norms[k])
		used++
	}
	if used < 2 {
		return
	}
	v := float64(sampled * sampled)
	c /= float64(float64(used) * v)
	s /= float64(float64(used) * v)
	if !finite(c) || !finite(s) {
		return
	}
	if l.curv == 0 && l.slope == 0 {
		l.curv, l.slope = c, s
	} else {
		l.curv += float64(lmheesModelRate * (c - l.curv))
		l.slope += float64(lmheesModelRate * (s - l.slope))
	}
	if !(l.curv > 0) {
		return
	}
	bound := lmheesSigmaCap * l.muEffMirr * math.Sqrt(l.slope) / float64(2*math.Sqrt(float64(l.cfg.Dim))*l.curv)
	if bound > 0 && bound < l.sigma {
		l.sigma = bound
	}
}

// lengths is hees2's departure 6 (hees2.lengths).
func (l *lmhees) lengths() float64 {
	d := float64(l.cfg.Dim)
	even := 1 / float64(l.pairs)
	var sum float64
	for k, n := range l.norms {
		w := l.weights[l.rank[2*k]] + l.weights[l.rank[2*k+1]] - even
		sum += float64(w * (float64(n*n)/d - 1))
	}
	return float64(float64(l.cmu/2) * sum)
}

// updatePaths cumulates the step y = sum_k dw_k b_k of cumulate, taken
// half-way into the space of W, into the paths: P_j <- (1 - c_j) P_j +
// sqrt(c_j (2 - c_j) mu_eff^mirr) W^(1/2) y, with W^(1/2) y = y + sum_j
// (gamma_j^(1/2) - 1) <v_j, y> v_j. In the space of W (W y) the
// directions already stretched dominated the paths and hid the next long
// axes; in b coordinates (y, as LM-MA-ES's paths in z) a path left a
// direction as soon as W had stretched it, and its gamma_j then scaled
// another one (docs/ALGORITHMS.md Section 21.1 item 2).
func (l *lmhees) updatePaths() {
	l.stretch(l.yw, l.y, true)
	for j := range l.slots {
		p := l.paths.RawRow(j)
		a, b := 1-l.pathRate[j], l.pathCoef[j]
		for i, x := range l.yw {
			p[i] = float64(a*p[i]) + float64(b*x)
		}
	}
}

// curvatures computes the curvature estimates h_k = (f(x_k^+) + f(x_k^-)
// - 2 f(m))/|b_k|^2 (Algorithm 3 line 3) from f(m) = fm and the values fpm
// of the pairs (x_k^+ at 2k, x_k^- at 2k+1), NaN for a pair with a value
// that is not finite (Section 13 item 8), and returns the largest.
func (l *lmhees) curvatures(fm float64, fpm []float64) float64 {
	hmax := math.Inf(-1)
	for k := range l.pairs {
		fp, fn := fpm[2*k], fpm[2*k+1]
		if !finite(fp) || !finite(fn) || !finite(fm) {
			l.h[k] = math.NaN()
			continue
		}
		n := l.norms[k]
		l.h[k] = (fp + fn - 2*fm) / float64(n*n)
		hmax = max(hmax, l.h[k])
	}
	return hmax
}

// adapt is the HE-ES's update of A (Algorithm 1 line 13) for lmhees's
// family, from the curvature estimates h_k of curvatures and their largest
// hmax: the trust region (lines 5-6), the reference r, the mean
// log-curvature of the random pairs, in place of line 8's mean over all
// pairs, then gamma_j of each learned direction (lines 9-11 along v_j),
// the diagonal's fit, and |det A| = 1.
func (l *lmhees) adapt(hmax float64) {
	if !(hmax > 0) {
		return // no positive estimate: A stays (Algorithm 3 line 4)
	}
	floor := hmax / l.kappa
	nm := len(l.measured)
	var ref float64
	used := 0
	for k, v := range l.h {
		if !finite(v) {
			continue
		}
		l.lh[k] = xmath.Log(max(v, floor))
		if k >= nm {
			ref += l.lh[k]
			used++
		}
	}
	if used == 0 {
		return // no random pair to compare with
	}
	ref /= float64(used)
	scale := -0.5 * l.eta
	for t, b := range l.measured {
		if finite(l.h[t]) {
			q := float64(scale * (l.lh[t] - ref))
			l.ell[l.learned[b]] += q
			l.logDet += q
		}
	}
	l.adaptDiag()
	// Section 13 item 5: |det A| = 1, sigma absorbing the factor.
	if math.Abs(l.logDet) > detTol {
		s := xmath.Exp(l.logDet / float64(l.cfg.Dim))
		for i := range l.diag {
			l.diag[i] /= s
		}
		l.sigma *= s
		l.logDet = 0
	}
}

// adaptDiag fits the diagonal to the random pairs' curvatures. Random
// row k measures c_k = ln max(h_k, max h/kappa), the curvature of A^T H A
// along the unit vector u_k: what W leaves unexplained. With q_k =
// -(1/2)(c_k - mean c), the least-squares change e of ln D that moves the
// curvature along each u_k by exp(2 q_k) (linearised about A^T H A = I
// and W = I, for orthonormal u_k) is e = (d/2) sum_k q_k (u_k,i^2 - 1/d).
// Fitting in u's space rather than along W u_k keeps D from taking over
// what a learned direction already stretches (along W u_k, whose share of
// a long learned direction is large, the fit stretched the same
// coordinates again; on Rosenbrock in d = 10 D's range grew to 1e11 and
// the runs stalled). The rate c_D rho
// applies a share of it, rho the share of its signal that the generations
// agree on, from the path p_D of the fits normalised to unit variance
// under curvatures that do not depend on the coordinates: rho = max(0, 1 -
// (d + 4 sqrt(2 d))/|p_D|^2), 0 unless |p_D|^2 exceeds its expectation d
// without a signal by 4 standard deviations (with 1 - d/|p_D|^2, half the
// generations moved D on noise, and on rotated functions D then worked
// against the learned directions). The change has sum_i e_i = 0, so it
// keeps det A. It uses the random rows of the first block (orthogonal to
// each other).
func (l *lmhees) adaptDiag() {
	d := l.cfg.Dim
	nd := float64(d)
	first, last := len(l.measured), min(l.pairs, d)
	var mean float64
	used := 0
	for k := first; k < last; k++ {
		if finite(l.h[k]) {
			mean += l.lh[k]
			used++
		}
	}
	if used < 2 {
		return
	}
	mean /= float64(used)
	clear(l.expo)
	var sq float64
	for k := first; k < last; k++ {
		if !finite(l.h[k]) {
			continue
		}
		q := float64(-0.5 * (l.lh[k] - mean))
		sq += float64(q * q)
		c := float64(nd / 2 * q)
		for i, x := range l.u.RawRow(k) {
			l.expo[i] += float64(c * float64(x*x))
		}
		// The term -q/2 of (d/2) q (-1/d) for every coordinate.
		for i := range l.expo {
			l.expo[i] -= float64(0.5 * q)
		}
	}
	if !(sq > 0) {
		return
	}
	// p_D: each coordinate of e has the variance sum q_k^2/2 when the
	// curvatures do not depend on the coordinates.
	c := lmheesDiagPath
	a, b := 1-c, math.Sqrt(float64(c*(2-c))/float64(sq/2))
	var p2 float64
	for i, e := range l.expo {
		p := float64(a*l.pd[i]) + float64(b*e)
		l.pd[i] = p
		p2 += float64(p * p)
	}
	l.rho = max(0, 1-(nd+lmheesDiagSignal*math.Sqrt(2*nd))/p2)
	rate := float64(lmheesDiagRate * l.rho)
	if rate == 0 {
		return
	}
	for i, e := range l.expo {
		l.diag[i] *= xmath.Exp(float64(rate * e))
	}
}

// coordStds writes sqrt((A A^T)_ii) = D_i sqrt(1 + sum_j (gamma_j^2 - 1)
// v_j,i^2), the standard deviation of coordinate i per unit of sigma, into
// dst, with the learned directions of the current generation.
func (l *lmhees) coordStds(dst []float64) {
	for i := range dst {
		dst[i] = 1
	}
	for b, g := range l.gammas {
		c := float64(g*g) - 1
		for i, x := range l.basis.RawRow(b) {
			dst[i] += float64(c * float64(x*x))
		}
	}
	for i, v := range dst {
		dst[i] = float64(l.diag[i] * math.Sqrt(max(v, 0)))
	}
}

// stds writes sigma sqrt((A A^T)_ii) into dst (for the ranking penalty of
// a bounded run). O(m d).
func (l *lmhees) stds(dst []float64) {
	l.coordStds(dst)
	for i := range dst {
		dst[i] = float64(l.sigma * dst[i])
	}
}

// stopReason returns the criterion that fires after a generation with the
// values f, or "": a value -Inf, too many rejected generations, tolfun
// (the caller's test), the limits on sigma, pycma's tolx (every sigma
// sqrt((A A^T)_ii) below 1e-11) and, every few generations (checker),
// sigma too small (m_i + 0.1 sigma sqrt((A A^T)_ii) == m_i for every i).
func (l *lmhees) stopReason(f []float64, tolFun bool) Reason {
	switch {
	case slices.ContainsFunc(f, func(v float64) bool { return math.IsInf(v, -1) }):
		return ReasonMinusInf
	case l.nonFinite >= nonFiniteMax:
		return ReasonNotFinite
	case tolFun:
		return ReasonTolFun
	}
	if r := l.checkSigma(); r != "" {
		return r
	}
	_, due := l.checkDue()
	if !due && !(l.sigma < tolX) {
		return ""
	}
	l.stds(l.std)
	if l.cfg.TolFun > 0 && !slices.ContainsFunc(l.std, func(s float64) bool { return !(s < tolX) }) {
		return ReasonTolX
	}
	if due {
		for i, mi := range l.mean {
			if mi+float64(noEffectStep*l.std[i]) != mi {
				return ""
			}
		}
		return ReasonSigmaTooSmall
	}
	return ""
}

// MarshalBinary saves the complete state under the tag "hees-es/lmhees/v3"
// (the format without the slot for A): the core, D, the paths, their
// gamma_j, p_s, p_D, the step-size model's curv and slope and the tolfun
// history, O(m d) numbers. A state written by a build without the
// step-size model does not load: it is refused as truncated.
func (l *lmhees) MarshalBinary() ([]byte, error) {
	w := newStateWriterVersion(LMHEES, stateVersionNoA)
	l.marshalCore(w, nil)
	w.floats(l.diag)
	w.matrix(&l.paths)
	w.floats(l.ell)
	w.floats(l.ps)
	w.floats(l.pd)
	w.float(l.logDet)
	w.float(l.rho)
	w.float(l.curv)
	w.float(l.slope)
	l.funHist.write(w)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of an lmhees
// strategy, replacing the receiver's state entirely.
func (l *lmhees) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, LMHEES)
	if err != nil {
		return err
	}
	if r.version != stateVersionNoA {
		r.fail("version v%d, want v%d", r.version, stateVersionNoA)
		return r.err
	}
	var fresh lmhees
	fresh.setup(cfg)
	fresh.unmarshalCore(r, nil)
	fresh.diag = r.floats(fresh.diag)
	r.matrix(&fresh.paths)
	fresh.ell = r.floats(fresh.ell)
	fresh.ps = r.floats(fresh.ps)
	fresh.pd = r.floats(fresh.pd)
	fresh.logDet = r.float()
	fresh.rho = r.float()
	fresh.curv = r.float()
	fresh.slope = r.float()
	fresh.funHist.read(r)
	if r.err == nil {
		d := cfg.Dim
		rows, cols := fresh.paths.Dims()
		switch {
		case len(fresh.diag) != d || len(fresh.ps) != d || len(fresh.pd) != d:
			r.fail("D, p_s and p_D have lengths %d, %d, %d, want %d", len(fresh.diag), len(fresh.ps), len(fresh.pd), d)
		case rows != fresh.slots || (rows > 0 && cols != d) || len(fresh.ell) != fresh.slots:
			r.fail("%d×%d paths and %d scales, want %d×%d and %d", rows, cols, len(fresh.ell), fresh.slots, d, fresh.slots)
		case !allPositiveFinite(fresh.diag):
			r.fail("D has an entry that is not positive and finite")
		case !finite(fresh.curv) || !finite(fresh.slope) || fresh.slope < 0:
			r.fail("the step-size model's curvature %v and squared slope %v are not finite (and the slope non-negative)", fresh.curv, fresh.slope)
		}
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The directions are a function of (seed, generation) and the
		// state: redraw them.
		if err := fresh.sample(); err != nil {
			return err
		}
	}
	*l = fresh
	return nil
}
