package es

import (
	"fmt"
	"slices"
	"strings"
)

// The table of strategies. Every fact about a strategy that code outside
// its own file needs (its population parameter, whether it is elitist,
// the restart schemes it supports, the Config fields it takes, its
// defaults and checks, its memory estimate, its constructor) is one field
// of its row, declared in the strategy's file beside its code. Names, New,
// Load, resolve, the restarts, the memory check, the inject rules and the
// command line read the table; none of them names a strategy. Adding a
// strategy is its file, its row in strategies below, its section in
// docs/ALGORITHMS.md and its golden trajectory (docs/ALGORITHMS.md,
// "Adding a strategy").

// strategies is the table, in the order of the package documentation.
var strategies = []*strategyRow{
	&es11Row,
	&hees14Row,
	&heesRow,
	&hees2Row,
	&lqheesRow,
	&lmheesRow,
	&cma11Row,
	&cmaesRow,
	&sepcmaRow,
	&lmmaesRow,
}

// Population names the Config field that sets a strategy's population, the
// parameter IPOP doubles and BIPOP varies.
type Population string

// The population parameters.
const (
	// PopulationFixed: the population is fixed; Pairs and Lambda must be 0.
	PopulationFixed Population = ""
	// PopulationPairs: Config.Pairs, the number of mirrored pairs.
	PopulationPairs Population = "Pairs"
	// PopulationLambda: Config.Lambda, the number of candidates.
	PopulationLambda Population = "Lambda"
)

// Info describes a strategy for callers that choose one by name, such as
// a command line: everything they need to accept or refuse settings
// without naming strategies themselves.
type Info struct {
	// Name is the name New takes.
	Name string
	// Summary is a one-line description.
	Summary string
	// Population is the Config field that sets the population
	// (PopulationFixed for none).
	Population Population
	// Elitist strategies keep a parent that only a better or equal point
	// replaces; an injected point can become their parent
	// (docs/ALGORITHMS.md Section 16).
	Elitist bool
	// Transform says whether the strategy keeps and adapts a full d×d
	// transformation A (it takes Config.A0, implements Transformer, and
	// needs O(d^2) memory).
	Transform bool
	// MinDim is the smallest Config.Dim the strategy accepts.
	MinDim int
	// Margin says whether the strategy takes discrete coordinates
	// (Config.Steps) with the margin of CMA-ES with Margin
	// (docs/ALGORITHMS.md Section 19).
	Margin bool
	// Noise says whether NewNoiseHandler takes the strategy
	// (docs/ALGORITHMS.md Section 20; an elitist strategy keeps a lucky
	// parent, which re-evaluating the mean cannot correct).
	Noise bool
}

// Restarts returns the restart schemes the strategy supports: every
// strategy runs plain and with IPOP; BIPOP needs a population to vary.
func (i Info) Restarts() []Restarts {
	if i.Population == PopulationFixed {
		return []Restarts{RestartsNone, RestartsIPOP}
	}
	return RestartSchemes()
}

// tuning names the Config fields that only some strategies take. Each
// row lists those it takes; resolve refuses a non-zero value of any other.
type tuning string

// The tuning fields of Config.
const (
	tuneKappa  tuning = "Kappa"
	tuneEtaA   tuning = "EtaA"
	tuneCS     tuning = "CS"
	tuneDS     tuning = "DS"
	tuneCSigma tuning = "CSigma"
)

// tuningFields lists every tuning field with its place in a Config, in
// the order resolve checks them.
var tuningFields = []struct {
	name  tuning
	field func(*Config) *float64
}{
	{tuneKappa, func(c *Config) *float64 { return &c.Kappa }},
	{tuneEtaA, func(c *Config) *float64 { return &c.EtaA }},
	{tuneCS, func(c *Config) *float64 { return &c.CS }},
	{tuneDS, func(c *Config) *float64 { return &c.DS }},
	{tuneCSigma, func(c *Config) *float64 { return &c.CSigma }},
}

