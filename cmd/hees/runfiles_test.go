package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/objectives"
)

// The golden cases of the flags of this file.
func init() {
	cliCases = append(cliCases,
		cliCase{"run_pairs_cmaes", []string{"run", "-algo", "cmaes", "-pairs", "8"}, ""},
		cliCase{"run_lambda_hees", []string{"run", "-lambda", "24"}, ""},
		cliCase{"run_lambda_one", []string{"run", "-algo", "cmaes", "-lambda", "1"}, ""},
		cliCase{"run_x0_missing_file", []string{"run", "-d", "2", "-x0", "@testdata/no-such-point.txt"}, ""},
		cliCase{"run_log_missing_dir", []string{"run", "-log", "testdata/no-such-dir/log.csv"}, ""},
	)
}

// TestRunPopulation checks -pairs and -lambda on hees run (a generation of
// hees with 8 pairs evaluates 17 points, one of cmaes with lambda 24
// evaluates 24, in the -json counts and the -log rows) and on hees init
// (hees ask prints a generation).
func TestRunPopulation(t *testing.T) {
	for _, c := range []struct {
		args []string
		size int
	}{
		{[]string{"-algo", "hees", "-pairs", "8"}, 17},
		{[]string{"-algo", "cmaes", "-lambda", "24"}, 24},
		{[]string{"-algo", "hees", "-pairs", "8", "-restarts", "ipop"}, 17},
	} {
		log := filepath.Join(t.TempDir(), "log.csv")
		args := append([]string{"-f", "rosenbrock", "-d", "5", "-max-evals", strconv.Itoa(3*c.size + 1), "-log", log}, c.args...)
		rep, _ := runJSON(t, args...)
		if rep["evals"] != float64(3*c.size) || rep["generations"] != 3.0 {
			t.Errorf("%q: %v evaluations in %v generations, want %d in 3", c.args, rep["evals"], rep["generations"], 3*c.size)
		}
		_, _, rows := readLog(t, log)
		for g := range 3 {
			n := 0
			for _, r := range rows {
				if r[1] == strconv.Itoa(g) {
					n++
				}
			}
			if n != c.size {
				t.Errorf("%q: %d rows of generation %d in the log, want %d", c.args, n, g, c.size)
			}
		}

		state := filepath.Join(t.TempDir(), "run.hees")
		if code, _, errOut := runCLI(append([]string{"init", "-state", state, "-d", "5"}, c.args...)...); code != exitOK {
			t.Fatalf("init %q: exit %d, %s", c.args, code, errOut)
		}
		_, out, _ := runCLI("ask", "-state", state)
		if n := strings.Count(out, "\n"); n != c.size {
			t.Errorf("init %q: hees ask printed %d candidates, want %d", c.args, n, c.size)
		}
	}
}

