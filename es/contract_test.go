package es

import (
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestNilWrappers: every method of a nil *IPOP and a nil *BIPOP, and of
// zero ones, answers without a panic: zero values, or an error for Ask,
// Tell, MarshalBinary, UnmarshalBinary and Minimize.
func TestNilWrappers(t *testing.T) {
	for _, s := range []Strategy{(*IPOP)(nil), (*BIPOP)(nil), new(IPOP), new(BIPOP)} {
		var pop linalg.Dense
		if err := s.Ask(&pop); err == nil {
			t.Errorf("%T %v: Ask: no error", s, s == nil)
		}
		if err := s.Tell([]float64{1}); err == nil {
			t.Errorf("%T: Tell: no error", s)
		}
		if _, err := s.MarshalBinary(); err == nil {
			t.Errorf("%T: MarshalBinary: no error", s)
		}
		if err := s.UnmarshalBinary([]byte("hees-es/ipop/v1\n")); err == nil {
			t.Errorf("%T: UnmarshalBinary of a truncated state: no error", s)
		}
		x, f := s.Best()
		if s.Dim() != 0 || s.PopulationSize() != 0 || s.Sigma() != 0 || s.Evals() != 0 || s.Generation() != 0 ||
			s.Stop() != "" || len(s.Mean(nil)) != 0 || x != nil || f != math.Inf(1) || TransformOf(s) != nil ||
			!strings.HasSuffix(s.Name(), "-") || restartsOf(s) != 0 {
			t.Errorf("%T: a nil or zero wrapper reports a state", s)
		}
		if _, err := Minimize(context.Background(), Func(stSphere), s, Options{MaxEvals: 10}); err == nil ||
			!strings.Contains(err.Error(), "not set up") {
			t.Errorf("%T: Minimize: %v, want \"not set up\"", s, err)
		}
	}
	var nilIPOP *IPOP
	if err := nilIPOP.UnmarshalBinary(nil); err == nil || !strings.Contains(err.Error(), "nil *IPOP") {
		t.Errorf("UnmarshalBinary into a nil *IPOP: %v", err)
	}
	var nilBIPOP *BIPOP
	if _, small := nilBIPOP.Budgets(); small != 0 || nilBIPOP.Small() || nilBIPOP.Restarts() != 0 {
		t.Error("a nil BIPOP reports budgets or restarts")
	}
}

// TestMeanLength: Mean writes Dim numbers whatever the length of dst, and
// reuses dst's storage when it is large enough.
func TestMeanLength(t *testing.T) {
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 4, Seed: 3})
		want := s.Mean(nil)
		for _, dst := range [][]float64{nil, make([]float64, 2), make([]float64, 7), make([]float64, 4)} {
			got := s.Mean(dst)
			if !slices.Equal(got, want) {
				t.Errorf("%s: Mean(len %d) = %v, want %v", name, len(dst), got, want)
			}
			if cap(dst) >= 4 && &got[0] != &dst[0] {
				t.Errorf("%s: Mean(len %d) did not reuse dst", name, len(dst))
			}
		}
	}
}

// TestNilContext: Minimize with a nil context is an error, not a panic.
func TestNilContext(t *testing.T) {
	s := stNew(t, HEES2, Config{Dim: 3})
	var ctx context.Context // nil
	if _, err := Minimize(ctx, Func(stSphere), s, Options{MaxEvals: 10}); err == nil || !strings.Contains(err.Error(), "nil Context") {
		t.Errorf("Minimize(nil ctx): %v", err)
	}
}

// badAsk is a Strategy of the caller's whose Ask breaks the contract: it
// writes rows × cols candidates.
type badAsk struct {
	Strategy
	rows, cols int
}

func (b badAsk) Ask(pop *linalg.Dense) error {
	pop.Reset()
	if b.rows > 0 {
		pop.ReuseAs(b.rows, b.cols)
	}
	return nil
}

// TestBadGeneration: a generation of no rows or of rows of the wrong length
// stops Run and Minimize with ReasonStrategyError and an error, never a
// panic.
func TestBadGeneration(t *testing.T) {
	for _, shape := range [][2]int{{0, 0}, {3, 2}, {3, 5}} {
		s := badAsk{Strategy: stNew(t, HEES2, Config{Dim: 3}), rows: shape[0], cols: shape[1]}
		res, err := Minimize(context.Background(), Func(stSphere), s, Options{MaxEvals: 100, Workers: 3})
		if err == nil || res.Reason != ReasonStrategyError || !strings.Contains(err.Error(), "want at least one of Dim = 3") {
			t.Errorf("%d×%d: Minimize: %v, %q", shape[0], shape[1], err, res.Reason)
		}
	}
}

