package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/objectives"
)

// readCheckpoint decodes the checkpoint at path.
func readCheckpoint(t *testing.T, path string) *checkpoint.State {
	t.Helper()
	st, err := checkpoint.Decode(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestResumeInject stops hees run -inject -checkpoint before and after its
// batch of known points was told, resumes it, and checks that the summary
// is the uninterrupted run's: a run stopped before the batch was told
// evaluates it on resume, one stopped after does not evaluate it again.
// The stops are a SIGKILL while the program takes a second to answer the
// first known point, a crash of the program at the second known point, and
// a SIGKILL once the checkpoint written after the batch is on the disk.
func TestResumeInject(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hees processes that take seconds")
	}
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	mustWrite(t, known, "1 1 1\n0.5,0,0.25\n2 -1 0\n", 0o644)
	program := "env " + roleEnv + "=objective " + selfCommand(t)
	runArgs := []string{"run", "-json", "-q", "-cmd", program, "-d", "3", "-seed", "3", "-target", "none", "-max-evals", "200",
		"-inject", known}
	ref, refOut, refErr := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM=sphere"), "", runArgs...)
	if err := ref.Run(); err != nil {
		t.Fatalf("uninterrupted run: %v, stderr:\n%s", err, refErr.String())
	}
	want := refOut.String()

	for _, c := range []struct {
		name  string
		env   []string
		after bool // stopped after the batch was told
	}{
		{"killed during the batch", []string{"HEES_TEST_DELAY=1s"}, false},
		{"crashed during the batch", []string{"HEES_TEST_CRASH_AFTER=1"}, false},
		{"killed after the batch", []string{"HEES_TEST_DELAY=20ms"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.hees")
			env := childEnv("hees", append([]string{"HEES_TEST_PROBLEM=sphere"}, c.env...)...)
			cmd, _, stderr := heesProcess(t, env, "", append(runArgs, "-checkpoint", path, "-checkpoint-every", "1000")...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			crash := strings.Contains(c.name, "crash")
			for start := time.Now(); !crash; time.Sleep(5 * time.Millisecond) {
				if time.Since(start) > 20*time.Second {
					cmd.Process.Kill()
					t.Fatalf("no checkpoint after 20 s, stderr:\n%s", stderr.String())
				}
				if _, err := os.Stat(path); err != nil {
					continue
				}
				if !c.after || readCheckpoint(t, path).Strategy.Evals() > 0 {
					cmd.Process.Kill()
					break
				}
			}
			err := cmd.Wait()
			if !crash && !killedBy(cmd.ProcessState, syscall.SIGKILL) {
				t.Fatalf("the run ended before SIGKILL (%v), stderr:\n%s", err, stderr.String())
			}
			if crash && cmd.ProcessState.ExitCode() != exitFailure {
				t.Fatalf("the run with a crashing program: %v, stderr:\n%s", err, stderr.String())
			}
			st := readCheckpoint(t, path)
			if evals, pending := st.Strategy.Evals(), len(st.File.Inject); (evals == 3) != c.after || pending != 3*boolInt(!c.after) {
				t.Fatalf("the checkpoint counts %d evaluations and holds %d known points to evaluate", evals, pending)
			}
			resume, out, errOut := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM=sphere"), "", "resume", "-json", "-q", path)
			if err := resume.Run(); err != nil {
				t.Fatalf("resume: %v, stderr:\n%s", err, errOut.String())
			}
			if got := out.String(); got != want {
				t.Errorf("resumed, the run printed\n%s, the uninterrupted run\n%s", got, want)
			}
		})
	}
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestInitInject drives ask/tell runs started by hees init -inject to their
// end and checks them against hees run -inject with the same settings: the
// known points are the first candidates, i0-<row>@<run> with the file's
// coordinates, and the run ends with the best point, the evaluations, the
// stop and the strategy's final state (hees run's checkpoint) of hees run,
// bit for bit. One run is told through hees ask and hees tell, one through
// claims, with a failure of a known point told first (-retries 1), and one
// through two hees worker processes.
func TestInitInject(t *testing.T) {
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	mustWrite(t, known, "# from an earlier study\n1 1 1\n0.25,-0.5,0\n2 2 -1\n", 0o644)
	points := [][]float64{{1, 1, 1}, {0.25, -0.5, 0}, {2, 2, -1}}
	p, err := objectives.Parse("sphere", 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"cma11", "hees"} {
		args := []string{"-d", "3", "-seed", "3", "-algo", algo, "-max-evals", "80", "-target", "none", "-inject", known}
		cp := filepath.Join(dir, algo+".cp")
		runJSON(t, append([]string{"-f", "sphere", "-box", "3", "-checkpoint", cp}, args...)...)
		wantState := readCheckpoint(t, cp).File.Strategy
		for _, how := range []string{"ask", "claim", "worker"} {
			path := filepath.Join(dir, algo+"-"+how+".hees")
			mustCLI(t, "", append([]string{"init", "-state", path, "-retries", "1"}, args...)...)
			run := runID(t, path)
			cands := askAll(t, path)
			if len(cands) != 3 || status(t, path)["injected"] != true {
				t.Fatalf("%s: ask printed %d candidates first, status %v", algo, len(cands), status(t, path))
			}
			if text := mustCLI(t, "", "status", "-state", path); !strings.Contains(text, "generation   0, known points: 0 told, 3 pending (0 leased)\n") {
				t.Errorf("%s: status says\n%s", algo, text)
			}
			for row, c := range cands {
				if want := fmt.Sprintf("i0-%d@%s", row, run); c.id != want || fmt.Sprint(c.x) != fmt.Sprint(points[row]) {
					t.Fatalf("%s: candidate %s %v, want %s %v", algo, c.id, c.x, want, points[row])
				}
			}
			switch how {
			case "ask":
				for cands := askAll(t, path); len(cands) > 0; cands = askAll(t, path) {
					var in strings.Builder
					for _, c := range cands {
						fmt.Fprintf(&in, "%s %s\n", c.id, formatValue(p.Eval(c.x)))
					}
					mustCLI(t, in.String(), "tell", "-state", path)
				}
			case "claim":
				mustCLI(t, "", "tell", "-state", path, cands[1].id, "failed")
				for {
					code, out, errOut := cli("", "ask", "-state", path, "-claim", "4")
					if code == exitStopped {
						break
					}
					if code != exitOK {
						t.Fatalf("ask -claim: exit %d, %s", code, errOut)
					}
					for line := range strings.Lines(out) {
						words := strings.Fields(line)
						x := make([]float64, len(words)-1)
						for i, w := range words[1:] {
							x[i], _ = strconv.ParseFloat(w, 64)
						}
						mustCLI(t, "", "tell", "-state", path, words[0], formatValue(p.Eval(x)))
					}
				}
			case "worker":
				command := workerCommand(t, "sphere")
				workers := []*exec.Cmd{}
				for range 2 {
					w, _ := startWorker(t, path, command)
					workers = append(workers, w)
				}
				for i, w := range workers {
					if err := w.Wait(); err != nil {
						t.Fatalf("%s: worker %d: %v", algo, i, err)
					}
				}
			}
			compareWithRun(t, "workers", path, "sphere", args)
			if !bytes.Equal(savedStrategy(t, path), wantState) {
				t.Errorf("%s through %s: the final strategy differs from hees run -inject's", algo, how)
			}
		}
	}
}

// TestInitInjectErrors checks the errors of hees init -inject and hees run
// -inject: a missing file, a point of the wrong dimension, and one outside
// the box, each on one line naming the flag, no state file written, and
// no run started.
func TestInitInjectErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	mustWrite(t, short, "1 2\n", 0o644)
	outside := filepath.Join(dir, "outside")
	mustWrite(t, outside, "1 2 3\n0 0 9\n", 0o644)
	path := filepath.Join(dir, "run.hees")
	for _, c := range []struct {
		file, want string
	}{
		{filepath.Join(dir, "missing"), "-inject: stat"},
		{short, "2 numbers, want d = 3"},
		{outside, "-inject " + outside + ": es: Run.Inject: point 1: x[2] = 9 lies outside the bounds [-5, 5]"},
	} {
		code, _, errOut := cli("", "init", "-state", path, "-d", "3", "-lower", "-5", "-upper", "5", "-inject", c.file)
		if code != exitFailure || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("-inject %s: exit %d, stderr %q; want one line saying %q", c.file, code, errOut, c.want)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("-inject %s: the state file was written", c.file)
		}
		// hees run refuses the same file before it runs: no summary.
		code, out, errOut := cli("", "run", "-f", "sphere", "-d", "3", "-lower", "-5", "-upper", "5", "-inject", c.file)
		if code != exitFailure || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("run -inject %s: exit %d, stdout %q, stderr %q; want nothing on stdout and one line saying %q", c.file, code, out, errOut, c.want)
		}
	}
}

