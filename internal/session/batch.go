package session

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
)

// maxWhy bounds the reason of a failed attempt that a journal keeps.
const maxWhy = 200

// Holder is who holds a lease: a machine, a process on it, the Slurm job
// it runs in (SLURM_JOB_ID, or SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID for a
// task of an array) and the worker slot of that process (HEES_WORKER). The
// zero Holder is someone unnamed: a hand-written claim of an old version.
type Holder struct {
	Host string `json:"n,omitempty"`
	PID  int    `json:"p,omitempty"`
	Job  string `json:"j,omitempty"`
	Slot int    `json:"w,omitempty"`
}

// String names the holder in a message: "node12 pid 4242 job 777 worker 3".
func (h Holder) String() string {
	if h == (Holder{}) {
		return "an unnamed holder"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s pid %d", h.Host, h.PID)
	if h.Job != "" {
		fmt.Fprintf(&b, " job %s", h.Job)
	}
	fmt.Fprintf(&b, " worker %d", h.Slot)
	return b.String()
}

// check reports a holder that no process writes.
func (h Holder) check() error {
	if len(h.Host) > 255 || len(h.Job) > 64 || h.PID < 0 || h.Slot < 0 || h.Slot > maxSlot {
		return fmt.Errorf("bad holder %+v", h)
	}
	return nil
}

// Lease is a lease of a candidate (or of a worker slot): who holds it and
// until when, in Unix nanoseconds of the wall clock.
type Lease struct {
	Until  int64  `json:"u"`
	Holder Holder `json:"h"`
}

// Expiry is Until as a time.
func (l Lease) Expiry() time.Time { return time.Unix(0, l.Until) }

// maxLeaseNanos bounds a lease's end: far below the overflow of Unix
// nanoseconds in 2262.
const maxLeaseNanos = math.MaxInt64 / 2

// MaxLease is the longest lease a claim may take: 10 years. Longer ones
// are a usage error (hees ask -claim -lease, hees worker -lease): added to
// the time in Unix nanoseconds they would overflow.
const MaxLease = 10 * 365 * 24 * time.Hour

// MinLease is the shortest lease a claim may take: a shorter one expires
// before the claim is written (a claim and a renewal each write the
// journal), and hees worker renews its lease every third of it.
const MinLease = 10 * time.Millisecond

// CheckLease reports a lease shorter than MinLease or longer than
// MaxLease.
func CheckLease(lease time.Duration) error {
	if lease < MinLease || lease > MaxLease {
		return fmt.Errorf("-lease %v: want a duration from %v to %v (10 years)", lease, MinLease, MaxLease)
	}
	return nil
}

// leaseEnd is now + lease in Unix nanoseconds, capped (CheckLease refuses
// longer leases before any is taken).
func leaseEnd(now time.Time, lease time.Duration) int64 {
	return min(now.Add(min(lease, MaxLease)).UnixNano(), maxLeaseNanos)
}

// Attempts is what happened to one candidate of the current batch besides
// its value: failed evaluations, leases that expired, and why the last
// attempt failed.
type Attempts struct {
	Failed int    `json:"failed,omitempty"` // told "failed"
	Lost   int    `json:"lost,omitempty"`   // leases that expired
	Why    string `json:"why,omitempty"`    // the last failure: its message, or the lost lease's holder
}

// batch is the state of the current batch of a run, the part that changes
// between two generations: what its journal records. Its methods apply one
// operation each, deterministically, so that replaying a journal gives the
// state its writers saw.
type batch struct {
	rows     int
	told     map[int]float64
	leases   map[int]Lease
	attempts map[int]Attempts
	slots    map[int]Lease // worker slots (HEES_WORKER), which outlive a batch

	// Of the run, fixed for the batch:
	retries, lostLeases int
	onError             es.OnError

	// stop is set when an attempt beyond the limits stops the run: the
	// batch is then to be abandoned (Session.fold).
	stop       es.Reason
	stopDetail string
	stopRow    int
}

// newBatch returns the empty batch of rows candidates.
func newBatch(rows, retries, lostLeases int, onError es.OnError, slots map[int]Lease) *batch {
	if slots == nil {
		slots = map[int]Lease{}
	}
	return &batch{rows: rows, told: map[int]float64{}, leases: map[int]Lease{}, attempts: map[int]Attempts{},
		slots: slots, retries: retries, lostLeases: lostLeases, onError: onError}
}

// complete reports whether every candidate has its value.
func (b *batch) complete() bool { return b.rows > 0 && len(b.told) == b.rows }

// done reports whether the batch is to be folded: complete, or stopped.
func (b *batch) done() bool { return b.complete() || b.stop != "" }

// inRange reports a row the batch does not have.
func (b *batch) inRange(row int) error {
	if row < 0 || row >= b.rows {
		return fmt.Errorf("row %d is not one of the %d of the batch", row, b.rows)
	}
	return nil
}

// pending reports a row that is out of range or told already.
func (b *batch) pending(row int) error {
	if err := b.inRange(row); err != nil {
		return err
	}
	if _, told := b.told[row]; told {
		return fmt.Errorf("row %d is told already", row)
	}
	return nil
}

// value tells row its value v, which ends its lease.
func (b *batch) value(row int, v float64) error {
	if err := b.pending(row); err != nil {
		return err
	}
	b.told[row] = v
	delete(b.leases, row)
	return nil
}

// fail counts a failed evaluation of row (why: its error), whose lease
// ends, and applies the failure policy beyond the retries.
func (b *batch) fail(row int, why string) error {
	if err := b.pending(row); err != nil {
		return err
	}
	delete(b.leases, row)
	a := b.attempts[row]
	a.Failed++
	a.Why = clip(why)
	b.attempts[row] = a
	if a.Failed > b.retries {
		b.policy(row, es.ReasonObjectiveError, fmt.Sprintf("failed %d times (retries %d); last: %s", a.Failed, b.retries, a.Why))
	}
	return nil
}

// expire counts the lease of row, expired at now, as lost, and applies the
// failure policy beyond the run's lost leases.
func (b *batch) expire(row int, now int64) error {
	if err := b.pending(row); err != nil {
		return err
	}
	l, leased := b.leases[row]
	if !leased || l.Until > now {
		return fmt.Errorf("row %d has no lease expired at %d", row, now)
	}
	delete(b.leases, row)
	a := b.attempts[row]
	a.Lost++
	a.Why = clip(fmt.Sprintf("lease of %s expired at %s", l.Holder, l.Expiry().UTC().Format(time.RFC3339)))
	b.attempts[row] = a
	if a.Lost > b.lostLeases {
		b.policy(row, es.ReasonLeasesLost, fmt.Sprintf("lost its lease %d times (lost leases allowed %d); last: %s", a.Lost, b.lostLeases, a.Why))
	}
	return nil
}

// policy applies the failure policy to row, which exceeded a limit: NaN
// (ranked worst), or the run stops for reason.
func (b *batch) policy(row int, reason es.Reason, detail string) {
	if b.onError == es.OnErrorWorst {
		b.told[row] = math.NaN()
		return
	}
	if b.stop == "" {
		b.stop, b.stopDetail, b.stopRow = reason, detail, row
	}
}

// clip shortens a failure's message to maxWhy bytes, at a rune boundary,
// with its line breaks made spaces.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxWhy {
		return s
	}
	cut := maxWhy
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// claimable reports whether row may be claimed at now: not told, and not
// leased until after now.
func (b *batch) claimable(row int, now int64) bool {
	if _, told := b.told[row]; told {
		return false
	}
	l, leased := b.leases[row]
	return !leased || l.Until <= now
}

