package main

import (
	"fmt"
	"io"

	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/worker"
)

const workerHelp = `Usage: hees worker -state FILE -cmd PROGRAM [-lease DURATION] [-workers K]

Evaluates the candidates of the ask/tell run in FILE with the external
PROGRAM until the run stops: it claims a candidate, evaluates it, tells its
value (and claims the next one under the same lock), and so on. Start as
many workers as there are processors to use, on one machine or on several
sharing the file system (srun -n 64 hees worker ...): the result is the
one of hees run with the same settings, bit for bit, whatever the number
of workers and the order of their tells.

PROGRAM speaks the protocol of hees run -cmd (see hees help run); each of
the K evaluation loops of a worker keeps one process of it running. While
an evaluation runs, the worker renews its lease every third of -lease, so
-lease need not outlast an evaluation: it bounds what a killed worker (or a
lost machine) costs, after which its candidate is claimed again. A failed
evaluation (a crash, an answer that is not a number, -eval-timeout) is told
"failed" and the program is started again; the run's -retries and
-on-error (hees init) say what happens to a candidate that keeps failing.
When another worker tells the candidate being evaluated first, the
evaluation is abandoned. Ctrl-C or SIGTERM gives the leases back and exits
with status 1; the end of the run exits with status 0.

` + asktellHelp + `Flags:
`

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
