package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/linalg"
)

// stateKind is the kind of an ask/tell state file in its container
// (internal/statefile); the payload is the JSON of sessionFile.
const stateKind = "ask-tell/v1"

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
existing file unless -force is given.

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

// sessionFile is the payload of an ask/tell state file. The told values are
// kept as strings (strconv 'g', -1: exact, and NaN and the infinities,
// which JSON numbers cannot hold, allowed).
type sessionFile struct {
	Algo     string         `json:"algo"`
	Restarts string         `json:"restarts"` // "none" or "ipop"
	Seed     uint64         `json:"seed"`
	MaxEvals int            `json:"max_evals"` // 0: no budget
	Target   *float64       `json:"target"`    // nil: none; finite
	Strategy []byte         `json:"strategy"`  // the strategy's MarshalBinary
	Told     map[int]string `json:"told"`      // row -> value, current generation
	Stop     es.Reason      `json:"stop"`      // "" while the run goes on
}

// session is an ask/tell run in memory.
type session struct {
	file sessionFile
	run  *es.Run
	s    es.Strategy     // the run's strategy
	told map[int]float64 // values told in the current generation, by row
	pop  *linalg.Dense   // the current generation's candidates; nil once stopped
}

// newSession starts a run of strategy s.
func newSession(sf *strategyFlags, s es.Strategy, maxEvals int, target *float64) (*session, error) {
	ss := &session{
		file: sessionFile{Algo: sf.algo, Restarts: sf.restarts, Seed: sf.seed, MaxEvals: maxEvals, Target: target},
		told: map[int]float64{},
	}
	return ss, ss.start(s)
}

// start makes the session a run of s with its budget and target, stopped
// already when the file records a stop, and asks for the current
// generation's candidates.
func (ss *session) start(s es.Strategy) error {
	run, err := es.NewRun(s, es.Limits{MaxEvals: ss.file.MaxEvals, Target: ss.file.Target})
	if err != nil {
		return err
	}
	ss.run, ss.s = run, s
	if ss.file.Stop != "" {
		run.Stop(ss.file.Stop, nil, nil)
	}
	return ss.prepare()
}

// missingState returns the usageError of a state file that does not
// exist.
func missingState(path string) error {
	return usagef("state file %s does not exist (create it with hees init)", path)
}

// loadSession reads the state file at path. A missing file is a
// usageError.
func loadSession(path string) (*session, error) {
	payload, err := statefile.ReadFile(path, stateKind)
	if errors.Is(err, os.ErrNotExist) {
		return nil, missingState(path)
	}
	if err != nil {
		return nil, err
	}
	ss, err := parseSession(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}

// decodeSession checks the bytes of a state file and returns its session.
// Errors of the container keep their cause (statefile.ErrTruncated and so
// on).
func decodeSession(data []byte) (*session, error) {
	payload, err := statefile.DecodeKind(data, stateKind)
	if err != nil {
		return nil, err
	}
	return parseSession(payload)
}

// parseSession reads the payload of a state file.
func parseSession(payload []byte) (*session, error) {
	ss := &session{told: map[int]float64{}}
	if err := unmarshalStrict(payload, &ss.file); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	if err := ss.restore(); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	return ss, nil
}

// restore rebuilds the strategy and the told values from ss.file, and
// checks that they agree.
func (ss *session) restore() error {
	s, err := restoreStrategy(ss.file.Restarts, ss.file.Strategy)
	if err != nil {
		return err
	}
	if want := strategyName(ss.file.Algo, ss.file.Restarts); s.Name() != want {
		return fmt.Errorf("the strategy is %s, the settings say %s", s.Name(), want)
	}
	if ss.file.MaxEvals < 0 {
		return fmt.Errorf("max_evals %d is negative", ss.file.MaxEvals)
	}
	if err := ss.start(s); err != nil {
		return err
	}
	rows := ss.rows()
	for row, text := range ss.file.Told {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("told value %q is not a number", text)
		}
		if row < 0 || row >= rows {
			return fmt.Errorf("told row %d is not one of the %d of generation %d", row, rows, ss.s.Generation())
		}
		ss.told[row] = v
	}
	return nil
}

