package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/coco"
	"github.com/hees-dev/hees/internal/svgplot"
	"github.com/hees-dev/hees/objectives"
)

const benchHelp = `Usage: hees bench -out DIR [flags]

Benchmarks strategies on COCO's noiseless bbob suite (24 functions, COCO's
instances, spec/BBOB.md) and writes, under DIR:

  <strategy>/             COCO data of the bbob observer (bbobexp_f<F>.info,
                          data_f<F>/bbobexp_f<F>_DIM<D>.dat, .tdat, .rdat),
                          for COCO's post-processing, such as
                          python -m cocopp DIR/ipop-hees DIR/ipop-cmaes
  summary.csv             per strategy, function and dimension: runs,
                          successes (runs that reached 1e-8) and the ERT to
                          the targets 1e1, 1e0, ..., 1e-8
  ecdf_d<D>.svg           per dimension, all strategies: the fraction of
                          (function, target) pairs solved against
                          log10(evaluations / d), 51 targets 10^[-8..2]
  ert_ratio_d<D>.md       per dimension, when hees and cmaes both run:
                          ERT(hees) / ERT(cmaes) per function at 1e1, 1e-1,
                          1e-3, 1e-5 and 1e-8
  runs/                   one record per finished run

Every (strategy, function, dimension, instance) is one run: the strategy
with its default parameters, sigma0 = -sigma0, the initial mean uniform in
[-5, 5]^d (the suite's region of interest), and the seed
FNV-1a-64("<strategy>/f<F>/d<D>/i<I>") (the plain strategy name, e.g.
"hees/f1/d2/i1", also with -restarts ipop, so an IPOP run follows the plain
run until its first restart). A run ends when it evaluates f - fopt <= 1e-8,
when the next generation would exceed -budget x d evaluations, or, without
restarts, when the strategy stops. With -restarts ipop a stopped strategy
restarts from a new mean uniform in [-5, 5]^d (the full HE-ES and CMA-ES
with a doubled population, the fixed-population strategies with the same)
until the target or the budget; the strategy's name then gets the prefix
"ipop-". Targets, logging triggers and the ERT are COCO's (internal/coco);
the ECDF counts the runs as they are, without the simulated restarts of
COCO's plots.

The runs are spread over -workers goroutines, one run per goroutine at a
time: the output does not depend on -workers. A bench stopped by Ctrl-C
keeps its finished runs in DIR/runs; the same command resumes it and does
not redo them. The final files are built from the records in a fixed order.

`

// defaultBenchAlgos are the strategies benchmarked by default, those of
// them that package es provides.
var defaultBenchAlgos = []string{"hees", "cmaes", "cma11"}

// bench is the configuration of a hees bench.
type bench struct {
	algos     []string // strategy names, as es.New takes them
	ipop      bool     // restart with IPOP
	functions []int
	dims      []int
	instances []int
	budget    float64 // evaluations per dimension
	sigma0    float64
	workers   int
	out       string
	verbose   bool
	quiet     bool
}

// benchFlags returns the flag set of hees bench bound to b.
func benchFlags(b *bench) (*flag.FlagSet, *benchLists) {
	fs := flag.NewFlagSet("hees bench", flag.ContinueOnError)
	lists := &benchLists{}
	var defaults []string
	for _, name := range defaultBenchAlgos {
		if slices.Contains(es.Names(), name) {
			defaults = append(defaults, name)
		}
	}
	fs.StringVar(&lists.algos, "algo", strings.Join(defaults, ","), "comma-separated `STRATEGIES`: "+strings.Join(es.Names(), ", "))
	fs.StringVar(&lists.suite, "suite", "bbob", "benchmark `SUITE`: only bbob")
	fs.StringVar(&lists.functions, "functions", "1-24", "`LIST` of functions, such as 1-24 or 1,2,5-9")
	fs.StringVar(&lists.dims, "dims", "2,3,5,10,20", "`LIST` of dimensions, at least 2")
	fs.StringVar(&lists.instances, "instances", "1-15", "`LIST` of instances")
	fs.StringVar(&lists.restarts, "restarts", "none", "restart `MODE`: none, or ipop (restarts until the target or the budget)")
	fs.Float64Var(&b.budget, "budget", 1e4, "evaluation budget per run, as a multiple `B` of the dimension")
	fs.Float64Var(&b.sigma0, "sigma0", 2, "initial step size `S`")
	fs.IntVar(&b.workers, "workers", 0, "number `W` of runs at a time; 0 means the number of CPUs")
	fs.StringVar(&b.out, "out", "", "output directory `DIR` (required)")
	fs.BoolVar(&b.verbose, "v", false, "show progress on standard error even when it is not a terminal")
	fs.BoolVar(&b.quiet, "q", false, "show no progress on standard error")
	return fs, lists
}

