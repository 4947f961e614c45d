package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/session"
)

// asktellHelp is the part of the help shared by init, ask, tell and status.
const asktellHelp = `Ask/tell through a state file lets any job system (a shell loop, GNU
parallel, a Slurm array) drive an optimisation:

  hees init -state run.hees -algo hees -d 10 -seed 1
  hees ask -state run.hees > batch        # pending candidates: ID x1 ... xd
  ... evaluate each line, anywhere, in any order ...
  echo "g0-3 1.25" | hees tell -state run.hees
  hees status -state run.hees

IDs are g<generation>-<row>, such as g12-3: row 3 of generation 12 (counted
over all restarts), so an ID is never reused within a run. "hees ask" prints
the candidates of the current generation whose values have not been told
yet, the same ones until they are, and nothing once the run has stopped.
"hees tell" reads "ID VALUE" lines; the generation advances when all its
values are in. Values may be NaN or Inf (ranked worst); -Inf stops the run.
Several tells may run at once: each takes the lock file FILE.lock. A tell
is all or nothing: when a line is bad (not "ID VALUE", an unknown ID, an ID
already told, twice in the input, or after the run stopped), every bad line
is reported, nothing of that input is applied, and the exit status is 1, so
the corrected input can be told again. Every write replaces the state file
atomically.

`

const initHelp = `Usage: hees init -state FILE -d D [flags]

Creates the ask/tell state FILE of a new run. It refuses to replace an
existing file unless -force is given. With -lower and -upper (see 'hees
help run') FILE keeps the box, and every candidate hees ask prints lies in
it.

` + asktellHelp + `Flags:
`

const askHelp = `Usage: hees ask -state FILE

Prints the pending candidates of the run in FILE, one per line: the ID,
then the d coordinates, in the shortest form that reads back to the same
float64.

` + asktellHelp + `Flags:
`

const tellHelp = `Usage: hees tell -state FILE < values

Reads "ID VALUE" lines from standard input (blank lines are skipped) and
records the values in FILE.

` + asktellHelp + `Flags:
`

const statusHelp = `Usage: hees status -state FILE [-json]

Prints the progress of the run in FILE: the strategy, the generation and its
told and pending values, the evaluations, the best value and point so far
(including the values told in the current generation), sigma, and whether
the run has stopped and why. With -json: one JSON object with algo,
strategy, dim, seed, generation, evals, restarts, told, pending, sigma,
f_best, x_best and stop_reason ("" while the run goes on).

` + asktellHelp + `Flags:
`

// missingState returns the usageError of a state file that does not
// exist.
func missingState(path string) error {
	return usagef("state file %s does not exist (create it with hees init)", path)
}

// loadSession reads the state file at path. A missing file is a
// usageError.
func loadSession(path string) (*session.Session, error) {
	ss, err := session.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, missingState(path)
	}
	return ss, err
}

// stateFlag registers -state on fs.
func stateFlag(fs *flag.FlagSet) *string {
	return fs.String("state", "", "the ask/tell state `FILE` (required)")
}

// requireState reports a missing -state.
func requireState(path string) error {
	if path == "" {
		return usagef("-state FILE is required")
	}
	return nil
}

