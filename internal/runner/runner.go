// Package runner runs one optimisation of hees run and hees resume: it
// starts the external program's processes (with -cmd), opens the log and
// the trace, writes the checkpoints, calls es.Minimize with the status
// line, and collects what went wrong. Printing the summary is left to the
// caller.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/statusline"
	"github.com/hees-dev/hees/internal/version"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/space"
)

// Config is one run.
type Config struct {
	// Settings are the run's settings; with a command, Settings.Dir is the
	// directory the program runs in ("": the current one).
	Settings *checkpoint.Settings
	// Problem is the test problem, nil with a command.
	Problem objectives.Problem
	// Strategy is the strategy to run: fresh, or restored by hees resume.
	Strategy es.Strategy
	// Inject holds the known points evaluated before the first generation.
	Inject [][]float64
	// Checkpoint writes the checkpoints (nil: none).
	Checkpoint *checkpoint.Writer
	// Display is the status line (nil: none); Run finishes it when
	// Minimize returns.
	Display *statusline.Display
	// Warn is extproc.Options.Warn: it hears of an evaluation that waits
	// long for its answer (nil: nothing).
	Warn func(msg string)
}

// Run runs the optimisation of cfg. An error means that the run could not
// start (the program or a file could not be opened): nothing was
// evaluated. Otherwise it returns the result and the failures to report:
// the failed evaluation, the program that did not end cleanly, a failed
// write of the log, the trace or the checkpoint. With a checkpoint,
// res.Elapsed includes the time of the earlier invocations.
func Run(ctx context.Context, cfg Config) (res es.Result, failures []error, err error) {
	rs, problem, s, cp, bar := cfg.Settings, cfg.Problem, cfg.Strategy, cfg.Checkpoint, cfg.Display
	// A failed checkpoint write stops the run through cancel.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt := Options(rs, problem)
	opt.Inject = cfg.Inject
	var files *runlog.Files
	var filesErr error // the first failed write, which stops the run
	opt.Progress = func(pr es.Progress) {
		if bar != nil {
			bar.Update(pr)
		}
		if filesErr == nil {
			if filesErr = files.AfterGeneration(pr); filesErr != nil {
				cancel()
			}
		}
		// No checkpoint gets ahead of the log: after a failed write of
		// the log, a resume goes on from the last generation it holds.
		if cp != nil && filesErr == nil {
			cp.AfterGeneration(pr, cancel)
		}
	}
	opt.Abandoned = func(pop *linalg.Dense, f []float64, evaluated []bool) {
		if filesErr == nil {
			filesErr = files.Abandoned(s.Evals()+1, s.Generation(), pop, f, evaluated)
		}
	}
	traceRows, syncEvery := opt.Trace, 0
	if cp != nil {
		cp.SetTrace(opt.Trace)
		traceRows = nil // the checkpoints append the trace
		syncEvery = cp.Every()
	}
	sp, err := Space(rs)
	if err != nil {
		return es.Result{}, nil, err
	}
	var eval es.Problem
	if problem != nil {
		eval = Objective(rs, problem)
		if sp != nil {
			eval = spaced(eval, sp)
		}
	}
	var pool *extproc.Pool
	if rs.Command != "" {
		// Minimize cancels the evaluations in progress, which kills their
		// processes, when the run stops: the generation under way is
		// abandoned anyway (Minimize never tells part of one).
		//
		// A run that goes on after a failure gets a fresh program for
		// the next point.
		restart := rs.OnError == es.OnErrorWorst || rs.Retries > 0
		pool, err = extproc.Start(ctx, rs.Command, rs.Workers, extproc.Options{
			Dir:         rs.Dir,
			EvalTimeout: rs.EvalTimeout,
			Restart:     restart,
			Warn:        cfg.Warn,
			Encode:      Encoder(rs, sp),
		})
		if err != nil {
			if rs.Dir != "" {
				err = fmt.Errorf("%w (in %s, the directory the run was started in)", err, rs.Dir)
			}
			return es.Result{}, nil, err
		}
		eval = es.FuncContext(pool.EvalContext)
	}
	files, err = openFiles(rs, Metadata(rs, problem, s), s, cp.Resumed(), traceRows, syncEvery, sp)
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return es.Result{}, nil, err
	}

	res, runErr := es.Minimize(ctx, eval, s, opt)
	if bar != nil {
		bar.Finish()
	}
	if pool != nil {
		failures, runErr = closeExternal(ctx, pool, runErr)
		if errors.Is(errors.Join(failures...), extproc.ErrProtocol) {
			// Answers may have gone to the wrong points: the result
			// cannot be trusted, whatever stopped the run.
			res.Reason = es.ReasonObjectiveError
		}
	}
	if runErr != nil {
		failures = append(failures, runErr)
	}
	if filesErr != nil {
		res.Reason = es.ReasonLogError // rather than the cancel it caused
	}
	if err := errors.Join(filesErr, files.Close()); err != nil {
		failures = append(failures, err)
	}
	if cp != nil {
		// After a failed write of the log, the checkpoint stays at the
		// last generation the log holds: the strategy went on past it.
		if filesErr == nil {
			if err := cp.Finish(s, res); err != nil {
				failures = append(failures, err)
			}
		}
		if cp.WriteFailed() {
			res.Reason = es.ReasonCheckpointError
		}
		res.Elapsed += cp.ElapsedBefore()
	}
	return res, failures, nil
}

