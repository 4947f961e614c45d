package checkpoint

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runlog"
)

// readFile returns the content of the file at path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCheckpointRecordsStop checks the stop recorded by a checkpoint
// written after a generation: the reason es.Minimize stops for right after
// it (Progress.Stop: -Inf or the target, es.TestRunStopsAfterGeneration),
// and that checkpoints are written every Every generations only.
func TestCheckpointRecordsStop(t *testing.T) {
	dir := t.TempDir()
	target := 0.5
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := Settings{Algo: "hees", Restarts: "none", Seed: 1, Problem: "sphere", Dim: 3, Target: &target, Workers: 1, TraceEvery: 1}
	path := filepath.Join(dir, "cp.hees")
	cp, err := Create(context.Background(), path, 4, &rs, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	for _, c := range []struct {
		generation int
		stop       es.Reason
		written    bool
	}{
		{4, "", true},
		{12, es.ReasonTarget, true},
		{20, es.ReasonMinusInf, true},
		{21, "", false},
		{22, es.ReasonMinusInf, false},
	} {
		before := readFile(t, path)
		cp.AfterGeneration(es.Progress{Strategy: s, Generation: c.generation, Stop: c.stop}, func() { t.Fatal("canceled") })
		after := readFile(t, path)
		if written := !bytes.Equal(before, after); written != c.written {
			t.Errorf("generation %d: written %v, want %v (every 4)", c.generation, written, c.written)
		}
		if !c.written {
			continue
		}
		st, err := Decode(after)
		if err != nil {
			t.Fatal(err)
		}
		if st.File.Stop != c.stop {
			t.Errorf("generation %d: stop %q, want %q", c.generation, st.File.Stop, c.stop)
		}
	}
}

// TestCheckpointInject checks the known points of a checkpoint: the first
// checkpoint holds them, the one written after their batch (whatever
// Every) does not, and a point the strategy would refuse makes the file
// bad.
func TestCheckpointInject(t *testing.T) {
	s, err := es.New("cma11", es.Config{Dim: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := Settings{Algo: "cma11", Restarts: "none", Seed: 1, Problem: "sphere", Dim: 2, Workers: 1, TraceEvery: 1}
	path := filepath.Join(t.TempDir(), "cp.hees")
	known := [][]float64{{1, 2}, {-0.5, 0}}
	cp, err := Create(context.Background(), path, 4, &rs, s, known, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	st, err := Decode(readFile(t, path))
	if err != nil || !reflect.DeepEqual(st.File.Inject, known) {
		t.Fatalf("first checkpoint: known points %v, %v; want %v", st.File.Inject, err, known)
	}
	cp.AfterGeneration(es.Progress{Strategy: s, Generation: 3, Injected: true}, func() { t.Fatal("canceled") })
	if st, err = Decode(readFile(t, path)); err != nil || st.File.Inject != nil {
		t.Fatalf("after the batch of known points: %v, %v; want none left", st.File.Inject, err)
	}

	payload := []byte(`{"run":{"algo":"cma11","restarts":"none","seed":1,"problem":"sphere","dim":2,"max_evals":0,"target":null,"workers":1,` +
		`"max_time":0,"eval_timeout":0,"trace_every":1},"every":4,"strategy":"` + base64.StdEncoding.EncodeToString(st.File.Strategy) +
		`","stop":"","elapsed":0,"trace_bytes":0,"inject":[[1,2,3]]}`)
	if _, err := Parse(payload); err == nil || !strings.Contains(err.Error(), "the known points: es: Run.Inject: point 0: length 3, want Dim = 2") {
		t.Errorf("a known point of 3 coordinates in 2 dimensions: %v", err)
	}
}

// TestCheckpointTraceFIFO gives a named pipe as the trace of a run with a
// checkpoint: refused with the kind of file named, without a wait for a
// reader, the pipe left as it is and no checkpoint made.
func TestCheckpointTraceFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rs := Settings{Algo: "hees", Restarts: "none", Seed: 1, Problem: "sphere", Dim: 3, Workers: 1, Trace: fifo, TraceEvery: 1}
	path := filepath.Join(dir, "a.hees")
	done := make(chan error)
	go func() {
		_, err := Create(context.Background(), path, 1, &rs, s, nil, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a named pipe as the trace: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("blocked on a named pipe")
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused run left its checkpoint")
	}
}

// TestCheckpointTraceLocked: the trace of a run with a checkpoint is
// refused when another run writes that file (before: it was replaced, and
// the other run's rows went to a file no longer there), and is held while
// the run writes it, and after a resume, so that another run's -trace is
// refused rather than emptying it.
func TestCheckpointTraceLocked(t *testing.T) {
	dir := t.TempDir()
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log.csv")
	held, err := runlog.OpenLog(log, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := readFile(t, log)
	rs := Settings{Algo: "hees", Restarts: "none", Seed: 1, Problem: "sphere", Dim: 3, Workers: 1, Trace: log, TraceEvery: 1}
	if _, err := Create(context.Background(), filepath.Join(dir, "a.hees"), 1, &rs, s, nil, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") {
		t.Errorf("a checkpointed run's trace on another run's log: %v", err)
	}
	if got := readFile(t, log); !bytes.Equal(got, before) {
		t.Errorf("the refused trace changed the log: %q", got)
	}
	held.Close()

	trace := filepath.Join(dir, "trace.csv")
	rs.Trace = trace
	path := filepath.Join(dir, "b.hees")
	cp, err := Create(context.Background(), path, 1, &rs, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runlog.CreateTrace(trace, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") {
		t.Errorf("a second trace on a checkpointed run's trace: %v", err)
	}
	cp.AfterGeneration(es.Progress{Strategy: s, Generation: 1}, func() { t.Fatal("canceled") })
	cp.Close()
	cp, _, err = Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runlog.CreateTrace(trace, nil); err == nil || !strings.Contains(err.Error(), "another run is writing it") {
		t.Errorf("a second trace on a resumed run's trace: %v", err)
	}
	cp.Close()
	if tf, err := runlog.CreateTrace(trace, nil); err != nil {
		t.Errorf("a trace after the run closed it: %v", err)
	} else {
		tf.Close()
	}
}
