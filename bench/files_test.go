package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

// TestGridRunRefusesEditedRecord edits a record so that it keeps its format
// but contradicts itself (before: accepted, and a made-up success entered
// the tables): an unknown stop reason, more evaluations than the budget,
// negative restarts, a hit for a target the best does not reach. Each is
// refused with the record's path; the record as written reads back.
func TestGridRunRefusesEditedRecord(t *testing.T) {
	out := t.TempDir()
	g := tinyGrid(out)
	g.Functions = []int{24} // not solved within 200 evaluations
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "runs", "hees", "f24_d2_i1.txt")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(good)
	if !strings.Contains(text, "\nhits ") || strings.Contains(text, "reason target reached") {
		t.Fatalf("unexpected record:\n%s", text)
	}
	hits := regexp.MustCompile(`\nhits [^\n]*\n`)
	made := "\nhits" + strings.Repeat(" 1", 51) + "\n"
	for name, edited := range map[string]string{
		"reason":   regexp.MustCompile(`\nreason [^\n]*\n`).ReplaceAllString(text, "\nreason bogus\n"),
		"evals":    regexp.MustCompile(`\nevals \d+\n`).ReplaceAllString(text, "\nevals 30000\n"),
		"restarts": regexp.MustCompile(`\nrestarts \d+\n`).ReplaceAllString(text, "\nrestarts -1\n"),
		"hits":     hits.ReplaceAllString(text, made),
	} {
		if edited == text {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := g.Run(context.Background(), io.Discard); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Errorf("the record as written: %v", err)
	}
}
