package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

// errAbandoned: waitLock gave up on ctx, and its goroutine, still waiting,
// owns the file.
var errAbandoned = errors.New("abandoned the wait")

// ErrLockUnsupported is wrapped by the error of Lock when the file system
// of the lock file refuses flock(2) locks. Every process that shares the
// file, on every machine, must see the same locks: a local file system; NFS
// with its lock manager (NFSv4, or v3 with lockd, not mounted with nolock
// or local_lock=all/flock, which keep locks on one machine); Lustre mounted
// with -o flock (localflock locks one node only, and no error says so);
// BeeGFS with tuneUseGlobalFileLocks.
var ErrLockUnsupported = errors.New("the file system refuses flock(2) locks; put the file on one that supports them across every machine that uses it (a local disk; NFS with a lock manager; Lustre mounted with -o flock)")

// Lock takes an exclusive lock on the lock file at path, creating the file
// if needed, and returns the function that releases it.
//
// The lock excludes every other holder, whether in another process or in
// the same one (each call opens the file anew), so a read-modify-write of a
// shared file between Lock and unlock cannot interleave with another one.
// While the lock is held elsewhere, Lock waits in the kernel's queue of the
// lock (a blocking flock in a goroutine of its own, so that a waiter gets
// the lock as soon as it is released, without polling) until it succeeds
// or ctx is done; in the latter case (and when ctx is done on entry) it
// returns an error that wraps ctx.Err(), and the goroutine releases the
// lock as soon as it gets it. The
// operating system releases the lock when its holder exits, even by a
// crash, so a killed process never leaves a stale lock behind.
//
// The lock file is never removed (removing it would let two processes lock
// two different files of the same name); its content is not used. Use a
// lock file next to the data it protects, not the data file itself, since
// WriteFile replaces the data file with a new one.
//
// unlock releases the lock and closes the file; calling it a second time
// returns an error. Lock is implemented with flock(2) on Linux, macOS and
// the BSDs; elsewhere it returns an error that says locks are unsupported
// and wraps errors.ErrUnsupported. A file system that refuses the lock is
// an error wrapping ErrLockUnsupported, at once: Lock does not wait for it.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("atomicfile: lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: lock: %w", err)
	}
	held, err := tryLock(f)
	if err == nil && !held {
		held, err = waitLock(ctx, f)
	}
	switch {
	case errors.Is(err, errAbandoned): // f is the waiting goroutine's now
		return nil, fmt.Errorf("atomicfile: lock %s: still held elsewhere: %w", path, ctx.Err())
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("atomicfile: lock %s: %w", path, err)
	case !held:
		f.Close()
		return nil, fmt.Errorf("atomicfile: lock %s: still held elsewhere: %w", path, ctx.Err())
	}
	var once sync.Once
	unlock = func() error {
		err := errors.New("atomicfile: unlock " + path + ": already unlocked")
		once.Do(func() {
			err = unlockFile(f)
			if closeErr := f.Close(); err == nil {
				err = closeErr
			}
			if err != nil {
				err = fmt.Errorf("atomicfile: unlock %s: %w", path, err)
			}
		})
		return err
	}
	return unlock, nil
}

// TryLock takes an exclusive lock on the open file f without waiting, for a
// file that is appended to in place and never replaced (an evaluation log):
// it reports false, with no error, when another open file of it holds the
// lock, and the operating system releases the lock when f is closed or its
// process ends. Its errors are those of Lock: one wrapping
// ErrLockUnsupported when the file system refuses locks, and one wrapping
// errors.ErrUnsupported where flock(2) does not exist.
func TryLock(f *os.File) (held bool, err error) { return tryLock(f) }
