package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/objectives"
)

// roleEnv makes the test binary act as something else when it re-executes
// itself: "hees" runs the command line on its arguments, "objective" is an
// external program for hees run -cmd (see objectiveProgram).
const roleEnv = "HEES_TEST_ROLE"

// TestMain dispatches to a role when the test binary is re-executed by a
// test, and runs the tests otherwise.
func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "hees":
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "objective":
		os.Exit(objectiveProgram(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// objectiveProgram is the external program of the -cmd tests: it reads
// points, one per line, and answers the value of the problem in
// $HEES_TEST_PROBLEM (a spec of package objectives) at each (a point is
// numbers, or the values of a space: see objectiveInput). Its failures
// are set by the environment: after $HEES_TEST_CRASH_AFTER answers it writes
// a message on stderr and exits with status 3; after $HEES_TEST_BAD_AFTER
// answers it answers "oops"; $HEES_TEST_DELAY (a duration) is slept before
// each answer. With $HEES_TEST_WORKER_DIR, it first creates the empty file
// worker-$HEES_WORKER there.
func objectiveProgram(stdin io.Reader, stdout, stderr io.Writer) int {
	crashAfter, badAfter := -1, -1
	if s := os.Getenv("HEES_TEST_CRASH_AFTER"); s != "" {
		crashAfter, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("HEES_TEST_BAD_AFTER"); s != "" {
		badAfter, _ = strconv.Atoi(s)
	}
	delay, _ := time.ParseDuration(os.Getenv("HEES_TEST_DELAY"))
	if dir := os.Getenv("HEES_TEST_WORKER_DIR"); dir != "" {
		// Leave a file named after the worker index hees gave.
		if err := os.WriteFile(filepath.Join(dir, "worker-"+os.Getenv("HEES_WORKER")), nil, 0o644); err != nil {
			fmt.Fprintln(stderr, "objective:", err)
			return 4
		}
	}
	var problem objectives.Problem
	sc := bufio.NewScanner(stdin)
	for n := 0; sc.Scan(); n++ {
		x, err := objectiveInput(sc.Text())
		if err != nil {
			fmt.Fprintf(stderr, "objective: bad input: %v\n", err)
			return 4
		}
		if problem == nil {
			p, err := objectives.Parse(os.Getenv("HEES_TEST_PROBLEM"), len(x))
			if err != nil {
				fmt.Fprintln(stderr, "objective:", err)
				return 4
			}
			problem = p
		}
		time.Sleep(delay)
		switch n {
		case crashAfter:
			fmt.Fprintf(stderr, "objective: simulated crash at evaluation %d\n", n)
			return 3
		case badAfter:
			fmt.Fprintln(stdout, "oops")
			continue
		}
		fmt.Fprintln(stdout, formatValue(problem.Eval(x)))
	}
	return 0
}

// selfCommand returns the -cmd argument that runs the test binary as the
// objective program.
func selfCommand(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Quote(exe)
}

// childEnv returns the environment of a re-executed test binary: role, the
// extra variables, and GORACE without the race detector's one-second sleep
// at exit.
func childEnv(role string, extra ...string) []string {
	env := append(os.Environ(), roleEnv+"="+role, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return append(env, extra...)
}

// setObjectiveEnv sets the environment that the objective processes started
// by an in-process hees run -cmd inherit.
func setObjectiveEnv(t *testing.T, problem string, extra ...string) {
	t.Setenv(roleEnv, "objective")
	t.Setenv("HEES_TEST_PROBLEM", problem)
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// runCLI runs the command line in-process and returns its exit status and
// outputs.
func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// runJSON runs hees run -json with args and decodes its output.
func runJSON(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"run", "-json"}, args...)...)
	if code != exitOK {
		t.Fatalf("hees run -json %q: exit %d, stderr:\n%s", args, code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("hees run -json %q: %v in %q", args, err, out)
	}
	return rep, out
}

// The golden cases of this file: hees run -json, the help of every command
// and the error lines of bad input. TestGolden (main_test.go) runs them.
func init() {
	cliCases = append(cliCases,
		cliCase{"run_json", []string{"run", "-json"}, ""},
		cliCase{"run_json_bbob_ipop", []string{"run", "-json", "-f", "bbob/f15/i2", "-d", "3", "-restarts", "ipop", "-max-evals", "3e3", "-seed", "7"}, ""},
		cliCase{"run_json_bbob_bipop", []string{"run", "-json", "-f", "bbob/f15/i2", "-d", "3", "-restarts", "bipop", "-max-evals", "3e3", "-seed", "7"}, ""},
		cliCase{"run_json_es11_budget", []string{"run", "-json", "-algo", "es11", "-f", "rosenbrock", "-d", "2", "-x0", "-1.2,1", "-sigma0", "0.5", "-max-evals", "300", "-target", "none"}, ""},
		cliCase{"help_run", []string{"help", "run"}, ""},
		cliCase{"help_init", []string{"init", "-h"}, ""},
		cliCase{"help_ask", []string{"help", "ask"}, ""},
		cliCase{"help_tell", []string{"help", "tell"}, ""},
		cliCase{"help_status", []string{"status", "-help"}, ""},
		cliCase{"help_worker", []string{"help", "worker"}, ""},
		cliCase{"help_bench", []string{"bench", "-h"}, ""},
		cliCase{"run_unknown_algorithm", []string{"run", "-algo", "bipop"}, ""},
		cliCase{"run_unknown_problem", []string{"run", "-f", "spehre"}, ""},
		cliCase{"run_dim_zero", []string{"run", "-d", "0"}, ""},
		cliCase{"run_dim_one_hees", []string{"run", "-d", "1"}, ""},
		cliCase{"run_bad_dim_value", []string{"run", "-d", "ten"}, ""},
		cliCase{"run_bad_sigma0", []string{"run", "-sigma0", "big"}, ""},
		cliCase{"run_negative_sigma0", []string{"run", "-sigma0", "-1"}, ""},
		cliCase{"run_bad_max_evals", []string{"run", "-max-evals", "1.5"}, ""},
		cliCase{"run_bad_target", []string{"run", "-target", "low"}, ""},
		cliCase{"run_bad_seed", []string{"run", "-seed", "-1"}, ""},
		cliCase{"run_bad_x0", []string{"run", "-d", "2", "-x0", "1,a"}, ""},
		cliCase{"run_x0_length", []string{"run", "-d", "3", "-x0", "1,2"}, ""},
		cliCase{"run_bad_restarts", []string{"run", "-restarts", "lpop"}, ""},
		cliCase{"run_bipop_cma11", []string{"run", "-algo", "cma11", "-restarts", "bipop"}, ""},
		cliCase{"run_unknown_flag", []string{"run", "-iterations", "5"}, ""},
		cliCase{"run_extra_argument", []string{"run", "sphere"}, ""},
		cliCase{"run_cmd_and_f", []string{"run", "-cmd", "./sim", "-f", "sphere", "-d", "2"}, ""},
		cliCase{"run_cmd_without_d", []string{"run", "-cmd", "./sim"}, ""},
		// An unset "$PROG" ran the built-in problem, exit 0.
		cliCase{"run_cmd_empty", []string{"run", "-cmd", "", "-d", "2"}, ""},
		cliCase{"run_cmd_blank", []string{"run", "-cmd", "  ", "-d", "2"}, ""},
		cliCase{"run_cmd_missing_program", []string{"run", "-cmd", "./testdata/no-such-program", "-d", "2"}, ""},
		cliCase{"run_workers_zero", []string{"run", "-workers", "0"}, ""},
		cliCase{"run_trace_missing_dir", []string{"run", "-json", "-f", "sphere", "-d", "2", "-trace", "testdata/no-such-dir/trace.csv"}, ""},
		cliCase{"init_missing_state", []string{"init", "-d", "3"}, ""},
		cliCase{"init_missing_d", []string{"init", "-state", "testdata/unused.hees"}, ""},
		cliCase{"init_dim_zero", []string{"init", "-state", "testdata/unused.hees", "-d", "0"}, ""},
		cliCase{"init_unknown_algorithm", []string{"init", "-state", "testdata/unused.hees", "-d", "3", "-algo", "nope"}, ""},
		cliCase{"ask_missing_file", []string{"ask", "-state", "testdata/missing.hees"}, ""},
		cliCase{"tell_missing_file", []string{"tell", "-state", "testdata/missing.hees"}, "g0-0 1\n"},
		cliCase{"status_missing_file", []string{"status", "-state", "testdata/missing.hees"}, ""},
		cliCase{"status_foreign_file", []string{"status", "-state", "testdata/help.golden"}, ""},
		cliCase{"status_truncated_file", []string{"status", "-state", "testdata/truncated.hees"}, ""},
		cliCase{"ask_missing_state", []string{"ask"}, ""},
	)
}

// TestRunJSONWorkers checks that -json does not depend on -workers, for a
// problem, with restarts, and for an external program.
func TestRunJSONWorkers(t *testing.T) {
	args := []string{"-f", "bbob/f15/i1", "-d", "4", "-restarts", "ipop", "-max-evals", "2e4"}
	_, one := runJSON(t, append(args, "-workers", "1")...)
	_, four := runJSON(t, append(args, "-workers", "4")...)
	if one != four {
		t.Errorf("-workers 1 and 4 differ:\n%s%s", one, four)
	}

	setObjectiveEnv(t, "rosenbrock")
	cmd := []string{"-cmd", selfCommand(t), "-d", "3", "-max-evals", "600"}
	_, one = runJSON(t, append(cmd, "-workers", "1")...)
	_, three := runJSON(t, append(cmd, "-workers", "3")...)
	if one != three {
		t.Errorf("-cmd with -workers 1 and 3 differ:\n%s%s", one, three)
	}
}

// TestRunMatchesLibrary checks the defaults of hees run against a run of
// the library with the settings its help documents: box from the problem,
// target f* + 1e-8, budget 10000*d.
func TestRunMatchesLibrary(t *testing.T) {
	for _, c := range []struct {
		spec string
		dim  int
		box  float64
	}{
		{"ellipsoid", 10, 3},
		{"bbob/f2/i3", 5, 5},
	} {
		rep, _ := runJSON(t, "-f", c.spec, "-d", strconv.Itoa(c.dim), "-seed", "11")
		p, err := objectives.Parse(c.spec, c.dim)
		if err != nil {
			t.Fatal(err)
		}
		s, err := es.New(es.Recommended, es.Config{Dim: c.dim, Seed: 11, Sigma0: 2, Box: c.box})
		if err != nil {
			t.Fatal(err)
		}
		_, fopt, _ := p.Optimum()
		target := fopt + 1e-8
		res, err := es.Minimize(context.Background(), p, s, es.Options{MaxEvals: 10000 * c.dim, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"evals":       float64(res.Evals),
			"generations": float64(res.Generations),
			"f_best":      res.F,
			"stop_reason": string(res.Reason),
			"target":      target,
			"max_evals":   float64(10000 * c.dim),
		}
		for k, v := range want {
			if rep[k] != v {
				t.Errorf("%s: %s = %v, want %v", c.spec, k, rep[k], v)
			}
		}
		for i, v := range rep["x_best"].([]any) {
			if v != res.X[i] {
				t.Errorf("%s: x_best[%d] = %v, want %v", c.spec, i, v, res.X[i])
			}
		}
		if res.Reason != es.ReasonTarget {
			t.Errorf("%s: stopped by %q, want the default target to be reached", c.spec, res.Reason)
		}
	}
}

// TestRunSummary checks the human summary of a run, and that nothing is
// written on stderr when it is not a terminal.
func TestRunSummary(t *testing.T) {
	code, out, errOut := runCLI("run", "-f", "sphere", "-d", "3", "-restarts", "ipop", "-algo", "cma11")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	re := regexp.MustCompile(`^strategy     ipop-cma11, seed 1
problem      sphere, d = 3
evaluations  \d+ in \d+ generations
best value   (\S+)
best x       (\S+ \S+ \S+)
stop reason  target reached
time         \d\S*s
$`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary does not match %s:\n%s", re, out)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	var x [3]float64
	for i, w := range strings.Fields(m[2]) {
		x[i], _ = strconv.ParseFloat(w, 64)
	}
	if want := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]; f != want || f > 1e-8 {
		t.Errorf("best value %v, but the best x %v has value %v (target 1e-8)", f, x, want)
	}
}

// TestRunVerbose checks that -v writes progress lines on a stderr that is
// not a terminal, and that -q and the default write none.
func TestRunVerbose(t *testing.T) {
	args := []string{"run", "-f", "sphere", "-d", "4", "-json"}
	_, _, errOut := runCLI(append(args, "-v")...)
	if !regexp.MustCompile(`^evals \d+  gen 1  best \S+  sigma \S+  cond 1  \d+\.\ds\n`).MatchString(errOut) {
		t.Errorf("-v: stderr %q, want a progress line for the first generation", errOut)
	}
	for _, quiet := range []string{"-q", "-workers=1"} {
		if _, _, errOut := runCLI(append(args, quiet)...); errOut != "" {
			t.Errorf("%s: stderr %q, want nothing", quiet, errOut)
		}
	}
}

// TestRunTrace checks the -trace file: one row per generation, and the
// whitened-Hessian columns for a quadratic.
func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	rep, _ := runJSON(t, "-f", "ellipsoid:cond=100", "-d", "4", "-trace", path, "-trace-every", "5")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	comments := 0
	for strings.HasPrefix(lines[comments], "#") {
		comments++
	}
	if !slices.Contains(lines[:comments], "# problem: ellipsoid:cond=100") || !slices.Contains(lines[:comments], "# d: 4") {
		t.Errorf("the comment lines do not describe the run:\n%s", strings.Join(lines[:comments], "\n"))
	}
	lines = lines[comments:]
	if lines[0] != "generation,evals,restarts,f_mean,f_generation,f_best,sigma,cond_C,normtrace_C,logdet_A,cond_AHA,normtrace_AHA" {
		t.Fatalf("header %q", lines[0])
	}
	if gens := int(rep["generations"].(float64)); len(lines)-1 != gens {
		t.Fatalf("%d rows for %d generations", len(lines)-1, gens)
	}
	for i, line := range lines[1:] {
		cells := strings.Split(line, ",")
		if matrix := (i+1)%5 == 0; (cells[10] != "") != matrix {
			t.Fatalf("row %d: cond_AHA %q, want it every 5 generations", i+1, cells[10])
		}
	}
	last := strings.Split(lines[len(lines)-1], ",")
	if f, _ := strconv.ParseFloat(last[5], 64); f != rep["f_best"] {
		t.Errorf("last f_best %v in the trace, %v in the summary", f, rep["f_best"])
	}
}

// TestRunExternal optimises an external program (the test binary computing
// a problem) and checks that the result is the one of the same problem run
// in-process.
func TestRunExternal(t *testing.T) {
	setObjectiveEnv(t, "rotellipsoid:cond=1e3")
	common := []string{"-d", "5", "-seed", "4", "-box", "3", "-target", "1e-8", "-max-evals", "2e4", "-workers", "2"}
	ext, _ := runJSON(t, append(common, "-cmd", selfCommand(t))...)
	in, _ := runJSON(t, append(common, "-f", "rotellipsoid:cond=1e3")...)
	if ext["command"] != selfCommand(t) || ext["problem"] != nil || in["problem"] != "rotellipsoid:cond=1000" {
		t.Errorf("command %v problem %v; in-process problem %v", ext["command"], ext["problem"], in["problem"])
	}
	delete(ext, "command")
	delete(in, "problem")
	if fmt.Sprint(ext) != fmt.Sprint(in) {
		t.Errorf("external program and in-process problem differ:\n%v\n%v", ext, in)
	}
	if in["stop_reason"] != string(es.ReasonTarget) {
		t.Errorf("stop reason %v, want the target", in["stop_reason"])
	}
}

// TestRunExternalFailures checks that a crashing program and one answering
// a non-number stop the run with an error naming the point and the
// program's stderr, and that the best point so far is printed.
func TestRunExternalFailures(t *testing.T) {
	for _, c := range []struct {
		env   string
		want  string
		after int // answers of the failing process before the failure
	}{
		{"HEES_TEST_CRASH_AFTER=40", `no answer.*\n.*simulated crash at evaluation 40`, 40},
		{"HEES_TEST_BAD_AFTER=25", `answer is not a number`, 25},
	} {
		setObjectiveEnv(t, "sphere", c.env)
		for _, workers := range []string{"1", "3"} {
			var stdout, stderr bytes.Buffer
			code := run([]string{"run", "-cmd", selfCommand(t), "-d", "3", "-workers", workers, "-target", "1e-30"}, nil, &stdout, &stderr)
			if code != exitFailure {
				t.Errorf("%s: exit %d, want %d", c.env, code, exitFailure)
			}
			if !regexp.MustCompile(`^hees run: extproc: evaluating \[-?\d`).MatchString(stderr.String()) ||
				!regexp.MustCompile(c.want).MatchString(stderr.String()) {
				t.Errorf("%s, %s workers: stderr does not name the point and match %q:\n%s", c.env, workers, c.want, &stderr)
			}
			m := regexp.MustCompile(`(?m)^evaluations  (\d+) .*\nbest value   (\S+)\nbest x       .+\nstop reason  objective error$`).FindStringSubmatch(stdout.String())
			if m == nil {
				t.Fatalf("%s: summary without the best so far and the reason:\n%s", c.env, &stdout)
			}
			// Evaluations count every answer, also those of the abandoned
			// generation: exactly the failing process's with one worker.
			evals, _ := strconv.Atoi(m[1])
			if n, _ := strconv.Atoi(workers); evals < c.after || evals > n*c.after || (n == 1 && evals != c.after) {
				t.Errorf("%s, %s workers: %d evaluations, want %d per process before the failure", c.env, workers, evals, c.after)
			}
			if f, err := strconv.ParseFloat(m[2], 64); err != nil || math.IsInf(f, 0) {
				t.Errorf("%s: best value %s, want the finite best of the evaluations before the failure", c.env, m[2])
			}
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader in
// different goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunInterrupt sends SIGINT to a long run, in-process and with an
// external program, and checks that it stops at once, prints the best so
// far with the reason "canceled", and exits with status 1.
func TestRunInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"problem", childEnv("hees"), []string{"run", "-f", "rastrigin", "-d", "20", "-restarts", "ipop", "-max-evals", "0", "-target", "none", "-v"}},
		{"program", childEnv("hees", "HEES_TEST_PROBLEM=sphere", "HEES_TEST_DELAY=2ms"),
			[]string{"run", "-cmd", "env " + roleEnv + "=objective " + selfCommand(t), "-d", "3", "-max-evals", "0", "-target", "none", "-workers", "2", "-v"}},
	} {
		var stdout, stderr lockedBuffer
		cmd := exec.Command(exe, c.args...)
		cmd.Env = c.env
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first progress line (-v) shows that the run, and so the
		// signal handler, is under way.
		for start := time.Now(); stderr.String() == ""; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 20*time.Second {
				cmd.Process.Kill()
				t.Fatalf("%s: no progress line after 20 s", c.name)
			}
		}
		time.Sleep(100 * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if ended, _ := waitBounded(cmd, 10*time.Second); !ended {
			t.Fatalf("%s: still running 10 s after SIGINT", c.name)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitFailure {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", c.name, code, exitFailure, stderr.String())
		}
		if !regexp.MustCompile(`(?m)^best value   -?\d.*\nbest x       .+\nstop reason  canceled$`).MatchString(stdout.String()) {
			t.Errorf("%s: output without the best so far and the reason canceled:\n%s\nstderr:\n%s", c.name, stdout.String(), stderr.String())
		}
		if !regexp.MustCompile(`^(evals \d+  .*\n)+$`).MatchString(stderr.String()) {
			t.Errorf("%s: stderr has more than progress lines:\n%s", c.name, stderr.String())
		}
	}
}

// TestRunCommandImpliedDim: hees run -cmd without -d takes the dimension
// that -x0, or d numbers given to -lower, -upper or -stds, imply; lists of
// other lengths, or none, are usage errors.
func TestRunCommandImpliedDim(t *testing.T) {
	setObjectiveEnv(t, "sphere")
	for _, c := range []struct {
		args []string
		dim  float64
	}{
		{[]string{"-lower", "0,0,0", "-upper", "1"}, 3},
		{[]string{"-lower", "-1", "-upper", "1,2,3,4"}, 4},
		{[]string{"-x0", "1,1"}, 2},
		{[]string{"-stds", "1,2,3,4,5", "-x0", "0,0,0,0,0"}, 5},
	} {
		rep, _ := runJSON(t, append([]string{"-cmd", selfCommand(t), "-max-evals", "40"}, c.args...)...)
		if rep["dim"] != c.dim {
			t.Errorf("%v: dim %v, want %v", c.args, rep["dim"], c.dim)
		}
	}
	for _, args := range [][]string{{}, {"-lower", "0,0", "-upper", "1,1,1"}, {"-x0", "1,1", "-stds", "1,2,3"}} {
		code, _, stderr := runCLI(append([]string{"run", "-cmd", selfCommand(t)}, args...)...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
