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
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup sends SIGKILL to the process group that p leads and to
// p itself. Errors mean there was nothing left to kill.
func killProcessGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}
