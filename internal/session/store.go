package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
)

// LockNoticeAfter is how long a Store waits for the lock of its state file
// before it calls its Waiting.
const LockNoticeAfter = 3 * time.Second

// MissingError reports a state file that does not exist.
type MissingError struct{ Path string }

// Error names the file and says how to create it.
func (e *MissingError) Error() string {
	return fmt.Sprintf("state file %s does not exist (create it with hees init)", e.Path)
}

// Store is the state file of an ask/tell run at Path. Load reads it
// without the lock (a state file is replaced atomically, so it reads one
// complete version); the other methods change it under its lock file
// FILE.lock. A missing state file is a *MissingError.
type Store struct {
	Path string
	// Waiting, when not nil, is called once, from another goroutine, when
	// the lock is still held by another process LockNoticeAfter after a
	// method started to wait for it; the method goes on waiting until its
	// context is done.
	Waiting func()
}

// Load reads the state file.
func (st Store) Load() (*Session, error) {
	ss, err := Read(st.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &MissingError{st.Path}
	}
	return ss, err
}

// lock runs fn while holding the lock of the state file, under which
// every write of the state file happens.
func (st Store) lock(ctx context.Context, fn func() error) (err error) {
	if st.Waiting != nil {
		var (
			mu      sync.Mutex
			stopped bool
		)
		timer := time.AfterFunc(LockNoticeAfter, func() {
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				st.Waiting()
			}
		})
		stopNotice := func() {
			mu.Lock()
			stopped = true
			mu.Unlock()
			timer.Stop()
		}
		defer stopNotice()
		inner := fn
		fn = func() error {
			stopNotice()
			return inner()
		}
	}
	unlock, err := atomicfile.Lock(ctx, st.Path+".lock")
	if err != nil {
		return err
	}
	atomicfile.RemoveStaleTemps(st.Path) // best effort: a leftover is only clutter
	defer func() {
		if uerr := unlock(); err == nil {
			err = uerr
		}
	}()
	return fn()
}

// Create writes ss as the state file of a new run. It refuses to replace
// an existing file unless force is true.
func (st Store) Create(ctx context.Context, ss *Session, force bool) error {
	return st.lock(ctx, func() error {
		if _, err := os.Lstat(st.Path); err == nil && !force {
			return fmt.Errorf("%s exists (use -force to replace it)", st.Path)
		}
		return ss.Save(st.Path)
	})
}

// Update runs fn on the session of the state file under its lock, and
// saves the session when fn reports a change. A missing state file is
// reported before the lock is taken, which would create FILE.lock.
func (st Store) Update(ctx context.Context, fn func(*Session) (changed bool, err error)) error {
	if _, err := os.Stat(st.Path); errors.Is(err, os.ErrNotExist) {
		return &MissingError{st.Path}
	}
	return st.lock(ctx, func() error {
		ss, err := st.Load()
		if err != nil {
			return err
		}
		changed, err := fn(ss)
		if err != nil || !changed {
			return err
		}
		return ss.Save(st.Path)
	})
}

// Tell checks lines (read by ReadTold, which found the lines of bad bad)
// against the run and, unless a line blocks the tell (Blocking), applies
// them. It returns the bad lines and those that Check finds.
func (st Store) Tell(ctx context.Context, lines []Line, bad []BadLine) ([]BadLine, error) {
	err := st.Update(ctx, func(ss *Session) (bool, error) {
		told, invalid := ss.Check(lines)
		if bad = append(bad, invalid...); Blocking(bad) || len(told.Values)+len(told.Failed) == 0 {
			return false, nil // nothing to apply, or bad lines: apply nothing
		}
		return true, ss.Apply(told)
	})
	return bad, err
}

// Candidate is a candidate leased by a claim.
type Candidate struct {
	ID ID
	X  []float64
}

// Claimed is the outcome of Store.Claim.
type Claimed struct {
	Candidates []Candidate // the candidates leased to the caller
	Stop       es.Reason   // the stop of the run, "" while it goes on
	Bad        []BadLine   // the problems of the lines told
}

