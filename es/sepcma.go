package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// SEPCMA is the name of the separable CMA-ES.
const SEPCMA = "sepcma"

// sepcmaRow is the separable CMA-ES's row of the table of strategies: its
// population is Lambda (at least 2, the CMA-ES's default), no tuning
// fields (pycma's CMA_diagonal defaults throughout), O(lambda d) memory.
var sepcmaRow = strategyRow{
	Info: Info{
		Name:       SEPCMA,
		Summary:    "separable CMA-ES (Ros & Hansen 2008), pycma 4.4's CMA_diagonal: a diagonal C, O(d) per evaluation",
		Population: PopulationLambda,
		MinDim:     1,
	},
	population: defaultLambda,
	tolFun:     1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	defaults:   func(cfg *Config) error { return checkLambda(SEPCMA, cfg) },
	memory: func(cfg Config) float64 {
		// z and y (lambda×d each), the rows of the ranking penalty's
		// scratch, and about twenty vectors of d numbers (the mean, D,
		// the paths, the last mean shift, the search map, the best point).
		return 8 * float64(cfg.Dim) * (2*float64(cfg.Lambda) + 24)
	},
	zero: func() strategy { return new(sepcma) },
}

// tpaMinDim is the smallest dimension in which pycma's CMA_diagonal
// adapts sigma by two-point adaptation (TPA) instead of CSA: pycma 4.4
// switches for N > 299 (evolution_strategy.py, instantiate_adapt_sigma).
const tpaMinDim = 300

// The constants of pycma's CMAAdaptSigmaTPA (sigma_adaptation.py): the
// cumulation c of the rank difference and its exponent (the damping,
// 0.7 + 2 ln N, depends on the dimension).
const (
	tpaC        = 0.3
	tpaExponent = 0.5
)

// sepcmaParams are the fixed parameters of the separable CMA-ES as pycma
// 4.4 sets them with CMA_diagonal=True (docs/ALGORITHMS.md Section 21.2).
type sepcmaParams struct {
	lambda  int
	mu      int
	weights []float64 // the recombination weights, active: the negative ones sum to -alpha
	muEff   float64
	cs, ds  float64 // CSA's c_sigma and d_sigma, as cmaes
	cc      float64 // pycma's cc_sep
	c1, cmu float64 // pycma's c1_sep and cmu_sep
	chi     float64 // pycma's chiN
	tpa     bool    // sigma by TPA (d > 299), otherwise by CSA
	tpaDamp float64 // 0.7 + 2 ln N
	histLen int     // floor(10 + 30 n/lambda), tolfun's history
}

// newSepcmaParams derives the constants for dimension d and population
// lambda >= 2 (pycma options_parameters.py CMAParameters.set, the _sep
// rates, and evolution_strategy.py, which finalizes the negative weights
// with them and pos_def=False).
func newSepcmaParams(d, lambda int) sepcmaParams {
	n := float64(d)
	sqrtN := math.Sqrt(n)
	p := sepcmaParams{lambda: lambda}
	p.weights = make([]float64, lambda)
	var muEffMinus float64
	p.mu, p.muEff, muEffMinus = rawCMAESWeights(p.weights)
	// c1_sep = 1/(N + 2 sqrt(N) + mu_eff/N) (conedf), cmu_sep =
	// min(1 - c1_sep, (1/4 + mu_eff + 1/mu_eff - 2)/(N + 4 sqrt(N) +
	// mu_eff/2)) (cmudf), cc_sep = (1 + 1/N + mu_eff/N)/(sqrt(N) + 1/N +
	// 2 mu_eff/N).
	p.c1 = 1 / (n + float64(2*sqrtN) + p.muEff/n)
	p.cmu = min(1-p.c1, (0.25+p.muEff+1/p.muEff-2)/(n+float64(4*sqrtN)+p.muEff/2))
	p.cc = (1 + 1/n + p.muEff/n) / (sqrtN + 1/n + 2*p.muEff/n)
	// RecombinationWeights.finalize_negative_weights(N, c1_sep, cmu_sep,
	// pos_def=False): the negative weights sum to -(1 + c1/cmu), limited
	// to 1 + 2 mu_eff^-/(mu_eff + 2); no positive-definiteness limit (the
	// update is multiplicative).
	if lambda > p.mu {
		alpha := min(1+p.c1/p.cmu, 1+2*muEffMinus/(p.muEff+2))
		for i := p.mu; i < lambda; i++ {
			p.weights[i] *= alpha
		}
	}
	p.cs = (p.muEff + 2) / (n + p.muEff + 3)
	p.ds = 1 + float64(2*max(0, math.Sqrt((p.muEff-1)/(n+1))-1)) + p.cs
	p.chi = pycmaChiN(d)
	p.tpa = d >= tpaMinDim
	p.tpaDamp = 0.7 + float64(2*xmath.Log(n))
	p.histLen = int(10 + 30*n/float64(lambda))
	return p
}

