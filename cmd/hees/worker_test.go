package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// workerCommand returns the -cmd of hees worker that runs the test binary
// as the objective program on problem, with the extra environment (the
// worker itself runs as the role hees, which its program would inherit).
func workerCommand(t *testing.T, problem string, extra ...string) string {
	t.Helper()
	return strings.Join(append(append([]string{"env", roleEnv + "=objective", "HEES_TEST_PROBLEM=" + problem}, extra...), selfCommand(t)), " ")
}

// startWorker starts a hees worker process on the state file at path.
func startWorker(t *testing.T, path, command string, args ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd, _, stderr := heesProcess(t, childEnv("hees"), "", append([]string{"worker", "-state", path, "-cmd", command}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr
}

// compareWithRun checks that the ask/tell run in path, driven by who
// ("workers", "ask/tell"), ended as hees run with args (and -f spec) ends,
// and returns the -json summary of hees run.
func compareWithRun(t *testing.T, who, path, spec string, args []string) map[string]any {
	t.Helper()
	got := status(t, path)
	want, _ := runJSON(t, append([]string{"-f", spec, "-box", "3"}, args...)...)
	for _, k := range []string{"evals", "generations", "restarts", "f_best", "x_best", "stop_reason", "strategy"} {
		g := got[k]
		if k == "generations" {
			g = got["generation"]
		}
		if fmt.Sprint(g) != fmt.Sprint(want[k]) {
			t.Errorf("%s: %s %s = %v, hees run %v", spec, who, k, g, want[k])
		}
	}
	t.Logf("%s: %v after %v evaluations, f_best %v", spec, want["stop_reason"], want["evals"], want["f_best"])
	return want
}

// workerToEnd runs a hees worker on the state file at path until it ends,
// for at most 60 s, and fails the test unless it ends without an error.
func workerToEnd(t *testing.T, who, path, command string, args ...string) {
	t.Helper()
	w, stderr := startWorker(t, path, command, args...)
	if ended, err := waitBounded(w, 60*time.Second); !ended || err != nil {
		t.Fatalf("%s: ended %v, %v, stderr:\n%s", who, ended, err, stderr.String())
	}
}

// sameAsRun reports each of keys whose value in got (hees status -json)
// differs from want's (hees run -json).
func sameAsRun(t *testing.T, who string, got, want map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
			t.Errorf("%s: %s %v, hees run %v", who, k, got[k], want[k])
		}
	}
}

