package es

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// closeTo reports whether got is within rel (relative) of want.
func closeTo(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestTraceColumns(t *testing.T) {
	s := newFake(2, 3, 1)
	s.a = linalg.NewDense(2, 2, []float64{1, 0, 0, 2}) // C = diag(1, 4)
	s.stopAt, s.stopReason = 7, ReasonTolFun
	tr := &Trace{Interval: 3}
	h := linalg.NewDense(2, 2, []float64{4, 0, 0, 1}) // A^T H A = diag(4, 4)
	res, err := Minimize(context.Background(), Func(sphere), s, Options{Trace: tr, Hessian: h})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Rows) != 7 {
		t.Fatalf("%d rows, want 7 (one per generation)", len(tr.Rows))
	}
	best := math.Inf(1)
	for i, r := range tr.Rows {
		if r.Generation != i+1 || r.Evals != 3*(i+1) || r.Restarts != 0 {
			t.Errorf("row %d: generation %d, evals %d, restarts %d", i, r.Generation, r.Evals, r.Restarts)
		}
		if r.MeanKnown {
			t.Errorf("row %d: f(m) known, but no candidate is the mean", i)
		}
		best = min(best, r.FGeneration)
		if r.FBest != best || r.FGeneration < r.FBest {
			t.Errorf("row %d: f_generation %g, f_best %g, running minimum %g", i, r.FGeneration, r.FBest, best)
		}
		if want := 0.5 * math.Pow(0.9, float64(i+1)); !closeTo(r.Sigma, want, 1e-15) {
			t.Errorf("row %d: sigma %g, want %g", i, r.Sigma, want)
		}
		wantMatrix := r.Generation%3 == 0
		if r.Matrix != wantMatrix || r.Whitened != wantMatrix {
			t.Errorf("row %d (generation %d): matrix columns %v/%v, want %v", i, r.Generation, r.Matrix, r.Whitened, wantMatrix)
		}
		if !wantMatrix {
			continue
		}
		// cond(C) = 4, tr(C)/det(C)^(1/2) = 5/2, ln|det A| = ln 2;
		// A^T H A = 4 I: cond 1, normalised trace d = 2.
		if !closeTo(r.CondC, 4, 1e-14) || !closeTo(r.NormTraceC, 2.5, 1e-14) || !closeTo(r.LogDetA, math.Ln2, 1e-14) {
			t.Errorf("row %d: cond_C %v normtrace_C %v logdet_A %v, want 4, 2.5, ln 2", i, r.CondC, r.NormTraceC, r.LogDetA)
		}
		if !closeTo(r.CondAHA, 1, 1e-14) || !closeTo(r.NormTraceAHA, 2, 1e-14) {
			t.Errorf("row %d: cond_AHA %v normtrace_AHA %v, want 1, 2", i, r.CondAHA, r.NormTraceAHA)
		}
	}
	if res.F != tr.Rows[6].FBest {
		t.Errorf("last f_best %g, result F %g", tr.Rows[6].FBest, res.F)
	}
}

