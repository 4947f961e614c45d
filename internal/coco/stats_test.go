package coco

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// hitRun returns a run in dimension dim with evals evaluations that reached
// the targets of levels MaxTargetLevel down to lowest at evaluation at
// (lowest > MaxTargetLevel: none).
func hitRun(f, inst, dim, evals, at, lowest int) *Run {
	r := &Run{Problem: Problem{Function: f, Instance: inst, Dim: dim}, Evals: evals, BestDelta: 1}
	for k := MaxTargetLevel; k >= lowest && k >= MinTargetLevel; k-- {
		r.Hits[MaxTargetLevel-k] = at
	}
	return r
}

// TestERT checks the ERT against sums done by hand.
func TestERT(t *testing.T) {
	runs := []*Run{
		hitRun(1, 1, 2, 100, 100, MinTargetLevel), // solved at 100
		hitRun(1, 2, 2, 1000, 40, 0),              // 1e0 at 40, then stuck until 1000
		hitRun(1, 3, 2, 300, 300, MinTargetLevel), // solved at 300
	}
	cases := []struct {
		level     int
		ert       float64
		successes int
	}{
		{MinTargetLevel, (100 + 1000 + 300) / 2.0, 2},
		{-1, (100 + 1000 + 300) / 2.0, 2},
		{0, (100 + 40 + 300) / 3.0, 3},
		{MaxTargetLevel, (100 + 40 + 300) / 3.0, 3},
	}
	for _, c := range cases {
		ert, s := ERT(runs, c.level)
		if ert != c.ert || s != c.successes {
			t.Errorf("ERT(level %d) = %v, %d; want %v, %d", c.level, ert, s, c.ert, c.successes)
		}
	}
	if ert, s := ERT(runs[1:2], MinTargetLevel); !math.IsInf(ert, 1) || s != 0 {
		t.Errorf("ERT without success = %v, %d; want +Inf, 0", ert, s)
	}
	if ert, s := ERT(nil, 0); !math.IsInf(ert, 1) || s != 0 {
		t.Errorf("ERT of no runs = %v, %d; want +Inf, 0", ert, s)
	}
}

// TestSummaryCSV checks the grouping, the columns and the number format.
func TestSummaryCSV(t *testing.T) {
	runs := []*Run{
		hitRun(2, 1, 3, 90, 30, -20),            // 1e-4 reached at 30, run of 90
		hitRun(1, 1, 2, 50, 50, MinTargetLevel), // solved
		hitRun(2, 2, 3, 60, 10, MinTargetLevel), // solved at 10
		hitRun(1, 2, 2, 7, 7, MinTargetLevel),   // solved at 7
	}
	rows := Summarize("cma11", runs)
	var b bytes.Buffer
	if err := WriteSummaryCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "algorithm,function,dim,runs,successes,ert_1e1,ert_1e0,ert_1e-1,ert_1e-2,ert_1e-3,ert_1e-4,ert_1e-5,ert_1e-6,ert_1e-7,ert_1e-8\n" +
		"cma11,1,2,2,2,28.5,28.5,28.5,28.5,28.5,28.5,28.5,28.5,28.5,28.5\n" +
		"cma11,2,3,2,1,20,20,20,20,20,20,100,100,100,100\n"
	if b.String() != want {
		t.Errorf("summary\n%s\nwant\n%s", b.String(), want)
	}
	rows[0].ERT = rows[0].ERT[:3]
	if err := WriteSummaryCSV(&b, rows); err == nil {
		t.Error("no error for a summary with 3 ERTs")
	}
	if got := FormatERT(math.Inf(1)); got != "Inf" {
		t.Errorf("FormatERT(+Inf) = %q", got)
	}
	if got := FormatERT(1.0 / 3); got != "0.3333333333333333" {
		t.Errorf("FormatERT(1/3) = %q", got)
	}
}

// TestECDF checks the step points on two runs in d = 2 and 4.
func TestECDF(t *testing.T) {
	runs := []*Run{
		hitRun(1, 1, 2, 100, 4, 1),               // levels 10 … 1: 10 targets at 4/2 = 2
		hitRun(1, 2, 4, 400, 40, MinTargetLevel), // all 51 targets at 40/4 = 10
	}
	x, y := ECDF(runs)
	const pairs = 2 * NumTargets
	wantX := []float64{math.Log10(2), math.Log10(2), 1, 2}
	wantY := []float64{0, 10.0 / pairs, 61.0 / pairs, 61.0 / pairs}
	if len(x) != len(wantX) || len(y) != len(wantY) {
		t.Fatalf("ECDF = %v, %v; want %v, %v", x, y, wantX, wantY)
	}
	for i := range x {
		if math.Abs(x[i]-wantX[i]) > 1e-15 || y[i] != wantY[i] {
			t.Errorf("point %d = (%v, %v), want (%v, %v)", i, x[i], y[i], wantX[i], wantY[i])
		}
	}
	x, y = ECDF([]*Run{hitRun(1, 1, 5, 50, 0, MaxTargetLevel+1)})
	if len(x) != 2 || math.Abs(x[0]-math.Log10(0.2)) > 1e-15 || math.Abs(x[1]-1) > 1e-15 || y[0] != 0 || y[1] != 0 {
		t.Errorf("ECDF without hits = %v, %v", x, y)
	}
	if x, y := ECDF(nil); x != nil || y != nil {
		t.Errorf("ECDF(nil) = %v, %v", x, y)
	}
}

// TestHitRangePanics checks the programming error of asking for a level
// outside the recorded targets.
func TestHitRangePanics(t *testing.T) {
	r := hitRun(1, 1, 2, 10, 1, 0)
	for _, k := range []int{MaxTargetLevel + 1, MinTargetLevel - 1} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.HasPrefix(v, "coco: ") {
					t.Errorf("Hit(%d): panic %q", k, v)
				}
			}()
			r.Hit(k)
		}()
	}
}
