package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/session"
)

// heesIn runs the test binary as hees with args in the directory dir and
// the extra environment variables, and returns its exit status and outputs.
func heesIn(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd, stdout, stderr := heesProcess(t, childEnv("hees", env...), "", args...)
	cmd.Dir = dir
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestResumeFromOtherDirectory runs a program and a trace given by relative
// paths with a checkpoint in directory A, and resumes the run from
// directory B, which has a program and a trace of the same names: the
// resumed run must use A's program and trace, leave B's files alone, and
// print what the uninterrupted run prints.
func TestResumeFromOtherDirectory(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, dir := range []string{a, b} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A's program crashes at its 30th answer the first time it runs, so
	// that the run stops with a checkpoint to resume.
	prog := "#!/bin/sh\nexport " + roleEnv + "=objective HEES_TEST_PROBLEM=sphere\n" +
		"if [ ! -e crashed ]; then touch crashed; export HEES_TEST_CRASH_AFTER=30; fi\n" +
		"exec " + shellQuote(exe) + "\n"
	mustWrite(t, filepath.Join(a, "sim"), prog, 0o755)
	mustWrite(t, filepath.Join(b, "sim"), "#!/bin/sh\ntouch b-sim-ran\nexit 1\n", 0o755)
	const bTrace = "B's own file\n"
	mustWrite(t, filepath.Join(b, "tr.csv"), bTrace, 0o644)

	args := []string{"-cmd", "./sim", "-d", "3", "-max-evals", "300", "-target", "none", "-trace", "tr.csv", "-json"}
	code, _, stderr := heesIn(t, a, nil, append([]string{"run", "-checkpoint", "ck"}, args...)...)
	if code != exitFailure || !strings.Contains(stderr, "simulated crash") {
		t.Fatalf("first run: exit %d, want the crash; stderr:\n%s", code, stderr)
	}
	code, got, stderr := heesIn(t, b, nil, "resume", "-json", filepath.Join("..", "a", "ck"))
	if code != exitOK {
		t.Fatalf("resume from B: exit %d, stderr:\n%s", code, stderr)
	}
	if data := readFile(t, filepath.Join(b, "tr.csv")); string(data) != bTrace {
		t.Errorf("B's tr.csv was changed to:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(b, "b-sim-ran")); err == nil {
		t.Errorf("B's ./sim was run")
	}

	// The uninterrupted run, in a directory of its own.
	c := filepath.Join(root, "c")
	if err := os.Mkdir(c, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(c, "sim"), prog, 0o755)
	mustWrite(t, filepath.Join(c, "crashed"), "", 0o644)
	code, want, stderr := heesIn(t, c, nil, append([]string{"run"}, args...)...)
	if code != exitOK {
		t.Fatalf("uninterrupted run: exit %d, stderr:\n%s", code, stderr)
	}
	if got != want {
		t.Errorf("resumed from B:\n%s\nuninterrupted:\n%s", got, want)
	}
	if gotTrace, wantTrace := readFile(t, filepath.Join(a, "tr.csv")), readFile(t, filepath.Join(c, "tr.csv")); string(gotTrace) != string(wantTrace) {
		t.Errorf("A's trace has %d bytes, the uninterrupted run's %d", len(gotTrace), len(wantTrace))
	}
}

// shellQuote quotes s as one word of sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// mustWrite writes a file or fails the test.
func mustWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// TestRunTraceIsNotCheckpoint checks that a -trace naming the -checkpoint
// file or its lock file, by any path, is refused before anything is
// written.
func TestRunTraceIsNotCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck")
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{ck, filepath.Join(dir, "sub", "..", "ck"), filepath.Join(dir, "link", "ck"), ck + ".lock"} {
		code, _, stderr := runCLI("run", "-f", "sphere", "-d", "2", "-checkpoint", ck, "-trace", trace)
		if code != exitUsage || !strings.Contains(stderr, "give -trace another name") {
			t.Errorf("-trace %s -checkpoint %s: exit %d, stderr %q", trace, ck, code, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("-trace %s: files were written: %v", trace, entries)
		}
	}
}

// TestRunProtocolErrorAtClose checks that a program that prints a line no
// point asked for, found only when the pool is closed, fails the run:
// answers may have gone to the wrong points, so the result is not a normal
// one and the checkpoint does not record a finished run.
func TestRunProtocolErrorAtClose(t *testing.T) {
	prog := shellProgram(t, "while read line; do echo 1; done\necho 5\n")
	ck := filepath.Join(t.TempDir(), "ck")
	code, stdout, stderr := runCLI("run", "-cmd", prog, "-d", "2", "-max-evals", "20", "-json", "-checkpoint", ck)
	var rep runReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	if code != exitFailure || rep.StopReason != "objective error" ||
		!strings.Contains(rep.Error, "protocol error") || !strings.Contains(stderr, "answers may have gone to the wrong points") {
		t.Errorf("exit %d, stop reason %q, error %q, stderr %q", code, rep.StopReason, rep.Error, stderr)
	}
	if strings.Contains(stderr, "did not end cleanly") {
		t.Errorf("stderr calls the protocol error an unclean end: %q", stderr)
	}
	if data, err := os.ReadFile(ck); err != nil {
		t.Error(err)
	} else if st, err := checkpoint.Decode(data); err != nil || st.File.Stop != "" {
		t.Errorf("checkpoint: stop %q, error %v; want a run that is not finished", st.File.Stop, err)
	}
}

// TestHugeSizes checks that a dimension or a worker count beyond what hees
// can hold is one line of error before anything is allocated or printed,
// also when it comes from a checkpoint.
func TestHugeSizes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"run", "-f", "sphere", "-d", "1000000"}, "more than MaxMemory", exitUsage},
		{[]string{"run", "-cmd", "true", "-d", "1000000"}, "more than MaxMemory", exitUsage},
		{[]string{"init", "-state", filepath.Join(dir, "s"), "-d", "1000000"}, "more than MaxMemory", exitUsage},
		{[]string{"run", "-f", "sphere", "-d", "2", "-workers", "4000000"}, "-workers 4000000: want 1 to 4096", exitUsage},
		{[]string{"resume", "-workers", "4097", filepath.Join(dir, "ck")}, "-workers 4097: want 1 to 4096", exitUsage},
	} {
		start := time.Now()
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("hees %q: exit %d, stdout %q, stderr %q; want exit %d and one line saying %q", c.args, code, stdout, stderr, c.code, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("hees %q took %v", c.args, d)
		}
	}

	// hees eval of a diagonal problem in 100000 dimensions needs O(d).
	point := strings.TrimSpace(strings.Repeat("1 ", 100000)) + "\n"
	var out strings.Builder
	if code := run([]string{"eval", "-f", "sphere", "-d", "100000"}, strings.NewReader(point), &out, os.Stderr); code != exitOK || out.String() != "100000\n" {
		t.Errorf("hees eval -f sphere -d 100000: exit %d, output %q", code, out.String())
	}

	// A checkpoint whose workers field was changed to 100000000.
	ck := filepath.Join(dir, "ck")
	code, _, stderr := runCLI("run", "-f", "sphere", "-d", "2", "-max-evals", "10", "-checkpoint", ck, "-q")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	st, err := checkpoint.Decode(readFile(t, ck))
	if err != nil {
		t.Fatal(err)
	}
	st.File.Stop = ""
	st.File.Run.Workers = 100000000
	data, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, ck, string(data), 0o644)
	code, stdout, stderr := runCLI("resume", ck)
	if code != exitFailure || stdout != "" || !regexp.MustCompile(`^hees resume: .*ck: bad checkpoint: out of range: .*workers 100000000`).MatchString(stderr) {
		t.Errorf("resume of a checkpoint with 10^8 workers: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestUserFilesBounded gives devices that never end as the files of resume,
// status, ask and plot: each is refused at once, naming the kind of file,
// instead of being read until memory runs out.
func TestUserFilesBounded(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skip(err)
		}
		for _, args := range [][]string{
			{"resume", dev},
			{"status", "-state", dev},
			{"ask", "-state", dev},
			{"plot", "-o", filepath.Join(t.TempDir(), "out.svg"), dev},
		} {
			code, stdout, stderr := runCLI(args...)
			if code != exitFailure || stdout != "" || strings.Count(stderr, "\n") != 1 ||
				!strings.Contains(stderr, "not a regular file (it is a character device)") {
				t.Errorf("hees %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
			}
		}
	}
}

// TestTellSaysWhatItWaitsFor holds the lock of a state file while hees tell
// waits for it: after a few seconds tell says, once, which lock file it
// waits for, and it goes on when the lock is released.
func TestTellSaysWhatItWaitsFor(t *testing.T) {
	state := filepath.Join(t.TempDir(), "run.state")
	mustCLI(t, "", "init", "-state", state, "-d", "2")
	lockPath := session.LockPath(state, status(t, state)["lock"].(string))
	var unlock func() error
	if strings.HasSuffix(lockPath, ".lk") { // HEES_LOCK=file
		// The holder beats as often as the waiter's stale bound (CI cuts
		// it with HEES_LOCK_STALE) requires, or tell breaks its lock.
		stale, _ := time.ParseDuration(os.Getenv(session.StaleEnv))
		l, err := atomicfile.LockFile(context.Background(), lockPath, atomicfile.FileLockOptions{Holder: "the test", Stale: stale})
		if err != nil {
			t.Fatal(err)
		}
		unlock = l.Unlock
	} else {
		var err error
		if unlock, err = atomicfile.Lock(context.Background(), lockPath); err != nil {
			t.Skip(err) // no file locks on this system
		}
	}
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"tell", "-state", state}, strings.NewReader(""), io.Discard, &stderr) }()
	for start := time.Now(); !strings.Contains(stderr.String(), "waiting for "+lockPath); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 3*session.LockNoticeAfter {
			unlock()
			t.Fatalf("no notice after %v, stderr %q", time.Since(start), stderr.String())
		}
	}
	select {
	case code := <-done:
		t.Fatalf("tell ended (exit %d) while the lock was held", code)
	default:
	}
	unlock()
	if code := <-done; code != exitOK || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 0 and the one notice", code, stderr.String())
	}
}

