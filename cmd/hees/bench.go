package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/bench"
	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/statusline"
	"github.com/hees-dev/hees/objectives"
)

const benchHelp = `Usage: hees bench -out DIR [flags]

Benchmarks strategies on COCO's noiseless bbob suite (24 functions, COCO's
instances, docs/BBOB.md) and writes, under DIR:

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
                          1e-3, 1e-5 and 1e-8 (one table per restart mode)
  best2009_ratio_d<D>.md  per dimension, each strategy's ERT / ERT(best
                          2009) per function at 1e-7, the ratio cocopp's
                          tables show, and its geometric mean over the
                          functions the strategy solved; best 2009 is
                          COCO's reference algorithm, per function,
                          dimension and target the best of the 31
                          algorithms of BBOB-2009
  best09-16_ratio_d<D>.md the same against best 2009-2016
  runs/                   one record per finished run

Every (strategy, function, dimension, instance) is one run: the strategy
with its default parameters (with -pairs or -lambda, the population they
set; the records keep it, and a bench with another one needs another -out),
sigma0 = -sigma0, the initial mean uniform in
[-5, 5]^d (the suite's region of interest), and the seed
FNV-1a-64("<strategy>/f<F>/d<D>/i<I>") (the plain strategy name, e.g.
"hees/f1/d2/i1", also with restarts, so a run with restarts follows the
plain run until its first restart). A run ends when it evaluates
f - fopt <= 1e-8, when the next generation would exceed -budget x d
evaluations, or, without restarts, when the strategy stops. With -restarts
ipop a stopped strategy restarts from a new mean uniform in [-5, 5]^d (the
full HE-ES and CMA-ES with a doubled population, the fixed-population
strategies with the same) until the target or the budget; the strategy's
name then gets the prefix "ipop-". -restarts bipop (hees and cmaes only)
alternates such doubled populations with small ones, a random smaller
population and sigma0, balancing the evaluations of the two regimes
(Hansen's BIPOP); the prefix is "bipop-". -restarts ipop,bipop runs every
strategy with each mode that applies to it. Targets, logging triggers and
the ERT are COCO's (internal/coco); the ECDF counts the runs as they are,
without the simulated restarts of COCO's plots. The .info files carry
hees's version (hees version) in coco_version, the ratio tables in their
heading.

At the end, hees bench prints per strategy and dimension the runs that
reached 1e-8, and the geometric means of ERT / ERT(best 2009) and
ERT / ERT(best 2009-2016) at 1e-7, with the number of functions in each
mean and of those only the reference solved.

With -lower and -upper (as on hees run) every evaluated point of every run
lies in that box; sigma0 stays -sigma0 and x0 is drawn in the box.

The runs are spread over -workers goroutines, one run per goroutine at a
time: the output does not depend on -workers. A bench stopped by Ctrl-C
keeps its finished runs in DIR/runs; the same command resumes it and does
not redo them. The final files are built from the records in a fixed order.

`

// defaultBenchAlgos are the strategies benchmarked by default, those of
// them that package es provides.
var defaultBenchAlgos = []string{"hees", "cmaes", "cma11"}

// benchFlags returns the flag set of hees bench bound to b.
func benchFlags(b *benchSettings) (*flag.FlagSet, *benchLists) {
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
	fs.StringVar(&lists.restarts, "restarts", "none", "comma-separated restart `MODES`: none, ipop, bipop (restarts until the target or the budget)")
	fs.Float64Var(&b.Budget, "budget", 1e4, "evaluation budget per run, as a multiple `B` of the dimension")
	fs.Float64Var(&b.Sigma0, "sigma0", 2, "initial step size `S`")
	fs.StringVar(&lists.lower, "lower", "", "lower bounds `L` of every run, as on hees run (d numbers only with a single -dims); the runs keep -sigma0")
	fs.StringVar(&lists.upper, "upper", "", "upper bounds `U` of every run, as on hees run")
	fs.IntVar(&b.Pairs, "pairs", 0, "with -algo hees alone, `N` mirrored pairs (0: the default)")
	fs.IntVar(&b.Lambda, "lambda", 0, "with -algo cmaes alone, the population size `N` (0: the default)")
	fs.IntVar(&b.Workers, "workers", 0, "number `W` of runs at a time; 0 means the number of CPUs")
	fs.StringVar(&b.Out, "out", "", "output directory `DIR` (required)")
	fs.BoolVar(&b.verbose, "v", false, "show progress on standard error even when it is not a terminal")
	fs.BoolVar(&b.quiet, "q", false, "show no progress on standard error")
	return fs, lists
}

// benchSettings are the settings of a hees bench: the grid and the
// progress flags.
type benchSettings struct {
	bench.Grid
	verbose bool
	quiet   bool
}

