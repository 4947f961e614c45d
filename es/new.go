package es

// Recommended is the name of the strategy to use when there is no reason
// to choose another, hees2 (the package documentation says why), and the
// default of hees run and hees init.
const Recommended = HEES2

// Baseline is the name of the strategy the others are measured against,
// the CMA-ES with pycma's defaults (cmaes): hees bench writes the ratio of
// each strategy's expected running time to its.
const Baseline = CMAES

// New returns the strategy called name (one of Names; Strategies
// describes each) configured by cfg. The zero fields of cfg take the
// defaults documented on Config. A bad configuration, such as Dim below
// the strategy's Info.MinDim, a non-positive or non-finite Sigma0, a
// non-finite X0 or one of the wrong length, a negative population, a
// population field or a tuning field the strategy does not take, or a
// Config whose memory estimate exceeds MaxMemory, is an error that names
// the field.
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
	s := rowOf(name).zero()
	s.setup(rc)
	return s, rc, nil
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
	switch name {
	case ipopStateName:
		s = new(IPOP)
	case bipopStateName:
		s = new(BIPOP)
	case noiseStateName:
		s = new(NoiseHandler)
	default:
		r, err := lookup(name)
		if err != nil {
			return nil, errorOf(ErrCorruptState, "es: saved state of unknown strategy %q", name)
		}
		s = r.zero()
	}
	if err := s.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return s, nil
}