// TestWorkerPoolMatchesRun starts 4 hees worker processes at once on a
// run, SIGKILLs one of them while it evaluates and starts another in its
// place: the run ends bit-identical to hees run with the same settings
// (best point, value, evaluations, generations, restarts, stop), also with
// IPOP restarts and with a program that crashes every few evaluations.
func TestWorkerPoolMatchesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes for a few seconds")
	}
	for _, c := range []struct {
		spec  string
		args  []string
		extra []string // environment of the program
	}{
		{"sphere", []string{"-d", "3", "-seed", "3", "-target", "1e-6"}, []string{"HEES_TEST_DELAY=2ms"}},
		{"rastrigin", []string{"-d", "2", "-restarts", "ipop", "-max-restarts", "1", "-target", "none", "-sigma0", "0.5"},
			[]string{"HEES_TEST_CRASH_AFTER=40"}},
	} {
		dir := t.TempDir()
		path, log := filepath.Join(dir, "run.hees"), filepath.Join(dir, "run.log")
		mustCLI(t, "", append([]string{"init", "-state", path, "-log", log}, c.args...)...)
		command := workerCommand(t, c.spec, c.extra...)
		const lease = "300ms"
		workers := make([]*exec.Cmd, 4)
		stderrs := make([]*lockedBuffer, 4)
		for i := range workers {
			workers[i], stderrs[i] = startWorker(t, path, command, "-lease", lease)
		}
		// Kill worker 0 once the run is under way, while it holds a lease.
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			if st := status(t, path); st["evals"].(float64) >= 20 && st["leased"].(float64) > 0 {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: the workers did not get going: %v", c.spec, status(t, path))
			}
		}
		workers[0].Process.Signal(syscall.SIGKILL)
		workers[0].Wait()
		if !killedBy(workers[0].ProcessState, syscall.SIGKILL) {
			t.Fatalf("%s: worker 0 ended before the kill: %v, stderr %s", c.spec, workers[0].ProcessState, stderrs[0].String())
		}
		workers[0], stderrs[0] = startWorker(t, path, command, "-lease", lease)
		for i, w := range workers {
			switch ended, err := waitBounded(w, 20*time.Second); {
			case !ended:
				t.Fatalf("%s: worker %d still running, stderr:\n%s", c.spec, i, stderrs[i].String())
			case err != nil:
				t.Fatalf("%s: worker %d: %v, stderr:\n%s", c.spec, i, err, stderrs[i].String())
			}
			if !strings.Contains(stderrs[i].String(), "hees worker: the run has stopped (") {
				t.Errorf("%s: worker %d stderr:\n%s", c.spec, i, stderrs[i].String())
			}
		}
		compareWithRun(t, "workers", path, c.spec, c.args)
		// The log's rows are those of hees run -log, whoever told what.
		runLog := filepath.Join(dir, "hees-run.log")
		runJSON(t, append([]string{"-f", c.spec, "-box", "3", "-log", runLog}, c.args...)...)
		if got, want := logRows(readFile(t, log)), logRows(readFile(t, runLog)); got != want || want == "" {
			t.Errorf("%s: the log of the workers differs from hees run's:\n%s\nhees run:\n%s", c.spec, got, want)
		}
		if c.extra[0] == "HEES_TEST_CRASH_AFTER=40" && !strings.Contains(stderrs[1].String()+stderrs[2].String()+stderrs[3].String(), "simulated crash") {
			t.Errorf("%s: no worker reports a crash of its program", c.spec)
		}
	}
}

