package es

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/linalg"
)

// Config configures a strategy. The zero value of each field selects the
// default stated on it. The defaults are derived by resolve (New and Load
// call it): the shared fields there, a strategy's own fields (its
// population and tuning fields) by its row of the table of strategies, in
// the strategy's file; resolve also rejects a field that the strategy does
// not take (Info, Strategies say which). The constants that follow from the
// resolved fields (the weights, mu_eff, chi_d, the CMA-ES learning rates)
// are derived by each strategy's setup, in its own file. Where a field's
// documentation below names strategies, the table is what decides.
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
	// Steps, when not nil, makes coordinates discrete (docs/ALGORITHMS.md
	// Section 19), as the steps of CyberAgent's CMAwM do: Steps[i] = s > 0
	// says that coordinate i takes only the values L + k s, k = 0, 1, …, of
	// its box [L, U] of Bounds (both sides finite, U - L a whole number of
	// steps, at least two values); 0 leaves it continuous. Every point
	// handed out carries, on a discrete coordinate, the value nearest the
	// box map's image of its search point (a point halfway goes to the
	// lower value), while the strategy's own state stays continuous, and
	// the margin keeps the probability that a candidate leaves the mean's
	// value at least Margin. Only for hees2 and cmaes (Info.Margin). Steps
	// of zeros only are the same as nil. New copies them.
	Steps []float64
	// Margin is the margin alpha of CMA-ES with Margin for the discrete
	// coordinates of Steps, below 1/2: after each update the marginal
	// probability that a candidate lands outside the mean's value is kept
	// at least alpha/2 on each side. 0 means 1/(lambda d) for cmaes
	// (CMAwM's default, lambda = Lambda) and 1/(8 lambda~ d) for hees2
	// (lambda~ = Pairs; docs/ALGORITHMS.md Section 19 measured it); a
	// negative value switches the margin off, so that the candidates are
	// only rounded. Requires Steps.
	Margin float64
	// Pairs is the number of mirrored pairs lambda~ of the full HE-ES; 0
	// means floor(2 + 1.5 ln d) (docs/ALGORITHMS.md Section 4), for hees2
	// and lqhees at most d, for lmhees floor(4 + 1.5 ln d), at most d
	// (docs/ALGORITHMS.md Section 21.1). IPOP doubles it.
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
	// least 1; +Inf switches the trust region off. 0 means 3 for hees,
	// hees2, lqhees and lmhees (the reference code's "maxupdate",
	// docs/ALGORITHMS.md Section 3) and +Inf for hees14 (the analysed
	// setting, docs/ALGORITHMS.md Section 13 item 2, where A stays
	// unchanged when a curvature estimate is not positive). Only for hees,
	// hees2, lqhees, lmhees and hees14.
	Kappa float64
	// EtaA is the learning rate eta_A of computeG (Algorithm 3), positive.
	// 0 means 0.5 for hees (the reference code's lr, docs/ALGORITHMS.md
	// Section 3), 1 for hees14 (the analysed setting, Section 13 item 2)
	// and lmhees (Section 21.1); for hees2 and lqhees it means 1 with
	// Pairs >= Dim (every generation's first block a full frame), otherwise
	// 0.5 up to d = 10 and 0.5 sqrt(10/d) above (Section 17). hees2 and
	// lqhees with full frames in d > 10 scale the rate, given or not, in each
	// generation by the share of curvature estimates its trust region
	// raises (Section 17, departure 10; hees2 not with discrete coordinates,
	// Steps). Only for hees, hees2, lqhees, lmhees and hees14.
	EtaA float64
	// CS is the cumulation constant c_s of the full HE-ES's step-size
	// adaptation, in (0, 1]. 0 means (mu_eff^mirr + 2)/(d + mu_eff^mirr + 3)
	// (docs/ALGORITHMS.md Section 4, reference code), for lmhees at least
	// 1/20 (Section 21.1 item 6). Only for hees, hees2, lqhees and lmhees.
	CS float64
	// DS is the damping d_s of the full HE-ES's step-size adaptation,
	// positive. 0 means 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1)
	// (docs/ALGORITHMS.md Section 4, reference code); for hees2 and lqhees
	// in d > 10, times (Pairs/lambda~_0)^(1/4) when Pairs exceeds their
	// default lambda~_0 (docs/ALGORITHMS.md Section 17, departure 9). Only
	// for hees, hees2, lqhees and lmhees.
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
	// For hees2, lqhees and lmhees it is pycma's tolfun on the 2 lambda~
	// offspring values and the best values of the last 10 + ceil(30 d/(2
	// lambda~)) generations, once that many have passed (0 means 1e-11).
	// A negative value switches the criterion off (for these three also
	// their tolx, which stops once every sigma sqrt((A A^T)_ii) is below
	// 1e-11).
	TolFun float64
}

