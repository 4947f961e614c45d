package es

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestStrategyTable checks every row of the table against what its
// strategy does, so that a new row is checked without being named: the
// name and summary, the population parameter and its default, the
// candidates per generation, the tuning fields it takes and refuses, the
// memory estimate, Transformer, and Lookup's error for an unknown name.
func TestStrategyTable(t *testing.T) {
	if got := Names(); len(got) != len(Strategies()) {
		t.Fatalf("Names() = %v, Strategies() %v", got, Strategies())
	}
	seen := map[string]bool{}
	for _, info := range Strategies() {
		name := info.Name
		if seen[name] || info.Summary == "" || strings.ContainsAny(name, "/- \n") {
			t.Errorf("row %q: a repeated name, no summary or a name that cannot be a state's tag", name)
		}
		seen[name] = true
		row := rowOf(name)
		d := max(info.MinDim, 3)
		s, rc, err := newResolved(name, Config{Dim: d, Seed: 1})
		if err != nil {
			t.Fatalf("%s: New with the defaults: %v", name, err)
		}
		if s.Name() != name {
			t.Errorf("%s: the row builds %q", name, s.Name())
		}
		if got, want := s.PopulationSize(), row.candidates(rc); got != want {
			t.Errorf("%s: PopulationSize %d, the row says %d candidates", name, got, want)
		}
		if _, ok := s.(Transformer); ok != (info.Transform || name == ES11) {
			t.Errorf("%s: implements Transformer: %v, Info.Transform %v", name, ok, info.Transform)
		}
		if est := row.memory(rc); !(est > 0) || est > MaxMemory {
			t.Errorf("%s: memory estimate %v in d = %d", name, est, d)
		}
		param, err := PopulationParam(name)
		if err != nil || param != info.Population {
			t.Errorf("%s: PopulationParam %q, %v; Info says %q", name, param, err, info.Population)
		}
		switch info.Population {
		case PopulationFixed:
			if row.fixed < 1 || !slices.Equal(info.Restarts(), []Restarts{RestartsNone, RestartsIPOP}) {
				t.Errorf("%s: a fixed population of %d, restarts %v", name, row.fixed, info.Restarts())
			}
		default:
			if n := row.populationOf(rc); n != row.population(d) || n < 1 {
				t.Errorf("%s: the population %d, the default %d", name, n, row.population(d))
			}
			if !RestartsBIPOP.Supports(name) {
				t.Errorf("%s: a population to vary, but no BIPOP", name)
			}
		}
		// A field the strategy does not take is refused, naming it.
		for _, f := range tuningFields {
			cfg := Config{Dim: d}
			setTuning(&cfg, f.name, 1.5)
			_, err := New(name, cfg)
			if refused := err != nil && strings.Contains(err.Error(), "Config."+string(f.name)); refused == row.takes(f.name) || (err != nil) != refused {
				t.Errorf("%s: Config.%s = 1.5: %v (the row takes it: %v)", name, f.name, err, row.takes(f.name))
			}
		}
		for _, p := range []Population{PopulationPairs, PopulationLambda} {
			if p == info.Population {
				continue
			}
			cfg := row.withPopulation(Config{Dim: d}, 0)
			if p == PopulationPairs {
				cfg.Pairs = 3
			} else {
				cfg.Lambda = 6
			}
			if _, err := New(name, cfg); err == nil || !strings.Contains(err.Error(), "Config."+string(p)) {
				t.Errorf("%s: Config.%s set: %v, want an error naming it", name, p, err)
			}
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("Lookup(nope): %v, want an error listing the names", err)
	}
	if Recommended != HEES2 || Baseline != CMAES {
		t.Errorf("Recommended %q, Baseline %q", Recommended, Baseline)
	}
}

// setTuning sets the tuning field named f of cfg to v, or CS to v/3 (so
// that v = 1.5 is valid for every field: CS must lie in (0, 1]).
func setTuning(cfg *Config, f tuning, v float64) {
	switch f {
	case tuneKappa:
		cfg.Kappa = v
	case tuneEtaA:
		cfg.EtaA = v
	case tuneCS:
		cfg.CS = v / 3
	case tuneDS:
		cfg.DS = v
	case tuneCSigma:
		cfg.CSigma = v
	default:
		panic(fmt.Sprintf("no tuning field %q", f))
	}
}

// TestMemoryErrorNamesFit: a Config that does not fit names the
// strategies that would.
func TestMemoryErrorNamesFit(t *testing.T) {
	_, err := New(CMAES, Config{Dim: 50000})
	if err == nil || !strings.Contains(err.Error(), "more than MaxMemory") || !strings.Contains(err.Error(), "would fit") {
		t.Fatalf("cmaes in d = 50000: %v, want an error naming the strategies that fit", err)
	}
	// Every strategy whose default fits is named, and no other.
	msg := err.Error()
	list := msg[strings.Index(msg, "in this dimension ")+len("in this dimension ") : strings.Index(msg, " would fit")]
	named := strings.Split(strings.ReplaceAll(list, " and ", ", "), ", ")
	for _, r := range strategies {
		_, fits := New(r.Name, Config{Dim: 50000})
		if slices.Contains(named, r.Name) != (fits == nil) {
			t.Errorf("cmaes in d = 50000: %v; %s fits: %v", err, r.Name, fits == nil)
		}
	}
	if err != nil && errors.Unwrap(err) != nil {
		t.Errorf("the error wraps %v", errors.Unwrap(err))
	}
}
