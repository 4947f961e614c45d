// Package checkpoint keeps the complete state of a hees run in a file, so
// that hees resume continues it after a signal, a crash, a kill, the time
// limit or a failed program, and prints what the run would have printed had
// it never been stopped: the settings of the run, the strategy's state after
// its last complete generation, the stop once the run has ended, the time
// spent, and the length of the trace file at that state. A Writer writes
// the checkpoints of a run under the lock file FILE.lock; each write
// replaces the file atomically.
package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/objectives"
)

// Kind is the kind of a checkpoint in its container (internal/statefile);
// the payload is the JSON of File.
const Kind = "checkpoint/v1"

// lockWait is how long hees run and hees resume wait for the lock of a
// checkpoint: its holder is a running process, so waiting longer would
// only delay the error.
const lockWait = 100 * time.Millisecond

// Settings are the settings of a run once its defaults are resolved: all
// that hees resume needs to continue it, so a checkpoint keeps them. They
// are the run spec that the ask/tell state shares (internal/runspec).
type Settings = runspec.Spec

// File is the payload of a checkpoint: what hees resume needs to continue a
// run and print what the run would have printed.
type File struct {
	// Run holds the settings of the run, its defaults resolved.
	Run Settings `json:"run"`
	// Every is the number of generations between two checkpoints.
	Every int `json:"every"`
	// Strategy is the strategy's MarshalBinary (the IPOP or BIPOP
	// wrapper's with -restarts ipop or bipop) after its last complete
	// generation: only the evaluations told to it count, never those of a
	// generation abandoned by a signal or a failure.
	Strategy []byte `json:"strategy"`
	// Stop is why the run stopped, once it has for good (then hees resume
	// only prints the summary), and "" while it can go on, which includes
	// a stop by a signal, -max-time or a failed objective.
	Stop es.Reason `json:"stop"`
	// Elapsed is the wall-clock time of the work up to this state, summed
	// over the invocations.
	Elapsed time.Duration `json:"elapsed"`
	// TraceBytes is the length of the trace file's content up to this
	// state; hees resume cuts off rows that a killed run appended after
	// it.
	TraceBytes int64 `json:"trace_bytes"`
	// Inject holds the known points of hees run -inject until their batch
	// has been told (docs/ALGORITHMS.md Section 16): hees resume evaluates
	// them first when the run stopped before, and never again after.
	// Absent (older checkpoints, runs without -inject): none.
	Inject [][]float64 `json:"inject,omitempty"`
}

// Writer writes the checkpoints of a run.
type Writer struct {
	path   string
	file   File // the content of the next write
	unlock func() error
	// traceFile is the trace file, open and locked while the run writes
	// it (runlog.LockTrace); nil until the first use, and without a trace.
	traceFile *os.File

	// trace is the run's trace (nil without -trace), traceRows the number
	// of its rows already in the trace file.
	trace     *es.Trace
	traceRows int

	started       time.Time     // start of this invocation
	elapsedBefore time.Duration // Elapsed of the checkpoint it started from

	// savedGeneration and savedStop describe the checkpoint on disk.
	savedGeneration int
	savedStop       es.Reason
	// created says that this invocation created the checkpoint.
	created bool
	// err is the first failed write during the run.
	err error
}

// State is a decoded checkpoint: its content, the strategy restored, and
// the problem (nil for a run of an external program).
type State struct {
	File     File
	Strategy es.Strategy
	Problem  objectives.Problem
}

// resumableReason reports whether a run that stopped for reason can go on
// from its checkpoint: a signal, the time limit, a failed objective, or a
// failed write of the log or the trace.
func resumableReason(reason es.Reason) bool {
	switch reason {
	case es.ReasonCanceled, es.ReasonTimeLimit, es.ReasonObjectiveError, es.ReasonStrategyError, es.ReasonLogError:
		return true
	}
	return false
}

// lockCheckpoint takes the lock file of the checkpoint at path, so that two
// processes never write the same checkpoint.
func lockCheckpoint(ctx context.Context, path string) (func() error, error) {
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	unlock, err := atomicfile.Lock(ctx, path+".lock")
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s is in use by another hees process (%s is locked)", path, path+".lock")
	}
	if err == nil {
		atomicfile.RemoveStaleTemps(path) // best effort: a leftover is only clutter
	}
	return unlock, err
}

