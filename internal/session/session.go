// Package session keeps an ask/tell run in a state file between
// invocations of hees init, ask, tell, status and worker: the strategy's
// state, the values told of the current generation, the leases of the
// candidates being evaluated, their failed attempts, the values of the last
// generations (to check a repeated tell), the budget, the target and the
// stop, driven by an es.Run. Candidates are named by IDs
// g<generation>-<row>@<run> (the generation counted over all restarts, the
// run's identity drawn by hees init), and the known points of hees init
// -inject, evaluated as a batch before generation 0, by i0-<row>@<run>
// (i<generation>: the batch before that generation), so an ID is never
// reused within a run nor accepted by another. Every write happens under
// the lock file FILE.lock and replaces the state file atomically.
//
// # Leases
//
// A claim leases pending candidates to its caller until a wall-clock time
// stored in the file (Unix nanoseconds): the machines sharing the file must
// have clocks that agree to well within a lease (NTP keeps them within
// milliseconds). A lease that has expired counts as a failed attempt of its
// candidate, which is then claimable again; a candidate whose attempts
// exceed the run's retries gets the run's failure policy: told as NaN
// (ranked worst) with OnErrorNaN, or the run stops with
// es.ReasonObjectiveError with OnErrorStop. A value told by anyone, leased
// or not, completes its candidate.
//
// # Commands
//
// A Session is the run in memory; a Store is its state file, whose methods
// are what the commands do to it, each in one read-change-write under the
// lock: Create (hees init), Tell, Claim (which may tell a value first, as
// a worker does), Renew and Release. A Poller waits without the lock for a
// candidate to claim. Package internal/worker evaluates candidates with an external
// program on top of these.
package session

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hees-dev/hees/es"
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

// Kind is the kind of an ask/tell state file in its container
// (internal/statefile); the payload is the JSON of File. Version 2 added
// the run's identity, leases, failed attempts and the values of past
// generations; a file of version 1 is refused (statefile.ErrKind).
const Kind = "ask-tell/v2"

// KeepGenerations is how many complete generations keep their values in
// the state file, so that a repeated tell of one of their candidates is
// compared with the value told first. A tell of an older generation is
// ignored unchecked.
const KeepGenerations = 16

// MaxRetries bounds Settings.Retries.
const MaxRetries = 1000

// The failure policies of a candidate whose attempts exceed the retries.
const (
	OnErrorStop = "stop" // the run stops with es.ReasonObjectiveError
	OnErrorNaN  = "nan"  // the candidate is told NaN (ranked worst)
)

// FailedWord is the VALUE of a tell that reports a failed evaluation.
const FailedWord = "failed"

// maxRows bounds the rows of a past generation: the largest population of
// a strategy (IPOP's cap).
const maxRows = 1 << 20

// runIDBytes is the number of random bytes of a run's identity, written as
// twice as many lowercase hexadecimal digits.
const runIDBytes = 4

// File is the payload of an ask/tell state file. The told values are
// kept as strings (strconv 'g', -1: exact, and NaN and the infinities,
// which JSON numbers cannot hold, allowed).
type File struct {
	RunID     string         `json:"run_id"`
	Algo      string         `json:"algo"`
	Restarts  string         `json:"restarts"` // "none", "ipop" or "bipop"
	Seed      uint64         `json:"seed"`
	MaxEvals  int            `json:"max_evals"`           // 0: no budget
	Target    *float64       `json:"target"`              // nil: none; finite
	Retries   int            `json:"retries"`             // failed attempts a candidate may have before OnError applies
	OnError   string         `json:"on_error"`            // OnErrorStop or OnErrorNaN
	Strategy  []byte         `json:"strategy"`            // the strategy's MarshalBinary
	Inject    [][]float64    `json:"inject,omitempty"`    // the known points, while their batch is the current one
	Told      map[int]string `json:"told"`                // row -> value, current generation
	Leases    map[int]int64  `json:"leases,omitempty"`    // row -> lease expiry in Unix nanoseconds, current generation
	Failures  map[int]int    `json:"failures,omitempty"`  // row -> failed attempts, current generation
	Past      []Past         `json:"past,omitempty"`      // the last complete generations, oldest first
	Stop      es.Reason      `json:"stop"`                // "" while the run goes on
	Abandoned int            `json:"abandoned,omitempty"` // values told of the generation a failure stopped
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
	RunID    string   // NewRunID
	Algo     string   // the strategy's algorithm
	Restarts string   // "none", "ipop" or "bipop"
	Seed     uint64   // the seed the strategy was made with
	MaxEvals int      // the evaluation budget, 0: none
	Target   *float64 // nil: none
	Retries  int      // 0 to MaxRetries
	OnError  string   // OnErrorStop or OnErrorNaN
	// Inject holds known points (nil: none), evaluated as a batch before
	// the first generation (es.Run.Inject).
	Inject [][]float64
}

