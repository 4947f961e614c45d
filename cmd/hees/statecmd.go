package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/session"
)

// Exit statuses of the ask/tell commands besides exitOK, exitFailure and
// exitUsage.
const (
	// exitStopped: the run has stopped (tell of a candidate not told
	// before, ask -claim, worker never: it exits with exitOK).
	exitStopped = 3
	// exitConflict: tell of a value that differs from the one told
	// before.
	exitConflict = 4
)

// Defaults of the pull mode.
const (
	// defaultRetries is the default of init -retries. A killed worker
	// (preemption, a job's time limit) costs its candidates an attempt
	// that says nothing about the point, so pull mode allows a few.
	defaultRetries = 3
	// defaultClaimLease is the default of ask -claim's -lease: nothing
	// renews it, so it must outlast an evaluation.
	defaultClaimLease = time.Hour
	// defaultWorkerLease is the default of worker -lease, which the worker
	// renews every third of it while it evaluates.
	defaultWorkerLease = time.Minute
)

// onErrorFlag is the failure policy of init -on-error.
type onErrorFlag string

func (o *onErrorFlag) String() string { return string(*o) }

func (o *onErrorFlag) Set(s string) error {
	if s != session.OnErrorStop && s != session.OnErrorNaN {
		return fmt.Errorf("want %s or %s", session.OnErrorStop, session.OnErrorNaN)
	}
	*o = onErrorFlag(s)
	return nil
}

// checkLease reports a lease that is not positive.
func checkLease(lease time.Duration) error {
	if lease <= 0 {
		return usagef("-lease %v: want a positive duration", lease)
	}
	return nil
}

// stateError makes a missing state file a usageError.
func stateError(err error) error {
	if me := (*session.MissingError)(nil); errors.As(err, &me) {
		return &usageError{err.Error()}
	}
	return err
}

// loadState reads the state file at path without the lock (a state file
// is replaced atomically, so this reads one complete version of it). A
// missing file is a usageError.
func loadState(path string) (*session.Session, error) {
	ss, err := session.Store{Path: path}.Load()
	return ss, stateError(err)
}

// lockedStore is the state file at path of the command name, which says
// on stderr what it waits for when another process holds the lock long
// (it goes on waiting until Ctrl-C).
func lockedStore(name, path string, stderr io.Writer) session.Store {
	return session.Store{Path: path, Waiting: func() {
		fmt.Fprintf(stderr, "%s: waiting for %s.lock, held by another hees process using %s (Ctrl-C to stop waiting)\n", name, path, path)
	}}
}

// stateFlagSet returns the FlagSet of the command name, with -state.
func stateFlagSet(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return fs, fs.String("state", "", "the ask/tell state `FILE` (required)")
}

// parseStateFlags is parseFlags for a FlagSet of stateFlagSet, whose
// -state is path: a missing -state is a usage error too. help is the
// command's own text; asktellHelp and the flags follow it.
func parseStateFlags(fs *flag.FlagSet, path *string, args []string, help string, stdout, stderr io.Writer) (status int, done bool) {
	if status, done := parseFlags(fs, args, help+asktellHelp+"Flags:\n", stdout, stderr); done {
		return status, true
	}
	if *path == "" {
		return report(stderr, fs.Name(), usagef("-state FILE is required")), true
	}
	return exitOK, false
}

// runInit is the init command.
func runInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees init"
	var (
		sf       strategyFlags
		maxEvals = countFlag{def: "none"}
		target   = targetFlag{def: "none"}
	)
	fs, path := stateFlagSet(name)
	dim := fs.Int("d", 0, "dimension `D` (required)")
	sf.register(fs, "3")
	fs.Var(&maxEvals, "max-evals", "evaluation budget `N`: the run stops before a generation that would exceed it (0: none)")
	fs.Var(&target, "target", "stop after a generation with a value at most `F`, or none")
	force := fs.Bool("force", false, "replace an existing state file")
	retries := fs.Int("retries", defaultRetries, "a candidate may fail (told \"failed\", or its lease expired) `N` times and be claimed again before -on-error applies")
	onError := onErrorFlag(session.OnErrorStop)
	fs.Var(&onError, "on-error", "`POLICY` for a candidate that failed more than -retries times: stop (the run stops) or nan (it is told NaN, ranked worst)")
	injectFile := fs.String("inject", "", "hand out the known points in `FILE` (one per line, d numbers separated by spaces or commas) first, as IDs i0-<row>@<run>")
	if status, done := parseStateFlags(fs, path, args, initHelp, stdout, stderr); done {
		return status
	}
	set := given(fs)
	sf.sigma0Given = set["sigma0"]
	if !set["d"] {
		return report(stderr, name, usagef("-d D is required"))
	}
	if *retries < 0 || *retries > session.MaxRetries {
		return report(stderr, name, usagef("-retries %d: want 0 to %d", *retries, session.MaxRetries))
	}
	if err := checkDim(*dim); err != nil {
		return report(stderr, name, err)
	}
	cfg, err := sf.config(*dim, commandBox)
	if err != nil {
		return report(stderr, name, err)
	}
	s, err := sf.strategy(cfg)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	inject, err := readInject(*injectFile, s, maxEvals.n)
	if err != nil {
		return report(stderr, name, err)
	}
	runID, err := session.NewRunID(rand.Reader)
	if err != nil {
		return report(stderr, name, err)
	}
	ss, err := session.New(session.Settings{RunID: runID, Algo: sf.algo, Restarts: sf.restarts, Seed: sf.seed,
		MaxEvals: maxEvals.n, Target: target.value, Retries: *retries, OnError: string(onError), Inject: inject}, s)
	if err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := signalContext()
	defer stop()
	if err := lockedStore(name, *path, stderr).Create(ctx, ss, *force); err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// runAsk is the ask command.
func runAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees ask"
	fs, path := stateFlagSet(name)
	claim := fs.Int("claim", 0, "claim up to `N` candidates that no live lease holds, and lease them")
	lease := fs.Duration("lease", defaultClaimLease, "with -claim, lease the candidates for `DURATION` (it must outlast their evaluation)")
	wait := fs.Bool("wait", false, "with -claim, wait until a candidate can be claimed or the run stops")
	if status, done := parseStateFlags(fs, path, args, askHelp, stdout, stderr); done {
		return status
	}
	set := given(fs)
	switch {
	case *claim < 0 || (set["claim"] && *claim == 0):
		return report(stderr, name, usagef("-claim %d: want at least 1", *claim))
	case (set["lease"] || *wait) && !set["claim"]:
		return report(stderr, name, usagef("-lease and -wait need -claim N"))
	}
	if err := checkLease(*lease); err != nil {
		return report(stderr, name, err)
	}
	if *claim > 0 {
		ctx, stop := signalContext()
		defer stop()
		return askClaim(ctx, *path, *claim, *lease, *wait, stdout, stderr)
	}
	ss, err := loadState(*path)
	if err != nil {
		return report(stderr, name, err)
	}
	if ss.File.Stop != "" {
		return noCandidates(name, ss.File.Stop, exitOK, stderr)
	}
	return printCandidates(name, ss.Pending(), stdout, stderr)
}