// Objective returns the objective that a run with the settings rs
// minimises on problem: the problem itself, or for a noisy problem
// (objectives.Noisy) one whose noise is keyed by the run's seed and the
// evaluation's number in the run.
func Objective(rs *checkpoint.Settings, problem objectives.Problem) es.Problem {
	if noisy, ok := problem.(objectives.Noisy); ok {
		return keyedNoise{noisy, rs.Seed}
	}
	return problem
}

// keyedNoise is a noisy test problem as a run evaluates it: the noise of an
// evaluation is drawn from the run's seed and the evaluation's number in
// the run (es.KeyedProblem), so that the values depend neither on -workers
// nor on a resume in between.
type keyedNoise struct {
	p    objectives.Noisy
	seed uint64
}

// EvalKeyed is the value of the key-th evaluation at x.
func (k keyedNoise) EvalKeyed(x []float64, key uint64) float64 { return k.p.EvalKeyed(x, k.seed, key) }

// Eval is the problem's own Eval (COCO's noise sequence); es.Minimize
// calls EvalKeyed instead.
func (k keyedNoise) Eval(x []float64) float64 { return k.p.Eval(x) }

// Options returns the Minimize options of the settings rs, with the Hessian
// of problem for the trace of a strategy with a transformation (nil with a
// command, or without a transformation).
func Options(rs *checkpoint.Settings, problem objectives.Problem) es.Options {
	opt := es.Options{Workers: rs.Workers, MaxTime: rs.MaxTime, MaxEvals: rs.MaxEvals, Target: rs.Target,
		OnError: rs.OnError, Retries: rs.Retries}
	if rs.Trace != "" {
		opt.Trace = &es.Trace{Interval: rs.TraceEvery}
		// Only a row with a transformation A uses the Hessian (A^T H A):
		// the strategies without one run where d×d would not fit.
		if info, err := es.Lookup(rs.Algo); err == nil && info.Transform {
			opt.Hessian, _ = Hessian(problem)
		}
	}
	return opt
}

// Hessian returns the Hessian of problem (nil with a command) when it is
// known.
func Hessian(problem objectives.Problem) (*linalg.Dense, bool) {
	if problem == nil {
		return nil, false
	}
	return problem.Hessian()
}

// closeExternal closes the pool of the external program after Minimize
// returned runErr, and returns the failures to report and what is
// left of runErr: a failed evaluation is reported by the program's own
// error (which names the point and the program's standard error), and a
// program that did not exit cleanly is a failure of a run that ended
// normally.
func closeExternal(ctx context.Context, pool *extproc.Pool, runErr error) ([]error, error) {
	closeErr := pool.Close()
	var objErr *es.ObjectiveError
	switch {
	case errors.As(runErr, &objErr) && objErr.Err != nil:
		return []error{objErr.Err}, nil
	case errors.Is(closeErr, extproc.ErrProtocol):
		return []error{closeErr}, runErr
	case closeErr != nil && ctx.Err() == nil:
		return []error{fmt.Errorf("the program did not end cleanly: %w", closeErr)}, runErr
	}
	return nil, runErr
}

// Metadata returns the comment lines that start the log and the trace
// of a run of s with the settings rs on problem (nil with a command, and
// for an ask/tell run, which names neither). They
// do not depend on -workers or on timing, so that the files do not.
func Metadata(rs *checkpoint.Settings, problem objectives.Problem, s es.Strategy) []runlog.Field {
	meta := []runlog.Field{{Name: "hees", Value: version.String()}, {Name: "strategy", Value: s.Name()}}
	if problem != nil {
		meta = append(meta, runlog.Field{Name: "problem", Value: problem.Name()})
	} else if rs.Command != "" { // none for an ask/tell run
		meta = append(meta, runlog.Field{Name: "command", Value: rs.Command})
	}
	target := "none"
	if rs.Target != nil {
		target = strconv.FormatFloat(*rs.Target, 'g', -1, 64)
	}
	if rs.Space != nil {
		meta = append(meta, runlog.Field{Name: "space", Value: string(rs.Space)})
	}
	if rs.Format != "" {
		meta = append(meta, runlog.Field{Name: "format", Value: rs.Format})
	}
	return append(meta,
		runlog.Field{Name: "d", Value: strconv.Itoa(rs.Dim)},
		runlog.Field{Name: "seed", Value: strconv.FormatUint(rs.Seed, 10)},
		runlog.Field{Name: "population", Value: strconv.Itoa(s.PopulationSize())},
		runlog.Field{Name: "max_evals", Value: strconv.Itoa(rs.MaxEvals)},
		runlog.Field{Name: "target", Value: target},
	)
}

