package es

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// Termination limits of cmaes that have no counterpart in the other
// strategies (pycma's defaults, docs/ALGORITHMS.md Section 8). tolconditioncov
// (condMax), tolupsigma (sigmaGrowthMax) and noeffectaxis (noEffectStep)
// are shared with es/stop.go, tolx with hees2 and tolstagnation with
// sepcma (es/pycma.go).
const (
	// tolFunHist is pycma's tolfunhist: the best values of the recent
	// generations span less than it.
	tolFunHist = 1e-12
	// noEffectCoordStep is the fraction of a coordinate's standard
	// deviation of pycma's noeffectcoord.
	noEffectCoordStep = 0.2
)

// CMAES is the name of the CMA-ES.
const CMAES = "cmaes"

// cmaesRow is the CMA-ES's row of the table of strategies: its population
// is Lambda, at least 2, with the default of Hansen's tutorial; no tuning
// fields (pycma's defaults throughout).
var cmaesRow = strategyRow{
	Info: Info{
		Name:       CMAES,
		Summary:    "(mu/mu_w, lambda)-CMA-ES with the active update, pycma 4.4's defaults",
		Population: PopulationLambda,
		Transform:  true,
		MinDim:     1,
		Margin:     true,
		Noise:      true,
	},
	population: defaultLambda,
	tolFun:     1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	defaults:   func(cfg *Config) error { return checkLambda(CMAES, cfg) },
	memory:     func(cfg Config) float64 { return denseMemory(cfg.Dim, cfg.Lambda) },
	zero:       func() strategy { return new(cmaes) },
	margin:     func(cfg Config) float64 { return 1 / float64(cfg.Lambda*cfg.Dim) }, // CMAwM's 1/(lambda d)
}

// checkLambda checks the population size of a (mu/mu_w, lambda)-CMA-ES
// called name: at least 2, so that there is a parent, mu = floor(lambda/2).
func checkLambda(name string, cfg *Config) error {
	if cfg.Lambda < 2 {
		return fmt.Errorf("es: Config.Lambda = %d: %s needs at least 2 (mu = floor(lambda/2) parents)", cfg.Lambda, name)
	}
	return nil
}

// defaultLambda is lambda = 4 + floor(3 ln n) (tutorial eq. (48),
// docs/ALGORITHMS.md Section 8).
func defaultLambda(d int) int {
	return 4 + int(math.Floor(float64(3*xmath.Log(float64(d)))))
}

// cmaesParams are the fixed parameters of the (mu/mu_w, lambda)-CMA-ES with
// the active covariance update, as pycma 4.4 sets them by default
// (docs/ALGORITHMS.md Section 8). Each comment names the source: pycma's
// RecombinationWeights (recombination_weights.py), CMAParameters.set and
// GaussSampler.parameters (options_parameters.py, sampler.py),
// CMAAdaptSigmaCSA (sigma_adaptation.py) and Hansen, "The CMA Evolution
// Strategy: A Tutorial", arXiv 1604.00772, 2016, eqs. (48)-(58).
type cmaesParams struct {
	lambda int // population size, eq. (48) by default
	mu     int // number of positive weights, floor(lambda/2)
	// weights[i] is the weight w_{i+1} of the (i+1)-th best offspring:
	// w_1..w_mu > 0 sum to 1, the others are <= 0 (the middle one is 0
	// for odd lambda) and sum to -alpha (eqs. (49), (53)).
	weights []float64
	// weightSum is the sum of all weights, 1 - alpha.
	weightSum  float64
	muEff      float64 // mu_eff = 1 / sum_{w_i > 0} w_i^2
	muEffMinus float64 // mu_eff^- = (sum_{w_i < 0} w_i)^2 / sum_{w_i < 0} w_i^2
	cs         float64 // c_sigma, cumulation of the sigma path (pycma CSA)
	ds         float64 // d_sigma, damping of sigma, eq. (55)
	cc         float64 // c_c, cumulation of the rank-one path, eq. (56)
	c1         float64 // c_1, rank-one learning rate (pycma)
	cmu        float64 // c_mu, rank-mu learning rate (pycma)
	chi        float64 // E|N(0, I)|, pycma's chiN
	// lazyGap is the number of evaluations after which C is decomposed
	// again: pycma's lazy_update_gap of 1/((c_1 + c_mu) n 10) generations,
	// times lambda.
	lazyGap float64
	// histLen is the length floor(10 + 30 n/lambda) of the history of best
	// values of tolfun and tolfunhist (pycma).
	histLen int
}

