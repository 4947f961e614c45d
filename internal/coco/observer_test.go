package coco

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// evaluation is one observed evaluation of a test run.
type evaluation struct {
	x []float64
	f float64
}

// observe runs an Observer over evals, calling Restart before the
// evaluations whose index is in restartsBefore, and returns the record.
func observe(t *testing.T, p Problem, evals []evaluation, restartsBefore ...int) *Run {
	t.Helper()
	o, err := NewObserver(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evals {
		for _, r := range restartsBefore {
			if r == i {
				o.Restart()
			}
		}
		o.Observe(e.x, e.f)
	}
	return o.Finish()
}

// cLine formats a data line with fmt's C-like verbs, independently of the
// package's strconv-based formatting: evals, 0, best Δ, f, best f, x.
func cLine(evals int, bestDelta, f, bestF float64, x ...float64) string {
	s := fmt.Sprintf("%d %d %+10.9e %+10.9e %+10.9e", evals, 0, bestDelta, f, bestF)
	for _, v := range x {
		s += fmt.Sprintf(" %+5.4e", v)
	}
	return s + "\n"
}

// TestObserverLines follows a hand-made run of 9 evaluations in d = 2 with
// fopt = 10 and checks every .dat, .tdat and .rdat line and the hits.
func TestObserverLines(t *testing.T) {
	const fopt = 10
	p := Problem{Function: 3, Instance: 2, Dim: 2, Fopt: fopt}
	evals := []evaluation{
		{[]float64{1, 2}, fopt + 500},          // 1: first line; level 14, above every recorded target
		{[]float64{1.5, -2}, fopt + 600},       // 2: worse
		{[]float64{0.25, 0.5}, fopt + 50},      // 3: level 9: targets 10^2 and 10^1.8 hit
		{[]float64{0.125, 0.5}, fopt + 45},     // 4: better, same level: no .dat line
		{[]float64{0.1, 0.2}, math.NaN()},      // 5: NaN, logged as 2e21
		{[]float64{0.01, 0.02}, fopt + 1e-9},   // 6: below 1e-8: every target hit
		{[]float64{-3, 4}, math.Inf(1)},        // 7: +Inf, logged as 3e21
		{[]float64{0.5, 0.5}, fopt - 1},        // 8: below fopt: best becomes fopt, Δ = 0
		{[]float64{0.0625, -0.0625}, fopt + 1}, // 9: no trigger: Finish adds the last .dat and .tdat lines
	}
	r := observe(t, p, evals, 4) // a restart signalled before evaluation 5
	f6 := evals[5].f
	delta6 := f6 - fopt // not 1e-9: fopt + 1e-9 is rounded

	wantDat := cLine(1, 500, fopt+500, fopt+500, 1, 2) +
		cLine(3, 50, fopt+50, fopt+50, 0.25, 0.5) +
		cLine(6, delta6, f6, f6, 0.01, 0.02) +
		cLine(8, 0, fopt-1, fopt, 0.5, 0.5) +
		cLine(9, 0, fopt, fopt, 0.5, 0.5) // the best point and value
	// d = 2: .tdat at 1, 2, ..., 8 (⌊10^(i/20)⌋) and 2, 4 (d·{1,2}); not at 9.
	wantTdat := cLine(1, 500, fopt+500, fopt+500, 1, 2) +
		cLine(2, 500, fopt+600, fopt+500, 1.5, -2) +
		cLine(3, 50, fopt+50, fopt+50, 0.25, 0.5) +
		cLine(4, 45, fopt+45, fopt+45, 0.125, 0.5) +
		cLine(5, 45, 2e21, fopt+45, 0.1, 0.2) +
		cLine(6, delta6, f6, f6, 0.01, 0.02) +
		cLine(7, delta6, 3e21, f6, -3, 4) +
		cLine(8, 0, fopt-1, fopt, 0.5, 0.5) +
		cLine(9, 0, fopt, fopt, 0.5, 0.5) // the best point and value
	wantRdat := cLine(5, 45, 2e21, fopt+45, 0.1, 0.2)
	for _, c := range []struct{ name, got, want string }{
		{".dat", string(r.Dat), wantDat}, {".tdat", string(r.Tdat), wantTdat}, {".rdat", string(r.Rdat), wantRdat},
	} {
		if c.got != c.want {
			t.Errorf("%s lines:\n%s\nwant\n%s", c.name, c.got, c.want)
		}
	}
	if r.Evals != 9 || r.BestDelta != 0 || r.Problem != p {
		t.Errorf("Evals %d, BestDelta %v, Problem %+v; want 9, 0, %+v", r.Evals, r.BestDelta, r.Problem, p)
	}
	var wantHits [NumTargets]int
	wantHits[0], wantHits[1] = 3, 3 // 10^2, 10^1.8
	for j := 2; j < NumTargets; j++ {
		wantHits[j] = 6
	}
	if r.Hits != wantHits {
		t.Errorf("hits %v, want %v", r.Hits, wantHits)
	}
	if !r.Solved() {
		t.Error("Solved() = false for a run that reached 1e-9")
	}
	if e, ok := r.Hit(9); !ok || e != 3 {
		t.Errorf("Hit(9) = %d, %v; want 3, true", e, ok)
	}
}

// TestObserverLargeDim checks that the point is left out of the lines from
// d = 7 on, as COCO 2.8 does, and kept at d = 6.
func TestObserverLargeDim(t *testing.T) {
	for _, d := range []int{6, 7} {
		x := make([]float64, d)
		r := observe(t, Problem{Function: 1, Instance: 1, Dim: d, Fopt: 0}, []evaluation{{x, 3}})
		for _, line := range strings.Split(strings.TrimSpace(string(r.Dat)+string(r.Tdat)), "\n") {
			want := 5
			if d < 7 {
				want += d
			}
			if got := len(strings.Fields(line)); got != want {
				t.Errorf("d=%d: line %q has %d columns, want %d", d, line, got, want)
			}
		}
	}
}

// TestObserverHitsFromFirstEvaluation checks that targets already met by
// the first evaluation are hit at evaluation 1.
func TestObserverHitsFromFirstEvaluation(t *testing.T) {
	r := observe(t, Problem{Function: 1, Instance: 1, Dim: 2, Fopt: -1},
		[]evaluation{{[]float64{0, 0}, -1 + 0.5}, {[]float64{0, 1}, -1 + 0.05}})
	for k := MaxTargetLevel; k >= MinTargetLevel; k-- {
		e, ok := r.Hit(k)
		switch {
		case k >= -1: // 0.5 ≤ 10^(k/5) from k = -1 on
			if !ok || e != 1 {
				t.Errorf("level %d: hit %d, %v; want 1", k, e, ok)
			}
		case k >= -6: // 0.05 ≤ 10^(k/5) from k = -6 on (10^-1.2 = 0.063)
			if !ok || e != 2 {
				t.Errorf("level %d: hit %d, %v; want 2", k, e, ok)
			}
		default:
			if ok {
				t.Errorf("level %d: hit at %d, want none", k, e)
			}
		}
	}
	if r.Solved() {
		t.Error("Solved() = true for Δ = 0.05")
	}
}

// TestObserverErrors checks the constructor's errors and the panics on
// programming errors.
func TestObserverErrors(t *testing.T) {
	for _, p := range []Problem{
		{Function: 0, Instance: 1, Dim: 2},
		{Function: 1, Instance: 0, Dim: 2},
		{Function: 1, Instance: 1, Dim: 0},
		{Function: 1, Instance: 1, Dim: 2, Fopt: math.NaN()},
		{Function: 1, Instance: 1, Dim: 2, Fopt: math.Inf(-1)},
	} {
		if _, err := NewObserver(p); err == nil || !strings.HasPrefix(err.Error(), "coco: ") {
			t.Errorf("NewObserver(%+v): error %v, want one starting with coco:", p, err)
		}
	}
	o, err := NewObserver(Problem{Function: 1, Instance: 1, Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "wrong length", func() { o.Observe([]float64{1}, 1) })
	o.Observe([]float64{1, 2}, 5)
	first := o.Finish()
	second := o.Finish()
	if !reflect.DeepEqual(first, second) {
		t.Errorf("a second Finish changed the run:\n%+v\nthen\n%+v", first, second)
	}
	mustPanic(t, "after Finish", func() { o.Observe([]float64{1, 2}, 1) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if v := recover(); v == nil {
			t.Errorf("%s: no panic", what)
		} else if s, ok := v.(string); !ok || !strings.HasPrefix(s, "coco: ") {
			t.Errorf("%s: panic %v, want a message starting with coco:", what, v)
		}
	}()
	f()
}

// TestRunTextRoundTrip checks that UnmarshalText reads back what
// MarshalText wrote, and that it rejects damaged records.
func TestRunTextRoundTrip(t *testing.T) {
	r := observe(t, Problem{Function: 7, Instance: 12, Dim: 3, Fopt: 92.94}, []evaluation{
		{[]float64{1, 2, 3}, 200}, {[]float64{0, 2, 3}, 150}, {[]float64{0, 0, 3}, 93}, {[]float64{0, 0, 0}, 92.94 + 1e-12},
	}, 2)
	text, err := r.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := back.UnmarshalText(text); err != nil {
		t.Fatalf("UnmarshalText: %v\n%s", err, text)
	}
	if !reflect.DeepEqual(r, &back) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", &back, r)
	}

	s := string(text)
	damaged := map[string]string{
		"empty":           "",
		"magic":           strings.Replace(s, runMagic, "coco-run 2", 1),
		"truncated":       s[:len(s)-20],
		"function zero":   strings.Replace(s, "function 7", "function 0", 1),
		"bad fopt":        strings.Replace(s, "fopt ", "fopt x", 1),
		"hits count":      strings.Replace(s, "hits ", "hits 1 ", 1),
		"hits not count":  strings.Replace(s, "hits ", "hits -", 1),
		"hits order":      strings.Replace(s, "hits 2 2 ", "hits 2 1 ", 1),
		"hits past evals": strings.Replace(s, "evals 4", "evals 2", 1),
		"block count":     strings.Replace(s, "rdat 1", "rdat 2", 1),
		"header in block": strings.Replace(s, "tdat 4\n", "tdat 4\n% x\n", 1),
		"trailing text":   s + "more\n",
		"missing line":    strings.Replace(s, "dim 3\n", "", 1),
		// Edits that keep the format but not the run: the hits of targets
		// the best does not reach (a success made up), or a best below
		// targets without a hit.
		"best above hits": regexp.MustCompile(`\nbest [^\n]*\n`).ReplaceAllString(s, "\nbest 0x1p+00\n"),
		"best below hits": regexp.MustCompile(`(\nhits [^\n]*) \d+\n`).ReplaceAllString(s, "$1 0\n"),
	}
	for name, text := range damaged {
		if text == s {
			t.Fatalf("%s: the damage did not apply to\n%s", name, s)
		}
		before := back
		if err := back.UnmarshalText([]byte(text)); err == nil || !strings.HasPrefix(err.Error(), "coco: ") {
			t.Errorf("%s: error %v, want one starting with coco:", name, err)
		}
		if !reflect.DeepEqual(before, back) {
			t.Errorf("%s: a failed UnmarshalText changed the run", name)
		}
	}
}

// TestObserverLastLine checks the last .dat and .tdat lines of Finish: none
// when the last evaluation had its own line, one with the best point and
// value otherwise, and only once when Finish is called again.
func TestObserverLastLine(t *testing.T) {
	p := Problem{Function: 1, Instance: 1, Dim: 2, Fopt: 0}
	// Evaluation 3 (d = 2: a .tdat line at 3) reaches a new target.
	r := observe(t, p, []evaluation{{[]float64{1, 1}, 100}, {[]float64{2, 2}, 200}, {[]float64{0, 0.5}, 1}})
	if n := strings.Count(string(r.Dat), "\n"); n != 2 {
		t.Errorf(".dat has %d lines, want 2 (no last line after a logged evaluation):\n%s", n, r.Dat)
	}
	o, err := NewObserver(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []evaluation{{[]float64{1, 1}, 100}, {[]float64{2, 2}, 200}} {
		o.Observe(e.x, e.f)
	}
	o.Finish()
	r = o.Finish()
	if want := cLine(1, 100, 100, 100, 1, 1) + cLine(2, 100, 100, 100, 1, 1); string(r.Dat) != want {
		t.Errorf(".dat lines:\n%s\nwant\n%s", r.Dat, want)
	}
}