// Claim applies the told lines (none: nil) unless one of them blocks,
// expires the leases that have run out, and leases up to n candidates to
// the caller for lease. The state file is written only when something
// changed.
func (st Store) Claim(ctx context.Context, told []Line, n int, lease time.Duration) (Claimed, error) {
	var c Claimed
	err := st.Update(ctx, func(ss *Session) (bool, error) {
		if len(told) > 0 {
			var t Told
			if t, c.Bad = ss.Check(told); !Blocking(c.Bad) {
				if err := ss.Apply(t); err != nil {
					return false, err
				}
			}
		}
		now := time.Now()
		expired, err := ss.Expire(now)
		if err != nil {
			return false, err
		}
		rows := ss.claim(now, n, lease)
		for _, row := range rows {
			c.Candidates = append(c.Candidates, Candidate{ss.ID(row), slices.Clone(ss.Candidate(row))})
		}
		c.Stop = ss.File.Stop
		return len(told) > 0 || len(rows) > 0 || expired > 0, nil
	})
	return c, err
}

// ClaimWait claims up to n candidates, as Claim does with no told lines.
// With wait, while none can be claimed and the run goes on, it waits for
// one with a Poller and claims again.
func (st Store) ClaimWait(ctx context.Context, n int, lease time.Duration, wait bool) (Claimed, error) {
	poll := Poller{Path: st.Path}
	for {
		got, err := st.Claim(ctx, nil, n, lease)
		if err != nil || len(got.Candidates) > 0 || got.Stop != "" || !wait {
			return got, err
		}
		if err := poll.Wait(ctx); err != nil {
			return got, err
		}
	}
}

// Renew renews the leases of ids for lease and reports which are still
// pending.
func (st Store) Renew(ctx context.Context, ids []ID, lease time.Duration) ([]bool, error) {
	var pending []bool
	err := st.Update(ctx, func(ss *Session) (bool, error) {
		pending = ss.Renew(time.Now(), ids, lease)
		return true, nil
	})
	return pending, err
}

// Release gives the leases of ids back without counting a failed attempt.
func (st Store) Release(ctx context.Context, ids []ID) error {
	return st.Update(ctx, func(ss *Session) (bool, error) {
		ss.Release(ids)
		return true, nil
	})
}

// pollMin and pollMax bound the wait of a Poller between two looks at the
// state file.
const (
	pollMin = 50 * time.Millisecond
	pollMax = 2 * time.Second
)

// Poller waits, without the lock, for the state file at Path to offer a
// candidate to claim, or to record a stop: it looks at the file from 50 ms
// to 2 s apart (doubling while it does not change, and never past the next
// lease expiry), reading it only when it has changed.
type Poller struct {
	Path string

	backoff time.Duration
	last    os.FileInfo
}

// Wait returns when a claim may find a candidate or the run has stopped,
// or with ctx's error.
func (p *Poller) Wait(ctx context.Context) error {
	if p.backoff == 0 {
		p.backoff = pollMin
	}
	var expiry time.Time
	for {
		delay := p.backoff
		if !expiry.IsZero() {
			delay = min(delay, max(time.Until(expiry), 0))
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("waiting for a candidate: %w", ctx.Err())
		case <-timer.C:
		}
		p.backoff = min(2*p.backoff, pollMax)
		info, err := openStat(p.Path)
		if err != nil {
			return err
		}
		changed := p.last == nil || !os.SameFile(info, p.last) || !info.ModTime().Equal(p.last.ModTime())
		if !changed && (expiry.IsZero() || time.Now().Before(expiry)) {
			continue
		}
		p.last = info
		ss, err := Store{Path: p.Path}.Load()
		if err != nil {
			return err
		}
		now := time.Now()
		if ss.File.Stop != "" || ss.Claimable(now) > 0 {
			p.backoff = pollMin
			return nil
		}
		if changed {
			p.backoff = pollMin // the run moves: look again soon
		}
		expiry, _ = ss.NextExpiry(now)
	}
}

// openStat returns the FileInfo of the file at path through an open file:
// on NFS, opening revalidates the cached attributes (close-to-open
// consistency), which a stat alone may not do for up to a minute.
func openStat(path string) (os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
