package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/internal/statusline"
	"github.com/hees-dev/hees/internal/version"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/space"
)

// Defaults of hees run that depend on the problem.
const (
	// budgetPerDim is the default evaluation budget per dimension: 10000*d,
	// the budget COCO's experiments commonly give a restarted optimizer.
	budgetPerDim = 10000
	// targetGap is the default target's distance to a known f*: 1e-8,
	// COCO's final target precision.
	targetGap = 1e-8
	// commandBox is the default half-width of the box of x0 with -cmd,
	// where no problem gives one: that of the classic functions.
	commandBox = 3
	// defaultCheckpointEvery is the default of -checkpoint-every: a count
	// of generations rather than a wall-clock interval, so that where the
	// checkpoints fall does not depend on the machine. A write costs two
	// fsyncs, 0.5 to 5 ms on a shared virtual disk: with 10, the 280
	// generations of "hees run" (2 ms without checkpoints) take 0.1 s,
	// while a run whose generations take seconds, the kind that needs
	// checkpoints, loses at most 10 of them and does not notice the writes.
	defaultCheckpointEvery = 10
)

// runFlags are the flags of hees run.
type runFlags struct {
	strategyFlags
	outputFlags
	problem         string
	command         string
	dim             int
	maxEvals        countFlag
	target          targetFlag
	workers         int
	maxTime         time.Duration
	evalTimeout     time.Duration
	trace           string
	traceEvery      int
	log             string
	checkpoint      string
	checkpointEvery int
	onError         string
	retries         int
	inject          string
	// spaceFile is -space, format -format; x0Lazy holds -x0 as given,
	// read once it is known whether it holds numbers or a space's values.
	spaceFile string
	format    string
	x0Lazy    lazyPoint
	space     *space.Space // the space of -space, read by runRun
}

// outputFlags choose what a run shows; hees resume takes them again.
type outputFlags struct {
	json    bool
	quiet   bool
	verbose bool
}

// register defines -json, -q and -v on fs.
func (of *outputFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&of.json, "json", false, "print the summary as one JSON object")
	fs.BoolVar(&of.quiet, "q", false, "show no progress on standard error")
	fs.BoolVar(&of.verbose, "v", false, "show progress on standard error even when it is not a terminal")
}

// check reports -q with -v.
func (of *outputFlags) check() error {
	if of.quiet && of.verbose {
		return usagef("give -q or -v, not both")
	}
	return nil
}

// runReport is the -json output of hees run.
type runReport struct {
	Strategy    string     `json:"strategy"`
	Problem     string     `json:"problem,omitempty"`
	Command     string     `json:"command,omitempty"`
	Dim         int        `json:"dim"`
	Seed        uint64     `json:"seed"`
	MaxEvals    int        `json:"max_evals"`
	Target      *jsonFloat `json:"target"`
	Evals       int        `json:"evals"`
	Generations int        `json:"generations"`
	Restarts    int        `json:"restarts"`
	// Doublings is the number of times -noise doubled the population
	// (omitted when it did not).
	Doublings int       `json:"doublings,omitempty"`
	FBest     jsonFloat `json:"f_best"`
	// XBest is the best point: numbers ([]jsonFloat), or with -space the
	// user's values ([]space.Value), which Params repeats as an object of
	// names.
	XBest      any             `json:"x_best"`
	Params     json.RawMessage `json:"params,omitempty"`
	StopReason es.Reason       `json:"stop_reason"`
	// Recommendation is the point a run with -noise recommends, apart
	// from the best single value f_best.
	Recommendation *recReport `json:"recommendation,omitempty"`
	Error          string     `json:"error,omitempty"`
	Version        string     `json:"version"`
}

// doubledText is what the summaries of hees run and hees status say of
// the n doublings of the population by -noise: nothing for none.
func doubledText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", the population doubled once"
	}
	return fmt.Sprintf(", the population doubled %d times", n)
}

// recReport is the recommendation of a run with noise handling: the
// point (numbers, or with -space the user's values, repeated by Params
// as an object of names), its estimated value and the evaluations behind
// the estimate.
type recReport struct {
	X      any             `json:"x"`
	Params json.RawMessage `json:"params,omitempty"`
	F      jsonFloat       `json:"f"`
	Evals  int             `json:"evals"`
	Means  int             `json:"means"` // averaged into x: 1 for the last mean
}

