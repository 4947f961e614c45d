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

// benchFlags returns the flag set of hees bench bound to b.
func benchFlags(b *benchSettings) (*flag.FlagSet, *benchLists) {
	fs := flag.NewFlagSet("hees bench", flag.ContinueOnError)
	lists := &benchLists{}
	fs.StringVar(&lists.algos, "algo", es.Recommended+","+es.Baseline, "comma-separated `STRATEGIES`: "+strings.Join(es.Names(), ", "))
	fs.StringVar(&lists.suite, "suite", "bbob", "benchmark `SUITE`: "+suiteNames())
	fs.StringVar(&lists.functions, "functions", "", "`LIST` of functions, such as 1-24 or 1,2,5-9 (default: all of the suite, 1-24 or 101-130)")
	fs.StringVar(&lists.dims, "dims", "2,3,5,10,20", "`LIST` of dimensions, at least 2")
	fs.StringVar(&lists.instances, "instances", "1-15", "`LIST` of instances")
	fs.StringVar(&lists.restarts, "restarts", "none", "comma-separated restart `MODES`: none, ipop, bipop (restarts until the target or the budget)")
	fs.Float64Var(&b.Budget, "budget", 1e4, "evaluation budget per run, as a multiple `B` of the dimension")
	fs.Float64Var(&b.Sigma0, "sigma0", 2, "initial step size `S`")
	fs.StringVar(&lists.lower, "lower", "", "lower bounds `L` of every run, as on hees run (d numbers only with a single -dims); the runs keep -sigma0")
	fs.StringVar(&lists.upper, "upper", "", "upper bounds `U` of every run, as on hees run")
	fs.BoolVar(&b.Margin, "margin", false, "with -suite bbob-mixint, give "+strategiesWith(func(i es.Info) bool { return i.Margin }, "and")+
		" the integer coordinates as discrete ones, with the margin of CMA-ES with Margin (labels end in -margin); without it the problem rounds")
	fs.IntVar(&b.Pairs, "pairs", 0, "with -algo "+strategiesWith(populationIs(es.PopulationPairs), "or")+" (each strategy of -algo), `N` mirrored pairs (0: the default)")
	fs.IntVar(&b.Lambda, "lambda", 0, "with -algo "+strategiesWith(populationIs(es.PopulationLambda), "or")+" (each strategy of -algo), the population size `N` (0: the default)")
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
	i := slices.IndexFunc(objectives.Suites(), func(s objectives.Suite) bool { return s.Name == l.suite })
	if i < 0 {
		return usagef("-suite %q: want one of %s", l.suite, suiteNames())
	}
	suite := objectives.Suites()[i]
	b.Suite = suite.Name
	if l.functions == "" {
		l.functions = fmt.Sprintf("%d-%d", suite.First, suite.Last)
	}
	for name := range strings.SplitSeq(l.algos, ",") {
		name = strings.TrimSpace(name)
		info, err := es.Lookup(name)
		if err != nil {
			return usagef("-algo: unknown strategy %q (want some of %s)", name, strings.Join(es.Names(), ", "))
		}
		if err := checkPopulation(info, b.Pairs, b.Lambda); err != nil {
			return err
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
	if b.Functions, err = parseIntList("-functions", l.functions, suite.First, suite.Last); err != nil {
		return err
	}
	if b.Dims, err = parseIntList("-dims", l.dims, 2, objectives.MaxLargeScaleDim); err != nil {
		return err
	}
	for _, d := range b.Dims {
		if _, err := objectives.NewSuiteProblem(suite.Name, suite.First, 1, d); err != nil {
			return usagef("-dims: %v", strings.TrimPrefix(err.Error(), "objectives: "))
		}
	}
	if b.Instances, err = parseIntList("-instances", l.instances, 1, objectives.MaxBBOBInstance); err != nil {
		return err
	}
	if b.Lower, b.Upper, err = benchBounds(l.lower, l.upper, b.Dims); err != nil {
		return err
	}
	if err := bench.CheckBudget(b.Budget, b.Dims); err != nil {
		return usagef("-budget %v", err)
	}
	switch {
	case !(b.Sigma0 > 0) || math.IsInf(b.Sigma0, 1):
		return usagef("-sigma0 %v: want a positive finite number", b.Sigma0)
	case b.Workers < 0:
		return usagef("-workers %d: want 0 (the number of CPUs) or more", b.Workers)
	case b.Out == "":
		return usagef("-out is required: the directory of the results")
	case b.quiet && b.verbose:
		return usagef("-q and -v exclude each other")
	case b.Margin && (b.Suite != "bbob-mixint" || b.Lower != nil || b.Upper != nil):
		return usagef("-margin is for -suite bbob-mixint, without -lower and -upper")
	}
	return nil
}

// suiteNames lists the COCO suites of -suite.
func suiteNames() string {
	var names []string
	for _, s := range objectives.Suites() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
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