// newCMAESParams derives the CMA-ES constants for dimension d and
// population size lambda >= 2 (docs/ALGORITHMS.md Section 8).
func newCMAESParams(d, lambda int) cmaesParams {
	n := float64(d)
	p := cmaesParams{lambda: lambda}
	p.weights = make([]float64, lambda)
	p.mu, p.muEff, p.muEffMinus = rawCMAESWeights(p.weights)
	p.c1, p.cmu = cmaRates(d, lambda, p.muEff)
	// pycma RecombinationWeights.finalize_negative_weights (tutorial eqs.
	// (50)-(53)): the negative weights, which sum to -1 here, are scaled to
	// sum to -alpha_mu^- = -(1 + c_1/c_mu) (zero decay of C), then limited
	// to alpha_posdef^- = (1 - c_1 - c_mu)/(n c_mu) and to
	// alpha_mueff^- = 1 + 2 mu_eff^-/(mu_eff + 2).
	alpha := 1 + p.c1/p.cmu
	alpha = min(alpha, (1-p.c1-p.cmu)/(p.cmu*n))
	alpha = min(alpha, 1+2*p.muEffMinus/(p.muEff+2))
	for i := p.mu; i < lambda; i++ {
		p.weights[i] *= alpha
	}
	for _, w := range p.weights {
		p.weightSum += w
	}
	// pycma CMAAdaptSigmaCSA.initialize: c_sigma = (mu_eff + 2)/(n + mu_eff + 3)
	// (the tutorial's eq. (55) has n + mu_eff + 5), and eq. (55)'s damping
	// d_sigma = 1 + 2 max(0, sqrt((mu_eff - 1)/(n + 1)) - 1) + c_sigma
	// (pycma's 0.5 + 1/2 without mirrored samples).
	p.cs = (p.muEff + 2) / (n + p.muEff + 3)
	p.ds = 1 + float64(2*max(0, math.Sqrt((p.muEff-1)/(n+1))-1)) + p.cs
	// Eq. (56), pycma CMAParameters.set: c_c = (4 + mu_eff/n)/(n + 4 + 2 mu_eff/n).
	p.cc = (4 + p.muEff/n) / (n + 4 + 2*p.muEff/n)
	p.chi = pycmaChiN(d)
	p.lazyGap = float64(float64(lambda)*0.1) / float64(float64(p.c1+p.cmu)*n)
	p.histLen = int(10 + 30*n/float64(lambda))
	return p
}

// cmaes is the (mu/mu_w, lambda)-CMA-ES with the active covariance update
// as pycma 4.4 runs it by default (option CMA_active; docs/ALGORITHMS.md
// Section 8, Hansen 2016). Every
// generation asks lambda candidates x_k = m + sigma B D z_k, where
// C = B D^2 B^T is the eigendecomposition of the covariance matrix,
// refreshed lazily every lazyGap evaluations; core.a holds A = B D, so the
// sampling covariance is sigma^2 A A^T.
type cmaes struct {
	core
	dense
	p cmaesParams

	cov linalg.Dense // C, updated every generation (eq. (47))
	// basis (B, eigenvectors in the columns, ascending eigenvalues) and
	// eigenvalues (D^2) are the last decomposition of C; A = B D.
	basis       linalg.Dense
	eigenvalues []float64
	eigenEvals  int // Evals at the last decomposition
	eig         linalg.EigenSym
	values      []float64 // scratch for the eigenvalues being checked

	ps    []float64 // p_sigma, the sigma path (eq. (43))
	pc    []float64 // p_c, the rank-one path (eq. (45))
	psVar float64   // 1 - (1 - c_sigma)^(2k) after k updates of p_sigma

	z, y  linalg.Dense // lambda×d: z_k ~ N(0, I) and y_k = B D z_k (eqs. (38)-(39))
	order []int        // offspring indices from best to worst
	// selection is the order by the penalized values of a bounded run
	// (update), when they differ from f.
	selection []int
	zw        []float64 // <z>_w
	yw        []float64 // <y>_w (eq. (41))
	bzw       []float64 // B <z>_w = C^(-1/2) <y>_w
	// rank holds p_c (row 0) and the ranked y_{i:lambda} (rows 1..lambda),
	// rankCoef the coefficients c_1 and c_mu w°_i of eq. (47)'s updates.
	rank     linalg.Dense
	rankCoef []float64

	funHist history    // best value of each generation (tolfun, tolfunhist)
	stag    stagnation // tolstagnation's records
}

