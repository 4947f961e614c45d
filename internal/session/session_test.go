package session

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runspec"
)

func TestParseID(t *testing.T) {
	for in, want := range map[string]ID{
		"g0-0@0123abcd":            {"0123abcd", 0, 0, false},
		"g12-3@ffffffff":           {"ffffffff", 12, 3, false},
		"g100000-1048575@5f3a9c01": {"5f3a9c01", 100000, 1048575, false},
		"i0-2@0123abcd":            {"0123abcd", 0, 2, true},
		"i7-0@5f3a9c01":            {"5f3a9c01", 7, 0, true},
	} {
		got, ok := ParseID(in)
		if !ok || got != want {
			t.Errorf("ParseID(%q) = %v, %v", in, got, ok)
		}
		if got.String() != in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), in)
		}
	}
	for _, in := range []string{"", "g0-0", "g12-3", "g0-0@", "g0-0@0123abc", "g0-0@0123abcde", "g0-0@0123ABCD", "g0-0@0123abcg",
		"g@0123abcd", "g1@0123abcd", "g1-@0123abcd", "g-1@0123abcd", "1-2@0123abcd", "G1-2@0123abcd", "g01-2@0123abcd",
		"g1-02@0123abcd", "g+1-2@0123abcd", "g1--2@0123abcd", "g1-2-3@0123abcd", "g1-2x@0123abcd", "g1-2@0123abcd@0123abcd",
		"g99999999999999999999-1@0123abcd", "I0-2@0123abcd", "ig0-2@0123abcd", "i-0@0123abcd", "j0-2@0123abcd", "i0-2"} {
		if id, ok := ParseID(in); ok {
			t.Errorf("ParseID(%q) accepted: %v", in, id)
		}
	}
}

func TestNewRunID(t *testing.T) {
	id, err := NewRunID(bytes.NewReader([]byte{0x5f, 0x3a, 0x9c, 0x01}))
	if err != nil || id != "5f3a9c01" {
		t.Errorf("NewRunID = %q, %v", id, err)
	}
	if _, err := NewRunID(bytes.NewReader([]byte{1})); err == nil {
		t.Error("NewRunID with 1 random byte succeeded")
	}
}