// TestRunSaysWhatItWaitsFor runs a program that never answers: after 10 s
// hees run says on stderr which point it waits for and what to check,
// once, and the run goes on until -max-time.
func TestRunSaysWhatItWaitsFor(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 11 s")
	}
	sleeper := shellProgram(t, "read line\nsleep 1000\n")
	code, _, stderr, took := runBounded(t, 40*time.Second, "run", "-cmd", sleeper, "-d", "2", "-max-time", "11s", "-q")
	if code != exitOK || took < 11*time.Second || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "hees run: ") || !strings.Contains(stderr, "line by line") {
		t.Errorf("exit %d after %v, stderr %q; want one notice of the wait", code, took, stderr)
	}
}

// TestResumeNamesRunDirectory resumes a run whose directory was moved away:
// the error names the directory the program was looked for in.
func TestResumeNamesRunDirectory(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	if err := os.Mkdir(a, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(a, "sim"), "#!/bin/sh\nwhile read line; do echo 1; done\n", 0o755)
	if code, _, stderr := heesIn(t, a, nil, "run", "-cmd", "./sim", "-d", "2", "-max-time", "1ns", "-checkpoint", "ck", "-q"); code != exitOK {
		t.Fatalf("run: exit %d, stderr %q", code, stderr)
	}
	dir, err := filepath.EvalSymlinks(a) // as the run's os.Getwd sees it
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(root, "moved")
	if err := os.Rename(a, moved); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := heesIn(t, root, nil, "resume", "-q", filepath.Join(moved, "ck"))
	if code != exitFailure || !strings.Contains(stderr, "(in "+dir+", the directory the run was started in)") {
		t.Errorf("exit %d, stderr %q; want the error to name %s", code, stderr, dir)
	}
}