// runInit is the init command.
func runInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees init"
	var (
		sf       strategyFlags
		maxEvals = countFlag{def: "none"}
		target   = targetFlag{def: "none"}
	)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := stateFlag(fs)
	dim := fs.Int("d", 0, "dimension `D` (required)")
	sf.register(fs, "3")
	fs.Var(&maxEvals, "max-evals", "evaluation budget `N`: the run stops before a generation that would exceed it (0: none)")
	fs.Var(&target, "target", "stop after a generation with a value at most `F`, or none")
	force := fs.Bool("force", false, "replace an existing state file")
	if status, done := parseFlags(fs, args, initHelp, stdout, stderr); done {
		return status
	}
	sf.sigma0Given = given(fs)["sigma0"]
	if err := requireState(*path); err != nil {
		return report(stderr, name, err)
	}
	if !given(fs)["d"] {
		return report(stderr, name, usagef("-d D is required"))
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
	ss, err := session.New(sf.algo, sf.restarts, sf.seed, s, maxEvals.n, target.value)
	if err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := signalContext()
	defer stop()
	err = session.WithLock(ctx, *path, func() error {
		if _, err := os.Lstat(*path); err == nil && !*force {
			return fmt.Errorf("%s exists (use -force to replace it)", *path)
		}
		return ss.Save(*path)
	})
	if err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// runAsk is the ask command.
func runAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees ask"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := stateFlag(fs)
	if status, done := parseFlags(fs, args, askHelp, stdout, stderr); done {
		return status
	}
	if err := requireState(*path); err != nil {
		return report(stderr, name, err)
	}
	// No lock: a state file is replaced atomically, so this reads one
	// complete version of it.
	ss, err := loadSession(*path)
	if err != nil {
		return report(stderr, name, err)
	}
	if ss.File.Stop != "" {
		fmt.Fprintf(stderr, "%s: the run has stopped (%s); nothing to evaluate\n", name, ss.File.Stop)
		return exitOK
	}
	out := bufio.NewWriter(stdout)
	for row := range ss.Rows() {
		if _, told := ss.Told(row); told {
			continue
		}
		fmt.Fprintf(out, "%s %s\n", ss.ID(row), formatPoint(ss.Candidate(row)))
	}
	if err := out.Flush(); err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// runTell is the tell command.
func runTell(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees tell"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := stateFlag(fs)
	if status, done := parseFlags(fs, args, tellHelp, stdout, stderr); done {
		return status
	}
	if err := requireState(*path); err != nil {
		return report(stderr, name, err)
	}
	// The whole input is read before the lock is taken, so that a slow
	// writer does not hold up the other tells.
	lines, bad, err := session.ReadTold(stdin)
	if err != nil {
		return report(stderr, name, fmt.Errorf("reading standard input: %w", err))
	}
	if _, err := os.Stat(*path); errors.Is(err, os.ErrNotExist) {
		// Checked before the lock, which would create STATE.lock.
		return report(stderr, name, missingState(*path))
	}
	ctx, stop := signalContext()
	defer stop()
	err = session.WithLock(ctx, *path, func() error {
		ss, err := loadSession(*path)
		if err != nil {
			return err
		}
		values, invalid := ss.Check(lines)
		if bad = append(bad, invalid...); len(bad) > 0 || len(values) == 0 {
			return nil // nothing to apply, or bad lines: apply nothing
		}
		if err := ss.Apply(values); err != nil {
			return err
		}
		return ss.Save(*path)
	})
	if err != nil {
		return report(stderr, name, err)
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b session.BadLine) int { return a.Line - b.Line })
		for _, b := range bad {
			fmt.Fprintf(stderr, "%s: line %d: %s\n", name, b.Line, b.Msg)
		}
		fmt.Fprintf(stderr, "%s: nothing was applied (%d bad line%s)\n", name, len(bad), plural(len(bad)))
		return exitFailure
	}
	return exitOK
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
	Algo       string      `json:"algo"`
	Strategy   string      `json:"strategy"`
	Dim        int         `json:"dim"`
	Seed       uint64      `json:"seed"`
	Generation int         `json:"generation"`
	Evals      int         `json:"evals"`
	Restarts   int         `json:"restarts"`
	Told       int         `json:"told"`
	Pending    int         `json:"pending"`
	Sigma      jsonFloat   `json:"sigma"`
	FBest      jsonFloat   `json:"f_best"`
	XBest      []jsonFloat `json:"x_best"`
	StopReason es.Reason   `json:"stop_reason"`
}

// runStatus is the status command.
func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees status"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := stateFlag(fs)
	asJSON := fs.Bool("json", false, "print the status as one JSON object")
	if status, done := parseFlags(fs, args, statusHelp, stdout, stderr); done {
		return status
	}
	if err := requireState(*path); err != nil {
		return report(stderr, name, err)
	}
	ss, err := loadSession(*path)
	if err != nil {
		return report(stderr, name, err)
	}
	x, f := ss.Best()
	rep := statusReport{
		Algo:       ss.File.Algo,
		Strategy:   ss.Strategy().Name(),
		Dim:        ss.Strategy().Dim(),
		Seed:       ss.File.Seed,
		Generation: ss.Strategy().Generation(),
		Evals:      ss.Strategy().Evals(),
		Told:       ss.NumTold(),
		Pending:    ss.Rows() - ss.NumTold(),
		Sigma:      jsonFloat(ss.Strategy().Sigma()),
		FBest:      jsonFloat(f),
		StopReason: ss.File.Stop,
	}
	rep.Restarts = ss.Restarts()
	for _, v := range x {
		rep.XBest = append(rep.XBest, jsonFloat(v))
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
	bestX := "none (no value below +Inf)"
	if x != nil {
		bestX = formatPoint(x)
	}
	fmt.Fprintf(stdout, "strategy     %s, seed %d, d = %d\n", rep.Strategy, rep.Seed, rep.Dim)
	fmt.Fprintf(stdout, "generation   %d: %d told, %d pending\n", rep.Generation, rep.Told, rep.Pending)
	fmt.Fprintf(stdout, "evaluations  %d", rep.Evals)
	if rep.Restarts > 0 {
		fmt.Fprintf(stdout, ", %d restarts", rep.Restarts)
	}
	fmt.Fprintf(stdout, "\nbest value   %s\n", formatValue(f))
	fmt.Fprintf(stdout, "best x       %s\n", bestX)
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(ss.Strategy().Sigma()))
	fmt.Fprintf(stdout, "state        %s\n", state)
	return exitOK
}