// printCandidates prints "ID x1 ... xd" lines for cands on stdout.
func printCandidates(name string, cands []session.Candidate, stdout, stderr io.Writer) int {
	out := bufio.NewWriter(stdout)
	for _, c := range cands {
		fmt.Fprintf(out, "%s %s\n", c.ID, points.Format(c.X))
	}
	if err := out.Flush(); err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// noCandidates says on stderr that the run has stopped with reason, and
// returns status.
func noCandidates(name string, reason es.Reason, status int, stderr io.Writer) int {
	fmt.Fprintf(stderr, "%s: the run has stopped (%s); nothing to evaluate\n", name, reason)
	return status
}

// askClaim is ask -claim.
func askClaim(ctx context.Context, path string, n int, lease time.Duration, wait bool, stdout, stderr io.Writer) int {
	const name = "hees ask"
	got, err := session.Store{Path: path}.ClaimWait(ctx, n, lease, wait)
	switch {
	case err != nil:
		return report(stderr, name, stateError(err))
	case len(got.Candidates) > 0:
		return printCandidates(name, got.Candidates, stdout, stderr)
	case got.Stop != "":
		return noCandidates(name, got.Stop, exitStopped, stderr)
	}
	return exitOK
}

// blocking returns the exit status that the problems of a tell call for:
// exitOK when it can be applied (repeats and ignored lines only), else
// the first of exitFailure (bad input), exitConflict and exitStopped that
// applies.
func blocking(bad []session.BadLine) int {
	status := exitOK
	for _, b := range bad {
		switch {
		case b.Problem == session.BadInput:
			return exitFailure
		case b.Problem == session.Conflict:
			status = exitConflict
		case b.Problem == session.Stopped && status == exitOK:
			status = exitStopped
		}
	}
	return status
}

// runTell is the tell command.
func runTell(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees tell"
	fs, path := stateFlagSet(name)
	// The operands start at the ID, so that a VALUE such as -2.5 is not
	// taken for a flag.
	var operands []string
	for i, a := range args {
		if _, ok := session.ParseID(a); ok {
			args, operands = args[:i], args[i:]
			break
		}
	}
	if status, done := parseStateFlags(fs, path, args, tellHelp, stdout, stderr); done {
		return status
	}
	in := stdin
	switch len(operands) {
	case 0:
	case 2:
		in = strings.NewReader(operands[0] + " " + operands[1] + "\n")
	default:
		return report(stderr, name, usagef("give ID VALUE after the flags, or lines \"ID VALUE\" on standard input"))
	}
	// The whole input is read before the lock is taken, so that a slow
	// writer does not hold up the other tells.
	lines, bad, err := session.ReadTold(in)
	if err != nil {
		return report(stderr, name, fmt.Errorf("reading standard input: %w", err))
	}
	ctx, stop := signalContext()
	defer stop()
	if bad, err = lockedStore(name, *path, stderr).Tell(ctx, lines, bad); err != nil {
		return report(stderr, name, stateError(err))
	}
	return reportTold(name, bad, stderr)
}

// reportTold writes the problems of a tell on stderr, in line order (a
// repeat is not one), and returns the tell's exit status.
func reportTold(name string, bad []session.BadLine, stderr io.Writer) int {
	slices.SortFunc(bad, func(a, b session.BadLine) int { return a.Line - b.Line })
	n := 0
	for _, b := range bad {
		if b.Problem == session.Repeat {
			continue
		}
		fmt.Fprintf(stderr, "%s: line %d: %s\n", name, b.Line, b.Msg)
		if b.Problem != session.Ignored {
			n++
		}
	}
	status := blocking(bad)
	if status != exitOK {
		fmt.Fprintf(stderr, "%s: nothing was applied (%d bad line%s)\n", name, n, plural(n))
	}
	return status
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// statusReport is the -json output of hees status.
type statusReport struct {
	RunID      string      `json:"run_id"`
	Algo       string      `json:"algo"`
	Strategy   string      `json:"strategy"`
	Dim        int         `json:"dim"`
	Seed       uint64      `json:"seed"`
	Generation int         `json:"generation"`
	Injected   bool        `json:"injected,omitempty"` // the pending batch is the known points before the generation
	Evals      int         `json:"evals"`
	Restarts   int         `json:"restarts"`
	Told       int         `json:"told"`
	Pending    int         `json:"pending"`
	Leased     int         `json:"leased"`
	Sigma      jsonFloat   `json:"sigma"`
	FBest      jsonFloat   `json:"f_best"`
	XBest      []jsonFloat `json:"x_best"`
	StopReason es.Reason   `json:"stop_reason"`
}

// runStatus is the status command.
func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees status"
	fs, path := stateFlagSet(name)
	asJSON := fs.Bool("json", false, "print the status as one JSON object")
	if status, done := parseStateFlags(fs, path, args, statusHelp, stdout, stderr); done {
		return status
	}
	ss, err := loadState(*path)
	if err != nil {
		return report(stderr, name, err)
	}
	x, f := ss.Best()
	rep := statusReport{
		RunID:      ss.File.RunID,
		Algo:       ss.File.Algo,
		Strategy:   ss.Strategy().Name(),
		Dim:        ss.Strategy().Dim(),
		Seed:       ss.File.Seed,
		Generation: ss.Strategy().Generation(),
		Injected:   ss.Injecting(),
		Evals:      ss.Evals(),
		Restarts:   ss.Restarts(),
		Told:       ss.NumTold(),
		Pending:    ss.Rows() - ss.NumTold(),
		Leased:     ss.Leased(time.Now()),
		Sigma:      jsonFloat(ss.Strategy().Sigma()),
		FBest:      jsonFloat(f),
		XBest:      jsonFloats(x),
		StopReason: ss.File.Stop,
	}
	if *asJSON {
		out, err := json.Marshal(rep)
		if err != nil {
			return report(stderr, name, err)
		}
		fmt.Fprintf(stdout, "%s\n", out)
		return exitOK
	}
	state := "running"
	if rep.StopReason != "" {
		state = "stopped: " + string(rep.StopReason)
	}
	fmt.Fprintf(stdout, "strategy     %s, seed %d, d = %d, run %s\n", rep.Strategy, rep.Seed, rep.Dim, rep.RunID)
	batch := ""
	if rep.Injected {
		batch = ", known points"
	}
	fmt.Fprintf(stdout, "generation   %d%s: %d told, %d pending (%d leased)\n", rep.Generation, batch, rep.Told, rep.Pending, rep.Leased)
	fmt.Fprintf(stdout, "evaluations  %d", rep.Evals)
	if rep.Restarts > 0 {
		fmt.Fprintf(stdout, ", %d restarts", rep.Restarts)
	}
	fmt.Fprintf(stdout, "\nbest value   %s\n", formatValue(f))
	fmt.Fprintf(stdout, "best x       %s\n", formatBest(x))
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(ss.Strategy().Sigma()))
	fmt.Fprintf(stdout, "state        %s\n", state)
	return exitOK
}
