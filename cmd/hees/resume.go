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
