package atomicfile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of FileLockOptions.
const (
	// DefaultStale is how long a lock file must stay unchanged, as seen by
	// a waiter, before the waiter breaks it: 5 heartbeats of its holder
	// missed.
	DefaultStale = 10 * time.Second
	// fileLockMaxBackoff caps the wait between two attempts to create a
	// held lock file; each attempt is a file creation, a round trip to the
	// server on a network file system.
	fileLockMaxBackoff = 50 * time.Millisecond
)

// ErrLockLost is wrapped by the errors of FileLock.Check and Unlock when the
// lock file is no longer the holder's: a waiter took it for stale (the
// holder was stopped, or its heartbeat did not reach the file server, for
// longer than the stale bound) and broke it.
var ErrLockLost = errors.New("the lock file was broken by another process: the lock was lost")

// FileLockOptions are the settings of LockFile.
type FileLockOptions struct {
	// Stale is how long a waiter watches a lock file stay unchanged (by its
	// own monotonic clock, so the clocks of the machines need not agree)
	// before it breaks the lock; 0 means DefaultStale.
	Stale time.Duration
	// Holder names the holder in the lock file, for the messages of the
	// waiters. When it starts with "HOST pid PID" (as hees writes it), a
	// waiter on the same host breaks the lock at once when no process PID
	// exists: its holder was killed. Hosts must then have distinct names
	// (containers that share a host name but not their process IDs must
	// not share a lock file).
	Holder string
	// Waiting, when not nil, is called once, when the lock has been held by
	// another for NoticeAfter, with what the lock file says of its holder.
	Waiting     func(holder string)
	NoticeAfter time.Duration
	// Broke, when not nil, is called when a stale lock is broken, with the
	// holder it named.
	Broke func(holder string)
}

// FileLock is an exclusive lock held by the existence of a lock file, for
// file systems whose flock(2) does not work across machines: an NFS mount
// without a lock manager, Lustre or BeeGFS without global locks. Creating a
// file with O_CREAT|O_EXCL is atomic on local file systems and on NFS from
// version 3 on.
//
// The lock file holds a line "hees-lock TOKEN BEAT HOLDER": a random token
// that names this holding, a heartbeat count that the holder rewrites
// every fifth of the stale bound while it holds the lock, and who holds
// it. A waiter that sees the file unchanged for the stale bound breaks
// the lock: it renames the file to a name of its own, checks that what it
// renamed is the holding it watched (if a new holder took the lock in
// between, it puts that file back with link(2), which fails rather than
// replace a file), and removes it. A holder that was stopped longer than
// the stale bound finds its lock broken when it checks (Check, before it
// writes) or releases it (Unlock): both then return an error wrapping
// ErrLockLost.
type FileLock struct {
	path  string
	token string
	stale time.Duration

	mu   sync.Mutex
	f    *os.File
	beat int
	line string
	done bool
	stop *time.Timer
}

// LockFile takes the lock of the lock file at path, waiting with a backoff
// from 1 ms to 50 ms while another holds it, until ctx is done (its error
// is then wrapped).
func LockFile(ctx context.Context, path string, opt FileLockOptions) (*FileLock, error) {
	if opt.Stale <= 0 {
		opt.Stale = DefaultStale
	}
	l := &FileLock{path: path, token: newToken(), stale: opt.Stale}
	holder := strings.Join(strings.Fields(opt.Holder), " ")
	started := time.Now()
	noticed := opt.Waiting == nil
	backoff := time.Millisecond
	var (
		seen      string    // the lock file as last seen: content and modification time
		seenSince time.Time // when it was first seen so
	)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("atomicfile: lock file %s: still held: %w", path, err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			l.f = f
			l.line = holder
			if err := l.write(); err != nil {
				f.Close()
				os.Remove(path)
				return nil, fmt.Errorf("atomicfile: lock file %s: %w", path, err)
			}
			// Under the mutex: with a short stale bound the first
			// heartbeat may run before this assignment is done.
			l.mu.Lock()
			l.stop = time.AfterFunc(l.stale/5, l.heartbeat)
			l.mu.Unlock()
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("atomicfile: lock file: %w", err)
		}
		content, mod, err := readLockFile(path)
		now := time.Now()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // released in between: try again at once
		case err != nil:
			return nil, fmt.Errorf("atomicfile: lock file: %w", err)
		}
		if key := content + "\x00" + mod.String(); key != seen {
			seen, seenSince = key, now
			if deadHolder(content) {
				seenSince = now.Add(-opt.Stale) // broken at the next look
			}
		} else if now.Sub(seenSince) >= opt.Stale {
			if breakLock(path, content) && opt.Broke != nil {
				opt.Broke(lockHolder(content))
			}
			seen = ""
			continue
		}
		if !noticed && now.Sub(started) >= opt.NoticeAfter {
			noticed = true
			opt.Waiting(lockHolder(content))
		}
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
		backoff = min(2*backoff, fileLockMaxBackoff)
	}
}