// expired returns the rows whose leases have expired at now, in order.
func (b *batch) expired(now int64) []int {
	var rows []int
	for row, l := range b.leases {
		if l.Until <= now {
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	return rows
}

// claim leases row to h until until; the row must be claimable at now.
func (b *batch) claim(row int, now, until int64, h Holder) error {
	if err := b.pending(row); err != nil {
		return err
	}
	if !b.claimable(row, now) || until <= now {
		return fmt.Errorf("row %d is not claimable at %d until %d", row, now, until)
	}
	b.leases[row] = Lease{Until: until, Holder: h}
	return nil
}

// renew extends the leases of rows that are pending to until, for h; a
// lease that h's process held already keeps its holder (the worker slot of
// the loop that claimed it), since one renewal serves all the loops of a
// process.
func (b *batch) renew(rows []int, until int64, h Holder) error {
	for _, row := range rows {
		if err := b.pending(row); err != nil {
			return err
		}
		holder := h
		if old, ok := b.leases[row]; ok && old.Holder.Host == h.Host && old.Holder.PID == h.PID && old.Holder.Job == h.Job {
			holder = old.Holder
		}
		b.leases[row] = Lease{Until: until, Holder: holder}
	}
	return nil
}

// release ends the leases of rows without counting an attempt.
func (b *batch) release(rows []int) error {
	for _, row := range rows {
		if err := b.inRange(row); err != nil {
			return err
		}
		delete(b.leases, row)
	}
	return nil
}

// maxSlot bounds a worker slot.
const maxSlot = 1 << 20

// takeSlots leases the n lowest slots free at now to h until until.
func (b *batch) takeSlots(n int, now, until int64, h Holder) []int {
	var got []int
	for slot := 0; len(got) < n && slot <= maxSlot; slot++ {
		if l, ok := b.slots[slot]; ok && l.Until > now {
			continue
		}
		got = append(got, slot)
	}
	for _, slot := range got {
		b.slots[slot] = Lease{Until: until, Holder: h}
	}
	return got
}

// setSlots leases slots to h until until (the replay of takeSlots and of a
// renewal), or with until 0 frees them.
func (b *batch) setSlots(slots []int, until int64, h Holder) error {
	for _, slot := range slots {
		if slot < 0 || slot > maxSlot {
			return fmt.Errorf("slot %d out of range", slot)
		}
		if until == 0 {
			delete(b.slots, slot)
			continue
		}
		b.slots[slot] = Lease{Until: until, Holder: h}
	}
	return nil
}

// liveSlots returns the slots leased after now.
func (b *batch) liveSlots(now int64) map[int]Lease {
	live := map[int]Lease{}
	for slot, l := range b.slots {
		if l.Until > now {
			live[slot] = l
		}
	}
	return live
}

// clone returns a deep copy of b.
func (b *batch) clone() *batch {
	c := *b
	c.told, c.leases, c.attempts, c.slots = maps.Clone(b.told), maps.Clone(b.leases), maps.Clone(b.attempts), maps.Clone(b.slots)
	return &c
}
