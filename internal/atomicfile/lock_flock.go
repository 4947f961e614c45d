//go:build unix && !solaris && !aix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) lock on f without waiting. It reports
// false, with no error, when another open file description holds the lock.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		default:
			return false, os.NewSyscallError("flock", err)
		}
	}
}

// unlockFile releases the lock tryLock took on f.
func unlockFile(f *os.File) error {
	return os.NewSyscallError("flock", syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
}
