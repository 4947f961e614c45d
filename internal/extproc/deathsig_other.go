//go:build unix && !linux

package extproc

import "syscall"

// setParentDeathSignal does nothing: only Linux has a parent-death signal,
// so elsewhere a process survives a hees killed by SIGKILL.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
