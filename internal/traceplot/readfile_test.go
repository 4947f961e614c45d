package traceplot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile checks that ReadFile parses a file, keeps a missing file's
// os.ErrNotExist and names the file in a parse error.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(good, []byte("# hees: (devel)\nevals,f_best,sigma\n1,2,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, err := ReadFile(good); err != nil {
		t.Error(err)
	} else if _, v, ok := tr.Column("sigma"); !ok || len(v) != 1 || v[0] != 0.5 {
		t.Errorf("sigma column %v, %v; want [0.5]", v, ok)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want os.ErrNotExist", err)
	}
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(empty); err == nil || !strings.HasPrefix(err.Error(), empty+": ") {
		t.Errorf("ReadFile of an empty file: %v, want an error that starts with its path", err)
	}
}
