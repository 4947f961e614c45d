package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/session"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// heesProcess returns the test binary started as hees with args and the
// environment env (see childEnv), its standard output and error captured.
func heesProcess(t *testing.T, env []string, stdin string, args ...string) (*exec.Cmd, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr lockedBuffer
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// killedBy reports whether the process ended by signal sig.
func killedBy(state *os.ProcessState, sig syscall.Signal) bool {
	ws, ok := state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// killDelays returns n fixed pseudo-random delays in [lo, hi).
func killDelays(seed uint64, n int, lo, hi time.Duration) []time.Duration {
	r := rand.New(rand.NewPCG(seed, 0x6b696c6c))
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = lo + time.Duration(r.Int64N(int64(hi-lo)))
	}
	return d
}

// savedGeneration returns the generation of the checkpoint at path, or -1
// when there is none; a checkpoint that does not decode fails the test.
func savedGeneration(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoint.Decode(data)
	if err != nil {
		t.Fatalf("the checkpoint is not valid after an interruption: %v", err)
	}
	if st.File.Stop != "" {
		t.Fatalf("the run had finished (%s) before it was interrupted: make it longer", st.File.Stop)
	}
	return st.Strategy.Generation()
}

// TestKillRunResume interrupts hees run -checkpoint five times, at fixed
// pseudo-random delays, by SIGKILL, SIGINT and SIGTERM, resuming after
// each interruption, and checks that the final -json output, and the
// trace, are byte-identical to those of an uninterrupted run. The
// objective is the test binary as an external program answering after a
// delay, so that each interruption lands in the middle of the run.
func TestKillRunResume(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL/SIGINT to send on Windows")
	}
	program := "env " + roleEnv + "=objective " + selfCommand(t)
	spaceFile := writeSpace(t, testSpace)
	for _, c := range []struct {
		name    string
		problem string
		args    []string
		every   string // -checkpoint-every
		signals []syscall.Signal
	}{
		{"hees target trace", "rosenbrock", []string{"-d", "3", "-seed", "5", "-target", "1e-10", "-max-evals", "5000"}, "1",
			[]syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGKILL, syscall.SIGTERM, syscall.SIGKILL}},
		{"ipop budget workers", "rastrigin", []string{"-d", "2", "-restarts", "ipop", "-target", "none", "-max-evals", "1500", "-workers", "2"}, "1",
			[]syscall.Signal{syscall.SIGKILL, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL, syscall.SIGKILL}},
		// With a checkpoint every 3 generations the log holds rows after
		// the checkpoint that a resume evaluates again: they become
		// comments, and the rows equal the uninterrupted run's.
		{"log every 3", "rosenbrock", []string{"-d", "4", "-seed", "2", "-target", "1e-10", "-max-evals", "6000"}, "3",
			[]syscall.Signal{syscall.SIGKILL, syscall.SIGKILL, syscall.SIGINT, syscall.SIGKILL, syscall.SIGKILL}},
		// A space (log scale, integers, choices) whose values go to the
		// program as JSON objects and to the log's named columns; the
		// space file is removed after the first interruption, so every
		// resume takes the space from the checkpoint.
		{"space json log every 2", "sphere", []string{"-space", spaceFile, "-format", "json", "-seed", "4", "-target", "none", "-max-evals", "1200"}, "2",
			[]syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGKILL, syscall.SIGKILL, syscall.SIGKILL}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			checkpoint := filepath.Join(dir, "run.hees")
			trace := filepath.Join(dir, "trace.csv")
			log := filepath.Join(dir, "log.csv")
			runArgs := append([]string{"run", "-json", "-cmd", program}, c.args...)
			if strings.Contains(c.name, "trace") {
				runArgs = append(runArgs, "-trace", trace)
			}
			if strings.Contains(c.name, "log") {
				runArgs = append(runArgs, "-log", log)
			}

			// The uninterrupted run, without checkpoints and at full speed.
			refTrace, refLog := filepath.Join(dir, "ref-trace.csv"), filepath.Join(dir, "ref-log.csv")
			ref, refOut, refErr := heesProcess(t, childEnv("hees", "HEES_TEST_PROBLEM="+c.problem), "",
				slicesReplace(slicesReplace(runArgs, trace, refTrace), log, refLog)...)
			if err := ref.Run(); err != nil {
				t.Fatalf("uninterrupted run: %v, stderr:\n%s", err, refErr.String())
			}
			want := refOut.String()

			env := childEnv("hees", "HEES_TEST_PROBLEM="+c.problem, "HEES_TEST_DELAY=3ms")
			delays := killDelays(uint64(len(c.name)), len(c.signals), 40*time.Millisecond, 250*time.Millisecond)
			last := -1
			for i, sig := range c.signals {
				args := []string{"resume", "-json", "-v", checkpoint}
				if last < 0 {
					args = append(slicesReplace(runArgs, "-json", "-v"), "-json", "-checkpoint", checkpoint, "-checkpoint-every", c.every)
				}
				cmd, _, stderr := heesProcess(t, env, "", args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}

				if sig != syscall.SIGKILL {
					// The first progress line shows that the signal
					// handler is set.
					for start := time.Now(); !strings.Contains(stderr.String(), "evals "); time.Sleep(5 * time.Millisecond) {
						if time.Since(start) > 20*time.Second {
							cmd.Process.Kill()
							t.Fatalf("no progress after 20 s, stderr:\n%s", stderr.String())
						}
					}
				}
				time.Sleep(delays[i])
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				if strings.Contains(c.name, "space") {
					os.Remove(spaceFile) // the resumes take the space from the checkpoint
				}
				gen := savedGeneration(t, checkpoint)
				switch {
				case sig == syscall.SIGKILL:
					if !killedBy(cmd.ProcessState, syscall.SIGKILL) {
						t.Fatalf("interruption %d: the process ended before SIGKILL (%v): make the run longer", i, err)
					}
				default:
					// A clean stop: exit status 1, the checkpoint of the
					// last complete generation, and how to resume it.
					hint := regexp.MustCompile(`holds the run after generation (\d+); continue it with: hees resume ` + regexp.QuoteMeta(checkpoint) + "\n").
						FindStringSubmatch(stderr.String())
					if cmd.ProcessState.ExitCode() != exitFailure || hint == nil || hint[1] != strconv.Itoa(gen) {
						t.Fatalf("interruption %d by %v: %v, checkpoint generation %d, stderr:\n%s", i, sig, err, gen, stderr.String())
					}
				}
				if gen < last {
					t.Fatalf("interruption %d: the checkpoint went back from generation %d to %d", i, last, gen)
				}
				temps, _ := filepath.Glob(filepath.Join(dir, ".run.hees.*.tmp"))
				t.Logf("%v after %v: checkpoint at generation %d, %d temporary files", sig, delays[i], gen, len(temps))
				last = gen
			}
			if last <= 0 {
				t.Fatalf("no generation was saved before the last interruption")
			}

			cmd, stdout, stderr := heesProcess(t, env, "", "resume", "-json", checkpoint)
			if err := cmd.Run(); err != nil {
				t.Fatalf("final resume: %v, stderr:\n%s", err, stderr.String())
			}
			if got := stdout.String(); got != want {
				t.Errorf("after 5 interruptions the run printed\n%s, the uninterrupted run\n%s", got, want)
			}
			if strings.Contains(c.name, "trace") {
				if got, want := readFile(t, trace), readFile(t, refTrace); !bytes.Equal(got, want) {
					t.Errorf("the trace differs from the uninterrupted run's: %d and %d bytes", len(got), len(want))
				}
			}
			if strings.Contains(c.name, "log") {
				got, want := logRows(readFile(t, log)), logRows(readFile(t, refLog))
				if got != want {
					t.Errorf("the rows of the log differ from the uninterrupted run's:\n%s\nwant\n%s", got, want)
				}
				if !strings.Contains(string(readFile(t, log)), runlog.RedoneComment) {
					t.Log("no row was evaluated again after a resume (the kills fell on checkpoints)")
				}
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, ".run.hees.*.tmp")); len(temps) > 0 {
				t.Errorf("temporary files of killed writes are left after the resume: %q", temps)
			}
		})
	}
}

