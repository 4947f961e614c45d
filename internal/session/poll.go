package session

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Bounds of a Poller's wait between two looks at the journal: from pollMin,
// doubling while nothing changes, up to PollMax, which bounds how late an
// idle worker notices a candidate to claim.
const (
	pollMin = time.Millisecond
	PollMax = 100 * time.Millisecond
)

// Poller waits, without the lock, for the run of its Store to offer a
// candidate to claim, or to record a stop. It looks at the journal (a stat,
// and the records appended since its last look) from 1 ms to PollMax
// apart, doubling the wait while nothing claimable appears, and never past
// the next lease expiry; a new batch (a fold renames the new journal into
// place) wakes it at once on Linux when the fold happened on this machine
// (inotify). On a local file system a look is a stat of the journal, and
// a read when it grew; elsewhere every look opens the journal, which on NFS
// revalidates what the client caches (close-to-open consistency).
type Poller struct {
	Store Store
	// Idle, when not nil, is called with what the wait is for, once the
	// poller has waited IdleAfter without a candidate, and again every
	// IdleAfter while it goes on.
	Idle      func(what string)
	IdleAfter time.Duration
	// Max is the longest wait between two looks, 0: PollMax. Hundreds of
	// idle workers on a shared file system each look up to 1/Max times a
	// second; a longer Max lightens the file server at the cost of a later
	// start of the next generation on other machines.
	Max time.Duration

	backoff time.Duration
	since   time.Time // when the wait started
	said    time.Time // when Idle was last called
	epoch   uint64    // the batch as last looked at
	notify  *notifier
	tried   bool
}

// Close releases what the poller holds.
func (p *Poller) Close() {
	if p.notify != nil {
		p.notify.close()
		p.notify = nil
	}
}

// Wait returns when a claim may find a candidate or the run has stopped,
// or with ctx's error.
func (p *Poller) Wait(ctx context.Context) error {
	if p.backoff == 0 {
		p.backoff = pollMin
	}
	if !p.tried {
		p.tried = true
		p.notify = newNotifier(JournalPath(p.Store.Path))
	}
	if p.since.IsZero() {
		p.since = time.Now()
		p.said = p.since
	}
	var expiry time.Time
	for {
		delay := p.backoff
		if !expiry.IsZero() {
			delay = min(delay, max(time.Until(expiry), 0))
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for a candidate: %w", err)
		}
		if p.notify != nil {
			p.notify.wait(delay)
		} else {
			timer := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				timer.Stop()
				return fmt.Errorf("waiting for a candidate: %w", ctx.Err())
			case <-timer.C:
			}
		}
		limit := p.Max
		if limit <= 0 {
			limit = PollMax
		}
		p.backoff = min(2*p.backoff, limit)
		var (
			ready bool
			what  string
		)
		now := time.Now()
		err := p.Store.peek(func(v *View) {
			ready = v.StopReason() != "" || v.claimable(now, p.Store.own(v)) > 0
			if v.Epoch != p.epoch {
				p.epoch, p.backoff = v.Epoch, pollMin
			}
			expiry, _ = v.NextExpiry(now)
			if p.Idle != nil && p.IdleAfter > 0 && now.Sub(p.said) >= p.IdleAfter {
				what = waitingFor(v, now)
			}
		})
		if errors.Is(err, errStale) {
			return nil // a fold under way: the claim waits for its lock
		}
		if err != nil {
			return err
		}
		if ready {
			p.backoff, p.since = pollMin, time.Time{}
			return nil
		}
		if what != "" {
			p.said = now
			p.Idle(what)
		}
	}
}

// waitingFor says what a worker that finds no candidate waits for.
func waitingFor(v *View, now time.Time) string {
	if v.b.done() {
		return fmt.Sprintf("generation %d is complete and waits for its fold (by the process that told its last value)", v.Header.Gen)
	}
	n := v.Leased(now)
	next, ok := v.NextExpiry(now)
	if !ok {
		return fmt.Sprintf("generation %d: %d of %d candidates told, none claimable", v.Header.Gen, v.NumTold(), v.Rows())
	}
	var first Lease
	for _, l := range v.b.leases {
		if l.Until == next.UnixNano() {
			first = l
			break
		}
	}
	return fmt.Sprintf("generation %d: %d of %d candidates told, the other %d leased; the next lease to expire is %s's, in %v",
		v.Header.Gen, v.NumTold(), v.Rows(), n, first.Holder, next.Sub(now).Round(time.Second))
}

// afterFunc calls f after d unless the returned stop is called first.
func afterFunc(d time.Duration, f func()) (stop func()) {
	t := time.AfterFunc(d, f)
	return func() { t.Stop() }
}
