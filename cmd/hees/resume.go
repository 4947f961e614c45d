package main

import (
	"errors"
	"os"

	"context"
	"flag"
	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"io"
)

const resumeHelp = `Usage: hees resume [flags] FILE

Continues the run whose checkpoint FILE was written by hees run -checkpoint,
from the last generation in FILE, with the settings stored there: the
problem or program, the strategy and its seed, the budget, the target,
-restarts, -workers, -max-time, -trace, -log and -checkpoint-every. It keeps
writing FILE as the run did, so a run may be stopped and resumed any number
of times.

It prints the summary that the run would have printed had it never been
stopped; with -json, the same bytes. So the evaluations of a generation
abandoned by the interruption are not counted: they were never told to the
strategy, and the resumed run evaluates that generation again. A run that
had already finished is not continued: its summary is printed again.
-max-time limits each invocation anew.

The run keeps its files and its program where they were: the program of
-cmd runs in the directory hees run was started in, and a relative -trace
names a file there, wherever hees resume is started. So FILE holds a
command that hees resume runs: a checkpoint is as powerful as a shell
script. Resume only checkpoints you trust.

A missing FILE is a usage error (exit status 2). A truncated or corrupted
FILE, a file of another version, or one that is not a checkpoint is an error
that says which (exit status 1); FILE is then left as it is, and no run is
started.

Flags:
`

// runResume is the resume command.
func runResume(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees resume"
	var out outputFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out.register(fs)
	workers := fs.Int("workers", 0, "evaluate in `N` goroutines or processes (0: as the run did); the result does not depend on it")
	files, status, done := parseFlagsOperands(fs, args, resumeHelp, stdout, stderr)
	if done {
		return status
	}
	switch {
	case len(files) != 1:
		return report(stderr, name, usagef("give one checkpoint FILE, got %d arguments (run 'hees help resume')", len(files)))
	case *workers < 0 || *workers > es.MaxWorkers:
		return report(stderr, name, usagef("-workers %d: want 1 to %d, or 0 for the run's", *workers, es.MaxWorkers))
	}
	if err := out.check(); err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := signalContext()
	defer stop()
	// After the first signal, a second one ends hees the default way.
	context.AfterFunc(ctx, stop)
	if _, err := os.Stat(files[0]); errors.Is(err, os.ErrNotExist) {
		return report(stderr, name, usagef("checkpoint %s does not exist (hees run -checkpoint %s writes it)", files[0], files[0]))
	}
	cp, st, err := checkpoint.Open(ctx, files[0])
	if err != nil {
		return report(stderr, name, err)
	}
	defer cp.Close()
	rs := cp.Settings()
	if *workers > 0 {
		rs.Workers = *workers
	}
	if st.File.Stop != "" {
		res, err := checkpoint.FinishedResult(st.Strategy, st.File.Stop)
		if err != nil {
			return report(stderr, name, err)
		}
		res.Elapsed = st.File.Elapsed
		return printResult(name, rs, st.Problem, st.Strategy, res, nil, cp, out, stdout, stderr)
	}
	return execute(ctx, name, rs, st.Problem, st.Strategy, nil, cp, out, stdout, stderr)
}
