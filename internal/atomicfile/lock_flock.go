//go:build unix && !solaris && !aix

package atomicfile

import (
	"context"
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

// waitLock waits for the flock(2) lock on f in a goroutine, and reports
// whether it got it before ctx was done. When ctx is done first, the
// goroutine keeps waiting, releases the lock once it gets it and closes
// f; f then belongs to it.
func waitLock(ctx context.Context, f *os.File) (bool, error) {
	type result struct{ err error }
	got := make(chan result) // unbuffered: a result nobody takes is the abandoning goroutine's to release
	abandon := make(chan struct{})
	flock := flock // the goroutine may outlive a test that replaces flock
	go func() {
		var err error
		for {
			err = flock(int(f.Fd()), syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		select {
		case got <- result{err}:
		case <-abandon:
			if err == nil {
				flock(int(f.Fd()), syscall.LOCK_UN)
			}
			f.Close()
		}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			return false, os.NewSyscallError("flock", r.err)
		}
		return true, nil
	case <-ctx.Done():
		close(abandon)
		// got may have been filled in the meantime: then the lock is held
		// here, and released.
		select {
		case r := <-got:
			if r.err == nil {
				flock(int(f.Fd()), syscall.LOCK_UN)
			}
		default:
			return false, errAbandoned
		}
		return false, nil
	}
}
