// Package session keeps an ask/tell run on disk between invocations of
// hees init, ask, tell, status and worker, for any number of processes on
// any number of machines that share the files.
//
// # Storage
//
// A run is two files: the snapshot FILE (the path given to -state), which
// holds the strategy's state and what is kept of past batches, written
// once per batch; and the journal FILE.journal, which opens with the
// header of the current batch (its candidates, the run's settings and
// progress: everything but the strategy) and then grows by one small
// record per operation: a claim, a renewal, a value, a failed evaluation,
// an expired lease, a lease given back, worker slots taken. A tell or a
// claim appends a record of tens of bytes, whatever the dimension; the
// snapshot is rewritten only when a batch's last value arrives, by the
// process that tells it (the fold). Readers replay the journal; a process
// keeps what it replayed and reads only what was appended since.
//
// Crash safety: records are appended under the lock at the end of the
// last valid record and flushed to disk before the operation reports
// success; a torn record (a write cut short) is ignored, and cut off by
// the next writer; every record carries its sequence number and the epoch
// of its snapshot, so a duplicated or misplaced record is refused, never
// applied twice. A fold writes the new snapshot (atomically) before the new
// journal; a journal left behind by a fold that did not finish is
// recognised by the snapshot's size and checksum in its header and made
// anew from the snapshot, and a batch complete in its journal but not yet
// folded is folded by the next writer. The result is bit-identical to hees
// run whatever the order of the operations, as before.
//
// State files of version 2 (one file, rewritten whole for every operation)
// are read as they are, and made a snapshot and a journal by the first
// command that writes. Version 1 is refused.
//
// # Leases
//
// A claim leases pending candidates to its caller (a Holder: machine,
// process, Slurm job, worker slot) until a wall-clock time stored in the
// journal (Unix nanoseconds): the machines sharing the file must have
// clocks that agree to well within a lease. A lease that has expired is
// recorded as lost by the next claim, and its candidate is claimable
// again. Lost leases and failed evaluations are counted apart, each with
// its own limit (runspec.Spec.LostLeases and Retries); a candidate beyond
// either gets the run's failure policy: told NaN (ranked worst) with
// es.OnErrorWorst, or the run stops (es.ReasonObjectiveError, or
// es.ReasonLeasesLost) with es.OnErrorStop, and the stop says which candidate
// and why. A value told by anyone, leased or not, completes its candidate.
//
// # Commands
//
// A Session is a run in memory, with its strategy; a View is a run as the
// journal shows it, without the strategy. A Store is the run's files,
// whose methods are what the commands do, each in one locked operation:
// Create (hees init), Tell, Claim (which may tell a value first, as a
// worker does), Renew, Release and TakeSlots. A Poller waits without the
// lock for a candidate to claim. Package internal/worker evaluates
// candidates with an external program on top of these.
package session

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/statefile"
	"github.com/hees-dev/hees/linalg"
)

// Bounds of the input of tell (ReadTold), so that a wrong input ends with
// one error rather than gigabytes of memory or millions of lines of errors.
const (
	// maxLine bounds one line, which holds an ID and a value: 1 MiB leaves
	// room for any spacing.
	maxLine = 1 << 20
	// maxToldLines bounds the lines of one input: as many as the largest
	// generation has points (es allows 2^20 pairs, so 2^21 points); a
	// valid input names each point at most once.
	maxToldLines = 1 << 21
	// maxBadLines is the number of bad lines after which ReadTold stops.
	maxBadLines = 100
)

// Kind is the kind of a snapshot in its container (internal/statefile);
// the payload is the JSON of File. Version 3 keeps the current batch in
// the journal; version 2 kept it in the one file (legacy.go reads it).
const Kind = "ask-tell/v3"

// KeepGenerations is how many complete generations keep their values,
// so that a repeated tell of one of their candidates is compared with the
// value told first. A tell of an older generation is ignored unchecked.
const KeepGenerations = 16

