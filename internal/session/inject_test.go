package session

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runspec"
)

// injectSession returns a cma11 session in 3 dimensions whose first batch
// is the known points, with the given retries and policy.
func injectSession(t *testing.T, known [][]float64, retries int, onError es.OnError) *Session {
	t.Helper()
	s, err := es.New("cma11", es.Config{Dim: 3, Seed: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "cma11", Restarts: "none", Seed: 2, Retries: retries, OnError: onError, LostLeases: 1}, Inject: known}, s)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// checkLine checks what Check makes of the tell line in.
func checkLine(t *testing.T, ss *Session, in string, want Problem, msg string) {
	t.Helper()
	lines, _, err := ReadTold(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, bad := ss.Check(lines); len(bad) != 1 || bad[0].Problem != want || !strings.Contains(bad[0].Msg, msg) {
		t.Errorf("%q: %v, want problem %d saying %q", in, bad, want, msg)
	}
}

// TestInject drives a session whose first batch is 3 known points, saved
// and read back after every step as the commands do: they are handed out
// as i0-<row> with their coordinates, leased, told (one after a failed
// attempt), and then given to the strategy as es.Run.Inject gives them,
// so that the session's strategy is bit for bit the library's; a tell of
// a known point is checked against its batch, before and after.
func TestInject(t *testing.T) {
	known := [][]float64{{1, 1, 1}, {0.5, 0, -0.25}, {2, -1, 0}}
	values := []float64{3, 0.3125, 5}
	ss := injectSession(t, known, 1, es.OnErrorWorst)
	pending := ss.Pending()
	if len(pending) != 3 || !ss.Injecting() {
		t.Fatalf("pending %v, injecting %v; want the 3 known points", pending, ss.Injecting())
	}
	for row, c := range pending {
		if want := (ID{Run: "0123abcd", Gen: 0, Row: row, Injected: true}); c.ID != want || !equalBits(c.X, known[row]) {
			t.Errorf("candidate %d: %v %v, want %v %v", row, c.ID, c.X, want, known[row])
		}
	}
	checkLine(t, ss, "g0-0@0123abcd 1\n", BadInput, "does not exist yet (the known points come before generation 0)")
	checkLine(t, ss, "i0-3@0123abcd 1\n", BadInput, "the batch of known points before generation 0 has rows 0 to 2")
	checkLine(t, ss, "i1-0@0123abcd 1\n", BadInput, "the current generation is 0")

	now := time.Unix(1000, 0)
	rows, err := ss.Claim(now, 2, time.Second, Holder{})
	if err != nil || len(rows) != 2 {
		t.Fatalf("Claim: %v, %v", rows, err)
	}
	ss = roundTrip(t, ss)
	if err := ss.Apply(Told{Values: map[int]float64{0: values[0]}, Failed: []int{1}}); err != nil {
		t.Fatal(err)
	}
	ss = roundTrip(t, ss)
	if !ss.Injecting() || ss.Attempts(1).Failed != 1 || ss.NumTold() != 1 || len(ss.File.Inject) != 3 {
		t.Fatalf("after a value and a failure: injecting %v, failures %v, %d told, %d known points kept",
			ss.Injecting(), ss.Attempts(1), ss.NumTold(), len(ss.File.Inject))
	}
	if pending := ss.Renew(now, []ID{{Run: "0123abcd", Row: 1, Injected: true}, {Run: "0123abcd", Row: 1}}, time.Second, Holder{}); !pending[0] || pending[1] {
		t.Errorf("Renew of i0-1 and g0-1: %v, want only i0-1 pending", pending)
	}
	if err := ss.Apply(Told{Values: map[int]float64{1: values[1], 2: values[2]}}); err != nil {
		t.Fatal(err)
	}
	ss = roundTrip(t, ss)

	lib, err := es.New("cma11", es.Config{Dim: 3, Seed: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := es.NewRun(lib, es.Limits{})
	if err := run.Inject(known); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Ask(); err != nil {
		t.Fatal(err)
	}
	if err := run.Tell(values); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Ask(); err != nil {
		t.Fatal(err)
	}
	want, _ := lib.MarshalBinary()
	got, _ := ss.Strategy().MarshalBinary()
	if !bytes.Equal(got, want) || ss.Injecting() || ss.File.Inject != nil || ss.Evals() != 3 {
		t.Fatalf("after the known points: the strategy is the library's: %v; injecting %v, known points kept %v, evals %d",
			bytes.Equal(got, want), ss.Injecting(), ss.File.Inject, ss.Evals())
	}
	if x, f := ss.Best(); f != values[1] || !equalBits(x, known[1]) {
		t.Errorf("best %v at %v, want %v at %v", f, x, values[1], known[1])
	}
	if id := ss.ID(0); id.Injected || id.String() != "g0-0@0123abcd" {
		t.Errorf("the first candidate of generation 0 is %v", id)
	}
	if p := ss.File.Past; len(p) != 1 || !p[0].Injected || p[0].Gen != 0 || p[0].Values[1] != "0.3125" {
		t.Errorf("past batches %+v, want the known points'", p)
	}
	checkLine(t, ss, "i0-1@0123abcd 0.3125\n", Repeat, "told the same value before")
	checkLine(t, ss, "i0-1@0123abcd 1\n", Conflict, "was told 0.3125 before")
	checkLine(t, ss, "i0-3@0123abcd 1\n", BadInput, "the batch of known points before generation 0 had rows 0 to 2")
	checkLine(t, ss, "i1-0@0123abcd 1\n", BadInput, "the current generation is 0")

	// The next generation goes on as the library's.
	told := Told{Values: map[int]float64{}}
	for row := range ss.Rows() {
		told.Values[row] = float64(row)
	}
	if err := ss.Apply(told); err != nil {
		t.Fatal(err)
	}
	checkLine(t, ss, "i1-0@0123abcd 1\n", BadInput, "the run evaluates no known points before generation 1")
	checkLine(t, ss, "i0-0@0123abcd 3\n", Repeat, "told the same value before")
	if ss.File.Past[0].Injected != true || ss.File.Past[1].Injected || ss.File.Past[1].Gen != 0 {
		t.Errorf("past batches %+v, want the known points', then generation 0", ss.File.Past)
	}
	roundTrip(t, ss)
}

// equalBits reports whether x and y hold the same float64 bits.
func equalBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// TestInjectFailureStop checks the failure policy on a known point: with
// es.OnErrorStop, a failure stops the run, the batch becomes a past one that
// a tell is checked against, and no known point is left to evaluate.
func TestInjectFailureStop(t *testing.T) {
	ss := injectSession(t, [][]float64{{1, 1, 1}, {0, 0, 0}}, 0, es.OnErrorStop)
	if err := ss.Apply(Told{Values: map[int]float64{0: 3}, Failed: []int{1}}); err != nil {
		t.Fatal(err)
	}
	ss = roundTrip(t, ss)
	if ss.File.Stop != es.ReasonObjectiveError || ss.Evals() != 1 || ss.File.Inject != nil || ss.Injecting() {
		t.Fatalf("stop %q, evals %d, known points %v, injecting %v", ss.File.Stop, ss.Evals(), ss.File.Inject, ss.Injecting())
	}
	checkLine(t, ss, "i0-0@0123abcd 3\n", Repeat, "told the same value before")
	checkLine(t, ss, "i0-1@0123abcd 3\n", Stopped, "the run has stopped")
	checkLine(t, ss, "g0-1@0123abcd 3\n", Stopped, "the run has stopped")
}

// TestInjectStateFile checks the state file: a run without known points
// writes neither of the new fields (so the files of earlier versions
// keep their bytes), and a file whose known points the strategy refuses,
// or that holds known points in a stopped run, is bad.
func TestInjectStateFile(t *testing.T) {
	plain := newSession(t, 1, es.OnErrorStop)
	if err := plain.Apply(Told{Values: map[int]float64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7}}); err != nil {
		t.Fatal(err)
	}
	if err := plain.Apply(Told{Values: map[int]float64{0: 1}, Failed: []int{2}}); err != nil {
		t.Fatal(err)
	}
	payload, err := plain.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(payload, []byte(`"inject`)) {
		t.Errorf("a run without known points writes %s", payload)
	}
	again, err := roundTrip(t, plain).Payload()
	if err != nil || !bytes.Equal(again, payload) {
		t.Errorf("read and written again, a state file without known points changes: %v\n%s\n%s", err, payload, again)
	}
	good, err := injectSession(t, [][]float64{{1, 1, 1}}, 0, es.OnErrorStop).Payload()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(good, []byte(`"inject":[[1,1,1]]`)) {
		t.Fatalf("the known point is not in %s", good)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"inject":[[1,1,1]]`, `"inject":[[1,1]]`, "length 2, want Dim = 3"},
		{`"stop":""`, `"stop":"max evaluations"`, "known points to evaluate in a run stopped"},
		{`"stop":""`, `"past":[{"gen":0,"injected":true,"values":["1"]}],"stop":""`, "past generation 0 with 1 values is out of place"},
	} {
		bad := bytes.Replace(good, []byte(c.old), []byte(c.new), 1)
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.new, err, c.want)
		}
	}
	// A budget smaller than the batch is refused before anything runs.
	s, _ := es.New("hees", es.Config{Dim: 3, Seed: 1})
	_, err = New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "hees", Restarts: "none", MaxEvals: 1, OnError: es.OnErrorStop},
		Inject: [][]float64{{1, 1, 1}, {0, 0, 0}}}, s)
	if err == nil || !strings.Contains(err.Error(), "leaves room for 1") {
		t.Fatalf("2 known points, budget 1: %v", err)
	}
}

// TestInjectTooMany checks that a session refuses more known points than a
// past generation may hold: their batch, once told, would make the state
// file unreadable.
func TestInjectTooMany(t *testing.T) {
	s, err := es.New("cma11", es.Config{Dim: 3, Seed: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 1, 1}
	known := make([][]float64, maxRows+1)
	for i := range known {
		known[i] = x
	}
	_, err = New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "cma11", Restarts: "none", Seed: 2, OnError: es.OnErrorStop, LostLeases: 1}, Inject: known}, s)
	if err == nil || !strings.Contains(err.Error(), "known points, want at most") {
		t.Errorf("New with %d known points: %v, want an error", len(known), err)
	}
	if _, err := New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "cma11", Restarts: "none", Seed: 2, OnError: es.OnErrorStop, LostLeases: 1}, Inject: known[:3]}, s); err != nil {
		t.Errorf("New with 3 known points: %v", err)
	}
}