// benchLists holds the list flags before they are checked.
type benchLists struct {
	algos, suite, functions, dims, instances, restarts string
}

// runBench is the bench command.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var b bench
	fs, lists := benchFlags(&b)
	if status, done := parseFlags(fs, args, benchHelp, stdout, stderr); done {
		return status
	}
	if err := b.check(lists); err != nil {
		return report(stderr, "hees bench", err)
	}
	ctx, stop := signalContext()
	defer stop()
	return b.run(ctx, stdout, stderr)
}

// check validates the flags and fills b from the lists.
func (b *bench) check(l *benchLists) error {
	if l.suite != "bbob" {
		return usagef("-suite %q: only bbob is supported", l.suite)
	}
	for name := range strings.SplitSeq(l.algos, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(es.Names(), name) {
			return usagef("-algo: unknown strategy %q (want some of %s)", name, strings.Join(es.Names(), ", "))
		}
		if slices.Contains(b.algos, name) {
			return usagef("-algo: %s is given twice", name)
		}
		b.algos = append(b.algos, name)
	}
	switch l.restarts {
	case "none":
	case "ipop":
		b.ipop = true
	default:
		return usagef("-restarts %q: want none or ipop", l.restarts)
	}
	var err error
	if b.functions, err = parseIntList("-functions", l.functions, 1, objectives.BBOBFunctions); err != nil {
		return err
	}
	if b.dims, err = parseIntList("-dims", l.dims, 2, objectives.MaxMatrixDim); err != nil {
		return err
	}
	if b.instances, err = parseIntList("-instances", l.instances, 1, objectives.MaxBBOBInstance); err != nil {
		return err
	}
	switch {
	case !(b.budget > 0) || b.budget*float64(slices.Max(b.dims)) > 1<<40:
		return usagef("-budget %v: want a positive multiple of the dimension, at most 2^40 evaluations", b.budget)
	case !(b.sigma0 > 0) || math.IsInf(b.sigma0, 1):
		return usagef("-sigma0 %v: want a positive finite number", b.sigma0)
	case b.workers < 0:
		return usagef("-workers %d: want 0 (the number of CPUs) or more", b.workers)
	case b.out == "":
		return usagef("-out is required: the directory of the results")
	case b.quiet && b.verbose:
		return usagef("-q and -v exclude each other")
	}
	return nil
}

