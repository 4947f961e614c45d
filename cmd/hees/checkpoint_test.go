package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runner"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/objectives"
)

// The golden cases of the checkpoint flags and of hees resume.
func init() {
	cliCases = append(cliCases,
		cliCase{"help_resume", []string{"help", "resume"}, ""},
		cliCase{"resume_no_file", []string{"resume", "-json"}, ""},
		cliCase{"resume_two_files", []string{"resume", "a.hees", "-q", "b.hees"}, ""},
		cliCase{"resume_missing_file", []string{"resume", "testdata/missing.hees"}, ""},
		cliCase{"resume_unknown_flag", []string{"resume", "-algo", "cmaes", "testdata/missing.hees"}, ""},
		cliCase{"resume_negative_workers", []string{"resume", "-workers", "-1", "testdata/missing.hees"}, ""},
		cliCase{"resume_foreign_file", []string{"resume", "testdata/help.golden"}, ""},
		cliCase{"resume_truncated_file", []string{"resume", "testdata/truncated.hees"}, ""},
		cliCase{"run_checkpoint_every_zero", []string{"run", "-checkpoint", "testdata/unused.hees", "-checkpoint-every", "0"}, ""},
		cliCase{"run_checkpoint_every_alone", []string{"run", "-checkpoint-every", "5"}, ""},
		cliCase{"run_checkpoint_missing_dir", []string{"run", "-checkpoint", "testdata/no-such-dir/cp.hees"}, ""},
	)
}

// checkpointCase is a run whose resumes TestResumeFromAnyGeneration checks.
type checkpointCase struct {
	name string
	rs   checkpoint.Settings
}

// float returns a pointer to v.
func float(v float64) *float64 { return &v }

// settingsFlags returns the hees run flags of the settings rs.
func settingsFlags(rs *checkpoint.Settings) []string {
	target := "none"
	if rs.Target != nil {
		target = formatValue(*rs.Target)
	}
	args := []string{"-algo", rs.Algo, "-restarts", rs.Restarts, "-seed", strconv.FormatUint(rs.Seed, 10),
		"-f", rs.Problem, "-d", strconv.Itoa(rs.Dim), "-max-evals", strconv.Itoa(rs.MaxEvals),
		"-target", target, "-workers", strconv.Itoa(rs.Workers)}
	if rs.Trace != "" {
		args = append(args, "-trace", rs.Trace, "-trace-every", strconv.Itoa(rs.TraceEvery))
	}
	return args
}