// newRecReport is the report of the recommendation r.
func newRecReport(r es.Recommendation) *recReport {
	return &recReport{X: jsonFloats(r.X), F: jsonFloat(r.F), Evals: r.Evals, Means: r.Means}
}

// recText is the summary's line of the recommendation r.
func recText(r *recReport) string {
	if r.Means > 1 {
		return fmt.Sprintf("%s, the average of %d means, estimated from %d evaluations", formatValue(float64(r.F)), r.Means, r.Evals)
	}
	return fmt.Sprintf("%s, estimated from %d evaluations", formatValue(float64(r.F)), r.Evals)
}

// jsonFloat is a float64 written as a JSON number by encoding/json (which
// reads back to the same bits), or as the string "NaN", "+Inf" or "-Inf",
// which JSON numbers cannot express.
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte(`"` + formatValue(v) + `"`), nil
	}
	return json.Marshal(v)
}

// runRun is the run command.
func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees run"
	var rf runFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	rf.strategyFlags.register(fs, "the problem's box: 5 for BBOB, 3 otherwise and with -cmd")
	fs.StringVar(&rf.problem, "f", "ellipsoid", "problem `SPEC` (see above)")
	fs.StringVar(&rf.command, "cmd", "", "optimise the external `PROGRAM` instead of a problem; needs -d")
	fs.IntVar(&rf.dim, "d", 10, "dimension `D`")
	rf.maxEvals.def = fmt.Sprintf("%d*d", budgetPerDim)
	fs.Var(&rf.maxEvals, "max-evals", "evaluation budget `N` (0: none)")
	rf.target.def = "f*+1e-8 for a noise-free problem whose f* is known, without -noise; else none"
	fs.Var(&rf.target, "target", "stop when a value is at most `F`, or none")
	fs.IntVar(&rf.workers, "workers", 1, "evaluate in `N` goroutines (with -cmd, N processes)")
	fs.DurationVar(&rf.maxTime, "max-time", 0, "stop after the wall-clock `TIME`, such as 90s or 2h (0: no limit)")
	fs.DurationVar(&rf.evalTimeout, "eval-timeout", 0, "with -cmd, fail when one evaluation takes longer than `TIME` (0: no limit)")
	fs.StringVar(&rf.trace, "trace", "", "write one CSV row per generation to `FILE`")
	fs.IntVar(&rf.traceEvery, "trace-every", 0, "compute the trace's matrix columns (O(d^3)) every `N` generations (0: max(1, ceil(k d / lambda)), k = 40, 100 with a Hessian)")
	fs.StringVar(&rf.log, "log", "", "append one CSV row per evaluation to `FILE`, after each generation")
	fs.StringVar(&rf.checkpoint, "checkpoint", "", "keep the state of the run in the new `FILE`, for hees resume")
	fs.IntVar(&rf.checkpointEvery, "checkpoint-every", defaultCheckpointEvery, "with -checkpoint, write FILE every `N` generations")
	fs.StringVar(&rf.onError, "on-error", "stop", "what a failed evaluation does: `POLICY` stop (end the run) or nan (rank the point worst and go on)")
	fs.IntVar(&rf.retries, "retries", 0, "evaluate a failed point again up to `N` times (with -cmd, in a restarted program) before -on-error applies")
	fs.StringVar(&rf.inject, "inject", "", "evaluate the known points in `FILE` (one per line, d numbers separated by spaces or commas; with -space the parameters' values, or one JSON object of names per line) before the first generation")
	fs.StringVar(&rf.spaceFile, "space", "", "search the named parameters of the space `FILE` (JSON: reals, log-scale reals, integers, choices); -d is its length, the program, the log and the summary see the parameters' values")
	fs.StringVar(&rf.format, "format", "text", "with -cmd, how a point is written to the program: `FORMAT` text (numbers or values separated by spaces) or json (one JSON object of names per line)")
	rf.registerNoise(fs)
	rf.outputFlags.register(fs)
	rf.x0Lazy.into = &rf.strategyFlags.x0
	fs.Lookup("x0").Value = &rf.x0Lazy
	if status, done := parseFlags(fs, args, withProblems(runHelp), stdout, stderr); done {
		return status
	}
	set := given(fs)
	rf.sigma0Given = set["sigma0"]
	if err := rf.check(set); err != nil {
		return report(stderr, name, err)
	}
	sp, err := rf.loadSpace(set)
	if err != nil {
		return report(stderr, name, err)
	}
	rf.space = sp
	if sp != nil {
		rf.dim = sp.Len()
	}

	ctx, stop := runContext()
	defer stop()
	return rf.run(ctx, stdout, stderr)
}

