//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/runlog"
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
	ck := filepath.Join(t.TempDir(), "run.hees")
	for _, extra := range [][]string{nil, {"-checkpoint", ck}} {
		code, stdout, stderr := runCLI(append([]string{"run", "-f", "sphere", "-d", "2", "-trace", fifo}, extra...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "is a named pipe: give the name of a regular file") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", extra, code, stdout, stderr)
		}
		if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%v: the named pipe was replaced: %v, %v", extra, info.Mode(), err)
		}
	}
	if _, err := os.Stat(ck); err == nil {
		t.Error("a refused run left its checkpoint")
	}
}

// TestRunLogWriteFails fills the disk under the log (a file size limit)
// mid-run: the run stops with the reason "log error" (not "canceled"), its
// checkpoint stays at the last generation the log holds, and hees resume,
// once there is room, turns the rows past the checkpoint into comments and
// writes the rest: the log's rows are the uninterrupted run's.
func TestRunLogWriteFails(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to set a file size limit with")
	}
	dir := t.TempDir()
	ref, log, ck := filepath.Join(dir, "ref.csv"), filepath.Join(dir, "log.csv"), filepath.Join(dir, "run.hees")
	args := []string{"run", "-f", "sphere", "-d", "3", "-seed", "4"}
	if code, _, stderr := runCLI(append(args, "-log", ref)...); code != exitOK {
		t.Fatalf("reference run: exit %d, %s", code, stderr)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// ulimit -f counts blocks of 1024 bytes: 8 KiB, about 90 rows.
	cmd := exec.Command(bash, append([]string{"-c", `ulimit -f 8 && exec "$0" "$@"`, exe},
		append(args, "-log", log, "-checkpoint", ck, "-checkpoint-every", "2")...)...)
	cmd.Env = childEnv("hees")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if cmd.ProcessState.ExitCode() != exitFailure || !strings.Contains(stdout.String(), "stop reason  log error") ||
		!strings.Contains(stderr.String(), "writing the log") {
		t.Fatalf("the run with a full disk: %v, stdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if code, _, stderr := runCLI("resume", ck); code != exitOK {
		t.Fatalf("resume: exit %d, %s", code, stderr)
	}
	data := readFile(t, log)
	if got, want := logRows(data), logRows(readFile(t, ref)); got != want {
		t.Errorf("the log's rows after the resume differ from the uninterrupted run's")
	}
	if !strings.Contains(string(data), runlog.RedoneComment) {
		t.Error("no row past the checkpoint was kept as a comment")
	}
}

// TestRunOutputsDistinct: two output files of hees run that are one file,
// by any path (-trace, -log, -checkpoint and its lock file), are refused
// before anything is written; so is a -log or a -trace (with or without
// -checkpoint) that names a named pipe or a device.
func TestRunOutputsDistinct(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck")
	same := filepath.Join(dir, "out.csv")
	alias := filepath.Join(dir, "sub", "..", "out.csv")
	for _, args := range [][]string{
		{"-trace", same, "-log", same},
		{"-trace", same, "-log", alias},
		{"-log", ck + ".lock", "-checkpoint", ck},
		{"-log", ck, "-checkpoint", ck},
		{"-log", alias, "-trace", same, "-checkpoint", ck},
	} {
		code, stdout, stderr := runCLI(append([]string{"run", "-f", "sphere", "-d", "2"}, args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "another name") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: files were written: %v", args, entries)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, file := range []string{fifo, os.DevNull} {
		for _, args := range [][]string{{"-log", file}, {"-trace", file}, {"-trace", file, "-checkpoint", filepath.Join(dir, "ck.hees")}} {
			code, stdout, stderr := runCLI(append([]string{"run", "-f", "sphere", "-d", "2"}, args...)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, "give the name of a regular file") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
			}
		}
	}
}

// TestRunLogTwoWriters: a second hees run that appends to the -log of a
// run under way is refused, naming the log, rather than interleaving its
// rows with the first run's.
func TestRunLogTwoWriters(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.csv")
	program := "env " + roleEnv + "=objective " + selfCommand(t)
	first, _, firstErr := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM=sphere", "HEES_TEST_DELAY=5ms"), "",
		"run", "-cmd", program, "-d", "3", "-max-evals", "3000", "-log", log, "-v")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	for start := time.Now(); !strings.Contains(firstErr.String(), "evals "); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("the first run shows no progress: %s", firstErr.String())
		}
	}
	code, _, stderr := runCLI("run", "-f", "sphere", "-d", "3", "-log", log)
	if code == exitOK || !strings.Contains(stderr, "another run is writing it") || !strings.Contains(stderr, log) {
		t.Errorf("the second run: exit %d, stderr %q", code, stderr)
	}
	// Nor as its trace, which emptied the log before.
	code, _, stderr = runCLI("run", "-f", "sphere", "-d", "3", "-trace", log)
	if code == exitOK || !strings.Contains(stderr, "another run is writing it") || !strings.Contains(stderr, log) {
		t.Errorf("a second run with the log as its trace: exit %d, stderr %q", code, stderr)
	}
	if text := string(readFile(t, log)); !strings.HasPrefix(text, "# ") || !strings.Contains(text, "\nevaluation,") {
		t.Errorf("the refused trace changed the first run's log: %.200q", text)
	}
	first.Process.Kill()
	first.Wait()
	if strings.Contains(string(readFile(t, log)), "# strategy: hees2\n# problem: sphere") {
		t.Error("the second run wrote its comment lines into the first run's log")
	}
}

