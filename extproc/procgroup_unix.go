//go:build unix

package extproc

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd start in a new process group whose id is its
// pid. A Ctrl-C on the terminal then reaches hees alone, which stops the
// processes itself, and killProcessGroup reaches the program's helpers.
// Where the system allows it, cmd also dies with the program that starts
// it (setParentDeathSignal).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// killProcessGroup sends SIGKILL to the process group that p leads and to
// p itself. Errors mean there was nothing left to kill.
func killProcessGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}
