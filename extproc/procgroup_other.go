//go:build !unix

package extproc

import (
	"os"
	"os/exec"
)

// ownProcessGroup does nothing: process groups are a Unix notion.
func ownProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills p alone; processes it started may survive it. An
// error means p had exited already.
func killProcessGroup(p *os.Process) {
	p.Kill()
}
