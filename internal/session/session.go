// Package session keeps an ask/tell run in a state file between
// invocations of hees init, ask, tell and status: the strategy's state, the
// values told of the current generation, the budget, the target and the
// stop, driven by an es.Run. Candidates are named by IDs g<generation>-<row>
// (the generation counted over all restarts), so an ID is never reused
// within a run. Every write happens under the lock file FILE.lock and
// replaces the state file atomically.
package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/linalg"
)

// maxLine bounds one input line of tell (64 MiB holds millions of
// coordinates).
const maxLine = 64 << 20

// Kind is the kind of an ask/tell state file in its container
// (internal/statefile); the payload is the JSON of File.
const Kind = "ask-tell/v1"

// File is the payload of an ask/tell state file. The told values are
// kept as strings (strconv 'g', -1: exact, and NaN and the infinities,
// which JSON numbers cannot hold, allowed).
type File struct {
	Algo     string         `json:"algo"`
	Restarts string         `json:"restarts"` // "none", "ipop" or "bipop"
	Seed     uint64         `json:"seed"`
	MaxEvals int            `json:"max_evals"` // 0: no budget
	Target   *float64       `json:"target"`    // nil: none; finite
	Strategy []byte         `json:"strategy"`  // the strategy's MarshalBinary
	Told     map[int]string `json:"told"`      // row -> value, current generation
	Stop     es.Reason      `json:"stop"`      // "" while the run goes on
}

// Session is an ask/tell run in memory.
type Session struct {
	// File holds the settings of the run and its stop; the other fields
	// are filled in by Save.
	File File

	run  *es.Run
	s    es.Strategy     // the run's strategy
	told map[int]float64 // values told in the current generation, by row
	pop  *linalg.Dense   // the current generation's candidates; nil once stopped
}

// New starts a run of strategy s, the strategy algo with the restart
// scheme restarts ("none", "ipop" or "bipop") made with seed, with the
// budget maxEvals (0: none) and target (nil: none).
func New(algo, restarts string, seed uint64, s es.Strategy, maxEvals int, target *float64) (*Session, error) {
	ss := &Session{
		File: File{Algo: algo, Restarts: restarts, Seed: seed, MaxEvals: maxEvals, Target: target},
		told: map[int]float64{},
	}
	return ss, ss.start(s)
}

// start makes the session a run of s with its budget and target, stopped
// already when the file records a stop, and asks for the current
// generation's candidates.
func (ss *Session) start(s es.Strategy) error {
	run, err := es.NewRun(s, es.Limits{MaxEvals: ss.File.MaxEvals, Target: ss.File.Target})
	if err != nil {
		return err
	}
	ss.run, ss.s = run, s
	if ss.File.Stop != "" {
		run.Stop(ss.File.Stop, nil, nil)
	}
	return ss.prepare()
}