// TestRunX0File checks that -x0 @FILE gives the run of the same point
// written on the command line, and reports bad files.
func TestRunX0File(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x0.txt")
	if err := os.WriteFile(file, []byte("0.5, -1.25\n  3e-1\t2\r\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"-f", "rosenbrock", "-d", "4", "-max-evals", "500"}
	_, want := runJSON(t, append(common, "-x0", "0.5,-1.25,0.3,2")...)
	_, got := runJSON(t, append(common, "-x0", "@"+file)...)
	if got != want {
		t.Errorf("-x0 @FILE:\n%s-x0 on the command line:\n%s", got, want)
	}
	for _, c := range []struct{ content, want string }{
		{"1 2 x 4", `line 1: "x" is not a finite number`},
		{"1 2\n3 NaN", `line 2: "NaN" is not a finite number`},
		{" \n, \n", "holds no number"},
		{"1 2 3", "-x0 has 3 numbers, want d = 4"},
	} {
		if err := os.WriteFile(file, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(append([]string{"run", "-x0", "@" + file}, common...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("-x0 @FILE holding %q: exit %d, stderr %q; want %d and one line with %q", c.content, code, errOut, exitUsage, c.want)
		}
	}
}

// readLog parses the -log file at path (see readLogText).
func readLog(t *testing.T, path string) (comments []string, header []string, rows [][]string) {
	t.Helper()
	return readLogText(t, string(readFile(t, path)), nil)
}

// readLogText parses the text of a log: its comment lines, its header (the
// first other line, unless header is given) and its rows. Every line must
// be complete and every row have the header's number of cells.
func readLogText(t *testing.T, text string, header []string) (comments []string, _ []string, rows [][]string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("the log does not end with a complete line: %q", text[max(0, len(text)-100):])
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "#"):
			comments = append(comments, line)
		case header == nil:
			header = strings.Split(line, ",")
		default:
			cells, err := csv.NewReader(strings.NewReader(line)).Read()
			if err != nil || len(cells) != len(header) {
				t.Fatalf("row %q: %v, %d cells for %d columns", line, err, len(cells), len(header))
			}
			rows = append(rows, cells)
		}
	}
	return comments, header, rows
}

// TestRunLog checks the -log file: the comment lines, the header, one row
// per evaluation whose value is f at its point, the same bytes for any
// -workers, and a second run appended without a second header.
func TestRunLog(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-f", "rosenbrock", "-d", "3", "-max-evals", "300", "-seed", "4"}
	one, four := filepath.Join(dir, "one.csv"), filepath.Join(dir, "four.csv")
	rep, _ := runJSON(t, append(args, "-log", one)...)
	runJSON(t, append(args, "-log", four, "-workers", "4")...)
	if a, b := readFile(t, one), readFile(t, four); string(a) != string(b) {
		t.Fatalf("-workers 1 and 4 write different logs:\n%s\n%s", a, b)
	}
	comments, header, rows := readLog(t, one)
	for _, want := range []string{"# strategy: hees2", "# problem: rosenbrock", "# d: 3", "# seed: 4", "# population: 7", "# max_evals: 300"} {
		if !slices.Contains(comments, want) {
			t.Errorf("no comment line %q in %q", want, comments)
		}
	}
	if got := strings.Join(header, ","); got != "evaluation,generation,row,status,f,x1,x2,x3" {
		t.Errorf("header %q", got)
	}
	if len(rows) != int(rep["evals"].(float64)) {
		t.Fatalf("%d rows for %v evaluations", len(rows), rep["evals"])
	}
	p, err := objectives.Parse("rosenbrock", 3)
	if err != nil {
		t.Fatal(err)
	}
	best := rows[0][4]
	for i, r := range rows {
		x := make([]float64, 3)
		for j := range x {
			x[j], _ = strconv.ParseFloat(r[5+j], 64)
		}
		f, _ := strconv.ParseFloat(r[4], 64)
		if r[0] != strconv.Itoa(i+1) || r[1] != strconv.Itoa(i/7) || r[2] != strconv.Itoa(i%7) || r[3] != "ok" || f != p.Eval(x) {
			t.Fatalf("row %d: %q, f(x) = %v", i, r, p.Eval(x))
		}
		if fb, _ := strconv.ParseFloat(best, 64); f < fb {
			best = r[4]
		}
	}
	if best != formatValue(rep["f_best"].(float64)) {
		t.Errorf("smallest f in the log %s, f_best %v", best, rep["f_best"])
	}

	// A second run is appended, with its comment lines and no header.
	runJSON(t, append(args, "-log", one, "-seed", "5")...)
	data := string(readFile(t, one))
	if n := strings.Count(data, "\nevaluation,"); n != 1 || !strings.HasPrefix(strings.SplitN(data, "\nevaluation,", 2)[0], "# ") {
		t.Errorf("the log of two runs has %d headers, want 1", n)
	}
	if n := strings.Count(data, "# seed: "); n != 2 {
		t.Errorf("%d seed lines in the log of two runs, want 2", n)
	}
	code, _, errOut := runCLI("run", "-d", "4", "-log", one)
	if code != exitFailure || !strings.Contains(errOut, "not the one of a log in 4 dimensions") {
		t.Errorf("appending a run in another dimension: exit %d, %s", code, errOut)
	}
}

// TestRunLogKill kills hees run -log -checkpoint by SIGKILL after some
// generations and checks that the log holds every generation finished
// before, as complete, well-formed rows: the lines of the log are the first
// lines of an uninterrupted run's log, whole generations. hees resume then
// keeps the rows after its checkpoint as comments, appends a comment saying
// where it goes on and the rows of the uninterrupted run from there,
// without a second header.
func TestRunLogKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on Windows")
	}
	dir := t.TempDir()
	program := "env " + roleEnv + "=objective " + selfCommand(t)
	args := []string{"run", "-q", "-cmd", program, "-d", "3", "-seed", "2", "-target", "none", "-max-evals", "3000"}
	refLog, log := filepath.Join(dir, "ref.csv"), filepath.Join(dir, "log.csv")
	ref, _, refErr := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM=sphere"), "", append(args, "-log", refLog)...)
	if err := ref.Run(); err != nil {
		t.Fatalf("uninterrupted run: %v, stderr:\n%s", err, refErr.String())
	}
	want := string(readFile(t, refLog))
	_, _, refRows := readLog(t, refLog)

	checkpoint := filepath.Join(dir, "run.hees")
	cmd, _, stderr := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM=sphere", "HEES_TEST_DELAY=2ms"), "",
		append(args, "-log", log, "-workers", "2", "-checkpoint", checkpoint, "-checkpoint-every", "3")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		if strings.Count(string(data), ",ok,") >= 10*7 {
			break
		}
		if time.Since(start) > 20*time.Second {
			cmd.Process.Kill()
			t.Fatalf("fewer than 10 generations in the log after 20 s; stderr:\n%s", stderr.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err == nil || !killedBy(cmd.ProcessState, syscall.SIGKILL) {
		t.Fatalf("the run was not killed (%v): make it longer", err)
	}
	got := string(readFile(t, log))
	_, _, rows := readLog(t, log)
	if !strings.HasPrefix(want, got) || len(rows)%7 != 0 || len(rows) >= len(refRows) {
		t.Fatalf("the log of the killed run (%d rows) is not whole generations of the uninterrupted run's (%d rows):\n%s", len(rows), len(refRows), got)
	}
	t.Logf("killed after %d generations in the log", len(rows)/7)

	setObjectiveEnv(t, "sphere")
	code, _, errOut := runCLI("resume", "-q", checkpoint)
	if code != exitOK {
		t.Fatalf("resume: exit %d, %s", code, errOut)
	}
	// The rows up to the checkpoint stay as they were; those after it,
	// which the resumed run evaluates again, become comments; the rows of
	// the log are then the uninterrupted run's, each evaluation once.
	comments, _, rowsAfter := readLog(t, log)
	var at string
	for _, c := range comments {
		if v, ok := strings.CutPrefix(c, "# resumed after generation: "); ok {
			at = v
		}
	}
	from, err := strconv.Atoi(at)
	if err != nil {
		t.Fatalf("no resume comment in %q", comments)
	}
	if !slices.EqualFunc(rowsAfter, refRows, slices.Equal) {
		t.Errorf("the log has %d rows after the resume from generation %d, the uninterrupted run %d", len(rowsAfter), from, len(refRows))
	}
	redone := 0
	for _, c := range comments {
		if strings.HasPrefix(c, runlog.RedoneComment) {
			redone++
		}
	}
	if resumed := string(readFile(t, log)); !strings.HasPrefix(resumed, got[:strings.Index(got, fmt.Sprintf("\n%d,", from*7+1))+1]) ||
		redone != len(rows)-from*7 {
		t.Errorf("resumed from generation %d after %d rows: %d rows kept as comments, want %d", from, len(rows), redone, len(rows)-from*7)
	}
}

// TestRunWorkerIndex checks that each program of hees run -cmd -workers 3
// finds its index in HEES_WORKER: the test program leaves a file named
// after it.
func TestRunWorkerIndex(t *testing.T) {
	dir := t.TempDir()
	setObjectiveEnv(t, "sphere", "HEES_TEST_WORKER_DIR="+dir)
	runJSON(t, "-cmd", selfCommand(t), "-d", "3", "-max-evals", "50", "-workers", "3")
	if names, want := dirNames(t, dir), []string{"worker-0", "worker-1", "worker-2"}; !slices.Equal(names, want) {
		t.Errorf("the programs saw HEES_WORKER as %q, want %q", names, want)
	}
}

// dirNames returns the names in the directory dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRunTraceDefaultInterval checks the default of -trace-every: on the
// 4-D ellipsoid (lambda = 9, a Hessian) the matrix columns come every
// ceil(100 * 4 / 9) = 45 generations, over 100 generations.
func TestRunTraceDefaultInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	rep, _ := runJSON(t, "-f", "ellipsoid", "-d", "4", "-target", "none", "-max-evals", "900", "-trace", path)
	_, header, rows := readLog(t, path)
	if header[7] != "cond_C" || len(rows) != int(rep["generations"].(float64)) || len(rows) < 90 {
		t.Fatalf("header %q, %d rows for %v generations", header, len(rows), rep["generations"])
	}
	for _, r := range rows {
		g, _ := strconv.Atoi(r[0])
		if (r[7] != "") != (g%45 == 0) {
			t.Fatalf("generation %d: cond_C %q, want it every 45 generations", g, r[7])
		}
	}
}

// TestRunLogAbandoned: a program that fails in the first generation under
// -on-error stop: the points it evaluated before are in the log with the
// status abandoned and their values, none with another status.
func TestRunLogAbandoned(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.csv")
	setObjectiveEnv(t, "sphere", "HEES_TEST_CRASH_AFTER=7")
	code, _, stderr := runCLI("run", "-cmd", selfCommand(t), "-d", "3", "-pairs", "6", "-log", log)
	if code != exitFailure {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	_, _, rows := readLog(t, log)
	if len(rows) != 7 {
		t.Fatalf("%d rows, want the 7 evaluated before the failure", len(rows))
	}
	p, err := objectives.Parse("sphere", 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		x := make([]float64, 3)
		for j := range x {
			x[j], _ = strconv.ParseFloat(r[5+j], 64)
		}
		if r[0] != strconv.Itoa(i+1) || r[3] != "abandoned" || r[4] != strconv.FormatFloat(p.Eval(x), 'g', -1, 64) {
			t.Errorf("row %d: %v", i, r)
		}
	}
}
