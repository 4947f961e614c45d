package es

import (
	"strings"
	"testing"
)

// TestRestarts checks the names of the restart schemes, which strategies
// they support, and that NewRestarting builds the wrapper the scheme names
// or reports a bad scheme or count.
func TestRestarts(t *testing.T) {
	cfg := Config{Dim: 3, Seed: 1}
	for _, r := range RestartSchemes() {
		got, err := ParseRestarts(string(r))
		if err != nil || got != r {
			t.Errorf("ParseRestarts(%q) = %q, %v", r, got, err)
		}
		for _, name := range Names() {
			s, err := NewRestarting(name, r, cfg, 0)
			if !r.Supports(name) {
				if err == nil {
					t.Errorf("%s with %s: no error", name, r)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s with %s: %v", name, r, err)
			}
			if s.Name() != r.Name(name) {
				t.Errorf("%s with %s: Name %q, want %q", name, r, s.Name(), r.Name(name))
			}
		}
	}
	if RestartsNone.Name("hees") != "hees" || RestartsIPOP.Name("cma11") != "ipop-cma11" || RestartsBIPOP.Name("cmaes") != "bipop-cmaes" {
		t.Error("wrong names")
	}
	if RestartsBIPOP.Supports("cma11") || !RestartsIPOP.Supports("cma11") {
		t.Error("BIPOP must need a population, IPOP take every strategy")
	}
	if _, err := ParseRestarts("lpop"); err == nil || !strings.Contains(err.Error(), "none, ipop, bipop") {
		t.Errorf("ParseRestarts(lpop): %v", err)
	}
	for _, c := range []struct {
		r   Restarts
		max int
	}{{"lpop", 0}, {RestartsNone, 2}, {RestartsIPOP, -1}, {RestartsBIPOP, -1}} {
		if _, err := NewRestarting("hees", c.r, cfg, c.max); err == nil {
			t.Errorf("NewRestarting(hees, %q, %d): no error", c.r, c.max)
		}
	}
}
