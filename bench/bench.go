// Package bench runs a BBOB benchmark of the strategies of package es: every
// (strategy, function, dimension, instance) of a Grid is one run on one of
// COCO's suites (the noiseless bbob by default; bbob-largescale, bbob-mixint
// and bbob-noisy too), recorded as COCO's bbob observer does (package
// objectives provides the functions), and Grid.Run writes, under Grid.Out,
// the COCO data for COCO's post-processing, a summary of the expected
// running times, the runtime ECDF per dimension, the ERT ratio of hees to
// cmaes per function, and each strategy's ERT ratio to COCO's reference
// algorithms best 2009 and best 2009-2016 at 1e-7 per function with its
// geometric mean per dimension. docs/BBOB.md describes the suite and the
// measures.
//
// The runs are spread over Grid.Workers goroutines and do not depend on
// their number. Each finished run is kept in Out/runs, so that a bench
// interrupted by a cancel resumes where it stopped when run again.
package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/coco"
	"github.com/hees-dev/hees/internal/refalg"
	"github.com/hees-dev/hees/internal/svgplot"
	"github.com/hees-dev/hees/internal/version"
	"github.com/hees-dev/hees/internal/workpool"
	"github.com/hees-dev/hees/objectives"
)

// Grid is a benchmark: every strategy on every function, dimension and
// instance, each run with the strategy's default parameters, the initial
// step size Sigma0, the initial mean uniform in [-5, 5]^d (the suite's
// region of interest), and the seed Job.Seed. A run ends when it evaluates
// f - fopt <= 1e-8, when the next generation would exceed Budget·d
// evaluations, or, without restarts, when the strategy stops. With a
// restart scheme (es.RestartsIPOP, es.RestartsBIPOP) a stopped strategy
// restarts (es.NewRestarting) until the target or the budget. With Lower
// or Upper every run is confined to that box (es.Config.Bounds).
type Grid struct {
	// Suite is the COCO suite of the runs, one of objectives.Suites();
	// "" means "bbob". On bbob-mixint every run is confined to the
	// problem's domains (its integer coordinates to their ranges) unless
	// Lower or Upper give a box; on bbob-noisy a run evaluates noisy values
	// (the noise keyed by the run's seed and the evaluation's number),
	// while the record, the targets and the stop at 1e-8 use the
	// noise-free values, as COCO's do.
	Suite string
	// Strategies are es strategy names, such as "hees" and "cmaes".
	Strategies []string
	// Restarts are the restart schemes: every strategy runs with each
	// scheme that supports it (es.Restarts.Supports: BIPOP only for the
	// strategies with a population). Empty means es.RestartsNone.
	Restarts []es.Restarts
	// Functions (1 to 24; 101 to 130 for bbob-noisy), Dims (at least 2;
	// what the suite accepts) and Instances are the problems, in the order
	// of the output.
	Functions, Dims, Instances []int
	// Budget is the evaluation budget of a run, a multiple of the
	// dimension.
	Budget float64
	// Sigma0 is the initial step size.
	Sigma0 float64
	// Lower and Upper, when either is not nil, are the box of every run
	// (es.Config.Bounds): each is nil (that side open), one number for
	// every coordinate, or one per coordinate when Dims holds a single
	// dimension; -Inf and +Inf open a side of a coordinate. The runs keep
	// Sigma0 and draw their initial mean uniformly in the box where a
	// coordinate has both sides (docs/ALGORITHMS.md Section 14). Without
	// them a run is exactly the one of a bench without bounds.
	Lower, Upper []float64
	// Margin, on bbob-mixint without Lower and Upper, makes the integer
	// coordinates of the problem discrete for the strategies that take
	// them (es.Info.Margin: es.Config.Steps 1 on each, with the
	// strategy's default margin, docs/ALGORITHMS.md Section 19) instead
	// of leaving the rounding to the problem; their labels end in
	// "-margin", their seeds are those of the runs without it.
	Margin bool
	// Pairs and Lambda set the population of every strategy as
	// es.Config's fields of those names do (0: the default); a strategy
	// that has no such field is an error of Run.
	Pairs, Lambda int
	// Workers is the number of runs at a time; 0 means the number of CPUs.
	Workers int
	// Out is the output directory.
	Out string
	// Progress, when not nil, is told of the runs.
	Progress Progress
}

// Progress receives the progress of Grid.Run. Started and Finished are
// called from the goroutines of the runs, so they must be safe for
// concurrent use.
type Progress interface {
	// Begin is called once before the runs: total runs, of which done
	// were finished by an earlier Run.
	Begin(total, done int)
	// Started and Finished are called when a run starts and when its
	// record is saved.
	Started(Job)
	Finished(Job)
	// End is called once after the runs, before the output is written.
	End()
}