// newToken returns 16 random hexadecimal digits.
func newToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// write writes the lock file's line with the current heartbeat count, in
// place; the line only grows, so no old byte is left after it.
func (l *FileLock) write() error {
	line := fmt.Sprintf("hees-lock %s %d %s\n", l.token, l.beat, l.line)
	_, err := l.f.WriteAt([]byte(line), 0)
	return err
}

// heartbeat rewrites the lock file with the next count, flushed so that a
// waiter on another machine sees the change, every fifth of the stale
// bound until Unlock.
func (l *FileLock) heartbeat() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	l.beat++
	if l.write() == nil {
		l.f.Sync()
	}
	l.stop = time.AfterFunc(l.stale/5, l.heartbeat)
}

// readLockFile returns the content of the lock file at path (its first 4
// KiB) and its modification time.
func readLockFile(path string) (string, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", time.Time{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", time.Time{}, err
	}
	if !info.Mode().IsRegular() {
		return "", time.Time{}, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return string(b), info.ModTime(), err
}

// lockToken returns the token of the content of a lock file, "" when it
// has none (a holder that has not written its line yet).
func lockToken(content string) string {
	f := strings.Fields(content)
	if len(f) < 3 || f[0] != "hees-lock" {
		return ""
	}
	return f[1]
}

// lockHolder returns who the content of a lock file says holds it.
func lockHolder(content string) string {
	f := strings.Fields(content)
	switch {
	case len(f) > 3 && f[0] == "hees-lock":
		return strings.Join(f[3:], " ")
	case len(f) == 0:
		return "a process that has not written its name yet"
	}
	return "an unknown process"
}

// LockFileHolder returns who holds the lock file at path, and false when it
// is not held.
func LockFileHolder(path string) (string, bool) {
	content, _, err := readLockFile(path)
	if err != nil {
		return "", false
	}
	return lockHolder(content), true
}

// breakLock removes the lock file at path if it still holds content (seen
// unchanged for the stale bound), and reports whether it did.
func breakLock(path, content string) bool {
	aside := path + "." + newToken() + ".broken"
	if err := os.Rename(path, aside); err != nil {
		return false // gone already, or broken by another waiter
	}
	got, _, err := readLockFile(aside)
	if err == nil && got != content && lockToken(got) != lockToken(content) {
		// A new holder took the lock between the look and the rename: put
		// its file back, unless yet another holder has taken the name.
		os.Link(aside, path)
		os.Remove(aside)
		return false
	}
	os.Remove(aside)
	return true
}

// Check reports whether the lock is still held: the lock file is there and
// holds this holding's token. A holder checks before it writes what the
// lock protects.
func (l *FileLock) Check() error {
	content, _, err := readLockFile(l.path)
	if err != nil || lockToken(content) != l.token {
		return fmt.Errorf("atomicfile: %s: %w", l.path, ErrLockLost)
	}
	return nil
}

// Unlock releases the lock: it removes the lock file if it is still this
// holding's, and otherwise returns an error wrapping ErrLockLost. A second
// call returns an error.
func (l *FileLock) Unlock() error {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return fmt.Errorf("atomicfile: unlock %s: already unlocked", l.path)
	}
	l.done = true
	l.stop.Stop()
	l.f.Close()
	l.mu.Unlock()
	aside := l.path + "." + newToken() + ".release"
	if err := os.Rename(l.path, aside); err != nil {
		return fmt.Errorf("atomicfile: unlock %s: %w", l.path, ErrLockLost)
	}
	content, _, err := readLockFile(aside)
	if err != nil || lockToken(content) != l.token {
		os.Link(aside, l.path) // another's: put it back
		os.Remove(aside)
		return fmt.Errorf("atomicfile: unlock %s: %w", l.path, ErrLockLost)
	}
	return os.Remove(aside)
}

// FlockWorks reports whether the file system of the lock file at path
// takes flock(2) locks: false when it refuses them (ErrLockUnsupported) or
// the system has none. It creates the lock file, as Lock does.
func FlockWorks(path string) (bool, error) {
	unlock, err := Lock(context.Background(), path)
	switch {
	case errors.Is(err, ErrLockUnsupported), errors.Is(err, errors.ErrUnsupported):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, unlock()
}

// deadHolder reports whether the lock file content names a holder on this
// host whose process does not exist.
func deadHolder(content string) bool {
	f := strings.Fields(content)
	if len(f) < 6 || f[0] != "hees-lock" || f[4] != "pid" {
		return false
	}
	host, err := os.Hostname()
	if err != nil {
		return false
	}
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	pid, err := strconv.Atoi(f[5])
	if f[3] != host || err != nil || pid <= 0 {
		return false
	}
	return !processExists(pid)
}