// parseIntList reads a comma-separated list of integers and ranges A-B,
// each in [lo, hi], in the given order and without repetition.
func parseIntList(flagName, s string, lo, hi int) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		first, last, isRange := strings.Cut(item, "-")
		a, errA := strconv.Atoi(first)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(last)
		}
		if errA != nil || errB != nil || a > b {
			return nil, usagef("%s: %q is not a number or a range A-B", flagName, item)
		}
		if a < lo || b > hi {
			return nil, usagef("%s: %q is outside %d-%d", flagName, item, lo, hi)
		}
		for v := a; v <= b; v++ {
			if slices.Contains(out, v) {
				return nil, usagef("%s: %d is given twice", flagName, v)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// benchJob is one run of a bench.
type benchJob struct {
	algo        string // es strategy name
	label       string // folder and legend name: the strategy's Name()
	fn, dim, in int
}

// seed is the run's master seed: FNV-1a-64 of "<algo>/f<F>/d<D>/i<I>".
func (j benchJob) seed() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/f%d/d%d/i%d", j.algo, j.fn, j.dim, j.in)
	return h.Sum64()
}

// recordPath is the run's record under out.
func (j benchJob) recordPath(out string) string {
	return filepath.Join(out, "runs", j.label, fmt.Sprintf("f%d_d%d_i%d.txt", j.fn, j.dim, j.in))
}

// label returns the folder and legend name of strategy algo: its Name(),
// "ipop-<algo>" with restarts.
func (b *bench) label(algo string) string {
	if b.ipop {
		return es.IPOPName(algo)
	}
	return algo
}

// jobs lists the runs in the order of the output: strategy, function,
// dimension, instance as given on the command line.
func (b *bench) jobs() []benchJob {
	var jobs []benchJob
	for _, a := range b.algos {
		for _, f := range b.functions {
			for _, d := range b.dims {
				for _, i := range b.instances {
					jobs = append(jobs, benchJob{algo: a, label: b.label(a), fn: f, dim: d, in: i})
				}
			}
		}
	}
	return jobs
}

// maxEvals is the budget of a run in dimension dim.
func (b *bench) maxEvals(dim int) int {
	return int(b.budget * float64(dim))
}

// benchRecord is what DIR/runs keeps of a finished run: the settings that
// made it, how it ended, and the COCO record.
type benchRecord struct {
	strategy string
	seed     uint64
	budget   int // evaluations
	sigma0   float64
	reason   es.Reason
	restarts int
	run      coco.Run
}

// recordMagic starts a record file.
const recordMagic = "hees bench run 1"

// marshal writes the record: its settings as "key value" lines, an empty
// line, and the COCO run.
func (r *benchRecord) marshal() ([]byte, error) {
	text, err := r.run.MarshalText()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nstrategy %s\nseed %d\nbudget %d\nsigma0 %s\nreason %s\nrestarts %d\n\n",
		recordMagic, r.strategy, r.seed, r.budget, strconv.FormatFloat(r.sigma0, 'x', -1, 64), r.reason, r.restarts)
	b.Write(text)
	return b.Bytes(), nil
}

// unmarshalRecord reads a record written by marshal.
func unmarshalRecord(data []byte) (*benchRecord, error) {
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	lines := strings.Split(string(head), "\n")
	if !ok || len(lines) != 7 || lines[0] != recordMagic {
		return nil, errors.New("not a hees bench run record")
	}
	values := map[string]string{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, " ")
		values[k] = v
	}
	r := &benchRecord{strategy: values["strategy"], reason: es.Reason(values["reason"])}
	var errs [4]error
	r.seed, errs[0] = strconv.ParseUint(values["seed"], 10, 64)
	r.budget, errs[1] = strconv.Atoi(values["budget"])
	r.sigma0, errs[2] = strconv.ParseFloat(values["sigma0"], 64)
	r.restarts, errs[3] = strconv.Atoi(values["restarts"])
	if err := errors.Join(errs[:]...); err != nil || r.strategy == "" || r.reason == "" {
		return nil, fmt.Errorf("bad settings in the record: %v", err)
	}
	if err := r.run.UnmarshalText(body); err != nil {
		return nil, err
	}
	return r, nil
}

// errSettings marks a record made with other settings than the bench's.
var errSettings = errors.New("made with other settings")