// setup initialises a CMA-ES from a resolved configuration: m = X0,
// sigma = Sigma0, C = A0 A0^T (or I), p_sigma = p_c = 0.
func (c *cmaes) setup(cfg Config) {
	d, lambda := cfg.Dim, cfg.Lambda
	a0 := cfg.A0
	c.p = newCMAESParams(d, lambda)
	// cmaes runs its criteria on its own decomposition of C: no shared
	// checker (evalsPerGen 0), whose d×d workspace would go unused.
	c.setupCore(CMAES, cfg, 0)
	c.setupDense(d, a0, false)

	c.cov.ReuseAs(d, d)
	c.basis.ReuseAs(d, d)
	c.eigenvalues = make([]float64, d)
	c.values = make([]float64, d)
	c.eigenEvals = 0
	if a0 == nil {
		// C = I: B = I, D = I and A = I (set by setupDense).
		c.cov.SetIdentity()
		c.basis.SetIdentity()
		for i := range c.eigenvalues {
			c.eigenvalues[i] = 1
		}
	} else {
		c.cov.MulAAT(a0)
		if !c.decompose() {
			c.stop = ReasonConditionCov
		}
	}
	c.ps = make([]float64, d)
	c.pc = make([]float64, d)
	c.psVar = 0
	c.z.ReuseAs(lambda, d)
	c.y.ReuseAs(lambda, d)
	c.order = make([]int, lambda)
	c.selection = make([]int, lambda)
	c.zw = make([]float64, d)
	c.yw = make([]float64, d)
	c.bzw = make([]float64, d)
	c.rank.ReuseAs(lambda+1, d)
	c.rankCoef = make([]float64, lambda+1)
	c.rankCoef[0] = c.p.c1
	c.funHist = history{buf: make([]float64, c.p.histLen)}
	c.stag.setup(d, lambda)
}

// PopulationSize is the population size lambda.
func (c *cmaes) PopulationSize() int { return c.p.lambda }

// stds writes the standard deviation of the sampling distribution along
// each coordinate into dst (for the ranking penalty of a bounded run).
func (c *cmaes) stds(dst []float64) { c.coordStds(dst, c.sigma) }

// Ask writes the lambda candidates of the current generation into pop.
func (c *cmaes) Ask(pop *linalg.Dense) error {
	return c.askLambda(pop, c.p.lambda, c.draw, c.candidate)
}

// draw samples the current generation: z_k ~ N(0, I) from the sub-stream
// (purposeSample, generation, k) (eq. (38)) and y_k = B D z_k = A z_k
// (eq. (39)), the lambda products in one DotRows.
func (c *cmaes) draw() {
	for k := range c.p.lambda {
		st := rng.NewStream(c.key, purposeSample, uint64(c.gen), uint64(k))
		st.FillNormal(c.z.RawRow(k))
	}
	c.y.DotRows(&c.z, &c.a) // row k is MulVec(A, z_k) bit for bit
}

// candidate writes x_k = m + sigma y_k (eq. (40)) into dst.
func (c *cmaes) candidate(dst []float64, k int) {
	y := c.y.RawRow(k)
	for j, mj := range c.mean {
		dst[j] = mj + float64(c.sigma*y[j])
	}
}

// Tell takes the values of the rows of the last Ask and performs one
// generation of the CMA-ES.
func (c *cmaes) Tell(f []float64) error {
	if err := c.checkTell(f, c.p.lambda); err != nil {
		return err
	}
	c.evals += len(f)
	// Selection (Section 13 item 8, Section 14.5); the best point, the
	// histories and the stop criteria keep f and c.order.
	selection, _, accepted := c.rankGeneration(f, c.order, c.selection, c.candidate, c.stds)
	if accepted {
		c.update(selection)
		c.correctMargin()
	} else {
		// Section 13 item 8: a generation without a finite value is
		// rejected: m, C and the paths stay, sigma is halved.
		c.sigma *= 0.5
		c.nonFinite++
	}
	c.gen++
	c.pending = false
	if accepted {
		c.record(f)
	}
	decomposed := true
	if float64(c.evals-c.eigenEvals) >= c.p.lazyGap {
		decomposed = c.decompose()
	}
	c.stop = c.checkStop(f, decomposed)
	return nil
}