// TestRunContract: the errors of Run that callers tell apart with
// errors.Is, and Stop's checks of its arguments.
func TestRunContract(t *testing.T) {
	s := stNew(t, HEES, Config{Dim: 3, Seed: 1})
	run, err := NewRun(s, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Tell([]float64{1}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("Tell without Ask: %v, want ErrNoAsk", err)
	}
	pop, err := run.Ask()
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := pop.Dims()
	if err := run.Stop(ReasonCanceled, make([]bool, rows+1)); err == nil || run.Reason() != "" {
		t.Errorf("Stop with %d rows marked for %d: %v, reason %q", rows+1, rows, err, run.Reason())
	}
	if err := run.Stop("bogus reason", nil); err == nil || run.Reason() != "" {
		t.Errorf("Stop(bogus): %v, reason %q", err, run.Reason())
	}
	if err := run.Stop(ReasonCanceled, make([]bool, rows)); err != nil || run.Reason() != ReasonCanceled {
		t.Errorf("Stop: %v, reason %q", err, run.Reason())
	}
	if err := run.Tell(make([]float64, rows)); !errors.Is(err, ErrStopped) {
		t.Errorf("Tell after Stop: %v, want ErrStopped", err)
	}
	// A strategy that stopped refuses Ask with ErrStopped; a Tell without
	// Ask is ErrNoAsk; bytes that are no state are ErrCorruptState.
	h := stNew(t, HEES, Config{Dim: 3, Seed: 1})
	if err := h.Tell([]float64{1}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("strategy Tell without Ask: %v", err)
	}
	h.(*hees).stop = ReasonTolFun
	var m linalg.Dense
	if err := h.Ask(&m); !errors.Is(err, ErrStopped) {
		t.Errorf("strategy Ask after its stop: %v", err)
	}
	data, _ := stNew(t, HEES, Config{Dim: 3}).MarshalBinary()
	for _, bad := range [][]byte{nil, []byte("png"), data[:len(data)-3], append(slices.Clone(data), 0)} {
		if _, err := Load(bad); !errors.Is(err, ErrCorruptState) {
			t.Errorf("Load of %d bad bytes: %v, want ErrCorruptState", len(bad), err)
		}
	}
}

// TestReasons: every stop reason parses back; the empty reason means no
// stop; anything else is an error.
func TestReasons(t *testing.T) {
	for _, r := range append(Reasons(), "") {
		if got, err := ParseReason(string(r)); err != nil || got != r {
			t.Errorf("ParseReason(%q) = %q, %v", r, got, err)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(Reasons())))) != len(Reasons()) {
		t.Error("a reason is listed twice")
	}
	if _, err := ParseReason("bogus reason"); err == nil || !strings.Contains(err.Error(), `"bogus reason"`) {
		t.Errorf("ParseReason(bogus): %v", err)
	}
}

// TestStepSize: the step size in the objective's units is Sigma times the
// geometric mean of Stds (Sigma without them, and for a box's default
// scales, whose geometric mean is 1), for a strategy and its wrappers.
func TestStepSize(t *testing.T) {
	s := stNew(t, HEES2, Config{Dim: 2, Sigma0: 0.5, Stds: []float64{100, 1}})
	if got := StepSize(s); math.Abs(got-5) > 1e-12 {
		t.Errorf("StepSize with Stds 100, 1 and sigma 0.5: %v, want 5", got)
	}
	w, err := NewIPOP(HEES2, Config{Dim: 2, Sigma0: 0.5, Stds: []float64{100, 1}}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got := StepSize(w); math.Abs(got-5) > 1e-12 {
		t.Errorf("StepSize of the IPOP: %v, want 5", got)
	}
	b := stNew(t, CMAES, Config{Dim: 2, Bounds: &Bounds{Lower: []float64{0, 0}, Upper: []float64{1, 100}}})
	if got := StepSize(b); math.Abs(got-b.Sigma()) > 1e-12 {
		t.Errorf("StepSize with a box's scales: %v, Sigma %v", got, b.Sigma())
	}
	if StepSize((*IPOP)(nil)) != 0 {
		t.Error("StepSize of a nil IPOP is not 0")
	}
}

// TestZeroRun: a Run not made by NewRun answers every method with an
// error or an empty value, and a nil strategy has step size 0 (before: a
// nil dereference); a negative Trace.WriteCSVRows from is an error
// (before: index out of range).
func TestZeroRun(t *testing.T) {
	var r Run
	if pop, err := r.Ask(); pop != nil || err == nil || !strings.Contains(err.Error(), "not set up") {
		t.Errorf("Ask: %v, %v", pop, err)
	}
	for name, err := range map[string]error{
		"Tell":   r.Tell([]float64{1}),
		"Stop":   r.Stop(ReasonCanceled, nil),
		"Inject": r.Inject([][]float64{{1, 2}}),
	} {
		if err == nil || !strings.Contains(err.Error(), "not set up") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if x, f := r.Best(); x != nil || !math.IsInf(f, 1) {
		t.Errorf("Best: %v, %v", x, f)
	}
	if res := r.Result(); res.X != nil || !math.IsInf(res.F, 1) || res.Evals != 0 || r.Restarts() != 0 {
		t.Errorf("Result: %+v", res)
	}
	if s := StepSize(nil); s != 0 {
		t.Errorf("StepSize(nil) = %v", s)
	}
	if err := (&Trace{}).WriteCSVRows(io.Discard, -1); err == nil {
		t.Error("WriteCSVRows from -1: no error")
	}
	if err := (&Trace{}).WriteCSVRows(io.Discard, 3); err != nil {
		t.Errorf("WriteCSVRows past the last row: %v", err)
	}
}
