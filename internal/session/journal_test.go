package session

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/statefile"
)

// readBytes returns the content of the file at path.
func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeBytes replaces the content of the file at path.
func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// forget drops what this process knows of the run at st, as a new process
// would start.
func forget(st Store) {
	rep := st.replica()
	rep.mu.Lock()
	rep.view, rep.snapInfo, rep.sess = nil, nil, nil
	rep.mu.Unlock()
}

// sphereOf is the objective of the journal tests.
func sphereOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

// tellRows tells the values of rows of the current batch of st.
func tellRows(t *testing.T, st Store, rows ...int) {
	t.Helper()
	v, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	var lines []Line
	for _, row := range rows {
		lines = append(lines, ValueLine(v.ID(row), sphereOf(v.Candidate(row))))
	}
	bad, err := st.Tell(context.Background(), lines, nil)
	if err != nil || Blocking(bad) {
		t.Fatalf("tell %v: %v, %v", rows, bad, err)
	}
}

// TestJournalRecordsAreSmall checks that a tell and a claim append records
// whose size does not depend on the dimension.
func TestJournalRecordsAreSmall(t *testing.T) {
	sizes := map[int]int{}
	for _, d := range []int{3, 300} {
		st := newStoreDim(t, d)
		before := len(readBytes(t, JournalPath(st.Path)))
		if _, err := st.Claim(context.Background(), nil, nil, 1, time.Hour, Self(7)); err != nil {
			t.Fatal(err)
		}
		tellRows(t, st, 0)
		sizes[d] = len(readBytes(t, JournalPath(st.Path))) - before
		if sizes[d] > 400 {
			t.Errorf("d = %d: a claim and a tell appended %d bytes", d, sizes[d])
		}
	}
	if sizes[3] != sizes[300] && math.Abs(float64(sizes[3]-sizes[300])) > 40 {
		t.Errorf("bytes appended by a claim and a tell: %v, depend on d", sizes)
	}
}

// TestJournalTornRecord appends half a record, as a write cut short by a
// crash leaves it: readers ignore it, and the next writer cuts it off
// before it appends.
func TestJournalTornRecord(t *testing.T) {
	st := newStore(t, 1, "")
	tellRows(t, st, 0)
	path := JournalPath(st.Path)
	good := readBytes(t, path)
	torn := append(bytes.Clone(good), []byte(`1234abcd {"q":2,"e":1,"o":"v","r":[1],"v":"`)...)
	for _, tail := range [][]byte{torn, append(bytes.Clone(good), "00000000 {}\n"...), append(bytes.Clone(good), 0, 0, 0, 0)} {
		writeBytes(t, path, tail)
		forget(st)
		v, err := st.Load()
		if err != nil || v.NumTold() != 1 {
			t.Fatalf("a torn record: %v, %d told", err, v.NumTold())
		}
		var warned []string
		st.Warn = func(msg string) { warned = append(warned, msg) }
		tellRows(t, st, 1)
		st.Warn = nil
		data := readBytes(t, path)
		if !bytes.HasPrefix(data, good) || bytes.Contains(data[len(good):], []byte(`"v":"`+"\n")) || len(warned) != 1 || !strings.Contains(warned[0], "torn record") {
			t.Fatalf("after a tell, the journal is\n%s\nwarnings %q", data[len(good):], warned)
		}
		if v, _ = st.Load(); v.NumTold() != 2 {
			t.Fatalf("%d told after the torn record was cut off", v.NumTold())
		}
		writeBytes(t, path, good) // the next case starts from one value told
	}
}

