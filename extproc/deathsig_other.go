//go:build unix && !linux && !freebsd

package extproc

import "syscall"

// setParentDeathSignal does nothing: only Linux and FreeBSD have a
// parent-death signal, so elsewhere a process survives a hees killed by
// SIGKILL.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
