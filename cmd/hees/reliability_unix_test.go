//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResumeFIFO gives a named pipe that no one writes to hees resume: it
// is refused at once, without opening it (which would wait for a writer
// and leave the first SIGTERM to the signal handler of a run that never
// starts).
func TestResumeFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ck")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"resume", fifo}, {"status", "-state", fifo}, {"plot", fifo}} {
		code, _, stderr, took := runBounded(t, 20*time.Second, args...)
		if code != exitFailure || !strings.Contains(stderr, "(it is a named pipe)") || took > 10*time.Second {
			t.Errorf("hees %q: exit %d after %v, stderr %q", args, code, took, stderr)
		}
	}
}

// TestFileModesKept makes a state file and a checkpoint private (0600):
// hees tell and hees resume replace them with files of the same mode; and
// hees init under umask 077 creates a private state file.
func TestFileModesKept(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "run.state")
	mustCLI(t, "", "init", "-state", state, "-d", "2")
	if err := os.Chmod(state, 0o600); err != nil {
		t.Fatal(err)
	}
	c := askAll(t, state)[0]
	mustCLI(t, c.id+" 1\n", "tell", "-state", state)
	checkMode(t, state, 0o600)

	ck := filepath.Join(dir, "ck")
	if code, _, stderr := runCLI("run", "-f", "sphere", "-d", "2", "-max-time", "1ns", "-checkpoint", ck, "-q"); code != exitOK {
		t.Fatalf("run: exit %d, stderr %q", code, stderr)
	}
	if err := os.Chmod(ck, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("resume", "-q", ck); code != exitOK {
		t.Fatalf("resume: exit %d, stderr %q", code, stderr)
	}
	checkMode(t, ck, 0o600)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(dir, "private.state")
	cmd := exec.Command("sh", "-c", `umask 077 && exec "$0" init -state "$1" -d 2`, exe, private)
	cmd.Env = childEnv("hees")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init under umask 077: %v\n%s", err, out)
	}
	checkMode(t, private, 0o600)
}

// checkMode fails the test unless the file at path has the permission bits
// want.
func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s has mode %v, want %v", path, got, want)
	}
}

// TestRunTraceFIFO gives a named pipe as -trace: refused before the run,
// and the pipe is left as it is (not replaced by a regular file).
func TestRunTraceFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	code, stdout, stderr := runCLI("run", "-f", "sphere", "-d", "2", "-trace", fifo)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "is a named pipe: give the name of a regular file") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v, %v", info.Mode(), err)
	}
}
