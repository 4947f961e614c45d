package es

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
)

// Config configures a strategy. The zero value of each field selects the
// default stated on it. Every default is derived in one place, the function
// resolve below (New and Load call it), which also rejects a field that does
// not apply to the chosen strategy; the constants that follow from the
// resolved fields (the weights, mu_eff, chi_d, the CMA-ES learning rates)
// are derived by each strategy's setup, in its own file.
type Config struct {
	// Dim is the dimension of the search space (required; at least 2 for
	// the HE-ES variants, which need two directions to compare curvatures,
	// and at least 1 otherwise).
	Dim int
	// Seed is the master seed. Every random draw is a function of
	// (Seed, purpose, generation, index).
	Seed uint64
	// Sigma0 is the initial step size; 0 means 2 (the reference code's
	// default, docs/ALGORITHMS.md Section 4). Sigma0 times the largest entry of
	// A0 (1 without A0) must be at most 1e150: beyond it the candidates'
	// squares overflow, and a run would only see +Inf.
	Sigma0 float64
	// X0 is the initial mean. Nil means a point drawn uniformly from
	// [-Box, Box]^Dim with the seed (from the box of Bounds where it has
	// one, see Bounds). With Bounds, a given X0 must lie in the box.
	X0 []float64
	// Box is the half-width of the box for a drawn X0; 0 means 3
	// (docs/ALGORITHMS.md Section 4, the reference code's fmin). Bounds
	// take its place on the coordinates they bound on both sides.
	Box float64
	// Bounds, when not nil, confine every point the strategy hands out (the
	// rows of Ask, Best, Mean) to a box: the strategy samples in the
	// unbounded space and each candidate is carried into the box by
	// Bounds.Map (docs/ALGORITHMS.md Section 14); hees, hees2 and cmaes
	// also rank their candidates with a penalty on leaving the box's
	// preimage, which changes no evaluated point or reported value
	// (Section 14.5). With Bounds, a drawn X0
	// lies in the box and, when Sigma0 is 0, the default Sigma0 is 0.3 times
	// the geometric mean g of the widths of the coordinates bounded on both
	// sides; unequal widths then also give the default Stds w_i/g (1 for a
	// coordinate with an open side). Sigma and Transform stay in the
	// strategy's own units. New copies the bounds.
	Bounds *Bounds
	// Stds are per-coordinate scales s_i (pycma's CMA_stds): the initial
	// sampling standard deviation of coordinate i is Sigma0·s_i. Nil means
	// none (or the default from Bounds, above). One positive, finite entry
	// per coordinate. They are applied as a fixed change of units outside
	// the strategy, y = T(s ⊙ x), not as A0 = diag(s): so the covariance
	// checks (cond(C) <= 1e14) and the HE-ES's determinant normalisation do
	// not see them, and es11, which has no A, takes them too
	// (docs/ALGORITHMS.md Section 14.4, where it was measured). New copies
	// them.
	Stds []float64
	// Pairs is the number of mirrored pairs lambda~ of the full HE-ES; 0
	// means floor(2 + 1.5 ln d) (docs/ALGORITHMS.md Section 4), for hees2
	// at most d. IPOP doubles it.
	// The other strategies have a fixed population and require 0.
	Pairs int
	// Lambda is the population size lambda of the (mu/mu_w, lambda)-CMA-ES
	// (cmaes), at least 2; 0 means 4 + floor(3 ln d) (docs/ALGORITHMS.md Section
	// 8, Hansen's tutorial eq. (48)). IPOP doubles it. The other strategies
	// require 0 (hees sets its population with Pairs).
	Lambda int
	// A0 is the initial transformation A (sampling covariance
	// sigma^2 A A^T), a Dim×Dim invertible matrix that New copies. Nil means
	// the identity (docs/ALGORITHMS.md Section 13 item 1). docs/ALGORITHMS.md Section
	// 13 item 7 (the setting of the paper's Figure 2) starts from a given A0.
	// The (1+1)-ES has no transformation and requires nil.
	A0 *linalg.Dense

	// Kappa is the trust-region ratio kappa of computeG (Algorithm 3): the
	// curvature estimates are raised to at least max(h)/kappa. It must be at
	// least 1; +Inf switches the trust region off. 0 means 3 for hees and
	// hees2 (the reference code's "maxupdate", docs/ALGORITHMS.md Section 3)
	// and +Inf for hees14 (the analysed setting, docs/ALGORITHMS.md Section
	// 13 item 2, where A stays unchanged when a curvature estimate is not
	// positive). Only for hees, hees2 and hees14.
	Kappa float64
	// EtaA is the learning rate eta_A of computeG (Algorithm 3), positive.
	// 0 means 0.5 for hees and hees2 (the reference code's lr,
	// docs/ALGORITHMS.md Section 3) and 1 for hees14 (the analysed setting,
	// Section 13 item 2); for hees2 with Pairs >= Dim (every generation's
	// first block a full frame) it means 1 (docs/ALGORITHMS.md Section 17).
	// Only for hees, hees2 and hees14.
	EtaA float64
	// CS is the cumulation constant c_s of the full HE-ES's step-size
	// adaptation, in (0, 1]. 0 means (mu_eff^mirr + 2)/(d + mu_eff^mirr + 3)
	// (docs/ALGORITHMS.md Section 4, reference code). Only for hees and
	// hees2.
	CS float64
	// DS is the damping d_s of the full HE-ES's step-size adaptation,
	// positive. 0 means 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1)
	// (docs/ALGORITHMS.md Section 4, reference code). Only for hees and
	// hees2.
	DS float64
	// CSigma is the success factor c_sigma > 1 of the 1/5 rule of es11 and
	// hees14 (Algorithm 4): a success multiplies sigma by c_sigma, a failure
	// by c_sigma^(-1/4). 0 means exp(0.8/sqrt(d + 1)) (docs/ALGORITHMS.md Section
	// 13 item 3). Only for es11 and hees14.
	CSigma float64
	// TolFun is the f-spread below which a strategy stops with ReasonTolFun.
	// For hees it is compared with the standard deviation (population form,
	// divided by n) of the 2 lambda~ offspring values of a generation (0
	// means 1e-9, the reference code's
	// IPOP restart rule, docs/ALGORITHMS.md Section 4.1). For the elitist
	// strategies (0 means 1e-11, pycma's tolfun, docs/ALGORITHMS.md Section 8)
	// the run stops when the parent's value, the best so far, has moved by
	// less than TolFun over the last 10 + ceil(30 d/lambda) generations,
	// the length of pycma's best-value history. For cmaes it is pycma's tolfun: both max - min of the
	// generation's values and max - min of the best values of the last
	// 10 + 30 d/lambda generations must fall below it (0 means 1e-11).
	// For hees2 it is pycma's tolfun on the 2 lambda~ offspring values and
	// the best values of the last 10 + ceil(30 d/(2 lambda~)) generations,
	// once that many have passed (0 means 1e-11).
	// A negative value switches the criterion off (for hees2 also its
	// tolx, which stops once every sigma sqrt((A A^T)_ii) is below 1e-11).
	TolFun float64
}