// TestJournalRefusesCraftedRecords feeds records whose checksums match but
// that no writer makes: a repeated record, one of another epoch, a row out
// of range, an unknown operation, a value for a row told. Each is an error
// naming the journal; none is applied, none is guessed.
func TestJournalRefusesCraftedRecords(t *testing.T) {
	st := newStore(t, 1, "")
	tellRows(t, st, 0)
	path := JournalPath(st.Path)
	good := readBytes(t, path)
	lines := strings.SplitAfter(string(good), "\n")
	last := lines[len(lines)-2] // the record of the value of row 0
	line := func(r record) string {
		b, err := appendLine(nil, "", &r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, extra := range map[string]string{
		"repeated":      last,
		"other epoch":   line(record{Seq: 2, Epoch: 9, Op: opValue, Rows: []int{1}, Value: "1"}),
		"row too large": line(record{Seq: 2, Epoch: 1, Op: opValue, Rows: []int{99}, Value: "1"}),
		"negative row":  line(record{Seq: 2, Epoch: 1, Op: opFailed, Rows: []int{-1}}),
		"unknown op":    line(record{Seq: 2, Epoch: 1, Op: "z", Rows: []int{1}}),
		"told again":    line(record{Seq: 2, Epoch: 1, Op: opValue, Rows: []int{0}, Value: "5"}),
		"no holder":     line(record{Seq: 2, Epoch: 1, Op: opClaim, Rows: []int{1}, Now: 1, Until: 2}),
		"bad value":     line(record{Seq: 2, Epoch: 1, Op: opValue, Rows: []int{1}, Value: "many"}),
		"two rows":      line(record{Seq: 2, Epoch: 1, Op: opValue, Rows: []int{1, 2}, Value: "1"}),
		"future lease":  line(record{Seq: 2, Epoch: 1, Op: opExpired, Rows: []int{1}, Now: 5}),
		"unknown field": strings.Replace(line(record{Seq: 2, Epoch: 1, Op: opValue, Rows: []int{1}, Value: "1"}), `"q"`, `"zz":1,"q"`, 1),
	} {
		if name == "unknown field" {
			// Its checksum no longer matches: a torn record, ignored.
			continue
		}
		writeBytes(t, path, append(bytes.Clone(good), extra...))
		forget(st)
		if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), "corrupt journal") {
			t.Errorf("%s: Load: %v, want a corrupt journal", name, err)
		}
		if _, err := st.Tell(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "corrupt journal") {
			t.Errorf("%s: Tell: %v, want a corrupt journal", name, err)
		}
		if got := readBytes(t, path); !bytes.Equal(got, append(bytes.Clone(good), extra...)) {
			t.Errorf("%s: the journal was changed", name)
		}
	}
	// A damaged header is an error too, not a reason to start again from
	// the snapshot.
	damaged := bytes.Clone(good)
	damaged[30] ^= 1
	writeBytes(t, path, damaged)
	forget(st)
	if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), "corrupt journal") {
		t.Errorf("a damaged header: %v", err)
	}
}

// TestJournalCrashInFold plays the two crashes of a fold: after the last
// value was appended but before the new snapshot (the next writer folds,
// to the same bytes), and after the new snapshot but before the new
// journal (the journal is made anew from the snapshot; the values of the
// folded batch are kept as a past batch).
func TestJournalCrashInFold(t *testing.T) {
	st := newStore(t, 1, "")
	v, _ := st.Load()
	rows := v.Rows()
	for row := range rows - 1 {
		tellRows(t, st, row)
	}
	snapBefore, journalBefore := readBytes(t, st.Path), readBytes(t, JournalPath(st.Path))
	tellRows(t, st, rows-1)
	snapAfter, journalAfter := readBytes(t, st.Path), readBytes(t, JournalPath(st.Path))
	if bytes.Equal(snapBefore, snapAfter) {
		t.Fatal("the last value did not fold the batch")
	}

	// Crash 1: the last record is in the journal, the fold did not happen.
	last := record{Seq: int64(rows), Epoch: v.Epoch, Op: opValue, Rows: []int{rows - 1}, Value: formatValue(sphereOf(v.Candidate(rows - 1)))}
	line, _ := appendLine(nil, "", &last)
	writeBytes(t, st.Path, snapBefore)
	writeBytes(t, JournalPath(st.Path), append(bytes.Clone(journalBefore), line...))
	forget(st)
	if got, err := st.Load(); err != nil || got.Claimable(time.Now()) != 0 {
		t.Fatalf("a complete batch not folded: %v, %d claimable", err, got.Claimable(time.Now()))
	}
	if _, err := st.Claim(context.Background(), nil, nil, 1, time.Hour, Holder{}); err != nil {
		t.Fatal(err)
	}
	if got := readBytes(t, st.Path); !bytes.Equal(got, snapAfter) {
		t.Error("the fold by the next writer wrote another snapshot than the one that crashed")
	}

	// Crash 2: the new snapshot is written, the journal is the old one.
	writeBytes(t, st.Path, snapAfter)
	writeBytes(t, JournalPath(st.Path), journalBefore)
	forget(st)
	got, err := st.Load()
	if err != nil || got.Generation() != v.Generation()+1 || got.NumTold() != 0 {
		t.Fatalf("a stale journal: %v, generation %d with %d told", err, got.Generation(), got.NumTold())
	}
	bad, err := st.Tell(context.Background(), []Line{ValueLine(v.ID(0), sphereOf(v.Candidate(0)))}, nil)
	if err != nil || len(bad) != 1 || bad[0].Problem != Repeat {
		t.Fatalf("a value of the folded batch told again: %v, %v; want a repeat", bad, err)
	}
	if j := readBytes(t, JournalPath(st.Path)); !bytes.Equal(j, journalAfter) {
		t.Error("the journal made anew differs from the one the fold wrote")
	}
}