// check validates the flags that do not need the problem.
func (rf *runFlags) check(set map[string]bool) error {
	if rf.spaceFile == "" {
		if err := rf.x0Lazy.numbersErr("run"); err != nil {
			return err
		}
	}
	switch {
	case set["cmd"] && strings.TrimSpace(rf.command) == "":
		// An unset "$PROG" must not run the built-in problem instead.
		return usagef("-cmd %q is empty: want the program to optimise", rf.command)
	case rf.command != "" && set["f"]:
		return usagef("give -f or -cmd, not both")
	case rf.workers < 1 || rf.workers > es.MaxWorkers:
		return usagef("-workers %d: want 1 to %d", rf.workers, es.MaxWorkers)
	case rf.traceEvery < 0:
		return usagef("-trace-every %d: want at least 1, or 0 for the default", rf.traceEvery)
	case rf.maxTime < 0:
		return usagef("-max-time %v: want a positive duration, or 0 for no limit", rf.maxTime)
	case rf.evalTimeout < 0 || (rf.evalTimeout > 0 && rf.command == ""):
		return usagef("-eval-timeout %v: want a positive duration, with -cmd", rf.evalTimeout)
	case set["checkpoint-every"] && rf.checkpoint == "":
		return usagef("-checkpoint-every needs -checkpoint FILE")
	case rf.checkpointEvery < 1:
		return usagef("-checkpoint-every %d: want at least 1", rf.checkpointEvery)
	case rf.retries < 0 || rf.retries > es.MaxRetries:
		return usagef("-retries %d: want 0 to %d", rf.retries, es.MaxRetries)
	}
	if err := rf.checkNoise(set); err != nil {
		return err
	}
	if _, err := es.ParseOnError(rf.onError); err != nil {
		return usagef("-%v", err)
	}
	if rf.command != "" && !set["d"] && rf.spaceFile == "" {
		// The program's dimension: -d, the space's length, or what -x0, -lower, -upper or
		// -stds imply.
		d, err := rf.impliedDim()
		if err != nil {
			return err
		}
		if d == 0 {
			return usagef("-cmd needs -d, the dimension of the program's points (or -x0, or d numbers for -lower, -upper or -stds)")
		}
		rf.dim = d
	}
	if err := rf.outputFlags.check(); err != nil {
		return err
	}
	if err := rf.checkOutputs(); err != nil {
		return err
	}
	if err := rf.checkSpaceFlags(set); err != nil {
		return err
	}
	return checkDim(rf.dim)
}

// run starts the optimisation the flags describe and prints its summary.
func (rf *runFlags) run(ctx context.Context, stdout, stderr io.Writer) int {
	const name = "hees run"
	var (
		problem objectives.Problem
		box     float64 = commandBox
	)
	if rf.command == "" {
		p, err := objectives.Parse(rf.problem, rf.dim)
		if err != nil {
			return report(stderr, name, &usageError{err.Error()})
		}
		problem = p
		lo, hi := p.Bounds()
		box = max(-lo, hi) // the smallest box [-B, B]^d around the problem's
	}
	if rf.space != nil {
		rf.strategyFlags.x0 = nil // the space's values, read by spaceConfig
	} else {
		rf.warmStart(rf.inject, rf.dim)
	}
	cfg, err := rf.config(rf.dim, box)
	if err != nil {
		return report(stderr, name, err)
	}
	if rf.space != nil {
		if cfg, err = spaceConfig(cfg, rf.algo, rf.space, &rf.x0Lazy, rf.sigma0Given); err != nil {
			return report(stderr, name, err)
		}
		cfg = spaceWarmStart(cfg, rf.inject, rf.space, rf.x0Lazy.set, rf.sigma0Given)
	}
	s, err := rf.strategy(cfg)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	for _, file := range [][2]string{{"-trace", rf.trace}, {"-log", rf.log}} {
		if file[1] == "" {
			continue
		}
		if err := runlog.CheckDir(file[0], file[1]); err != nil {
			return report(stderr, name, err)
		}
	}
	settings := rf.settings(problem)
	readKnown := readInject
	if rf.space != nil {
		readKnown = func(path string, s es.Strategy, maxEvals int) ([][]float64, error) {
			return readSpaceInject(path, rf.space, s, maxEvals)
		}
	}
	inject, err := readKnown(rf.inject, s, settings.MaxEvals)
	if err != nil {
		return report(stderr, name, err)
	}
	if err := rf.checkBudget(s, settings.MaxEvals, len(inject)); err != nil {
		return report(stderr, name, err)
	}
	if settings.TraceEvery == 0 {
		hessian := problem != nil && es.TransformOf(s) != nil && objectives.HasHessian(problem)
		settings.TraceEvery = es.DefaultTraceInterval(s.Dim(), s.PopulationSize(), hessian)
	}
	var cp *checkpoint.Writer
	if rf.checkpoint != "" {
		// Resumed from anywhere, the run keeps this directory.
		if settings.Dir, err = os.Getwd(); err != nil {
			return report(stderr, name, err)
		}
		cp, err = checkpoint.Create(ctx, rf.checkpoint, rf.checkpointEvery, &settings, s, inject, runner.Metadata(&settings, problem, s))
		if err != nil {
			return report(stderr, name, err)
		}
		defer cp.Close()
	}
	return execute(ctx, name, &settings, problem, s, inject, cp, rf.outputFlags, stdout, stderr)
}