// load reads the record of job under b.out. It returns nil, nil when there
// is none, and an error for a record that is damaged or was made with other
// settings (another budget, sigma0 or seed).
func (b *bench) load(j benchJob) (*benchRecord, error) {
	path := j.recordPath(b.out)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := unmarshalRecord(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	want := coco.Problem{Function: j.fn, Instance: j.in, Dim: j.dim, Fopt: r.run.Fopt}
	if r.strategy != j.label || r.seed != j.seed() || r.budget != b.maxEvals(j.dim) || r.sigma0 != b.sigma0 || r.run.Problem != want {
		return nil, fmt.Errorf("%s: %w (strategy %s, budget %d evaluations, sigma0 %v; this bench: %s, %d, %v): remove %s or use another -out",
			path, errSettings, r.strategy, r.budget, r.sigma0, j.label, b.maxEvals(j.dim), b.sigma0, filepath.Join(b.out, "runs"))
	}
	return r, nil
}

// observed is a BBOB problem whose evaluations go to a COCO observer. The
// run evaluates with one worker, so the observer sees the evaluations of a
// generation in row order.
type observed struct {
	problem  objectives.Problem
	observer *coco.Observer
}

// Eval evaluates the problem at x and reports the evaluation to the
// observer.
func (o *observed) Eval(x []float64) float64 {
	f := o.problem.Eval(x)
	o.observer.Observe(x, f)
	return f
}

// errInterrupted reports a run stopped by a cancel.
var errInterrupted = errors.New("interrupted")

// runJob performs one run and returns its record. It returns errInterrupted
// when ctx was canceled during the run.
func (b *bench) runJob(ctx context.Context, j benchJob) (*benchRecord, error) {
	p, err := objectives.NewBBOB(j.fn, j.in, j.dim)
	if err != nil {
		return nil, err
	}
	_, fopt, _ := p.Optimum()
	_, box := p.Bounds()
	obs, err := coco.NewObserver(coco.Problem{Function: j.fn, Instance: j.in, Dim: j.dim, Fopt: fopt})
	if err != nil {
		return nil, err
	}
	cfg := es.Config{Dim: j.dim, Seed: j.seed(), Sigma0: b.sigma0, Box: box}
	var s es.Strategy
	if b.ipop {
		s, err = es.NewIPOP(j.algo, cfg, es.IPOPConfig{})
	} else {
		s, err = es.New(j.algo, cfg)
	}
	if err != nil {
		return nil, err
	}
	target := coco.SuccessThreshold(fopt)
	restarts := 0
	opt := es.Options{
		Workers:  1,
		MaxEvals: b.maxEvals(j.dim),
		Target:   &target,
		Progress: func(pr es.Progress) {
			// A restart happened in this generation's Tell: the next
			// evaluation is the first of the new run (.rdat line).
			if pr.Restarts > restarts {
				restarts = pr.Restarts
				obs.Restart()
			}
		},
	}
	res, err := es.Minimize(ctx, &observed{p, obs}, s, opt)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s on f%d instance %d d=%d: %w", j.label, j.fn, j.in, j.dim, err)
	case res.Reason == es.ReasonCanceled:
		return nil, errInterrupted
	case res.Evals == 0:
		return nil, fmt.Errorf("%s on f%d d=%d: the budget of %d evaluations is smaller than the first generation", j.label, j.fn, j.dim, opt.MaxEvals)
	case res.Evals != obs.Evals():
		return nil, fmt.Errorf("%s on f%d instance %d d=%d: the strategy counts %d evaluations, the observer %d", j.label, j.fn, j.in, j.dim, res.Evals, obs.Evals())
	}
	return &benchRecord{
		strategy: j.label, seed: j.seed(), budget: opt.MaxEvals, sigma0: b.sigma0,
		reason: res.Reason, restarts: res.Restarts, run: *obs.Finish(),
	}, nil
}

// run performs the bench: the runs that have no record yet, then the
// output files from all records.
func (b *bench) run(ctx context.Context, stdout, stderr io.Writer) int {
	jobs := b.jobs()
	// Every record is checked before any work, so that a bench with other
	// settings stops at once.
	records := make([]*benchRecord, len(jobs))
	var todo []int
	for i, j := range jobs {
		r, err := b.load(j)
		if err != nil {
			return report(stderr, "hees bench", err)
		}
		records[i] = r
		if r == nil {
			todo = append(todo, i)
		}
	}
	// Larger dimensions first: they take longest, and the pool ends sooner.
	slices.SortStableFunc(todo, func(x, y int) int { return jobs[y].dim - jobs[x].dim })

	workers := poolSize(b.workers, len(todo))
	prog := newBenchProgress(stderr, b.quiet, b.verbose, len(jobs), len(jobs)-len(todo))
	err := runJobs(ctx, len(todo), workers, func(ctx context.Context, k int) error {
		j := jobs[todo[k]]
		prog.started(j)
		r, err := b.runJob(ctx, j)
		if err == nil {
			err = b.save(j, r)
		}
		if errors.Is(err, errInterrupted) {
			return nil // the caller's context is done: no further job starts
		}
		if err != nil {
			return err
		}
		records[todo[k]] = r
		prog.finished(j)
		return nil
	})
	prog.stop()
	if err != nil {
		return report(stderr, "hees bench", err)
	}
	if done := prog.done.Load(); int(done) < len(jobs) {
		fmt.Fprintf(stderr, "hees bench: interrupted with %d of %d runs finished (kept in %s); run the same command again to resume\n",
			done, len(jobs), filepath.Join(b.out, "runs"))
		return exitFailure
	}
	if err := b.writeOutputs(stdout, jobs, records); err != nil {
		return report(stderr, "hees bench", err)
	}
	return exitOK
}

