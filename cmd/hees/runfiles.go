package main

import (
	"errors"
	"fmt"
	"slices"
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

// runFiles are the files a run appends to after every generation: the
// evaluation log (-log) and, without a checkpoint (which appends the
// trace itself), the trace (-trace).
type runFiles struct {
	log *runlog.Log
	// status is the log's per-row status of a generation with failures.
	status []runlog.Status
	trace  *runlog.TraceFile
	rows   *es.Trace // the trace being recorded
	// syncEvery is the checkpoints' interval in generations (0: no
	// checkpoint): the log is flushed to the disk before each checkpoint,
	// so that even after a crash of the machine it holds every generation
	// up to the one a resumed run goes on from.
	syncEvery int
}

// openRunFiles opens the log and the trace of the settings rs for a run of
// s: the log is appended to (with a comment saying at which generation a
// resumed run goes on), and with traceRows (nil with a checkpoint, or
// without -trace) the trace file is created. syncEvery is the checkpoints'
// interval (0: none).
func openRunFiles(rs *checkpoint.Settings, meta []runlog.Field, s es.Strategy, traceRows *es.Trace, syncEvery int) (*runFiles, error) {
	rf := &runFiles{rows: traceRows, syncEvery: syncEvery}
	if rs.Log != "" {
		log, err := runlog.OpenLog(rs.LogPath(), rs.Dim, meta)
		if err != nil {
			return nil, fmt.Errorf("-log: %w", err)
		}
		rf.log = log
		if g := s.Generation(); g > 0 {
			err = log.Comment([]runlog.Field{{Name: "resumed after generation", Value: strconv.Itoa(g)}})
		}
		if err != nil {
			rf.close()
			return nil, fmt.Errorf("writing the log: %w", err)
		}
	}
	if traceRows != nil {
		tf, err := runlog.CreateTrace(rs.TracePath(), meta)
		if err != nil {
			rf.close()
			return nil, fmt.Errorf("writing the trace: %w", err)
		}
		rf.trace = tf
	}
	return rf, nil
}

// afterGeneration appends the rows of the generation pr reports.
func (rf *runFiles) afterGeneration(pr es.Progress) error {
	if rf.log != nil {
		rows, _ := pr.Candidates.Dims()
		var status []runlog.Status
		if pr.Failed != nil {
			rf.status = slices.Grow(rf.status[:0], rows)[:rows]
			for i, failed := range pr.Failed {
				rf.status[i] = runlog.StatusOK
				if failed {
					rf.status[i] = runlog.StatusFailed
				}
			}
			status = rf.status
		}
		err := rf.log.Generation(pr.Evals-rows+1, pr.Generation-1, pr.Candidates, pr.Values, status)
		if err == nil && rf.syncEvery > 0 && pr.Generation%rf.syncEvery == 0 {
			err = rf.log.Sync()
		}
		if err != nil {
			return fmt.Errorf("writing the log: %w", err)
		}
	}
	if rf.trace != nil {
		if err := rf.trace.Append(rf.rows); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	return nil
}

// close flushes the log to the disk and closes the files.
func (rf *runFiles) close() error {
	var errs []error
	if rf.log != nil {
		if err := errors.Join(rf.log.Sync(), rf.log.Close()); err != nil {
			errs = append(errs, fmt.Errorf("writing the log: %w", err))
		}
	}
	if rf.trace != nil {
		if err := rf.trace.Close(); err != nil {
			errs = append(errs, fmt.Errorf("writing the trace: %w", err))
		}
	}
	return errors.Join(errs...)
}