// benchLists holds the list flags before they are checked.
type benchLists struct {
	algos, suite, functions, dims, instances, restarts string
	lower, upper                                       string
}

// runBench is the bench command.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var b benchSettings
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

// run performs the bench with its progress on stderr and returns the exit
// status.
func (b *benchSettings) run(ctx context.Context, stdout, stderr io.Writer) int {
	b.Progress = statusline.NewBench(stderr, b.quiet, b.verbose)
	err := b.Run(ctx, stdout)
	var interrupted *bench.InterruptedError
	if errors.As(err, &interrupted) {
		fmt.Fprintf(stderr, "hees bench: interrupted with %d of %d runs finished (kept in %s); run the same command again to resume\n",
			interrupted.Done, interrupted.Total, interrupted.Dir)
		return exitFailure
	}
	if err != nil {
		return report(stderr, "hees bench", err)
	}
	return exitOK
}

// check validates the flags and fills b from the lists.
func (b *benchSettings) check(l *benchLists) error {
	if l.suite != "bbob" {
		return usagef("-suite %q: only bbob is supported", l.suite)
	}
	for name := range strings.SplitSeq(l.algos, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(es.Names(), name) {
			return usagef("-algo: unknown strategy %q (want some of %s)", name, strings.Join(es.Names(), ", "))
		}
		if slices.Contains(b.Strategies, name) {
			return usagef("-algo: %s is given twice", name)
		}
		b.Strategies = append(b.Strategies, name)
	}
	for mode := range strings.SplitSeq(l.restarts, ",") {
		r, err := es.ParseRestarts(strings.TrimSpace(mode))
		if err != nil {
			return usagef("-%v", err)
		}
		if slices.Contains(b.Restarts, r) {
			return usagef("-restarts: %s is given twice", r)
		}
		b.Restarts = append(b.Restarts, r)
	}
	var err error
	if b.Functions, err = parseIntList("-functions", l.functions, 1, objectives.BBOBFunctions); err != nil {
		return err
	}
	if b.Dims, err = parseIntList("-dims", l.dims, 2, objectives.MaxMatrixDim); err != nil {
		return err
	}
	if b.Instances, err = parseIntList("-instances", l.instances, 1, objectives.MaxBBOBInstance); err != nil {
		return err
	}
	if b.Lower, b.Upper, err = benchBounds(l.lower, l.upper, b.Dims); err != nil {
		return err
	}
	switch {
	case !(b.Budget > 0) || b.Budget*float64(slices.Max(b.Dims)) > 1<<40:
		return usagef("-budget %v: want a positive multiple of the dimension, at most 2^40 evaluations", b.Budget)
	case !(b.Sigma0 > 0) || math.IsInf(b.Sigma0, 1):
		return usagef("-sigma0 %v: want a positive finite number", b.Sigma0)
	case b.Pairs < 0 || (b.Pairs > 0 && !onlyStrategy(b.Strategies, "hees")):
		return usagef("-pairs %d: want a positive count, with -algo hees alone", b.Pairs)
	case b.Lambda < 0 || b.Lambda == 1 || (b.Lambda > 0 && !onlyStrategy(b.Strategies, "cmaes")):
		return usagef("-lambda %d: want a population size of at least 2, with -algo cmaes alone", b.Lambda)
	case b.Workers < 0:
		return usagef("-workers %d: want 0 (the number of CPUs) or more", b.Workers)
	case b.Out == "":
		return usagef("-out is required: the directory of the results")
	case b.quiet && b.verbose:
		return usagef("-q and -v exclude each other")
	}
	return nil
}

// benchBounds reads -lower and -upper as hees run does: one number for
// every coordinate, or d numbers when dims holds the single dimension d.
// The box is checked in every dimension of the bench.
func benchBounds(lower, upper string, dims []int) ([]float64, []float64, error) {
	for _, value := range []string{lower, upper} {
		if strings.Contains(value, ",") && len(dims) > 1 {
			return nil, nil, usagef("-lower/-upper: a list of d numbers needs a single -dims")
		}
	}
	sf := strategyFlags{lower: lower, upper: upper}
	var sides [2][]float64
	for _, d := range dims {
		b, _, err := sf.bounds(d)
		if err != nil {
			return nil, nil, err
		}
		if b != nil {
			sides = [2][]float64{b.Lower, b.Upper}
		}
	}
	for i, value := range []string{lower, upper} {
		if !strings.Contains(value, ",") && sides[i] != nil {
			sides[i] = sides[i][:1] // one number: the Grid gives it to every coordinate
		}
	}
	return sides[0], sides[1], nil
}

// onlyStrategy reports whether name is the only strategy of names.
func onlyStrategy(names []string, name string) bool {
	return len(names) == 1 && names[0] == name
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
