package samefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSame(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	if err := os.Link(file, filepath.Join(dir, "hard")); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{file, file, true},
		{file, filepath.Join(dir, "sub", "..", "a"), true},
		{file, filepath.Join(dir, "hard"), true},
		// Not created yet, reached through a linked directory.
		{filepath.Join(dir, "sub", "new"), filepath.Join(dir, "link", "new"), true},
		{file, filepath.Join(dir, "sub", "a"), false},
		{filepath.Join(dir, "new1"), filepath.Join(dir, "new2"), false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