// warmStart starts the run where an earlier one left off when -inject
// FILE is an evaluation log (hees run -log) of a run in dimension dim:
// unless they are given, -x0 is its best point and -sigma0 the spread of
// its 2d best points around it, the root mean square of their distances
// to it per coordinate (readInject adds the best points as known points).
// It changes nothing for a list of points, or a file it cannot read, which
// readInject reports.
func (sf *strategyFlags) warmStart(path string, dim int) {
	if path == "" {
		return
	}
	rows, err := runlog.BestRows(path, dim, max(2*dim, 2))
	if err != nil || len(rows) == 0 {
		return
	}
	best, spread := logStart(rows, nil)
	if sf.x0 == nil {
		sf.x0 = best
	}
	if !sf.sigma0Given && spread > 0 {
		sf.sigma0, sf.sigma0Given = spread, true
	}
}

// logStart returns where a warm start from the best rows of a log begins:
// the best point, and the spread of the other rows around it, the root
// mean square of their distances to it per coordinate, coordinate i in
// units of scale[i] (nil: 1); 0 when that is not finite.
func logStart(rows []runlog.Row, scale []float64) (best []float64, spread float64) {
	best = rows[0].X
	var sum float64
	for _, r := range rows[1:] {
		for i, v := range r.X {
			u := v - best[i]
			if scale != nil {
				u /= scale[i]
			}
			sum += u * u
		}
	}
	if spread = math.Sqrt(sum / float64(max(len(rows)-1, 1)*len(best))); math.IsInf(spread, 0) || math.IsNaN(spread) {
		spread = 0
	}
	return best, spread
}

// readInject reads the known points of -inject FILE for strategy s (nil
// without FILE) and checks them as es.Run.Inject will in a run with the
// budget maxEvals, before anything runs: a point outside the box, or more
// points than the budget, is refused here, not after the run has started;
// the error names the flag. FILE is a list of points, or an evaluation log
// of a run in the same dimension (hees run -log), whose best points, as
// many as a generation of s, are the known points (a warm start; see
// warmStart).
func readInject(path string, s es.Strategy, maxEvals int) ([][]float64, error) {
	if path == "" {
		return nil, nil
	}
	rows, err := runlog.BestRows(path, s.Dim(), s.PopulationSize())
	var inject [][]float64
	switch {
	case err == nil:
		for _, r := range rows {
			inject = append(inject, r.X)
		}
	case errors.Is(err, runlog.ErrNotLog):
		inject, err = points.ReadList(path, s.Dim())
	}
	return checkInject(path, inject, err, s, maxEvals)
}

