package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hees-dev/hees/internal/session"
)

// lockNoticeAfter is how long a command waits for the lock of a state file
// before it says what it waits for.
const lockNoticeAfter = 3 * time.Second

// withStateLock is session.WithLock that, when the lock is still held by
// another process after lockNoticeAfter, prints one line on stderr naming
// the lock file, and goes on waiting (until ctx is done: Ctrl-C).
func withStateLock(ctx context.Context, name string, stderr io.Writer, path string, fn func() error) error {
	var (
		mu      sync.Mutex
		stopped bool
	)
	timer := time.AfterFunc(lockNoticeAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			fmt.Fprintf(stderr, "%s: waiting for %s.lock, held by another hees process using %s (Ctrl-C to stop waiting)\n", name, path, path)
		}
	})
	stop := func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		timer.Stop()
	}
	defer stop()
	return session.WithLock(ctx, path, func() error {
		stop()
		return fn()
	})
}
