package session

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runspec"
)

// Header describes the current batch of a run: everything about it that a
// worker, hees ask or hees status needs, without the strategy (whose state
// is O(d^2) bytes). The journal of the batch opens with it; Session.fold
// writes a new one with each snapshot.
type Header struct {
	RunID string       `json:"run_id"`
	Spec  runspec.Spec `json:"spec"`
	Lock  string       `json:"lock"` // LockFlock or LockFile
	// Epoch counts the snapshots of the run, from 1 at hees init; the
	// journal's header and records carry the epoch of the snapshot they
	// belong to, and SnapSize and SnapCRC its size and checksum (the last 4
	// bytes of its container), so that a journal left behind by a fold
	// that did not finish is recognised.
	Epoch    uint64 `json:"epoch"`
	SnapSize int64  `json:"snap_size"`
	SnapCRC  uint32 `json:"snap_crc"`

	Strategy string `json:"strategy"` // the strategy's name
	Dim      int    `json:"dim"`
	Gen      int    `json:"gen"`
	Injected bool   `json:"injected,omitempty"`
	Rows     int    `json:"rows"` // 0 once the run has stopped
	// X holds the candidates, row after row, as little-endian float64 bits.
	X []byte `json:"x"`

	// Past is the last complete batch (the snapshot keeps the last
	// KeepGenerations): every worker process reads each header, and the
	// rare tell of an older batch reads the snapshot (View.older).
	Past       []Past    `json:"past,omitempty"`
	Stop       es.Reason `json:"stop"`
	StopDetail string    `json:"stop_detail,omitempty"`
	Abandoned  int       `json:"abandoned,omitempty"`
	Evals      int       `json:"evals"` // told to the strategy
	Restarts   int       `json:"restarts"`
	Sigma      float64   `json:"sigma"` // in the objective's units (es.StepSize)
	BestX      []float64 `json:"best_x"`
	BestF      string    `json:"best_f"` // strconv 'g', -1, so +Inf too
	// RecX, RecF, RecEvals and RecMeans are the recommendation of a run
	// with noise handling (es.Recommender): the point, its estimated value
	// (as BestF), the evaluations behind it and the means it averages;
	// absent without one.
	RecX     []float64 `json:"rec_x,omitempty"`
	RecF     string    `json:"rec_f,omitempty"`
	RecEvals int       `json:"rec_evals,omitempty"`
	RecMeans int       `json:"rec_means,omitempty"`
	// Doublings is the number of times the noise handling doubled the
	// population (es.NoiseHandler.Doublings); absent while 0.
	Doublings int `json:"doublings,omitempty"`
	// Slots are the worker slots leased when the batch began.
	Slots map[int]Lease `json:"slots,omitempty"`
	// Told, Leases and Attempts are what the batch had when its journal
	// was made: nothing, but for a run that a state file of version 2
	// held.
	// StopAttempts are the attempts of the batch that a stop by the
	// failure policy abandoned (the last of Past), by row.
	StopAttempts map[int]Attempts `json:"stop_attempts,omitempty"`
	Told         map[int]string   `json:"told,omitempty"`
	Leases       map[int]Lease    `json:"leases,omitempty"`
	Attempts     map[int]Attempts `json:"attempts,omitempty"`
}