// FailedWord is the VALUE of a tell that reports a failed evaluation.
const FailedWord = "failed"

// The locks of a run (File.Lock): flock(2) on FILE.lock, or the lock-file
// protocol of atomicfile.FileLock on FILE.lk, for file systems whose flock
// does not work across machines.
const (
	LockFlock = "flock"
	LockFile  = "file"
)

// LockEnv names the environment variable that makes LockFile the lock of
// new runs that choose none (Settings.Lock "", hees init -lock's default):
// HEES_LOCK=file runs a whole test suite without flock.
const LockEnv = "HEES_LOCK"

// maxRows bounds the rows of a batch: the largest population of a strategy
// (IPOP's cap).
const maxRows = 1 << 20

// runIDBytes is the number of random bytes of a run's identity, written as
// twice as many lowercase hexadecimal digits.
const runIDBytes = 4

// File is the payload of a snapshot. The settings of the run are its
// runspec.Spec, whose fields are written inline; the told values of past
// batches are strings (strconv 'g', -1: exact, NaN and the infinities
// included).
type File struct {
	RunID string `json:"run_id"`
	runspec.Spec
	Lock  string `json:"lock"`
	Epoch uint64 `json:"epoch"`
	// Strategy is the strategy's MarshalBinary.
	Strategy []byte `json:"strategy"`
	// Inject holds the known points while their batch is the current one.
	Inject     [][]float64      `json:"inject,omitempty"`
	Past       []Past           `json:"past,omitempty"` // the last complete batches, oldest first
	Stop       es.Reason        `json:"stop"`           // "" while the run goes on
	StopDetail string           `json:"stop_detail,omitempty"`
	Abandoned  int              `json:"abandoned,omitempty"` // values told of the batch a failure stopped
	Slots      map[int]Lease    `json:"slots,omitempty"`     // worker slots leased at the fold
	Attempts   map[int]Attempts `json:"attempts,omitempty"`  // of the batch a stop abandoned
}

// Past holds the values of a complete generation, or of the batch of
// known points before it (Injected), by row; "" marks a row never told, of
// a batch abandoned when the run stopped.
type Past struct {
	Gen      int      `json:"gen"`
	Injected bool     `json:"injected,omitempty"`
	Values   []string `json:"values"`
}

// Settings are what hees init chooses for a run besides its strategy.
type Settings struct {
	RunID string       // NewRunID
	Spec  runspec.Spec // Algo, Restarts, Seed, MaxEvals, Target, OnError, Retries, LostLeases
	Lock  string       // LockFlock or LockFile; "": LockFlock
	// Inject holds known points (nil: none), evaluated as a batch before
	// the first generation (es.Run.Inject).
	Inject [][]float64
}

// Session is an ask/tell run in memory: its View and its strategy.
type Session struct {
	*View
	// File holds the snapshot: the settings, the strategy's state as last
	// saved, the past batches and the stop.
	File File

	run *es.Run
	s   es.Strategy
	pop *linalg.Dense // the current batch's candidates; nil once stopped
	v2  bool          // read from a state file of version 2, which has no journal
}

