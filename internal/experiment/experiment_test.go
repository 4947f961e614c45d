package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// TestFig2MatchesLibraryTrace checks the values one run records at
// iteration t against what es.Minimize's trace reports for the same
// configuration after generation t (its cond_C and normtrace_C columns),
// up to the rounding of the two formulas.
func TestFig2MatchesLibraryTrace(t *testing.T) {
	const d, iters = 5, 60
	e := &Fig2{Dim: d, Runs: 1, Iters: iters, Every: 1}
	its := e.recordedIterations()
	r, err := e.oneRun("hees14", 7, its)
	if err != nil {
		t.Fatal(err)
	}
	sphere, err := objectives.NewSphere(d)
	if err != nil {
		t.Fatal(err)
	}
	x0 := []float64{1, 1, 1, 1, 1}
	s, err := es.New("hees14", es.Config{Dim: d, Seed: 7, Sigma0: 1, X0: x0, A0: fig2InitialTransform(d), TolFun: -1})
	if err != nil {
		t.Fatal(err)
	}
	trace := &es.Trace{}
	if _, err := es.Minimize(context.Background(), es.Func(sphere.Eval), s, es.Options{Trace: trace, MaxEvals: 1 + 4*iters}); err != nil {
		t.Fatal(err)
	}
	if len(trace.Rows) != iters+1 {
		t.Fatalf("library trace has %d rows, want %d", len(trace.Rows), iters+1)
	}
	for k, row := range trace.Rows {
		if row.Generation-1 != its[k] {
			t.Fatalf("row %d is generation %d, want %d", k, row.Generation, its[k]+1)
		}
		if got, want := r.condMinus1[k], row.CondC-1; math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("iteration %d: cond(C) - 1 = %v, library %v", its[k], got, want)
		}
		if got, want := r.traceMinusD[k], row.NormTraceC-d; math.Abs(got-want) > 1e-12*math.Max(1, row.NormTraceC) {
			t.Errorf("iteration %d: tr(C) - d = %v, library %v", its[k], got, want)
		}
		if r.fBest[k] != row.FBest {
			t.Errorf("iteration %d: best f = %v, library %v", its[k], r.fBest[k], row.FBest)
		}
	}
}

// TestCovarianceDeviation compares with the direct formulas where they are
// accurate, and with the series where the direct trace would cancel.
func TestCovarianceDeviation(t *testing.T) {
	// A moderately conditioned matrix: the library's NormalizedTrace - d
	// and CondSym - 1 are accurate there.
	c := linalg.NewDense(3, 3, []float64{
		4, 1, 0.5,
		1, 3, 0.2,
		0.5, 0.2, 0.5,
	})
	values, _, err := linalg.SymEig(c)
	if err != nil {
		t.Fatal(err)
	}
	cond, trace := covarianceDeviation(values)
	wantCond, err := linalg.CondSym(c)
	if err != nil {
		t.Fatal(err)
	}
	wantTrace, err := linalg.NormalizedTrace(c)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cond-(wantCond-1)) > 1e-13*wantCond || math.Abs(trace-(wantTrace-3)) > 1e-13*wantTrace {
		t.Errorf("got (%v, %v), want (%v, %v)", cond, trace, wantCond-1, wantTrace-3)
	}

	// Eigenvalues e^(v_i) with Σ v_i = 0 and tiny v_i: the result is
	// Σ (e^v - 1 - v) = Σ (v²/2 + v³/6 + v⁴/24 ...), with the odd terms
	// cancelling in ± pairs, and cond - 1 = e^(2 v_max) - 1.
	for _, v := range []float64{1e-3, 1e-7, 1e-12} {
		vs := []float64{-2 * v, -v, 0, v, 2 * v}
		values := make([]float64, len(vs))
		for i, x := range vs {
			values[i] = math.Exp(x) * 3 // any scale
		}
		cond, trace := covarianceDeviation(values)
		want := 0.0
		for _, x := range vs {
			want += x*x/2 + x*x*x*x/24
		}
		// math.Exp rounds the eigenvalues by about 1e-16, which moves v by
		// as much; the result moves by about v·1e-16 per term.
		tol := 1e-10*want + 10*v*1e-16
		if math.Abs(trace-want) > tol {
			t.Errorf("v = %g: tr - d = %v, want %v ± %v", v, trace, want, tol)
		}
		if wantCond := math.Expm1(4 * v); math.Abs(cond-wantCond) > 1e-9*wantCond+1e-15 {
			t.Errorf("v = %g: cond - 1 = %v, want %v", v, cond, wantCond)
		}
	}

	for _, bad := range [][]float64{{0, 1}, {-1, 1}, {1, math.Inf(1)}, {math.NaN(), 1}} {
		if c, tr := covarianceDeviation(bad); !math.IsNaN(c) || !math.IsNaN(tr) {
			t.Errorf("covarianceDeviation(%v) = %v, %v; want NaNs", bad, c, tr)
		}
	}
}

