package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "out")
	var wrote []string
	files := []File{{"a.csv", []byte("x\n1\n")}, {"b.svg", []byte("<svg/>")}}
	if err := WriteFiles(dir, files, func(path string) { wrote = append(wrote, path) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.svg")}; !slices.Equal(wrote, want) {
		t.Errorf("wrote %q, want %q", wrote, want)
	}
	for i, path := range wrote {
		if data, err := os.ReadFile(path); err != nil || string(data) != string(files[i].Data) {
			t.Errorf("%s holds %q, %v; want %q", path, data, err, files[i].Data)
		}
	}
	if err := WriteFiles(filepath.Join(wrote[0], "sub"), files, func(string) {}); err == nil {
		t.Error("WriteFiles in a directory below a file succeeded")
	}
}