// Session is an ask/tell run in memory.
type Session struct {
	// File holds the settings of the run and its stop; the other fields
	// are filled in by Save.
	File File

	run  *es.Run
	s    es.Strategy     // the run's strategy
	told map[int]float64 // values told in the current generation, by row
	pop  *linalg.Dense   // the current generation's candidates; nil once stopped
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
	ss := &Session{
		File: File{RunID: set.RunID, Algo: set.Algo, Restarts: set.Restarts, Seed: set.Seed, MaxEvals: set.MaxEvals,
			Target: set.Target, Retries: set.Retries, OnError: set.OnError, Inject: set.Inject},
		told: map[int]float64{},
	}
	if err := ss.checkSettings(); err != nil {
		return nil, err
	}
	ss.initMaps()
	return ss, ss.start(s)
}

// initMaps makes the maps of the current generation that are nil.
func (ss *Session) initMaps() {
	if ss.File.Leases == nil {
		ss.File.Leases = map[int]int64{}
	}
	if ss.File.Failures == nil {
		ss.File.Failures = map[int]int{}
	}
}

// checkSettings reports settings of File that no run can have.
func (ss *Session) checkSettings() error {
	f := &ss.File
	switch {
	case !validRunID(f.RunID):
		return fmt.Errorf("run identity %q: want %d lowercase hexadecimal digits", f.RunID, 2*runIDBytes)
	case f.MaxEvals < 0:
		return fmt.Errorf("max_evals %d is negative", f.MaxEvals)
	case f.Retries < 0 || f.Retries > MaxRetries:
		return fmt.Errorf("retries %d: want 0 to %d", f.Retries, MaxRetries)
	case f.OnError != OnErrorStop && f.OnError != OnErrorNaN:
		return fmt.Errorf("on_error %q: want %q or %q", f.OnError, OnErrorStop, OnErrorNaN)
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
		run.Stop(ss.File.Stop, nil)
	}
	return ss.prepare()
}

// Read reads the state file at path. Errors of the file system and of the
// container keep their cause (os.ErrNotExist, statefile.ErrTruncated and
// so on); those of the content name the path.
func Read(path string) (*Session, error) {
	payload, err := statefile.ReadFile(path, Kind)
	if err != nil {
		return nil, err
	}
	ss, err := Parse(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}

// Decode checks the bytes of a state file and returns its session. Errors
// of the container keep their cause (statefile.ErrTruncated and so on).
func Decode(data []byte) (*Session, error) {
	payload, err := statefile.DecodeKind(data, Kind)
	if err != nil {
		return nil, err
	}
	return Parse(payload)
}

// Parse reads the payload of a state file (Decode without the container).
func Parse(payload []byte) (*Session, error) {
	ss := &Session{told: map[int]float64{}}
	if err := statefile.UnmarshalJSON(payload, &ss.File); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	if err := ss.restore(); err != nil {
		return nil, fmt.Errorf("bad ask/tell state: %v", err)
	}
	return ss, nil
}

// parseValue reads a value as the state file and tell write it.
func parseValue(text string) (float64, error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, as extproc reads it
		return 0, fmt.Errorf("%q is not a number", text)
	}
	return v, nil
}

