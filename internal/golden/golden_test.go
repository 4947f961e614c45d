package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\n", "a\nc\n", "line 2:\n-want b\n+got  c"},
		{"a\n", "a\nb\n", "line 2:\n-want \n+got  b"},
		{"a\nb", "a\n", "line 2:\n-want b\n+got  "},
		{"a\n", "a\n\n", "the end: one has more empty lines than the other"},
	} {
		if d := FirstDifference([]byte(c.want), []byte(c.got)); d != c.diff {
			t.Errorf("FirstDifference(%q, %q) = %q, want %q", c.want, c.got, d, c.diff)
		}
	}
}

// TestCheckUpdate writes a golden file with update set (creating its
// directory) and checks the same output against it.
func TestCheckUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "x.golden")
	Check(t, path, []byte("one\ntwo\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	Check(t, path, []byte("one\ntwo\n"), false)
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Errorf("a matching Check left %s.got (%v)", path, err)
	}
}