// logRows returns the lines of an evaluation log that are not comments.
func logRows(data []byte) string {
	var rows strings.Builder
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "#") {
			rows.WriteString(line)
		}
	}
	return rows.String()
}

// slicesReplace returns a copy of args with every old replaced by new.
func slicesReplace(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == old {
			a = new
		}
		out[i] = a
	}
	return out
}

// TestKillTell drives an ask/tell run in which every hees tell process is
// killed by SIGKILL at a fixed pseudo-random moment of its life (from
// start-up to the write of the state file; how many kills land during or
// after the write depends on the machine's load, and is logged) and then
// told again. After each
// kill the state must be the one before the tell or the one after it,
// never a torn mix; the retry must succeed quietly, and change nothing
// when the killed tell was applied (a repeat of the same value), so that
// every value is applied exactly once; and the final state must be the one
// of the same run driven through the library.
func TestKillTell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL to send on Windows")
	}
	const (
		dim         = 12
		generations = 5
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	mustCLI(t, "", "init", "-state", path, "-algo", "hees", "-d", strconv.Itoa(dim), "-seed", "9")
	lib, err := es.New("hees", es.Config{Dim: dim, Seed: 9, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	env := childEnv("hees")

	// How long a tell process lives, to spread the kills over its life.
	scratch := filepath.Join(dir, "scratch.hees")
	mustCLI(t, "", "init", "-state", scratch, "-algo", "hees", "-d", strconv.Itoa(dim), "-seed", "9")
	var life time.Duration
	for i, c := range askAll(t, scratch)[:3] {
		cmd, _, stderr := heesProcess(t, env, fmt.Sprintf("%s %d\n", c.id, i), "tell", "-state", scratch)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("tell: %v, stderr:\n%s", err, stderr.String())
		}
		life = max(life, time.Since(start))
	}

	r := rand.New(rand.NewPCG(11, 0x74656c6c))
	tells, kills, midWrite, killedAfterWrite, tornRecords := 0, 0, 0, 0, 0
	for gen := range generations {
		cands := askAll(t, path)
		f := make([]float64, len(cands))
		for row, c := range cands {
			for _, v := range c.x {
				f[row] += v * v
			}
			f[row] += float64(row) // distinct values
			before := append(readFile(t, path), readFile(t, session.JournalPath(path))...)
			line := fmt.Sprintf("%s %s\n", c.id, formatValue(f[row]))
			tells++
			cmd, _, _ := heesProcess(t, env, line, "tell", "-state", path)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Row 0 is killed at once, so that every generation has a
			// kill whatever the machine's load; the others at a moment
			// drawn over the measured life of a tell.
			if row > 0 {
				time.Sleep(time.Duration(r.Int64N(int64(life * 11 / 10))))
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			killed := killedBy(cmd.ProcessState, syscall.SIGKILL)
			if killed {
				kills++
			}

			if temps, _ := filepath.Glob(filepath.Join(dir, ".run.hees.*.tmp")); len(temps) > 0 {
				midWrite++
			}

			// Old or new state, never torn.
			snapAfter := readFile(t, path)
			after := append(bytes.Clone(snapAfter), readFile(t, session.JournalPath(path))...)
			ss, err := session.Store{Path: path}.LoadSession()
			if err != nil {
				t.Fatalf("%s: the state after the kill does not decode: %v", c.id, err)
			}
			// Applied: the value is in the journal, or its batch was
			// folded. The files may also have changed without it: a record
			// cut short by the kill, which readers ignore and the next
			// writer cuts off.
			v, told := ss.Told(row)
			wasApplied := ss.Strategy().Generation() > gen || told
			// Killed after the last value of the generation was appended
			// and before its fold: the retry folds it (the state changes,
			// to what the tell would have written).
			unfolded := ss.Strategy().Generation() == gen && ss.NumTold() == ss.Rows()
			if wasApplied {
				if killed {
					killedAfterWrite++
				}
				if ss.Strategy().Generation() == gen && v != f[row] {
					t.Fatalf("%s: the state holds %v, not the value told", c.id, v)
				}
			} else if !bytes.Equal(before, after) {
				tornRecords++
			}

			code, _, errOut := cli(line, "tell", "-state", path)
			// With the lock file (HEES_LOCK=file), a tell killed while it
			// held the lock left its lock file, which the retry breaks and
			// says so.
			errOut = regexp.MustCompile(`(?m)^hees tell: (broke the stale lock|waiting for) .*\n`).ReplaceAllString(errOut, "")
			switch {
			case code != exitOK || errOut != "":
				t.Fatalf("%s: the retry of a killed tell (applied: %v) says exit %d, %q", c.id, wasApplied, code, errOut)
			case wasApplied && !unfolded && ss.Strategy().Generation() == gen && !bytes.Equal(append(readFile(t, path), readFile(t, session.JournalPath(path))...), after):
				t.Fatalf("%s: the retry of a killed tell that was applied changed the state", c.id)
			case ss.Strategy().Generation() > gen && !bytes.Equal(readFile(t, path), snapAfter):
				// Killed between the new snapshot and the new journal, the
				// retry makes the journal anew, but leaves the snapshot.
				t.Fatalf("%s: the retry of a killed tell whose batch was folded changed the snapshot", c.id)
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, ".run.hees.*.tmp")); len(temps) > 0 {
				t.Fatalf("%s: the retry left the temporary files of the killed tell: %q", c.id, temps)
			}
		}
		var pop linalg.Dense
		if err := lib.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		checkCandidates(t, cands, &pop, gen, runID(t, path))
		if err := lib.Tell(f); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d tells: %d killed, %d of them during the write of a fold (a temporary file left), %d after appending the value, %d leaving a torn record",
		tells, kills, midWrite, killedAfterWrite, tornRecords)
	if kills < generations {
		t.Errorf("%d kills, want at least one a generation", kills)
	}
	// The state file keeps its strategy asked for the pending generation.
	var pop linalg.Dense
	if err := lib.Ask(&pop); err != nil {
		t.Fatal(err)
	}
	want, err := lib.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(savedStrategy(t, path), want) {
		t.Errorf("the final state differs from the library's run with the same values")
	}
	if st := status(t, path); st["generation"] != float64(generations) || st["told"] != 0.0 {
		t.Errorf("status %v, want generation %d with nothing told", st, generations)
	}
}
