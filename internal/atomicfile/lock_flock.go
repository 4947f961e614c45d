//go:build unix && !solaris && !aix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// flock is flock(2); tests replace it to play a file system that refuses
// locks.
var flock = syscall.Flock

// tryLock takes an exclusive flock(2) lock on f without waiting. It reports
// false, with no error, when another open file description holds the lock.
// A file system that refuses the lock (ENOLCK: NFS without a lock manager;
// EOPNOTSUPP, ENOSYS) gives an error wrapping ErrLockUnsupported.
func tryLock(f *os.File) (bool, error) {
	for {
		err := flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
			return false, fmt.Errorf("%w (flock: %v)", ErrLockUnsupported, err)
		default:
			return false, os.NewSyscallError("flock", err)
		}
	}
}

// unlockFile releases the lock tryLock took on f.
func unlockFile(f *os.File) error {
	return os.NewSyscallError("flock", flock(int(f.Fd()), syscall.LOCK_UN))
}