// TestResumeFromAnyGeneration runs each strategy (and IPOP and BIPOP) with a
// checkpoint after every generation, keeps every checkpoint written, and
// resumes from a spread of them, the first and the last included: each
// resume must print the -json bytes of the uninterrupted run (hees run
// -json with the same flags), and leave the trace file the uninterrupted
// run writes. The runs stop by the target, the budget and the strategies'
// own criteria.
func TestResumeFromAnyGeneration(t *testing.T) {
	base := checkpoint.Settings{Restarts: "none", Seed: 3, Problem: "rosenbrock", Dim: 4, MaxEvals: 3000, Target: float(1e-8), Workers: 1, TraceEvery: 1}
	with := func(change func(*checkpoint.Settings)) checkpoint.Settings {
		rs := base
		change(&rs)
		return rs
	}
	cases := []checkpointCase{
		{"hees", with(func(rs *checkpoint.Settings) { rs.Algo = "hees" })},
		{"hees14", with(func(rs *checkpoint.Settings) { rs.Algo = "hees14" })},
		{"es11", with(func(rs *checkpoint.Settings) { rs.Algo = "es11"; rs.Problem = "sphere"; rs.Target = nil })},
		{"cma11", with(func(rs *checkpoint.Settings) { rs.Algo = "cma11" })},
		{"cmaes", with(func(rs *checkpoint.Settings) { rs.Algo = "cmaes"; rs.Workers = 2 })},
		{"ipop-hees", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Restarts, rs.Problem, rs.Dim, rs.Target, rs.MaxEvals = "hees", "ipop", "rastrigin", 2, nil, 1500
		})},
		{"ipop-cmaes", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Restarts, rs.Problem, rs.Dim, rs.Target, rs.MaxEvals = "cmaes", "ipop", "bbob/f15/i1", 2, nil, 1500
		})},
		{"bipop-hees", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Restarts, rs.Problem, rs.Dim, rs.Target, rs.MaxEvals = "hees", "bipop", "rastrigin", 2, nil, 5000
		})},
		{"bipop-cmaes", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Restarts, rs.Problem, rs.Dim, rs.Target, rs.MaxEvals = "cmaes", "bipop", "bbob/f15/i1", 2, nil, 5000
		})},
		{"ipop-cmaes-noisy", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Restarts, rs.Problem, rs.Dim, rs.Target, rs.MaxEvals, rs.Workers = "cmaes", "ipop", "bbob-noisy/f122/i1", 2, nil, 1500, 3
		})},
		{"trace", with(func(rs *checkpoint.Settings) {
			rs.Algo, rs.Problem, rs.Trace, rs.TraceEvery = "hees", "ellipsoid:cond=100", "trace.csv", 3
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			rs := c.rs
			var refTrace []byte
			if rs.Trace != "" {
				rs.Trace = filepath.Join(dir, "ref-trace.csv")
			}
			_, want := runJSON(t, settingsFlags(&rs)...)
			if rs.Trace != "" {
				refTrace = readFile(t, rs.Trace)
				rs.Trace = filepath.Join(dir, c.rs.Trace)
			}

			if rs.Restarts == "bipop" {
				// The first restart is large, the next ones alternate: three
				// restarts pass through both regimes.
				var rep struct{ Restarts int }
				if err := json.Unmarshal([]byte(want), &rep); err != nil || rep.Restarts < 3 {
					t.Fatalf("%d restarts (%v): too few for both BIPOP regimes", rep.Restarts, err)
				}
			}
			snapshots, got := checkpointEveryGeneration(t, filepath.Join(dir, "run.hees"), &rs)
			if got != want {
				t.Fatalf("the run with checkpoints printed\n%s, hees run -json\n%s", got, want)
			}
			if len(snapshots) < 5 {
				t.Fatalf("only %d checkpoints: the run is too short to test resuming", len(snapshots))
			}
			var last es.Reason
			for _, g := range spread(len(snapshots)) {
				// The resumed runs write a checkpoint every 100 generations
				// rather than after every one, to keep the test fast.
				st, err := checkpoint.Decode(snapshots[g])
				if err != nil {
					t.Fatalf("generation %d: %v", g, err)
				}
				st.File.Every = 100
				data, err := encodeState(st)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, "gen"+strconv.Itoa(g)+".hees")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"resume", "-json", path}
				if g%2 == 1 {
					args = append(args, "-workers", "3") // does not change the result
				}
				code, out, errOut := runCLI(args...)
				if code != exitOK || out != want {
					t.Fatalf("resume from generation %d: exit %d, printed\n%s, want\n%s, stderr:\n%s", g, code, out, want, errOut)
				}
				if refTrace != nil && !bytes.Equal(readFile(t, rs.Trace), refTrace) {
					t.Fatalf("resume from generation %d: the trace differs from the uninterrupted run's", g)
				}
				if st, err = checkpoint.Decode(readFile(t, path)); err != nil {
					t.Fatal(err)
				}
				if st.File.Stop == "" {
					t.Fatalf("resume from generation %d: the final checkpoint records no stop", g)
				}
				last = st.File.Stop
			}
			t.Logf("%d generations, stop %q", len(snapshots)-1, last)
		})
	}
}