// InterruptedError is the error of a Run whose context was canceled before
// every run finished; the finished runs are kept in Dir.
type InterruptedError struct {
	// Done runs of Total are finished.
	Done, Total int
	// Dir is the directory of the records, Out/runs.
	Dir string
}

// Error says how many runs are finished and where they are kept.
func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted with %d of %d runs finished (kept in %s); run the same bench again to resume", e.Done, e.Total, e.Dir)
}

// Job is one run of a Grid.
type Job struct {
	// Strategy is the es strategy name, Label the folder and legend name:
	// the strategy's Name() (with restarts, its wrapper's, such as
	// "bipop-hees").
	Strategy, Label string
	// Restarts is the restart scheme of the run.
	Restarts es.Restarts
	// Function, Dim and Instance name the BBOB problem.
	Function, Dim, Instance int
}

// Seed is the run's master seed: FNV-1a-64 of
// "<strategy>/f<F>/d<D>/i<I>" (the plain strategy name, also with
// restarts, so a run with restarts follows the plain run until its first
// restart).
func (j Job) Seed() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/f%d/d%d/i%d", j.Strategy, j.Function, j.Dim, j.Instance)
	return h.Sum64()
}

// recordPath is the run's record under out.
func (j Job) recordPath(out string) string {
	return filepath.Join(out, "runs", j.Label, fmt.Sprintf("f%d_d%d_i%d.txt", j.Function, j.Dim, j.Instance))
}

// schemes returns the restart schemes of the grid, es.RestartsNone when
// Restarts is empty.
func (g *Grid) schemes() []es.Restarts {
	if len(g.Restarts) == 0 {
		return []es.Restarts{es.RestartsNone}
	}
	return g.Restarts
}

// Jobs lists the runs in the order of the output: strategy, restart
// scheme, function, dimension, instance as given in the Grid, without the
// schemes that do not support a strategy.
func (g *Grid) Jobs() []Job {
	var jobs []Job
	for _, a := range g.Strategies {
		for _, r := range g.schemes() {
			if !r.Supports(a) {
				continue
			}
			for _, f := range g.Functions {
				for _, d := range g.Dims {
					for _, i := range g.Instances {
						jobs = append(jobs, Job{Strategy: a, Label: g.label(a, r), Restarts: r, Function: f, Dim: d, Instance: i})
					}
				}
			}
		}
	}
	return jobs
}

// margin reports whether the runs of strategy name have discrete
// coordinates (Margin).
func (g *Grid) margin(name string) bool {
	info, err := es.Lookup(name)
	return g.Margin && err == nil && info.Margin
}

// label is the label of the runs of strategy name with the restarts r:
// the strategy's Name(), with "-margin" when its runs have discrete
// coordinates.
func (g *Grid) label(name string, r es.Restarts) string {
	if g.margin(name) {
		return r.Name(name) + "-margin"
	}
	return r.Name(name)
}

// MaxEvals is the budget of a run in dimension dim.
func (g *Grid) MaxEvals(dim int) int {
	return int(g.Budget * float64(dim))
}

// record is what DIR/runs keeps of a finished run: the settings that
// made it, how it ended, and the COCO record.
type record struct {
	suite    string // "" for bbob
	strategy string
	seed     uint64
	budget   int // evaluations
	sigma0   float64
	reason   es.Reason
	restarts int
	pairs    int       // 0: the default
	lambda   int       // 0: the default
	lower    []float64 // nil: no bounds (the Grid's, expanded to d numbers)
	upper    []float64
	run      coco.Run
}

// recordMagic starts a record file.
const recordMagic = "hees bench run 1"

// marshal writes the record: its settings as "key value" lines, an empty
// line, and the COCO run.
func (r *record) marshal() ([]byte, error) {
	text, err := r.run.MarshalText()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nstrategy %s\nseed %d\nbudget %d\nsigma0 %s\nreason %s\nrestarts %d\n",
		recordMagic, r.strategy, r.seed, r.budget, strconv.FormatFloat(r.sigma0, 'x', -1, 64), r.reason, r.restarts)
	// The population lines only when set, so that the records of a
	// default population read the same as before they existed.
	if r.pairs != 0 {
		fmt.Fprintf(&b, "pairs %d\n", r.pairs)
	}
	if r.lambda != 0 {
		fmt.Fprintf(&b, "lambda %d\n", r.lambda)
	}
	// Likewise the suite, and the box.
	if r.suite != "" {
		fmt.Fprintf(&b, "suite %s\n", r.suite)
	}
	for _, side := range []struct {
		key string
		v   []float64
	}{{"lower", r.lower}, {"upper", r.upper}} {
		if side.v != nil {
			fmt.Fprintf(&b, "%s %s\n", side.key, formatFloats(side.v))
		}
	}
	b.WriteByte('\n')
	b.Write(text)
	return b.Bytes(), nil
}