func TestTraceMeanValue(t *testing.T) {
	s := newFake(3, 4, 2)
	s.meanFirst = true
	s.stopAt, s.stopReason = 4, ReasonTolFun
	// f(m) of the mean each generation starts from: (1, 1, 1) first, then
	// the mean after the previous generation.
	wantFMean := []float64{3}
	tr := &Trace{}
	_, err := Minimize(context.Background(), Func(sphere), s, Options{Trace: tr, Progress: func(p Progress) {
		wantFMean = append(wantFMean, sphere(p.Strategy.Mean(nil)))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Rows) != 4 {
		t.Fatalf("%d rows, want 4", len(tr.Rows))
	}
	for i, r := range tr.Rows {
		if !r.MeanKnown || r.FMean != wantFMean[i] {
			t.Errorf("row %d: f_mean %v (known %v), want %v", i, r.FMean, r.MeanKnown, wantFMean[i])
		}
	}
}

func TestTraceWithoutHessian(t *testing.T) {
	s := newFake(3, 2, 1)
	s.stopAt, s.stopReason = 2, ReasonTolFun
	tr := &Trace{}
	if _, err := Minimize(context.Background(), Func(sphere), s, Options{Trace: tr}); err != nil {
		t.Fatal(err)
	}
	for i, r := range tr.Rows {
		if !r.Matrix || r.Whitened {
			t.Errorf("row %d: matrix %v, whitened %v; want true, false", i, r.Matrix, r.Whitened)
		}
		if !closeTo(r.CondC, 1, 1e-15) || !closeTo(r.NormTraceC, 3, 1e-15) || r.LogDetA != 0 {
			t.Errorf("row %d: A = I gives cond %v, normalised trace %v, log det %v; want 1, 3, 0", i, r.CondC, r.NormTraceC, r.LogDetA)
		}
	}
}

func TestTraceDoesNotChangeTheRun(t *testing.T) {
	run := func(tr *Trace) Result {
		s := newFake(3, 5, 4)
		res, err := Minimize(context.Background(), Func(sphere), s, Options{MaxEvals: 200, Trace: tr})
		if err != nil {
			t.Fatal(err)
		}
		res.Elapsed = 0
		return res
	}
	if a, b := run(nil), run(&Trace{Interval: 2}); fmt.Sprintf("%x", a) != fmt.Sprintf("%x", b) {
		t.Errorf("with a trace %x, without %x", b, a)
	}
}

func TestTraceWriteCSV(t *testing.T) {
	tr := &Trace{Rows: []TraceRow{
		{Generation: 1, Evals: 9, FGeneration: 0.1, FBest: 0.1, Sigma: 2, Matrix: true,
			CondC: 1, NormTraceC: 5, LogDetA: -0.0},
		{Generation: 2, Evals: 18, Restarts: 1, FMean: math.NaN(), MeanKnown: true,
			FGeneration: math.Inf(1), FBest: 1.0 / 3, Sigma: 1e-300},
		{Generation: 3, Evals: 27, FMean: 7, MeanKnown: true, FGeneration: math.Inf(-1), FBest: math.Inf(-1),
			Sigma: 0.5, Matrix: true, CondC: 1e14, NormTraceC: math.Pi, LogDetA: 1e-17,
			Whitened: true, CondAHA: 3, NormTraceAHA: math.E},
	}}
	var buf bytes.Buffer
	if err := tr.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	wantHeader := "generation,evals,restarts,f_mean,f_generation,f_best,sigma,cond_C,normtrace_C,logdet_A,cond_AHA,normtrace_AHA"
	if lines[0] != wantHeader {
		t.Fatalf("header %q, want %q", lines[0], wantHeader)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4", len(lines))
	}
	wantLine2 := "2,18,1,NaN,+Inf,0.3333333333333333,1e-300,,,,,"
	if lines[2] != wantLine2 {
		t.Errorf("line 2 %q, want %q", lines[2], wantLine2)
	}
	for i, line := range lines[1:] {
		cells := strings.Split(line, ",")
		if len(cells) != 12 {
			t.Fatalf("line %d has %d cells, want 12", i+1, len(cells))
		}
		r := tr.Rows[i]
		want := []struct {
			v   float64
			set bool
		}{
			{r.FMean, r.MeanKnown}, {r.FGeneration, true}, {r.FBest, true}, {r.Sigma, true},
			{r.CondC, r.Matrix}, {r.NormTraceC, r.Matrix}, {r.LogDetA, r.Matrix},
			{r.CondAHA, r.Whitened}, {r.NormTraceAHA, r.Whitened},
		}
		for j, w := range want {
			cell := cells[3+j]
			if !w.set {
				if cell != "" {
					t.Errorf("line %d column %d = %q, want empty", i+1, 3+j, cell)
				}
				continue
			}
			got, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.Float64bits(got) != math.Float64bits(w.v) && !(math.IsNaN(got) && math.IsNaN(w.v)) {
				t.Errorf("line %d column %d = %q, does not read back as %v (bits)", i+1, 3+j, cell, w.v)
			}
		}
	}
}

// TestTraceWhitenedHessianConverges records the trace of the (1+4)-HE-ES on
// an ellipsoid with a known Hessian: A^T H A goes from cond(H) to about 1
// (docs/ALGORITHMS.md Section 11 item 2), so C = A A^T takes the condition of
// H^-1.
func TestTraceWhitenedHessianConverges(t *testing.T) {
	p, err := objectives.Parse("ellipsoid:cond=1e4", 5)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := p.Hessian()
	if !ok {
		t.Fatal("no Hessian")
	}
	s, err := New("hees14", Config{Dim: 5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{}
	res, err := Minimize(context.Background(), p, s, Options{MaxEvals: 4 * 1000, Trace: tr, Hessian: h})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Rows) < 100 {
		t.Fatalf("%d rows (stopped by %q), want at least 100", len(tr.Rows), res.Reason)
	}
	first, last := tr.Rows[0], tr.Rows[len(tr.Rows)-1]
	// The normalised trace is at least d in exact arithmetic (AM-GM), and
	// within rounding of d once A^T H A is a multiple of I.
	if first.CondAHA < 1000 || last.CondAHA > 1.1 || last.NormTraceAHA > 5*1.001 || last.NormTraceAHA < 5*(1-1e-12) {
		t.Errorf("cond(A^T H A) %g at generation 1 and %g at %d (normalised trace %g); want > 1000, then < 1.1 and about d = 5",
			first.CondAHA, last.CondAHA, last.Generation, last.NormTraceAHA)
	}
	if !closeTo(last.CondC, 1e4, 0.2) {
		t.Errorf("cond(C) %g at the end, want about cond(H) = 1e4", last.CondC)
	}
}

func TestTraceSingularTransform(t *testing.T) {
	s := newFake(2, 2, 1)
	s.a = linalg.NewDense(2, 2, []float64{1, 0, 0, 0}) // C = diag(1, 0)
	s.stopAt, s.stopReason = 1, ReasonTolFun
	tr := &Trace{}
	if _, err := Minimize(context.Background(), Func(sphere), s, Options{Trace: tr}); err != nil {
		t.Fatal(err)
	}
	r := tr.Rows[0]
	if !r.Matrix || !math.IsNaN(r.CondC) || !math.IsNaN(r.NormTraceC) || !math.IsInf(r.LogDetA, -1) {
		t.Errorf("singular A: cond %v, normalised trace %v, log det %v; want NaN, NaN, -Inf", r.CondC, r.NormTraceC, r.LogDetA)
	}
}

// TestDefaultTraceInterval checks the rule max(1, ceil(k d / lambda)).
func TestDefaultTraceInterval(t *testing.T) {
	for _, c := range []struct {
		d, lambda int
		hessian   bool
		want      int
	}{
		{300, 21, false, 572}, {300, 21, true, 1429}, {10, 11, false, 37}, {2, 1000, false, 1},
		{40, 40, false, 40}, {0, 0, false, 40}, {1, -3, true, 100},
	} {
		if got := DefaultTraceInterval(c.d, c.lambda, c.hessian); got != c.want {
			t.Errorf("DefaultTraceInterval(%d, %d, %t) = %d, want %d", c.d, c.lambda, c.hessian, got, c.want)
		}
	}
}
