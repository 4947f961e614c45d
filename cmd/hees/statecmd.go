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
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/samefile"
	"github.com/hees-dev/hees/internal/session"
	"github.com/hees-dev/hees/space"
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
// consistent version) for the command name, which tells stderr of what
// does not stop it (a journal missing). A missing file is a usageError.
func loadState(name, path string, stderr io.Writer) (*session.View, error) {
	v, err := session.Store{Path: path, Warn: warnTo(name, stderr)}.Load()
	return v, stateError(err)
}

// lockedStore is the run at path of the command name, which says on
// stderr what it waits for when another process holds the lock long (it
// goes on waiting until Ctrl-C).
func lockedStore(name, path string, stderr io.Writer) session.Store {
	return session.Store{Path: path, Waiting: func(lock, holder string) {
		fmt.Fprintf(stderr, "%s: waiting for %s, the lock of %s, held by %s (Ctrl-C to stop waiting)\n", name, lock, path, holder)
	}, Warn: warnTo(name, stderr)}
}

// warnTo returns the session.Store.Warn of the command name: one line on
// stderr.
func warnTo(name string, stderr io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", name, msg) }
}

// stateFlagSet returns the FlagSet of the command name, with -state.
func stateFlagSet(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return fs, fs.String("state", "", "the ask/tell state `FILE` (required)")
}

