package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// shellProgram writes the sh script body to an executable file in a
// temporary directory and returns its path.
func shellProgram(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the test programs are sh scripts")
	}
	path := filepath.Join(t.TempDir(), "program.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runBounded runs hees with args in a child process and returns its exit
// status, standard output and error and its wall time; the test fails at
// once when it is still running after limit.
func runBounded(t *testing.T, limit time.Duration, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	cmd, stdout, stderr := heesProcess(t, childEnv("hees"), "", args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if ended, _ := waitBounded(cmd, limit); !ended {
		t.Fatalf("hees %s: still running after %v\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), limit, stdout.String(), stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String(), time.Since(start)
}

// waitBounded waits for the started cmd to end and returns the error of its
// Wait; when cmd is still running after limit, it kills it and returns
// ended = false.
func waitBounded(cmd *exec.Cmd, limit time.Duration) (ended bool, err error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return true, err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return false, nil
	}
}

// TestRunMaxTimeKillsHungProgram checks that -max-time bounds the wall time
// of a run whose program never answers: the evaluations in progress are
// killed when the time is up, and the run reports the time limit.
func TestRunMaxTimeKillsHungProgram(t *testing.T) {
	sleeper := shellProgram(t, "read line\nsleep 1000\n")
	code, stdout, stderr, took := runBounded(t, 20*time.Second,
		"run", "-cmd", sleeper, "-d", "3", "-max-time", "2s", "-workers", "2", "-q")
	if took > 10*time.Second {
		t.Errorf("the run took %v with -max-time 2s", took)
	}
	if code != exitOK || !regexp.MustCompile(`(?m)^evaluations  0 in 0 generations\n(.*\n){2}stop reason  time limit$`).MatchString(stdout) {
		t.Errorf("exit %d, want %d and the time limit; stdout:\n%s\nstderr:\n%s", code, exitOK, stdout, stderr)
	}
}

// TestRunFailureStopsOtherWorkers checks that a program crashing in one
// worker stops the run at once and reports the crash, while the other
// worker's program, which would never answer, is killed.
func TestRunFailureStopsOtherWorkers(t *testing.T) {
	// The first process to get a point never answers; the second crashes.
	dir := t.TempDir()
	program := shellProgram(t, "read line\nif mkdir '"+filepath.Join(dir, "first")+"' 2>/dev/null; then sleep 1000; fi\necho crashed >&2\nexit 3\n")
	code, stdout, stderr, took := runBounded(t, 20*time.Second,
		"run", "-cmd", program, "-d", "3", "-workers", "2", "-q")
	if took > 10*time.Second {
		t.Errorf("the run took %v after the crash", took)
	}
	if code != exitFailure || !regexp.MustCompile(`^hees run: extproc: evaluating \[.*exit status 3.*\n\tcrashed\n`).MatchString(stderr) ||
		!strings.Contains(stdout, "stop reason  objective error\n") {
		t.Errorf("exit %d, want %d, the crash and the reason objective error; stdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
	}
}
