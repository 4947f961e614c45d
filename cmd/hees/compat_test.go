package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies testdata/compat/name into dir and returns its path.
func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "compat", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture returns the content of testdata/compat/name, trimmed.
func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "compat", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// TestResumeOldCheckpoints resumes checkpoints written by the build of
// commit 3189e06 (testdata/compat/README.md): a run stopped by its time
// limit ends as the uninterrupted run did, a finished one prints what that
// build printed.
func TestResumeOldCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path := copyFixture(t, dir, "cp-running.hees")
	var out string
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("the run did not end in 1000 resumes")
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"resume", "-json", "-q", path}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("resume: exit %d: %s", code, stderr.String())
		}
		out = strings.TrimSpace(stdout.String())
		if !strings.Contains(out, `"stop_reason":"time limit"`) {
			break
		}
	}
	if want := fixture(t, "run-full.json"); out != want {
		t.Errorf("resumed old checkpoint:\n%s\nwant (hees run without a stop):\n%s", out, want)
	}

	path = copyFixture(t, dir, "cp-finished.hees")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"resume", "-json", "-q", path}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("resume finished: exit %d: %s", code, stderr.String())
	}
	if got, want := strings.TrimSpace(stdout.String()), fixture(t, "cp-finished.json"); got != want {
		t.Errorf("resumed finished old checkpoint:\n%s\nwant:\n%s", got, want)
	}
}
