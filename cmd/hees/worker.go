package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/hees-dev/hees/extproc"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/session"
	"github.com/hees-dev/hees/internal/worker"
)

// slurmEndEnv is the environment variable in which Slurm (23.02 and
// later) gives a job's end time, in Unix seconds.
const slurmEndEnv = "SLURM_JOB_END_TIME"

// parseUntil reads the value of worker -until: a duration from now ("2h"),
// a time in RFC 3339 or as squeue -o %e prints it (2006-01-02T15:04:05,
// local time), or Unix seconds.
func parseUntil(text string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(text); err == nil && d > 0 {
		return now.Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339, text); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", text, time.Local); err == nil {
		return t, nil
	}
	if s, err := strconv.ParseInt(text, 10, 64); err == nil && s > 0 && s < 1<<40 {
		return time.Unix(s, 0), nil
	}
	return time.Time{}, fmt.Errorf("-until %q: want a duration (2h), a time (2006-01-02T15:04:05, local, or RFC 3339) or Unix seconds", text)
}

// runWorker is the worker command.
func runWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees worker"
	fs, path := stateFlagSet(name)
	command := fs.String("cmd", "", "evaluate with the external `PROGRAM` (required; see hees help run)")
	lease := fs.Duration("lease", defaultWorkerLease, "lease each candidate for `DURATION`, renewed every third of it while it is evaluated")
	workers := fs.Int("workers", 1, "run `K` evaluation loops, each with its own process of the program")
	evalTimeout := fs.Duration("eval-timeout", 0, "fail an evaluation that takes longer than `TIME` (0: no limit)")
	until := fs.String("until", "", "claim nothing once the time left before `TIME` (a duration, a time, or Unix seconds; default: Slurm's SLURM_JOB_END_TIME) is shorter than the longest evaluation seen")
	poll := fs.Duration("poll", session.PollMax, "an idle worker looks at the journal at most `INTERVAL` apart (raise it to a second or more with hundreds of workers on a shared file system)")
	format := fs.String("format", "text", "how a point is written to the program: `FORMAT` text (numbers, or with hees init -space the parameters' values, separated by spaces) or json (one JSON object of names per line)")
	if status, done := parseStateFlags(fs, path, args, workerHelp, stdout, stderr); done {
		return status
	}
	switch {
	case *command == "":
		return report(stderr, name, usagef("-cmd PROGRAM is required"))
	case *format != "text" && *format != runner.FormatJSON:
		return report(stderr, name, usagef("-format %q: want text or json", *format))
	case *workers < 1 || *workers > extproc.MaxProcs:
		return report(stderr, name, usagef("-workers %d: want 1 to %d", *workers, extproc.MaxProcs))
	case *poll < time.Millisecond || *poll > time.Minute:
		return report(stderr, name, usagef("-poll %v: want 1ms to 1m", *poll))
	case *evalTimeout < 0:
		return report(stderr, name, usagef("-eval-timeout %v: want a positive duration, or 0 for no limit", *evalTimeout))
	}
	if err := checkLease(*lease); err != nil {
		return report(stderr, name, err)
	}
	var end time.Time
	if *until == "" {
		*until = os.Getenv(slurmEndEnv)
	}
	if *until != "" {
		var err error
		if end, err = parseUntil(*until, time.Now()); err != nil {
			return report(stderr, name, &usageError{err.Error()})
		}
	}
	v, err := loadState(name, *path, stderr)
	if err != nil {
		return report(stderr, name, err)
	}
	sp, err := stateSpace(v)
	if err != nil {
		return report(stderr, name, err)
	}
	encode := runner.Encoder(&runspec.Spec{Format: *format}, sp)
	ctx, stop := signalContext()
	defer stop()
	w := &worker.Worker{Path: *path, Command: *command, Lease: *lease, Until: end, Poll: *poll, Options: extproc.Options{EvalTimeout: *evalTimeout, Encode: encode},
		Warn: func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", name, msg) }}
	reason, err := w.Run(ctx, *workers)
	switch {
	case errors.Is(err, worker.ErrUntil):
		fmt.Fprintf(stderr, "%s: stopped claiming at %s: the time left before -until is shorter than the longest evaluation; %d evaluations here\n",
			name, time.Now().Format(time.RFC3339), w.Evals())
		return exitOK
	case err != nil && ctx.Err() != nil:
		return report(stderr, name, fmt.Errorf("interrupted after %d evaluations; the candidates being evaluated were given back", w.Evals()))
	case err != nil:
		return report(stderr, name, stateError(err))
	}
	detail := ""
	if w.StopDetail != "" {
		detail = ": " + w.StopDetail
	}
	fmt.Fprintf(stderr, "%s: the run has stopped (%s%s); %d evaluations here\n", name, reason, detail, w.Evals())
	return exitOK
}
