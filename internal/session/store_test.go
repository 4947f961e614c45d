package session

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
)

// newStore creates the state file of newSession in a temporary directory.
func newStore(t *testing.T, retries int, onError es.OnError) Store {
	t.Helper()
	st := Store{Path: filepath.Join(t.TempDir(), "run.hees"), Waiting: func(string, string) { t.Error("Waiting called with the lock free") }}
	if err := st.Create(context.Background(), newSession(t, retries, onError), false); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStoreMissing(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "none.hees")}
	ctx := context.Background()
	var me *MissingError
	if _, err := st.Load(); !errors.As(err, &me) || me.Path != st.Path {
		t.Errorf("Load: %v, want a *MissingError", err)
	}
	if _, err := st.Claim(ctx, nil, nil, 1, time.Hour, Holder{}); !errors.As(err, &me) || !strings.Contains(err.Error(), "create it with hees init") {
		t.Errorf("Claim: %v, want a *MissingError", err)
	}
	if _, err := os.Lstat(st.Path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing state file got a lock file: %v", err)
	}
	if err := st.Create(ctx, newSession(t, 0, es.OnErrorStop), false); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, newSession(t, 0, es.OnErrorStop), false); err == nil || !strings.Contains(err.Error(), "use -force") {
		t.Errorf("Create over an existing file: %v", err)
	}
	if err := st.Create(ctx, newSession(t, 0, es.OnErrorStop), true); err != nil {
		t.Errorf("Create with force: %v", err)
	}
}

func TestStoreTellClaim(t *testing.T) {
	st := newStore(t, 1, es.OnErrorWorst)
	ctx := context.Background()
	c, err := st.Claim(ctx, nil, nil, 2, time.Hour, Holder{})
	if err != nil || len(c.Candidates) != 2 || c.Stop != "" || len(c.Bad) != 0 {
		t.Fatalf("Claim = %+v, %v", c, err)
	}
	first := c.Candidates[0]
	if first.ID.Row != 0 || len(first.X) != 3 {
		t.Fatalf("first candidate %+v", first)
	}
	// The value of row 0 told with the next claim is applied, and row 0's
	// lease ends with it; a conflicting tell blocks and is not applied.
	c, err = st.Claim(ctx, []Line{ValueLine(first.ID, 2.5)}, nil, 1, time.Hour, Holder{})
	if err != nil || len(c.Candidates) != 1 || c.Candidates[0].ID.Row != 2 {
		t.Fatalf("Claim with a told value = %+v, %v", c, err)
	}
	bad, err := st.Tell(ctx, []Line{ValueLine(first.ID, 3)}, nil)
	if err != nil || !Blocking(bad) || len(bad) != 1 || bad[0].Problem != Conflict {
		t.Fatalf("Tell of another value = %v, %v", bad, err)
	}
	ss, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := ss.Told(0); !ok || v != 2.5 || ss.NumTold() != 1 || ss.Leased(time.Now()) != 2 {
		t.Fatalf("after the tells: row 0 told %v, %v; %d told, %d leased", v, ok, ss.NumTold(), ss.Leased(time.Now()))
	}
	if p := ss.Pending(); len(p) != 6 || p[0].ID != ss.ID(1) || &p[0].X[0] != &ss.Candidate(1)[0] {
		t.Errorf("Pending = %+v, want rows 1 to 6", p)
	}
	// Renew reports the told row as no longer pending; Release gives a
	// lease back without a failed attempt; a failure costs one.
	pending, err := st.Renew(ctx, []ID{first.ID, c.Candidates[0].ID}, nil, time.Hour, Holder{})
	if err != nil || pending[0] || !pending[1] {
		t.Fatalf("Renew = %v, %v", pending, err)
	}
	if err := st.Release(ctx, []ID{c.Candidates[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
	bad, err = st.Tell(ctx, []Line{FailedLine(ss.ID(1))}, nil)
	if err != nil || len(bad) != 0 {
		t.Fatalf("Tell of a failure = %v, %v", bad, err)
	}
	if ss, err = st.Load(); err != nil {
		t.Fatal(err)
	}
	if ss.Leased(time.Now()) != 0 || ss.Attempts(1).Failed != 1 || ss.Attempts(2).Lost != 0 {
		t.Fatalf("leased %d, failures %v; want 0 and one for row 1", ss.Leased(time.Now()), ss.Attempts(1))
	}
	// A NaN is told as tell reads it.
	if l := ValueLine(ss.ID(3), math.Float64frombits(0x7ff8000000000001)); math.Float64bits(l.value) != math.Float64bits(math.NaN()) {
		t.Errorf("ValueLine of a NaN holds %x", math.Float64bits(l.value))
	}
}

// TestStoreWaiting holds the lock of a state file while a tell waits for
// it: Waiting is called once, after LockNoticeAfter, and the tell goes on
// when the lock is released.
func TestStoreWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for LockNoticeAfter")
	}
	st := newStore(t, 0, es.OnErrorStop)
	v, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	var unlock func() error
	if v.Lock == LockFile {
		l, err := atomicfile.LockFile(context.Background(), LockPath(st.Path, LockFile), atomicfile.FileLockOptions{Holder: "the test"})
		if err != nil {
			t.Fatal(err)
		}
		unlock = l.Unlock
	} else if unlock, err = atomicfile.Lock(context.Background(), st.Path+".lock"); err != nil {
		t.Skip(err) // no file locks on this system
	}
	notices := make(chan time.Time, 2)
	st.Waiting = func(string, string) { notices <- time.Now() }
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := st.Tell(context.Background(), nil, nil)
		done <- err
	}()
	select {
	case at := <-notices:
		if at.Sub(start) < LockNoticeAfter {
			t.Errorf("Waiting called after %v, before LockNoticeAfter", at.Sub(start))
		}
	case err := <-done:
		t.Fatalf("Tell ended (%v) while the lock was held", err)
	case <-time.After(3 * LockNoticeAfter):
		t.Fatal("Waiting not called")
	}
	unlock()
	if err := <-done; err != nil || len(notices) != 0 {
		t.Errorf("Tell: %v, %d more notices", err, len(notices))
	}
}

