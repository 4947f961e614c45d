package es

import (
	"fmt"
	"slices"
)

// The strategy names accepted by New.
const (
	nameES11   = "es11"
	nameHEES14 = "hees14"
	nameHEES   = "hees"
	nameHEES2  = "hees2"
	nameCMA11  = "cma11"
	nameCMAES  = "cmaes"
)

// Recommended is the name of the strategy to use when there is no reason
// to choose another, hees2 (the package documentation says why), and the
// default of hees run and hees init.
const Recommended = nameHEES2

// Names returns the names New accepts, in the order of the package
// documentation.
func Names() []string {
	return []string{nameES11, nameHEES14, nameHEES, nameHEES2, nameCMA11, nameCMAES}
}

// New returns the strategy called name configured by cfg:
//
//	es11    (1+1)-ES with the 1/5 success rule
//	hees14  (1+4)-HE-ES (Algorithm 4 of Glasmachers & Krause)
//	hees    full HE-ES with mirrored sampling (Algorithm 1)
//	hees2   hees with the path as a search direction (see hees2.go), Recommended
//	cma11   (1+1)-CMA-ES, 2009 variant with evolution path
//	cmaes   (mu/mu_w, lambda)-CMA-ES with the active update, pycma 4.4's defaults
//
// The zero fields of cfg take the defaults documented on Config. A bad
// configuration, such as Dim < 2 for an HE-ES variant, a non-positive or
// non-finite Sigma0, a non-finite X0 or one of the wrong length, Pairs < 0
// or Pairs set for a fixed-population strategy, Lambda < 2 for cmaes or
// Lambda set for another strategy, is an error that names the field.
func New(name string, cfg Config) (Strategy, error) {
	s, _, err := newResolved(name, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// newResolved is New, which also returns the resolved Config.
func newResolved(name string, cfg Config) (strategy, Config, error) {
	rc, err := resolve(name, cfg)
	if err != nil {
		return nil, rc, err
	}
	s := newStrategy(name)
	s.setup(rc)
	return s, rc, nil
}

// strategy is a Strategy that can be set up from a resolved Config.
type strategy interface {
	Strategy
	setup(cfg Config)
}

// newStrategy returns the zero value of strategy name, one of Names().
func newStrategy(name string) strategy {
	switch name {
	case nameES11:
		return new(es11)
	case nameHEES14:
		return new(hees14)
	case nameHEES:
		return new(hees)
	case nameHEES2:
		return new(hees2)
	case nameCMA11:
		return new(cma11)
	case nameCMAES:
		return new(cmaes)
	}
	panic("es: no strategy " + name) // resolve and Load accept only Names()
}

// Load restores a strategy from a state written by its MarshalBinary,
// whichever strategy it was. The state names its strategy; Load returns an
// error for a state that is not one, is truncated or corrupt, or has an
// unsupported version.
func Load(data []byte) (Strategy, error) {
	name, _, err := parseStateHeader(data)
	if err != nil {
		return nil, err
	}
	var s Strategy
	switch {
	case name == ipopStateName:
		s = new(IPOP)
	case name == bipopStateName:
		s = new(BIPOP)
	case slices.Contains(Names(), name):
		s = newStrategy(name)
	default:
		return nil, fmt.Errorf("es: saved state of unknown strategy %q", name)
	}
	if err := s.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return s, nil
}