// Read reads the state file at path. Errors of the file system and of the
// container keep their cause (os.ErrNotExist, statefile.ErrTruncated and
// so on); those of the content name the path.
func Read(path string) (*Session, error) {
	payload, err := statefile.ReadFile(path, Kind)
	if err != nil {
		return nil, err
	}
	ss, err := Parse(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}

// Decode checks the bytes of a state file and returns its session. Errors
// of the container keep their cause (statefile.ErrTruncated and so on).
func Decode(data []byte) (*Session, error) {
	payload, err := statefile.DecodeKind(data, Kind)
	if err != nil {
		return nil, err
	}
	return Parse(payload)
}

// Parse reads the payload of a state file (Decode without the container).
func Parse(payload []byte) (*Session, error) {
	ss := &Session{told: map[int]float64{}}
	if err := statefile.UnmarshalJSON(payload, &ss.File); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	if err := ss.restore(); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	return ss, nil
}

// restore rebuilds the strategy and the told values from ss.File, and
// checks that they agree.
func (ss *Session) restore() error {
	s, err := RestoreStrategy(ss.File.Restarts, ss.File.Strategy)
	if err != nil {
		return err
	}
	if want := StrategyName(ss.File.Algo, ss.File.Restarts); s.Name() != want {
		return fmt.Errorf("the strategy is %s, the settings say %s", s.Name(), want)
	}
	if ss.File.MaxEvals < 0 {
		return fmt.Errorf("max_evals %d is negative", ss.File.MaxEvals)
	}
	if err := ss.start(s); err != nil {
		return err
	}
	rows := ss.Rows()
	for row, text := range ss.File.Told {
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
func (ss *Session) prepare() error {
	pop, err := ss.run.Ask()
	if err != nil {
		return err
	}
	ss.pop, ss.File.Stop = pop, ss.run.Reason()
	return nil
}

// Save writes the session to the state file at path, atomically.
func (ss *Session) Save(path string) error {
	payload, err := ss.Payload()
	if err != nil {
		return err
	}
	return statefile.WriteFile(path, Kind, payload, 0o644)
}

// Payload returns the payload of the session's state file.
func (ss *Session) Payload() ([]byte, error) {
	state, err := ss.s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	ss.File.Strategy = state
	ss.File.Told = make(map[int]string, len(ss.told))
	for row, v := range ss.told {
		ss.File.Told[row] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return json.Marshal(&ss.File)
}

// Rows is the number of candidates of the current generation (0 once the
// run has stopped).
func (ss *Session) Rows() int {
	if ss.pop == nil {
		return 0
	}
	r, _ := ss.pop.Dims()
	return r
}

// ID is the ID of row of the current generation: g<generation>-<row>.
func (ss *Session) ID(row int) string {
	return fmt.Sprintf("g%d-%d", ss.s.Generation(), row)
}

// ParseID reads an ID g<generation>-<row>.
func ParseID(id string) (gen, row int, ok bool) {
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

// Apply records the values of told (by row, all of the current generation
// and not told before) and tells the run once the generation is complete,
// which checks for -Inf and the target; then it asks for the next
// generation.
func (ss *Session) Apply(values map[int]float64) error {
	for row, v := range values {
		ss.told[row] = v
	}
	rows := ss.Rows()
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

// Best returns the best point and value so far: the strategy's, or a value
// told in the current generation if it is lower (the earlier wins a tie).
func (ss *Session) Best() ([]float64, float64) {
	x, f := ss.s.Best()
	for row := range ss.Rows() {
		if v, ok := ss.told[row]; ok && v < f {
			x, f = slices.Clone(ss.pop.RawRow(row)), v
		}
	}
	return x, f
}

// WithLock runs fn while holding the lock file of the state file at path,
// FILE.lock, under which every write of the state file happens.
func WithLock(ctx context.Context, path string, fn func() error) (err error) {
	unlock, err := atomicfile.Lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	atomicfile.RemoveStaleTemps(path) // best effort: a leftover is only clutter
	defer func() {
		if uerr := unlock(); err == nil {
			err = uerr
		}
	}()
	return fn()
}

// Line is one "ID VALUE" line of the input of tell.
type Line struct {
	line     int
	id       string
	gen, row int
	value    float64
}

// BadLine is a line of the input of tell that cannot be applied.
type BadLine struct {
	Line int    // the line number, from 1
	Msg  string // what is wrong
}

// ReadTold reads the "ID VALUE" lines of in (blank lines are skipped).
// Syntax errors are returned as one BadLine per line.
func ReadTold(in io.Reader) ([]Line, []BadLine, error) {
	var (
		lines []Line
		bad   []BadLine
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for n := 1; sc.Scan(); n++ {
		words := strings.Fields(sc.Text())
		if len(words) == 0 {
			continue
		}
		if len(words) != 2 {
			fields := "fields"
			if len(words) == 1 {
				fields = "field"
			}
			bad = append(bad, BadLine{n, fmt.Sprintf("want \"ID VALUE\", got %d %s", len(words), fields)})
			continue
		}
		gen, row, ok := ParseID(words[0])
		if !ok {
			bad = append(bad, BadLine{n, fmt.Sprintf("%q is not an ID (IDs look like g12-3)", words[0])})
			continue
		}
		v, err := strconv.ParseFloat(words[1], 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, as extproc reads it
			bad = append(bad, BadLine{n, fmt.Sprintf("%s: %q is not a number", words[0], words[1])})
			continue
		}
		lines = append(lines, Line{line: n, id: words[0], gen: gen, row: row, value: v})
	}
	return lines, bad, sc.Err()
}

// Check returns the values of lines by row, and a BadLine for each line
// that cannot be applied to the current generation.
func (ss *Session) Check(lines []Line) (map[int]float64, []BadLine) {
	var bad []BadLine
	values := map[int]float64{}
	seen := map[int]int{} // row -> input line
	gen, rows := ss.s.Generation(), ss.Rows()
	for _, l := range lines {
		var msg string
		switch {
		case l.gen < gen:
			msg = fmt.Sprintf("%s was already told (generation %d is complete)", l.id, l.gen)
		case ss.File.Stop != "":
			msg = fmt.Sprintf("%s: the run has stopped (%s)", l.id, ss.File.Stop)
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
			bad = append(bad, BadLine{l.line, msg})
			continue
		}
		seen[l.row] = l.line
		values[l.row] = l.value
	}
	return values, bad
}

// RestoreStrategy restores a strategy from its MarshalBinary state, once
// restarts is known to be a restart scheme (es.ParseRestarts); the caller
// checks its name (StrategyName).
func RestoreStrategy(restarts string, state []byte) (es.Strategy, error) {
	if _, err := es.ParseRestarts(restarts); err != nil {
		return nil, err
	}
	return es.Load(state)
}

// StrategyName is the name of the strategy that algo runs with the restart
// scheme restarts ("none", "ipop" or "bipop").
func StrategyName(algo, restarts string) string {
	return es.Restarts(restarts).Name(algo)
}

// Strategy is the run's strategy. Read it; do not call Ask or Tell.
func (ss *Session) Strategy() es.Strategy { return ss.s }

// Restarts is the number of restarts of the run so far.
func (ss *Session) Restarts() int { return ss.run.Restarts() }

// Candidate returns the candidate of row of the current generation; the
// slice is the session's.
func (ss *Session) Candidate(row int) []float64 { return ss.pop.RawRow(row) }

// Told returns the value told of row of the current generation, and
// whether one was told.
func (ss *Session) Told(row int) (float64, bool) {
	v, ok := ss.told[row]
	return v, ok
}

// NumTold is the number of values told of the current generation.
func (ss *Session) NumTold() int { return len(ss.told) }