// parseStateFlags is parseFlags for a FlagSet of stateFlagSet, whose
// -state is path: a missing -state is a usage error too. help is the
// command's own text; the pointer to hees help asktell and the flags
// follow it.
func parseStateFlags(fs *flag.FlagSet, path *string, args []string, help string, stdout, stderr io.Writer) (status int, done bool) {
	if status, done := parseFlags(fs, args, help+asktellPointer+"Flags:\n", stdout, stderr); done {
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
		maxEvals = countFlag{def: fmt.Sprintf("%d*d, as hees run", budgetPerDim)}
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
	logFile := fs.String("log", "", "append every evaluation, as hees run -log does, to the new `FILE`: written by whoever completes a generation (tell, worker), so every machine must reach it by the same absolute path")
	spaceFile := fs.String("space", "", "search the named parameters of the space `FILE` (as hees run -space): -d is its length; ask, the workers' programs, the log and status see the parameters' values")
	sf.registerNoise(fs)
	var x0 lazyPoint
	x0.into = &sf.x0
	fs.Lookup("x0").Value = &x0
	if status, done := parseStateFlags(fs, path, args, initHelp, stdout, stderr); done {
		return status
	}
	set := given(fs)
	if err := sf.checkNoise(set); err != nil {
		return report(stderr, name, err)
	}
	sp, err := initSpace(*spaceFile, set, dim, &x0)
	if err != nil {
		return report(stderr, name, err)
	}
	logPath, err := initLogPath(*path, *logFile)
	if err != nil {
		return report(stderr, name, err)
	}
	sf.sigma0Given = set["sigma0"]
	if !set["d"] && sp == nil {
		return report(stderr, name, usagef("-d D is required"))
	}
	if *retries < 0 || *retries > es.MaxRetries {
		return report(stderr, name, usagef("-retries %d: want 0 to %d", *retries, es.MaxRetries))
	}
	if *lostLeases < 0 || *lostLeases > runspec.MaxLostLeases {
		return report(stderr, name, usagef("-lost-leases %d: want 0 to %d", *lostLeases, runspec.MaxLostLeases))
	}
	if err := session.CheckLockMode(*lockMode); err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	if err := checkDim(*dim); err != nil {
		return report(stderr, name, err)
	}
	if sp != nil {
		sf.x0 = nil // the space's values, read by spaceConfig
	} else {
		sf.warmStart(*injectFile, *dim) // as hees run, whose bits the run gives
	}
	cfg, err := sf.config(*dim, commandBox)
	if err != nil {
		return report(stderr, name, err)
	}
	var spaceJSON []byte
	if sp != nil {
		if cfg, err = spaceConfig(cfg, sf.algo, sp, &x0, sf.sigma0Given); err != nil {
			return report(stderr, name, err)
		}
		cfg = spaceWarmStart(cfg, *injectFile, sp, x0.set, sf.sigma0Given)
		spaceJSON, _ = sp.MarshalJSON() // a Space always marshals
	}
	s, err := sf.strategy(cfg)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	if !maxEvals.set {
		maxEvals.n = budgetPerDim * *dim
	}
	readKnown := readInject
	if sp != nil {
		readKnown = func(path string, s es.Strategy, maxEvals int) ([][]float64, error) {
			return readSpaceInject(path, sp, s, maxEvals)
		}
	}
	inject, err := readKnown(*injectFile, s, maxEvals.n)
	if err != nil {
		return report(stderr, name, err)
	}
	if err := sf.checkBudget(s, maxEvals.n, len(inject)); err != nil {
		return report(stderr, name, err)
	}
	runID, err := session.NewRunID(rand.Reader)
	if err != nil {
		return report(stderr, name, err)
	}
	spec := runspec.Spec{Algo: sf.algo, Restarts: sf.restarts, Seed: sf.seed, MaxEvals: maxEvals.n, Target: target.value,
		Retries: *retries, OnError: es.OnError(onError), LostLeases: *lostLeases, Log: logPath, Space: spaceJSON}
	// The file system is probed for its lock (ChooseLock makes FILE.lock)
	// once every flag is good, so that a usage error leaves nothing.
	lock, err := session.ChooseLock(*path, *lockMode)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	ss, err := session.New(session.Settings{RunID: runID, Spec: spec, Lock: lock, Inject: inject}, s)
	if err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := signalContext()
	defer stop()
	if err := lockedStore(name, *path, stderr).Create(ctx, ss, *force); err != nil {
		return report(stderr, name, err)
	}
	if logPath != "" {
		withDim := spec
		withDim.Dim = *dim
		meta := append(runner.Metadata(&withDim, nil, s), runlog.Field{Name: "run", Value: runID})
		var cols runlog.Columns
		if sp != nil {
			cols = runlog.SpaceColumns(sp)
		}
		l, err := runlog.OpenLogColumns(logPath, *dim, meta, cols)
		if err == nil {
			err = l.Close()
		}
		if err != nil {
			return report(stderr, name, fmt.Errorf("-log %v (the state %s was written: hees init -force %s ... replaces it)", err, *path, *path))
		}
	}
	return exitOK
}

// initSpace reads the space of hees init -space FILE (nil without it),
// sets dim to its length (a -d that disagrees is a usage error) and
// refuses the flags that do not go with it; without a space, -x0 must be
// numbers.
func initSpace(file string, set map[string]bool, dim *int, x0 *lazyPoint) (*space.Space, error) {
	if file == "" {
		return nil, x0.numbersErr("init")
	}
	if set["lower"] || set["upper"] || set["stds"] || set["box"] {
		return nil, usagef("-space gives the range of every parameter: leave out -lower, -upper, -stds and -box")
	}
	sp, err := space.ReadFile(file)
	if err != nil {
		return nil, usagef("-space %v", err)
	}
	if set["d"] && *dim != sp.Len() {
		return nil, usagef("-d %d: the space %s has %d parameters (%s); leave -d out or make them agree",
			*dim, file, sp.Len(), strings.Join(sp.Names(), ", "))
	}
	*dim = sp.Len()
	return sp, nil
}

// initLogPath checks the -log FILE of hees init for the state at state and
// returns its absolute path ("" without one): a new or empty regular file
// in an existing directory, not one of the run's own files.
func initLogPath(state, log string) (string, error) {
	if log == "" {
		return "", nil
	}
	abs, err := filepath.Abs(log)
	if err != nil {
		return "", usagef("-log %s: %v", log, err)
	}
	if err := runlog.CheckDir("-log", log); err != nil {
		return "", usagef("%v", err)
	}
	for _, own := range []string{state, session.JournalPath(state), state + ".lock", state + ".lk"} {
		if samefile.Same(log, own) {
			return "", usagef("-log %s is the file %s of the run: give the log another name", log, own)
		}
	}
	switch info, err := os.Stat(log); {
	case err != nil:
	case !info.Mode().IsRegular():
		return "", usagef("-log %s is %s: give the name of a regular file", log, boundedfile.Kind(info.Mode()))
	case info.Size() > 0:
		return "", usagef("-log %s exists: the log of an ask/tell run is its own file, give a new one", log)
	}
	return abs, nil
}

// runAsk is the ask command.
func runAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees ask"
	fs, path := stateFlagSet(name)
	claim := fs.Int("claim", 0, "claim up to `N` candidates that no live lease holds, and lease them")
	lease := fs.Duration("lease", defaultClaimLease, "with -claim, lease the candidates for `DURATION`; it must outlast their evaluation, since hees ask does not renew it (hees worker renews its shorter lease while it evaluates)")
	wait := fs.Bool("wait", false, "with -claim, wait until a candidate can be claimed or the run stops")
	format := fs.String("format", "text", "how a candidate is printed: `FORMAT` text (its ID, then its coordinates, or with hees init -space the parameters' values) or json (one object per line: \"id\" and \"params\", the values by name)")
	if status, done := parseStateFlags(fs, path, args, askHelp, stdout, stderr); done {
		return status
	}
	set := given(fs)
	switch {
	case *claim < 0 || (set["claim"] && *claim == 0):
		return report(stderr, name, usagef("-claim %d: want at least 1", *claim))
	case (set["lease"] || *wait) && !set["claim"]:
		return report(stderr, name, usagef("-lease and -wait need -claim N"))
	case *format != "text" && *format != runner.FormatJSON:
		return report(stderr, name, usagef("-format %q: want text or json", *format))
	}
	if err := checkLease(*lease); err != nil {
		return report(stderr, name, err)
	}
	v, err := loadState(name, *path, stderr)
	if err != nil {
		return report(stderr, name, err)
	}
	line, err := candidateLine(v, *format)
	if err != nil {
		return report(stderr, name, err)
	}
	if *claim > 0 {
		ctx, stop := signalContext()
		defer stop()
		return askClaim(ctx, *path, *claim, *lease, *wait, line, stdout, stderr)
	}
	if v.StopReason() != "" {
		return noCandidates(name, v.StopReason(), exitOK, stderr)
	}
	return printCandidates(name, v.Pending(), line, stdout, stderr)
}