// openFiles opens the log and the trace of the settings rs for a run of
// s: the log is appended to (with a comment saying at which generation a
// resumed run goes on), and with traceRows (nil with a checkpoint, or
// without -trace) the trace file is created. syncEvery is the checkpoints'
// interval (0: none).
func openFiles(rs *checkpoint.Settings, meta []runlog.Field, s es.Strategy, resumed bool, traceRows *es.Trace, syncEvery int, sp *space.Space) (*runlog.Files, error) {
	cfg := runlog.FilesConfig{LogPath: rs.LogPath(), Dim: rs.Dim, Resumed: resumed, ResumedAfter: s.Generation(), ResumedEvals: s.Evals(),
		Trace: traceRows, Meta: meta, SyncEvery: syncEvery}
	if sp != nil {
		// Named columns in the user's units (docs: hees help run).
		cfg.Columns = runlog.SpaceColumns(sp)
	}
	if traceRows != nil {
		cfg.TracePath = rs.TracePath()
	}
	f, err := runlog.OpenFiles(cfg)
	if oe := (*runlog.OpenLogError)(nil); errors.As(err, &oe) {
		return nil, fmt.Errorf("-log: %w", oe.Err)
	}
	return f, err
}

// FormatJSON is the value of Settings.Format for the protocol of one JSON
// object of named values per line (hees run -format json).
const FormatJSON = "json"

// Space returns the search space of the settings rs (nil for none), or an
// error that says that the settings' space is bad.
func Space(rs *checkpoint.Settings) (*space.Space, error) {
	if rs.Space == nil {
		return nil, nil
	}
	sp, err := space.Parse(rs.Space)
	if err != nil {
		return nil, fmt.Errorf("the run's space: %w", err)
	}
	if sp.Len() != rs.Dim {
		return nil, fmt.Errorf("the run's space has %d parameters, the run %d dimensions", sp.Len(), rs.Dim)
	}
	return sp, nil
}

// Encoder returns the extproc.Options.Encode of a run with the settings rs
// and the space sp (nil for none): the user's values, as words or as one
// JSON object (Format), or nil for the plain numbers.
func Encoder(rs *checkpoint.Settings, sp *space.Space) func(dst []byte, x []float64) []byte {
	switch {
	case sp != nil && rs.Format == FormatJSON:
		return sp.AppendJSON
	case sp != nil:
		return func(dst []byte, x []float64) []byte { return sp.AppendText(dst, x, ' ') }
	case rs.Format == FormatJSON:
		return appendNumbersJSON
	}
	return nil
}

// appendNumbersJSON appends x as one JSON object of the names x1 ... xd
// (the -format json of a run without a space).
func appendNumbersJSON(dst []byte, x []float64) []byte {
	dst = append(dst, '{')
	for i, v := range x {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `"x`...)
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, `":`...)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dst = strconv.AppendQuote(dst, strconv.FormatFloat(v, 'g', -1, 64)) // no JSON number
			continue
		}
		dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return append(dst, '}')
}

// spaced returns the objective that evaluates p at the user's values of
// the es points (a test problem run with hees run -f and -space): each
// choice as its number, or its index when its values are strings.
func spaced(p es.Problem, sp *space.Space) es.Problem {
	sm := spacedProblem{p: p, sp: sp}
	if k, ok := p.(es.KeyedProblem); ok {
		return spacedKeyed{sm, k}
	}
	return sm
}

// spacedProblem evaluates a problem at the user's values of a space.
type spacedProblem struct {
	p  es.Problem
	sp *space.Space
}

// Eval evaluates the problem at the user's values of the es point y.
func (s spacedProblem) Eval(y []float64) float64 { return s.p.Eval(s.sp.Numbers(nil, y)) }

// spacedKeyed is spacedProblem for a keyed problem.
type spacedKeyed struct {
	spacedProblem
	k es.KeyedProblem
}

// EvalKeyed evaluates the key-th evaluation at the user's values of y.
func (s spacedKeyed) EvalKeyed(y []float64, key uint64) float64 {
	return s.k.EvalKeyed(s.sp.Numbers(nil, y), key)
}