// check reports a header that no fold writes.
func (h *Header) check() error {
	if err := h.Spec.Check(); err != nil {
		return err
	}
	switch {
	case !validRunID(h.RunID):
		return fmt.Errorf("run identity %q: want %d lowercase hexadecimal digits", h.RunID, 2*runIDBytes)
	case h.Lock != LockFlock && h.Lock != LockFile:
		return fmt.Errorf("lock %q: want %s or %s", h.Lock, LockFlock, LockFile)
	case h.Epoch < 1 || h.SnapSize <= 0:
		return fmt.Errorf("epoch %d, snapshot of %d bytes", h.Epoch, h.SnapSize)
	case h.Dim < 1 || h.Gen < 0 || h.Rows < 0 || h.Rows > maxRows || h.Evals < 0 || h.Restarts < 0 || h.Abandoned < 0:
		return fmt.Errorf("out of range: d %d, generation %d, rows %d, evals %d, restarts %d, abandoned %d",
			h.Dim, h.Gen, h.Rows, h.Evals, h.Restarts, h.Abandoned)
	case uint64(len(h.X)) != 8*uint64(h.Rows)*uint64(h.Dim):
		return fmt.Errorf("%d bytes of candidates for %d rows of %d", len(h.X), h.Rows, h.Dim)
	case (h.Rows == 0) != (h.Stop != ""):
		return fmt.Errorf("%d rows with stop %q", h.Rows, h.Stop)
	case h.BestX != nil && len(h.BestX) != h.Dim:
		return fmt.Errorf("best point of %d coordinates in %d dimensions", len(h.BestX), h.Dim)
	case len(h.Slots) > maxRows:
		return fmt.Errorf("%d worker slots", len(h.Slots))
	}
	if _, err := parseValue(h.BestF); err != nil {
		return fmt.Errorf("best value %v", err)
	}
	if h.Doublings < 0 || h.Doublings > es.NoiseMaxDoublings || h.Doublings > 0 && h.RecX == nil {
		return fmt.Errorf("%d doublings of the population (at most %d, with noise handling only)", h.Doublings, es.NoiseMaxDoublings)
	}
	if h.RecX != nil || h.RecF != "" || h.RecEvals != 0 || h.RecMeans != 0 {
		if _, err := parseValue(h.RecF); err != nil || len(h.RecX) != h.Dim || h.RecEvals < 0 || h.RecMeans < 0 || h.RecMeans > h.RecEvals {
			return fmt.Errorf("recommendation of %d coordinates in %d dimensions, value %q, %d evaluations, %d means",
				len(h.RecX), h.Dim, h.RecF, h.RecEvals, h.RecMeans)
		}
	}
	for i := 0; i < len(h.X); i += 8 {
		if v := math.Float64frombits(binary.LittleEndian.Uint64(h.X[i:])); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("candidate coordinate %v", v)
		}
	}
	for slot, l := range h.Slots {
		if slot < 0 || slot > maxSlot || l.Holder.check() != nil {
			return fmt.Errorf("worker slot %d held by %+v", slot, l.Holder)
		}
	}
	if _, err := h.initial(); err != nil {
		return err
	}
	return checkPast(h.Past, h.Gen, h.Injected && h.Rows > 0, h.Abandoned, h.Stop)
}

// View is a run as its journal shows it: the header of the current batch
// and what was recorded of the batch since. It holds no strategy; Session
// adds it.
type View struct {
	Header
	b   *batch
	x   [][]float64 // the candidates, decoded from Header.X
	seq int64       // the records replayed
	// older is the snapshot's past batches: a session's own
	// (Session.setView), or, for a store's view, read under the lock when
	// a tell names a batch that Past does not hold (writer.check); nil
	// until then.
	older []Past
}

// initial returns the batch of h before any record: empty, or what a
// state file of version 2 had.
func (h *Header) initial() (*batch, error) {
	b := newBatch(h.Rows, h.Spec.Retries, h.Spec.LostLeases, h.Spec.OnError, cloneSlots(h.Slots))
	for row, text := range h.Told {
		v, err := parseValue(text)
		if err != nil {
			return nil, fmt.Errorf("told value %v", err)
		}
		if err := b.inRange(row); err != nil {
			return nil, err
		}
		b.told[row] = v
	}
	for row, l := range h.Leases {
		if err := b.inRange(row); err != nil {
			return nil, err
		}
		b.leases[row] = l
	}
	for row, a := range h.Attempts {
		if err := b.inRange(row); err != nil {
			return nil, err
		}
		if a.Failed < 0 || a.Failed > h.Spec.Retries+1 || a.Lost < 0 || a.Lost > h.Spec.LostLeases+1 || len(a.Why) > maxWhy+3 {
			return nil, fmt.Errorf("row %d: %d failed attempts and %d lost leases", row, a.Failed, a.Lost)
		}
		b.attempts[row] = a
	}
	if b.done() {
		return nil, fmt.Errorf("a batch complete when its journal was made")
	}
	return b, nil
}

// newView returns the view of h with nothing recorded yet; h is checked.
func newView(h Header) *View {
	v := &View{Header: h}
	v.b, _ = h.initial()
	v.x = make([][]float64, h.Rows)
	for row := range h.Rows {
		v.x[row] = make([]float64, h.Dim)
		for j := range h.Dim {
			v.x[row][j] = math.Float64frombits(binary.LittleEndian.Uint64(h.X[8*(row*h.Dim+j):]))
		}
	}
	return v
}