// spread returns about a dozen indices of 0 … n-1: the first ones, a
// geometric sequence, and the last two.
func spread(n int) []int {
	var idx []int
	for g := 0; g < n-2; g = max(g+1, g*3/2) {
		idx = append(idx, g)
	}
	return append(idx, n-2, n-1)
}

// readFile returns the content of path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkpointEveryGeneration runs rs as hees run -checkpoint path does,
// through the same functions, and returns the checkpoint of every
// generation (index: the generation, 0 for the one written at the start)
// as the run would write it with -checkpoint-every 1, and the -json
// summary. The checkpoints after the first are kept in memory, not
// written, to keep the test fast.
func checkpointEveryGeneration(t *testing.T, path string, rs *checkpoint.Settings) ([][]byte, string) {
	t.Helper()
	problem, err := objectives.Parse(rs.Problem, rs.Dim)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := problem.Bounds()
	sf := strategyFlags{algo: rs.Algo, seed: rs.Seed, sigma0: 2, restarts: rs.Restarts}
	cfg, err := sf.config(rs.Dim, max(-lo, hi))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sf.strategy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const never = 1 << 30 // no checkpoint write but the first and the last
	cp, err := checkpoint.Create(context.Background(), path, never, rs, s, nil, runner.Metadata(rs, problem, s))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	snapshots := [][]byte{readFile(t, path)}
	opt := runner.Options(rs, problem)
	cp.SetTrace(opt.Trace)
	opt.Progress = func(pr es.Progress) {
		if len(snapshots) != pr.Generation {
			t.Fatalf("generation %d after %d checkpoints", pr.Generation, len(snapshots))
		}
		if err := cp.AppendTrace(); err != nil {
			t.Fatal(err)
		}
		data, err := cp.Encode(pr.Strategy, pr.Stop)
		if err != nil {
			t.Fatal(err)
		}
		snapshots = append(snapshots, data)
	}
	res, err := es.Minimize(context.Background(), runner.Objective(rs, problem), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Finish(s, res); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := printResult("test", rs, problem, s, res, nil, cp, outputFlags{json: true}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, &stderr)
	}
	return snapshots, stdout.String()
}

// writeCheckpoint runs a short problem with a checkpoint in dir and
// returns the checkpoint's path and the -json output of the run.
func writeCheckpoint(t *testing.T, dir string, extra ...string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, "run.hees")
	_, out := runJSON(t, append([]string{"-f", "sphere", "-d", "3", "-checkpoint", path}, extra...)...)
	return path, out
}