// update performs eqs. (41)-(47) with the ranks in order (best first), as
// pycma's CMAEvolutionStrategy.tell does with its default options.
func (c *cmaes) update(order []int) {
	p := &c.p
	d := float64(c.cfg.Dim)
	// Eq. (41): <y>_w = sum_{i<=mu} w_i y_{i:lambda}, and likewise <z>_w,
	// with the positive weights; every y_{i:lambda} goes into eq. (47).
	clear(c.yw)
	clear(c.zw)
	for i, w := range p.weights {
		k := order[i]
		y, z := c.y.RawRow(k), c.z.RawRow(k)
		copy(c.rank.RawRow(i+1), y)
		if i >= p.mu {
			// Eq. (46), pycma GaussFullSampler.update: a negative weight
			// is multiplied by n/|C^(-1/2) y|^2, where C^(-1/2) y =
			// B D^-1 B^T B D z = B z has the length of z; pycma adds 1e-9
			// to the length.
			var z2 float64
			for _, v := range z {
				z2 += float64(v * v)
			}
			l := math.Sqrt(z2) + 1e-9
			c.rankCoef[i+1] = float64(float64(p.cmu*w)*d) / float64(l*l)
			continue
		}
		c.rankCoef[i+1] = float64(p.cmu * w)
		for j, v := range y {
			c.yw[j] += float64(w * v)
		}
		for j, v := range z {
			c.zw[j] += float64(w * v)
		}
	}
	// Eq. (42) with c_m = 1 (eq. (54)): m <- m + sigma <y>_w.
	for j, v := range c.yw {
		c.mean[j] += float64(c.sigma * v)
	}

	// Eq. (43): p_sigma <- (1 - c_sigma) p_sigma
	// + sqrt(c_sigma (2 - c_sigma) mu_eff) C^(-1/2) <y>_w, where
	// C^(-1/2) <y>_w = B D^-1 B^T B D <z>_w = B <z>_w with the B and D the
	// candidates were sampled with (the current decomposition).
	cs := p.cs
	om := 1 - cs
	linalg.MulVec(c.bzw, &c.basis, c.zw)
	coef := math.Sqrt(float64(cs*(2-cs)) * p.muEff)
	var norm2 float64
	for j, v := range c.bzw {
		s := float64(om*c.ps[j]) + float64(coef*v)
		c.ps[j] = s
		norm2 += float64(s * s)
	}
	// h_sigma (pycma CMAAdaptSigmaBase.hsig): 1 iff
	// |p_sigma|^2 / (1 - (1 - c_sigma)^(2g)) / n < 2 + 4/(n+1) after g
	// updates. The factor 1 - (1 - c_sigma)^(2g) follows
	// v <- (1 - c_sigma)^2 v + c_sigma (2 - c_sigma), v = 0.
	c.psVar = float64(float64(om*om)*c.psVar) + float64(cs*(2-cs))
	hsigma := norm2/c.psVar/d < 2+4/(d+1)

	// Eq. (45): p_c <- (1 - c_c) p_c + h_sigma sqrt(c_c (2 - c_c) mu_eff) <y>_w.
	cc := p.cc
	var pcCoef, deltaH float64
	if hsigma {
		pcCoef = math.Sqrt(float64(cc*(2-cc)) * p.muEff)
	} else {
		// delta(h_sigma) = (1 - h_sigma) c_c (2 - c_c) (tutorial p. 28;
		// pycma's c1a = c_1 (1 - delta(h_sigma))).
		deltaH = float64(cc * (2 - cc))
	}
	for j, v := range c.yw {
		c.pc[j] = float64((1-cc)*c.pc[j]) + float64(pcCoef*v)
	}
	copy(c.rank.RawRow(0), c.pc)

	// Eq. (47): C <- (1 + c_1 delta(h_sigma) - c_1 - c_mu sum_j w_j) C
	// + c_1 p_c p_c^T + c_mu sum_i w°_i y_{i:lambda} y_{i:lambda}^T, the
	// sum over all lambda offspring with the weights before eq. (46)'s
	// rescaling in the decay (pycma GaussFullSampler.update).
	decay := 1 + float64(p.c1*deltaH) - p.c1 - float64(p.cmu*p.weightSum)
	c.cov.Scale(decay, &c.cov)
	c.cov.AddOuterSum(c.rankCoef, &c.rank, &c.rank)

	// Eq. (44), pycma CMAAdaptSigmaCSA.update2: sigma <- sigma
	// exp(s), s = (c_sigma/d_sigma)(|p_sigma|/chi_n - 1) clipped to [-1, 1].
	s := float64((cs / p.ds) * (math.Sqrt(norm2)/p.chi - 1))
	c.sigma *= xmath.Exp(min(1, max(-1, s)))
}