// unmarshalRecord reads a record written by marshal.
func unmarshalRecord(data []byte) (*record, error) {
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	lines := strings.Split(string(head), "\n")
	if !ok || len(lines) < 7 || len(lines) > 12 || lines[0] != recordMagic {
		return nil, errors.New("not a hees bench run record")
	}
	values := map[string]string{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, " ")
		values[k] = v
	}
	r := &record{suite: values["suite"], strategy: values["strategy"], reason: es.Reason(values["reason"])}
	var errs [8]error
	r.seed, errs[0] = strconv.ParseUint(values["seed"], 10, 64)
	r.budget, errs[1] = strconv.Atoi(values["budget"])
	r.sigma0, errs[2] = strconv.ParseFloat(values["sigma0"], 64)
	r.restarts, errs[3] = strconv.Atoi(values["restarts"])
	if v, ok := values["pairs"]; ok {
		r.pairs, errs[4] = strconv.Atoi(v)
	}
	if v, ok := values["lambda"]; ok {
		r.lambda, errs[5] = strconv.Atoi(v)
	}
	if v, ok := values["lower"]; ok {
		r.lower, errs[6] = parseFloats(v)
	}
	if v, ok := values["upper"]; ok {
		r.upper, errs[7] = parseFloats(v)
	}
	if err := errors.Join(errs[:]...); err != nil || r.strategy == "" || r.reason == "" {
		return nil, fmt.Errorf("bad settings in the record: %v", err)
	}
	if err := r.run.UnmarshalText(body); err != nil {
		return nil, err
	}
	// Settings that contradict the run: an edited record.
	if _, err := es.ParseReason(string(r.reason)); err != nil {
		return nil, fmt.Errorf("bad settings in the record: %v", err)
	}
	if r.restarts < 0 || r.run.Evals > r.budget {
		return nil, fmt.Errorf("bad settings in the record: %d restarts, %d evaluations for a budget of %d", r.restarts, r.run.Evals, r.budget)
	}
	return r, nil
}

// formatFloats writes v as comma-separated hexadecimal floats (exact).
func formatFloats(v []float64) string {
	words := make([]string, len(v))
	for i, x := range v {
		words[i] = strconv.FormatFloat(x, 'x', -1, 64)
	}
	return strings.Join(words, ",")
}

