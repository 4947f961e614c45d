package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/worker"
)

// TestWorkerStrayOutputLine runs hees worker on a program that prints one
// extra line 50 ms after each answer. Where the extra line comes while the
// next point is evaluated, the pool takes it for that answer and finds the
// extra line at the latest when it is closed; where it comes between two
// evaluations (a slow machine, the race detector), the next evaluation
// fails with a protocol error. Before, the worker told such values (5
// where the value is 20.114) and exited 0; now it fails (exit 1), as hees
// run does, with an error that names the candidates whose values came
// from that process, and tells the candidate that found it failed.
func TestWorkerStrayOutputLine(t *testing.T) {
	prog := shellProgram(t, "while read l; do echo 20.114; (sleep 0.05; echo 5) & done\n")
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-max-evals", "30", "-retries", "20", "-on-error", "nan")
	code, _, errOut, _ := runBounded(t, 60*time.Second, "worker", "-state", path, "-cmd", prog)
	if code != exitFailure || !strings.Contains(errOut, "may belong to other candidates") {
		t.Fatalf("worker with a stray output line: exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "@") {
		t.Errorf("the error names no candidate:\n%s", errOut)
	}
}

// TestWorkerIndexUnique runs two hees worker processes of -workers 3 at
// once: the six programs get six different HEES_WORKER indices, 0 to 5
// (before, every program got 0).
func TestWorkerIndexUnique(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "4", "-pairs", "6", "-max-evals", "26")
	dir := t.TempDir()
	command := workerCommand(t, "sphere", "HEES_TEST_DELAY=200ms", "HEES_TEST_WORKER_DIR="+dir)
	a, aErr := startWorker(t, path, command, "-workers", "3")
	b, bErr := startWorker(t, path, command, "-workers", "3")
	for i, w := range []*struct {
		wait func() error
		err  *lockedBuffer
	}{{a.Wait, aErr}, {b.Wait, bErr}} {
		if err := w.wait(); err != nil {
			t.Fatalf("worker %d: %v, stderr %s", i, err, w.err.String())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	if want := []string{"worker-0", "worker-1", "worker-2", "worker-3", "worker-4", "worker-5"}; !slices.Equal(names, want) {
		t.Errorf("indices %v, want %v", names, want)
	}
	if st := status(t, path); st["workers"] != nil {
		t.Errorf("worker slots left after the workers ended: %v", st["workers"])
	}
}

// TestLeaseTooLong refuses a lease that would overflow the lease's end
// (before: a lease above about 2.1 million hours was taken already
// expired) and leases too short to be written, with the same bounds for
// hees worker and hees ask -claim.
func TestLeaseTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2")
	for _, args := range [][]string{
		{"worker", "-state", path, "-cmd", "true", "-lease", "2200000h"},
		{"ask", "-state", path, "-claim", "1", "-lease", "2200000h"},
		{"ask", "-state", path, "-claim", "1", "-lease", "87601h"},
		// Too short to be written before it expires (hees worker renews
		// every third of its lease: 1ns made a ticker of 0 and panicked).
		{"worker", "-state", path, "-cmd", "true", "-lease", "1ns"},
		{"worker", "-state", path, "-cmd", "true", "-lease", "2ns"},
		{"ask", "-state", path, "-claim", "5", "-lease", "1ns"},
		{"ask", "-state", path, "-claim", "1", "-lease", "9ms"},
	} {
		code, _, errOut := cli("", args...)
		if code != exitUsage || !strings.Contains(errOut, "from 10ms to 87600h0m0s (10 years)") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	if st := status(t, path); st["leased"] != 0.0 || st["stop_reason"] != "" {
		t.Errorf("refused leases changed the run: %v", st)
	}
	if out := mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", "87600h"); out == "" {
		t.Error("a lease of 10 years claimed nothing")
	}
}

// TestWorkerSaysWhatItWaitsFor leases every candidate to someone else: the
// worker says, after IdleNotice, what it waits for (the leases and when
// the next expires), and goes on when the candidates are told.
func TestWorkerSaysWhatItWaitsFor(t *testing.T) {
	defer func(d time.Duration) { worker.IdleNotice = d }(worker.IdleNotice)
	worker.IdleNotice = 200 * time.Millisecond
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-max-evals", "10")
	held := mustCLI(t, "", "ask", "-state", path, "-claim", "9", "-lease", "1h")
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"worker", "-state", path, "-cmd", workerCommand(t, "sphere")}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	for start := time.Now(); !strings.Contains(stderr.String(), "the next lease to expire is"); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no notice of the wait: %q", stderr.String())
		}
	}
	var in strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(held), "\n") {
		fmt.Fprintf(&in, "%s 1\n", strings.Fields(line)[0])
	}
	mustCLI(t, in.String(), "tell", "-state", path)
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("worker: exit %d, stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not end once the candidates were told")
	}
	if !strings.Contains(stderr.String(), "waits: generation 0: 0 of 5 candidates told, the other 5 leased") {
		t.Errorf("the notice: %q", stderr.String())
	}
}

