package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ID names a candidate: row Row of generation Gen of the run Run, or with
// Injected the known point in row Row of the batch evaluated before
// generation Gen.
type ID struct {
	Run      string
	Gen, Row int
	Injected bool
}

// String writes the ID as g<generation>-<row>@<run>, such as g12-3@5f3a9c01,
// or i<generation>-<row>@<run> for a known point, such as i0-1@5f3a9c01.
func (id ID) String() string {
	kind := 'g'
	if id.Injected {
		kind = 'i'
	}
	return fmt.Sprintf("%c%d-%d@%s", kind, id.Gen, id.Row, id.Run)
}

// ParseID reads an ID g<generation>-<row>@<run> or i<generation>-<row>@<run>.
func ParseID(text string) (ID, bool) {
	cand, run, found := strings.Cut(text, "@")
	if !found || len(cand) == 0 || (cand[0] != 'g' && cand[0] != 'i') || !validRunID(run) {
		return ID{}, false
	}
	g, r, found := strings.Cut(cand[1:], "-")
	gen, err1 := strconv.Atoi(g)
	row, err2 := strconv.Atoi(r)
	if !found || err1 != nil || err2 != nil || gen < 0 || row < 0 || g != strconv.Itoa(gen) || r != strconv.Itoa(row) {
		return ID{}, false
	}
	return ID{Run: run, Gen: gen, Row: row, Injected: cand[0] == 'i'}, true
}

// Told is what a tell applies to the current batch: values by row, and
// the rows whose evaluation failed (with why, by row, when known).
type Told struct {
	Values map[int]float64
	Failed []int
	Why    map[int]string
}

// Line is one "ID VALUE" line of the input of tell.
type Line struct {
	line   int
	id     ID
	value  float64
	failed bool // VALUE was FailedWord
}

// ValueLine is the line that tells value v of id, as ReadTold reads
// "ID VALUE" (a NaN is read as math.NaN()).
func ValueLine(id ID, v float64) Line {
	if math.IsNaN(v) {
		v = math.NaN()
	}
	return Line{line: 1, id: id, value: v}
}

// FailedLine is the line that tells that the evaluation of id failed.
func FailedLine(id ID) Line { return Line{line: 1, id: id, failed: true} }

// Problem classifies a line of tell that is not applied.
type Problem int

// The problems of a line of tell. Bad input, a conflict and a stopped run
// make a tell apply nothing; a repeat and an ignored line do not.
const (
	// BadInput: not "ID VALUE", an ID of another run, an ID that does not
	// exist, or an ID given twice.
	BadInput Problem = iota
	// Conflict: the candidate was told another value before.
	Conflict
	// Stopped: the run has stopped, and the candidate was not told.
	Stopped
	// Repeat: the candidate was told the same value before (same bits;
	// any NaN is the same as another).
	Repeat
	// Ignored: a failure reported for a candidate told already, or a tell
	// of a generation whose values are no longer kept.
	Ignored
)

// Blocking reports whether bad holds a line that makes a tell apply
// nothing: bad input, a conflict or a stopped run.
func Blocking(bad []BadLine) bool {
	return slices.ContainsFunc(bad, func(b BadLine) bool {
		return b.Problem == BadInput || b.Problem == Conflict || b.Problem == Stopped
	})
}

// BadLine is a line of the input of tell that is not applied.
type BadLine struct {
	Line    int     // the line number, from 1
	Msg     string  // what is wrong
	Problem Problem // its kind
}

// ReadTold reads the "ID VALUE" lines of in (blank lines are skipped).
// VALUE is a number or FailedWord. Syntax errors are returned as one
// BadLine per line. An input that cannot be a tell is an error naming the
// line where reading stopped: a line longer than maxLine bytes, more than
// maxToldLines lines, or more than maxBadLines bad lines (the error quotes
// the first).
func ReadTold(in io.Reader) ([]Line, []BadLine, error) {
	var (
		lines []Line
		bad   []BadLine
		// runs holds one copy of each run ID read, which the lines share:
		// a line's ID would otherwise keep the whole line's text alive.
		runs = map[string]string{}
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		switch {
		case n > maxToldLines:
			return nil, nil, fmt.Errorf("line %d: more lines than a generation has points (at most %d)", n, maxToldLines)
		case len(bad) > maxBadLines:
			return nil, nil, tooManyBad(bad)
		}
		words := strings.Fields(sc.Text())
		if len(words) == 0 {
			continue
		}
		if len(words) != 2 {
			fields := "fields"
			if len(words) == 1 {
				fields = "field"
			}
			bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("want \"ID VALUE\", got %d %s", len(words), fields)})
			continue
		}
		id, ok := ParseID(words[0])
		if !ok {
			bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("%q is not an ID (IDs look like g12-3@5f3a9c01)", words[0])})
			continue
		}
		if run, ok := runs[id.Run]; ok {
			id.Run = run
		} else {
			id.Run = strings.Clone(id.Run)
			runs[id.Run] = id.Run
		}
		l := Line{line: n, id: id, failed: words[1] == FailedWord}
		if !l.failed {
			v, err := parseValue(words[1])
			if err != nil {
				bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("%s: %v", words[0], err)})
				continue
			}
			l.value = v
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, nil, fmt.Errorf("line %d: longer than %d bytes (a line holds an ID and a value)", n+1, maxLine)
	} else if err != nil {
		return nil, nil, fmt.Errorf("after line %d: %w", n, err)
	}
	if len(bad) > maxBadLines {
		return nil, nil, tooManyBad(bad)
	}
	return lines, bad, nil
}

