package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hees-dev/hees/internal/session"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// cli runs the command line in-process with stdin and returns its exit
// status and outputs.
func cli(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustCLI is cli that fails the test on an exit status other than 0.
func mustCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := cli(stdin, args...)
	if code != exitOK {
		t.Fatalf("hees %q: exit %d, stderr:\n%s", args, code, errOut)
	}
	return out
}

// candidate is one line of hees ask.
type candidate struct {
	id string
	x  []float64
}

// askAll runs hees ask and parses its lines.
func askAll(t *testing.T, path string) []candidate {
	t.Helper()
	var cands []candidate
	for line := range strings.Lines(mustCLI(t, "", "ask", "-state", path)) {
		words := strings.Fields(line)
		c := candidate{id: words[0]}
		for _, w := range words[1:] {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				t.Fatalf("ask printed %q: %v", line, err)
			}
			c.x = append(c.x, v)
		}
		cands = append(cands, c)
	}
	return cands
}

// status runs hees status -json and decodes it.
func status(t *testing.T, path string) map[string]any {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "status", "-state", path, "-json")), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// savedStrategy returns the strategy bytes stored in the state file.
func savedStrategy(t *testing.T, path string) []byte {
	t.Helper()
	payload, err := statefile.ReadFile(path, session.Kind)
	if err != nil {
		t.Fatal(err)
	}
	var f session.File
	if err := json.Unmarshal(payload, &f); err != nil {
		t.Fatal(err)
	}
	return f.Strategy
}

// runID returns the identity of the run in the state file at path.
func runID(t *testing.T, path string) string {
	t.Helper()
	id, _ := status(t, path)["run_id"].(string)
	if len(id) != 8 {
		t.Fatalf("status gives the run identity %q", id)
	}
	return id
}

// checkCandidates checks that the candidates of hees ask are the rows of
// the library's population, bit for bit, with the IDs g<gen>-<row>@run.
func checkCandidates(t *testing.T, cands []candidate, pop *linalg.Dense, gen int, run string) {
	t.Helper()
	if rows, _ := pop.Dims(); len(cands) != rows {
		t.Fatalf("generation %d: ask printed %d candidates, the library asks %d", gen, len(cands), rows)
	}
	for row, c := range cands {
		if want := fmt.Sprintf("g%d-%d@%s", gen, row, run); c.id != want {
			t.Fatalf("ID %q, want %q", c.id, want)
		}
		for j, v := range pop.RawRow(row) {
			if math.Float64bits(c.x[j]) != math.Float64bits(v) {
				t.Fatalf("%s: x[%d] = %v, the library asks %v", c.id, j, c.x[j], v)
			}
		}
	}
}

