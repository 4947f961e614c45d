package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/atomicfile"
)

// tinyGrid is a grid of one short run writing to out.
func tinyGrid(out string) Grid {
	return Grid{Strategies: []string{"hees"}, Functions: []int{1}, Dims: []int{2}, Instances: []int{1}, Budget: 100, Sigma0: 2, Out: out}
}

// TestGridRunRemovesStaleTemps leaves temporary files of killed writes next
// to a record and an output file: Run removes them, and only them.
func TestGridRunRemovesStaleTemps(t *testing.T) {
	out := t.TempDir()
	g := tinyGrid(out)
	stale := []string{
		filepath.Join(out, "runs", "hees", ".f1_d2_i1.txt.abc123.tmp"),
		filepath.Join(out, ".summary.csv.x7.tmp"),
	}
	other := filepath.Join(out, "runs", "hees", ".f1_d2_i1.txt.v2.abc.tmp") // a temporary file of "f1_d2_i1.txt.v2"
	for _, path := range append(stale, other) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, path := range stale {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", path, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the temporary file of another file was removed: %v", err)
	}
}

// TestGridRunLocked checks that a bench on an output directory in use by
// another one is refused at once.
func TestGridRunLocked(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := atomicfile.Lock(context.Background(), filepath.Join(out, "runs", ".lock"))
	if err != nil {
		t.Skip(err) // no file locks on this system
	}
	defer unlock()
	g := tinyGrid(out)
	start := time.Now()
	err = g.Run(context.Background(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "in use by another bench") {
		t.Errorf("got %v, want an error saying the directory is in use", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %v", d)
	}
}

// TestGridRunRefusesDeviceRecord puts a directory where a record belongs:
// Run says so instead of reading it.
func TestGridRunRefusesDeviceRecord(t *testing.T) {
	out := t.TempDir()
	g := tinyGrid(out)
	if err := os.MkdirAll(filepath.Join(out, "runs", "hees", "f1_d2_i1.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := g.Run(context.Background(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not a regular file (it is a directory)") {
		t.Errorf("got %v, want an error saying the record is a directory", err)
	}
}
