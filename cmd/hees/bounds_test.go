package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildFlaky builds testdata/flaky, the objective that crashes on one point
// in ten, and returns the command that runs it.
func buildFlaky(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "flaky")
	if out, err := exec.Command("go", "build", "-o", exe, "./testdata/flaky").CombinedOutput(); err != nil {
		t.Fatalf("building testdata/flaky: %v\n%s", err, out)
	}
	return strconv.Quote(exe)
}

// TestRunOnErrorNaN runs a program that crashes on 10% of the points: with
// -on-error nan it reaches the target, printing the same bytes for 1 and 4
// workers; with the default -on-error stop the run fails at the first
// crash; -retries does not help a point that always crashes.
func TestRunOnErrorNaN(t *testing.T) {
	flaky := buildFlaky(t)
	var outs, logs []string
	for _, workers := range []string{"1", "4"} {
		logFile := filepath.Join(t.TempDir(), "evals.csv")
		code, out, errOut := runCLI("run", "-cmd", flaky, "-d", "4", "-target", "1e-8", "-on-error", "nan",
			"-retries", "1", "-workers", workers, "-json", "-q", "-log", logFile)
		if code != exitOK {
			t.Fatalf("workers %s: exit %d, stderr:\n%s", workers, code, errOut)
		}
		var rep runReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.StopReason != "target reached" || rep.FBest > 1e-8 {
			t.Errorf("workers %s: %s", workers, out)
		}
		outs = append(outs, out)
		logs = append(logs, string(readFile(t, logFile)))
	}
	if outs[0] != outs[1] {
		t.Errorf("1 worker:\n%s4 workers:\n%s", outs[0], outs[1])
	}
	// The log marks the failed points (told as NaN) and only them, the same
	// way for any number of workers.
	if logs[0] != logs[1] {
		t.Errorf("-log differs between 1 and 4 workers")
	}
	var failed, nanOK int
	for _, line := range strings.Split(logs[0], "\n") {
		cols := strings.Split(line, ",")
		if len(cols) < 5 || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case cols[3] == "failed" && cols[4] == "NaN":
			failed++
		case cols[3] == "failed" || cols[4] == "NaN":
			nanOK++
		}
	}
	if failed == 0 || nanOK != 0 {
		t.Errorf("-log: %d rows failed with NaN, %d rows with only one of status failed and value NaN; want some and none", failed, nanOK)
	}
	code, _, errOut := runCLI("run", "-cmd", flaky, "-d", "4", "-target", "1e-8", "-q")
	if code != exitFailure || !strings.Contains(errOut, "flaky: crashed at") {
		t.Errorf("-on-error stop: exit %d, stderr %q; want a failure naming the crash", code, errOut)
	}
	for _, bad := range [][]string{{"-on-error", "ignore"}, {"-retries", "-1"}} {
		if code, _, _ := runCLI(append([]string{"run", "-f", "sphere", "-d", "2"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// TestRunBounds checks -lower, -upper and -stds on hees run and through
// hees init and ask: the optimum of the sphere (at 0) lies outside the box
// [1, 3] x [-inf, -2], so the best point is its corner (1, -2); the points
// that hees ask prints lie in the box, over 20 generations of a linear
// function whose minimum is a corner; bad lists are usage errors.
func TestRunBounds(t *testing.T) {
	for _, algo := range []string{"es11", "hees14", "hees", "cma11", "cmaes"} {
		rep, _ := runJSON(t, "-algo", algo, "-f", "sphere", "-d", "2", "-lower", "1,-inf", "-upper", "3,-2", "-stds", "1,2", "-q")
		x := rep["x_best"].([]any)
		if x0, x1 := x[0].(float64), x[1].(float64); x0 < 1 || x0 > 1+1e-8 || x1 > -2 || x1 < -2-1e-8 {
			t.Errorf("%s: best x %v, want the corner (1, -2)", algo, x)
		}
	}
	state := filepath.Join(t.TempDir(), "run.hees")
	if code, _, errOut := runCLI("init", "-state", state, "-d", "3", "-lower", "0.1", "-upper", "0.2,0.3,0.4", "-algo", "cmaes"); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	for range 20 {
		code, out, errOut := runCLI("ask", "-state", state)
		if code != exitOK {
			t.Fatalf("ask: exit %d: %s", code, errOut)
		}
		var answers strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			words := strings.Fields(line)
			sum := 0.0
			for i, w := range words[1:] {
				v, _ := strconv.ParseFloat(w, 64)
				if v < 0.1 || v > []float64{0.2, 0.3, 0.4}[i] {
					t.Fatalf("ask printed %q, outside the box", line)
				}
				sum += v
			}
			answers.WriteString(words[0] + " " + strconv.FormatFloat(sum, 'g', -1, 64) + "\n")
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"tell", "-state", state}, strings.NewReader(answers.String()), &stdout, &stderr); code != exitOK {
			t.Fatalf("tell: exit %d: %s", code, stderr.String())
		}
	}
	for _, bad := range [][]string{{"-lower", "1,2,3"}, {"-lower", "1", "-upper", "0"}, {"-stds", "1,0"}, {"-lower", "x"}, {"-x0", "5,5", "-upper", "1"}} {
		code, _, errOut := runCLI(append([]string{"run", "-f", "sphere", "-d", "2"}, bad...)...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line usage error", bad, code, errOut)
		}
	}
}

// TestRunInject checks -inject: a file holding the optimum of the sphere
// reaches the target after its own evaluations, before any generation.
func TestRunInject(t *testing.T) {
	f := filepath.Join(t.TempDir(), "known")
	if err := os.WriteFile(f, []byte("# known points\n3 3 3\n0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, _ := runJSON(t, "-f", "sphere", "-d", "3", "-inject", f, "-q")
	if rep["evals"].(float64) != 2 || rep["generations"].(float64) != 0 || rep["stop_reason"] != "target reached" {
		t.Errorf("-inject with the optimum: %v", rep)
	}
	if err := os.WriteFile(f, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("run", "-f", "sphere", "-d", "3", "-inject", f, "-q"); code != exitFailure || !strings.Contains(errOut, "2 numbers, want d = 3") {
		t.Errorf("-inject with a short line: exit %d, %q", code, errOut)
	}
}

// TestResumeBoundsAndOnError interrupts runs with -max-time and resumes
// them until they end: a bounded IPOP run with scales, and a run of the
// crashing program with -on-error nan. The last summary must be that of
// the uninterrupted run, so the checkpoint kept the box, the scales and
// the failure policy.
func TestResumeBoundsAndOnError(t *testing.T) {
	flaky := buildFlaky(t)
	for _, c := range []struct {
		args     []string
		maxTime  string
		minCalls int
	}{
		{[]string{"-f", "rosenbrock", "-d", "4", "-restarts", "ipop", "-lower", "-1,0.5,-inf,-2", "-upper", "2", "-stds", "1,2,1,0.5",
			"-max-evals", "2e4", "-target", "none"}, "2ms", 3},
		{[]string{"-cmd", flaky, "-d", "3", "-on-error", "nan", "-lower", "-3", "-upper", "3", "-target", "1e-8", "-max-evals", "5000"}, "20ms", 2},
	} {
		_, want := runJSON(t, c.args...)
		path := filepath.Join(t.TempDir(), "run.hees")
		code, out, errOut := runCLI(append([]string{"run", "-json", "-q", "-max-time", c.maxTime, "-checkpoint", path}, c.args...)...)
		invocations := 1
		for strings.Contains(out, `"stop_reason":"time limit"`) {
			if code != exitOK {
				t.Fatalf("%v, invocation %d: exit %d, stderr %q", c.args, invocations, code, errOut)
			}
			if invocations++; invocations > 1000 {
				t.Fatal("no end after 1000 invocations")
			}
			code, out, errOut = runCLI("resume", "-json", "-q", path)
		}
		if code != exitOK || out != want {
			t.Errorf("%v after %d invocations: exit %d, printed\n%s, want\n%s, stderr %q", c.args, invocations, code, out, want, errOut)
		}
		if invocations < c.minCalls {
			t.Errorf("%v: %d invocations: the time limit did not interrupt the run", c.args, invocations)
		}
	}
}