// TestLostLeasesRecorded lets leases expire until a candidate exceeds
// -lost-leases: the run stops with "leases lost", and hees status and the
// worker say which candidate, how often, who held it and why; a failed
// evaluation is counted apart.
func TestLostLeasesRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-lost-leases", "1", "-retries", "5")
	first := strings.Fields(mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", "50ms"))[0]
	mustCLI(t, "", "tell", "-state", path, strings.Replace(first, "-0@", "-1@", 1), "failed")
	time.Sleep(80 * time.Millisecond)
	if again := strings.Fields(mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", "50ms"))[0]; again != first {
		t.Fatalf("claimed %s after the expiry of %s", again, first)
	}
	st := status(t, path)
	if st["stop_reason"] != "" || fmt.Sprint(st["attempts"]) == "" {
		t.Fatalf("after one lost lease: %v", st)
	}
	time.Sleep(80 * time.Millisecond)
	code, _, errOut := cli("", "ask", "-state", path, "-claim", "1")
	if code != exitStopped || !strings.Contains(errOut, "leases lost") {
		t.Fatalf("ask after the second lost lease: exit %d, %q", code, errOut)
	}
	st = status(t, path)
	detail, _ := st["stop_detail"].(string)
	if st["stop_reason"] != "leases lost" || !strings.HasPrefix(detail, first+" lost its lease 2 times") || !strings.Contains(detail, "pid ") {
		t.Errorf("status: stop %v, detail %q", st["stop_reason"], detail)
	}
	human := mustCLI(t, "", "status", "-state", path)
	if !strings.Contains(human, "stopped: leases lost ("+first) || !strings.Contains(human, "1 failed, 0 leases lost") {
		t.Errorf("status:\n%s", human)
	}
	code, _, errOut, _ = runBounded(t, 30*time.Second, "worker", "-state", path, "-cmd", "true")
	if code != exitOK || !strings.Contains(errOut, "the run has stopped (leases lost: "+first) {
		t.Errorf("worker on the stopped run: exit %d, %q", code, errOut)
	}
}

// TestWorkerUntil gives hees worker less time than its evaluations take
// (-until): it stops claiming once the time left is shorter than the
// longest evaluation it has seen, tells what it evaluated, holds no lease
// and exits 0.
func TestWorkerUntil(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2")
	start := time.Now()
	code, _, errOut, _ := runBounded(t, 30*time.Second, "worker", "-state", path, "-until", "1s", "-cmd", workerCommand(t, "sphere", "HEES_TEST_DELAY=400ms"))
	if code != exitOK || !strings.Contains(errOut, "stopped claiming") || time.Since(start) > 5*time.Second {
		t.Fatalf("worker -until 1s: exit %d after %v, %q", code, time.Since(start), errOut)
	}
	st := status(t, path)
	if st["leased"] != 0.0 || st["told"] == 0.0 || st["stop_reason"] != "" {
		t.Errorf("after -until: %v", st)
	}
	if code, _, errOut := cli("", "worker", "-state", path, "-cmd", "true", "-until", "soon"); code != exitUsage || !strings.Contains(errOut, "-until") {
		t.Errorf("-until soon: exit %d, %q", code, errOut)
	}
}

// TestInitForceUnderWorkers replaces the run of a state file (hees init
// -force) while a worker evaluates it: the worker's value for the old run
// is refused ("belongs to another run"), it goes on with the new run, and
// the new run ends bit-identical to hees run.
func TestInitForceUnderWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	args := []string{"-d", "2", "-seed", "3", "-max-evals", "40", "-target", "none"}
	mustCLI(t, "", append([]string{"init", "-state", path}, args...)...)
	w, stderr := startWorker(t, path, workerCommand(t, "sphere", "HEES_TEST_DELAY=100ms"), "-workers", "2")
	for start := time.Now(); status(t, path)["evals"] == 0.0; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no generation told: %s", stderr.String())
		}
	}
	mustCLI(t, "", append([]string{"init", "-state", path, "-force"}, args...)...)
	if err := w.Wait(); err != nil {
		t.Fatalf("worker: %v, stderr %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "belongs to another run") {
		t.Logf("no value of the old run was told after the init (the worker was between evaluations): %s", stderr.String())
	}
	compareWithRun(t, "workers", path, "sphere", args)
}

// TestStatusWatch runs hees status -watch on a run while it is told: it
// prints a report every interval (one after another when its output is
// not a terminal) and ends with the run's stop.
func TestStatusWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-max-evals", "5")
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"status", "-state", path, "-watch", "100ms"}, strings.NewReader(""), &stdout, &stderr)
	}()
	for start := time.Now(); strings.Count(stdout.String(), "state        running") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no second report: %q", stdout.String())
		}
	}
	var in strings.Builder
	for _, c := range askAll(t, path) {
		fmt.Fprintf(&in, "%s 1\n", c.id)
	}
	mustCLI(t, in.String(), "tell", "-state", path)
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(stdout.String(), "state        stopped: max evaluations") || stderr.String() != "" {
			t.Errorf("status -watch: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("status -watch did not end with the run")
	}
	if code, _, errOut := cli("", "status", "-state", path, "-watch", "1ms"); code != exitUsage || !strings.Contains(errOut, "-watch") {
		t.Errorf("-watch 1ms: exit %d, %q", code, errOut)
	}
}