// sepcma is the separable CMA-ES (Ros & Hansen, PPSN 2008) as pycma 4.4
// runs it with CMA_diagonal=True (docs/ALGORITHMS.md Section 21.2): the
// covariance is sigma^2 diag(D)^2 for the whole run, so a generation costs
// O(lambda d). One generation:
//
//	x_k   = m + sigma D z_k, z_k ~ N(0, I)          (k = 0..lambda-1)
//	        with TPA, x_0 and x_1 = m ± sigma D |z_0| u, u the unit
//	        direction of D^-1 (m_t - m_{t-1}), from the second generation on
//	m     = sum_{i<=mu} w_i x_{i:lambda}
//	p_s   = (1 - c_s) p_s + sqrt(c_s (2 - c_s) mu_eff) D^-1 (m' - m)/sigma
//	p_c   = (1 - c_c) p_c + h_s sqrt(c_c (2 - c_c) mu_eff) D^-1 (m' - m)/sigma
//	D_i   = D_i exp((ln 2/2) (c_1a (p_c,i^2 - 1) + c_mu sum_k w_k (z_k:lambda,i^2 - 1)))
//	sigma by CSA (d <= 299) or TPA (d > 299)
//
// with pycma's c1_sep, cmu_sep and cc_sep, the active weights w_k (the
// negative ones included), c_1a = c_1 (1 - (1 - h_s) c_c (2 - c_c)), and
// pycma's factor ln 2 on the learning rates of its multiplicative
// (exponential) update of the diagonal (transformations.py
// DiagonalDecoding.update). The stop criteria are cmaes's, on the diagonal.
type sepcma struct {
	core
	p sepcmaParams

	d     []float64 // D, the standard deviations of the coordinates (times sigma)
	ps    []float64 // p_sigma, in z units
	pc    []float64 // p_c, in z units
	psVar float64   // 1 - (1 - c_s)^(2g) after g updates (h_sigma)
	shift []float64 // (m_t - m_{t-1})/sigma, the last mean shift (TPA's direction)
	tpaS  float64   // TPA's s

	z, y      linalg.Dense // lambda×d: z_k and y_k = D z_k
	order     []int        // candidates from best to worst by f
	selection []int        // by the penalized values of a bounded run
	zw        []float64    // sum_{i<=mu} w_i z_i:lambda
	expo      []float64    // the exponent of D's update
	tpaRank   []int        // scratch of TPA's ranks

	funHist history
	stag    stagnation
}

// setup initialises a separable CMA-ES from a resolved configuration:
// m = X0, sigma = Sigma0, D = 1, the paths 0.
func (c *sepcma) setup(cfg Config) {
	d, lambda := cfg.Dim, cfg.Lambda
	c.p = newSepcmaParams(d, lambda)
	c.setupCore(SEPCMA, cfg, 0)
	c.d = make([]float64, d)
	for i := range c.d {
		c.d[i] = 1
	}
	c.ps = make([]float64, d)
	c.pc = make([]float64, d)
	c.psVar = 0
	c.shift = make([]float64, d)
	c.tpaS = 0
	c.z.ReuseAs(lambda, d)
	c.y.ReuseAs(lambda, d)
	c.order = make([]int, lambda)
	c.selection = make([]int, lambda)
	c.zw = make([]float64, d)
	c.expo = make([]float64, d)
	c.tpaRank = make([]int, lambda)
	c.funHist = history{buf: make([]float64, c.p.histLen)}
	c.stag.setup(d, lambda)
}

// PopulationSize is lambda.
func (c *sepcma) PopulationSize() int { return c.p.lambda }

// stds writes sigma D_i, the standard deviation of each coordinate, into
// dst (for the ranking penalty of a bounded run). O(d).
func (c *sepcma) stds(dst []float64) {
	for i, v := range c.d {
		dst[i] = float64(c.sigma * v)
	}
}