// Create starts the checkpoints of a new run of s with the settings rs at
// path, which must not exist, and writes the first one, which holds the
// known points inject (nil: none) that the run evaluates first. With a
// trace, the trace file starts with the comment lines of traceMeta.
func Create(ctx context.Context, path string, every int, rs *Settings, s es.Strategy, inject [][]float64, traceMeta []runlog.Field) (*Writer, error) {
	if err := runlog.CheckDir("-checkpoint", path); err != nil {
		return nil, err
	}
	unlock, err := lockCheckpoint(ctx, path)
	if err != nil {
		return nil, err
	}
	c := &Writer{
		path:    path,
		file:    File{Run: *rs, Every: every, Inject: inject},
		unlock:  unlock,
		started: time.Now(),
		created: true,
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		c.Close()
		if err == nil {
			err = fmt.Errorf("-checkpoint %s exists: continue its run with hees resume %s, or remove it to start anew", path, path)
		}
		return nil, err
	}
	if rs.Trace != "" {
		// Locked before it is emptied: a file another run writes (its
		// log or its trace) is refused unchanged.
		f, n, err := runlog.StartTrace(rs.TracePath(), traceMeta)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("the trace: %w", err)
		}
		c.traceFile, c.file.TraceBytes = f, n
	}
	if err := c.write(s, ""); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Open reads the checkpoint at path for hees resume, which checks first