// NewRunID draws a run's identity from random (crypto/rand.Reader in
// hees init): 8 lowercase hexadecimal digits.
func NewRunID(random io.Reader) (string, error) {
	b := make([]byte, runIDBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("drawing the run's identity: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// validRunID reports whether id is a run's identity as NewRunID makes it.
func validRunID(id string) bool {
	if len(id) != 2*runIDBytes {
		return false
	}
	for _, c := range []byte(id) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// New starts a run of strategy s with the settings set.
func New(set Settings, s es.Strategy) (*Session, error) {
	if set.Lock == "" {
		set.Lock = LockFlock
		if os.Getenv(LockEnv) == LockFile {
			set.Lock = LockFile
		}
	}
	ss := &Session{File: File{RunID: set.RunID, Spec: set.Spec, Lock: set.Lock, Epoch: 1, Inject: set.Inject}}
	if err := ss.checkSettings(); err != nil {
		return nil, err
	}
	if ss.File.Spec.Name() != s.Name() {
		return nil, fmt.Errorf("the strategy is %s, the settings say %s", s.Name(), ss.File.Spec.Name())
	}
	if err := ss.start(s); err != nil {
		return nil, err
	}
	ss.newBatch(nil)
	return ss, nil
}

// checkSettings reports settings of File that no run can have.
func (ss *Session) checkSettings() error {
	f := &ss.File
	if err := f.Spec.Check(); err != nil {
		return err
	}
	switch {
	case !validRunID(f.RunID):
		return fmt.Errorf("run identity %q: want %d lowercase hexadecimal digits", f.RunID, 2*runIDBytes)
	case f.Lock != LockFlock && f.Lock != LockFile:
		return fmt.Errorf("lock %q: want %s or %s", f.Lock, LockFlock, LockFile)
	case f.Epoch < 1:
		return fmt.Errorf("epoch %d", f.Epoch)
	case len(f.Inject) > maxRows:
		// Their batch, once told, is a past generation, which holds at
		// most maxRows values.
		return fmt.Errorf("%d known points, want at most %d", len(f.Inject), maxRows)
	}
	return nil
}

// start makes the session a run of s with its budget and target, stopped
// already when the file records a stop, gives it the known points of the
// file, and asks for the current batch: the known points, or else the
// generation's candidates.
func (ss *Session) start(s es.Strategy) error {
	if _, err := ss.File.Spec.SpaceOf(s); err != nil {
		return err
	}
	if ss.File.Log != "" && !filepath.IsAbs(ss.File.Log) {
		return fmt.Errorf("log %q is not an absolute path", ss.File.Log)
	}
	run, err := es.NewRun(s, es.Limits{MaxEvals: ss.File.MaxEvals, Target: ss.File.Target})
	if err != nil {
		return err
	}
	ss.run, ss.s = run, s
	if ss.File.Inject != nil {
		if ss.File.Stop != "" {
			return fmt.Errorf("known points to evaluate in a run stopped (%s)", ss.File.Stop)
		}
		if err := run.Inject(ss.File.Inject); err != nil {
			return err
		}
	}
	if ss.File.Stop != "" {
		if err := run.Stop(ss.File.Stop, nil); err != nil {
			return fmt.Errorf("stop %q: not a stop reason hees writes", ss.File.Stop)
		}
	}
	return ss.prepare()
}

// prepare asks the run for the current batch's candidates, unless it has
// stopped (by a reason recorded earlier, the strategy's own criteria, or
// because the generation would exceed the budget), and records its stop.
func (ss *Session) prepare() error {
	pop, err := ss.run.Ask()
	if err != nil {
		return err
	}
	ss.pop = pop
	if ss.File.Stop == "" {
		ss.File.Stop = ss.run.Reason()
	}
	ss.File.Inject = nil
	if ss.run.Injecting() && pop != nil {
		rows, _ := pop.Dims()
		for row := range rows {
			ss.File.Inject = append(ss.File.Inject, slices.Clone(pop.RawRow(row)))
		}
	}
	return nil
}

// header is the header of the current batch, for snapshot bytes snap.
func (ss *Session) header(snap []byte) Header {
	f := &ss.File
	h := Header{RunID: f.RunID, Spec: f.Spec, Lock: f.Lock, Epoch: f.Epoch, SnapSize: int64(len(snap)), SnapCRC: snapCRC(snap),
		Strategy: ss.s.Name(), Dim: ss.s.Dim(), Gen: ss.s.Generation(), Injected: ss.run.Injecting(),
		Past: slices.Clone(f.Past[max(0, len(f.Past)-1):]), Stop: f.Stop, StopDetail: f.StopDetail, Abandoned: f.Abandoned,
		Evals: ss.s.Evals(), Restarts: ss.run.Restarts(), Sigma: es.StepSize(ss.s), Slots: cloneSlots(f.Slots), StopAttempts: f.Attempts}
	x, fb := ss.s.Best()
	h.BestX, h.BestF = slices.Clone(x), formatValue(fb)
	if r, ok := ss.s.(es.Recommender); ok {
		if rec := r.Recommend(); rec.X != nil {
			h.RecX, h.RecF, h.RecEvals, h.RecMeans = rec.X, formatValue(rec.F), rec.Evals, rec.Means
		}
	}
	if nh, ok := ss.s.(*es.NoiseHandler); ok {
		h.Doublings = nh.Doublings()
	}
	if ss.pop != nil {
		rows, d := ss.pop.Dims()
		h.Rows = rows
		h.X = make([]byte, 0, 8*rows*d)
		for row := range rows {
			for _, c := range ss.pop.RawRow(row) {
				h.X = binary.LittleEndian.AppendUint64(h.X, math.Float64bits(c))
			}
		}
	}
	if h.X == nil {
		h.X = []byte{}
	}
	return h
}

// snapCRC is the checksum at the end of a snapshot's container.
func snapCRC(snap []byte) uint32 {
	if len(snap) < 4 {
		return 0
	}
	return binary.LittleEndian.Uint32(snap[len(snap)-4:])
}

// newBatch makes the view of the current batch, with nothing recorded,
// and the worker slots carried over.
func (ss *Session) newBatch(slots map[int]Lease) {
	ss.File.Slots = slots
	ss.setView(newView(ss.header(nil)))
}

// setView makes v the session's view, with the session's past batches as
// the older ones its checks may need (View.older).
func (ss *Session) setView(v *View) {
	v.older = ss.File.Past
	ss.View = v
}

// Snapshot returns the bytes of the snapshot file of the session, and the
// header of its journal.
func (ss *Session) Snapshot() ([]byte, Header, error) {
	payload, err := ss.Payload()
	if err != nil {
		return nil, Header{}, err
	}
	snap, err := statefile.Encode(Kind, payload)
	if err != nil {
		return nil, Header{}, err
	}
	return snap, ss.header(snap), nil
}

// Decode checks the bytes of a snapshot (or of a state file of version 2)
// and returns its session. Errors of the container keep their cause
// (statefile.ErrTruncated and so on).
func Decode(data []byte) (*Session, error) {
	kind, payload, err := statefile.Decode(data)
	if err != nil {
		return nil, err
	}
	switch kind {
	case Kind:
		return Parse(payload)
	case kindV2:
		return parseV2(payload)
	}
	return nil, kindError(kind)
}

// kindError is the error for a container of another kind than a snapshot:
// an older version of the ask/tell state names its version.
func kindError(kind string) error {
	if kind == "ask-tell/v1" {
		return fmt.Errorf("statefile: %w: an ask/tell state file of version 1, which this build does not read (it reads versions 2 and 3); finish the run with the build that made it, or start anew with hees init", statefile.ErrKind)
	}
	return fmt.Errorf("statefile: %w: the file holds %q, want %q", statefile.ErrKind, kind, Kind)
}

// Parse reads the payload of a snapshot (Decode without the container).
func Parse(payload []byte) (*Session, error) {
	ss := &Session{}
	if err := statefile.UnmarshalJSONBytes(payload, &ss.File, "strategy", &ss.File.Strategy); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	if err := ss.restore(); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	return ss, nil
}

// parseValue reads a value as the journal and tell write it.
func parseValue(text string) (float64, error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, as extproc reads it
		return 0, fmt.Errorf("%q is not a number", text)
	}
	return v, nil
}

// formatValue writes a value exactly.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// restore rebuilds the strategy from ss.File and checks the file.
func (ss *Session) restore() error {
	if err := ss.checkSettings(); err != nil {
		return err
	}
	s, err := es.Load(ss.File.Strategy)
	if err != nil {
		return err
	}
	ss.File.Strategy = nil // s holds it (Payload)
	if want := ss.File.Spec.Name(); s.Name() != want {
		return fmt.Errorf("the strategy is %s, the settings say %s", s.Name(), want)
	}
	if err := ss.start(s); err != nil {
		return err
	}
	for slot, l := range ss.File.Slots {
		if slot < 0 || slot > maxSlot || l.Holder.check() != nil {
			return fmt.Errorf("worker slot %d held by %+v", slot, l.Holder)
		}
	}
	ss.newBatch(ss.File.Slots)
	return checkPast(ss.File.Past, ss.s.Generation(), ss.Injecting(), ss.File.Abandoned, ss.File.Stop)
}

// checkPast checks the past batches and the count of evaluations of a
// batch abandoned by a stop.
func checkPast(past []Past, gen int, injecting bool, abandoned int, stop es.Reason) error {
	if len(past) > KeepGenerations {
		return fmt.Errorf("%d past generations, want at most %d", len(past), KeepGenerations)
	}
	for i, p := range past {
		if p.Gen < 0 || p.Gen > gen || (i > 0 && batchOrder(p) <= batchOrder(past[i-1])) || (p.Injected && p.Gen == gen && injecting) ||
			len(p.Values) == 0 || len(p.Values) > maxRows {
			return fmt.Errorf("past generation %d with %d values is out of place", p.Gen, len(p.Values))
		}
		for _, text := range p.Values {
			if _, err := parseValue(text); err != nil && text != "" {
				return fmt.Errorf("past value %v", err)
			}
		}
	}
	if abandoned < 0 || (abandoned > 0 && stop != es.ReasonObjectiveError && stop != es.ReasonLeasesLost) {
		return fmt.Errorf("abandoned %d without a stop by a failed evaluation", abandoned)
	}
	return nil
}

// batchOrder is the place of a past batch in the run: a generation, after
// the known points evaluated before it.
func batchOrder(p Past) int {
	if p.Injected {
		return 2 * p.Gen
	}
	return 2*p.Gen + 1
}

// fold ends the current batch once its journal says it is done: complete,
// it is told to the strategy and the next is asked; stopped by an attempt
// beyond the limits, it is abandoned. The epoch advances; now decides
// which worker slots are carried over.
func (ss *Session) fold(now time.Time) error {
	b := ss.b
	if !b.done() {
		return nil
	}
	rows := ss.Rows()
	values := make([]string, rows)
	evaluated := make([]bool, rows)
	f := make([]float64, rows)
	for row, v := range b.told {
		f[row], values[row], evaluated[row] = v, formatValue(v), true
	}
	done := Past{Gen: ss.s.Generation(), Injected: ss.run.Injecting(), Values: values}
	if b.stop != "" {
		// As hees run stops on a failed evaluation: the values told of the
		// batch count for the evaluations but not for the best point
		// (docs/ALGORITHMS.md Section 15), and are kept as a past batch so
		// that a repeated tell is recognised.
		if err := ss.run.Stop(b.stop, evaluated); err != nil {
			return err
		}
		ss.File.Abandoned = len(b.told)
		ss.File.Stop, ss.File.StopDetail = b.stop, ss.ID(b.stopRow).String()+" "+b.stopDetail
		ss.File.Attempts = b.attempts
		ss.pushPast(done)
		ss.pop, ss.File.Inject = nil, nil
	} else {
		if err := ss.run.Tell(f); err != nil {
			return err
		}
		ss.pushPast(done)
		if err := ss.prepare(); err != nil {
			return err
		}
	}
	ss.File.Epoch++
	ss.newBatch(b.liveSlots(now.UnixNano()))
	return nil
}

// pushPast keeps the values of a batch, told or abandoned, among the past
// ones.
func (ss *Session) pushPast(p Past) {
	ss.File.Past = append(ss.File.Past, p)
	if n := len(ss.File.Past); n > KeepGenerations {
		ss.File.Past = slices.Delete(ss.File.Past, 0, n-KeepGenerations)
	}
}

// Strategy is the run's strategy. Read it; do not call Ask or Tell.
func (ss *Session) Strategy() es.Strategy { return ss.s }

// Restarts is the number of restarts of the run so far.
func (ss *Session) Restarts() int { return ss.run.Restarts() }

// Evals is the number of evaluations of the run: those told to the
// strategy, and those of a batch abandoned when a failure stopped it.
func (ss *Session) Evals() int { return ss.s.Evals() + ss.File.Abandoned }

// Best returns the best point and value so far: the strategy's, or a value
// told in the current batch if it is lower (the earlier wins a tie).
func (ss *Session) Best() ([]float64, float64) {
	x, f := ss.s.Best()
	for row := range ss.Rows() {
		if v, ok := ss.b.told[row]; ok && v < f {
			x, f = slices.Clone(ss.pop.RawRow(row)), v
		}
	}
	return x, f
}

// Apply records the values and failures of t (rows of the current batch,
// checked by Check) and folds the batch once it is done, which tells the
// run and asks for the next batch. A failure beyond the retries applies
// the run's policy.
func (ss *Session) Apply(t Told) error {
	ops := toldOps(t)
	for _, op := range ops {
		if err := ss.apply(op); err != nil {
			return err
		}
	}
	return ss.fold(time.Now())
}

// apply applies one operation to the current batch, unless the batch is
// done (a stop by the policy ignores what follows it).
func (ss *Session) apply(op record) error {
	if ss.b.done() {
		return nil
	}
	return applyOp(ss.b, op)
}

// Expire counts a lost lease for every lease that has expired at now (its
// candidate is claimable again, or gets the failure policy), folds the
// batch when that completes it, and returns the number of leases that
// expired.
func (ss *Session) Expire(now time.Time) (int, error) {
	ops := expireOps(ss.b, now)
	for _, op := range ops {
		if err := ss.apply(op); err != nil {
			return 0, err
		}
	}
	return len(ops), ss.fold(now)
}

// Claim leases up to n candidates of the current batch that are not told
// and not leased (after Expire) to h until now + lease, in row order, and
// returns their rows.
func (ss *Session) Claim(now time.Time, n int, lease time.Duration, h Holder) ([]int, error) {
	if _, err := ss.Expire(now); err != nil {
		return nil, err
	}
	op, rows := claimOp(ss.b, now, n, lease, h, nil)
	if len(rows) == 0 {
		return nil, nil
	}
	return rows, ss.apply(op)
}

// Renew extends to now + lease the leases of the candidates of ids that
// are still pending (a lease that expired unnoticed is taken again) and
// reports which are.
func (ss *Session) Renew(now time.Time, ids []ID, lease time.Duration, h Holder) []bool {
	op, pending := renewOp(ss.View, now, ids, lease, h, nil)
	if len(op.Rows) > 0 {
		ss.apply(op) // rows checked by renewOp
	}
	return pending
}

// Release ends the leases of the candidates of ids without counting an
// attempt: their claimant gives them back unevaluated.
func (ss *Session) Release(ids []ID) {
	if op, ok := releaseOp(ss.View, ids, nil); ok {
		ss.apply(op) // rows checked by releaseOp
	}
}

// Payload returns the payload of the session's snapshot (Snapshot without
// the container): the strategy and what is kept of past batches; the
// current batch is the journal's.
func (ss *Session) Payload() ([]byte, error) {
	state, err := ss.s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	// The strategy's state is not kept in the file: ss.s holds it, and a
	// copy would double what a worker keeps (O(d^2)).
	return statefile.MarshalJSONBytes(&ss.File, "strategy", &ss.File.Strategy, state)
}