// resolve validates cfg for strategy name and fills in every default: it is
// the one place where the defaults documented on the fields of Config are
// derived. The returned X0 and A0 are the caller's (New's setup copies
// them).
func resolve(name string, cfg Config) (Config, error) {
	fullHEES := pairsStrategy(name)
	heesFamily := fullHEES || name == nameHEES14
	if !slices.Contains(Names(), name) {
		return cfg, fmt.Errorf("es: unknown strategy %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	d := cfg.Dim
	switch {
	case heesFamily && d < 2:
		return cfg, fmt.Errorf("es: Config.Dim = %d: %s needs at least 2 dimensions", d, name)
	case d < 1:
		return cfg, fmt.Errorf("es: Config.Dim = %d: must be at least 1", d)
	}
	if err := cfg.Bounds.Check(d); err != nil {
		return cfg, err
	}
	if cfg.Stds != nil {
		if err := checkStds(cfg.Stds, d); err != nil {
			return cfg, err
		}
	}
	// The defaults that come with a box (docs/ALGORITHMS.md Section 14.4).
	boundsSigma0, boundsStds := cfg.Bounds.defaultScale(d)
	if cfg.Sigma0 == 0 && boundsSigma0 > 0 {
		cfg.Sigma0 = boundsSigma0
	}
	if cfg.Stds == nil {
		cfg.Stds = boundsStds
	}
	if cfg.Sigma0 == 0 {
		cfg.Sigma0 = 2
	}
	if !(cfg.Sigma0 > 0) || math.IsInf(cfg.Sigma0, 1) {
		return cfg, fmt.Errorf("es: Config.Sigma0 = %v: must be positive and finite", cfg.Sigma0)
	}
	if cfg.Box == 0 {
		cfg.Box = 3
	}
	if !(cfg.Box > 0) || math.IsInf(cfg.Box, 1) {
		return cfg, fmt.Errorf("es: Config.Box = %v: must be positive and finite", cfg.Box)
	}
	if cfg.X0 != nil {
		if len(cfg.X0) != d {
			return cfg, fmt.Errorf("es: Config.X0 has length %d, want Dim = %d", len(cfg.X0), d)
		}
		if err := checkCoords(cfg.X0, cfg.Bounds, "es: Config.X0"); err != nil {
			return cfg, err
		}
	}
	if cfg.A0 != nil {
		if name == nameES11 {
			return cfg, fmt.Errorf("es: Config.A0: %s has no transformation matrix", name)
		}
		if err := checkA0(cfg.A0, d); err != nil {
			return cfg, err
		}
	}
	if step := cfg.Sigma0 * maxAbs(cfg.A0) * maxEntry(cfg.Stds); step > sigmaMax {
		if cfg.Stds != nil {
			return cfg, fmt.Errorf("es: Config.Sigma0 = %v times the largest entries of Config.A0 and Config.Stds is %v: must be at most %v (larger steps overflow the objective's arithmetic)",
				cfg.Sigma0, step, sigmaMax)
		}
		if cfg.A0 == nil {
			return cfg, fmt.Errorf("es: Config.Sigma0 = %v: must be at most %v (larger steps overflow the objective's arithmetic)", cfg.Sigma0, sigmaMax)
		}
		return cfg, fmt.Errorf("es: Config.Sigma0 = %v times the largest entry of Config.A0 is %v: must be at most %v (larger steps overflow the objective's arithmetic)",
			cfg.Sigma0, step, sigmaMax)
	}
	if cfg.Pairs < 0 || cfg.Pairs > maxPopulation {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: must be in [0, %d]", cfg.Pairs, maxPopulation)
	}
	if fullHEES {
		if cfg.Pairs == 0 {
			cfg.Pairs = pairsOf(name, d)
		}
	} else if cfg.Pairs != 0 && name == nameCMAES {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: %s sets its population with Lambda (leave Pairs 0)", cfg.Pairs, name)
	} else if cfg.Pairs != 0 {
		return cfg, fmt.Errorf("es: Config.Pairs = %d: %s has a fixed population (leave Pairs 0)", cfg.Pairs, name)
	}
	if cfg.Lambda < 0 || cfg.Lambda > maxPopulation {
		return cfg, fmt.Errorf("es: Config.Lambda = %d: must be in [0, %d]", cfg.Lambda, maxPopulation)
	}
	if name == nameCMAES {
		if cfg.Lambda == 0 {
			cfg.Lambda = defaultLambda(d)
		}
		if cfg.Lambda < 2 {
			return cfg, fmt.Errorf("es: Config.Lambda = %d: %s needs at least 2 (mu = floor(lambda/2) parents)", cfg.Lambda, name)
		}
	} else if cfg.Lambda != 0 {
		return cfg, fmt.Errorf("es: Config.Lambda = %d: only cmaes has a population size lambda (leave Lambda 0)", cfg.Lambda)
	}
	if err := checkMemory(name, cfg); err != nil {
		return cfg, err
	}

	if !heesFamily {
		if cfg.Kappa != 0 {
			return cfg, fmt.Errorf("es: Config.Kappa: %s has no computeG (only hees, hees2 and hees14)", name)
		}
		if cfg.EtaA != 0 {
			return cfg, fmt.Errorf("es: Config.EtaA: %s has no computeG (only hees, hees2 and hees14)", name)
		}
	} else {
		if cfg.Kappa == 0 {
			cfg.Kappa = 3 // reference code, docs/ALGORITHMS.md Sec. 3
			if name == nameHEES14 {
				cfg.Kappa = math.Inf(1) // analysed setting, Sec. 13 item 2
			}
		}
		if !(cfg.Kappa >= 1) {
			return cfg, fmt.Errorf("es: Config.Kappa = %v: must be at least 1 (+Inf switches the trust region off)", cfg.Kappa)
		}
		if cfg.EtaA == 0 {
			cfg.EtaA = 0.5 // reference code, docs/ALGORITHMS.md Sec. 3
			if name == nameHEES14 {
				cfg.EtaA = 1 // analysed setting, Sec. 13 item 2
			}
			if name == nameHEES2 && cfg.Pairs >= d {
				cfg.EtaA = 1 // full frames, departure 5 (es/hees2.go, Sec. 17)
			}
		}
		if !(cfg.EtaA > 0) || math.IsInf(cfg.EtaA, 1) {
			return cfg, fmt.Errorf("es: Config.EtaA = %v: must be positive and finite", cfg.EtaA)
		}
	}

	if !fullHEES {
		if cfg.CS != 0 {
			return cfg, fmt.Errorf("es: Config.CS: only hees and hees2 have cumulative step-size adaptation, not %s", name)
		}
		if cfg.DS != 0 {
			return cfg, fmt.Errorf("es: Config.DS: only hees and hees2 have cumulative step-size adaptation, not %s", name)
		}
	} else {
		// The constants of Algorithm 1's CSA follow from the weights
		// (docs/ALGORITHMS.md Section 4, reference code).
		_, muEff, muEffMirr := heesWeights(cfg.Pairs)
		if cfg.CS == 0 {
			// c_s = (mu_eff^mirr + 2) / (d + mu_eff^mirr + 3).
			cfg.CS = (muEffMirr + 2) / (float64(d) + muEffMirr + 3)
		}
		if !(cfg.CS > 0 && cfg.CS <= 1) {
			return cfg, fmt.Errorf("es: Config.CS = %v: must be in (0, 1]", cfg.CS)
		}
		if cfg.DS == 0 {
			// d_s = 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1), with
			// the plain mu_eff.
			cfg.DS = 1 + cfg.CS + 2*max(0, math.Sqrt((muEff-1)/float64(d+1))-1)
		}
		if !(cfg.DS > 0) || math.IsInf(cfg.DS, 1) {
			return cfg, fmt.Errorf("es: Config.DS = %v: must be positive and finite", cfg.DS)
		}
	}

	if name == nameES11 || name == nameHEES14 {
		if cfg.CSigma == 0 {
			cfg.CSigma = defaultCSigma(d)
		}
		if !(cfg.CSigma > 1) || math.IsInf(cfg.CSigma, 1) {
			return cfg, fmt.Errorf("es: Config.CSigma = %v: must be greater than 1 and finite", cfg.CSigma)
		}
	} else if cfg.CSigma != 0 {
		return cfg, fmt.Errorf("es: Config.CSigma: only es11 and hees14 use the 1/5 rule, not %s", name)
	}

	if math.IsNaN(cfg.TolFun) {
		return cfg, fmt.Errorf("es: Config.TolFun is NaN (use a negative value to switch it off)")
	}
	if cfg.TolFun == 0 {
		cfg.TolFun = 1e-11 // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
		if name == nameHEES {
			cfg.TolFun = 1e-9 // reference code's restart rule, Sec. 4.1
		}
	}
	return cfg, nil
}

// maxEntry returns the largest entry of the positive scales s, or 1 for
// nil s.
func maxEntry(s []float64) float64 {
	if s == nil {
		return 1
	}
	return slices.Max(s)
}

// maxAbs returns the largest absolute entry of a, or 1 for a nil a (the
// identity).
func maxAbs(a *linalg.Dense) float64 {
	if a == nil {
		return 1
	}
	m := 0.0
	r, _ := a.Dims()
	for i := range r {
		for _, v := range a.RawRow(i) {
			m = max(m, math.Abs(v))
		}
	}
	return m
}

// checkA0 reports whether a0 can be an initial transformation in dimension d.
func checkA0(a0 *linalg.Dense, d int) error {
	r, c := a0.Dims()
	if r != d || c != d {
		return fmt.Errorf("es: Config.A0 is %d×%d, want Dim×Dim = %d×%d", r, c, d, d)
	}
	for i := 0; i < d; i++ {
		for j, v := range a0.RawRow(i) {
			if !finite(v) {
				return fmt.Errorf("es: Config.A0[%d][%d] = %v: must be finite", i, j, v)
			}
		}
	}
	if _, sign := linalg.LogDet(a0); sign == 0 {
		return fmt.Errorf("es: Config.A0 is singular")
	}
	return nil
}

// defaultPairs is lambda~ = floor(2 + 1.5 ln d) (docs/ALGORITHMS.md Section 4,
// reference code S1).
func defaultPairs(d int) int {
	return int(math.Floor(2 + float64(1.5*xmath.Log(float64(d)))))
}

// pairsOf is the default lambda~ of the full HE-ES name (hees or hees2)
// in dimension d: floor(2 + 1.5 ln d), for hees2 at most d (departure 3 in
// hees2.go).
func pairsOf(name string, d int) int {
	if name == nameHEES2 {
		return min(defaultPairs(d), d)
	}
	return defaultPairs(d)
}

// pairsStrategy reports whether strategy name is a full HE-ES (hees,
// hees2), whose population parameter is Config.Pairs.
func pairsStrategy(name string) bool { return name == nameHEES || name == nameHEES2 }

// defaultLambda is lambda = 4 + floor(3 ln n) (tutorial eq. (48),
// docs/ALGORITHMS.md Section 8).
func defaultLambda(d int) int {
	return 4 + int(math.Floor(float64(3*xmath.Log(float64(d)))))
}

// defaultCSigma is the success factor of the 1/5 rule, c_sigma =
// exp(0.8 / sqrt(d + 1)) (docs/ALGORITHMS.md Section 13 item 3, after Hansen,
// Arnold & Auger 2015); a failure multiplies sigma by c_sigma^(-1/4).
func defaultCSigma(d int) float64 {
	return xmath.Exp(0.8 / math.Sqrt(float64(d+1)))
}
