package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hees-dev/hees/internal/atomicfile"
)

// StaleEnv names the environment variable that sets the stale bound of
// the lock file (a duration, such as 30s) when Store.Stale is 0; unset or
// bad: atomicfile.DefaultStale.
const StaleEnv = "HEES_LOCK_STALE"

// heldLock is the lock of a run, held.
type heldLock interface {
	check() error  // still held (a lock file can be broken)
	unlock() error // release
}

// flockHeld is a flock(2) lock, which the system releases when its holder
// dies and which nobody breaks.
type flockHeld struct{ release func() error }

func (f flockHeld) check() error  { return nil }
func (f flockHeld) unlock() error { return f.release() }

// fileHeld is a lock file (atomicfile.FileLock).
type fileHeld struct{ l *atomicfile.FileLock }

func (f fileHeld) check() error  { return f.l.Check() }
func (f fileHeld) unlock() error { return f.l.Unlock() }

// LockPath is the lock file of the run at path under its lock mode: flock
// on path.lock, the lock-file protocol on path.lk.
func LockPath(path, mode string) string {
	if mode == LockFile {
		return path + ".lk"
	}
	return path + ".lock"
}

// lock takes the run's lock of mode, calling st.Waiting when it is held
// long by another.
func (st Store) lock(ctx context.Context, mode string) (heldLock, error) {
	path := LockPath(st.Path, mode)
	if mode == LockFile {
		stale := st.Stale
		if stale == 0 {
			stale, _ = time.ParseDuration(os.Getenv(StaleEnv))
		}
		l, err := atomicfile.LockFile(ctx, path, atomicfile.FileLockOptions{
			Stale: stale, Holder: Self(0).String(), Waiting: st.waiting(path), NoticeAfter: LockNoticeAfter,
			Broke: func(holder string) {
				if st.Warn != nil {
					st.Warn(fmt.Sprintf("broke the stale lock %s of %s (unchanged for the stale bound)", path, holder))
				}
			}})
		if err != nil {
			return nil, err
		}
		return fileHeld{l}, nil
	}
	if st.Waiting != nil {
		var (
			mu   sync.Mutex
			done bool
		)
		stop := afterFunc(LockNoticeAfter, func() {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				st.Waiting(path, "another hees process (flock(2): its holder is not recorded)")
			}
		})
		defer func() {
			mu.Lock()
			done = true
			mu.Unlock()
			stop()
		}()
	}
	release, err := atomicfile.Lock(ctx, path)
	if err != nil {
		return nil, err
	}
	return flockHeld{release}, nil
}

// ChooseLock returns the lock for a new run at path: mode itself when it
// is LockFlock or LockFile, and for "auto" flock where the file system
// takes flock locks and the lock-file protocol where it refuses them.
func ChooseLock(path, mode string) (string, error) {
	if err := CheckLockMode(mode); err != nil {
		return "", err
	}
	if mode == LockFlock || mode == LockFile {
		return mode, nil
	}
	ok, err := atomicfile.FlockWorks(LockPath(path, LockFlock))
	if err != nil {
		return "", err
	}
	if ok {
		return LockFlock, nil
	}
	return LockFile, nil
}

// CheckLockMode reports a mode that is none of auto (or ""), LockFlock
// and LockFile, without touching any file: hees init checks it with its
// other flags, and probes the file system (ChooseLock) only once they are
// all good, so that a usage error leaves no lock file behind.
func CheckLockMode(mode string) error {
	switch mode {
	case "auto", "", LockFlock, LockFile:
		return nil
	}
	return fmt.Errorf("lock %q: want auto, %s or %s", mode, LockFlock, LockFile)
}

// Self is the Holder that this process is, in worker slot slot: its host
// name, process ID and Slurm job (SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID
// for a task of an array, else SLURM_JOB_ID).
func Self(slot int) Holder {
	host, _ := os.Hostname()
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	if len(host) > 255 {
		host = host[:255]
	}
	job := os.Getenv("SLURM_JOB_ID")
	if a, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); a != "" && t != "" {
		job = a + "_" + t
	}
	if len(job) > 64 {
		job = job[:64]
	}
	return Holder{Host: host, PID: os.Getpid(), Job: job, Slot: slot}
}

// waiting is st.Waiting for the lock file path, or nil.
func (st Store) waiting(path string) func(holder string) {
	if st.Waiting == nil {
		return nil
	}
	return func(holder string) { st.Waiting(path, holder) }
}
