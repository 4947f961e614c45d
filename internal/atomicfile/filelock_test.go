package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// incrementFileLock is increment under a lock file instead of flock.
func incrementFileLock(lockPath, counter string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := LockFile(ctx, lockPath, FileLockOptions{Stale: time.Minute, Holder: "counter " + strconv.Itoa(os.Getpid())})
	if err != nil {
		return err
	}
	n := 0
	if data, err := os.ReadFile(counter); err == nil {
		if n, err = strconv.Atoi(string(data)); err != nil {
			l.Unlock()
			return fmt.Errorf("counter file holds %q: %v", data, err)
		}
	}
	if err := l.Check(); err != nil {
		l.Unlock()
		return err
	}
	if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		l.Unlock()
		return err
	}
	return l.Unlock()
}

// TestLockFileExcludes runs 4 processes of 50 increments of a counter under
// a lock file, and goroutines of this process beside them: no increment is
// lost.
func TestLockFileExcludes(t *testing.T) {
	dir := t.TempDir()
	lock, counter := filepath.Join(dir, "c.lk"), filepath.Join(dir, "c")
	const procs, n = 4, 50
	var cmds []*execCmd
	for range procs {
		cmd, stderr := helperCommand(t, helperModeEnv+"=filecount", helperPathEnv+"="+lock, helperDataEnv+"="+counter, helperCountEnv+"="+strconv.Itoa(n))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, &execCmd{cmd, stderr})
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if err := incrementFileLock(lock, counter); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("helper: %v: %s", err, c.stderr)
		}
	}
	data, _ := os.ReadFile(counter)
	if got := string(data); got != strconv.Itoa((procs+2)*n) {
		t.Errorf("counter %s, want %d", got, (procs+2)*n)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left: %v", err)
	}
}

// TestLockFileStale breaks a lock file that a killed holder left (a helper
// process SIGKILLed while it holds the lock), once it has stayed unchanged
// for the stale bound as seen by the waiter; Broke names the holder. A
// lock file whose modification time is far in the future or the past (a
// machine whose clock is off) is broken after the same wait: only changes
// count, measured by the waiter's own clock.
func TestLockFileStale(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "run.lk")
	cmd, stderr := helperCommand(t, helperModeEnv+"=filehold", helperPathEnv+"="+lock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("helper: %q, %s", line, stderr)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for _, skew := range []time.Duration{0, 48 * time.Hour, -48 * time.Hour} {
		if skew != 0 {
			os.WriteFile(lock, []byte("hees-lock 0123456789abcdef 3 far away host pid 9\n"), 0o644)
			os.Chtimes(lock, time.Now().Add(skew), time.Now().Add(skew))
		}
		const stale = 300 * time.Millisecond
		var broke []string
		start := time.Now()
		l, err := LockFile(context.Background(), lock, FileLockOptions{Stale: stale, Broke: func(h string) { broke = append(broke, h) }})
		if err != nil {
			t.Fatal(err)
		}
		waited := time.Since(start)
		if waited < stale || len(broke) != 1 || (skew == 0 && broke[0] != "helper") {
			t.Errorf("skew %v: broken after %v (stale %v), Broke %q", skew, waited, stale, broke)
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(lock, []byte("hees-lock 0123456789abcdef 3 someone\n"), 0o644) // a stale lock for the next case
	}
}

// TestLockFileHeartbeat holds a lock file for several stale bounds: its
// heartbeat keeps a waiter from breaking it, and the waiter gets it once it
// is released. A holder whose lock was broken (here by hand, as a waiter
// does when the holder was stopped past the bound) is told by Check and
// Unlock, which leave the new holder's file alone.
func TestLockFileHeartbeat(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "run.lk")
	const stale = 200 * time.Millisecond
	first, err := LockFile(context.Background(), lock, FileLockOptions{Stale: stale, Holder: "first"})
	if err != nil {
		t.Fatal(err)
	}
	var waiting []string
	got := make(chan *FileLock, 1)
	go func() {
		l, err := LockFile(context.Background(), lock, FileLockOptions{Stale: stale, Waiting: func(h string) { waiting = append(waiting, h) }, NoticeAfter: stale})
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("a live holder's lock was broken")
	case <-time.After(5 * stale):
	}
	if err := first.Check(); err != nil {
		t.Fatal(err)
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	second := <-got
	if len(waiting) != 1 || waiting[0] != "first" {
		t.Errorf("Waiting heard %q, want first once", waiting)
	}
	// Broken under the holder: the file is replaced by another's.
	os.Remove(lock)
	os.WriteFile(lock, []byte("hees-lock fedcba9876543210 0 third\n"), 0o644)
	if err := second.Check(); !errors.Is(err, ErrLockLost) {
		t.Errorf("Check of a broken lock: %v", err)
	}
	if err := second.Unlock(); !errors.Is(err, ErrLockLost) {
		t.Errorf("Unlock of a broken lock: %v", err)
	}
	if data, _ := os.ReadFile(lock); !strings.Contains(string(data), "third") {
		t.Errorf("Unlock removed another's lock file: %q", data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := LockFile(ctx, lock, FileLockOptions{Stale: time.Hour}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LockFile of a held lock with a short context: %v", err)
	}
}

// execCmd is a helper process and its stderr.
type execCmd struct {
	cmd    interface{ Wait() error }
	stderr fmt.Stringer
}

// TestLockFileDeadHolderOnThisHost breaks at once a lock file whose holder,
// named "HOST pid PID" with this machine's host name, is no process.
func TestLockFileDeadHolderOnThisHost(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	lock := filepath.Join(t.TempDir(), "run.lk")
	// A process ID above the kernel's limit (4194304 on Linux) exists nowhere.
	os.WriteFile(lock, []byte("hees-lock 0123456789abcdef 0 "+host+" pid 99999999 worker 0\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	l, err := LockFile(ctx, lock, FileLockOptions{Stale: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	// Another host's holder is waited for.
	os.WriteFile(lock, []byte("hees-lock 0123456789abcdef 0 elsewhere-"+host+" pid 99999999 worker 0\n"), 0o644)
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if _, err := LockFile(short, lock, FileLockOptions{Stale: time.Hour}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("another host's lock: %v", err)
	}
}
