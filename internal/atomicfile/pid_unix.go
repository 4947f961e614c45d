//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// processExists reports whether a process pid exists on this machine (it
// may belong to another user).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
