// Package golden compares the output of a test with a golden file, by the
// -update convention of the Go tree: a test package defines
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//
// and calls Check(t, path, got, *update). Normally Check fails the test when
// got differs from the file, naming the first differing line and leaving
// the whole output next to the file as path+".got"; with -update it
// rewrites the file instead, for the change to be reviewed in the diff.
// It is imported by tests only.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the contents of the golden file at path, or with
// update set writes got to path (creating its directory).
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotPath := path + ".got"
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		gotPath = "not written: " + err.Error()
	}
	t.Errorf("output differs from %s at %s\n(whole output in %s; -update rewrites the file after review)",
		path, FirstDifference(want, got), gotPath)
}

// FirstDifference describes the first line at which got differs from want
// ("" if they are equal).
func FirstDifference(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := range max(len(w), len(g)) {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return fmt.Sprintf("line %d:\n-want %s\n+got  %s", i+1, wl, gl)
		}
	}
	return "the end: one has more empty lines than the other"
}