// save writes the record of a finished run atomically.
func (b *bench) save(j benchJob, r *benchRecord) error {
	data, err := r.marshal()
	if err != nil {
		return err
	}
	path := j.recordPath(b.out)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// writeOutputs builds the COCO data, the summary, the ECDF plots and the
// ERT ratio tables from the records (in job order) and reports them.
func (b *bench) writeOutputs(stdout io.Writer, jobs []benchJob, records []*benchRecord) error {
	runs := map[string][]*coco.Run{} // by label
	var labels []string
	for i, j := range jobs {
		if _, ok := runs[j.label]; !ok {
			labels = append(labels, j.label)
		}
		runs[j.label] = append(runs[j.label], &records[i].run)
	}
	write := func(rel string, data []byte) error {
		path := filepath.Join(b.out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return atomicfile.WriteFile(path, data, 0o644)
	}

	var summaries []coco.Summary
	for _, label := range labels {
		comment := fmt.Sprintf("hees bench: %s, sigma0 %g, m0 uniform in [-5, 5]^d, budget %g*d evaluations, seed FNV-1a-64(\"<strategy>/f<F>/d<D>/i<I>\")",
			label, b.sigma0, b.budget)
		files, err := coco.Files(label, comment, runs[label])
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := write(label+"/"+f.Path, f.Data); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote COCO data of %s: %s (%d files)\n", label, filepath.Join(b.out, label), len(files))
		summaries = append(summaries, coco.Summarize(label, runs[label])...)
	}
	var csv bytes.Buffer
	if err := coco.WriteSummaryCSV(&csv, summaries); err != nil {
		return err
	}
	if err := write("summary.csv", csv.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(b.out, "summary.csv"))

	dims := slices.Sorted(slices.Values(b.dims))
	for _, d := range dims {
		byLabel := map[string][]*coco.Run{}
		for _, label := range labels {
			for _, r := range runs[label] {
				if r.Dim == d {
					byLabel[label] = append(byLabel[label], r)
				}
			}
		}
		svg, err := b.ecdfFigure(d, labels, byLabel)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("ecdf_d%d.svg", d)
		if err := write(name, svg); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(b.out, name))
		heesLabel, cmaLabel := b.label("hees"), b.label("cmaes")
		if byLabel[heesLabel] != nil && byLabel[cmaLabel] != nil {
			name := fmt.Sprintf("ert_ratio_d%d.md", d)
			if err := write(name, b.ratioTable(d, heesLabel, cmaLabel, byLabel)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(b.out, name))
		}
	}
	b.printSolved(stdout, dims, labels, runs)
	return nil
}

// ecdfFigure draws the runtime ECDFs of the strategies in dimension d.
func (b *bench) ecdfFigure(d int, labels []string, byLabel map[string][]*coco.Run) ([]byte, error) {
	panel := svgplot.Panel{
		Title:  fmt.Sprintf("%d targets 10^[-8..2], %s, budget %g·d", coco.NumTargets, b.gridText(), b.budget),
		XLabel: "log10(evaluations / d)",
		YLabel: "fraction of (function, target) pairs",
		YRange: svgplot.Range{Min: -0.02, Max: 1.02},
	}
	for _, label := range labels {
		x, y := thinSteps(coco.ECDF(byLabel[label]))
		panel.Series = append(panel.Series, svgplot.Series{Name: label, X: x, Y: y, Style: svgplot.Step})
	}
	fig := svgplot.Figure{
		Title:  fmt.Sprintf("BBOB runtime ECDF, d = %d", d),
		Width:  820,
		Height: 520,
		Panels: []svgplot.Panel{panel},
	}
	var buf bytes.Buffer
	if err := fig.WriteSVG(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ecdfResolution is the smallest distance, in log10(evaluations / d),
// between two corners of a plotted ECDF: about 0.7 pixel in the 820-pixel
// figure.
const ecdfResolution = 0.005

// thinSteps drops corners of a step function (x increasing) so that the
// plot keeps a few thousand points instead of one per (run, target) pair:
// a corner is dropped when the next one lies within ecdfResolution of the
// last corner kept, so the steps of the dropped corners happen at the next
// kept one, less than ecdfResolution later. The thinned curve is never
// above the exact one. The first and last corners are kept.
func thinSteps(x, y []float64) ([]float64, []float64) {
	if len(x) < 3 {
		return x, y
	}
	tx, ty := []float64{x[0]}, []float64{y[0]}
	for i := 1; i < len(x); i++ {
		if i+1 < len(x) && x[i+1]-tx[len(tx)-1] < ecdfResolution {
			continue
		}
		tx, ty = append(tx, x[i]), append(ty, y[i])
	}
	return tx, ty
}

// gridText names the functions and instances of the bench ("f1-24, 15
// instances").
func (b *bench) gridText() string {
	return fmt.Sprintf("f%s, %d instance%s", listText(b.functions), len(b.instances), plural(len(b.instances)))
}

// listText writes a list of integers with runs of consecutive values as
// ranges: 1-5,7.
func listText(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		} else {
			parts = append(parts, strconv.Itoa(v[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ratioLevels are the targets of the ERT ratio tables: 1e1, 1e-1, 1e-3,
// 1e-5 and 1e-8.
var ratioLevels = []int{5, -5, -15, -25, -40}

// ratioTable writes the markdown table of ERT(hees)/ERT(cmaes) per function
// in dimension d.
func (b *bench) ratioTable(d int, hees, cma string, byLabel map[string][]*coco.Run) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# ERT ratio %s / %s, d = %d\n\n", hees, cma, d)
	fmt.Fprintf(&buf, "hees bench, BBOB %s, budget %g·d evaluations. Each cell is ERT(%s) / ERT(%s) "+
		"to reach f − fopt ≤ the target: below 1, HE-ES needed fewer evaluations. "+
		"∞: only %s reached the target; 0: only %s did; —: neither. "+
		"In parentheses, the runs that reached the target (%s/%s) when not all did.\n\n",
		b.gridText(), b.budget, hees, cma, cma, hees, hees, cma)
	buf.WriteString("| f |")
	for _, k := range ratioLevels {
		fmt.Fprintf(&buf, " 1e%d |", k/coco.TargetsPerDecade)
	}
	buf.WriteString("\n| ---: |")
	for range ratioLevels {
		buf.WriteString(" ---: |")
	}
	buf.WriteByte('\n')
	wins := make([]int, len(ratioLevels))
	both := make([]int, len(ratioLevels))
	for _, f := range b.functions {
		h, c := functionRuns(byLabel[hees], f), functionRuns(byLabel[cma], f)
		fmt.Fprintf(&buf, "| %d |", f)
		for col, k := range ratioLevels {
			eh, sh := coco.ERT(h, k)
			ec, sc := coco.ERT(c, k)
			var cell string
			switch {
			case sh == 0 && sc == 0:
				cell = "—"
			case sh == 0:
				cell = "∞"
			case sc == 0:
				cell = "0"
			default:
				ratio := eh / ec
				cell = strconv.FormatFloat(ratio, 'g', 3, 64)
				both[col]++
				if ratio < 1 {
					wins[col]++
				}
			}
			if (sh > 0 || sc > 0) && (sh < len(h) || sc < len(c)) {
				cell += fmt.Sprintf(" (%d/%d)", sh, sc)
			}
			fmt.Fprintf(&buf, " %s |", cell)
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("\nRatio below 1, of the functions where both reached the target:")
	for col, k := range ratioLevels {
		if col > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, " 1e%d: %d of %d", k/coco.TargetsPerDecade, wins[col], both[col])
	}
	buf.WriteString(".\n")
	return buf.Bytes()
}

// functionRuns returns the runs of function f.
func functionRuns(runs []*coco.Run, f int) []*coco.Run {
	var out []*coco.Run
	for _, r := range runs {
		if r.Function == f {
			out = append(out, r)
		}
	}
	return out
}

// printSolved writes, per strategy and dimension, how many runs reached
// 1e-8 and the final value of the ECDF.
func (b *bench) printSolved(w io.Writer, dims []int, labels []string, runs map[string][]*coco.Run) {
	for _, label := range labels {
		for _, d := range dims {
			var rs []*coco.Run
			solved := 0
			for _, r := range runs[label] {
				if r.Dim == d {
					rs = append(rs, r)
					if r.Solved() {
						solved++
					}
				}
			}
			_, y := coco.ECDF(rs)
			fmt.Fprintf(w, "%-12s d=%-3d %4d of %4d runs reached 1e-8, %5.1f%% of (function, target) pairs\n",
				label, d, solved, len(rs), 100*y[len(y)-1])
		}
	}
}

// benchProgress reports the progress of a bench on standard error: a status
// line redrawn at most 4 times a second on a terminal, or with -v elsewhere
// a line at most once a second.
type benchProgress struct {
	w        io.Writer
	terminal bool
	total    int
	earlier  int          // runs finished before this command
	done     atomic.Int64 // runs finished, earlier ones included
	mu       sync.Mutex
	running  map[benchJob]bool
	last     benchJob
	start    time.Time
	quit     chan struct{}
	exited   chan struct{}
	enabled  bool
}

// newBenchProgress starts the progress report (a goroutine) unless it is
// off: with quiet, and when w is not a terminal unless verbose.
func newBenchProgress(w io.Writer, quiet, verbose bool, total, earlier int) *benchProgress {
	p := &benchProgress{w: w, total: total, earlier: earlier, running: map[benchJob]bool{}, start: time.Now()}
	p.done.Store(int64(earlier))
	p.terminal = isTerminal(w)
	if quiet || (!p.terminal && !verbose) {
		return p
	}
	p.enabled = true
	every := logRefresh
	if p.terminal {
		every = terminalRefresh
	}
	p.quit, p.exited = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.exited)
		tick := time.NewTicker(every)
		defer tick.Stop()
		lastDone := int64(-1)
		for {
			select {
			case <-p.quit:
				return
			case <-tick.C:
				if d := p.done.Load(); p.terminal || d != lastDone {
					p.show()
					lastDone = d
				}
			}
		}
	}()
	return p
}

func (p *benchProgress) started(j benchJob) {
	p.mu.Lock()
	p.running[j] = true
	p.last = j
	p.mu.Unlock()
}

func (p *benchProgress) finished(j benchJob) {
	p.mu.Lock()
	delete(p.running, j)
	p.mu.Unlock()
	p.done.Add(1)
}

// show writes the status: runs done, the run started last, elapsed time
// and a rough estimate of the time left from this command's pace.
func (p *benchProgress) show() {
	p.mu.Lock()
	last, running := p.last, len(p.running)
	p.mu.Unlock()
	done := int(p.done.Load())
	elapsed := time.Since(p.start)
	line := fmt.Sprintf("bench: %d/%d runs", done, p.total)
	if p.earlier > 0 {
		line += fmt.Sprintf(" (%d from before)", p.earlier)
	}
	if running > 0 {
		line += fmt.Sprintf(", %d running, latest %s f%d d%d i%d", running, last.label, last.fn, last.dim, last.in)
	}
	line += fmt.Sprintf(", %s", elapsed.Round(time.Second))
	if now := done - p.earlier; now > 0 && done < p.total {
		left := time.Duration(float64(elapsed) / float64(now) * float64(p.total-done))
		line += fmt.Sprintf(", ~%s left", left.Round(time.Second))
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// stop ends the report: it clears the status line of a terminal, and
// writes a last line elsewhere.
func (p *benchProgress) stop() {
	if !p.enabled {
		return
	}
	close(p.quit)
	<-p.exited
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	} else {
		p.show()
	}
}
