package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/version"
	"github.com/hees-dev/hees/objectives"
)

// runMetadata returns the comment lines that start the log and the trace
// of a run of s with the settings rs on problem (nil with a command). They
// do not depend on -workers or on timing, so that the files do not.
func runMetadata(rs *checkpoint.Settings, problem objectives.Problem, s es.Strategy) []runlog.Field {
	meta := []runlog.Field{{Name: "hees", Value: version.String()}, {Name: "strategy", Value: s.Name()}}
	if problem != nil {
		meta = append(meta, runlog.Field{Name: "problem", Value: problem.Name()})
	} else {
		meta = append(meta, runlog.Field{Name: "command", Value: rs.Command})
	}
	target := "none"
	if rs.Target != nil {
		target = formatValue(*rs.Target)
	}
	return append(meta,
		runlog.Field{Name: "d", Value: strconv.Itoa(rs.Dim)},
		runlog.Field{Name: "seed", Value: strconv.FormatUint(rs.Seed, 10)},
		runlog.Field{Name: "population", Value: strconv.Itoa(s.PopulationSize())},
		runlog.Field{Name: "max_evals", Value: strconv.Itoa(rs.MaxEvals)},
		runlog.Field{Name: "target", Value: target},
	)
}

// openRunFiles opens the log and the trace of the settings rs for a run of
// s: the log is appended to (with a comment saying at which generation a
// resumed run goes on), and with traceRows (nil with a checkpoint, or
// without -trace) the trace file is created. syncEvery is the checkpoints'
// interval (0: none).
func openRunFiles(rs *checkpoint.Settings, meta []runlog.Field, s es.Strategy, traceRows *es.Trace, syncEvery int) (*runlog.Files, error) {
	cfg := runlog.FilesConfig{Dim: rs.Dim, ResumedAfter: s.Generation(), Trace: traceRows, Meta: meta, SyncEvery: syncEvery}
	if rs.Log != "" {
		cfg.LogPath = rs.LogPath()
	}
	if traceRows != nil {
		cfg.TracePath = rs.TracePath()
	}
	f, err := runlog.OpenFiles(cfg)
	if oe := (*runlog.OpenLogError)(nil); errors.As(err, &oe) {
		return nil, fmt.Errorf("-log: %w", oe.Err)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