// strategyRow is one row of the table.
type strategyRow struct {
	Info
	// fixed is the number of candidates per generation of a strategy with
	// PopulationFixed.
	fixed int
	// population returns the default of the population parameter in
	// dimension d (nil for PopulationFixed).
	population func(d int) int
	// tuning lists the tuning fields the strategy takes.
	tuning []tuning
	// tolFun is the default of Config.TolFun.
	tolFun float64
	// defaults fills in the defaults of the tuning fields in cfg, whose
	// shared fields and population resolve has already resolved, and
	// checks them (nil: none).
	defaults func(cfg *Config) error
	// margin returns the default of Config.Margin with the resolved cfg,
	// nil for a strategy without discrete coordinates (Info.Margin false).
	margin func(cfg Config) float64
	// memory is the memory, in bytes, the strategy needs with the
	// resolved cfg (see MaxMemory); a float64, so that no size overflows.
	memory func(cfg Config) float64
	// zero returns a new zero value of the strategy, which setup or
	// UnmarshalBinary makes usable.
	zero func() strategy
}

// strategy is a Strategy of the table: it can be set up from a resolved
// Config.
type strategy interface {
	Strategy
	setup(cfg Config)
}

// Names returns the names New accepts, in the order of the package
// documentation.
func Names() []string {
	names := make([]string, len(strategies))
	for i, r := range strategies {
		names[i] = r.Name
	}
	return names
}

// Strategies returns the description of every strategy, in the order of
// Names.
func Strategies() []Info {
	infos := make([]Info, len(strategies))
	for i, r := range strategies {
		infos[i] = r.Info
	}
	return infos
}

// Lookup returns the description of the strategy called name, or an
// error that lists the names.
func Lookup(name string) (Info, error) {
	r, err := lookup(name)
	if err != nil {
		return Info{}, err
	}
	return r.Info, nil
}

// PopulationParam returns the Config field that sets the population of
// the strategy called name (PopulationFixed for a fixed population), or
// an error for an unknown name.
func PopulationParam(name string) (Population, error) {
	r, err := lookup(name)
	if err != nil {
		return PopulationFixed, err
	}
	return r.Population, nil
}

// lookup returns the row of strategy name.
func lookup(name string) (*strategyRow, error) {
	i := slices.IndexFunc(strategies, func(r *strategyRow) bool { return r.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("es: unknown strategy %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	return strategies[i], nil
}

// rowOf returns the row of a strategy built by New or Load.
func rowOf(name string) *strategyRow {
	r, err := lookup(name)
	if err != nil {
		panic(err) // New and Load accept only the table's names
	}
	return r
}

// takes reports whether the strategy takes the tuning field t.
func (r *strategyRow) takes(t tuning) bool { return slices.Contains(r.tuning, t) }

// candidates is the number of candidates per generation with the
// resolved cfg: the population parameter's, or the fixed number.
func (r *strategyRow) candidates(cfg Config) int {
	switch r.Population {
	case PopulationPairs:
		return 2*cfg.Pairs + 1
	case PopulationLambda:
		return cfg.Lambda
	}
	return r.fixed
}

// populationOf returns the population parameter of the resolved cfg
// (0 for a fixed population).
func (r *strategyRow) populationOf(cfg Config) int {
	switch r.Population {
	case PopulationPairs:
		return cfg.Pairs
	case PopulationLambda:
		return cfg.Lambda
	}
	return 0
}

// withPopulation returns cfg with the population parameter set to n.
func (r *strategyRow) withPopulation(cfg Config, n int) Config {
	switch r.Population {
	case PopulationPairs:
		cfg.Pairs = n
	case PopulationLambda:
		cfg.Lambda = n
	}
	return cfg
}

// rowsTaking returns, as "a, b and c", the names of the strategies for
// which keep is true, for the error that refuses a field.
func rowsTaking(keep func(*strategyRow) bool) string {
	var names []string
	for _, r := range strategies {
		if keep(r) {
			names = append(names, r.Name)
		}
	}
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