// stateSpace returns the search space of the run v (hees init -space),
// nil without one.
func stateSpace(v *session.View) (*space.Space, error) {
	if v.Spec.Space == nil {
		return nil, nil
	}
	sp, err := space.Parse(v.Spec.Space)
	if err != nil {
		return nil, fmt.Errorf("the run's space: %w", err)
	}
	if sp.Len() != v.Dim {
		return nil, fmt.Errorf("the run's space has %d parameters, the run %d dimensions", sp.Len(), v.Dim)
	}
	return sp, nil
}

// candidateLine returns how hees ask writes a candidate of the run v in
// format (text or json), without the newline.
func candidateLine(v *session.View, format string) (func(dst []byte, c session.Candidate) []byte, error) {
	sp, err := stateSpace(v)
	if err != nil {
		return nil, err
	}
	enc := runner.Encoder(&runspec.Spec{Format: format}, sp)
	if format == runner.FormatJSON {
		return func(dst []byte, c session.Candidate) []byte {
			dst = append(dst, `{"id":"`...)
			dst = append(dst, c.ID.String()...)
			dst = append(dst, `","params":`...)
			return append(enc(dst, c.X), '}')
		}, nil
	}
	return func(dst []byte, c session.Candidate) []byte {
		dst = append(append(dst, c.ID.String()...), ' ')
		if enc == nil {
			return append(dst, points.Format(c.X)...)
		}
		return enc(dst, c.X)
	}, nil
}