// prepare asks the run for the current generation's candidates, unless it
// has stopped (by a reason recorded earlier, the strategy's own criteria,
// or because the generation would exceed the budget), and records its stop.
func (ss *session) prepare() error {
	pop, err := ss.run.Ask()
	if err != nil {
		return err
	}
	ss.pop, ss.file.Stop = pop, ss.run.Reason()
	return nil
}

// save writes the session to the state file at path, atomically.
func (ss *session) save(path string) error {
	payload, err := ss.payload()
	if err != nil {
		return err
	}
	return statefile.WriteFile(path, stateKind, payload, 0o644)
}

// payload returns the payload of the session's state file.
func (ss *session) payload() ([]byte, error) {
	state, err := ss.s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	ss.file.Strategy = state
	ss.file.Told = make(map[int]string, len(ss.told))
	for row, v := range ss.told {
		ss.file.Told[row] = formatValue(v)
	}
	return json.Marshal(&ss.file)
}

// rows is the number of candidates of the current generation (0 once the
// run has stopped).
func (ss *session) rows() int {
	if ss.pop == nil {
		return 0
	}
	r, _ := ss.pop.Dims()
	return r
}

// id is the ID of row of the current generation.
func (ss *session) id(row int) string {
	return fmt.Sprintf("g%d-%d", ss.s.Generation(), row)
}

// parseID reads an ID g<generation>-<row>.
func parseID(id string) (gen, row int, ok bool) {
	g, r, found := strings.Cut(strings.TrimPrefix(id, "g"), "-")
	if !found || !strings.HasPrefix(id, "g") {
		return 0, 0, false
	}
	gen, err1 := strconv.Atoi(g)
	row, err2 := strconv.Atoi(r)
	if err1 != nil || err2 != nil || gen < 0 || row < 0 || g != strconv.Itoa(gen) || r != strconv.Itoa(row) {
		return 0, 0, false
	}
	return gen, row, true
}

// apply records the values of told (by row, all of the current generation
// and not told before) and tells the run once the generation is complete,
// which checks for -Inf and the target; then it asks for the next
// generation.
func (ss *session) apply(values map[int]float64) error {
	for row, v := range values {
		ss.told[row] = v
	}
	rows := ss.rows()
	if len(ss.told) < rows {
		return nil
	}
	f := make([]float64, rows)
	for row, v := range ss.told {
		f[row] = v
	}
	if err := ss.run.Tell(f); err != nil {
		return err
	}
	ss.told = map[int]float64{}
	return ss.prepare()
}