// TestResumeBadFiles checks that a checkpoint that is missing, truncated,
// corrupted, of another format version, foreign, an ask/tell state, or
// checksummed but inconsistent, is one clear error line with the
// documented exit status, and that the file is left as it is (no run
// restarts from scratch), without a lock file next to it.
func TestResumeBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, _ := writeCheckpoint(t, dir)
	valid := readFile(t, good)
	st, err := checkpoint.Decode(valid)
	if err != nil {
		t.Fatal(err)
	}
	reencode := func(change func(*checkpoint.State)) []byte {
		c := *st
		change(&c)
		data, err := encodeState(&c)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 0x10
	version := bytes.Clone(valid)
	binary.LittleEndian.PutUint16(version[8:], 2)
	askTell := filepath.Join(dir, "asktell.hees")
	mustCLI(t, "", "init", "-state", askTell, "-d", "3")
	badJSON, err := statefile.Encode(checkpoint.Kind, []byte(`{"run":{"algo":"hees"`))
	if err != nil {
		t.Fatal(err)
	}
	unknownField, err := statefile.Encode(checkpoint.Kind, []byte(`{"runs":{}}`))
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name string
		data []byte // nil: the file is not written
		want string // regexp of stderr, DIR for the directory
		code int
	}{
		{"missing", nil, `hees resume: checkpoint DIR/missing does not exist \(hees run -checkpoint DIR/missing writes it\)`, exitUsage},
		{"empty", []byte{}, `hees resume: DIR/empty: statefile: truncated: 0 bytes, shorter than the header`, exitFailure},
		{"truncated", valid[:len(valid)-9], `hees resume: DIR/truncated: statefile: truncated: \d+ bytes, the header announces \d+ bytes of payload and a 4-byte checksum`, exitFailure},
		{"header only", valid[:20], `hees resume: DIR/header only: statefile: truncated: 20 bytes, shorter than the header`, exitFailure},
		{"bit flip", flipped, `hees resume: DIR/bit flip: statefile: corrupt: checksum [0-9a-f]{8} does not match the content \([0-9a-f]{8}\)`, exitFailure},
		{"trailing bytes", append(bytes.Clone(valid), '\n'), `hees resume: DIR/trailing bytes: statefile: corrupt: 1 unexpected bytes after the checksum`, exitFailure},
		{"version", version, `hees resume: DIR/version: statefile: unsupported format version 2 \(this build reads version 1\)`, exitFailure},
		{"foreign", []byte("generation,evals\n1,2\n"), `hees resume: DIR/foreign: statefile: not a hees state file \(it does not start with the state file signature\)`, exitFailure},
		{"ask-tell state", readFile(t, askTell), `hees resume: DIR/ask-tell state: statefile: wrong kind: the file holds "ask-tell/v3", want "checkpoint/v1"`, exitFailure},
		{"bad json", badJSON, `hees resume: DIR/bad json: bad checkpoint: unexpected EOF`, exitFailure},
		{"unknown field", unknownField, `hees resume: DIR/unknown field: bad checkpoint: json: unknown field "runs"`, exitFailure},
		{"bad strategy", reencode(func(c *checkpoint.State) { c.File.Run.Restarts = "ipop" }),
			`hees resume: DIR/bad strategy: bad checkpoint: the strategy is hees2 in 3 dimensions, the settings say ipop-hees2 in 3`, exitFailure},
		{"wrong dim", reencode(func(c *checkpoint.State) { c.File.Run.Dim = 4 }),
			`hees resume: DIR/wrong dim: bad checkpoint: the strategy is hees2 in 3 dimensions, the settings say hees2 in 4`, exitFailure},
		{"no problem", reencode(func(c *checkpoint.State) { c.File.Run.Problem = "" }),
			`hees resume: DIR/no problem: bad checkpoint: want either a problem or a command`, exitFailure},
		{"bad problem", reencode(func(c *checkpoint.State) { c.File.Run.Problem = "spehre" }),
			`hees resume: DIR/bad problem: bad checkpoint: objectives: unknown problem "spehre".*`, exitFailure},
		{"zero workers", reencode(func(c *checkpoint.State) { c.File.Run.Workers = 0 }),
			`hees resume: DIR/zero workers: bad checkpoint: out of range: max_evals 30000, workers 0, .*`, exitFailure},
		{"relative dir", reencode(func(c *checkpoint.State) { c.File.Run.Dir = "a" }),
			`hees resume: DIR/relative dir: bad checkpoint: dir "a" is not an absolute path`, exitFailure},
		{"canceled stop", reencode(func(c *checkpoint.State) { c.File.Stop = es.ReasonCanceled }),
			`hees resume: DIR/canceled stop: bad checkpoint: stop reason "canceled" does not end a run`, exitFailure},
		// Before: resumed as if it had not stopped ("stop reason none
		// yet"), and hees status printed the made-up reason.
		{"unknown stop", reencode(func(c *checkpoint.State) { c.File.Stop = "bogus reason" }),
			`hees resume: DIR/unknown stop: bad checkpoint: stop reason "bogus reason" is none of hees's`, exitFailure},
		// Before: resumed with a negative time, then wrote a checkpoint
		// that neither resume nor status would read.
		{"elapsed overflow", reencode(func(c *checkpoint.State) { c.File.Elapsed = math.MaxInt64 }),
			`hees resume: DIR/elapsed overflow: bad checkpoint: elapsed 2562047h47m16.854775807s, trace "" of 0 bytes`, exitFailure},
	} {
		path := filepath.Join(dir, c.name)
		if c.data != nil {
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errOut := runCLI("resume", "-json", path)
		re := "^" + strings.ReplaceAll(c.want, "DIR", regexp.QuoteMeta(dir)) + "\n$"
		if code != c.code || out != "" || !regexp.MustCompile(re).MatchString(errOut) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %s", c.name, code, out, errOut, c.code, re)
		}
		if c.data == nil {
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: resume created the checkpoint (%v)", c.name, err)
			}
		} else if !bytes.Equal(readFile(t, path), c.data) {
			t.Errorf("%s: resume changed the file", c.name)
		}
		if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: resume left a lock file next to a file that is not a checkpoint (%v)", c.name, err)
		}
	}
}

