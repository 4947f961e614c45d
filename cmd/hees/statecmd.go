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
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/runspec"
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

// onErrorFlag is the failure policy of init -on-error, read by
// es.ParseOnError (the one mapping of the words stop and nan).
type onErrorFlag es.OnError

func (o *onErrorFlag) String() string { return es.OnError(*o).Word() }

func (o *onErrorFlag) Set(s string) error {
	v, err := es.ParseOnError(s)
	if err != nil {
		return errors.New("want stop or nan")
	}
	*o = onErrorFlag(v)
	return nil
}

// checkLease reports a lease that is not positive or longer than
// session.MaxLease as a usage error: the same bound for ask -claim and
// hees worker.
func checkLease(lease time.Duration) error {
	if err := session.CheckLease(lease); err != nil {
		return &usageError{err.Error()}
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

// loadState reads the run at path without the lock (the snapshot is
// replaced atomically and the journal only grows, so this reads one
// consistent version). A missing file is a usageError.
func loadState(path string) (*session.View, error) {
	v, err := session.Store{Path: path}.Load()
	return v, stateError(err)
}

// lockedStore is the run at path of the command name, which says on
// stderr what it waits for when another process holds the lock long (it
// goes on waiting until Ctrl-C).
func lockedStore(name, path string, stderr io.Writer) session.Store {
	return session.Store{Path: path, Waiting: func(lock, holder string) {
		fmt.Fprintf(stderr, "%s: waiting for %s, the lock of %s, held by %s (Ctrl-C to stop waiting)\n", name, lock, path, holder)
	}, Warn: func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", name, msg) }}
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
	retries := fs.Int("retries", defaultRetries, "a candidate may fail (told \"failed\") `N` times and be claimed again before -on-error applies")
	lostLeases := fs.Int("lost-leases", session.DefaultLostLeases, "a candidate's lease may expire (its holder vanished) `N` times before -on-error applies")
	lockDefault := os.Getenv(session.LockEnv)
	if lockDefault == "" {
		lockDefault = "auto"
	}
	lockMode := fs.String("lock", lockDefault, "the `LOCK` of the run: flock (flock(2) on FILE.lock), file (the lock file FILE.lk, for file systems whose flock does not work across machines), or auto (flock where the file system takes it)")
	onError := onErrorFlag(es.OnErrorStop)
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
	if *retries < 0 || *retries > es.MaxRetries {
		return report(stderr, name, usagef("-retries %d: want 0 to %d", *retries, es.MaxRetries))
	}
	if *lostLeases < 0 || *lostLeases > runspec.MaxLostLeases {
		return report(stderr, name, usagef("-lost-leases %d: want 0 to %d", *lostLeases, runspec.MaxLostLeases))
	}
	lock, err := session.ChooseLock(*path, *lockMode)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
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
	spec := runspec.Spec{Algo: sf.algo, Restarts: sf.restarts, Seed: sf.seed, MaxEvals: maxEvals.n, Target: target.value,
		Retries: *retries, OnError: es.OnError(onError), LostLeases: *lostLeases}
	ss, err := session.New(session.Settings{RunID: runID, Spec: spec, Lock: lock, Inject: inject}, s)
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
	v, err := loadState(*path)
	if err != nil {
		return report(stderr, name, err)
	}
	if v.StopReason() != "" {
		return noCandidates(name, v.StopReason(), exitOK, stderr)
	}
	return printCandidates(name, v.Pending(), stdout, stderr)
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
	got, err := lockedStore(name, path, stderr).ClaimWait(ctx, n, lease, session.Self(0), wait)
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
	RunID      string         `json:"run_id"`
	Algo       string         `json:"algo"`
	Strategy   string         `json:"strategy"`
	Dim        int            `json:"dim"`
	Seed       uint64         `json:"seed"`
	Generation int            `json:"generation"`
	Injected   bool           `json:"injected,omitempty"` // the pending batch is the known points before the generation
	Evals      int            `json:"evals"`
	Restarts   int            `json:"restarts"`
	Told       int            `json:"told"`
	Pending    int            `json:"pending"`
	Leased     int            `json:"leased"`
	Sigma      jsonFloat      `json:"sigma"`
	FBest      jsonFloat      `json:"f_best"`
	XBest      []jsonFloat    `json:"x_best"`
	StopReason es.Reason      `json:"stop_reason"`
	StopDetail string         `json:"stop_detail,omitempty"`
	Lock       string         `json:"lock"`
	Leases     []leaseReport  `json:"leases,omitempty"`
	Attempts   []tryReport    `json:"attempts,omitempty"`
	Workers    []workerReport `json:"workers,omitempty"`
}

// leaseReport is a lease of a pending candidate in hees status.
type leaseReport struct {
	ID      string         `json:"id"`
	Holder  session.Holder `json:"holder"`
	Until   time.Time      `json:"until"`
	Expired bool           `json:"expired,omitempty"`
}

// tryReport is what happened to a candidate of the current batch besides
// its value.
type tryReport struct {
	ID     string `json:"id"`
	Failed int    `json:"failed,omitempty"`
	Lost   int    `json:"lost,omitempty"`
	Why    string `json:"why,omitempty"`
}

// workerReport is a worker slot held.
type workerReport struct {
	Slot   int            `json:"slot"`
	Holder session.Holder `json:"holder"`
	Until  time.Time      `json:"until"`
}

// newStatusReport is the status of the run v at now.
func newStatusReport(v *session.View, now time.Time) statusReport {
	x, f := v.Best()
	rep := statusReport{
		RunID: v.RunID, Algo: v.Spec.Algo, Strategy: v.Header.Strategy, Dim: v.Dim, Seed: v.Spec.Seed,
		Generation: v.Generation(), Injected: v.Injecting(), Evals: v.Evals(), Restarts: v.Header.Restarts,
		Told: v.NumTold(), Pending: v.Rows() - v.NumTold(), Leased: v.Leased(now),
		Sigma: jsonFloat(v.Sigma), FBest: jsonFloat(f), XBest: jsonFloats(x),
		StopReason: v.StopReason(), StopDetail: v.Header.StopDetail, Lock: v.Lock,
	}
	for row := range v.Rows() {
		id := v.ID(row).String()
		if l, ok := v.Lease(row); ok {
			rep.Leases = append(rep.Leases, leaseReport{ID: id, Holder: l.Holder, Until: l.Expiry().UTC(), Expired: !l.Expiry().After(now)})
		}
		if a := v.Attempts(row); a != (session.Attempts{}) {
			rep.Attempts = append(rep.Attempts, tryReport{ID: id, Failed: a.Failed, Lost: a.Lost, Why: a.Why})
		}
	}
	var stopped []tryReport
	for id, a := range v.AbandonedAttempts() {
		stopped = append(stopped, tryReport{ID: id.String(), Failed: a.Failed, Lost: a.Lost, Why: a.Why})
	}
	slices.SortFunc(stopped, func(a, b tryReport) int { return strings.Compare(a.ID, b.ID) })
	rep.Attempts = append(rep.Attempts, stopped...)
	slots := v.Slots(now)
	for slot, l := range slots {
		rep.Workers = append(rep.Workers, workerReport{Slot: slot, Holder: l.Holder, Until: l.Expiry().UTC()})
	}
	slices.SortFunc(rep.Workers, func(a, b workerReport) int { return a.Slot - b.Slot })
	return rep
}

// runStatus is the status command.
func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees status"
	fs, path := stateFlagSet(name)
	asJSON := fs.Bool("json", false, "print the status as one JSON object")
	watch := fs.Duration("watch", 0, "print the status every `INTERVAL` (such as 2s), in place on a terminal, until the run stops or Ctrl-C")
	if status, done := parseStateFlags(fs, path, args, statusHelp, stdout, stderr); done {
		return status
	}
	if *watch < 0 || (*watch > 0 && *watch < 100*time.Millisecond) {
		return report(stderr, name, usagef("-watch %v: want at least 100ms", *watch))
	}
	if *watch == 0 {
		v, err := loadState(*path)
		if err != nil {
			return report(stderr, name, err)
		}
		return printStatus(name, newStatusReport(v, time.Now()), *asJSON, stdout, stderr)
	}
	ctx, stop := signalContext()
	defer stop()
	inPlace := isTerminal(stdout) && !*asJSON
	for {
		v, err := loadState(*path)
		if err != nil {
			return report(stderr, name, err)
		}
		if inPlace {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J") // home, clear the screen
		}
		rep := newStatusReport(v, time.Now())
		if status := printStatus(name, rep, *asJSON, stdout, stderr); status != exitOK {
			return status
		}
		if rep.StopReason != "" {
			return exitOK
		}
		if !inPlace && !*asJSON {
			fmt.Fprintln(stdout)
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-time.After(*watch):
		}
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// printStatus prints rep, as JSON or as text.
func printStatus(name string, rep statusReport, asJSON bool, stdout, stderr io.Writer) int {
	if asJSON {
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
		if rep.StopDetail != "" {
			state += " (" + rep.StopDetail + ")"
		}
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
	fmt.Fprintf(stdout, "\nbest value   %s\n", formatValue(float64(rep.FBest)))
	var x []float64
	for _, c := range rep.XBest {
		x = append(x, float64(c))
	}
	fmt.Fprintf(stdout, "best x       %s\n", formatBest(x))
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(float64(rep.Sigma)))
	fmt.Fprintf(stdout, "state        %s\n", state)
	now := time.Now()
	for _, l := range rep.Leases {
		left := "expired"
		if !l.Expired {
			left = "expires in " + l.Until.Sub(now).Round(time.Second).String()
		}
		fmt.Fprintf(stdout, "lease        %s: %s, %s\n", l.ID, l.Holder, left)
	}
	for _, a := range rep.Attempts {
		fmt.Fprintf(stdout, "attempts     %s: %d failed, %d leases lost; last: %s\n", a.ID, a.Failed, a.Lost, a.Why)
	}
	for _, w := range rep.Workers {
		fmt.Fprintf(stdout, "worker       %d: %s\n", w.Slot, w.Holder)
	}
	return exitOK
}