// tooManyBad is the error of ReadTold once bad holds more than maxBadLines
// lines.
func tooManyBad(bad []BadLine) error {
	return fmt.Errorf("line %d: more than %d bad lines, stopped reading; the first is line %d: %s",
		bad[maxBadLines].Line, maxBadLines, bad[0].Line, bad[0].Msg)
}

// Check returns what lines tell of the current generation, and a BadLine
// for each line that is not applied.
func (v *View) Check(lines []Line) (Told, []BadLine) {
	var bad []BadLine
	t := Told{Values: map[int]float64{}}
	seen := map[int]int{} // row -> input line
	for _, l := range lines {
		problem, msg := v.check(l, seen)
		if msg != "" {
			bad = append(bad, BadLine{Line: l.line, Msg: msg, Problem: problem})
			continue
		}
		seen[l.id.Row] = l.line
		if l.failed {
			t.Failed = append(t.Failed, l.id.Row)
		} else {
			t.Values[l.id.Row] = l.value
		}
	}
	return t, bad
}

// check returns the problem of l and its message, "" when l applies.
func (v *View) check(l Line, seen map[int]int) (Problem, string) {
	id, gen, rows, stop := l.id, v.Header.Gen, v.Rows(), v.StopReason()
	if id.Run != v.RunID {
		return BadInput, fmt.Sprintf("%s belongs to another run (this state file holds run %s)", id, v.RunID)
	}
	if p, ok := v.past(id); ok {
		switch {
		case id.Row >= len(p.Values):
			return BadInput, fmt.Sprintf("%s does not exist (%s had rows 0 to %d)", id, batchName(id), len(p.Values)-1)
		case p.Values[id.Row] == "":
			return Stopped, fmt.Sprintf("%s: the run has stopped (%s)", id, stop)
		}
		val, _ := parseValue(p.Values[id.Row])
		return repeat(l, val)
	}
	other := id.Injected != v.Injecting() // not the current batch, nor a past one
	switch {
	case id.Gen > gen || (id.Gen == gen && stop == "" && (other || id.Row >= rows)):
		switch {
		case id.Gen == gen && other && id.Injected:
			return BadInput, fmt.Sprintf("%s does not exist (the run evaluates no known points before generation %d)", id, gen)
		case id.Gen == gen && other:
			return BadInput, fmt.Sprintf("%s does not exist yet (the known points come before generation %d)", id, gen)
		case id.Gen == gen:
			return BadInput, fmt.Sprintf("%s does not exist (%s has rows 0 to %d)", id, batchName(id), rows-1)
		}
		return BadInput, fmt.Sprintf("%s does not exist (the current generation is %d)", id, gen)
	case id.Gen < gen:
		return Ignored, fmt.Sprintf("%s is ignored: generation %d is complete and its values are no longer kept (the last %d are)", id, id.Gen, KeepGenerations)
	case stop != "":
		return Stopped, fmt.Sprintf("%s: the run has stopped (%s)", id, stop)
	}
	if val, told := v.b.told[id.Row]; told {
		return repeat(l, val)
	}
	if line := seen[id.Row]; line > 0 {
		return BadInput, fmt.Sprintf("%s is also on line %d", id, line)
	}
	return BadInput, ""
}

// past returns the past batch of id, from the header or, once read, the
// snapshot.
func (v *View) past(id ID) (Past, bool) {
	for _, past := range [][]Past{v.Past, v.older} {
		if i := slices.IndexFunc(past, func(p Past) bool { return p.Gen == id.Gen && p.Injected == id.Injected }); i >= 0 {
			return past[i], true
		}
	}
	return Past{}, false
}

// needsOlder reports whether a line of lines names a batch of the run
// before the current one that the header's Past does not hold.
func (v *View) needsOlder(lines []Line) bool {
	for _, l := range lines {
		id := l.id
		// Before the current batch: an earlier generation, or the known
		// points before a generation whose own candidates are current.
		before := id.Gen < v.Header.Gen || id.Gen == v.Header.Gen && id.Injected && !v.Injecting()
		if _, ok := v.past(id); id.Run == v.RunID && before && !ok {
			return true
		}
	}
	return false
}

// batchName names the batch of id in a message: "generation 12", or "the
// batch of known points before generation 0".
func batchName(id ID) string {
	if id.Injected {
		return fmt.Sprintf("the batch of known points before generation %d", id.Gen)
	}
	return fmt.Sprintf("generation %d", id.Gen)
}

// repeat classifies l, which tells a candidate told v before.
func repeat(l Line, v float64) (Problem, string) {
	switch {
	case l.failed:
		return Ignored, fmt.Sprintf("%s: the failure is ignored, the candidate was told %s", l.id, formatValue(v))
	case math.Float64bits(v) == math.Float64bits(l.value) || (math.IsNaN(v) && math.IsNaN(l.value)):
		return Repeat, fmt.Sprintf("%s was told the same value before", l.id)
	}
	return Conflict, fmt.Sprintf("%s was told %s before; %s differs", l.id, formatValue(v), formatValue(l.value))
}