// TestPoller waits for a candidate while all are leased: Wait returns once
// the first lease expires, and with the context's error when it is done.
func TestPoller(t *testing.T) {
	st := newStore(t, 3, es.OnErrorStop)
	ctx := context.Background()
	const lease = 150 * time.Millisecond
	start := time.Now()
	if _, err := st.Claim(ctx, nil, nil, 1, lease, Holder{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, nil, nil, 99, time.Hour, Holder{}); err != nil {
		t.Fatal(err)
	}
	p := Poller{Store: st}
	if err := p.Wait(ctx); err != nil || time.Since(start) < lease {
		t.Fatalf("Wait returned %v after %v, want nil after the lease of %v", err, time.Since(start), lease)
	}
	c, err := st.Claim(ctx, nil, nil, 1, time.Hour, Holder{})
	if err != nil || len(c.Candidates) != 1 || c.Candidates[0].ID.Row != 0 {
		t.Fatalf("claim after the expiry: %+v, %v", c, err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := p.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with every candidate leased for an hour: %v, want the context's error", err)
	}
}

// TestPollerDoesNotSpin waits while the only candidates not told are the
// process's own, with leases that have run out: nothing is claimable and no
// lease expires later, and Wait must still back off between its looks (it
// once took that for an expiry long past, and looked without pause).
func TestPollerDoesNotSpin(t *testing.T) {
	st := newStore(t, 3, es.OnErrorStop)
	ctx := context.Background()
	c, err := st.Claim(ctx, nil, nil, 99, time.Millisecond, Holder{})
	if err != nil || len(c.Candidates) == 0 {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	time.Sleep(5 * time.Millisecond)
	var asked atomic.Int64
	st.Own = func(ID) bool { asked.Add(1); return true }
	p := Poller{Store: st}
	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := p.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with every candidate the process's own: %v, want the context's error", err)
	}
	// From 1 ms, doubling up to PollMax: about 9 looks in 300 ms.
	if looks := asked.Load() / int64(len(c.Candidates)); looks > 20 {
		t.Errorf("%d looks at the journal in %v, want at most 20 (a wait that backs off)", looks, wait)
	}
}

// TestClaimWait claims all candidates, then waits for the one whose lease
// expires first; without wait it returns nothing at once.
func TestClaimWait(t *testing.T) {
	st := newStore(t, 3, es.OnErrorStop)
	ctx := context.Background()
	const lease = 150 * time.Millisecond
	start := time.Now()
	if c, err := st.ClaimWait(ctx, 1, lease, Holder{}, true); err != nil || len(c.Candidates) != 1 {
		t.Fatalf("ClaimWait of a fresh run = %+v, %v", c, err)
	}
	if _, err := st.Claim(ctx, nil, nil, 99, time.Hour, Holder{}); err != nil {
		t.Fatal(err)
	}
	if c, err := st.ClaimWait(ctx, 1, time.Hour, Holder{}, false); err != nil || len(c.Candidates) != 0 || c.Stop != "" {
		t.Errorf("ClaimWait without wait, all leased = %+v, %v; want nothing", c, err)
	}
	c, err := st.ClaimWait(ctx, 1, time.Hour, Holder{}, true)
	if err != nil || len(c.Candidates) != 1 || c.Candidates[0].ID.Row != 0 || time.Since(start) < lease {
		t.Fatalf("ClaimWait = %+v, %v after %v; want row 0 after its lease of %v", c, err, time.Since(start), lease)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := st.ClaimWait(short, 1, time.Hour, Holder{}, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ClaimWait with every candidate leased for an hour: %v, want the context's error", err)
	}
}