// cloneSlots copies a map of slots (nil stays nil).
func cloneSlots(m map[int]Lease) map[int]Lease {
	if m == nil {
		return nil
	}
	c := make(map[int]Lease, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// clone returns a copy of v whose batch may change without changing v's.
func (v *View) clone() *View {
	c := *v
	c.b = v.b.clone()
	return &c
}

// Rows is the number of candidates of the current batch (0 once the run
// has stopped).
func (v *View) Rows() int { return v.Header.Rows }

// Injecting reports whether the current batch is the known points of
// hees init -inject rather than a generation of the strategy.
func (v *View) Injecting() bool { return v.Header.Injected && v.Header.Rows > 0 }

// Generation is the current generation, counted over all restarts.
func (v *View) Generation() int { return v.Header.Gen }

// StopReason is why the run stopped, "" while it goes on.
func (v *View) StopReason() es.Reason {
	if v.Header.Stop != "" {
		return v.Header.Stop
	}
	return v.b.stop
}

// ID is the ID of row of the current batch.
func (v *View) ID(row int) ID {
	return ID{Run: v.RunID, Gen: v.Header.Gen, Row: row, Injected: v.Injecting()}
}

// Candidate returns the candidate of row of the current batch; the slice
// is the view's.
func (v *View) Candidate(row int) []float64 { return v.x[row] }

// Told returns the value told of row of the current batch, and whether one
// was told.
func (v *View) Told(row int) (float64, bool) {
	f, ok := v.b.told[row]
	return f, ok
}

// NumTold is the number of values told of the current batch.
func (v *View) NumTold() int { return len(v.b.told) }

// Attempts returns what happened to row besides its value: failed
// evaluations, lost leases, and why the last failed.
func (v *View) Attempts(row int) Attempts { return v.b.attempts[row] }

// AbandonedAttempts returns the attempts of the batch a stop by the
// failure policy abandoned, by ID.
func (v *View) AbandonedAttempts() map[ID]Attempts {
	if len(v.StopAttempts) == 0 || len(v.Past) == 0 {
		return nil
	}
	last := v.Past[len(v.Past)-1]
	m := map[ID]Attempts{}
	for row, a := range v.StopAttempts {
		m[ID{Run: v.RunID, Gen: last.Gen, Row: row, Injected: last.Injected}] = a
	}
	return m
}

// Lease returns the lease of row, and whether it has one.
func (v *View) Lease(row int) (Lease, bool) {
	l, ok := v.b.leases[row]
	return l, ok
}

// Slots returns the worker slots leased after now.
func (v *View) Slots(now time.Time) map[int]Lease { return v.b.liveSlots(now.UnixNano()) }

// Pending returns the candidates of the current batch not told yet, in row
// order; their X are the view's.
func (v *View) Pending() []Candidate {
	var cands []Candidate
	for row := range v.Rows() {
		if _, told := v.b.told[row]; !told {
			cands = append(cands, Candidate{v.ID(row), v.x[row]})
		}
	}
	return cands
}

// Claimable is the number of candidates that a claim at now would find
// (leases expired by then included).
func (v *View) Claimable(now time.Time) int { return v.claimable(now, nil) }

// claimable is Claimable without the rows for which own reports true.
func (v *View) claimable(now time.Time, own func(row int) bool) int {
	if v.b.done() {
		return 0
	}
	n := 0
	for row := range v.Rows() {
		if v.b.claimable(row, now.UnixNano()) && (own == nil || !own(row)) {
			n++
		}
	}
	return n
}

// Leased is the number of candidates not told and leased until after now.
func (v *View) Leased(now time.Time) int {
	n := 0
	for row := range v.Rows() {
		if _, told := v.b.told[row]; !told && !v.b.claimable(row, now.UnixNano()) {
			n++
		}
	}
	return n
}

// NextExpiry is the earliest expiry after now of a lease of a candidate
// not told, and the zero Time and false when there is none.
func (v *View) NextExpiry(now time.Time) (time.Time, bool) {
	var next int64
	found := false
	for row, l := range v.b.leases {
		if _, told := v.b.told[row]; !told && l.Until > now.UnixNano() && (!found || l.Until < next) {
			next, found = l.Until, true
		}
	}
	if !found {
		return time.Time{}, false
	}
	return time.Unix(0, next), true
}

// Evals is the number of evaluations of the run: those told to the
// strategy, and those of a batch abandoned when a failure stopped it.
func (v *View) Evals() int { return v.Header.Evals + v.Header.Abandoned }

// Best returns the best point and value so far: the strategy's, or a value
// told in the current batch if it is lower (the earlier row wins a tie).
func (v *View) Best() ([]float64, float64) {
	x := v.BestX
	f, _ := parseValue(v.BestF)
	for row := range v.Rows() {
		if t, ok := v.b.told[row]; ok && t < f {
			x, f = slices.Clone(v.x[row]), t
		}
	}
	return x, f
}

// Recommendation returns the recommendation of a run with noise handling
// (es.Recommender) as of the current batch, and false without one.
func (v *View) Recommendation() (es.Recommendation, bool) {
	if v.RecX == nil {
		return es.Recommendation{}, false
	}
	f, _ := parseValue(v.RecF)
	return es.Recommendation{X: slices.Clone(v.RecX), F: f, Evals: v.RecEvals, Means: v.RecMeans}, true
}

// current reports the row of id when it names a candidate of the current
// batch that is not told.
func (v *View) current(id ID) (int, bool) {
	if id.Run != v.RunID || id.Gen != v.Header.Gen || id.Injected != v.Injecting() || id.Row >= v.Rows() {
		return 0, false
	}
	_, told := v.b.told[id.Row]
	return id.Row, !told
}