// that it exists, and returns the Writer that continues it. A truncated,
// corrupt or foreign file is an error that says which (the causes of
// internal/statefile).
func Open(ctx context.Context, path string) (*Writer, *State, error) {
	// The file is checked before the lock is taken, so that a file that
	// is not a checkpoint does not get a FILE.lock next to it, and read
	// again under the lock, so that it is the latest version.
	if _, err := read(path); err != nil {
		return nil, nil, err
	}
	unlock, err := lockCheckpoint(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	st, err := read(path)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	c := &Writer{
		path:            path,
		file:            st.File,
		unlock:          unlock,
		started:         time.Now(),
		elapsedBefore:   st.File.Elapsed,
		savedGeneration: st.Strategy.Generation(),
		savedStop:       st.File.Stop,
	}
	if st.File.Stop == "" && st.File.Run.Trace != "" {
		if err := c.restoreTrace(); err != nil {
			c.Close()
			return nil, nil, err
		}
	}
	return c, st, nil
}

// Continue lets a run that stopped for good (at its budget or target)
// go on, under new limits the caller sets in Settings: the checkpoint no
// longer records the stop, and the trace is cut back to the checkpoint's
// end as for any resumed run.
func (c *Writer) Continue() error {
	c.file.Stop, c.savedStop = "", ""
	if c.file.Run.Trace != "" {
		return c.restoreTrace()
	}
	return nil
}

// Read reads and decodes the checkpoint at path without its lock, as
// hees status does: a checkpoint is replaced whole (atomicfile), so a read
// sees one of its versions. Errors name the path.
func Read(path string) (*State, error) { return read(path) }

// read reads and decodes the checkpoint at path; errors name the
// path.
func read(path string) (*State, error) {
	payload, err := statefile.ReadFile(path, Kind) // refuses devices and named pipes
	if err != nil {
		return nil, err
	}
	st, err := Parse(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// restoreTrace cuts the trace file back to the length it had at the
// checkpoint, removing the rows of generations after it.
func (c *Writer) restoreTrace() error {
	path, size := c.file.Run.TracePath(), c.file.TraceBytes
	f, err := c.lockedTrace()
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("the trace of the run: %w", err)
	}
	header, err := runlog.ReadHeader(f)
	if err != nil || info.Size() < size || header+"\n" != string(runlog.TraceHead(nil)) {
		return fmt.Errorf("the trace %s is not the one of the checkpoint (it has %d bytes, the checkpoint %d bytes of it); was it changed?",
			path, info.Size(), size)
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("the trace of the run: %w", err)
	}
	return nil
}

// lockedTrace returns the trace file, opened and locked on first use
// (runlog.LockTrace) and kept so until Close.
func (c *Writer) lockedTrace() (*os.File, error) {
	if c.traceFile == nil {
		f, err := runlog.LockTrace(c.file.Run.TracePath())
		if err != nil {
			return nil, fmt.Errorf("the trace of the run: %w", err)
		}
		c.traceFile = f
	}
	return c.traceFile, nil
}

// Resumed reports whether the run goes on from a checkpoint that an
// earlier invocation wrote (hees resume), false for a new one or nil.
func (c *Writer) Resumed() bool { return c != nil && !c.created }

// DiscardIfNew removes the checkpoint when this invocation created it and
// the run could not start (its program did not start): the settings it
// holds would only fail again. It reports whether it did.
func (c *Writer) DiscardIfNew() bool {
	if c == nil || !c.created || c.savedGeneration != 0 {
		return false
	}
	if c.file.Run.Trace != "" {
		os.Remove(c.file.Run.TracePath())
	}
	return os.Remove(c.path) == nil
}

// Close releases the locks of the checkpoint and of the trace.
func (c *Writer) Close() {
	if c.traceFile != nil {
		c.traceFile.Close()
		c.traceFile = nil
	}
	c.unlock() // the locks go with the process anyway
}

// AfterGeneration is called after every generation of the run (through
// es.Options.Progress) and writes a checkpoint every Every generations,
// and after the batch of known points, which it no longer holds. A failed
// write stops the run through cancel. A checkpoint of a generation after
// which the run stops (pr.Stop: -Inf or the target) records the stop, so
// that hees resume does not go on past it.
func (c *Writer) AfterGeneration(pr es.Progress, cancel context.CancelFunc) {
	if pr.Injected {
		c.file.Inject = nil
	}
	if c.err != nil || (pr.Generation%c.file.Every != 0 && !pr.Injected) {
		return
	}
	if err := c.write(pr.Strategy, pr.Stop); err != nil {
		c.err = err
		cancel()
	}
}

// WriteFailed reports whether a write during the run failed, which stopped
// the run (AfterGeneration).
func (c *Writer) WriteFailed() bool { return c.err != nil }

// Finish writes the checkpoint of the strategy s once es.Minimize returned
// res: it records the stop, unless the run can go on. It returns the first
// failed write of the run.
func (c *Writer) Finish(s es.Strategy, res es.Result) error {
	stop := res.Reason
	if resumableReason(stop) {
		stop = ""
	}
	err := c.write(s, stop)
	if c.err != nil {
		return c.err
	}
	return err
}

// write appends the new rows of the trace to the trace file, then replaces
// the checkpoint with the state of s and stop. The trace comes first: a
// kill between the two leaves rows past the checkpoint's TraceBytes, which
// hees resume cuts off.
func (c *Writer) write(s es.Strategy, stop es.Reason) error {
	if err := c.AppendTrace(); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	data, err := c.Encode(s, stop)
	if err == nil {
		err = atomicfile.WriteFile(c.path, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	c.savedGeneration, c.savedStop = s.Generation(), stop
	return nil
}

// Encode returns the checkpoint file of the state of s and stop, with the
// trace as far as appendTrace wrote it.
func (c *Writer) Encode(s es.Strategy, stop es.Reason) ([]byte, error) {
	state, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	c.file.Strategy = state
	c.file.Stop = stop
	c.file.Elapsed = c.elapsedBefore + time.Since(c.started)
	payload, err := json.Marshal(&c.file)
	if err != nil {
		return nil, err
	}
	return statefile.Encode(Kind, payload)
}

// AppendTrace writes the trace rows recorded since the last call at the
// checkpoint's end of the trace file, and flushes them to disk.
func (c *Writer) AppendTrace() error {
	if c.trace == nil || len(c.trace.Rows) == c.traceRows {
		return nil
	}
	var buf bytes.Buffer
	if err := c.trace.WriteCSVRows(&buf, c.traceRows); err != nil {
		return err
	}
	data := buf.Bytes()
	f, err := c.lockedTrace()
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, c.file.TraceBytes); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	c.file.TraceBytes += int64(len(data))
	c.traceRows = len(c.trace.Rows)
	return nil
}

// PrintResumeHint tells on w how to continue the run when the checkpoint
// on disk can go on; it prints nothing for a nil c, a finished run, or a
// checkpoint that is gone.
func (c *Writer) PrintResumeHint(w io.Writer, name string) {
	if c == nil || c.savedStop != "" {
		return
	}
	if _, err := os.Stat(c.path); err != nil {
		return
	}
	fmt.Fprintf(w, "%s: %s holds the run after generation %d; continue it with: hees resume %s\n",
		name, c.path, c.savedGeneration, c.path)
}

// Decode checks the bytes of a checkpoint file and returns its
// content with the strategy restored. Errors of the container keep their
// cause (statefile.ErrTruncated and so on).
func Decode(data []byte) (*State, error) {
	payload, err := statefile.DecodeKind(data, Kind)
	if err != nil {
		return nil, err
	}
	return Parse(payload)
}

// Parse reads the payload of a checkpoint, restores its strategy
// and checks that the settings agree with it.
func Parse(payload []byte) (*State, error) {
	st := new(State)
	if err := statefile.UnmarshalJSON(payload, &st.File); err != nil {
		return nil, fmt.Errorf("bad checkpoint: %v", err)
	}
	if _, err := es.ParseRestarts(st.File.Run.Restarts); err != nil {
		return nil, fmt.Errorf("bad checkpoint: %v", err)
	}
	s, err := es.Load(st.File.Strategy)
	if err != nil {
		return nil, fmt.Errorf("bad checkpoint: %v", err)
	}
	st.Strategy = s
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("bad checkpoint: %v", err)
	}
	return st, nil
}

// maxElapsed bounds the time a checkpoint says its run has taken: a
// century, far from the overflow of the sum with a resumed run's time
// (time.Duration holds 292 years).
const maxElapsed = 100 * 365 * 24 * time.Hour

// check validates the settings of a decoded checkpoint against its
// strategy, and parses the problem. The strategy is restored first: its
// state holds d coordinates, so a corrupted dimension cannot make the
// problem allocate more than the file's size.
func (st *State) check() error {
	f, rs, s := &st.File, &st.File.Run, st.Strategy
	switch {
	case rs.MaxEvals < 0 || rs.Workers < 1 || rs.Workers > es.MaxWorkers || rs.MaxTime < 0 || rs.EvalTimeout < 0 || rs.TraceEvery < 1 || f.Every < 1:
		return fmt.Errorf("out of range: max_evals %d, workers %d, max_time %v, eval_timeout %v, trace_every %d, every %d",
			rs.MaxEvals, rs.Workers, rs.MaxTime, rs.EvalTimeout, rs.TraceEvery, f.Every)
	}
	if err := rs.Check(); err != nil {
		return err
	}
	switch {
	case s.Name() != rs.Name() || s.Dim() != rs.Dim:
		return fmt.Errorf("the strategy is %s in %d dimensions, the settings say %s in %d", s.Name(), s.Dim(), rs.Name(), rs.Dim)
	case (rs.Problem == "") == (rs.Command == ""):
		return errors.New("want either a problem or a command")
	case f.Elapsed < 0 || f.Elapsed > maxElapsed || f.TraceBytes < 0 || (rs.Trace == "") != (f.TraceBytes == 0):
		return fmt.Errorf("elapsed %v, trace %q of %d bytes", f.Elapsed, rs.Trace, f.TraceBytes)
	case resumableReason(f.Stop):
		return fmt.Errorf("stop reason %q does not end a run", f.Stop)
	}
	if _, err := es.ParseReason(string(f.Stop)); err != nil {
		return fmt.Errorf("stop reason %q is none of hees's", f.Stop)
	}
	if f.Inject != nil {
		// The points must be ones the strategy takes (Run.Inject checks
		// them); the run is thrown away.
		run, err := es.NewRun(s, es.Limits{})
		if err == nil {
			err = run.Inject(f.Inject)
		}
		if err != nil {
			return fmt.Errorf("the known points: %v", err)
		}
	}
	if rs.Problem != "" {
		p, err := objectives.Parse(rs.Problem, rs.Dim)
		if err != nil {
			return err
		}
		st.Problem = p
	}
	return nil
}

// FinishedResult is the result of a run whose checkpoint recorded that it
// stopped for reason: what es.Minimize returned at that point, since a run
// that stops normally abandons no evaluation.
func FinishedResult(s es.Strategy, reason es.Reason) (es.Result, error) {
	run, err := es.NewRun(s, es.Limits{})
	if err != nil {
		return es.Result{}, err
	}
	run.Stop(reason, nil)
	return run.Result(), nil
}

// Settings returns the settings of the run, which hees resume may change
// (the workers) before it continues.
func (c *Writer) Settings() *Settings { return &c.file.Run }

// Every is the number of generations between two checkpoints.
func (c *Writer) Every() int { return c.file.Every }

// SetTrace gives the Writer the run's trace (nil without -trace), whose
// new rows each checkpoint appends to the trace file.
func (c *Writer) SetTrace(t *es.Trace) { c.trace = t }

// ElapsedBefore is the wall-clock time of the run up to the checkpoint this
// invocation started from.
func (c *Writer) ElapsedBefore() time.Duration { return c.elapsedBefore }
