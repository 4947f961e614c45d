//go:build unix && !solaris && !aix

package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestLockExcludesSecondHolder(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "run.lock")
	unlock, err := Lock(context.Background(), lockPath)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if second, err := Lock(ctx, lockPath); err == nil {
		second()
		t.Fatal("second Lock succeeded while the first was held")
	} else if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), lockPath) {
		t.Errorf("second Lock: got %v, want a deadline error naming %s", err, lockPath)
	}

	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err == nil || !strings.Contains(err.Error(), "already unlocked") {
		t.Errorf("second unlock: got %v, want an already-unlocked error", err)
	}
	again, err := Lock(context.Background(), lockPath)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockPath); err != nil {
		t.Errorf("lock file should stay in place: %v", err)
	}
}

func TestLockWaitsForRelease(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "run.lock")
	unlock, err := Lock(context.Background(), lockPath)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		second, err := Lock(context.Background(), lockPath)
		select {
		case <-released:
		default:
			err = errors.New("second Lock returned before the first holder released")
		}
		if second != nil {
			second()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the second Lock find the lock held
	close(released)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Error(err)
	}
}

func TestLockBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "run.lock")
	if _, err := Lock(context.Background(), missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock in a missing directory: got %v, want a not-exist error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, filepath.Join(dir, "run.lock")); !errors.Is(err, context.Canceled) {
		t.Errorf("lock with a canceled context: got %v, want context.Canceled", err)
	}
}

// The counter tests increment a counter file 8 x 50 times under the lock,
// rewriting it non-atomically: a lost update or a torn read would show as
// a final count below 400 or as an error.
const (
	counterWorkers    = 8
	counterIncrements = 50
)

func readCounter(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLockCounterGoroutines(t *testing.T) {
	dir := t.TempDir()
	lockPath, counter := filepath.Join(dir, "count.lock"), filepath.Join(dir, "count")
	var wg sync.WaitGroup
	errs := make(chan error, counterWorkers)
	for range counterWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range counterIncrements {
				if err := increment(lockPath, counter); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := readCounter(t, counter); n != counterWorkers*counterIncrements {
		t.Errorf("count %d, want %d", n, counterWorkers*counterIncrements)
	}
}

func TestLockCounterProcesses(t *testing.T) {
	dir := t.TempDir()
	lockPath, counter := filepath.Join(dir, "count.lock"), filepath.Join(dir, "count")
	var wg sync.WaitGroup
	errs := make(chan error, counterWorkers)
	for range counterWorkers {
		cmd, stderr := helperCommand(t, helperModeEnv+"=count", helperPathEnv+"="+lockPath,
			helperDataEnv+"="+counter, helperCountEnv+"="+strconv.Itoa(counterIncrements))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs <- errors.New("counter process: " + err.Error() + ": " + stderr.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := readCounter(t, counter); n != counterWorkers*counterIncrements {
		t.Errorf("count %d, want %d", n, counterWorkers*counterIncrements)
	}
}

// TestLockReleasedWhenHolderKilled: a holder killed with SIGKILL leaves no
// stale lock.
func TestLockReleasedWhenHolderKilled(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "run.lock")
	cmd, stderr := helperCommand(t, helperModeEnv+"=hold", helperPathEnv+"="+lockPath)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("holder said %q, %v; stderr: %s", line, err, stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if unlock, err := Lock(ctx, lockPath); err == nil {
		unlock()
		t.Error("Lock succeeded while the holder process was alive")
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // reports the kill, which is expected
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := Lock(ctx, lockPath)
	if err != nil {
		t.Fatalf("lock of a killed holder not released: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

// TestLockRefusedByFileSystem plays a file system that refuses flock(2)
// (ENOLCK, as NFS without a lock manager, and EOPNOTSUPP): Lock fails at
// once with an error naming the file and what the file system must
// provide, and does not wait for the context.
func TestLockRefusedByFileSystem(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOLCK, syscall.EOPNOTSUPP} {
		real := flock
		flock = func(fd, how int) error { return errno }
		lockPath := filepath.Join(t.TempDir(), "run.lock")
		start := time.Now()
		unlock, err := Lock(context.Background(), lockPath)
		flock = real
		if err == nil {
			unlock()
			t.Fatalf("%v: Lock succeeded", errno)
		}
		if !errors.Is(err, ErrLockUnsupported) || !strings.Contains(err.Error(), lockPath) || !strings.Contains(err.Error(), errno.Error()) ||
			!strings.Contains(err.Error(), "across every machine") {
			t.Errorf("%v: got %v, want ErrLockUnsupported naming the file and the cause", errno, err)
		}
		if waited := time.Since(start); waited > time.Second {
			t.Errorf("%v: Lock took %v to fail", errno, waited)
		}
	}
}