// correctMargin applies the margin to the mean after an update (CMAwM's
// tell; docs/ALGORITHMS.md Section 19), with the standard deviation
// sigma sqrt(C_ii) of the updated C along each discrete coordinate.
func (c *cmaes) correctMargin() {
	g := c.disc
	if g == nil {
		return
	}
	for j, i := range g.idx {
		g.sd[j] = float64(c.sigma * math.Sqrt(c.cov.At(i, i)))
	}
	g.correct(c.mean)
}

// record appends the generation's best value to the tolfun history and
// records the generation for tolstagnation.
func (c *cmaes) record(f []float64) {
	c.funHist.push(f[c.order[0]])
	c.stag.record(c.gen, f[c.order[0]], f)
}

// decompose computes C = B D^2 B^T (eigenvalues ascending) and A = B D. It
// keeps the previous decomposition and reports false when C cannot be
// decomposed or is not positive definite.
func (c *cmaes) decompose() bool {
	c.eigenEvals = c.evals
	if err := c.eig.Factorize(&c.cov, true); err != nil {
		return false
	}
	vals := c.eig.Values(c.values)
	if !(vals[0] > 0) || math.IsInf(vals[len(vals)-1], 1) {
		return false
	}
	copy(c.eigenvalues, vals)
	c.eig.VectorsTo(&c.basis)
	// A = B D, D = diag(sqrt(eigenvalues)); vals is reused for D.
	var logDet float64
	for j, v := range vals {
		vals[j] = math.Sqrt(v)
		logDet += xmath.Log(vals[j])
	}
	for i := range c.cfg.Dim {
		row, b := c.a.RawRow(i), c.basis.RawRow(i)
		for j, v := range b {
			row[j] = float64(v * vals[j])
		}
	}
	c.logDetA = logDet
	return true
}

// checkStop returns the first criterion that fires after a generation with
// values f (docs/ALGORITHMS.md Section 8, pycma's defaults, and Section 13 item
// 8), or "". decomposed is false when the decomposition of this generation
// failed.
func (c *cmaes) checkStop(f []float64, decomposed bool) Reason {
	d := c.cfg.Dim
	maxEig := c.eigenvalues[d-1]
	switch {
	case math.IsInf(f[c.order[0]], -1):
		return ReasonMinusInf
	case c.nonFinite >= nonFiniteMax:
		return ReasonNotFinite
	case !decomposed:
		// tolconditioncov: C is no longer numerically positive definite.
		return ReasonConditionCov
	case !(c.sigma >= sigmaMin):
		return ReasonSigmaTooSmall
	case c.sigma > sigmaMax || c.sigma/c.cfg.Sigma0 > float64(sigmaGrowthMax*math.Sqrt(maxEig)):
		// tolupsigma: sigma/sigma0 > 1e20 max(D).
		return ReasonSigmaTooLarge
	case c.cfg.TolFun > 0 && f[c.order[c.p.lambda-1]]-f[c.order[0]] < c.cfg.TolFun &&
		c.funHist.spread() < c.cfg.TolFun:
		// tolfun: the generation's values and the recent best values.
		return ReasonTolFun
	case c.funHist.size() > 9 && c.funHist.spread() < tolFunHist:
		return ReasonTolFunHist
	case c.tolX():
		return ReasonTolX
	case maxEig > condMax*c.eigenvalues[0]:
		// tolconditioncov: cond(C) > 1e14.
		return ReasonConditionCov
	case c.noEffectAxis():
		return ReasonNoEffectAxis
	case c.noEffectCoord():
		return ReasonNoEffectCoord
	case c.stag.fires(c.gen):
		return ReasonStagnation
	}
	return ""
}