// newSession returns a hees session in 3 dimensions (7 candidates a
// generation) with the given retries and policy.
func newSession(t *testing.T, retries int, onError es.OnError) *Session {
	t.Helper()
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "hees", Restarts: "none", Seed: 1, Retries: retries, OnError: onError, LostLeases: 1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// roundTrip saves ss as a snapshot and a journal in a temporary directory,
// records its current batch as the journal's header, and reads it back, as
// the commands do.
func roundTrip(t *testing.T, ss *Session) *Session {
	t.Helper()
	snap, _, err := ss.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	h := ss.migratedHeader(snap) // the header with the batch so far
	journal, err := encodeJournal(&h)
	if err != nil {
		t.Fatal(err)
	}
	st := Store{Path: filepath.Join(t.TempDir(), "run.hees")}
	if err := os.WriteFile(st.Path, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(JournalPath(st.Path), journal, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := st.LoadSession()
	if err != nil {
		t.Fatalf("%v\n%s", err, journal)
	}
	return back
}

func TestClaimLeases(t *testing.T) {
	ss := newSession(t, 1, es.OnErrorWorst)
	now := time.Unix(1000, 0)
	const lease = 200 * time.Millisecond
	seen := map[int]bool{}
	for range 4 {
		rows, err := ss.Claim(now, 1, lease, Holder{})
		if err != nil || len(rows) != 1 || seen[rows[0]] {
			t.Fatalf("Claim = %v, %v; claimed before: %v", rows, err, seen)
		}
		seen[rows[0]] = true
		ss = roundTrip(t, ss)
	}
	if got := ss.Leased(now); got != 4 {
		t.Errorf("Leased = %d, want 4", got)
	}
	rows, _ := ss.Claim(now, 10, lease, Holder{})
	if len(rows) != 3 || ss.Claimable(now) != 0 {
		t.Fatalf("claiming the rest: %v, claimable %d", rows, ss.Claimable(now))
	}
	if next, ok := ss.NextExpiry(now); !ok || !next.Equal(now.Add(lease)) {
		t.Errorf("NextExpiry = %v, %v", next, ok)
	}
	// A value told by anyone completes row 0; row 1 is renewed.
	if err := ss.Apply(Told{Values: map[int]float64{0: 5}}); err != nil {
		t.Fatal(err)
	}
	later := now.Add(lease)
	if pending := ss.Renew(now.Add(lease/2), []ID{ss.ID(0), ss.ID(1), {Run: "ffffffff", Row: 2}}, lease, Holder{}); pending[0] || !pending[1] || pending[2] {
		t.Errorf("Renew reported %v, want only row 1 pending", pending)
	}
	if got := ss.Claimable(later); got != 5 {
		t.Errorf("after the leases expired, %d claimable, want 5 (rows 2 to 6)", got)
	}
	rows, err := ss.Claim(later, 10, lease, Holder{})
	if err != nil || len(rows) != 5 || rows[0] != 2 {
		t.Fatalf("claim after the expiry: %v, %v", rows, err)
	}
	for _, row := range rows {
		if ss.Attempts(row).Lost != 1 {
			t.Errorf("row %d: %d failed attempts after one expired lease", row, ss.Attempts(row).Lost)
		}
	}
	if ss.Attempts(1).Failed != 0 {
		t.Error("the renewed lease counted a failure")
	}
	ss.Release([]ID{ss.ID(2)})
	if got := ss.Claimable(later); got != 1 || ss.Attempts(2).Lost != 1 {
		t.Errorf("after Release: %d claimable, %d failures; want 1, 1", got, ss.Attempts(2).Lost)
	}
	// A second expiry exceeds the retry: the rows are told NaN; the
	// renewed row 1 and the released row 2 are claimed again.
	rows, err = ss.Claim(later.Add(lease), 10, lease, Holder{})
	if err != nil || len(rows) != 2 || rows[0] != 1 || rows[1] != 2 {
		t.Fatalf("claim after the second expiry: %v, %v", rows, err)
	}
	for row := 3; row < 7; row++ {
		if v, ok := ss.Told(row); !ok || !math.IsNaN(v) {
			t.Errorf("row %d: told %v, %v; want NaN after 2 failed attempts", row, v, ok)
		}
	}
	if err := ss.Apply(Told{Values: map[int]float64{1: 3, 2: 2}}); err != nil {
		t.Fatal(err)
	}
	if ss.Strategy().Generation() != 1 || ss.Leased(later) != 0 || ss.Attempts(3) != (Attempts{}) {
		t.Errorf("after the generation: generation %d, %d leased, attempts %v", ss.Strategy().Generation(), ss.Leased(later), ss.Attempts(3))
	}
	if x, f := ss.Best(); f != 2 || x == nil {
		t.Errorf("best %v at %v, want 2", f, x)
	}
	roundTrip(t, ss)
}

func TestFailurePolicyStop(t *testing.T) {
	ss := newSession(t, 0, es.OnErrorStop)
	if err := ss.Apply(Told{Values: map[int]float64{0: 4, 1: -1}}); err != nil {
		t.Fatal(err)
	}
	lines, bad, err := ReadTold(strings.NewReader("g0-2@0123abcd failed\n"))
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	told, bad := ss.Check(lines)
	if len(bad) > 0 || len(told.Failed) != 1 {
		t.Fatalf("Check: %v, %v", told, bad)
	}
	if err := ss.Apply(told); err != nil {
		t.Fatal(err)
	}
	ss = roundTrip(t, ss)
	if ss.File.Stop != es.ReasonObjectiveError || ss.Evals() != 2 || ss.Rows() != 0 {
		t.Fatalf("stop %q, evals %d, rows %d; want objective error, 2, 0", ss.File.Stop, ss.Evals(), ss.Rows())
	}
	// The values of the generation a failure stopped count as evaluations
	// but not for the best point, as in es.Minimize: which of them were
	// evaluated before the failure depends on timing.
	if _, f := ss.Best(); !math.IsInf(f, 1) {
		t.Errorf("best %v, want +Inf: the stopped generation's -1 does not count", f)
	}
	for in, want := range map[string]Problem{
		"g0-1@0123abcd -1\n": Repeat, "g0-1@0123abcd 2\n": Conflict, "g0-3@0123abcd 2\n": Stopped,
		"g0-2@0123abcd failed\n": Stopped, "g1-0@0123abcd 2\n": BadInput, "g0-9@0123abcd 2\n": BadInput,
	} {
		lines, _, _ := ReadTold(strings.NewReader(in))
		if _, bad := ss.Check(lines); len(bad) != 1 || bad[0].Problem != want {
			t.Errorf("%q: %v, want problem %d", in, bad, want)
		}
	}
}

// newSessionDim returns a hees2 session in d dimensions.
func newSessionDim(t *testing.T, d int) *Session { return newSessionDimTB(t, d) }

// newSessionDimTB is newSessionDim for a test or a fuzz target.
func newSessionDimTB(t testing.TB, d int) *Session {
	t.Helper()
	s, err := es.New("hees2", es.Config{Dim: d, Seed: 1, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "hees2", Restarts: "none", Seed: 1, Retries: 1, LostLeases: 1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestSessionSpaceMustFit refuses a run whose space disagrees with its
// strategy (another number of parameters, another box) and a relative
// log, and takes one that fits.
func TestSessionSpaceMustFit(t *testing.T) {
	two := []byte(`{"params":[{"name":"a","type":"real","low":-3,"high":3},{"name":"b","type":"real","low":-3,"high":3}]}`)
	for _, c := range []struct {
		space []byte
		box   *es.Bounds
		log   string
		want  string // "": accepted
	}{
		{two, &es.Bounds{Lower: []float64{-3, -3}, Upper: []float64{3, 3}}, "", ""},
		{two, &es.Bounds{Lower: []float64{-3, -3}, Upper: []float64{3, 4}}, "", "does not give the box its strategy searches"},
		{two[:len(two)-len(`,{"name":"b","type":"real","low":-3,"high":3}]}`)], nil, "", "the run's space: space: not a space file"},
		{[]byte(`{"params":[{"name":"a","type":"real","low":-3,"high":3}]}`), &es.Bounds{Lower: []float64{-3, -3}, Upper: []float64{3, 3}}, "", "has 1 parameters, its strategy 2 dimensions"},
		{nil, nil, "run.log", `log "run.log" is not an absolute path`},
	} {
		s, err := es.New("hees2", es.Config{Dim: 2, Seed: 1, Bounds: c.box})
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(Settings{RunID: "0123abcd", Spec: runspec.Spec{Algo: "hees2", Restarts: "none", Seed: 1, Space: c.space, Log: c.log}}, s)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("space %s, box %v, log %q: %v, want %q", c.space, c.box, c.log, err, c.want)
		}
	}
}

// TestHeaderDoublings checks the doublings of the population a header
// may hold: from 0 to es.NoiseMaxDoublings, and only beside a
// recommendation (a run with noise handling).
func TestHeaderDoublings(t *testing.T) {
	ss := newSession(t, 1, "")
	_, h, err := ss.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rec       bool
		doublings int
		ok        bool
	}{
		{true, 0, true},
		{true, 3, true},
		{true, es.NoiseMaxDoublings, true},
		{true, es.NoiseMaxDoublings + 1, false},
		{true, -1, false},
		{false, 0, true},
		{false, 1, false},
	} {
		g := h
		if c.rec {
			g.RecX, g.RecF, g.RecEvals = []float64{1, 2, 3}, "0.5", 2
		}
		g.Doublings = c.doublings
		if err := g.check(); (err == nil) != c.ok {
			t.Errorf("recommendation %v, %d doublings: %v", c.rec, c.doublings, err)
		}
	}
}

// TestHeaderRecommendation checks the recommendation a header may hold:
// one of the run's dimension with a value is taken, an average of means
// too, and one of another length, with a bad value, a negative count or
// more means than evaluations is refused.
func TestHeaderRecommendation(t *testing.T) {
	ss := newSession(t, 1, "")
	snap, h, err := ss.Snapshot()
	if err != nil || len(snap) == 0 {
		t.Fatal(err)
	}
	if err := h.check(); err != nil {
		t.Fatalf("the session's own header: %v", err)
	}
	for _, c := range []struct {
		x            []float64
		f            string
		evals, means int
		ok           bool
	}{
		{[]float64{1, 2, 3}, "0.5", 2, 1, true},
		{[]float64{1, 2, 3}, "0.5", 150, 75, true},
		{[]float64{1, 2}, "0.5", 2, 1, false},
		{[]float64{1, 2, 3}, "many", 2, 1, false},
		{[]float64{1, 2, 3}, "0.5", -1, 0, false},
		{[]float64{1, 2, 3}, "0.5", 2, 3, false},
		{[]float64{1, 2, 3}, "0.5", 2, -1, false},
		{nil, "", 3, 0, false},
		{nil, "", 0, 1, false},
	} {
		g := h
		g.RecX, g.RecF, g.RecEvals, g.RecMeans = c.x, c.f, c.evals, c.means
		if err := g.check(); (err == nil) != c.ok {
			t.Errorf("recommendation %v, %q, %d evaluations, %d means: %v", c.x, c.f, c.evals, c.means, err)
		}
	}
}