// formatValue writes a value exactly.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// restore rebuilds the strategy and the told values from ss.File, and
// checks that they agree.
func (ss *Session) restore() error {
	if err := ss.checkSettings(); err != nil {
		return err
	}
	r, err := es.ParseRestarts(ss.File.Restarts)
	if err != nil {
		return err
	}
	s, err := es.Load(ss.File.Strategy)
	if err != nil {
		return err
	}
	if want := r.Name(ss.File.Algo); s.Name() != want {
		return fmt.Errorf("the strategy is %s, the settings say %s", s.Name(), want)
	}
	if err := ss.start(s); err != nil {
		return err
	}
	ss.initMaps()
	gen, rows := ss.s.Generation(), ss.Rows()
	inRange := func(what string, row int) error {
		if row < 0 || row >= rows {
			return fmt.Errorf("%s row %d is not one of the %d of generation %d", what, row, rows, gen)
		}
		return nil
	}
	for row, text := range ss.File.Told {
		v, err := parseValue(text)
		if err != nil {
			return fmt.Errorf("told value %v", err)
		}
		if err := inRange("told", row); err != nil {
			return err
		}
		ss.told[row] = v
	}
	for row := range ss.File.Leases {
		if err := inRange("leased", row); err != nil {
			return err
		}
	}
	for row, n := range ss.File.Failures {
		if err := inRange("failed", row); err != nil {
			return err
		}
		if n < 1 || n > ss.File.Retries+1 {
			return fmt.Errorf("row %d has %d failed attempts, want 1 to %d", row, n, ss.File.Retries+1)
		}
	}
	return ss.checkPast()
}

