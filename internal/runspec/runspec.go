// Package runspec is the one description of a run's settings that every
// saved form of a run shares: hees run's checkpoint (internal/checkpoint),
// the ask/tell state (internal/session) and its workers. A Spec holds what
// was chosen for the run besides the strategy's own state (whose
// configuration, the box included, travels inside es.Strategy's
// MarshalBinary): the strategy's name and seed, the budget, the target,
// the time limit, the failure policy and its retry limits, the problem or
// program, and the files it writes.
//
// # Versions
//
// A Spec is written as the fields of a JSON object, under the names that
// the first checkpoints (kind checkpoint/v1) and ask/tell state files
// (ask-tell/v2) already used, so those files decode into it unchanged. The
// failure policy is an es.OnError, written as its word ("stop", "nan"); the
// strings of older files ("", "worst") still read. Decode is strict: an
// unknown field, a second value after the object, a value of the wrong
// type or one out of range is an error, never a silent default.
package runspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/space"
)

// MaxLostLeases bounds Spec.LostLeases.
const MaxLostLeases = es.MaxRetries

// Spec is the settings of a run once its defaults are resolved.
type Spec struct {
	Algo     string `json:"algo"`
	Restarts string `json:"restarts"` // "none", "ipop" or "bipop"
	Seed     uint64 `json:"seed"`
	// Problem is the spec given to -f, Command the program of -cmd; a
	// checkpoint has one of them, an ask/tell run neither.
	Problem string `json:"problem,omitempty"`
	Command string `json:"command,omitempty"`
	Dim     int    `json:"dim,omitempty"`
	// MaxEvals is the evaluation budget, 0: none.
	MaxEvals int `json:"max_evals"`
	// Target stops the run after a generation with a value at most
	// *Target; nil: none. It is finite.
	Target *float64 `json:"target"`
	// Workers is the number of goroutines or processes of hees run.
	Workers int `json:"workers,omitempty"`
	// MaxTime is hees run's wall-clock limit per invocation, 0: none.
	MaxTime     time.Duration `json:"max_time,omitempty"`
	EvalTimeout time.Duration `json:"eval_timeout,omitempty"`
	Trace       string        `json:"trace,omitempty"` // "": no trace
	TraceEvery  int           `json:"trace_every,omitempty"`
	Log         string        `json:"log,omitempty"` // "": no evaluation log
	// OnError is the failure policy, es.OnErrorStop or es.OnErrorWorst,
	// and Retries the failed attempts a point may have before it applies
	// (0 to es.MaxRetries).
	OnError es.OnError `json:"on_error,omitempty"`
	Retries int        `json:"retries,omitempty"`
	// LostLeases is how many leases of one candidate of an ask/tell run
	// may expire (its holder vanished: a lost node, a SIGKILL, a process
	// stopped past its lease) before OnError applies to it; 0 to
	// MaxLostLeases. A lost lease says nothing about the point, so it is
	// counted apart from Retries. State files of older versions, which
	// counted an expiry as a failed attempt and have no such field, get
	// internal/session's DefaultLostLeases when they are read.
	LostLeases int `json:"lost_leases,omitempty"`
	// Space is the search space of hees run -space in the file format of
	// package space (its canonical MarshalJSON), and Format the protocol
	// of the program: "" for numbers, "json" for one object of named
	// values per line. Absent (older files, runs without them): none and
	// numbers.
	Space  json.RawMessage `json:"space,omitempty"`
	Format string          `json:"format,omitempty"`
	// Dir is the absolute working directory of a hees run: the program of
	// Command runs in it and a relative Trace or Log is resolved against
	// it. "" (older checkpoints): the current directory.
	Dir string `json:"dir,omitempty"`
}

// TracePath returns the path of the trace file, resolved against Dir.
func (s *Spec) TracePath() string { return s.resolve(s.Trace) }

// LogPath returns the path of the evaluation log, resolved against Dir.
func (s *Spec) LogPath() string { return s.resolve(s.Log) }

