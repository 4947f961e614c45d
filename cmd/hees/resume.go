package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
)

// runResume is the resume command.
func runResume(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees resume"
	var out outputFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out.register(fs)
	workers := fs.Int("workers", 0, "evaluate in `N` goroutines or processes (0: as the run did); the result does not depend on it")
	maxEvals := countFlag{def: "the run's"}
	target := targetFlag{def: "the run's"}
	fs.Var(&maxEvals, "max-evals", "change the run's evaluation budget to `N` (0: none); a run that stopped at its budget goes on to the new one")
	fs.Var(&target, "target", "change the run's target to `F`, or none; a run that reached its target goes on to the new one")
	maxTime := fs.Duration("max-time", 0, "change the run's time limit per invocation to `TIME`, such as 90s or 2h (0: none; default the run's)")
	files, status, done := parseFlagsOperands(fs, args, resumeHelp, stdout, stderr)
	if done {
		return status
	}
	switch {
	case len(files) != 1:
		return report(stderr, name, usagef("give one checkpoint FILE, got %d arguments (run 'hees help resume')", len(files)))
	case *workers < 0 || *workers > es.MaxWorkers:
		return report(stderr, name, usagef("-workers %d: want 1 to %d, or 0 for the run's", *workers, es.MaxWorkers))
	case *maxTime < 0:
		return report(stderr, name, usagef("-max-time %v: want a positive duration, or 0 for no limit", *maxTime))
	}
	set := given(fs)
	if err := out.check(); err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := runContext()
	defer stop()
	if _, err := os.Stat(files[0]); errors.Is(err, os.ErrNotExist) {
		return report(stderr, name, usagef("checkpoint %s does not exist (hees run -checkpoint %s writes it)", files[0], files[0]))
	}
	cp, st, err := checkpoint.Open(ctx, files[0])
	if err != nil {
		return report(stderr, name, err)
	}
	defer cp.Close()
	rs := cp.Settings()
	if err := checkSpaceState(rs, st.Strategy); err != nil {
		return report(stderr, name, fmt.Errorf("%s: %w", files[0], err))
	}
	if *workers > 0 {
		rs.Workers = *workers
	}
	if st.File.Stop != "" && (set["max-evals"] || set["target"]) {
		// New limits extend a run that stopped at its old ones: it goes on
		// as if it had had them from the start.
		goesOn, err := extends(st, set["max-evals"], maxEvals.n, set["target"], target.value)
		if err != nil {
			return report(stderr, name, fmt.Errorf("%s: %w", files[0], err))
		}
		if !goesOn {
			fmt.Fprintf(stderr, "%s: the run stopped for %q, which the new limits do not change: its summary follows\n", name, st.File.Stop)
			set = nil
		} else if err := cp.Continue(); err != nil {
			return report(stderr, name, err)
		} else {
			st.File.Stop = ""
		}
	}
	if set["max-evals"] {
		rs.MaxEvals = maxEvals.n
	}
	if set["target"] {
		rs.Target = target.value
	}
	if set["max-time"] {
		rs.MaxTime = *maxTime
	}
	if st.File.Stop != "" {
		res, err := checkpoint.FinishedResult(st.Strategy, st.File.Stop)
		if err != nil {
			return report(stderr, name, err)
		}
		res.Elapsed = st.File.Elapsed
		return printResult(name, rs, st.Problem, st.Strategy, res, nil, cp, out, stdout, stderr)
	}
	// Known points whose batch was not told before the stop are evaluated
	// first (docs/ALGORITHMS.md Section 16).
	return execute(ctx, name, rs, st.Problem, st.Strategy, st.File.Inject, cp, out, stdout, stderr)
}

// extends reports whether a run of st that stopped for good goes on under
// a new budget (when newBudget, maxEvals; 0: none) or a new target (when
// newTarget, target; nil: none): after its budget, when the new one allows
// another evaluation; after its target, when the new one is below the best
// value. A stop of the strategy's own is an error: no limit undoes it.
func extends(st *checkpoint.State, newBudget bool, maxEvals int, newTarget bool, target *float64) (bool, error) {
	_, best := st.Strategy.Best()
	switch st.File.Stop {
	case es.ReasonMaxEvals:
		return newBudget && (maxEvals == 0 || maxEvals > st.Strategy.Evals()), nil
	case es.ReasonTarget:
		return newTarget && (target == nil || best > *target), nil
	}
	return false, fmt.Errorf("the run stopped for %q, its strategy's own stop, which a new budget or target does not undo: start a new run (with -inject of its -log, where it ended)", st.File.Stop)
}
