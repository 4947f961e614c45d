package session

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/space"
)

// The evaluation log of an ask/tell run (hees init -log, runspec.Spec.Log)
// gets the rows of a batch when the batch is folded, by the process that
// folds it, under the run's lock: the rows of hees run -log with the same
// settings, in the same order, whichever process told which value. The
// rows are appended and flushed before the new snapshot replaces the old
// one; a fold that crashed in between is done again by the next writer,
// and the rows it had appended become comment lines (runlog.ResumeLog),
// so that every evaluation number appears once among the rows. A log that
// cannot be written fails the fold, and with it the tell that completed
// the batch: its values stay in the journal, and the next tell folds
// again.

// batchRows are the rows of the log of one batch.
type batchRows struct {
	evalsBefore int // the run's evaluations before the batch
	gen         int // the generation, or runlog.InjectedGeneration
	x           *linalg.Dense
	f           []float64
	status      []runlog.Status
}

// logRows returns the rows the log gets for the batch of ss, which is
// done (Session.fold): every candidate with its value, "failed" for one
// told NaN by the failure policy; or, for a batch that a failure stopped,
// the candidates told a value, "abandoned" (hees run's rows of a
// generation abandoned by a failure), in row order.
func (ss *Session) logRows() batchRows {
	r := batchRows{evalsBefore: ss.Evals(), gen: ss.s.Generation()}
	if ss.run.Injecting() {
		r.gen = runlog.InjectedGeneration
	}
	rows, d := ss.pop.Dims()
	var data []float64
	for row := range rows {
		v, told := ss.b.told[row]
		status := runlog.StatusOK
		switch {
		case ss.b.stop != "" && !told:
			continue
		case ss.b.stop != "":
			status = runlog.StatusAbandoned
		case math.IsNaN(v):
			status = runlog.StatusFailed
		}
		data = append(data, ss.pop.RawRow(row)...)
		r.f = append(r.f, v)
		r.status = append(r.status, status)
	}
	if len(r.f) > 0 {
		r.x = linalg.NewDense(len(r.f), d, slices.Clip(data))
	}
	return r
}

// logColumns returns the point columns of the run's log: the names and
// values of its space (hees init -space), or x1 ... xd.
func (ss *Session) logColumns() (runlog.Columns, error) {
	if ss.File.Space == nil {
		return runlog.Columns{}, nil
	}
	sp, err := space.Parse(ss.File.Space)
	if err != nil {
		return runlog.Columns{}, fmt.Errorf("the run's space: %w", err)
	}
	return runlog.SpaceColumns(sp), nil
}

// writeLog appends the rows r to the log at path, of a run in d
// dimensions with the point columns cols, and flushes them to the disk.
func writeLog(path string, d int, cols runlog.Columns, r batchRows) error {
	if r.x == nil {
		return nil
	}
	l, err := runlog.ResumeLogColumns(path, d, nil, r.evalsBefore, cols)
	if err != nil {
		return fmt.Errorf("writing the log %s: %w", path, err)
	}
	err = l.Generation(r.evalsBefore+1, r.gen, r.x, r.f, r.status)
	if err == nil {
		err = l.Sync()
	}
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the log %s: %w", path, err)
	}
	return nil
}
