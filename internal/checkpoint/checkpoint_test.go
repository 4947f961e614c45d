package checkpoint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hees-dev/hees/es"
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
	cp, err := Create(context.Background(), path, 4, &rs, s, nil)
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
