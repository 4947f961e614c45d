package runlog

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// FilesConfig says which files a run keeps.
type FilesConfig struct {
	// LogPath is the evaluation log, appended to; "" means none.
	LogPath string
	// Dim is the dimension of the run's points.
	Dim int
	// Resumed says that the run goes on from a checkpoint taken after
	// ResumedAfter generations and ResumedEvals evaluations: the log is
	// opened with ResumeLog, and a comment in it says so.
	Resumed                    bool
	ResumedAfter, ResumedEvals int
	// Trace holds the trace rows being recorded, appended to the file at
	// TracePath after every generation; nil means no trace file.
	Trace     *es.Trace
	TracePath string
	// Meta are the comment lines that start both files.
	Meta []Field
	// Columns are the log's point columns (the zero value: x1 ... xd).
	Columns Columns
	// SyncEvery is the checkpoints' interval in generations (0: no
	// checkpoint): the log is flushed to the disk before each checkpoint
	// (one is also written after the batch of known points), so that even
	// after a crash of the machine it holds every generation up to the one
	// a resumed run goes on from.
	SyncEvery int
}

// An OpenLogError is the failure of OpenFiles to open the evaluation log,
// as OpenLog reports it.
type OpenLogError struct{ Err error }

func (e *OpenLogError) Error() string { return "opening the log: " + e.Err.Error() }

// Unwrap returns the error of OpenLog.
func (e *OpenLogError) Unwrap() error { return e.Err }

// Files are the files a run appends to after every generation: the
// evaluation log and the trace.
type Files struct {
	log *Log
	// bestF and bestEval are the smallest value among the rows logged by
	// this invocation and its evaluation number (bestEval 0: none), for
	// the comment Close writes.
	bestF    float64
	bestEval int
	// status is the log's per-row status of a generation with failures.
	status    []Status
	trace     *TraceFile
	rows      *es.Trace
	syncEvery int
}

// OpenFiles opens the files of cfg: the log is appended to (with a comment
// when the run is resumed) and the trace file is created. A failure to open
// the log is an *OpenLogError; the other errors say which file they are
// about.
func OpenFiles(cfg FilesConfig) (*Files, error) {
	f := &Files{rows: cfg.Trace, syncEvery: cfg.SyncEvery}
	if cfg.LogPath != "" {
		resumed := -1
		if cfg.Resumed {
			resumed = cfg.ResumedEvals
		}
		log, err := openLog(cfg.LogPath, cfg.Dim, cfg.Meta, resumed, cfg.Columns)
		if err != nil {
			return nil, &OpenLogError{err}
		}
		f.log = log
		if cfg.Resumed {
			err = log.Comment([]Field{{Name: "resumed after generation", Value: strconv.Itoa(cfg.ResumedAfter)}})
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writing the log: %w", err)
		}
	}
	if cfg.Trace != nil {
		tf, err := CreateTrace(cfg.TracePath, cfg.Meta)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writing the trace: %w", err)
		}
		f.trace = tf
	}
	return f, nil
}

// AfterGeneration appends the rows of the generation pr reports.
func (f *Files) AfterGeneration(pr es.Progress) error {
	if f.log != nil {
		rows, _ := pr.Candidates.Dims()
		var status []Status
		if pr.Failed != nil {
			f.status = slices.Grow(f.status[:0], rows)[:rows]
			for i, failed := range pr.Failed {
				f.status[i] = StatusOK
				if failed {
					f.status[i] = StatusFailed
				}
			}
			status = f.status
		}
		gen := pr.Generation - 1
		if pr.Injected {
			gen = InjectedGeneration
		}
		first := pr.Evals - rows + 1
		for i, v := range pr.Values {
			ok := status == nil || status[i] == StatusOK
			if ok && !math.IsNaN(v) && (f.bestEval == 0 || v < f.bestF) {
				f.bestF, f.bestEval = v, first+i
			}
		}
		err := f.log.Generation(first, gen, pr.Candidates, pr.Values, status)
		if err == nil && f.syncEvery > 0 && (pr.Generation%f.syncEvery == 0 || pr.Injected) {
			err = f.log.Sync()
		}
		if err != nil {
			return fmt.Errorf("writing the log: %w", err)
		}
	}
	if f.trace != nil {
		if err := f.trace.Append(f.rows); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	return nil
}

// Abandoned appends the rows of the generation that a failed evaluation
// stopped (es.Options.Abandoned): the candidates of pop that were
// evaluated, with their values f and the status StatusAbandoned, numbered
// from first on in row order. Nothing else of the generation is written.
func (f *Files) Abandoned(first, gen int, pop *linalg.Dense, values []float64, evaluated []bool) error {
	if f.log == nil {
		return nil
	}
	var rows []float64
	var kept []float64
	for i, ok := range evaluated {
		if ok {
			rows = append(rows, pop.RawRow(i)...)
			kept = append(kept, values[i])
		}
	}
	if len(kept) == 0 {
		return nil
	}
	status := make([]Status, len(kept))
	for i := range status {
		status[i] = StatusAbandoned
	}
	if err := f.log.Generation(first, gen, linalg.NewDense(len(kept), f.log.dim, rows), kept, status); err != nil {
		return fmt.Errorf("writing the log: %w", err)
	}
	return nil
}

// Close ends the log with a comment line that names the best value logged
// by this invocation and its evaluation, flushes the log to the disk and
// closes the files.
func (f *Files) Close() error {
	var errs []error
	if f.log != nil {
		var err error
		if f.bestEval > 0 {
			err = f.log.Comment([]Field{{Name: "best value of this invocation",
				Value: fmt.Sprintf("%s (evaluation %d)", strconv.FormatFloat(f.bestF, 'g', -1, 64), f.bestEval)}})
		}
		if err := errors.Join(err, f.log.Sync(), f.log.Close()); err != nil {
			errs = append(errs, fmt.Errorf("writing the log: %w", err))
		}
	}
	if f.trace != nil {
		if err := f.trace.Close(); err != nil {
			errs = append(errs, fmt.Errorf("writing the trace: %w", err))
		}
	}
	return errors.Join(errs...)
}