// usesTPA reports whether the current generation's first two candidates
// are TPA's pair along the last mean shift.
func (c *sepcma) usesTPA() bool { return c.p.tpa && c.gen > 0 && c.p.lambda >= 2 }

// Ask writes the lambda candidates of the current generation into pop.
func (c *sepcma) Ask(pop *linalg.Dense) error {
	return c.askLambda(pop, c.p.lambda, c.draw, c.candidate)
}

// draw samples the current generation: z_k ~ N(0, I) from the sub-stream
// (purposeSample, generation, k) and y_k = D z_k. With TPA, z_0 =
// |z_0| u and z_1 = -z_0, where u is the unit vector along D^-1 (m_t -
// m_{t-1}), the last mean shift in z units of the current D: pycma
// injects the mean shift and its mirror, rescaled to the Mahalanobis
// length of a fresh N(0, I) vector, as its first two solutions
// (_random_rescaling_factor_to_mahalanobis_size). A zero shift leaves
// z_0 and z_1 as drawn.
func (c *sepcma) draw() {
	for k := range c.p.lambda {
		st := rng.NewStream(c.key, purposeSample, uint64(c.gen), uint64(k))
		st.FillNormal(c.z.RawRow(k))
	}
	if c.usesTPA() {
		z0, z1 := c.z.RawRow(0), c.z.RawRow(1)
		var n2 float64
		for i, v := range c.shift {
			u := v / c.d[i]
			z1[i] = u // z_1 holds u until it is mirrored
			n2 += float64(u * u)
		}
		if n2 > 0 {
			t := linalg.Norm(z0) / math.Sqrt(n2)
			for i, u := range z1 {
				s := float64(t * u)
				z0[i], z1[i] = s, -s
			}
		} else {
			st := rng.NewStream(c.key, purposeSample, uint64(c.gen), 1)
			st.FillNormal(z1)
		}
	}
	for k := range c.p.lambda {
		y, z := c.y.RawRow(k), c.z.RawRow(k)
		for i, v := range z {
			y[i] = float64(c.d[i] * v)
		}
	}
}

// candidate writes x_k = m + sigma y_k into dst.
func (c *sepcma) candidate(dst []float64, k int) {
	y := c.y.RawRow(k)
	for i, mi := range c.mean {
		dst[i] = mi + float64(c.sigma*y[i])
	}
}

// Tell takes the values of the rows of the last Ask and performs one
// generation.
func (c *sepcma) Tell(f []float64) error {
	if err := c.checkTell(f, c.p.lambda); err != nil {
		return err
	}
	c.evals += len(f)
	selection, v, accepted := c.rankGeneration(f, c.order, c.selection, c.candidate, c.stds)
	if accepted {
		c.update(selection, v)
	} else {
		// docs/ALGORITHMS.md Section 13 item 8: m, D and the paths stay.
		c.sigma *= 0.5
		c.nonFinite++
	}
	c.gen++
	c.pending = false
	if accepted {
		c.record(f)
	}
	c.stop = c.checkStop(f)
	return nil
}