// tolX reports pycma's tolx: sigma |p_c,i| < 1e-11 and
// sigma sqrt(C_ii) < 1e-11 for every i.
func (c *cmaes) tolX() bool {
	for i, v := range c.pc {
		if !(float64(c.sigma*math.Abs(v)) < tolX) || !(float64(c.sigma*math.Sqrt(c.cov.At(i, i))) < tolX) {
			return false
		}
	}
	return true
}

// noEffectAxis reports pycma's noeffectaxis for the generation g just
// completed: m + 0.1 sigma sqrt(lambda_i) v_i == m for the eigenpair
// (lambda_i, v_i) of the current decomposition with i = g mod n.
func (c *cmaes) noEffectAxis() bool {
	i := (c.gen - 1) % c.cfg.Dim
	t := float64(float64(noEffectStep*c.sigma) * math.Sqrt(c.eigenvalues[i]))
	for j, mj := range c.mean {
		if mj+float64(t*c.basis.At(j, i)) != mj {
			return false
		}
	}
	return true
}

// noEffectCoord reports pycma's noeffectcoord: m_j + 0.2 sigma sqrt(C_jj)
// == m_j for some coordinate j.
func (c *cmaes) noEffectCoord() bool {
	t := float64(noEffectCoordStep * c.sigma)
	for j, mj := range c.mean {
		if mj+float64(t*math.Sqrt(c.cov.At(j, j))) == mj {
			return true
		}
	}
	return false
}

// MarshalBinary saves the complete state under the tag "hees-es/cmaes/v1".
// Lambda is written before the shared configuration, which does not hold it.
func (c *cmaes) MarshalBinary() ([]byte, error) {
	w := newStateWriter(CMAES)
	w.int(c.cfg.Lambda)
	c.marshalCore(w, &c.dense)
	w.matrix(&c.cov)
	w.matrix(&c.basis)
	w.floats(c.eigenvalues)
	w.int(c.eigenEvals)
	w.floats(c.ps)
	w.floats(c.pc)
	w.float(c.psVar)
	c.funHist.write(w)
	c.stag.write(w)
	if c.disc != nil {
		c.disc.writeState(w) // version 4
	}
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a cmaes
// strategy, replacing the receiver's state entirely.
func (c *cmaes) UnmarshalBinary(data []byte) error {
	r, err := openState(data, CMAES)
	if err != nil {
		return err
	}
	lambda := r.int()
	if lambda > maxPopulation { // before setup allocates for it (es/core.go readConfig)
		r.fail("Lambda = %d exceeds %d", lambda, maxPopulation)
		return r.err
	}
	cfg, err := readConfig(r, CMAES)
	if err != nil {
		return err
	}
	cfg.Lambda = lambda
	if cfg, err = resolve(CMAES, cfg); err != nil {
		r.fail("%v", err)
		return r.err
	}
	var fresh cmaes
	fresh.setup(cfg)
	fresh.unmarshalCore(r, &fresh.dense)
	r.matrix(&fresh.cov)
	r.matrix(&fresh.basis)
	fresh.eigenvalues = r.floats(fresh.eigenvalues)
	fresh.eigenEvals = r.int()
	fresh.ps = r.floats(fresh.ps)
	fresh.pc = r.floats(fresh.pc)
	fresh.psVar = r.float()
	fresh.funHist.read(r)
	fresh.stag.read(r)
	if fresh.disc != nil {
		fresh.disc.readState(r)
	}
	d := cfg.Dim
	if r.err == nil {
		cr, cc := fresh.cov.Dims()
		br, bc := fresh.basis.Dims()
		switch {
		case cr != d || cc != d || br != d || bc != d:
			r.fail("C is %d×%d and B %d×%d, want %d×%d", cr, cc, br, bc, d, d)
		case len(fresh.eigenvalues) != d || len(fresh.ps) != d || len(fresh.pc) != d:
			r.fail("eigenvalues, p_sigma and p_c have lengths %d, %d, %d, want %d",
				len(fresh.eigenvalues), len(fresh.ps), len(fresh.pc), d)
		case !(fresh.eigenvalues[0] > 0):
			r.fail("smallest eigenvalue %v", fresh.eigenvalues[0])
		}
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The candidates are a function of (seed, generation) and A: redraw them.
		fresh.draw()
	}
	*c = fresh
	return nil
}