// TestStoreRefusesNonRegularFiles gives a named pipe and a device as the
// state file and as the journal: an error naming the kind of file, never a
// wait for a writer or an endless read.
func TestStoreRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.hees")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, path := range []string{fifo, "/dev/zero"} {
			st := Store{Path: path}
			if _, err := st.Load(); err == nil || !errors.Is(err, boundedfile.ErrNotRegular) {
				t.Errorf("Load of %s: %v", path, err)
			}
			if _, err := st.Claim(context.Background(), nil, nil, 1, time.Hour, Holder{}); err == nil {
				t.Errorf("Claim of %s succeeded", path)
			}
		}
		st := newStore(t, 1, "")
		os.Remove(JournalPath(st.Path))
		if err := syscall.Mkfifo(JournalPath(st.Path), 0o644); err != nil {
			t.Error(err)
			return
		}
		forget(st)
		if _, err := st.Load(); err == nil || !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("Load with a named pipe as journal: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked on a named pipe")
	}
}

// TestLeaseBound refuses leases that would overflow or expire before
// they are written.
func TestLeaseBound(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second, time.Nanosecond, 2 * time.Nanosecond, MinLease - 1, MaxLease + time.Nanosecond, 2_500_000 * time.Hour} {
		if err := CheckLease(d); err == nil {
			t.Errorf("CheckLease(%v) accepted", d)
		}
	}
	for _, d := range []time.Duration{MinLease, MaxLease} {
		if err := CheckLease(d); err != nil {
			t.Error(err)
		}
	}
	now := time.Now()
	if end := leaseEnd(now, MaxLease); end <= now.UnixNano() {
		t.Errorf("the longest lease ends at %d, before now", end)
	}
}

// TestLostLeasesApart checks that an expired lease is not a failed
// evaluation: it is counted apart, with its own limit, and named in the
// stop when the limit is passed.
func TestLostLeasesApart(t *testing.T) {
	ss := newSession(t, 0, "") // retries 0, lost leases 1, stop
	now := time.Unix(1000, 0)
	h := Holder{Host: "node7", PID: 42, Job: "77_3", Slot: 2}
	for i := range 2 {
		if _, err := ss.Claim(now, 1, time.Second, h); err != nil {
			t.Fatal(err)
		}
		now = now.Add(2 * time.Second)
		if _, err := ss.Expire(now); err != nil {
			t.Fatal(err)
		}
		if i == 0 && (ss.File.Stop != "" || ss.Attempts(0).Lost != 1 || ss.Attempts(0).Failed != 0) {
			t.Fatalf("after a lost lease: stop %q, attempts %+v", ss.File.Stop, ss.Attempts(0))
		}
	}
	if ss.File.Stop != es.ReasonLeasesLost || !strings.Contains(ss.File.StopDetail, "node7 pid 42 job 77_3 worker 2") {
		t.Errorf("after two lost leases: stop %q (%s)", ss.File.Stop, ss.File.StopDetail)
	}
}

