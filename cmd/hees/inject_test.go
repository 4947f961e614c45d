package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/checkpoint"
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