// checkInject returns the known points inject of -inject FILE, read with
// the error err, once es.Run.Inject takes them for s in a run with the
// budget maxEvals; an error names the flag.
func checkInject(path string, inject [][]float64, err error, s es.Strategy, maxEvals int) ([][]float64, error) {
	if err != nil {
		sep := " " // a bad line's error starts with the file's name
		if errors.As(err, new(*fs.PathError)) {
			sep = ": "
		}
		return nil, fmt.Errorf("-inject%s%w", sep, err)
	}
	run, err := es.NewRun(s, es.Limits{MaxEvals: maxEvals})
	if err == nil {
		err = run.Inject(inject) // a Run of its own: s is not changed
	}
	if err != nil {
		return nil, fmt.Errorf("-inject %s: %w", path, err)
	}
	return inject, nil
}

// settings returns the settings of the flags, with the defaults that depend
// on problem (nil with -cmd): the budget 10000*d and the target f* + 1e-8
// (none with -noise).
func (rf *runFlags) settings(problem objectives.Problem) checkpoint.Settings {
	rs := checkpoint.Settings{
		Algo:        rf.algo,
		Restarts:    rf.restarts,
		Seed:        rf.seed,
		Command:     rf.command,
		Dim:         rf.dim,
		MaxEvals:    budgetPerDim * rf.dim,
		Target:      rf.target.value,
		Workers:     rf.workers,
		MaxTime:     rf.maxTime,
		EvalTimeout: rf.evalTimeout,
		Trace:       rf.trace,
		TraceEvery:  rf.traceEvery,
		Retries:     rf.retries,
		Log:         rf.log,
	}
	rs.OnError, _ = es.ParseOnError(rf.onError) // checked by check
	if rf.space != nil {
		rs.Space, _ = rf.space.MarshalJSON() // a Space always marshals
	}
	if rf.format == runner.FormatJSON {
		rs.Format = runner.FormatJSON
	}
	if problem != nil {
		rs.Problem = rf.problem
	}
	if rf.maxEvals.set {
		rs.MaxEvals = rf.maxEvals.n
	}
	// With -noise, or on a noisy problem, the default is no target: a
	// noisy value, or an estimate from a few, reaches f* + 1e-8 by luck on
	// an additive noise (sphere:noise=add stopped with "target reached"
	// after 20 evaluations, 0.14 above f*).
	_, noisy := problem.(objectives.Noisy)
	if !rf.target.set && problem != nil && !rf.noise && !noisy {
		if _, fopt, ok := problem.Optimum(); ok {
			t := fopt + targetGap
			rs.Target = &t
		}
	}
	return rs
}

// execute runs strategy s (fresh, or restored by hees resume) with the
// settings rs on problem (nil with a command), evaluating the known points
// inject first, writes the checkpoints of cp (nil: none), and prints the
// summary. name prefixes the error lines.
func execute(ctx context.Context, name string, rs *checkpoint.Settings, problem objectives.Problem, s es.Strategy,
	inject [][]float64, cp *checkpoint.Writer, out outputFlags, stdout, stderr io.Writer) int {
	bar := statusline.New(stderr, out.quiet, out.verbose)
	res, failures, err := runner.Run(ctx, runner.Config{Settings: rs, Problem: problem, Strategy: s, Inject: inject,
		Checkpoint: cp, Display: bar, Warn: func(msg string) {
			erase := "" // a status line on a terminal is redrawn after the next generation
			if bar != nil && bar.Terminal() {
				erase = statusline.EraseLine
			}
			fmt.Fprintf(stderr, "%s%s: %s\n", erase, name, msg)
		}})
	if err != nil {
		status := report(stderr, name, err)
		if !cp.DiscardIfNew() {
			cp.PrintResumeHint(stderr, name)
		}
		return status
	}
	return printResult(name, rs, problem, s, res, failures, cp, out, stdout, stderr)
}

// printResult prints the summary of a run that ended with res and the
// failures, and returns the exit status: exitFailure when the run failed,
// was canceled, or evaluated no value below +Inf. With a checkpoint that
// the run can be continued from, it also says so on stderr.
func printResult(name string, rs *checkpoint.Settings, problem objectives.Problem, s es.Strategy, res es.Result,
	failures []error, cp *checkpoint.Writer, out outputFlags, stdout, stderr io.Writer) int {
	rep := newRunReport(rs, problem, s, res)
	status := exitOK
	if res.X == nil && res.Evals > 0 && len(failures) == 0 {
		// The run ended normally but has no result to give: every value
		// was NaN or +Inf (a broken objective, or an x0 where it overflows).
		failures = []error{fmt.Errorf("no evaluation of %d gave a value below +Inf (stop reason: %s)", res.Evals, res.Reason)}
	}
	if len(failures) > 0 {
		rep.Error = errors.Join(failures...).Error()
		status = exitFailure
	}
	if res.Reason == es.ReasonCanceled || res.Reason == es.ReasonCheckpointError || res.Reason == es.ReasonLogError {
		status = exitFailure
	}
	for _, err := range failures {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
	}
	cp.PrintResumeHint(stderr, name)
	if !out.json {
		printSummary(stdout, rs, &rep, res)
		return status
	}
	if code := printJSON(name, rep, stdout, stderr); code != exitOK {
		return code
	}
	return status
}

