package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hees-dev/hees/internal/experiment"
)

// runExperiment is the experiment command: it dispatches to fig2 or
// condition.
func runExperiment(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "hees experiment: name an experiment: fig2 or condition (run 'hees help experiment')")
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		return experimentUsage(stdout, "fig2", "condition")
	case "fig2", "condition":
		fs, fig2, cond := experimentFlags(name)
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return experimentUsage(stdout, name)
			}
			fmt.Fprintf(stderr, "hees experiment %s: %v (run 'hees help experiment')\n", name, err)
			return exitUsage
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "hees experiment %s: unexpected argument %q\n", name, fs.Arg(0))
			return exitUsage
		}
		if name == "fig2" {
			return runChecked(fs.Name(), fig2.Check, fig2.Run, fig2.out, stdout, stderr)
		}
		return runChecked(fs.Name(), cond.Check, cond.Run, cond.out, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "hees experiment: unknown experiment %q: want fig2 or condition\n", name)
		return exitUsage
	}
}

// experimentUsage prints the help of hees experiment with the flags of the
// experiments names.
func experimentUsage(stdout io.Writer, names ...string) int {
	io.WriteString(stdout, experimentHelp)
	for _, name := range names {
		fs, _, _ := experimentFlags(name)
		fmt.Fprintf(stdout, "\nFlags of %s:\n", name)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	return exitOK
}

// experimentFlags returns the flag set of the experiment name with its
// settings: fig2 for "fig2", cond for "condition" (the other is nil).
func experimentFlags(name string) (fs *flag.FlagSet, fig2 *fig2Settings, cond *conditionSettings) {
	fs = flag.NewFlagSet("hees experiment "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var common *experimentCommon
	switch name {
	case "fig2":
		fig2 = &fig2Settings{}
		common = &experimentCommon{&fig2.Dim, &fig2.Runs, &fig2.Workers, &fig2.out}
		fs.IntVar(common.runs, "runs", 99, "number of runs per strategy (seeds 1..`N`)")
		fs.IntVar(&fig2.Iters, "iters", 8000, "number `T` of iterations per run (an iteration is one Ask/Tell after the initial point)")
		fs.IntVar(&fig2.Every, "every", 10, "record every `K`-th iteration (and the last)")
	case "condition":
		cond = &conditionSettings{}
		common = &experimentCommon{&cond.Dim, &cond.Runs, &cond.Workers, &cond.out}
		fs.IntVar(common.runs, "runs", 15, "number of runs per strategy and condition (seeds 1..`N`)")
		fs.IntVar(&cond.Budget, "budget", 1000000, "evaluation budget `B` of a run; a run that reaches it is capped")
		fs.Float64Var(&cond.Target, "target", 1e-8, "target value `F`: a run succeeds with the first evaluation f <= F")
	}
	fs.IntVar(common.dim, "d", 10, "dimension `D`, at least 2")
	fs.StringVar(common.out, "out", ".", "output directory `DIR`")
	fs.IntVar(common.workers, "workers", 0, "number `W` of runs at a time; 0 means the number of CPUs")
	return fs, fig2, cond
}

// fig2Settings are the flags of hees experiment fig2.
type fig2Settings struct {
	experiment.Fig2
	out string
}

// conditionSettings are the flags of hees experiment condition.
type conditionSettings struct {
	experiment.Condition
	out string
}

// experimentCommon points to the settings every experiment has.
type experimentCommon struct {
	dim, runs, workers *int
	out                *string
}

// runChecked checks the settings of an experiment (check, then the output
// directory out, which it makes), runs it, writes its files in out and
// returns the exit status; name prefixes the error lines.
func runChecked(name string, check func() error, run func(io.Writer) ([]experiment.File, error), out string, stdout, stderr io.Writer) int {
	switch err := check(); {
	case err != nil:
		return report(stderr, name, &usageError{err.Error()})
	case out == "":
		return report(stderr, name, usagef("-out is empty, want a directory"))
	}
	// The directory is made before the runs, which may take hours, so
	// that an -out that cannot be one fails first.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return report(stderr, name, usagef("-out %s: %v", out, err))
	}
	files, err := run(stdout)
	if err == nil {
		err = experiment.WriteFiles(out, files, func(path string) { fmt.Fprintf(stdout, "wrote %s\n", path) })
	}
	if err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}