// checkPast checks the past generations and the best point of a generation
// abandoned by a stop.
func (ss *Session) checkPast() error {
	f := &ss.File
	if len(f.Past) > KeepGenerations {
		return fmt.Errorf("%d past generations, want at most %d", len(f.Past), KeepGenerations)
	}
	gen := ss.s.Generation()
	for i, p := range f.Past {
		if p.Gen < 0 || p.Gen > gen || (i > 0 && batchOrder(p) <= batchOrder(f.Past[i-1])) || (p.Injected && p.Gen == gen && ss.Injecting()) ||
			len(p.Values) == 0 || len(p.Values) > maxRows {
			return fmt.Errorf("past generation %d with %d values is out of place", p.Gen, len(p.Values))
		}
		for _, text := range p.Values {
			if _, err := parseValue(text); err != nil && text != "" {
				return fmt.Errorf("past value %v", err)
			}
		}
	}
	if f.Abandoned < 0 || (f.Abandoned > 0 && f.Stop != es.ReasonObjectiveError) {
		return fmt.Errorf("abandoned %d without a stop by a failed evaluation", f.Abandoned)
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

// prepare asks the run for the current generation's candidates, unless it
// has stopped (by a reason recorded earlier, the strategy's own criteria,
// or because the generation would exceed the budget), and records its stop.
func (ss *Session) prepare() error {
	pop, err := ss.run.Ask()
	if err != nil {
		return err
	}
	ss.pop, ss.File.Stop = pop, ss.run.Reason()
	return nil
}

// Save writes the session to the state file at path, atomically.
func (ss *Session) Save(path string) error {
	payload, err := ss.Payload()
	if err != nil {
		return err
	}
	return statefile.WriteFile(path, Kind, payload, 0o644)
}

// Payload returns the payload of the session's state file.
func (ss *Session) Payload() ([]byte, error) {
	state, err := ss.s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	ss.File.Strategy = state
	ss.File.Inject = nil
	if ss.Injecting() {
		for row := range ss.Rows() {
			ss.File.Inject = append(ss.File.Inject, slices.Clone(ss.Candidate(row)))
		}
	}
	ss.File.Told = make(map[int]string, len(ss.told))
	for row, v := range ss.told {
		ss.File.Told[row] = formatValue(v)
	}
	return json.Marshal(&ss.File)
}

// Rows is the number of candidates of the current generation (0 once the
// run has stopped).
func (ss *Session) Rows() int {
	if ss.pop == nil {
		return 0
	}
	r, _ := ss.pop.Dims()
	return r
}

// ID names a candidate: row Row of generation Gen of the run Run, or with
// Injected the known point in row Row of the batch evaluated before
// generation Gen.
type ID struct {
	Run      string
	Gen, Row int
	Injected bool
}

// String writes the ID as g<generation>-<row>@<run>, such as g12-3@5f3a9c01,
// or i<generation>-<row>@<run> for a known point, such as i0-1@5f3a9c01.
func (id ID) String() string {
	kind := 'g'
	if id.Injected {
		kind = 'i'
	}
	return fmt.Sprintf("%c%d-%d@%s", kind, id.Gen, id.Row, id.Run)
}

// ID is the ID of row of the current batch.
func (ss *Session) ID(row int) ID {
	return ID{Run: ss.File.RunID, Gen: ss.s.Generation(), Row: row, Injected: ss.Injecting()}
}

// ParseID reads an ID g<generation>-<row>@<run> or i<generation>-<row>@<run>.
func ParseID(text string) (ID, bool) {
	cand, run, found := strings.Cut(text, "@")
	if !found || len(cand) == 0 || (cand[0] != 'g' && cand[0] != 'i') || !validRunID(run) {
		return ID{}, false
	}
	g, r, found := strings.Cut(cand[1:], "-")
	gen, err1 := strconv.Atoi(g)
	row, err2 := strconv.Atoi(r)
	if !found || err1 != nil || err2 != nil || gen < 0 || row < 0 || g != strconv.Itoa(gen) || r != strconv.Itoa(row) {
		return ID{}, false
	}
	return ID{Run: run, Gen: gen, Row: row, Injected: cand[0] == 'i'}, true
}

// Told is what a tell applies to the current generation: values by row,
// and the rows whose evaluation failed.
type Told struct {
	Values map[int]float64
	Failed []int
}

// Apply records the values and failures of t (rows of the current
// generation, checked by Check) and tells the run once the generation is
// complete, which checks for -Inf and the target; then it asks for the
// next generation. A failure beyond the retries applies the run's policy.
func (ss *Session) Apply(t Told) error {
	for row, v := range t.Values {
		ss.told[row] = v
		delete(ss.File.Leases, row)
	}
	for _, row := range t.Failed {
		ss.fail(row)
	}
	return ss.advance()
}

// fail counts a failed attempt of row, whose lease ends, and applies the
// failure policy when the attempts exceed the retries.
func (ss *Session) fail(row int) {
	if ss.File.Stop != "" {
		return
	}
	delete(ss.File.Leases, row)
	ss.File.Failures[row]++
	if ss.File.Failures[row] <= ss.File.Retries {
		return
	}
	if ss.File.OnError == OnErrorNaN {
		ss.told[row] = math.NaN()
		return
	}
	ss.stopFailed()
}

// stopFailed stops the run with es.ReasonObjectiveError, as hees run stops
// on a failed evaluation: the values told of the generation count for the
// evaluations but not for the best point (docs/ALGORITHMS.md Section 15),
// and are kept as a past generation so that a repeated tell is recognised.
func (ss *Session) stopFailed() {
	rows := ss.Rows()
	evaluated := make([]bool, rows)
	values := make([]string, rows)
	for row, v := range ss.told {
		evaluated[row], values[row] = true, formatValue(v)
	}
	injected := ss.Injecting()
	ss.run.Stop(es.ReasonObjectiveError, evaluated)
	ss.File.Abandoned = len(ss.told)
	ss.pushPast(Past{Gen: ss.s.Generation(), Injected: injected, Values: values})
	ss.clearGeneration()
	ss.pop, ss.File.Stop = nil, es.ReasonObjectiveError
}

// advance tells the run the current generation once all its values are
// in, and asks for the next.
func (ss *Session) advance() error {
	rows := ss.Rows()
	if rows == 0 || len(ss.told) < rows {
		return nil
	}
	f := make([]float64, rows)
	values := make([]string, rows)
	for row, v := range ss.told {
		f[row], values[row] = v, formatValue(v)
	}
	done := Past{Gen: ss.s.Generation(), Injected: ss.Injecting(), Values: values}
	if err := ss.run.Tell(f); err != nil {
		return err
	}
	ss.pushPast(done)
	ss.clearGeneration()
	return ss.prepare()
}

// pushPast keeps the values of a batch, told or abandoned, among the past
// ones.
func (ss *Session) pushPast(p Past) {
	ss.File.Past = append(ss.File.Past, p)
	if n := len(ss.File.Past); n > KeepGenerations {
		ss.File.Past = slices.Delete(ss.File.Past, 0, n-KeepGenerations)
	}
}

// clearGeneration forgets the told values, leases and failures of the
// current generation.
func (ss *Session) clearGeneration() {
	ss.told = map[int]float64{}
	clear(ss.File.Leases)
	clear(ss.File.Failures)
}

// claimable reports whether row of the current generation may be claimed
// at now: not told, and not leased until after now.
func (ss *Session) claimable(row int, now int64) bool {
	if _, told := ss.told[row]; told {
		return false
	}
	until, leased := ss.File.Leases[row]
	return !leased || until <= now
}

// Expire counts an attempt failed for every lease that has expired at now
// (its candidate is claimable again, or gets the failure policy), tells
// the run when the policy completes the generation, and returns the
// number of leases that expired.
func (ss *Session) Expire(now time.Time) (int, error) {
	var expired []int
	for row, until := range ss.File.Leases {
		if until <= now.UnixNano() {
			expired = append(expired, row)
		}
	}
	slices.Sort(expired) // the first row to exceed the retries stops the run
	return len(expired), ss.Apply(Told{Failed: expired})
}

// Claim leases up to n candidates of the current generation that are not
// told and not leased (after Expire) to the caller until now + lease, in
// row order, and returns their rows.
func (ss *Session) Claim(now time.Time, n int, lease time.Duration) ([]int, error) {
	if _, err := ss.Expire(now); err != nil {
		return nil, err
	}
	return ss.claim(now, n, lease), nil
}

// claim is Claim once the expired leases are counted (Expire).
func (ss *Session) claim(now time.Time, n int, lease time.Duration) []int {
	var rows []int
	for row := range ss.Rows() {
		if len(rows) == n {
			break
		}
		if ss.claimable(row, now.UnixNano()) {
			ss.File.Leases[row] = now.Add(lease).UnixNano()
			rows = append(rows, row)
		}
	}
	return rows
}

// Claimable is the number of candidates that a claim at now would find
// (leases expired by then included).
func (ss *Session) Claimable(now time.Time) int {
	n := 0
	for row := range ss.Rows() {
		if ss.claimable(row, now.UnixNano()) {
			n++
		}
	}
	return n
}

// Leased is the number of candidates not told and leased until after now.
func (ss *Session) Leased(now time.Time) int {
	n := 0
	for row := range ss.Rows() {
		if _, told := ss.told[row]; !told && !ss.claimable(row, now.UnixNano()) {
			n++
		}
	}
	return n
}

// NextExpiry is the earliest expiry after now of a lease of a candidate
// not told, and false when there is none.
func (ss *Session) NextExpiry(now time.Time) (time.Time, bool) {
	var next int64
	found := false
	for row, until := range ss.File.Leases {
		if _, told := ss.told[row]; !told && until > now.UnixNano() && (!found || until < next) {
			next, found = until, true
		}
	}
	return time.Unix(0, next), found
}

// current reports the row of id when it names a candidate of the current
// batch that is not told.
func (ss *Session) current(id ID) (int, bool) {
	if id.Run != ss.File.RunID || id.Gen != ss.s.Generation() || id.Injected != ss.Injecting() || id.Row >= ss.Rows() {
		return 0, false
	}
	_, told := ss.told[id.Row]
	return id.Row, !told
}

// Renew extends to now + lease the leases of the candidates of ids that
// are still pending (a lease that expired unnoticed is taken again) and
// reports which are.
func (ss *Session) Renew(now time.Time, ids []ID, lease time.Duration) []bool {
	pending := make([]bool, len(ids))
	for i, id := range ids {
		if row, ok := ss.current(id); ok {
			ss.File.Leases[row] = now.Add(lease).UnixNano()
			pending[i] = true
		}
	}
	return pending
}

// Release ends the leases of the candidates of ids without counting a
// failed attempt: their claimant gives them back unevaluated.
func (ss *Session) Release(ids []ID) {
	for _, id := range ids {
		if row, ok := ss.current(id); ok {
			delete(ss.File.Leases, row)
		}
	}
}

// Evals is the number of evaluations of the run: those told to the
// strategy, and those of a generation abandoned when a failure stopped it.
func (ss *Session) Evals() int { return ss.s.Evals() + ss.File.Abandoned }

// Best returns the best point and value so far: the strategy's, or a value
// told in the current generation if it is
// lower (the earlier wins a tie).
func (ss *Session) Best() ([]float64, float64) {
	x, f := ss.s.Best()
	for row := range ss.Rows() {
		if v, ok := ss.told[row]; ok && v < f {
			x, f = slices.Clone(ss.pop.RawRow(row)), v
		}
	}
	return x, f
}

// Line is one "ID VALUE" line of the input of tell.
type Line struct {
	line   int
	id     ID
	value  float64
	failed bool // VALUE was FailedWord
}

// ValueLine is the line that tells value v of id, as ReadTold reads
// "ID VALUE" (a NaN is read as math.NaN()).
func ValueLine(id ID, v float64) Line {
	if math.IsNaN(v) {
		v = math.NaN()
	}
	return Line{line: 1, id: id, value: v}
}

// FailedLine is the line that tells that the evaluation of id failed.
func FailedLine(id ID) Line { return Line{line: 1, id: id, failed: true} }

// Problem classifies a line of tell that is not applied.
type Problem int

// The problems of a line of tell. Bad input, a conflict and a stopped run
// make a tell apply nothing; a repeat and an ignored line do not.
const (
	// BadInput: not "ID VALUE", an ID of another run, an ID that does not
	// exist, or an ID given twice.
	BadInput Problem = iota
	// Conflict: the candidate was told another value before.
	Conflict
	// Stopped: the run has stopped, and the candidate was not told.
	Stopped
	// Repeat: the candidate was told the same value before (same bits;
	// any NaN is the same as another).
	Repeat
	// Ignored: a failure reported for a candidate told already, or a tell
	// of a generation whose values are no longer kept.
	Ignored
)

// Blocking reports whether bad holds a line that makes a tell apply
// nothing: bad input, a conflict or a stopped run.
func Blocking(bad []BadLine) bool {
	return slices.ContainsFunc(bad, func(b BadLine) bool {
		return b.Problem == BadInput || b.Problem == Conflict || b.Problem == Stopped
	})
}

// BadLine is a line of the input of tell that is not applied.
type BadLine struct {
	Line    int     // the line number, from 1
	Msg     string  // what is wrong
	Problem Problem // its kind
}

// ReadTold reads the "ID VALUE" lines of in (blank lines are skipped).
// VALUE is a number or FailedWord. Syntax errors are returned as one
// BadLine per line. An input that cannot be a tell is an error naming the
// line where reading stopped: a line longer than maxLine bytes, more than
// maxToldLines lines, or more than maxBadLines bad lines (the error quotes
// the first).
func ReadTold(in io.Reader) ([]Line, []BadLine, error) {
	var (
		lines []Line
		bad   []BadLine
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		switch {
		case n > maxToldLines:
			return nil, nil, fmt.Errorf("line %d: more lines than a generation has points (at most %d)", n, maxToldLines)
		case len(bad) > maxBadLines:
			return nil, nil, tooManyBad(bad)
		}
		words := strings.Fields(sc.Text())
		if len(words) == 0 {
			continue
		}
		if len(words) != 2 {
			fields := "fields"
			if len(words) == 1 {
				fields = "field"
			}
			bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("want \"ID VALUE\", got %d %s", len(words), fields)})
			continue
		}
		id, ok := ParseID(words[0])
		if !ok {
			bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("%q is not an ID (IDs look like g12-3@5f3a9c01)", words[0])})
			continue
		}
		l := Line{line: n, id: id, failed: words[1] == FailedWord}
		if !l.failed {
			v, err := parseValue(words[1])
			if err != nil {
				bad = append(bad, BadLine{Line: n, Msg: fmt.Sprintf("%s: %v", words[0], err)})
				continue
			}
			l.value = v
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, nil, fmt.Errorf("line %d: longer than %d bytes (a line holds an ID and a value)", n+1, maxLine)
	} else if err != nil {
		return nil, nil, fmt.Errorf("after line %d: %w", n, err)
	}
	if len(bad) > maxBadLines {
		return nil, nil, tooManyBad(bad)
	}
	return lines, bad, nil
}