// TestAskClaim checks claims: 4 claims of 1 hand out 4 different
// candidates; leases expire, and the expired candidates are claimed again
// with a lost lease counted (apart from failed evaluations, with its own
// limit, -lost-leases); -wait waits for an expiry; a stopped run gives
// exit status 3.
func TestAskClaim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "3", "-retries", "0", "-lost-leases", "1", "-on-error", "nan")
	all := askAll(t, path)
	const lease = 200 * time.Millisecond
	seen := map[string]bool{}
	start := time.Now()
	for range 4 {
		out := mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", lease.String())
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || seen[strings.Fields(out)[0]] {
			t.Fatalf("ask -claim 1 printed %q; claimed before: %v", out, seen)
		}
		seen[strings.Fields(out)[0]] = true
	}
	rest := mustCLI(t, "", "ask", "-state", path, "-claim", "9", "-lease", "1h")
	if n := strings.Count(rest, "\n"); n != 3 {
		t.Fatalf("ask -claim 9 printed %d candidates, want the 3 left:\n%s", n, rest)
	}
	if st := status(t, path); st["leased"] != 7.0 || st["pending"] != 7.0 {
		t.Fatalf("status after claiming all: %v", st)
	}
	if time.Since(start) < lease {
		if code, out, errOut := cli("", "ask", "-state", path, "-claim", "1"); code != exitOK || out != "" || errOut != "" {
			t.Fatalf("ask -claim with every candidate leased: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	}
	// -wait returns once the 4 short leases expire, with the first of them.
	out := mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", "1h", "-wait")
	if waited := time.Since(start); waited < lease || !strings.HasPrefix(out, all[0].id+" ") {
		t.Fatalf("ask -claim -wait returned after %v with %q, want %s after the lease of %v", waited, out, all[0].id, lease)
	}
	// The second expiry of rows 1 to 3 exceeds -lost-leases 1: told NaN.
	time.Sleep(lease)
	mustCLI(t, "", "ask", "-state", path, "-claim", "3", "-lease", lease.String())
	time.Sleep(lease + 20*time.Millisecond)
	mustCLI(t, "", "ask", "-state", path, "-claim", "1", "-lease", "1h")
	if st := status(t, path); st["told"] != 3.0 {
		t.Fatalf("after two expiries of rows 1 to 3: %v, want them told NaN", st)
	}
	var in strings.Builder
	for _, c := range all {
		fmt.Fprintf(&in, "%s 1\n", c.id)
	}
	code, _, errOut := cli(in.String(), "tell", "-state", path)
	if code != exitConflict || strings.Count(errOut, "was told NaN before; 1 differs") != 3 {
		t.Fatalf("telling values of candidates told NaN: exit %d, stderr %q", code, errOut)
	}
	for _, c := range all {
		if c.id != all[1].id && c.id != all[2].id && c.id != all[3].id {
			mustCLI(t, "", "tell", "-state", path, c.id, "1")
		}
	}
	if st := status(t, path); st["generation"] != 1.0 || st["leased"] != 0.0 {
		t.Fatalf("after the generation: %v", st)
	}

	// Stops: -on-error stop with no retry stops the run at the first
	// failure; ask -claim then exits with 3.
	mustCLI(t, "", "init", "-state", path, "-d", "3", "-retries", "0", "-force")
	first := askAll(t, path)[0].id
	mustCLI(t, "", "tell", "-state", path, first, "failed")
	if st := status(t, path); st["stop_reason"] != "objective error" {
		t.Fatalf("after a failure with -retries 0 -on-error stop: %v", st)
	}
	code, out, errOut = cli("", "ask", "-state", path, "-claim", "1", "-wait")
	if code != exitStopped || out != "" || !strings.Contains(errOut, "the run has stopped (objective error)") {
		t.Fatalf("ask -claim on a stopped run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, args := range [][]string{{"-claim", "0"}, {"-lease", "1s"}, {"-wait"}, {"-claim", "1", "-lease", "0s"}} {
		if code, _, _ := cli("", append([]string{"ask", "-state", path}, args...)...); code != exitUsage {
			t.Errorf("ask %q: exit %d, want a usage error", args, code)
		}
	}
}

// TestWorkerErrors checks the usage errors of hees worker and that a
// program that cannot start is an error before any claim.
func TestWorkerErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-state", path}, exitUsage, "-cmd PROGRAM is required"},
		{[]string{"-cmd", "x"}, exitUsage, "-state FILE is required"},
		{[]string{"-state", path, "-cmd", "x", "-workers", "0"}, exitUsage, "-workers 0"},
		{[]string{"-state", path, "-cmd", "x", "-lease", "-1s"}, exitUsage, "-lease -1s"},
		{[]string{"-state", path + ".none", "-cmd", "x"}, exitUsage, "does not exist"},
		{[]string{"-state", path, "-cmd", "./no-such-program"}, exitFailure, "no-such-program"},
	} {
		code, _, errOut := cli("", append([]string{"worker"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("worker %q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if st := status(t, path); st["leased"] != 0.0 {
		t.Errorf("a worker that failed to start left leases: %v", st)
	}
}

// TestWorkerRenewsLeases runs a worker whose evaluations take longer than
// its lease: the renewals keep the leases alive, so no lease is lost
// (with -lost-leases 0 -on-error stop, one expiry would stop the run), and the
// run ends by its budget, as hees run does. The heartbeat renews every
// third of the lease; the lease of 3 s leaves a loaded machine 2 s of
// slack (1 s failed once under a load average of 15, and 2 s once under
// the race detector at a load average of 27).
func TestWorkerRenewsLeases(t *testing.T) {
	setObjectiveEnv(t, "sphere", "HEES_TEST_DELAY=7s")
	path := filepath.Join(t.TempDir(), "run.hees")
	args := []string{"-d", "2", "-seed", "2", "-max-evals", "10", "-target", "none"}
	mustCLI(t, "", append([]string{"init", "-state", path, "-retries", "0", "-lost-leases", "0"}, args...)...)
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := cli("", "worker", "-state", path, "-cmd", selfCommand(t), "-workers", "7", "-lease", "3s")
		done <- result{code, errOut}
	}()
	// While the first evaluations run (7 s), every candidate is leased and
	// each lease is renewed: its end moves past the end of the claim's
	// lease. (The worker itself would not count its own leases lost, so
	// without renewals the run would still end well here; other processes
	// would take them.)
	first := map[string]string{}
	renewed := false
	for start := time.Now(); time.Since(start) < 6500*time.Millisecond && !renewed; time.Sleep(100 * time.Millisecond) {
		leases, _ := status(t, path)["leases"].([]any)
		if len(leases) != 5 {
			continue
		}
		renewed = true
		for _, l := range leases {
			m, _ := l.(map[string]any)
			id, until := fmt.Sprint(m["id"]), fmt.Sprint(m["until"])
			if first[id] == "" {
				first[id] = until
			}
			renewed = renewed && until > first[id]
		}
	}
	if !renewed {
		j, _ := os.ReadFile(path + ".journal")
		t.Errorf("the leases were not all renewed within 6.5 s; journal:\n%s", j)
	}
	r := <-done
	code, errOut := r.code, r.errOut
	if code != exitOK || !strings.Contains(errOut, "hees worker: the run has stopped (max evaluations)") {
		t.Fatalf("worker: exit %d, stderr %q", code, errOut)
	}
	t.Setenv(roleEnv, "")
	if st := status(t, path); st["leased"] != 0.0 {
		t.Errorf("leases left after the run: %v", st)
	}
	t.Log(errOut)
	compareWithRun(t, "workers", path, "sphere", args)
}

// TestWorkerSIGTERM stops a worker process with SIGTERM while its program
// evaluates: it exits with status 1 and gives its lease back, so the
// candidate is claimable at once and no attempt is counted.
func TestWorkerSIGTERM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-retries", "0")
	w, stderr := startWorker(t, path, workerCommand(t, "sphere", "HEES_TEST_DELAY=1h"), "-lease", "1h")
	for start := time.Now(); status(t, path)["leased"] != 1.0; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the worker claimed nothing: %v, stderr %s", status(t, path), stderr.String())
		}
	}
	w.Process.Signal(syscall.SIGTERM)
	err := w.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailure || !strings.Contains(stderr.String(), "hees worker: interrupted after 0 evaluations") {
		t.Fatalf("worker after SIGTERM: %v, stderr %s", err, stderr.String())
	}
	if st := status(t, path); st["leased"] != 0.0 || st["stop_reason"] != "" {
		t.Fatalf("after SIGTERM: %v, want the lease given back and the run going on", st)
	}
	if out := mustCLI(t, "", "ask", "-state", path, "-claim", "1"); !strings.HasPrefix(out, "g0-0@") {
		t.Fatalf("the candidate of the stopped worker is not claimable: %q", out)
	}
}

// TestWorkerAbandonsToldCandidate tells the candidate a worker is
// evaluating (as a straggler's duplicate would): the worker's heartbeat
// notices it and abandons the evaluation instead of waiting for it.
func TestWorkerAbandonsToldCandidate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-max-evals", "7")
	cands := askAll(t, path)
	w, stderr := startWorker(t, path, workerCommand(t, "sphere", "HEES_TEST_DELAY=1h"), "-lease", "300ms")
	for start := time.Now(); status(t, path)["leased"] != 1.0; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the worker claimed nothing: %v, stderr %s", status(t, path), stderr.String())
		}
	}
	var in strings.Builder
	for _, c := range cands {
		fmt.Fprintf(&in, "%s %d\n", c.id, len(c.id))
	}
	mustCLI(t, in.String(), "tell", "-state", path)
	switch ended, err := waitBounded(w, 10*time.Second); {
	case !ended:
		t.Fatalf("the worker still waits for the evaluation of a told candidate, stderr %s", stderr.String())
	case err != nil || !strings.Contains(stderr.String(), "); 0 evaluations here"):
		t.Fatalf("worker: %v, stderr %s", err, stderr.String())
	}
}