// best returns the best point and value so far: the strategy's, or a value
// told in the current generation if it is lower (the earlier wins a tie).
func (ss *session) best() ([]float64, float64) {
	x, f := ss.s.Best()
	for row := range ss.rows() {
		if v, ok := ss.told[row]; ok && v < f {
			x, f = slices.Clone(ss.pop.RawRow(row)), v
		}
	}
	return x, f
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
	ss, err := newSession(&sf, s, maxEvals.n, target.value)
	if err != nil {
		return report(stderr, name, err)
	}

	ctx, stop := signalContext()
	defer stop()
	err = withLock(ctx, *path, func() error {
		if _, err := os.Lstat(*path); err == nil && !*force {
			return fmt.Errorf("%s exists (use -force to replace it)", *path)
		}
		return ss.save(*path)
	})
	if err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// withLock runs fn while holding the lock file of the state file at path.
func withLock(ctx context.Context, path string, fn func() error) (err error) {
	unlock, err := atomicfile.Lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	removeStaleTemps(path)
	defer func() {
		if uerr := unlock(); err == nil {
			err = uerr
		}
	}()
	return fn()
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
	if ss.file.Stop != "" {
		fmt.Fprintf(stderr, "%s: the run has stopped (%s); nothing to evaluate\n", name, ss.file.Stop)
		return exitOK
	}
	out := bufio.NewWriter(stdout)
	for row := range ss.rows() {
		if _, told := ss.told[row]; told {
			continue
		}
		fmt.Fprintf(out, "%s %s\n", ss.id(row), formatPoint(ss.pop.RawRow(row)))
	}
	if err := out.Flush(); err != nil {
		return report(stderr, name, err)
	}
	return exitOK
}

// toldLine is one "ID VALUE" line of the input of tell.
type toldLine struct {
	line     int
	id       string
	gen, row int
	value    float64
}

// badLine is a line of the input of tell that cannot be applied.
type badLine struct {
	line int
	msg  string
}

// readTold reads the "ID VALUE" lines of in. Syntax errors are returned as
// one badLine per line.
func readTold(in io.Reader) ([]toldLine, []badLine, error) {
	var (
		lines []toldLine
		bad   []badLine
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for n := 1; sc.Scan(); n++ {
		words := strings.Fields(sc.Text())
		if len(words) == 0 {
			continue
		}
		if len(words) != 2 {
			bad = append(bad, badLine{n, fmt.Sprintf("want \"ID VALUE\", got %d field%s", len(words), plural(len(words)))})
			continue
		}
		gen, row, ok := parseID(words[0])
		if !ok {
			bad = append(bad, badLine{n, fmt.Sprintf("%q is not an ID (IDs look like g12-3)", words[0])})
			continue
		}
		v, err := strconv.ParseFloat(words[1], 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, as extproc reads it
			bad = append(bad, badLine{n, fmt.Sprintf("%s: %q is not a number", words[0], words[1])})
			continue
		}
		lines = append(lines, toldLine{line: n, id: words[0], gen: gen, row: row, value: v})
	}
	return lines, bad, sc.Err()
}

// check returns the values of lines by row, and a badLine for each line
// that cannot be applied to the current generation.
func (ss *session) check(lines []toldLine) (map[int]float64, []badLine) {
	var bad []badLine
	values := map[int]float64{}
	seen := map[int]int{} // row -> input line
	gen, rows := ss.s.Generation(), ss.rows()
	for _, l := range lines {
		var msg string
		switch {
		case l.gen < gen:
			msg = fmt.Sprintf("%s was already told (generation %d is complete)", l.id, l.gen)
		case ss.file.Stop != "":
			msg = fmt.Sprintf("%s: the run has stopped (%s)", l.id, ss.file.Stop)
		case l.gen > gen:
			msg = fmt.Sprintf("unknown ID %s (the current generation is %d)", l.id, gen)
		case l.row >= rows:
			msg = fmt.Sprintf("unknown ID %s (generation %d has rows 0 to %d)", l.id, gen, rows-1)
		case seen[l.row] > 0:
			msg = fmt.Sprintf("%s is also on line %d", l.id, seen[l.row])
		default:
			if _, told := ss.told[l.row]; told {
				msg = fmt.Sprintf("%s was already told", l.id)
			}
		}
		if msg != "" {
			bad = append(bad, badLine{l.line, msg})
			continue
		}
		seen[l.row] = l.line
		values[l.row] = l.value
	}
	return values, bad
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
	lines, bad, err := readTold(stdin)
	if err != nil {
		return report(stderr, name, fmt.Errorf("reading standard input: %w", err))
	}
	if _, err := os.Stat(*path); errors.Is(err, os.ErrNotExist) {
		// Checked before the lock, which would create STATE.lock.
		return report(stderr, name, missingState(*path))
	}
	ctx, stop := signalContext()
	defer stop()
	err = withLock(ctx, *path, func() error {
		ss, err := loadSession(*path)
		if err != nil {
			return err
		}
		values, invalid := ss.check(lines)
		if bad = append(bad, invalid...); len(bad) > 0 || len(values) == 0 {
			return nil // nothing to apply, or bad lines: apply nothing
		}
		if err := ss.apply(values); err != nil {
			return err
		}
		return ss.save(*path)
	})
	if err != nil {
		return report(stderr, name, err)
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b badLine) int { return a.line - b.line })
		for _, b := range bad {
			fmt.Fprintf(stderr, "%s: line %d: %s\n", name, b.line, b.msg)
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
	x, f := ss.best()
	rep := statusReport{
		Algo:       ss.file.Algo,
		Strategy:   ss.s.Name(),
		Dim:        ss.s.Dim(),
		Seed:       ss.file.Seed,
		Generation: ss.s.Generation(),
		Evals:      ss.s.Evals(),
		Told:       len(ss.told),
		Pending:    ss.rows() - len(ss.told),
		Sigma:      jsonFloat(ss.s.Sigma()),
		FBest:      jsonFloat(f),
		StopReason: ss.file.Stop,
	}
	rep.Restarts = ss.run.Restarts()
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
	fmt.Fprintf(stdout, "sigma        %s\n", formatValue(ss.s.Sigma()))
	fmt.Fprintf(stdout, "state        %s\n", state)
	return exitOK
}
