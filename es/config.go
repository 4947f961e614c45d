package es

// Config configures a strategy. The zero value of each field selects the
// documented default; New derives every default in one place.
type Config struct {
	// Dim is the dimension of the search space (required; at least 2 for
	// the HE-ES variants).
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
	// means floor(2 + 1.5 ln d) (ALGORITHMS.md Section 4). IPOP doubles it.
	// The other strategies have a fixed population and require 0.
	Pairs int
}