// TestBudgetBelowFirstGeneration: a budget smaller than the first
// generation is refused before any file is made (before: "evaluations 0",
// best value +Inf, exit 0, and hees init made a state born stopped). A
// budget of exactly one generation runs it; with -noise the first
// generation evaluates each point once.
func TestBudgetBelowFirstGeneration(t *testing.T) {
	dir := t.TempDir()
	log, trace, state := filepath.Join(dir, "log.csv"), filepath.Join(dir, "trace.csv"), filepath.Join(dir, "run.hees")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-d", "2", "-max-evals", "4", "-log", log, "-trace", trace}, "-max-evals 4 is smaller than the first generation of hees2 (5 evaluations)"},
		{[]string{"run", "-d", "2", "-max-evals", "200", "-pairs", "1000"}, "-max-evals 200 is smaller than the first generation of hees2 (2001 evaluations)"},
		{[]string{"run", "-d", "2", "-max-evals", "5", "-algo", "cmaes", "-restarts", "ipop"}, "-max-evals 5 is smaller than the first generation of ipop-cmaes (6 evaluations)"},
		{[]string{"run", "-d", "2", "-max-evals", "7", "-noise", "-algo", "cmaes", "-f", "sphere:noise=add,sigma=0.1"}, "-max-evals 7 is smaller than the first generation of cmaes (8 evaluations)"},
		{[]string{"init", "-state", state, "-d", "2", "-pairs", "100000"}, "-max-evals 20000 is smaller than the first generation of hees2 (200001 evaluations)"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
	}
	for _, path := range []string{log, trace, state} {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s was made", path)
		}
	}
	for _, args := range [][]string{
		{"run", "-d", "2", "-max-evals", "5", "-json"},
		{"run", "-d", "2", "-max-evals", "6", "-noise", "-f", "sphere:noise=add,sigma=0.1", "-json"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || !strings.Contains(stdout, `"evals":`) || strings.Contains(stdout, `"evals":0,`) {
			t.Errorf("%q: exit %d, stdout %.200q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestRunInjectBeyondBudget: more known points than -max-evals is refused
// before anything runs, rather than a run that evaluates nothing and
// reports no best point.
func TestRunInjectBeyondBudget(t *testing.T) {
	file := filepath.Join(t.TempDir(), "points")
	if err := os.WriteFile(file, []byte("1 1\n2 2\n3 3\n0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("run", "-f", "sphere", "-d", "2", "-inject", file, "-max-evals", "3")
	if code == exitOK || stdout != "" || !strings.Contains(stderr, "4 known points, but the budget of 3 evaluations leaves room for 3") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestRunNoFiniteValue: a run whose every value was NaN or +Inf has no
// result: exit 1 and an error saying so, in the summary and the JSON
// (before: best value +Inf, best x none, exit 0).
func TestRunNoFiniteValue(t *testing.T) {
	program := filepath.Join(t.TempDir(), "nan.sh")
	if err := os.WriteFile(program, []byte("#!/bin/sh\nwhile read line; do echo NaN; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "-d", "2", "-cmd", program},
		{"run", "-d", "2", "-max-evals", "200", "-x0", "1e300,1e300", "-json"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitFailure || !strings.Contains(stderr, "gave a value below +Inf") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
		if args[len(args)-1] == "-json" && !strings.Contains(stdout, `"error":"no evaluation of`) {
			t.Errorf("%q: the JSON has no error: %s", args, stdout)
		}
	}
}