// newStoreDim creates a run of hees2 in d dimensions.
func newStoreDim(t *testing.T, d int) Store {
	t.Helper()
	ss := newSessionDim(t, d)
	st := Store{Path: filepath.Join(t.TempDir(), "run.hees")}
	if err := st.Create(context.Background(), ss, false); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOldVersionsRefused gives a state file of version 1 and one of an
// unknown kind: one error that names the version, and nothing written.
func TestOldVersionsRefused(t *testing.T) {
	for kind, want := range map[string]string{
		"ask-tell/v1":   "an ask/tell state file of version 1, which this build does not read",
		"checkpoint/v1": `the file holds "checkpoint/v1", want "ask-tell/v3"`,
	} {
		data, err := statefile.Encode(kind, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		st := Store{Path: filepath.Join(t.TempDir(), "old.hees")}
		writeBytes(t, st.Path, data)
		if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Load: %v", kind, err)
		}
		if _, err := st.Claim(context.Background(), nil, nil, 1, time.Hour, Holder{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Claim: %v", kind, err)
		}
		if got := readBytes(t, st.Path); !bytes.Equal(got, data) {
			t.Errorf("%s: the file was changed", kind)
		}
	}
}

// TestBogusStopRefused gives a snapshot whose checksum matches but whose
// stop is no reason hees writes: one error naming the stop, and nothing
// written.
func TestBogusStopRefused(t *testing.T) {
	st := newStore(t, 1, "")
	kind, payload, err := statefile.Decode(readBytes(t, st.Path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"stop":""`)) {
		t.Fatalf("no empty stop in the snapshot %.200s", payload)
	}
	data, err := statefile.Encode(kind, bytes.Replace(payload, []byte(`"stop":""`), []byte(`"stop":"bogus reason"`), 1))
	if err != nil {
		t.Fatal(err)
	}
	writeBytes(t, st.Path, data)
	forget(st)
	want := `stop "bogus reason": not a stop reason hees writes`
	if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Load: %v, want %q", err, want)
	}
	if _, err := st.Tell(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Tell: %v, want %q", err, want)
	}
	if got := readBytes(t, st.Path); !bytes.Equal(got, data) {
		t.Error("the file was changed")
	}
}

// TestOlderBatchesFromSnapshot folds four generations: the journal's
// header keeps the last past batch only, and a value told again for an
// older one is still checked against the value told first (read from the
// snapshot), by a process that has not read the snapshot before as well.
func TestOlderBatchesFromSnapshot(t *testing.T) {
	st := newStoreDim(t, 3)
	first, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	id := first.ID(1)
	value := sphereOf(first.Candidate(1))
	for range 4 {
		v, err := st.Load()
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]int, v.Rows())
		for row := range rows {
			rows[row] = row
		}
		tellRows(t, st, rows...)
	}
	journal := readBytes(t, JournalPath(st.Path))
	h, _, err := decodeHeader(journal)
	if err != nil || len(h.Past) != 1 || h.Past[0].Gen != 3 {
		t.Fatalf("header past %+v, %v; want generation 3 only", h.Past, err)
	}
	for _, fresh := range []bool{false, true} {
		if fresh {
			forget(st)
		}
		for _, c := range []struct {
			v    float64
			want Problem
		}{{value, Repeat}, {value + 1, Conflict}} {
			bad, err := st.Tell(context.Background(), []Line{ValueLine(id, c.v)}, nil)
			if err != nil || len(bad) != 1 || bad[0].Problem != c.want {
				t.Errorf("fresh %v: telling %s %v again: %+v, %v; want problem %d", fresh, id, c.v, bad, err, c.want)
			}
		}
	}
}
