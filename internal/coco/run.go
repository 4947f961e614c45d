package coco

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Run is the record of one finished run: what the COCO files and the
// summaries need, and nothing that depends on timing.
type Run struct {
	Problem
	// Evals is the number of evaluations of the run.
	Evals int
	// BestDelta is the best Δ = max(f, fopt) − fopt found (+Inf for a run
	// without evaluations).
	BestDelta float64
	// Hits[j] is the first evaluation whose best Δ reached the target of
	// level MaxTargetLevel − j, 10^(2 − j/5), or 0 if the run never
	// reached it.
	Hits [NumTargets]int
	// Dat, Tdat and Rdat are the run's data lines for the .dat, .tdat and
	// .rdat files, each ending with a newline, without the header line.
	Dat, Tdat, Rdat []byte
}

// Hit returns the first evaluation at which the run reached the target of
// level k (MinTargetLevel ≤ k ≤ MaxTargetLevel) and whether it did.
func (r *Run) Hit(k int) (evals int, ok bool) {
	if k < MinTargetLevel || k > MaxTargetLevel {
		panic(fmt.Sprintf("coco: Hit: level %d outside [%d, %d]", k, MinTargetLevel, MaxTargetLevel))
	}
	e := r.Hits[MaxTargetLevel-k]
	return e, e > 0
}

// Solved reports whether the run reached the final target 1e-8.
func (r *Run) Solved() bool {
	_, ok := r.Hit(MinTargetLevel)
	return ok
}

// runMagic is the first line of a Run's text form.
const runMagic = "coco-run 1"

// MarshalText writes the run as lines of text: the problem, the counts and
// Δ (floats in hexadecimal, exact), the hits, and the data lines, each
// block preceded by its number of lines. UnmarshalText reads it back.
func (r *Run) MarshalText() ([]byte, error) {
	if err := r.Problem.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfunction %d\ninstance %d\ndim %d\nfopt %s\nevals %d\nbest %s\nhits",
		runMagic, r.Function, r.Instance, r.Dim, hexFloat(r.Fopt), r.Evals, hexFloat(r.BestDelta))
	for _, h := range r.Hits {
		fmt.Fprintf(&b, " %d", h)
	}
	b.WriteByte('\n')
	for _, block := range []struct {
		name  string
		lines []byte
	}{{"dat", r.Dat}, {"tdat", r.Tdat}, {"rdat", r.Rdat}} {
		if len(block.lines) > 0 && block.lines[len(block.lines)-1] != '\n' {
			return nil, fmt.Errorf("coco: run f%d instance %d: the %s lines do not end with a newline", r.Function, r.Instance, block.name)
		}
		fmt.Fprintf(&b, "%s %d\n", block.name, bytes.Count(block.lines, []byte{'\n'}))
		b.Write(block.lines)
	}
	return b.Bytes(), nil
}

// hexFloat formats v exactly ("+Inf" for infinity).
func hexFloat(v float64) string {
	return strconv.FormatFloat(v, 'x', -1, 64)
}

// UnmarshalText reads a run written by MarshalText. It reports the first
// line that is missing, malformed or out of range, and leaves r unchanged
// on error.
func (r *Run) UnmarshalText(text []byte) error {
	p := runParser{lines: strings.SplitAfter(string(text), "\n")}
	var run Run
	if line := p.next(); line != runMagic {
		return p.errorf("want %q, got %q", runMagic, line)
	}
	run.Function = p.count("function", 1)
	run.Instance = p.count("instance", 1)
	run.Dim = p.count("dim", 1)
	run.Fopt = p.number("fopt")
	run.Evals = p.count("evals", 0)
	run.BestDelta = p.number("best")
	hits := p.fields("hits")
	if p.err == nil && len(hits) != NumTargets {
		p.fail("hits: %d numbers, want %d", len(hits), NumTargets)
	}
	for j := range hits {
		if p.err != nil {
			break
		}
		h, err := strconv.Atoi(hits[j])
		if err != nil || h < 0 || h > run.Evals || (j > 0 && h > 0 && (run.Hits[j-1] == 0 || h < run.Hits[j-1])) {
			p.fail("hits: %q is not a count in [0, evals] that follows the previous targets' counts", hits[j])
		}
		run.Hits[j] = h
	}
	run.Dat = p.block("dat")
	run.Tdat = p.block("tdat")
	run.Rdat = p.block("rdat")
	if p.err == nil && p.i < len(p.lines) && p.lines[p.i] != "" {
		p.fail("unexpected text after the rdat lines")
	}
	if p.err == nil {
		if err := run.Problem.check(); err != nil {
			return err
		}
		if math.IsNaN(run.BestDelta) || run.BestDelta < 0 {
			p.fail("best: %v is not a difference f - fopt", run.BestDelta)
		}
	}
	if p.err == nil {
		// The targets reached are those at or above the best Δ, as the
		// observer records them (level): a count for a target the best
		// does not reach, or none for one it does, is an edited record.
		lv := level(run.BestDelta)
		for j, h := range run.Hits {
			if k := MaxTargetLevel - j; (h > 0) != (k >= lv) {
				p.fail("hits: the target %g has the count %d, but the best Δ is %g", Target(k), h, run.BestDelta)
				break
			}
		}
	}
	if p.err != nil {
		return p.err
	}
	*r = run
	return nil
}

// runParser reads the lines of a Run's text form, keeping the first error.
type runParser struct {
	lines []string
	i     int // index of the next line
	err   error
}

// next returns the next line without its newline ("" at the end).
func (p *runParser) next() string {
	if p.i >= len(p.lines) {
		p.i++
		return ""
	}
	line := p.lines[p.i]
	p.i++
	return strings.TrimSuffix(line, "\n")
}

func (p *runParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = p.errorf(format, args...)
	}
}

func (p *runParser) errorf(format string, args ...any) error {
	return fmt.Errorf("coco: run record line %d: %s", p.i, fmt.Sprintf(format, args...))
}

// fields reads the line "key v1 v2 ..." and returns the values.
func (p *runParser) fields(key string) []string {
	if p.err != nil {
		return nil
	}
	f := strings.Fields(p.next())
	if len(f) == 0 || f[0] != key {
		p.fail("want a line that starts with %q", key)
		return nil
	}
	return f[1:]
}

// value reads the line "key value".
func (p *runParser) value(key string) string {
	f := p.fields(key)
	if p.err == nil && len(f) != 1 {
		p.fail("%s: want one value, got %d", key, len(f))
		return ""
	}
	if p.err != nil {
		return ""
	}
	return f[0]
}

// count reads "key n" with n ≥ least.
func (p *runParser) count(key string, least int) int {
	s := p.value(key)
	if p.err != nil {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		p.fail("%s: %q is not an integer of at least %d", key, s, least)
	}
	return n
}

// number reads "key v".
func (p *runParser) number(key string) float64 {
	s := p.value(key)
	if p.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail("%s: %q is not a number", key, s)
	}
	return v
}

// block reads "name n" followed by n lines, and returns those lines.
func (p *runParser) block(name string) []byte {
	n := p.count(name, 0)
	if p.err != nil {
		return nil
	}
	if p.i+n > len(p.lines) {
		p.fail("%s: %d lines announced, %d left", name, n, len(p.lines)-p.i)
		return nil
	}
	var b []byte
	for _, line := range p.lines[p.i : p.i+n] {
		if !strings.HasSuffix(line, "\n") || strings.HasPrefix(line, "%") {
			p.fail("%s: line %q is not a data line", name, strings.TrimSuffix(line, "\n"))
			return nil
		}
		b = append(b, line...)
	}
	p.i += n
	return b
}