// update performs one generation's update with the candidates ranked in
// order (best first) by the values v (f, or f with a bounded run's
// penalty), as pycma's tell does with CMA_diagonal=True.
func (c *sepcma) update(order []int, v []float64) {
	p := &c.p
	n := float64(c.cfg.Dim)
	// The mean: m' - m = sigma sum_{i<=mu} w_i y_i:lambda, and in z units
	// D^-1 (m' - m)/sigma = sum w_i z_i:lambda.
	clear(c.zw)
	for i := range p.mu {
		w := p.weights[i]
		for j, z := range c.z.RawRow(order[i]) {
			c.zw[j] += float64(w * z)
		}
	}
	for j, z := range c.zw {
		s := float64(c.d[j] * z)
		c.shift[j] = s
		c.mean[j] += float64(c.sigma * s)
	}
	// p_sigma and h_sigma (pycma CMAAdaptSigmaBase._update_ps, hsig).
	cs := p.cs
	om := 1 - cs
	coef := math.Sqrt(float64(cs*(2-cs)) * p.muEff)
	var norm2 float64
	for j, z := range c.zw {
		s := float64(om*c.ps[j]) + float64(coef*z)
		c.ps[j] = s
		norm2 += float64(s * s)
	}
	c.psVar = float64(float64(om*om)*c.psVar) + float64(cs*(2-cs))
	hsigma := norm2/c.psVar/n < 2+4/(n+1)
	// p_c, with h_sigma (pycma tell).
	cc := p.cc
	var pcCoef, deltaH float64
	if hsigma {
		pcCoef = math.Sqrt(float64(cc*(2-cc)) * p.muEff)
	} else {
		deltaH = float64(cc * (2 - cc))
	}
	for j, z := range c.zw {
		c.pc[j] = float64((1-cc)*c.pc[j]) + float64(pcCoef*z)
	}
	// D: pycma's DiagonalDecoding.update with the vectors p_c and the
	// ranked z_k and the weights ln 2 (c_1a, c_mu w_1, ..., c_mu w_lambda):
	// D_i *= exp((sum_j weight_j v_j,i^2 - sum_j weight_j)/2).
	c1a := float64(p.c1 * (1 - deltaH))
	ln2 := math.Ln2
	w0 := float64(ln2 * c1a)
	sumW := w0
	for j, pcj := range c.pc {
		c.expo[j] = float64(w0 * float64(pcj*pcj))
	}
	for i, k := range order {
		w := float64(ln2 * float64(p.cmu*p.weights[i]))
		sumW += w
		for j, z := range c.z.RawRow(k) {
			c.expo[j] += float64(w * float64(z*z))
		}
	}
	for j, e := range c.expo {
		c.d[j] *= xmath.Exp((e - sumW) / 2)
	}
	// sigma.
	if p.tpa {
		c.tpaUpdate(v)
	} else {
		s := float64((cs / p.ds) * (math.Sqrt(norm2)/p.chi - 1))
		c.sigma *= xmath.Exp(min(1, max(-1, s)))
	}
}

// tpaUpdate is pycma's CMAAdaptSigmaTPA.update on the values v of the
// generation in the order they were asked: z = (#{v < v_1} - #{v <
// v_0})/(lambda - 1), s <- (1 - c) s + c sign(z) |z|^(1/2), sigma <-
// sigma exp(s/damp). In the first generation v_0 and v_1 are two
// independent candidates, as in pycma.
func (c *sepcma) tpaUpdate(v []float64) {
	var below0, below1 int
	for _, x := range v {
		if compareValues(x, v[0]) < 0 {
			below0++
		}
		if compareValues(x, v[1]) < 0 {
			below1++
		}
	}
	z := float64(below1-below0) / float64(c.p.lambda-1)
	step := math.Sqrt(math.Abs(z))
	if z < 0 {
		step = -step
	}
	c.tpaS = float64((1-tpaC)*c.tpaS) + float64(tpaC*step)
	c.sigma *= xmath.Exp(c.tpaS / c.p.tpaDamp)
}

// record appends the generation's best value to the tolfun history and
// records the generation for tolstagnation (as cmaes).
func (c *sepcma) record(f []float64) {
	c.funHist.push(f[c.order[0]])
	c.stag.record(c.gen, f[c.order[0]], f)
}

// checkStop returns the first criterion that fires after a generation with
// values f: cmaes's (docs/ALGORITHMS.md Section 8) with C = diag(D)^2,
// whose eigenvectors are the coordinate axes, so that noeffectaxis is
// noeffectcoord's test and is left out, as pycma does in diagonal mode;
// tolupsigma compares sigma/sigma0 alone with 1e20, as pycma does in
// diagonal mode, where its D (the sampler's) is 1 and the diagonal lives
// in sigma_vec (with max(D), as cmaes's, the run on bbob-largescale f10
// in d = 80, seed 1, stopped after 389,045 evaluations at f - f* = 2,635,
// sigma having grown as D shrank; without it after 777,104 at 1,055).
func (c *sepcma) checkStop(f []float64) Reason {
	lo, hi := c.d[0], c.d[0]
	for _, v := range c.d {
		lo, hi = min(lo, v), max(hi, v)
	}
	switch {
	case math.IsInf(f[c.order[0]], -1):
		return ReasonMinusInf
	case c.nonFinite >= nonFiniteMax:
		return ReasonNotFinite
	case !(c.sigma >= sigmaMin):
		return ReasonSigmaTooSmall
	case c.sigma > sigmaMax || c.sigma/c.cfg.Sigma0 > sigmaGrowthMax:
		return ReasonSigmaTooLarge
	case c.cfg.TolFun > 0 && f[c.order[c.p.lambda-1]]-f[c.order[0]] < c.cfg.TolFun &&
		c.funHist.spread() < c.cfg.TolFun:
		return ReasonTolFun
	case c.funHist.size() > 9 && c.funHist.spread() < tolFunHist:
		return ReasonTolFunHist
	case c.tolX():
		return ReasonTolX
	case !(lo > 0) || float64(hi*hi) > float64(condMax*float64(lo*lo)):
		return ReasonConditionCov
	case c.noEffectCoord():
		return ReasonNoEffectCoord
	case c.stag.fires(c.gen):
		return ReasonStagnation
	}
	return ""
}

