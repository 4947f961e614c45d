//go:build linux || freebsd

package extproc

import "syscall"

// setParentDeathSignal asks the kernel to send SIGKILL to the process when
// the program that started it dies (on Linux: when the thread that started
// it ends, which for a Go program is when the program dies, see the package
// documentation for the one exception), so that a SIGKILL of hees leaves no
// program running.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
