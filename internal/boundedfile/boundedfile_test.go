package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{5, 100} {
		if got, err := Read(path, limit); err != nil || string(got) != "12345" {
			t.Errorf("Read(limit %d) = %q, %v", limit, got, err)
		}
	}
	if _, err := Read(path, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "5 bytes, more than 4") {
		t.Errorf("Read of 5 bytes with limit 4: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: %v", err)
	}
}
