package main

import (
	"fmt"
	"io"

	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/worker"
)

// runWorker is the worker command.
func runWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees worker"
	fs, path := stateFlagSet(name)
	command := fs.String("cmd", "", "evaluate with the external `PROGRAM` (required; see hees help run)")
	lease := fs.Duration("lease", defaultWorkerLease, "lease each candidate for `DURATION`, renewed every third of it while it is evaluated")
	workers := fs.Int("workers", 1, "run `K` evaluation loops, each with its own process of the program")
	evalTimeout := fs.Duration("eval-timeout", 0, "fail an evaluation that takes longer than `TIME` (0: no limit)")
	if status, done := parseStateFlags(fs, path, args, workerHelp, stdout, stderr); done {
		return status
	}
	switch {
	case *command == "":
		return report(stderr, name, usagef("-cmd PROGRAM is required"))
	case *workers < 1 || *workers > extproc.MaxProcs:
		return report(stderr, name, usagef("-workers %d: want 1 to %d", *workers, extproc.MaxProcs))
	case *evalTimeout < 0:
		return report(stderr, name, usagef("-eval-timeout %v: want a positive duration, or 0 for no limit", *evalTimeout))
	}
	if err := checkLease(*lease); err != nil {
		return report(stderr, name, err)
	}
	if _, err := loadState(*path); err != nil {
		return report(stderr, name, err)
	}
	ctx, stop := signalContext()
	defer stop()
	w := &worker.Worker{Path: *path, Command: *command, Lease: *lease, Options: extproc.Options{EvalTimeout: *evalTimeout},
		Warn: func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", name, msg) }}
	reason, err := w.Run(ctx, *workers)
	if err != nil && ctx.Err() != nil {
		return report(stderr, name, fmt.Errorf("interrupted after %d evaluations; the candidates being evaluated were given back", w.Evals()))
	}
	if err != nil {
		return report(stderr, name, stateError(err))
	}
	fmt.Fprintf(stderr, "%s: the run has stopped (%s); %d evaluations here\n", name, reason, w.Evals())
	return exitOK
}