// resolve returns path relative to Dir, unchanged when it is absolute or
// empty or Dir is unknown.
func (s *Spec) resolve(path string) string {
	if s.Dir == "" || path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(s.Dir, path)
}

// Name is the name of the run's strategy, as es.Strategy.Name gives it
// (such as "ipop-cmaes").
func (s *Spec) Name() string { return es.Restarts(s.Restarts).Name(s.Algo) }

// Check reports settings that no run can have: an unknown strategy or
// restart mode, a negative budget, dimension, time or count, a target that
// is not finite, a failure policy or retry limit out of range, a relative
// Dir. What is required of one kind of run only (a problem or a command
// for hees run) is its caller's to check.
func (s *Spec) Check() error {
	if !slices.Contains(es.Names(), s.Algo) {
		return fmt.Errorf("unknown algorithm %q", s.Algo)
	}
	if _, err := es.ParseRestarts(s.Restarts); err != nil {
		return err
	}
	if _, err := es.ParseOnError(string(s.OnError)); err != nil {
		return err
	}
	switch {
	case s.Dim < 0 || s.MaxEvals < 0 || s.Workers < 0 || s.Workers > es.MaxWorkers || s.MaxTime < 0 || s.EvalTimeout < 0 || s.TraceEvery < 0:
		return fmt.Errorf("out of range: dim %d, max_evals %d, workers %d, max_time %v, eval_timeout %v, trace_every %d",
			s.Dim, s.MaxEvals, s.Workers, s.MaxTime, s.EvalTimeout, s.TraceEvery)
	case s.Target != nil && (math.IsNaN(*s.Target) || math.IsInf(*s.Target, 0)):
		return fmt.Errorf("target %v is not finite", *s.Target)
	case s.Retries < 0 || s.Retries > es.MaxRetries:
		return fmt.Errorf("retries %d: want 0 to %d", s.Retries, es.MaxRetries)
	case s.LostLeases < 0 || s.LostLeases > MaxLostLeases:
		return fmt.Errorf("lost_leases %d: want 0 to %d", s.LostLeases, MaxLostLeases)
	case s.Format != "" && s.Format != "json":
		return fmt.Errorf("format %q: want \"\" or \"json\"", s.Format)
	case s.Dir != "" && !filepath.IsAbs(s.Dir):
		return fmt.Errorf("dir %q is not an absolute path", s.Dir)
	}
	return nil
}

// ErrSyntax is wrapped by the errors of Decode about the JSON itself.
var ErrSyntax = errors.New("not a run spec")

// Decode reads a Spec written by encoding/json from data, strictly (see
// the package doc), and checks it (Check).
func Decode(data []byte) (Spec, error) {
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("runspec: %w: %v", ErrSyntax, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Spec{}, fmt.Errorf("runspec: %w: data after the object", ErrSyntax)
	}
	if err := s.Check(); err != nil {
		return Spec{}, fmt.Errorf("runspec: %w", err)
	}
	return s, nil
}

// SpaceOf returns the search space of the run (nil without one) whose
// strategy is st, and an error when the space is bad or disagrees with
// st: another number of parameters than st's dimension, or another box or
// other steps than the space gives a strategy of the run's kind.
func (s *Spec) SpaceOf(st es.Strategy) (*space.Space, error) {
	if s.Space == nil {
		return nil, nil
	}
	sp, err := space.Parse(s.Space)
	if err != nil {
		return nil, fmt.Errorf("the run's space: %w", err)
	}
	if sp.Len() != st.Dim() {
		return nil, fmt.Errorf("the run's space has %d parameters, its strategy %d dimensions", sp.Len(), st.Dim())
	}
	info, err := es.Lookup(s.Algo)
	if err != nil {
		return nil, err
	}
	lower, upper, steps := sp.Domain(info.Margin)
	b, gotSteps := es.Box(st)
	if b == nil || !slices.Equal(b.Lower, lower) || !slices.Equal(b.Upper, upper) || !slices.Equal(gotSteps, steps) {
		return nil, fmt.Errorf("the run's space (%s) does not give the box its strategy searches", strings.Join(sp.Names(), ", "))
	}
	return sp, nil
}
