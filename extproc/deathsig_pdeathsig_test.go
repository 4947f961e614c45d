//go:build linux || freebsd

package extproc

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestParentDeathKillsProcesses: a SIGKILL of the program that started a
// pool, which gives it no chance to stop the processes, still ends them.
func TestParentDeathKillsProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "pool-parent")
	parent.Env = append(os.Environ(), helperEnv+"=1", noRaceExitDelay())
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("reading the pool's process id: %q, %v, %v", line, err, convErr)
	}
	if processGone(pid) {
		t.Fatal("the pool's process is gone before its parent is killed: the test proves nothing")
	}
	parent.Process.Kill() // SIGKILL
	parent.Wait()
	checkGone(t, pid, "process of a pool whose parent was killed")
}
