package es

import "github.com/hees-dev/hees/linalg"

// Config configures a strategy. The zero value of each field selects the
// documented default; New derives every default in one place and rejects a
// field that does not apply to the chosen strategy.
type Config struct {
	// Dim is the dimension of the search space (required; at least 2 for
	// the HE-ES variants, which need two directions to compare curvatures,
	// and at least 1 otherwise).
	Dim int
	// Seed is the master seed. Every random draw is a function of
	// (Seed, purpose, generation, index).
	Seed uint64
	// Sigma0 is the initial step size; 0 means 2 (the reference code's
	// default, ALGORITHMS.md Section 4).
	Sigma0 float64
	// X0 is the initial mean. Nil means a point drawn uniformly from
	// [-Box, Box]^Dim with the seed.
	X0 []float64
	// Box is the half-width of the box for a drawn X0; 0 means 3
	// (ALGORITHMS.md Section 4, the reference code's fmin).
	Box float64
	// Pairs is the number of mirrored pairs lambda~ of the full HE-ES; 0
	// means floor(2 + 1.5 ln d) (ALGORITHMS.md Section 4), for hees2 at most
	// d. IPOP doubles it.
	// The other strategies have a fixed population and require 0.
	Pairs int
	// Lambda is the population size lambda of the (mu/mu_w, lambda)-CMA-ES
	// (cmaes), at least 2; 0 means 4 + floor(3 ln d) (ALGORITHMS.md Section
	// 8, Hansen's tutorial eq. (48)). IPOP doubles it. The other strategies
	// require 0 (hees sets its population with Pairs).
	Lambda int
	// A0 is the initial transformation A (sampling covariance
	// sigma^2 A A^T), a Dim×Dim invertible matrix that New copies. Nil means
	// the identity (ALGORITHMS.md Section 13 item 1). ALGORITHMS.md Section
	// 13 item 7 (the setting of the paper's Figure 2) starts from a given A0.
	// The (1+1)-ES has no transformation and requires nil.
	A0 *linalg.Dense

	// Kappa is the trust-region ratio kappa of computeG (Algorithm 3): the
	// curvature estimates are raised to at least max(h)/kappa. It must be at
	// least 1; +Inf switches the trust region off. 0 means 3 for hees and hees2 (the
	// reference code's "maxupdate", ALGORITHMS.md Section 3) and +Inf for
	// hees14 (the analysed setting, ALGORITHMS.md Section 13 item 2, where A
	// stays unchanged when a curvature estimate is not positive). Only for
	// hees, hees2 and hees14.
	Kappa float64
	// EtaA is the learning rate eta_A of computeG (Algorithm 3), positive.
	// 0 means 0.5 for hees and hees2 (the reference code's lr, ALGORITHMS.md
	// Section 3) and 1 for hees14 (the analysed setting, Section 13 item 2).
	// Only for hees, hees2 and hees14.
	EtaA float64
	// CS is the cumulation constant c_s of the full HE-ES's step-size
	// adaptation, in (0, 1]. 0 means (mu_eff^mirr + 2)/(d + mu_eff^mirr + 3)
	// (ALGORITHMS.md Section 4, reference code). Only for hees and hees2.
	CS float64
	// DS is the damping d_s of the full HE-ES's step-size adaptation,
	// positive. 0 means 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1)
	// (ALGORITHMS.md Section 4, reference code). Only for hees and hees2.
	DS float64
	// CSigma is the success factor c_sigma > 1 of the 1/5 rule of es11 and
	// hees14 (Algorithm 4): a success multiplies sigma by c_sigma, a failure
	// by c_sigma^(-1/4). 0 means exp(0.8/sqrt(d + 1)) (ALGORITHMS.md Section
	// 13 item 3). Only for es11 and hees14.
	CSigma float64
	// TolFun is the f-spread below which a strategy stops with ReasonTolFun.
	// For hees it is compared with the standard deviation (population form,
	// divided by n) of the 2 lambda~ offspring values of a generation (0
	// means 1e-9, the reference code's
	// IPOP restart rule, ALGORITHMS.md Section 4.1). For the elitist
	// strategies (0 means 1e-11, pycma's tolfun, ALGORITHMS.md Section 8)
	// the run stops when the parent's value, the best so far, has moved by
	// less than TolFun over the last 10 + ceil(30 d/lambda) generations,
	// the length of pycma's best-value history. For cmaes it is pycma's tolfun: both max - min of the
	// generation's values and max - min of the best values of the last
	// 10 + 30 d/lambda generations must fall below it (0 means 1e-11).
	// For hees2 it is pycma's tolfun on the 2 lambda~ offspring values and
	// the best values of the last 10 + ceil(30 d/(2 lambda~)) generations,
	// once that many have passed (0 means 1e-11).
	// A negative value switches the criterion off.
	TolFun float64
}
