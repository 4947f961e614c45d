package es

import "fmt"

// MaxMemory bounds the memory, in bytes, that New lets a strategy need, as
// estimated from its dimension d and its number of candidates per
// generation lambda: 8 (6 d² + 4 lambda d) bytes, an upper bound of what
// the strategies allocate (the d×d matrices of A, the covariance checks and
// the CMA-ES's C and eigenbasis; the lambda×d candidates and their normal
// vectors). 8 GiB allows d up to about 13,000. A Config beyond it is an
// error that names the estimate, rather than a crash of the program when
// the allocation fails.
const MaxMemory = 8 << 30

// maxSamples bounds lambda × d, the numbers of one generation's candidates:
// a saved state does not hold them, so this, not the size of the state,
// bounds what Load allocates for them (32 MiB per lambda×d matrix). IPOP
// stops doubling the population at this bound.
const maxSamples = 1 << 22

// memoryEstimate is the memory, in bytes, that a strategy with dimension d
// and lambda candidates per generation needs (see MaxMemory). It is a
// float64 so that no dimension overflows it.
func memoryEstimate(d, lambda int) float64 {
	fd := float64(d)
	return 8 * (6*fd*fd + 4*float64(lambda)*fd)
}

// candidates is the largest number of candidates per generation of
// strategy name with the resolved cfg.
func candidates(name string, cfg Config) int {
	switch {
	case pairsStrategy(name):
		return 2*cfg.Pairs + 1
	case name == nameHEES14:
		return 4
	case name == nameCMAES:
		return cfg.Lambda
	}
	return 1
}

// checkMemory reports a resolved Config of strategy name whose d×d
// matrices alone, or whose whole memory estimate, exceed MaxMemory, or
// whose generation holds more than maxSamples numbers.
func checkMemory(name string, cfg Config) error {
	d, lambda := cfg.Dim, candidates(name, cfg)
	if est := memoryEstimate(d, 0); est > MaxMemory {
		return fmt.Errorf("es: Config.Dim = %d: %s would need about %.3g GiB of memory for its d×d matrices (8 × 6 d² bytes), more than MaxMemory = %d GiB",
			d, name, est/(1<<30), MaxMemory>>30)
	}
	field := "Lambda"
	if pairsStrategy(name) {
		field = "Pairs"
	}
	if float64(lambda)*float64(d) > maxSamples {
		return fmt.Errorf("es: Config.%s: %d candidates of %d coordinates per generation exceed the bound of %d numbers",
			field, lambda, d, maxSamples)
	}
	if est := memoryEstimate(d, lambda); est > MaxMemory {
		return fmt.Errorf("es: Config.Dim = %d with %d candidates per generation (Config.%s): %s would need about %.3g GiB of memory (8 (6 d² + 4 lambda d) bytes), more than MaxMemory = %d GiB",
			d, lambda, field, name, est/(1<<30), MaxMemory>>30)
	}
	return nil
}
