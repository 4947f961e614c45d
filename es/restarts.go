package es

import (
	"fmt"
	"slices"
	"strings"
)

// Restarts is a restart scheme: how a strategy is run again when it stops.
type Restarts string

// The restart schemes.
const (
	// RestartsNone runs the strategy once.
	RestartsNone Restarts = "none"
	// RestartsIPOP restarts with a doubled population (NewIPOP).
	RestartsIPOP Restarts = "ipop"
	// RestartsBIPOP alternates IPOP's large populations with small ones
	// under Hansen's budget balance (NewBIPOP).
	RestartsBIPOP Restarts = "bipop"
)

// RestartSchemes returns the restart schemes, RestartsNone first.
func RestartSchemes() []Restarts { return []Restarts{RestartsNone, RestartsIPOP, RestartsBIPOP} }

// ParseRestarts returns the restart scheme called s, or an error that
// names the schemes.
func ParseRestarts(s string) (Restarts, error) {
	if r := Restarts(s); slices.Contains(RestartSchemes(), r) {
		return r, nil
	}
	names := make([]string, 0, 3)
	for _, r := range RestartSchemes() {
		names = append(names, string(r))
	}
	return "", fmt.Errorf("restarts %q: want one of %s", s, strings.Join(names, ", "))
}

// Name is the name of strategy name run with the scheme r: name itself
// with RestartsNone, otherwise the scheme, a dash and name, such as
// "ipop-hees" or "bipop-cmaes".
func (r Restarts) Name(name string) string {
	if r == RestartsNone {
		return name
	}
	return string(r) + "-" + name
}

// Supports reports whether the scheme r applies to strategy name
// (Info.Restarts): BIPOP needs a population to vary, the other schemes
// take every strategy. It is false for an unknown name.
func (r Restarts) Supports(name string) bool {
	info, err := Lookup(name)
	return err == nil && slices.Contains(info.Restarts(), r)
}

// NewRestarting returns strategy name configured by cfg and run with the
// scheme r: New's strategy, NewIPOP's or NewBIPOP's wrapper, the wrappers
// with at most maxRestarts restarts in the large-population regime (0: no
// limit). It reports the errors of these functions, an unknown scheme and
// maxRestarts > 0 without restarts.
func NewRestarting(name string, r Restarts, cfg Config, maxRestarts int) (Strategy, error) {
	switch r {
	case RestartsNone:
		if maxRestarts != 0 {
			return nil, fmt.Errorf("es: NewRestarting: MaxRestarts = %d without restarts", maxRestarts)
		}
		return New(name, cfg)
	case RestartsIPOP:
		return NewIPOP(name, cfg, IPOPConfig{MaxRestarts: maxRestarts})
	case RestartsBIPOP:
		return NewBIPOP(name, cfg, BIPOPConfig{MaxRestarts: maxRestarts})
	}
	_, err := ParseRestarts(string(r))
	return nil, fmt.Errorf("es: NewRestarting: %w", err)
}