// TestRunInjectLog checks the -log rows of the known points: the first
// evaluations, with generation -1, their row in the batch and their
// coordinates, before the rows of generation 0: 2 known points and 5
// generations of 5 (hees2 in d = 2 has 2 pairs) within the budget of 30.
func TestRunInjectLog(t *testing.T) {
	dir := t.TempDir()
	known, log := filepath.Join(dir, "known"), filepath.Join(dir, "log.csv")
	mustWrite(t, known, "0.5 0.5\n1,1\n", 0o644)
	runJSON(t, "-f", "sphere", "-d", "2", "-inject", known, "-log", log, "-max-evals", "30", "-target", "none")
	_, _, rows := readLog(t, log)
	want := [][]string{{"1", "-1", "0", "ok", "0.5", "0.5", "0.5"}, {"2", "-1", "1", "ok", "2", "1", "1"}}
	if len(rows) != 27 || fmt.Sprint(rows[:2]) != fmt.Sprint(want) || rows[2][0] != "3" || rows[2][1] != "0" || rows[2][2] != "0" {
		t.Errorf("%d rows, the first three %v; want 27, the known points %v, then row 0 of generation 0", len(rows), rows[:min(3, len(rows))], want)
	}
}

// TestRunWarmStart gives hees run -inject the -log of an earlier run: its
// best points, as many as a generation, are evaluated first, the run starts
// from the best one with the spread of the best as sigma0, and it reaches
// the target within a budget that the run from scratch does not.
func TestRunWarmStart(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.csv"), filepath.Join(dir, "second.csv")
	cold, _ := runJSON(t, "-f", "rosenbrock", "-d", "5", "-max-evals", "800", "-log", first)
	if cold["stop_reason"] != "max evaluations" {
		t.Fatalf("the first run stopped by %v: make the budget smaller", cold["stop_reason"])
	}
	warm, _ := runJSON(t, "-f", "rosenbrock", "-d", "5", "-max-evals", "800", "-inject", first, "-log", second)
	if warm["stop_reason"] != "target reached" {
		t.Errorf("the warm start stopped by %v after %v evaluations", warm["stop_reason"], warm["evals"])
	}
	s, err := es.New(es.Recommended, es.Config{Dim: 5})
	if err != nil {
		t.Fatal(err)
	}
	best, err := runlog.BestRows(first, 5, s.PopulationSize())
	if err != nil {
		t.Fatal(err)
	}
	_, _, rows := readLog(t, second)
	for i, r := range best {
		if got := rows[i][5:]; !slices.Equal(got, rowWords(r.X)) || rows[i][1] != "-1" {
			t.Errorf("known point %d: %v, want the first log's %d-th best %v", i, rows[i], i+1, r.X)
		}
	}
}