// TestAskTellConcurrentProcesses drives a run through init/ask/tell with 8
// concurrent hees tell processes per generation, each telling a share of
// the IDs, and checks that no value is lost and that the final state is
// the one of the same run driven through the library with the same values.
func TestAskTellConcurrentProcesses(t *testing.T) {
	const (
		dim         = 10
		generations = 6
		procs       = 8
	)
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-algo", "hees", "-d", strconv.Itoa(dim), "-seed", "1")
	lib, err := es.New("hees", es.Config{Dim: dim, Seed: 1, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := objectives.Parse("ellipsoid", dim)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var pop linalg.Dense
	run := runID(t, path)
	for gen := range generations {
		cands := askAll(t, path)
		if err := lib.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		checkCandidates(t, cands, &pop, gen, run)
		values := make([]float64, len(cands))
		shares := make([]strings.Builder, procs)
		for row, c := range cands {
			values[row] = p.Eval(c.x)
			if gen == 2 && row == 1 {
				values[row] = math.NaN() // told as "NaN", ranked worst
			}
			fmt.Fprintf(&shares[row%procs], "%s %s\n", c.id, formatValue(values[row]))
		}

		var wg sync.WaitGroup
		errs := make([]error, procs)
		outs := make([][]byte, procs)
		for k := range procs {
			cmd := exec.Command(exe, "tell", "-state", path)
			cmd.Env = childEnv("hees")
			cmd.Stdin = strings.NewReader(shares[k].String())
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[k], errs[k] = cmd.CombinedOutput()
			}()
		}
		wg.Wait()
		for k := range procs {
			if errs[k] != nil || len(outs[k]) > 0 {
				t.Fatalf("generation %d, tell process %d: %v, output %q", gen, k, errs[k], outs[k])
			}
		}
		if err := lib.Tell(values); err != nil {
			t.Fatal(err)
		}
		st := status(t, path)
		if st["generation"] != float64(gen+1) || st["told"] != 0.0 || st["evals"] != float64(lib.Evals()) {
			t.Fatalf("after generation %d: status generation %v, told %v, evals %v; want %d, 0, %d (a value was lost)",
				gen, st["generation"], st["told"], st["evals"], gen+1, lib.Evals())
		}
	}
	// The state file keeps its strategy asked for the pending generation.
	if err := lib.Ask(&pop); err != nil {
		t.Fatal(err)
	}
	want, err := lib.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(savedStrategy(t, path), want) {
		t.Error("the strategy in the state file differs from the library's after the same values")
	}
}

// TestAskTellMatchesRun drives runs through ask/tell until they stop and
// checks that they end as hees run ends with the same settings: by the
// target, by the budget, and with IPOP restarts.
func TestAskTellMatchesRun(t *testing.T) {
	for _, c := range []struct {
		spec string
		args []string // for both init and run
	}{
		{"sphere", []string{"-d", "4", "-seed", "3", "-target", "1e-8"}},
		{"rosenbrock", []string{"-d", "3", "-algo", "cma11", "-max-evals", "400", "-target", "none", "-x0", "0,0,0"}},
		{"rastrigin", []string{"-d", "2", "-restarts", "ipop", "-max-restarts", "2", "-target", "none", "-sigma0", "0.5"}},
		{"rastrigin", []string{"-d", "2", "-restarts", "bipop", "-max-restarts", "2", "-target", "none", "-sigma0", "0.5"}},
		{"bbob/f15/i1", []string{"-d", "2", "-algo", "cmaes", "-restarts", "bipop", "-max-evals", "2000", "-target", "none"}},
	} {
		dir := t.TempDir()
		path, log := filepath.Join(dir, "run.hees"), filepath.Join(dir, "run.log")
		mustCLI(t, "", append([]string{"init", "-state", path, "-log", log}, c.args...)...)
		p, err := objectives.Parse(c.spec, mustDim(t, c.args))
		if err != nil {
			t.Fatal(err)
		}
		for gen := 0; ; gen++ {
			cands := askAll(t, path)
			if len(cands) == 0 {
				break
			}
			var in strings.Builder
			for _, cand := range cands {
				fmt.Fprintf(&in, "%s %s\n", cand.id, formatValue(p.Eval(cand.x)))
			}
			mustCLI(t, in.String(), "tell", "-state", path)
			if gen > 5000 {
				t.Fatalf("%s: no stop after %d generations", c.spec, gen)
			}
		}
		want := compareWithRun(t, "ask/tell", path, c.spec, c.args)
		if want["stop_reason"] == string(es.ReasonCanceled) {
			t.Fatalf("%s: run canceled", c.spec)
		}
		runLog := filepath.Join(dir, "hees-run.log")
		runJSON(t, append([]string{"-f", c.spec, "-box", "3", "-log", runLog}, c.args...)...)
		if got, want := logRows(readFile(t, log)), logRows(readFile(t, runLog)); got != want {
			t.Errorf("%s %q: the ask/tell log differs from hees run's", c.spec, c.args)
		}
	}
}

// mustDim returns the value of -d in args.
func mustDim(t *testing.T, args []string) int {
	t.Helper()
	for i, a := range args {
		if a == "-d" {
			d, err := strconv.Atoi(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatal("no -d")
	return 0
}

// TestTellAllOrNothing checks that a tell with a bad line applies nothing
// and names every bad line, that good values can then be told, that
// telling an ID again with the same value succeeds and with another value
// fails with its own exit status, and that the messages tell an ID that
// never existed from one told before.
func TestTellAllOrNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "3", "-seed", "5")
	cands := askAll(t, path)
	if len(cands) != 7 {
		t.Fatalf("%d candidates, want 2*3+1 = 7 for hees in 3-D", len(cands))
	}
	run := runID(t, path)
	r := strings.NewReplacer("@R", "@"+run)
	code, _, errOut := cli(r.Replace("g0-0@R 1\ng0-1@R 2\n\ng0-2@R x\ng0-1@R 3\ng0-7@R 1\ng1-0@R 1\nh0-1@R 1\ng0-3@R 1 2\ng00-3@R 1\ng0-3 1\ng0-3@0000aaaa 1\n"), "tell", "-state", path)
	wantErr := r.Replace(`hees tell: line 4: g0-2@R: "x" is not a number
hees tell: line 5: g0-1@R is also on line 2
hees tell: line 6: g0-7@R does not exist (generation 0 has rows 0 to 6)
hees tell: line 7: g1-0@R does not exist (the current generation is 0)
hees tell: line 8: "h0-1@R" is not an ID (IDs look like g12-3@5f3a9c01)
hees tell: line 9: want "ID VALUE", got 3 fields
hees tell: line 10: "g00-3@R" is not an ID (IDs look like g12-3@5f3a9c01)
hees tell: line 11: "g0-3" is not an ID (IDs look like g12-3@5f3a9c01)
hees tell: line 12: g0-3@0000aaaa belongs to another run (this state file holds run R)
hees tell: nothing was applied (9 bad lines)
`)
	wantErr = strings.Replace(wantErr, "holds run R)", "holds run "+run+")", 1)
	if code != exitFailure || errOut != wantErr {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, errOut, wantErr)
	}
	if st := status(t, path); st["told"] != 0.0 || st["pending"] != 7.0 {
		t.Fatalf("after a bad tell: told %v pending %v, want nothing applied", st["told"], st["pending"])
	}
	if again := askAll(t, path); fmt.Sprint(again) != fmt.Sprint(cands) {
		t.Fatal("ask printed other candidates the second time")
	}

	// Row 4 gets the lowest value: status reports it as the best so far
	// although the generation is not complete. ID VALUE may be operands.
	mustCLI(t, r.Replace("g0-0@R 1e400\n"), "tell", "-state", path)
	mustCLI(t, "", "tell", "-state", path, cands[4].id, "-2.5")
	st := status(t, path)
	if st["told"] != 2.0 || st["pending"] != 5.0 || st["f_best"] != -2.5 || fmt.Sprint(st["x_best"]) != fmt.Sprint(cands[4].x) {
		t.Fatalf("after telling 2 values: %v", st)
	}
	if left := askAll(t, path); len(left) != 5 || left[0].id != "g0-1@"+run || left[3].id != "g0-5@"+run {
		t.Fatalf("ask after telling g0-0 and g0-4: %v", left)
	}
	// The same value again (1e400 reads as +Inf): applied quietly.
	if code, _, errOut := cli(r.Replace("g0-4@R -2.5\ng0-0@R +Inf\ng0-1@R 1\n"), "tell", "-state", path); code != exitOK || errOut != "" {
		t.Fatalf("telling the same values again: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(r.Replace("g0-2@R 2\ng0-4@R 7\n"), "tell", "-state", path)
	if code != exitConflict || !strings.Contains(errOut, r.Replace("line 2: g0-4@R was told -2.5 before; 7 differs\n")) {
		t.Fatalf("telling g0-4 another value: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = cli("", "tell", "-state", path, cands[4].id, "-0x1.4p1"); code != exitOK || errOut != "" {
		t.Fatalf("telling -2.5 as -0x1.4p1: exit %d, stderr %q", code, errOut)
	}
	mustCLI(t, r.Replace("g0-2@R 2\ng0-3@R 3\ng0-5@R 5\ng0-6@R NaN\n"), "tell", "-state", path)
	if st := status(t, path); st["generation"] != 1.0 || st["evals"] != 7.0 || st["told"] != 0.0 {
		t.Fatalf("after the whole generation: %v", st)
	}
	// A past generation: the same value succeeds, another is a conflict,
	// a failure is ignored, a row it never had does not exist.
	if code, _, errOut = cli(r.Replace("g0-1@R 1\ng0-6@R nan\n"), "tell", "-state", path); code != exitOK || errOut != "" {
		t.Fatalf("telling a past generation again: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(r.Replace("g0-1@R 1.5\n"), "tell", "-state", path)
	if code != exitConflict || !strings.Contains(errOut, r.Replace("g0-1@R was told 1 before; 1.5 differs")) {
		t.Fatalf("telling a past generation another value: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(r.Replace("g0-1@R failed\n"), "tell", "-state", path)
	if code != exitOK || errOut != r.Replace("hees tell: line 1: g0-1@R: the failure is ignored, the candidate was told 1\n") {
		t.Fatalf("telling a failure of a told candidate: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(r.Replace("g0-7@R 1\n"), "tell", "-state", path)
	if code != exitFailure || !strings.Contains(errOut, r.Replace("g0-7@R does not exist (generation 0 had rows 0 to 6)")) {
		t.Fatalf("telling a row generation 0 never had: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = cli("\n \n", "tell", "-state", path); code != exitOK || errOut != "" {
		t.Fatalf("empty tell: exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"g1-0@" + run}, {"g1-0@" + run, "1", "2"}} {
		if code, _, errOut = cli("", append([]string{"tell", "-state", path}, args...)...); code != exitUsage {
			t.Errorf("tell %q: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
}

// TestTellAfterInitForce checks that after hees init -force, a value
// computed for the old run in the same file is refused.
func TestTellAfterInitForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2")
	old := askAll(t, path)[0].id
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-force")
	code, _, errOut := cli("", "tell", "-state", path, old, "-5")
	if code != exitFailure || !strings.Contains(errOut, old+" belongs to another run (this state file holds run "+runID(t, path)+")") {
		t.Fatalf("telling an ID of the old run: exit %d, stderr %q", code, errOut)
	}
	if st := status(t, path); st["told"] != 0.0 {
		t.Fatalf("the old run's value was applied: %v", st)
	}
}

// TestAskTellStops checks the stops of an ask/tell run: -Inf, the target
// and the budget; then ask prints nothing and tell refuses values.
func TestAskTellStops(t *testing.T) {
	for _, c := range []struct {
		args   []string
		value  string
		reason es.Reason
	}{
		{nil, "-Inf", es.ReasonMinusInf},
		{[]string{"-target", "0.5"}, "0.25", es.ReasonTarget},
		{[]string{"-max-evals", "12"}, "3", es.ReasonMaxEvals}, // 7 per generation
	} {
		path := filepath.Join(t.TempDir(), "run.hees")
		mustCLI(t, "", append([]string{"init", "-state", path, "-d", "3"}, c.args...)...)
		var in strings.Builder
		for i, cand := range askAll(t, path) {
			v := "9"
			if i == 3 {
				v = c.value
			}
			fmt.Fprintf(&in, "%s %s\n", cand.id, v)
		}
		mustCLI(t, in.String(), "tell", "-state", path)
		if st := status(t, path); st["stop_reason"] != string(c.reason) || st["pending"] != 0.0 {
			t.Errorf("%v: status %v, want stopped by %q", c.args, st, c.reason)
		}
		code, out, errOut := cli("", "ask", "-state", path)
		if code != exitOK || out != "" || errOut != fmt.Sprintf("hees ask: the run has stopped (%s); nothing to evaluate\n", c.reason) {
			t.Errorf("%v: ask after the stop: exit %d, stdout %q, stderr %q", c.args, code, out, errOut)
		}
		id := "g1-0@" + runID(t, path)
		code, _, errOut = cli(id+" 1\n", "tell", "-state", path)
		if code != exitStopped || !strings.Contains(errOut, fmt.Sprintf("%s: the run has stopped (%s)", id, c.reason)) {
			t.Errorf("%v: tell after the stop: exit %d, stderr %q", c.args, code, errOut)
		}
		human := mustCLI(t, "", "status", "-state", path)
		if !strings.Contains(human, "\nstate        stopped: "+string(c.reason)+"\n") {
			t.Errorf("%v: status:\n%s", c.args, human)
		}
	}
}

// TestInitAndFiles checks that init refuses to replace a file unless
// -force, and that a corrupted state file is an error saying so: at once
// for ask and status, which check the snapshot whole; tell appends to the
// journal and finds it at the next fold, which reads the snapshot.
func TestInitAndFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-algo", "es11")
	code, _, errOut := cli("", "init", "-state", path, "-d", "2")
	if code != exitFailure || errOut != "hees init: "+path+" exists (use -force to replace it)\n" {
		t.Errorf("init over an existing file: exit %d, stderr %q", code, errOut)
	}
	mustCLI(t, "", "init", "-state", path, "-d", "4", "-force")
	if st := status(t, path); st["dim"] != 4.0 || st["strategy"] != "hees2" {
		t.Errorf("after init -force: %v", st)
	}
	human := mustCLI(t, "", "status", "-state", path)
	want := "strategy     hees2, seed 1, d = 4, run " + runID(t, path) + "\ngeneration   0: 0 told, 9 pending (0 leased)\nevaluations  0\n" +
		"best value   +Inf\nbest x       none (no value below +Inf)\nsigma        2\nlimits       budget 40000 evaluations\nstate        running\n"
	if human != want {
		t.Errorf("status:\n%s\nwant:\n%s", human, want)
	}
	// The default budget is hees run's, 10000 d; -max-evals 0 is none.
	mustCLI(t, "", "init", "-state", path, "-d", "3", "-force", "-max-evals", "0", "-target", "1e-3")
	if st := status(t, path); st["max_evals"] != 0.0 || st["target"] != 1e-3 {
		t.Errorf("init -max-evals 0 -target 1e-3: status %v", st)
	}
	if human := mustCLI(t, "", "status", "-state", path); !strings.Contains(human, "\nlimits       budget none, target 0.001\n") {
		t.Errorf("init -max-evals 0 -target 1e-3: status\n%s", human)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"ask", "status"} {
		code, _, errOut := cli("", cmd, "-state", path)
		if code != exitFailure || !strings.Contains(errOut, path+": statefile: corrupt: checksum") {
			t.Errorf("%s of a corrupted file: exit %d, stderr %q", cmd, code, errOut)
		}
	}
}

// TestStateSettingsMustMatch rewrites the settings of a valid state file,
// with a correct checksum: a file whose algorithm disagrees with its saved
// strategy, or that has a field hees does not know, is refused.
func TestStateSettingsMustMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "3", "-algo", "hees14")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := statefile.DecodeKind(data, session.Kind)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"algo":"hees14"`, `"algo":"es11"`, "the strategy is hees14, the settings say es11"},
		{`"algo":"hees14"`, `"algo":"hees14","extra":1`, `unknown field "extra"`},
	} {
		edited := strings.Replace(string(payload), c.old, c.new, 1)
		if edited == string(payload) {
			t.Fatalf("%q not found in the payload %s", c.old, payload)
		}
		file, err := statefile.Encode(session.Kind, []byte(edited))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := cli("", "status", "-state", path)
		if code != exitFailure || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.new, code, errOut, c.want)
		}
	}
}

// TestStatusSigmaUnits checks that hees status gives the step size in the
// objective's units, as hees run -v does: sigma0 times the geometric mean
// of -stds (10 and 1000: 100), not the strategy's internal sigma.
func TestStatusSigmaUnits(t *testing.T) {
	state := filepath.Join(t.TempDir(), "run.state")
	mustCLI(t, "", "init", "-state", state, "-d", "2", "-stds", "10,1000", "-sigma0", "0.5")
	if got := status(t, state)["sigma"].(float64); math.Abs(got-50) > 1e-9 {
		t.Errorf("sigma %v, want 50 = 0.5 × 100", got)
	}
}

// TestInitLog checks hees init -log: a file that is not new and empty, one
// of the run's own files, a missing directory and a named pipe are one
// line of usage error each, with no state written; a log that cannot be
// written fails the tell that completes a generation, which keeps its
// values, and the next tell writes the rows once the log can be written.
func TestInitLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	full := filepath.Join(dir, "full.log")
	if err := os.WriteFile(full, []byte("evaluation\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for log, want := range map[string]string{
		full:                            "exists: the log of an ask/tell run is its own file",
		path:                            "is the file " + path + " of the run",
		path + ".journal":               "of the run: give the log another name",
		path + ".lock":                  "of the run: give the log another name",
		filepath.Join(dir, "no", "log"): "no directory",
		fifo:                            "is a named pipe",
	} {
		code, out, errOut := cli("", "init", "-state", path, "-d", "2", "-log", log)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) {
			t.Errorf("-log %s: exit %d, stdout %q, stderr %q; want %q", log, code, out, errOut, want)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("-log %s: the state was written", log)
		}
	}

	log := filepath.Join(dir, "run.log")
	mustCLI(t, "", "init", "-state", path, "-d", "2", "-log", log, "-seed", "4")
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(log, 0o755); err != nil { // a log that cannot be opened
		t.Fatal(err)
	}
	var in strings.Builder
	for _, c := range askAll(t, path) {
		fmt.Fprintf(&in, "%s %s\n", c.id, formatValue(c.x[0]*c.x[0]+c.x[1]*c.x[1]))
	}
	code, _, errOut := cli(in.String(), "tell", "-state", path)
	if code != exitFailure || !strings.Contains(errOut, "writing the log "+log) {
		t.Errorf("tell with a log that cannot be written: exit %d, stderr %q", code, errOut)
	}
	if st := status(t, path); st["generation"] != 0.0 || st["pending"] != 0.0 {
		t.Errorf("after the failed fold: %v, want generation 0 with every value told", st)
	}
	os.Remove(log)
	mustCLI(t, "", "tell", "-state", path)
	if st := status(t, path); st["generation"] != 1.0 {
		t.Errorf("after the log came back: generation %v, want 1", st["generation"])
	}
	rows := strings.Split(strings.TrimSpace(logRows(readFile(t, log))), "\n")
	if n := strings.Count(in.String(), "\n"); len(rows) != n+1 || !strings.HasPrefix(rows[0], "evaluation,") || !strings.HasPrefix(rows[n], strconv.Itoa(n)+",0,") {
		t.Errorf("the log after the fold:\n%s", strings.Join(rows, "\n"))
	}
}

// TestJournalMissing: a journal removed by hand loses the values told
// since the last fold, which hees cannot give back; every command that
// reads the run says so on stderr (before: "0 told", and ask handed the
// told candidates out again, without a word).
func TestJournalMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	mustCLI(t, "", "init", "-state", path, "-d", "2")
	first, _, _ := strings.Cut(mustCLI(t, "", "ask", "-state", path), "\n")
	id, _, _ := strings.Cut(first, " ")
	mustCLI(t, id+" 5\n", "tell", "-state", path)
	if st := status(t, path); st["told"] != 1.0 {
		t.Fatalf("told: %v", st)
	}
	if err := os.Rename(session.JournalPath(path), path+".moved"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status", "-state", path},
		{"ask", "-state", path},
		{"tell", "-state", path},
	} {
		code, _, errOut := cli("", args...)
		if code != exitOK || !strings.Contains(errOut, session.JournalPath(path)+" is missing: the values told since the last fold, if there were any, are lost") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestInitErrorLeavesNoLock: a usage error of hees init leaves no file
// next to the state (before: FILE.lock stayed after any error, made by the
// probe of the file system's locks before the other flags were checked).
func TestInitErrorLeavesNoLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	for _, args := range [][]string{
		{"init", "-state", path},
		{"init", "-state", path, "-d", "2", "-algo", "nope"},
		{"init", "-state", path, "-d", "2", "-inject", filepath.Join(dir, "none")},
		{"init", "-state", path, "-d", "2", "-lock", "sometimes"},
		{"init", "-state", path, "-d", "2", "-pairs", "100000"},
	} {
		if code, _, errOut := cli("", args...); code == exitOK || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("files left: %v (%v)", entries, err)
	}
}