// TestCheckpointInUse checks that a second process cannot run or resume a
// checkpoint whose lock is held.
func TestCheckpointInUse(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeCheckpoint(t, dir)
	valid := readFile(t, path)
	unlock, err := atomicfile.Lock(context.Background(), path+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, _, errOut := runCLI("resume", path)
	if want := "hees resume: " + path + " is in use by another hees process (" + path + ".lock is locked)\n"; code != exitFailure || errOut != want {
		t.Errorf("resume: exit %d, stderr %q; want %q", code, errOut, want)
	}
	other := filepath.Join(dir, "other.hees")
	unlockOther, err := atomicfile.Lock(context.Background(), other+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlockOther()
	code, _, errOut = runCLI("run", "-checkpoint", other)
	if code != exitFailure || !strings.Contains(errOut, "is in use by another hees process") {
		t.Errorf("run: exit %d, stderr %q", code, errOut)
	}
	if !bytes.Equal(readFile(t, path), valid) {
		t.Error("the checkpoint changed")
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run wrote %s without its lock", other)
	}
}

// TestRunCheckpointExists checks that hees run does not replace an existing
// checkpoint, which would silently throw away the run it holds.
func TestRunCheckpointExists(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeCheckpoint(t, dir)
	valid := readFile(t, path)
	code, out, errOut := runCLI("run", "-f", "sphere", "-d", "3", "-checkpoint", path)
	want := "hees run: -checkpoint " + path + " exists: continue its run with hees resume " + path + ", or remove it to start anew\n"
	if code != exitFailure || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if !bytes.Equal(readFile(t, path), valid) {
		t.Error("the checkpoint changed")
	}
}

// TestResumeFinished checks that resuming a finished run prints its summary
// again, in both forms, without running anything (the checkpoint is not
// rewritten), and that a changed trace file is an error for a run that
// goes on.
func TestResumeFinished(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.csv")
	path, want := writeCheckpoint(t, dir, "-trace", trace)
	before := readFile(t, path)
	if _, out := runJSON(t, "-f", "sphere", "-d", "3"); out != want {
		t.Errorf("with a checkpoint\n%s, without\n%s", want, out)
	}
	if code, out, errOut := runCLI("resume", path, "-json"); code != exitOK || out != want || errOut != "" {
		t.Errorf("resume -json: exit %d, stdout\n%s, stderr %q; want\n%s", code, out, errOut, want)
	}
	code, out, _ := runCLI("resume", path)
	var rep runReport
	json.Unmarshal([]byte(want), &rep)
	summary := regexp.MustCompile(`^strategy     hees2, seed 1
problem      sphere, d = 3
evaluations  ` + strconv.Itoa(rep.Evals) + ` in ` + strconv.Itoa(rep.Generations) + ` generations
best value   \S+
best x       \S+ \S+ \S+
stop reason  target reached
time         \d\S*s
$`)
	if code != exitOK || !summary.MatchString(out) {
		t.Errorf("resume: exit %d, summary\n%s", code, out)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("resuming a finished run rewrote its checkpoint")
	}

	// A run that goes on needs its trace as the checkpoint left it.
	st, err := checkpoint.Decode(before)
	if err != nil {
		t.Fatal(err)
	}
	st.File.Stop = ""
	data, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte("generation,evals\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("resume", path)
	if want := "the trace " + trace + " is not the one of the checkpoint"; code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("changed trace: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// TestCheckpointAtomic reads the checkpoint over and over while a run
// replaces it after every generation: every read must be a complete,
// valid checkpoint of a generation no earlier than the one read before,
// and the run must leave no temporary file behind.
func TestCheckpointAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	done := make(chan struct{})
	var (
		wg          sync.WaitGroup
		reads, gens int
		readErr     error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := -1
		for {
			select {
			case <-done:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) && last < 0 {
				continue // not written yet
			}
			if err == nil {
				var st *checkpoint.State
				if st, err = checkpoint.Decode(data); err == nil {
					g := st.Strategy.Generation()
					if g < last {
						err = errors.New("generation " + strconv.Itoa(g) + " after " + strconv.Itoa(last))
					}
					if g != last {
						gens++
					}
					last = g
				}
			}
			if err != nil {
				readErr = err
				return
			}
			reads++
		}
	}()
	rep, _ := runJSON(t, "-f", "rosenbrock", "-d", "5", "-seed", "2", "-checkpoint", path, "-checkpoint-every", "1", "-target", "none", "-max-evals", "1500")
	close(done)
	wg.Wait()
	if readErr != nil {
		t.Fatalf("after %d good reads: %v", reads, readErr)
	}
	if gens < 2 {
		t.Errorf("the reader saw %d versions of the checkpoint in %d reads; want several", gens, reads)
	}
	t.Logf("%d reads saw %d of the %v generations", reads, gens, rep["generations"])
	names := dirNames(t, dir)
	if strings.Join(names, " ") != "run.hees run.hees.lock" {
		t.Errorf("files left in the directory: %q, want the checkpoint and its lock", names)
	}
}

// TestCheckpointWriteFailure removes the checkpoint's directory during a
// run: the next write fails, which must stop the run at once with an error
// rather than let it go on without checkpoints, and with the stop reason
// "checkpoint error", not "canceled" as if the user had stopped it.
func TestCheckpointWriteFailure(t *testing.T) {
	setObjectiveEnv(t, "sphere", "HEES_TEST_DELAY=1ms")
	dir := filepath.Join(t.TempDir(), "sub")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.hees")
	go func() {
		for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
			if data, err := os.ReadFile(path); err == nil {
				if st, err := checkpoint.Decode(data); err == nil && st.Strategy.Generation() >= 3 {
					os.RemoveAll(dir)
					return
				}
			}
		}
	}()
	start := time.Now()
	code, out, errOut := runCLI("run", "-cmd", selfCommand(t), "-d", "3", "-target", "none", "-max-evals", "1e5",
		"-checkpoint", path, "-checkpoint-every", "1")
	if code != exitFailure || !regexp.MustCompile(`^hees run: writing the checkpoint: atomicfile: writing .*: no such file or directory\n`).MatchString(errOut) {
		t.Errorf("exit %d, stderr %q; want the failed write", code, errOut)
	}
	if !strings.Contains(out, "stop reason  checkpoint error\n") {
		t.Errorf("summary:\n%s", out)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the run went on for %v after the failure", d)
	}
}

// TestResumeAfterTimeLimit runs with -max-time, which limits each
// invocation, and resumes until the run ends: the last summary must be the
// one of the run without a time limit.
func TestResumeAfterTimeLimit(t *testing.T) {
	args := []string{"-f", "rosenbrock", "-d", "8", "-seed", "6", "-max-evals", "2e4"}
	_, want := runJSON(t, args...)
	path := filepath.Join(t.TempDir(), "run.hees")
	code, out, errOut := runCLI(append([]string{"run", "-json", "-max-time", "2ms", "-checkpoint", path}, args...)...)
	invocations := 1
	for strings.Contains(out, `"stop_reason":"time limit"`) {
		if code != exitOK || !strings.Contains(errOut, "continue it with: hees resume "+path) {
			t.Fatalf("invocation %d: exit %d, stderr %q", invocations, code, errOut)
		}
		if invocations++; invocations > 1000 {
			t.Fatal("no end after 1000 invocations")
		}
		code, out, errOut = runCLI("resume", "-json", path)
	}
	if code != exitOK || out != want {
		t.Errorf("after %d invocations: exit %d, printed\n%s, want\n%s, stderr %q", invocations, code, out, want, errOut)
	}
	if invocations < 3 {
		t.Errorf("%d invocations: the time limit did not interrupt the run", invocations)
	}
	t.Logf("%d invocations", invocations)
}

// TestRunCheckpointProgramMissing checks that a run whose program does not
// start leaves no checkpoint behind (its command would only fail again),
// so that the corrected command can use the same file.
func TestRunCheckpointProgramMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.hees")
	code, _, errOut := runCLI("run", "-cmd", "./testdata/no-such-program", "-d", "2", "-checkpoint", path)
	if code != exitFailure || strings.Contains(errOut, "hees resume") {
		t.Errorf("exit %d, stderr %q; want the error without a resume hint", code, errOut)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the checkpoint of a run that did not start is left: %v", err)
	}
	setObjectiveEnv(t, "sphere")
	if code, _, errOut := runCLI("run", "-cmd", selfCommand(t), "-d", "2", "-max-evals", "50", "-checkpoint", path); code != exitOK {
		t.Errorf("the corrected run: exit %d, stderr %q", code, errOut)
	}
}

// encodeState returns the bytes of the checkpoint file of st, with the
// state of its strategy as it is now.
func encodeState(st *checkpoint.State) ([]byte, error) {
	f := st.File
	state, err := st.Strategy.MarshalBinary()
	if err != nil {
		return nil, err
	}
	f.Strategy = state
	payload, err := json.Marshal(&f)
	if err != nil {
		return nil, err
	}
	return statefile.Encode(checkpoint.Kind, payload)
}

// TestResumeNewLimits extends finished runs with hees resume -max-evals
// and -target: a run stopped at its budget or target goes on to the new
// one with the bits of a run that had it from the start; limits that do
// not change the stop print the summary again, unchanged; a strategy's
// own stop is one line of error; and nothing is written then.
func TestResumeNewLimits(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-f", "rosenbrock", "-d", "4", "-seed", "3"}
	path := filepath.Join(dir, "run.hees")
	_, short := runJSON(t, append(args, "-max-evals", "300", "-checkpoint", path)...)
	_, want := runJSON(t, append(args, "-max-evals", "3000")...)
	_, deeper := runJSON(t, append(args, "-max-evals", "5000", "-target", "1e-14")...)
	if !strings.Contains(short, `"stop_reason":"max evaluations"`) || !strings.Contains(want, `"stop_reason":"target reached"`) ||
		!strings.Contains(deeper, `"stop_reason":"target reached"`) {
		t.Fatalf("the runs do not stop as the test needs:\n%s%s%s", short, want, deeper)
	}
	same := func(what, wantOut, wantErr string, args ...string) {
		t.Helper()
		before := readFile(t, path)
		code, out, errOut := runCLI(append([]string{"resume", "-json", path}, args...)...)
		if code != exitOK || out != wantOut || !strings.Contains(errOut, wantErr) {
			t.Errorf("%s: exit %d, stdout\n%s, stderr %q; want\n%s", what, code, out, errOut, wantOut)
		}
		if wantErr != "" && !bytes.Equal(readFile(t, path), before) {
			t.Errorf("%s: the checkpoint was rewritten", what)
		}
	}
	same("a budget below the evaluations", short, "which the new limits do not change", "-max-evals", "200")
	same("a larger budget", want, "", "-max-evals", "3000")
	same("a larger budget after the target", want, "which the new limits do not change", "-max-evals", "5000")
	same("a lower target", deeper, "", "-max-evals", "5000", "-target", "1e-14")

	// hees2 on the sphere in d = 2 without a target stops by tolfun.
	path = filepath.Join(dir, "tolfun.hees")
	runJSON(t, "-f", "sphere", "-d", "2", "-target", "none", "-checkpoint", path)
	before := readFile(t, path)
	code, out, errOut := runCLI("resume", path, "-max-evals", "1e6")
	if code != exitFailure || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `stopped for "tolfun", its strategy's own stop`) {
		t.Errorf("a strategy's own stop: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("a strategy's own stop: the checkpoint was rewritten")
	}
	if code, _, errOut := runCLI("resume", path, "-max-time", "-1s"); code != exitUsage || !strings.Contains(errOut, "-max-time -1s") {
		t.Errorf("-max-time -1s: exit %d, stderr %q", code, errOut)
	}
}

// TestStatusCheckpoint reads checkpoints with hees status, given as
// -checkpoint or -state: a finished run's status is the summary of hees
// run (the same JSON fields and values) with its step size; a run that
// can go on says how; the file is never changed; a missing file, an
// ask/tell state given as -checkpoint and both flags at once are one line
// of error each.
func TestStatusCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	_, want := runJSON(t, "-f", "sphere", "-d", "3", "-checkpoint", path)
	before := readFile(t, path)
	for _, flag := range []string{"-checkpoint", "-state"} {
		code, out, errOut := runCLI("status", flag, path, "-json")
		var got, run map[string]any
		if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || errOut != "" {
			t.Fatalf("status %s -json: exit %d, %v, stdout %q, stderr %q", flag, code, err, out, errOut)
		}
		json.Unmarshal([]byte(want), &run)
		for k, v := range run {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("status %s -json: %s = %v, hees run printed %v", flag, k, got[k], v)
			}
		}
		if s, ok := got["sigma"].(float64); !ok || !(s > 0) {
			t.Errorf("status %s -json: sigma %v", flag, got["sigma"])
		}
		code, out, _ = runCLI("status", flag, path)
		if code != exitOK || !strings.Contains(out, "stop reason  target reached\n") || !strings.Contains(out, "state        finished\n") {
			t.Errorf("status %s: exit %d, stdout\n%s", flag, code, out)
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("status changed the checkpoint")
	}

	going := filepath.Join(dir, "going.hees")
	runCLI("run", "-f", "sphere", "-d", "3", "-max-time", "1ns", "-target", "none", "-checkpoint", going)
	code, out, _ := runCLI("status", "-checkpoint", going)
	if code != exitOK || !strings.Contains(out, "stop reason  none yet\n") || !strings.Contains(out, "continue it with: hees resume "+going) {
		t.Errorf("a run that can go on: exit %d, stdout\n%s", code, out)
	}

	state := filepath.Join(dir, "run.state")
	mustCLI(t, "", "init", "-state", state, "-d", "2")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-checkpoint", filepath.Join(dir, "none.hees")}, exitUsage, "does not exist"},
		{[]string{"-checkpoint", state}, exitFailure, "wrong kind"},
		{[]string{"-checkpoint", path, "-state", state}, exitUsage, "give -state or -checkpoint, not both"},
		{[]string{"-checkpoint", path, "-watch", "1s"}, exitUsage, "-watch is for -state"},
		{nil, exitUsage, "-state FILE (or -checkpoint FILE) is required"},
	} {
		code, out, errOut := runCLI(append([]string{"status"}, c.args...)...)
		if code != c.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("status %q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
}