// resolve validates cfg for strategy name and fills in every default: it is
// the one place where the defaults documented on the fields of Config are
// derived, the shared ones here and each strategy's by the defaults of its
// row (in the strategy's file). It refuses a field that the strategy does
// not take. The returned X0 and A0 are the caller's (New's setup copies
// them).
func resolve(name string, cfg Config) (Config, error) {
	row, err := lookup(name)
	if err != nil {
		return cfg, err
	}
	d := cfg.Dim
	switch {
	case d < row.MinDim && row.MinDim > 1:
		return cfg, fmt.Errorf("es: Config.Dim = %d: %s needs at least %d dimensions", d, name, row.MinDim)
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
		if !row.Transform {
			return cfg, fmt.Errorf("es: Config.A0: %s has no transformation matrix (only %s)",
				name, rowsTaking(func(r *strategyRow) bool { return r.Transform }))
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
	if cfg, err = resolvePopulation(row, cfg); err != nil {
		return cfg, err
	}
	if cfg, err = resolveSteps(row, cfg); err != nil {
		return cfg, err
	}
	if err := checkMemory(row, cfg); err != nil {
		return cfg, err
	}
	for _, t := range tuningFields {
		if *t.field(&cfg) != 0 && !row.takes(t.name) {
			return cfg, fmt.Errorf("es: Config.%s: %s does not take it (only %s)",
				t.name, name, rowsTaking(func(r *strategyRow) bool { return r.takes(t.name) }))
		}
	}
	if row.defaults != nil {
		if err := row.defaults(&cfg); err != nil {
			return cfg, err
		}
	}
	if math.IsNaN(cfg.TolFun) {
		return cfg, fmt.Errorf("es: Config.TolFun is NaN (use a negative value to switch it off)")
	}
	if cfg.TolFun == 0 {
		cfg.TolFun = row.tolFun
	}
	return cfg, nil
}

// resolvePopulation checks Pairs and Lambda against the strategy's
// population parameter and fills in its default.
func resolvePopulation(row *strategyRow, cfg Config) (Config, error) {
	name := row.Name
	for _, p := range []struct {
		field Population
		value int
	}{{PopulationPairs, cfg.Pairs}, {PopulationLambda, cfg.Lambda}} {
		if p.value < 0 || p.value > maxPopulation {
			return cfg, fmt.Errorf("es: Config.%s = %d: must be in [0, %d]", p.field, p.value, maxPopulation)
		}
		if p.value == 0 || p.field == row.Population {
			continue
		}
		if row.Population == PopulationFixed {
			return cfg, fmt.Errorf("es: Config.%s = %d: %s has a fixed population (leave %s 0)", p.field, p.value, name, p.field)
		}
		return cfg, fmt.Errorf("es: Config.%s = %d: %s sets its population with %s (leave %s 0; it is for %s)",
			p.field, p.value, name, row.Population, p.field,
			rowsTaking(func(r *strategyRow) bool { return r.Population == p.field }))
	}
	if row.Population == PopulationFixed {
		return cfg, nil
	}
	if row.populationOf(cfg) == 0 {
		cfg = row.withPopulation(cfg, row.population(cfg.Dim))
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