// printJSON prints v as one line of JSON, the -json output of the command
// name.
func printJSON(name string, v any, stdout, stderr io.Writer) int {
	data, err := json.Marshal(v)
	if err != nil {
		return report(stderr, name, err)
	}
	fmt.Fprintf(stdout, "%s\n", data)
	return exitOK
}

// newRunReport returns the summary of a finished run with the settings rs.
func newRunReport(rs *checkpoint.Settings, problem objectives.Problem, s es.Strategy, res es.Result) runReport {
	rep := runReport{
		Strategy:    s.Name(),
		Command:     rs.Command,
		Dim:         rs.Dim,
		Seed:        rs.Seed,
		MaxEvals:    rs.MaxEvals,
		Evals:       res.Evals,
		Generations: res.Generations,
		Restarts:    res.Restarts,
		Doublings:   res.Doublings,
		FBest:       jsonFloat(res.F),
		StopReason:  res.Reason,
		Version:     version.String(),
	}
	if problem != nil {
		rep.Problem = problem.Name()
	}
	if rs.Target != nil {
		t := jsonFloat(*rs.Target)
		rep.Target = &t
	}
	rep.XBest = jsonFloats(res.X)
	if values, params := bestParams(rs, res.X); values != nil {
		rep.XBest, rep.Params = values, params
	}
	if r := res.Recommendation; r.X != nil {
		rep.Recommendation = newRecReport(r)
		if values, params := bestParams(rs, r.X); values != nil {
			rep.Recommendation.X, rep.Recommendation.Params = values, params
		}
	}
	return rep
}

// jsonFloats returns x as jsonFloats, nil when x is empty.
func jsonFloats(x []float64) []jsonFloat {
	var out []jsonFloat
	for _, v := range x {
		out = append(out, jsonFloat(v))
	}
	return out
}

// formatBest writes the best point x of a summary, or says that there is
// none.
func formatBest(x []float64) string {
	if x == nil {
		return "none (no value below +Inf)"
	}
	return points.Format(x)
}

// printSummary writes the human summary of a run with the settings rs.
func printSummary(w io.Writer, rs *checkpoint.Settings, rep *runReport, res es.Result) {
	problem := rep.Problem
	if rep.Command != "" {
		problem = "command " + rep.Command
	}
	evals := fmt.Sprintf("%d in %d generations", rep.Evals, rep.Generations)
	if rep.Restarts > 0 {
		evals += fmt.Sprintf(", %d restarts", rep.Restarts)
	}
	evals += doubledText(rep.Doublings)
	fmt.Fprintf(w, "strategy     %s, seed %d\n", rep.Strategy, rep.Seed)
	fmt.Fprintf(w, "problem      %s, d = %d\n", problem, rep.Dim)
	fmt.Fprintf(w, "evaluations  %s\n", evals)
	fmt.Fprintf(w, "best value   %s\n", formatValue(res.F))
	fmt.Fprintf(w, "best x       %s\n", formatBestValues(rs, res.X))
	if r := rep.Recommendation; r != nil {
		// With noise the best value is the luckiest draw: the
		// recommendation is the point to use.
		fmt.Fprintf(w, "recommended  %s\n", recText(r))
		fmt.Fprintf(w, "at x         %s\n", formatBestValues(rs, res.Recommendation.X))
	}
	stop := string(rep.StopReason)
	if stop == "" {
		stop = "none yet" // the status of a checkpoint that can go on
	}
	fmt.Fprintf(w, "stop reason  %s\n", stop)
	fmt.Fprintf(w, "time         %v\n", res.Elapsed.Round(time.Millisecond))
}