// rowWords writes x as the log writes its coordinates.
func rowWords(x []float64) []string {
	words := make([]string, len(x))
	for i, v := range x {
		words[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return words
}

// TestInitInjectLog gives hees init -inject the -log of an earlier run,
// without a space and with one: the warm start (the log's best points
// first, the best one as x0, their spread as sigma0) is hees run's, and a
// worker ends the run with the bits of hees run -inject.
func TestInitInjectLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.csv")
	runJSON(t, "-f", "sphere", "-box", "3", "-d", "3", "-seed", "2", "-max-evals", "60", "-log", first)
	args := []string{"-d", "3", "-seed", "3", "-max-evals", "150", "-target", "none", "-inject", first}
	path := filepath.Join(dir, "plain.hees")
	mustCLI(t, "", append([]string{"init", "-state", path}, args...)...)
	workerToEnd(t, "worker", path, workerCommand(t, "sphere"))
	compareWithRun(t, "a worker after init -inject LOG", path, "sphere", args)

	setObjectiveEnv(t, "sphere", "HEES_TEST_WORDS=1")
	sp := writeSpace(t, testSpace)
	spaceLog := filepath.Join(dir, "space.csv")
	runJSON(t, "-cmd", selfCommand(t), "-space", sp, "-seed", "2", "-max-evals", "300", "-log", spaceLog)
	spaceArgs := []string{"-space", sp, "-seed", "3", "-max-evals", "300", "-inject", spaceLog}
	want, _ := runJSON(t, append([]string{"-cmd", selfCommand(t)}, spaceArgs...)...)
	state := filepath.Join(dir, "space.hees")
	mustCLI(t, "", append([]string{"init", "-state", state}, spaceArgs...)...)
	who := "with a space: a worker after init -inject LOG"
	workerToEnd(t, who, state, workerCommand(t, "sphere", "HEES_TEST_WORDS=1"))
	sameAsRun(t, who, status(t, state), want, "evals", "f_best", "x_best", "params", "stop_reason")
}