// tooManyBad is the error of ReadTold once bad holds more than maxBadLines
// lines.
func tooManyBad(bad []BadLine) error {
	return fmt.Errorf("line %d: more than %d bad lines, stopped reading; the first is line %d: %s",
		bad[maxBadLines].Line, maxBadLines, bad[0].Line, bad[0].Msg)
}

// Check returns what lines tell of the current generation, and a BadLine
// for each line that is not applied.
func (ss *Session) Check(lines []Line) (Told, []BadLine) {
	var bad []BadLine
	t := Told{Values: map[int]float64{}}
	seen := map[int]int{} // row -> input line
	for _, l := range lines {
		problem, msg := ss.check(l, seen)
		if msg != "" {
			bad = append(bad, BadLine{Line: l.line, Msg: msg, Problem: problem})
			continue
		}
		seen[l.id.Row] = l.line
		if l.failed {
			t.Failed = append(t.Failed, l.id.Row)
		} else {
			t.Values[l.id.Row] = l.value
		}
	}
	return t, bad
}

// check returns the problem of l and its message, "" when l applies.
func (ss *Session) check(l Line, seen map[int]int) (Problem, string) {
	id, gen, rows := l.id, ss.s.Generation(), ss.Rows()
	if id.Run != ss.File.RunID {
		return BadInput, fmt.Sprintf("%s belongs to another run (this state file holds run %s)", id, ss.File.RunID)
	}
	if i := slices.IndexFunc(ss.File.Past, func(p Past) bool { return p.Gen == id.Gen && p.Injected == id.Injected }); i >= 0 {
		p := ss.File.Past[i]
		switch {
		case id.Row >= len(p.Values):
			return BadInput, fmt.Sprintf("%s does not exist (%s had rows 0 to %d)", id, batchName(id), len(p.Values)-1)
		case p.Values[id.Row] == "":
			return Stopped, fmt.Sprintf("%s: the run has stopped (%s)", id, ss.File.Stop)
		}
		v, _ := parseValue(p.Values[id.Row])
		return repeat(l, v)
	}
	other := id.Injected != ss.Injecting() // not the current batch, nor a past one
	switch {
	case id.Gen > gen || (id.Gen == gen && ss.File.Stop == "" && (other || id.Row >= rows)):
		switch {
		case id.Gen == gen && other && id.Injected:
			return BadInput, fmt.Sprintf("%s does not exist (the run evaluates no known points before generation %d)", id, gen)
		case id.Gen == gen && other:
			return BadInput, fmt.Sprintf("%s does not exist yet (the known points come before generation %d)", id, gen)
		case id.Gen == gen:
			return BadInput, fmt.Sprintf("%s does not exist (%s has rows 0 to %d)", id, batchName(id), rows-1)
		}
		return BadInput, fmt.Sprintf("%s does not exist (the current generation is %d)", id, gen)
	case id.Gen < gen:
		return Ignored, fmt.Sprintf("%s is ignored: generation %d is complete and its values are no longer kept (the last %d are)", id, id.Gen, KeepGenerations)
	case ss.File.Stop != "":
		return Stopped, fmt.Sprintf("%s: the run has stopped (%s)", id, ss.File.Stop)
	}
	if v, told := ss.told[id.Row]; told {
		return repeat(l, v)
	}
	if line := seen[id.Row]; line > 0 {
		return BadInput, fmt.Sprintf("%s is also on line %d", id, line)
	}
	return BadInput, ""
}