// TestMedianOf checks odd and even counts and that NaN ranks last.
func TestMedianOf(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{nan, 1, 2}, 2},
		{[]float64{nan, nan, 1}, nan},
		{[]float64{math.Inf(1), 1, 2}, 2},
		{[]float64{math.Inf(1), math.Inf(1), 2}, math.Inf(1)},
	} {
		got := Median(append([]float64(nil), tc.in...))
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestRunRefusesBadSettings checks that Run reports each bad setting with
// Check's message before it runs anything, and that good settings pass.
func TestRunRefusesBadSettings(t *testing.T) {
	good := Fig2{Dim: 2, Runs: 1, Iters: 1, Every: 1}
	if err := good.Check(); err != nil {
		t.Errorf("%+v: Check() = %v, want nil", good, err)
	}
	for _, e := range []Fig2{{Dim: 2, Runs: 1, Iters: 999_999, Every: 1}, {Dim: 2, Runs: 1, Iters: 1_999_998, Every: 2}} {
		if err := e.Check(); err != nil || len(e.recordedIterations()) != maxFig2Records {
			t.Errorf("%+v: Check() = %v with %d records, want nil with %d", e, err, len(e.recordedIterations()), maxFig2Records)
		}
	}
	goodCond := Condition{Dim: 2, Runs: 1, Budget: 1, Target: 0}
	if err := goodCond.Check(); err != nil {
		t.Errorf("%+v: Check() = %v, want nil", goodCond, err)
	}
	type runner interface {
		Run(io.Writer) ([]File, error)
	}
	for _, tc := range []struct {
		e    runner
		want string
	}{
		{&Fig2{Dim: 1, Runs: 1, Iters: 1, Every: 1}, "-d is 1, want at least 2 (the HE-ES compares two directions)"},
		{&Fig2{Dim: objectives.MaxDim + 1, Runs: 1, Iters: 1, Every: 1}, fmt.Sprintf("-d is %d, want at most %d", objectives.MaxDim+1, objectives.MaxDim)},
		{&Fig2{Dim: 2, Runs: 0, Iters: 1, Every: 1}, "-runs is 0, want at least 1"},
		{&Fig2{Dim: 2, Runs: 1, Workers: -1, Iters: 1, Every: 1}, "-workers is -1, want 0 (the number of CPUs) or more"},
		{&Fig2{Dim: 2, Runs: 1, Iters: 0, Every: 1}, "-iters is 0, want at least 1"},
		{&Fig2{Dim: 2, Runs: 1, Iters: 1, Every: 0}, "-every is 0, want at least 1"},
		{&Condition{Dim: 2, Runs: 0, Budget: 1}, "-runs is 0, want at least 1"},
		{&Condition{Dim: 2, Runs: 1, Budget: 0}, "-budget is 0, want at least 1"},
		{&Condition{Dim: 2, Runs: 1, Budget: 1, Target: math.Inf(-1)}, "-target is -Inf, want a finite number"},
		// Sizes that would not fit: the matrices of the runs at a time
		// (before: out of memory with a runtime trace), and a record of
		// every iteration beyond any memory (-iters near 2^63).
		{&Fig2{Dim: 100000, Runs: 1, Workers: 1, Iters: 1, Every: 1}, "-d 100000 with 1 runs at a time would need about 671 GiB of memory, more than 8 GiB: lower -d or -workers"},
		{&Fig2{Dim: 10000, Runs: 4, Workers: 3, Iters: 1, Every: 1}, "-d 10000 with 3 runs at a time would need about 20.1 GiB of memory, more than 8 GiB: lower -d or -workers"},
		{&Condition{Dim: 20000, Runs: 1, Workers: 1, Budget: 1}, "-d 20000 with 1 runs at a time would need about 17.9 GiB of memory, more than 8 GiB: lower -d or -workers"},
		{&Fig2{Dim: 2, Runs: 1, Iters: math.MaxInt, Every: 1}, fmt.Sprintf("-iters %d with -every 1 records more than 1000000 iterations per run (raise -every)", math.MaxInt)},
		{&Fig2{Dim: 2, Runs: 1, Iters: 1_000_000, Every: 1}, "-iters 1000000 with -every 1 records more than 1000000 iterations per run (raise -every)"},
		{&Fig2{Dim: 2, Runs: 1, Iters: 1_999_999, Every: 2}, "-iters 1999999 with -every 2 records more than 1000000 iterations per run (raise -every)"},
	} {
		var out strings.Builder
		files, err := tc.e.Run(&out)
		if err == nil || err.Error() != tc.want || files != nil || out.Len() > 0 {
			t.Errorf("%+v: Run() = %d files, %v, output %q; want no files, no output and %q", tc.e, len(files), err, out.String(), tc.want)
		}
	}
}