// tolX reports pycma's tolx: sigma D_i |p_c,i| and sigma D_i below 1e-11
// for every i.
func (c *sepcma) tolX() bool {
	for i, v := range c.d {
		s := float64(c.sigma * v)
		if !(s < tolX) || !(float64(s*math.Abs(c.pc[i])) < tolX) {
			return false
		}
	}
	return true
}

// noEffectCoord reports pycma's noeffectcoord: m_i + 0.2 sigma D_i == m_i
// for some i.
func (c *sepcma) noEffectCoord() bool {
	t := float64(noEffectCoordStep * c.sigma)
	for i, mi := range c.mean {
		if mi+float64(t*c.d[i]) == mi {
			return true
		}
	}
	return false
}

// MarshalBinary saves the complete state under the tag "hees-es/sepcma/v3"
// (the format without the slot for A): Lambda, the core, then D, the
// paths, the last mean shift, TPA's s and the histories, O(d) numbers.
func (c *sepcma) MarshalBinary() ([]byte, error) {
	w := newStateWriterVersion(SEPCMA, stateVersionNoA)
	w.int(c.cfg.Lambda)
	c.marshalCore(w, nil)
	w.floats(c.d)
	w.floats(c.ps)
	w.floats(c.pc)
	w.float(c.psVar)
	w.floats(c.shift)
	w.float(c.tpaS)
	c.funHist.write(w)
	c.stag.write(w)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of a sepcma
// strategy, replacing the receiver's state entirely.
func (c *sepcma) UnmarshalBinary(data []byte) error {
	r, cfg, err := openLambdaState(data, SEPCMA)
	if err != nil {
		return err
	}
	var fresh sepcma
	fresh.setup(cfg)
	fresh.unmarshalCore(r, nil)
	fresh.d = r.floats(fresh.d)
	fresh.ps = r.floats(fresh.ps)
	fresh.pc = r.floats(fresh.pc)
	fresh.psVar = r.float()
	fresh.shift = r.floats(fresh.shift)
	fresh.tpaS = r.float()
	fresh.funHist.read(r)
	fresh.stag.read(r)
	d := cfg.Dim
	if r.err == nil {
		switch {
		case len(fresh.d) != d || len(fresh.ps) != d || len(fresh.pc) != d || len(fresh.shift) != d:
			r.fail("D, p_sigma, p_c and the mean shift have lengths %d, %d, %d, %d, want %d",
				len(fresh.d), len(fresh.ps), len(fresh.pc), len(fresh.shift), d)
		case !allPositiveFinite(fresh.d):
			r.fail("D has an entry that is not positive and finite")
		}
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The candidates are a function of (seed, generation), D and the
		// last mean shift: redraw them.
		fresh.draw()
	}
	*c = fresh
	return nil
}

// openLambdaState opens the saved state of a strategy whose population is
// Lambda (written before the shared configuration, which does not hold
// it) and reads and resolves its configuration.
func openLambdaState(data []byte, name string) (*stateReader, Config, error) {
	r, err := openState(data, name)
	if err != nil {
		return nil, Config{}, err
	}
	if r.version != stateVersionNoA {
		r.fail("version v%d, want v%d", r.version, stateVersionNoA)
		return nil, Config{}, r.err
	}
	lambda := r.int()
	if lambda > maxPopulation { // before setup allocates for it (es/core.go readConfig)
		r.fail("Lambda = %d exceeds %d", lambda, maxPopulation)
		return nil, Config{}, r.err
	}
	cfg, err := readConfig(r, name)
	if err != nil {
		return nil, Config{}, err
	}
	cfg.Lambda = lambda
	if cfg, err = resolve(name, cfg); err != nil {
		r.fail("%v", err)
		return nil, Config{}, r.err
	}
	return r, cfg, nil
}

// allPositiveFinite reports whether every v_i is positive and finite.
func allPositiveFinite(v []float64) bool {
	for _, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}