// printCandidates prints one line for each of cands on stdout, as line
// writes it.
func printCandidates(name string, cands []session.Candidate, line func([]byte, session.Candidate) []byte, stdout, stderr io.Writer) int {
	out := bufio.NewWriter(stdout)
	var buf []byte
	for _, c := range cands {
		buf = append(line(buf[:0], c), '\n')
		out.Write(buf)
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
func askClaim(ctx context.Context, path string, n int, lease time.Duration, wait bool, line func([]byte, session.Candidate) []byte, stdout, stderr io.Writer) int {
	const name = "hees ask"
	got, err := lockedStore(name, path, stderr).ClaimWait(ctx, n, lease, session.Self(0), wait)
	switch {
	case err != nil:
		return report(stderr, name, stateError(err))
	case len(got.Candidates) > 0:
		return printCandidates(name, got.Candidates, line, stdout, stderr)
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
	RunID      string     `json:"run_id"`
	Algo       string     `json:"algo"`
	Strategy   string     `json:"strategy"`
	Dim        int        `json:"dim"`
	Seed       uint64     `json:"seed"`
	Generation int        `json:"generation"`
	Injected   bool       `json:"injected,omitempty"` // the pending batch is the known points before the generation
	Evals      int        `json:"evals"`
	Restarts   int        `json:"restarts"`
	Doublings  int        `json:"doublings,omitempty"` // of the population, by -noise
	Told       int        `json:"told"`
	Pending    int        `json:"pending"`
	Leased     int        `json:"leased"`
	Sigma      jsonFloat  `json:"sigma"`
	MaxEvals   int        `json:"max_evals"` // 0: none
	Target     *jsonFloat `json:"target"`    // null: none
	FBest      jsonFloat  `json:"f_best"`
	// XBest is the best point: numbers ([]jsonFloat), or with hees init
	// -space the user's values ([]space.Value), which Params repeats as
	// an object of names.
	XBest  any             `json:"x_best"`
	Params json.RawMessage `json:"params,omitempty"`
	names  []string        // of the space's parameters, for the text
	// Recommendation is the point a run with -noise recommends, apart
	// from the best single value f_best.
	Recommendation *recReport     `json:"recommendation,omitempty"`
	StopReason     es.Reason      `json:"stop_reason"`
	StopDetail     string         `json:"stop_detail,omitempty"`
	Lock           string         `json:"lock"`
	Leases         []leaseReport  `json:"leases,omitempty"`
	Attempts       []tryReport    `json:"attempts,omitempty"`
	Workers        []workerReport `json:"workers,omitempty"`
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
		Doublings: v.Header.Doublings, Told: v.NumTold(), Pending: v.Rows() - v.NumTold(), Leased: v.Leased(now),
		Sigma: jsonFloat(v.Sigma), FBest: jsonFloat(f), XBest: jsonFloats(x),
		StopReason: v.StopReason(), StopDetail: v.Header.StopDetail, Lock: v.Lock,
		MaxEvals: v.Spec.MaxEvals,
	}
	if t := v.Spec.Target; t != nil {
		rep.Target = (*jsonFloat)(t)
	}
	sp, err := stateSpace(v)
	if err != nil {
		sp = nil // a state whose space is bad does not load; status shows the numbers
	}
	if sp != nil && x != nil {
		rep.XBest, rep.Params, rep.names = sp.Values(x), sp.AppendJSON(nil, x), sp.Names()
	}
	if r, ok := v.Recommendation(); ok {
		rep.Recommendation = newRecReport(r)
		if sp != nil {
			rep.Recommendation.X, rep.Recommendation.Params = sp.Values(r.X), sp.AppendJSON(nil, r.X)
		}
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
	cpPath := fs.String("checkpoint", "", "the checkpoint `FILE` of a hees run -checkpoint, instead of -state: its best point, evaluations, step size and stop")
	asJSON := fs.Bool("json", false, "print the status as one JSON object")
	watch := fs.Duration("watch", 0, "print the status every `INTERVAL` (such as 2s), in place on a terminal, until the run stops or Ctrl-C")
	if status, done := parseFlags(fs, args, statusHelp+asktellPointer+"Flags:\n", stdout, stderr); done {
		return status
	}
	switch {
	case *path != "" && *cpPath != "":
		return report(stderr, name, usagef("give -state or -checkpoint, not both"))
	case *path == "" && *cpPath == "":
		return report(stderr, name, usagef("-state FILE (or -checkpoint FILE) is required"))
	case *watch < 0 || (*watch > 0 && *watch < 100*time.Millisecond):
		return report(stderr, name, usagef("-watch %v: want at least 100ms", *watch))
	case *cpPath != "" && *watch != 0:
		return report(stderr, name, usagef("-watch is for -state: a checkpoint changes once per -checkpoint-every generations"))
	case *cpPath == "" && isCheckpoint(*path):
		*cpPath = *path // a checkpoint given as -state
	}
	if *cpPath != "" {
		return checkpointStatus(name, *cpPath, *asJSON, stdout, stderr)
	}
	if *watch == 0 {
		v, err := loadState(name, *path, stderr)
		if err != nil {
			return report(stderr, name, err)
		}
		return printStatus(name, newStatusReport(v, time.Now()), *asJSON, stdout, stderr)
	}
	ctx, stop := signalContext()
	defer stop()
	inPlace := isTerminal(stdout) && !*asJSON
	for {
		v, err := loadState(name, *path, stderr)
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
		return printJSON(name, rep, stdout, stderr)
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
	fmt.Fprint(stdout, doubledText(rep.Doublings))
	fmt.Fprintf(stdout, "\nbest value   %s\n", formatValue(float64(rep.FBest)))
	fmt.Fprintf(stdout, "best x       %s\n", formatStatusBest(rep))
	if r := rep.Recommendation; r != nil {
		// With noise the best value is the luckiest draw: the
		// recommendation is the point to use.
		fmt.Fprintf(stdout, "recommended  %s\n", recText(r))
		fmt.Fprintf(stdout, "at x         %s\n", formatStatusBest(statusReport{XBest: r.X, names: rep.names}))
	}
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(float64(rep.Sigma)))
	limits := "budget none"
	if rep.MaxEvals > 0 {
		limits = fmt.Sprintf("budget %d evaluations", rep.MaxEvals)
	}
	if rep.Target != nil {
		limits += ", target " + formatValue(float64(*rep.Target))
	}
	fmt.Fprintf(stdout, "limits       %s\n", limits)
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

// isCheckpoint reports whether the file at path is a checkpoint of hees run.
func isCheckpoint(path string) bool {
	_, err := checkpoint.Read(path)
	return err == nil
}

// checkpointReport is the -json status of a checkpoint: what hees run
// -json prints, as of the checkpoint (stop_reason "" while it can go on),
// with the step size in the objective's units and the work's time.
type checkpointReport struct {
	runReport
	Sigma   jsonFloat `json:"sigma"`
	Elapsed float64   `json:"elapsed_s"`
}

// checkpointStatus prints the state of the run whose checkpoint is at
// path, without taking its lock or changing it.
func checkpointStatus(name, path string, asJSON bool, stdout, stderr io.Writer) int {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return report(stderr, name, usagef("checkpoint %s does not exist (hees run -checkpoint %s writes it)", path, path))
	}
	st, err := checkpoint.Read(path)
	if err != nil {
		return report(stderr, name, err)
	}
	run, err := es.NewRun(st.Strategy, es.Limits{})
	if err != nil {
		return report(stderr, name, err)
	}
	res := run.Result()
	res.Reason, res.Elapsed = st.File.Stop, st.File.Elapsed
	rep := checkpointReport{newRunReport(&st.File.Run, st.Problem, st.Strategy, res), jsonFloat(es.StepSize(st.Strategy)), st.File.Elapsed.Seconds()}
	if asJSON {
		return printJSON(name, rep, stdout, stderr)
	}
	printSummary(stdout, &st.File.Run, &rep.runReport, res)
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(float64(rep.Sigma)))
	if st.File.Stop == "" {
		fmt.Fprintf(stdout, "state        after generation %d; continue it with: hees resume %s\n", st.Strategy.Generation(), path)
	} else {
		fmt.Fprintf(stdout, "state        finished\n")
	}
	return exitOK
}

// formatStatusBest writes the best point of rep: its coordinates, or the
// space's parameters as name=value words.
func formatStatusBest(rep statusReport) string {
	switch x := rep.XBest.(type) {
	case []space.Value:
		words := make([]string, len(x))
		for i, v := range x {
			words[i] = rep.names[i] + "=" + v.Text()
		}
		return strings.Join(words, " ")
	case []jsonFloat:
		var f []float64
		for _, c := range x {
			f = append(f, float64(c))
		}
		return formatBest(f)
	}
	return formatBest(nil)
}