// parseFloats reads what formatFloats wrote.
func parseFloats(s string) ([]float64, error) {
	words := strings.Split(s, ",")
	v := make([]float64, len(words))
	for i, w := range words {
		var err error
		if v[i], err = strconv.ParseFloat(w, 64); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// CheckBudget reports a budget, a multiple of the dimension, that is not
// positive, exceeds 2^40 evaluations in the largest of dims (not empty),
// or gives none in the smallest (MaxEvals = int(Budget d) = 0 would be no budget at all:
// runs without end, records of budget 0). The error starts with the
// budget, for the caller to name it.
func CheckBudget(budget float64, dims []int) error {
	switch {
	case !(budget > 0) || budget*float64(slices.Max(dims)) > 1<<40:
		return fmt.Errorf("%v: want a positive multiple of the dimension, at most 2^40 evaluations", budget)
	case budget*float64(slices.Min(dims)) < 1:
		return fmt.Errorf("%v gives no evaluation in d = %d: want at least 1/d", budget, slices.Min(dims))
	}
	return nil
}

// errSettings marks a record made with other settings than the bench's.
var errSettings = errors.New("made with other settings")

// maxRecordSize bounds the record files that load reads: a record holds
// the summary of one run, a few kilobytes.
const maxRecordSize = 64 << 20

// load reads the record of job under g.Out. It returns nil, nil when there
// is none, and an error for a record that is damaged or was made with other
// settings (another budget, sigma0 or seed).
func (g *Grid) load(j Job) (*record, error) {
	path := j.recordPath(g.Out)
	data, err := boundedfile.Read(path, maxRecordSize)
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
	want := coco.Problem{Function: j.Function, Instance: j.Instance, Dim: j.Dim, Fopt: r.run.Fopt}
	lower, upper := g.box(j.Dim)
	if r.suite != g.recordSuite() || r.strategy != j.Label || r.seed != j.Seed() || r.budget != g.MaxEvals(j.Dim) || r.sigma0 != g.Sigma0 || r.run.Problem != want ||
		r.pairs != g.Pairs || r.lambda != g.Lambda || !slices.Equal(r.lower, lower) || !slices.Equal(r.upper, upper) {
		return nil, fmt.Errorf("%s: %w (suite %s, strategy %s, budget %d evaluations, sigma0 %v, pairs %d, lambda %d, lower %v, upper %v; this bench: %s, %s, %d, %v, %d, %d, %v, %v): remove %s or use another -out",
			path, errSettings, cmp.Or(r.suite, "bbob"), r.strategy, r.budget, r.sigma0, r.pairs, r.lambda, r.lower, r.upper,
			g.suite(), j.Label, g.MaxEvals(j.Dim), g.Sigma0, g.Pairs, g.Lambda, lower, upper, filepath.Join(g.Out, "runs"))
	}
	return r, nil
}

// box returns the Grid's Lower and Upper for dimension d, each expanded
// to d numbers (nil for an absent side).
func (g *Grid) box(d int) (lower, upper []float64) {
	expand := func(v []float64) []float64 {
		if len(v) != 1 {
			return slices.Clone(v)
		}
		out := make([]float64, d)
		for i := range out {
			out[i] = v[0]
		}
		return out
	}
	return expand(g.Lower), expand(g.Upper)
}

// domainSteps returns es.Config.Steps for the per-coordinate domains of p:
// 1 on each integer coordinate, 0 on the others; nil for a problem
// without integer coordinates.
func domainSteps(p objectives.Problem) []float64 {
	steps := make([]float64, p.Dim())
	for i, d := range objectives.DomainsOf(p) {
		if d.Integer {
			steps[i] = 1
		}
	}
	if !slices.Contains(steps, 1) {
		return nil
	}
	return steps
}

// domainBounds returns the box of the per-coordinate domains of p
// (objectives.Domains: bbob-mixint's integer ranges), nil for a problem
// without them.
func domainBounds(p objectives.Problem) *es.Bounds {
	if _, ok := p.(objectives.Domains); !ok {
		return nil
	}
	domains := objectives.DomainsOf(p)
	b := &es.Bounds{Lower: make([]float64, len(domains)), Upper: make([]float64, len(domains))}
	for i, d := range domains {
		b.Lower[i], b.Upper[i] = d.Lo, d.Hi
	}
	return b
}

// suite returns the Grid's suite, "bbob" for "".
func (g *Grid) suite() string { return cmp.Or(g.Suite, "bbob") }

// recordSuite is the suite a record names: "" for bbob, whose records
// name none (as before other suites existed).
func (g *Grid) recordSuite() string {
	if g.suite() == "bbob" {
		return ""
	}
	return g.Suite
}

// boxBounds returns the box lower, upper (Grid.box) as es.Bounds, nil
// without one.
func boxBounds(lower, upper []float64) *es.Bounds {
	if lower == nil && upper == nil {
		return nil
	}
	return &es.Bounds{Lower: lower, Upper: upper}
}

// observed is a test problem whose evaluations go to a COCO observer. The
// run evaluates with one worker, so the observer sees the evaluations of a
// generation in row order. With bounds it counts the points outside them
// (none is expected: the strategies map every candidate into the box).
type observed struct {
	problem  objectives.Problem
	observer *coco.Observer
	bounds   *es.Bounds
	outside  int
}

// Eval evaluates the problem at x and reports the evaluation to the
// observer.
func (o *observed) Eval(x []float64) float64 {
	if !o.bounds.Contains(x) {
		o.outside++
	}
	f := o.problem.Eval(x)
	o.observer.Observe(x, f)
	return f
}

// observedNoisy is a noisy test problem whose evaluations go to a COCO
// observer: the strategy is told the noisy value of the keyed evaluation
// (es.KeyedProblem; the noise is drawn from the run's seed and the key),
// the observer gets the noise-free value, as COCO's logger does.
type observedNoisy struct {
	*observed
	noisy objectives.Noisy
	seed  uint64
}

// EvalKeyed evaluates the key-th evaluation at x, reports its noise-free
// value to the observer and returns the noisy one.
func (o *observedNoisy) EvalKeyed(x []float64, key uint64) float64 {
	if !o.bounds.Contains(x) {
		o.outside++
	}
	o.observer.Observe(x, o.noisy.Noiseless(x))
	return o.noisy.EvalKeyed(x, o.seed, key)
}

// errInterrupted reports a run stopped by a cancel.
var errInterrupted = errors.New("interrupted")

// runJob performs one run and returns its record. It returns errInterrupted
// when ctx was canceled during the run.
func (g *Grid) runJob(ctx context.Context, j Job) (*record, error) {
	p, err := objectives.NewSuiteProblem(g.suite(), j.Function, j.Instance, j.Dim)
	if err != nil {
		return nil, err
	}
	_, fopt, _ := p.Optimum()
	_, box := p.Bounds()
	obs, err := coco.NewObserver(coco.Problem{Function: j.Function, Instance: j.Instance, Dim: j.Dim, Fopt: fopt})
	if err != nil {
		return nil, err
	}
	lower, upper := g.box(j.Dim) // the grid's box, which the record keeps
	bounds := boxBounds(lower, upper)
	if bounds == nil {
		bounds = domainBounds(p)
	}
	cfg := es.Config{Dim: j.Dim, Seed: j.Seed(), Sigma0: g.Sigma0, Box: box, Bounds: bounds, Pairs: g.Pairs, Lambda: g.Lambda}
	if g.margin(j.Strategy) {
		cfg.Steps = domainSteps(p)
	}
	s, err := es.NewRestarting(j.Strategy, j.Restarts, cfg, 0)
	if err != nil {
		return nil, err
	}
	target := coco.SuccessThreshold(fopt)
	restarts := 0
	opt := es.Options{
		Workers:  1,
		MaxEvals: g.MaxEvals(j.Dim),
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
	o := &observed{problem: p, observer: obs, bounds: bounds}
	var eval es.Problem = o
	if noisy, ok := p.(objectives.Noisy); ok {
		// The target is on the noise-free values the observer sees.
		eval = &observedNoisy{observed: o, noisy: noisy, seed: j.Seed()}
		opt.Target = nil
		opt.Stop = func(es.Progress) es.Reason {
			if obs.BestDelta() <= coco.FinalTarget {
				return es.ReasonTarget
			}
			return ""
		}
	}
	res, err := es.Minimize(ctx, eval, s, opt)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s on f%d instance %d d=%d: %w", j.Label, j.Function, j.Instance, j.Dim, err)
	case res.Reason == es.ReasonCanceled:
		return nil, errInterrupted
	case res.Evals == 0:
		return nil, fmt.Errorf("%s on f%d d=%d: the budget of %d evaluations is smaller than the first generation", j.Label, j.Function, j.Dim, opt.MaxEvals)
	case res.Evals != obs.Evals():
		return nil, fmt.Errorf("%s on f%d instance %d d=%d: the strategy counts %d evaluations, the observer %d", j.Label, j.Function, j.Instance, j.Dim, res.Evals, obs.Evals())
	case o.outside > 0:
		return nil, fmt.Errorf("%s on f%d instance %d d=%d: %d evaluated points lie outside the bounds", j.Label, j.Function, j.Instance, j.Dim, o.outside)
	}
	return &record{
		suite: g.recordSuite(), strategy: j.Label, seed: j.Seed(), budget: opt.MaxEvals, sigma0: g.Sigma0,
		reason: res.Reason, restarts: res.Restarts, pairs: g.Pairs, lambda: g.Lambda,
		lower: lower, upper: upper, run: *obs.Finish(),
	}, nil
}

// Run performs the runs of the grid that have no record in Out/runs yet,
// larger dimensions first, then writes the output files from all records,
// names them on w, and prints a summary there. It stops at the first failed run, and with an
// *InterruptedError when ctx is canceled before every run finished. A
// record made with other settings (budget, Sigma0, seed) is an error found
// before any run. Run holds the lock file Out/runs/.lock: another Run on
// the same Out at the same time is an error; under it, Run removes the
// temporary files that a killed bench left next to the files it writes.
func (g *Grid) Run(ctx context.Context, w io.Writer) error {
	if err := g.check(); err != nil {
		return err
	}
	unlock, err := g.lockOut(ctx)
	if err != nil {
		return err
	}
	locked := unlock != nil
	if locked {
		defer unlock()
	}
	jobs := g.Jobs()
	// Every record is checked before any work, so that a bench with other
	// settings stops at once.
	records := make([]*record, len(jobs))
	var todo []int
	for i, j := range jobs {
		if locked {
			// Under the lock no other bench writes here: a temporary file
			// is one of a killed bench's writes.
			atomicfile.RemoveStaleTemps(j.recordPath(g.Out)) // best effort: a leftover is only clutter
		}
		r, err := g.load(j)
		if err != nil {
			return err
		}
		records[i] = r
		if r == nil {
			todo = append(todo, i)
		}
	}
	// Larger dimensions first: they take longest, and the pool ends sooner.
	slices.SortStableFunc(todo, func(x, y int) int { return jobs[y].Dim - jobs[x].Dim })

	prog := g.Progress
	if prog == nil {
		prog = noProgress{}
	}
	var done atomic.Int64
	done.Store(int64(len(jobs) - len(todo)))
	prog.Begin(len(jobs), len(jobs)-len(todo))
	err = workpool.Run(ctx, len(todo), workpool.Size(g.Workers, len(todo)), func(ctx context.Context, k int) error {
		j := jobs[todo[k]]
		prog.Started(j)
		r, err := g.runJob(ctx, j)
		if err == nil {
			err = g.save(j, r)
		}
		if errors.Is(err, errInterrupted) {
			return nil // the caller's context is done: no further job starts
		}
		if err != nil {
			return err
		}
		records[todo[k]] = r
		done.Add(1)
		prog.Finished(j)
		return nil
	})
	prog.End()
	if err != nil {
		return err
	}
	if n := int(done.Load()); n < len(jobs) {
		return &InterruptedError{Done: n, Total: len(jobs), Dir: filepath.Join(g.Out, "runs")}
	}
	return g.writeOutputs(w, jobs, records, locked)
}

// lockWait is how long Run waits for the lock of its output directory:
// its holder is a running bench, so waiting longer would only delay the
// error.
const lockWait = 100 * time.Millisecond

// lockOut takes the lock file Out/runs/.lock, so that two benches never
// write the same files, and returns its unlock; on a system without file
// locks it returns a nil unlock and no error, and Run goes on without the
// lock (and without removing stale temporary files).
func (g *Grid) lockOut(ctx context.Context) (func() error, error) {
	dir := filepath.Join(g.Out, "runs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ".lock")
	// A canceled ctx is found by the runs, which then report how many
	// finished; the short wait for the lock does not depend on it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lockWait)
	defer cancel()
	unlock, err := atomicfile.Lock(ctx, path)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return nil, nil
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("bench: %s is in use by another bench (%s is locked)", g.Out, path)
	}
	return unlock, err
}

// check reports a Grid that cannot run.
func (g *Grid) check() error {
	if err := g.checkSuite(); err != nil {
		return err
	}
	for _, name := range g.Strategies {
		if !slices.Contains(es.Names(), name) {
			return fmt.Errorf("bench: unknown strategy %q (want some of %s)", name, strings.Join(es.Names(), ", "))
		}
		if g.Pairs != 0 || g.Lambda != 0 {
			// The library's rules on the population, which do not
			// depend on the dimension.
			if _, err := es.New(name, es.Config{Dim: 2, Pairs: g.Pairs, Lambda: g.Lambda}); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
		}
	}
	for i, r := range g.Restarts {
		if _, err := es.ParseRestarts(string(r)); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if slices.Contains(g.Restarts[:i], r) {
			return fmt.Errorf("bench: restarts %q given twice", r)
		}
	}
	switch {
	case len(g.Strategies) == 0 || len(g.Functions) == 0 || len(g.Dims) == 0 || len(g.Instances) == 0:
		return errors.New("bench: the grid is empty (no strategy, function, dimension or instance)")
	case len(g.Jobs()) == 0:
		return fmt.Errorf("bench: no strategy of %s supports the restarts %v", strings.Join(g.Strategies, ", "), g.Restarts)
	}
	if err := CheckBudget(g.Budget, g.Dims); err != nil {
		return fmt.Errorf("bench: Budget %w", err)
	}
	switch {
	case !(g.Sigma0 > 0) || math.IsInf(g.Sigma0, 1):
		return fmt.Errorf("bench: Sigma0 %v: want a positive finite number", g.Sigma0)
	case g.Workers < 0:
		return fmt.Errorf("bench: Workers %d: want 0 (the number of CPUs) or more", g.Workers)
	case g.Out == "":
		return errors.New("bench: no output directory Out")
	case g.Margin && (g.suite() != "bbob-mixint" || g.Lower != nil || g.Upper != nil):
		return errors.New("bench: Margin is for bbob-mixint in the problems' own domains (no Lower, no Upper)")
	}
	return g.checkBounds()
}

// checkSuite reports an unknown suite, a function outside its numbers, and
// a dimension it does not take (its first function is built in each).
func (g *Grid) checkSuite() error {
	i := slices.IndexFunc(objectives.Suites(), func(s objectives.Suite) bool { return s.Name == g.suite() })
	if i < 0 {
		_, err := objectives.NewSuiteProblem(g.suite(), 1, 1, 2)
		return fmt.Errorf("bench: %w", err)
	}
	s := objectives.Suites()[i]
	for _, f := range g.Functions {
		if f < s.First || f > s.Last {
			return fmt.Errorf("bench: function %d is not one of %s's, %d to %d", f, s.Name, s.First, s.Last)
		}
	}
	for _, d := range g.Dims {
		if _, err := objectives.NewSuiteProblem(s.Name, s.First, 1, d); err != nil {
			return fmt.Errorf("bench: dimension %d: %w", d, err)
		}
	}
	return nil
}

// checkBounds reports Lower and Upper that are no box in some dimension of
// the grid.
func (g *Grid) checkBounds() error {
	for _, side := range []struct {
		name string
		v    []float64
	}{{"Lower", g.Lower}, {"Upper", g.Upper}} {
		if side.v != nil && len(side.v) != 1 && (len(g.Dims) != 1 || len(side.v) != g.Dims[0]) {
			return fmt.Errorf("bench: %s has %d numbers, want 1, or d with a single dimension in Dims", side.name, len(side.v))
		}
	}
	for _, d := range g.Dims {
		if err := boxBounds(g.box(d)).Check(d); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// noProgress is the Progress of a Grid without one.
type noProgress struct{}

func (noProgress) Begin(int, int) {}
func (noProgress) Started(Job)    {}
func (noProgress) Finished(Job)   {}
func (noProgress) End()           {}

// save writes the record of a finished run atomically.
func (g *Grid) save(j Job, r *record) error {
	data, err := r.marshal()
	if err != nil {
		return err
	}
	// Run removed the record's stale temporary files before it started.
	return writeFile(j.recordPath(g.Out), data, false)
}

// writeFile writes data to path atomically, creating its directory. With
// removeStale (under the lock of Out) it first removes the temporary files
// that a killed bench left of path.
func writeFile(path string, data []byte, removeStale bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if removeStale {
		atomicfile.RemoveStaleTemps(path) // best effort: a leftover is only clutter
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// writeOutputs builds the COCO data, the summary, the ECDF plots, the ERT
// ratio tables and the tables of ratios to the reference algorithms from
// the records (in job order) and reports them; it ends with how many runs
// reached 1e-8 and the geometric means of the ratios to the references.
// Under the lock of Out (locked), it first removes the temporary files
// that a killed bench left of each.
func (g *Grid) writeOutputs(stdout io.Writer, jobs []Job, records []*record, locked bool) error {
	runs := map[string][]*coco.Run{} // by label
	var labels []string
	for i, j := range jobs {
		if _, ok := runs[j.Label]; !ok {
			labels = append(labels, j.Label)
		}
		runs[j.Label] = append(runs[j.Label], &records[i].run)
	}
	write := func(rel string, data []byte) error {
		return writeFile(filepath.Join(g.Out, filepath.FromSlash(rel)), data, locked)
	}
	// writeReported writes a file at the top of Out and says so.
	writeReported := func(name string, data []byte) error {
		if err := write(name, data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(g.Out, name))
		return nil
	}

	v := version.String()
	var summaries []coco.Summary
	for _, label := range labels {
		m0 := "m0 uniform in [-5, 5]^d"
		if g.suite() == "bbob-mixint" && g.Lower == nil && g.Upper == nil {
			m0 = "m0 uniform in the domains, the box of every run"
			if strings.HasSuffix(label, "-margin") {
				m0 += ", integer coordinates discrete with the margin"
			}
		}
		comment := fmt.Sprintf("hees bench: %s, sigma0 %g, %s, budget %g*d evaluations, seed FNV-1a-64(\"<strategy>/f<F>/d<D>/i<I>\")%s",
			label, g.Sigma0, m0, g.Budget, g.boxText(", m0 drawn in the box where it has both sides, bounds ", ","))
		header := coco.Header{Version: v, Settings: fmt.Sprintf("algorithm=%s sigma0=%g budget=%g*d%s", label, g.Sigma0, g.Budget, g.boxText(" bounds=", ";")),
			Suite: g.suite()}
		files, err := coco.FilesWithHeader(label, comment, header, runs[label])
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := write(label+"/"+f.Path, f.Data); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote COCO data of %s: %s (%d files)\n", label, filepath.Join(g.Out, label), len(files))
		summaries = append(summaries, coco.Summarize(label, runs[label])...)
	}
	var csv bytes.Buffer
	if err := coco.WriteSummaryCSV(&csv, summaries); err != nil {
		return err
	}
	if err := writeReported("summary.csv", csv.Bytes()); err != nil {
		return err
	}

	references := g.references()
	refs := make([]*refalg.Algorithm, len(references))
	for i, ref := range references {
		var err error
		if refs[i], err = refalg.Load(ref.name); err != nil {
			return err
		}
	}
	var refMeans bytes.Buffer // the console lines of the comparisons
	dims := slices.Sorted(slices.Values(g.Dims))
	for _, d := range dims {
		byLabel := map[string][]*coco.Run{}
		for _, label := range labels {
			for _, r := range runs[label] {
				if r.Dim == d {
					byLabel[label] = append(byLabel[label], r)
				}
			}
		}
		svg, err := g.ecdfFigure(d, labels, byLabel)
		if err != nil {
			return err
		}
		if err := writeReported(fmt.Sprintf("ecdf_d%d.svg", d), svg); err != nil {
			return err
		}
		var tables [][]byte
		for _, r := range g.schemes() {
			for _, label := range g.ratioLabels(r) {
				baseLabel := g.label(es.Baseline, r)
				if byLabel[label] != nil && byLabel[baseLabel] != nil {
					tables = append(tables, g.ratioTable(d, v, label, baseLabel, byLabel))
				}
			}
		}
		if tables != nil {
			if err := writeReported(fmt.Sprintf("ert_ratio_d%d.md", d), bytes.Join(tables, []byte("\n"))); err != nil {
				return err
			}
		}
		for i, ref := range references {
			comps, err := compareWithReference(refs[i], d, labels, byLabel)
			if err != nil {
				return err
			}
			if err := writeReported(fmt.Sprintf("%s_ratio_d%d.md", ref.title, d), g.refTable(ref, d, v, comps)); err != nil {
				return err
			}
			printRefMeans(&refMeans, ref, d, comps)
		}
	}
	g.printSolved(stdout, dims, labels, runs)
	_, err := refMeans.WriteTo(stdout)
	return err
}

// ecdfFigure draws the runtime ECDFs of the strategies in dimension d.
func (g *Grid) ecdfFigure(d int, labels []string, byLabel map[string][]*coco.Run) ([]byte, error) {
	panel := svgplot.Panel{
		Title:  fmt.Sprintf("%d targets 10^[-8..2], %s, budget %g·d", coco.NumTargets, g.gridText(), g.Budget),
		XLabel: "log10(evaluations / d)",
		YLabel: "fraction of (function, target) pairs",
		YRange: svgplot.Range{Min: -0.02, Max: 1.02},
	}
	for _, label := range labels {
		x, y := thinSteps(coco.ECDF(byLabel[label]))
		panel.Series = append(panel.Series, svgplot.Series{Name: label, X: x, Y: y, Style: svgplot.Step})
	}
	fig := svgplot.Figure{
		Title:  fmt.Sprintf("%s runtime ECDF, d = %d", g.suiteTitle(), d),
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

// suiteTitle names the suite in the titles of the output: "BBOB" for
// bbob, as before other suites existed, else the suite's name.
func (g *Grid) suiteTitle() string {
	if g.suite() == "bbob" {
		return "BBOB"
	}
	return g.suite()
}

// gridText names the functions and instances of the bench ("f1-24, 15
// instances"), and its bounds when it has them.
func (g *Grid) gridText() string {
	instances := "instances"
	if len(g.Instances) == 1 {
		instances = "instance"
	}
	return fmt.Sprintf("f%s, %d %s%s", listText(g.Functions), len(g.Instances), instances, g.boxText(", bounds ", ","))
}

// boxText returns prefix followed by the bounds as lower:upper, each side
// a number or a list joined by sep ("-5:5", "-inf:1,2"), or "" without
// bounds. (COCO's header line separates its fields by commas, so its
// settings take another sep.)
func (g *Grid) boxText(prefix, sep string) string {
	if g.Lower == nil && g.Upper == nil {
		return ""
	}
	side := func(v []float64, open float64) string {
		if v == nil {
			v = []float64{open}
		}
		words := make([]string, len(v))
		for i, x := range v {
			words[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strings.Join(words, sep)
	}
	return prefix + side(g.Lower, math.Inf(-1)) + ":" + side(g.Upper, math.Inf(1))
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

// ratioLabels returns the labels of the runs with the scheme r that the
// ERT ratio tables compare with es.Baseline: the strategies of the grid
// with a population (es.Info.Population), the baseline aside.
func (g *Grid) ratioLabels(r es.Restarts) []string {
	var labels []string
	for _, name := range g.Strategies {
		if info, err := es.Lookup(name); err == nil && info.Population != es.PopulationFixed && name != es.Baseline {
			labels = append(labels, g.label(name, r))
		}
	}
	return labels
}

// ratioTable writes the markdown table of ERT(a)/ERT(base) per function
// in dimension d, headed by the bench's settings and hees's version v.
func (g *Grid) ratioTable(d int, v, a, base string, byLabel map[string][]*coco.Run) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# ERT ratio %s / %s, d = %d\n\n", a, base, d)
	fmt.Fprintf(&buf, "hees %s bench, %s %s, budget %g·d evaluations. Each cell is ERT(%s) / ERT(%s) "+
		"to reach f − fopt ≤ the target: below 1, %s needed fewer evaluations. "+
		"∞: only %s reached the target; 0: only %s did; —: neither. "+
		"In parentheses, the runs that reached the target (%s/%s) when not all did.\n\n",
		v, g.suiteTitle(), g.gridText(), g.Budget, a, base, a, base, a, a, base)
	heads := make([]string, len(ratioLevels))
	for i, k := range ratioLevels {
		heads[i] = fmt.Sprintf("1e%d", k/coco.TargetsPerDecade)
	}
	writeTableHead(&buf, heads)
	wins := make([]int, len(ratioLevels))
	both := make([]int, len(ratioLevels))
	for _, f := range g.Functions {
		h, c := functionRuns(byLabel[a], f), functionRuns(byLabel[base], f)
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

// writeTableHead writes the head of a markdown table of one row per
// function: the column f, then a column per head, all aligned right.
func writeTableHead(buf *bytes.Buffer, heads []string) {
	buf.WriteString("| f |")
	for _, h := range heads {
		fmt.Fprintf(buf, " %s |", h)
	}
	buf.WriteString("\n| ---: |")
	for range heads {
		buf.WriteString(" ---: |")
	}
	buf.WriteByte('\n')
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
func (g *Grid) printSolved(w io.Writer, dims []int, labels []string, runs map[string][]*coco.Run) {
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