// batchName names the batch of id in a message: "generation 12", or "the
// batch of known points before generation 0".
func batchName(id ID) string {
	if id.Injected {
		return fmt.Sprintf("the batch of known points before generation %d", id.Gen)
	}
	return fmt.Sprintf("generation %d", id.Gen)
}

// repeat classifies l, which tells a candidate told v before.
func repeat(l Line, v float64) (Problem, string) {
	switch {
	case l.failed:
		return Ignored, fmt.Sprintf("%s: the failure is ignored, the candidate was told %s", l.id, formatValue(v))
	case math.Float64bits(v) == math.Float64bits(l.value) || (math.IsNaN(v) && math.IsNaN(l.value)):
		return Repeat, fmt.Sprintf("%s was told the same value before", l.id)
	}
	return Conflict, fmt.Sprintf("%s was told %s before; %s differs", l.id, formatValue(v), formatValue(l.value))
}

// Strategy is the run's strategy. Read it; do not call Ask or Tell.
func (ss *Session) Strategy() es.Strategy { return ss.s }

// Injecting reports whether the current batch is the known points of
// Settings.Inject rather than a generation of the strategy.
func (ss *Session) Injecting() bool { return ss.run.Injecting() }

// Restarts is the number of restarts of the run so far.
func (ss *Session) Restarts() int { return ss.run.Restarts() }

// Pending returns the candidates of the current generation not told yet,
// in row order; their X are the session's.
func (ss *Session) Pending() []Candidate {
	var cands []Candidate
	for row := range ss.Rows() {
		if _, told := ss.told[row]; !told {
			cands = append(cands, Candidate{ss.ID(row), ss.Candidate(row)})
		}
	}
	return cands
}

// Candidate returns the candidate of row of the current generation; the
// slice is the session's.
func (ss *Session) Candidate(row int) []float64 { return ss.pop.RawRow(row) }

// Told returns the value told of row of the current generation, and
// whether one was told.
func (ss *Session) Told(row int) (float64, bool) {
	v, ok := ss.told[row]
	return v, ok
}

// NumTold is the number of values told of the current generation.
func (ss *Session) NumTold() int { return len(ss.told) }
