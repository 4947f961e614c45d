package es

import (
	"fmt"
	"strings"
)

// MaxMemory bounds the memory, in bytes, that New lets a strategy need, as
// estimated by its row of the table from its dimension d and its number of
// candidates per generation lambda: for the strategies with a full
// transformation A, 8 (6 d² + 4 lambda d) bytes, an upper bound of what
// they allocate (the d×d matrices of A, the covariance checks and the
// CMA-ES's C and eigenbasis; the lambda×d candidates and their normal
// vectors), which allows d up to about 13,000; for the others, their own
// estimate. A Config beyond it is an error that names the estimate, and
// the strategies that would fit, rather than a crash of the program when
// the allocation fails.
const MaxMemory = 8 << 30

// maxSamples bounds lambda × d, the numbers of one generation's candidates:
// a saved state does not hold them, so this, not the size of the state,
// bounds what Load allocates for them (32 MiB per lambda×d matrix). IPOP
// stops doubling the population at this bound.
const maxSamples = 1 << 22

// denseMemory is the memory estimate of a strategy with a full
// transformation A in dimension d with lambda candidates per generation:
// 8 (6 d² + 4 lambda d) bytes (see MaxMemory).
func denseMemory(d, lambda int) float64 {
	fd := float64(d)
	return 8 * (6*fd*fd + 4*float64(lambda)*fd)
}

// checkMemory reports a resolved Config of the strategy of row whose
// memory estimate exceeds MaxMemory, or whose generation holds more than
// maxSamples numbers.
func checkMemory(row *strategyRow, cfg Config) error {
	d, lambda := cfg.Dim, row.candidates(cfg)
	pop := ""
	if row.Population != PopulationFixed {
		pop = fmt.Sprintf(" (Config.%s)", row.Population)
	}
	if est := row.memory(cfg); est > MaxMemory {
		return fmt.Errorf("es: Config.Dim = %d with %d candidates per generation%s: %s would need about %.3g GiB of memory, more than MaxMemory = %d GiB%s",
			d, lambda, pop, row.Name, est/(1<<30), MaxMemory>>30, fitting(cfg))
	}
	if float64(lambda)*float64(d) > maxSamples {
		return fmt.Errorf("es: Config.Dim = %d with %d candidates per generation%s: %.0f coordinates per generation exceed the bound of %d numbers",
			d, lambda, pop, float64(lambda)*float64(d), maxSamples)
	}
	return nil
}

// fitting names the strategies whose default configuration in the
// dimension of cfg fits in MaxMemory, for the error of checkMemory.
func fitting(cfg Config) string {
	var names []string
	for _, r := range strategies {
		c := Config{Dim: cfg.Dim}
		if r.Population != PopulationFixed {
			c = r.withPopulation(c, r.population(cfg.Dim))
		}
		if cfg.Dim >= r.MinDim && float64(r.candidates(c))*float64(cfg.Dim) <= maxSamples && r.memory(c) <= MaxMemory {
			names = append(names, r.Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; in this dimension " + names[0] + " would fit"
	}
	return "; in this dimension " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " would fit"
}
