package session

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hees-dev/hees/internal/statefile"
)

// The journal of a batch is text, one line per entry:
//
//	hees-journal/1 CRC HEADER   the first line: the batch's Header as JSON
//	CRC RECORD                  every other line: a record as JSON
//
// where CRC is the CRC-32C (Castagnoli) of the JSON that follows it, as 8
// lowercase hexadecimal digits, and every line ends with a newline. A
// record is
//
//	{"q":SEQ,"e":EPOCH,"o":OP,...}
//
// SEQ numbers the records from 1, EPOCH is the header's; OP and its
// fields:
//
//	v  r:[ROW] v:VALUE                  a value (strconv 'g', -1; NaN, Inf)
//	f  r:[ROW] y:WHY                    a failed evaluation, and its error
//	x  r:[ROW] t:NOW                    a lease found expired at NOW
//	c  r:[ROWS] t:NOW u:UNTIL h:HOLDER  a claim at NOW, until UNTIL
//	n  r:[ROWS] s:[SLOTS] u:UNTIL h:HOLDER  leases and slots renewed
//	b  r:[ROWS] s:[SLOTS]               leases and slots given back
//	w  s:[SLOTS] t:NOW u:UNTIL h:HOLDER worker slots taken
//
// Times are Unix nanoseconds. A line that does not end with a newline, or
// whose checksum does not match, ends the journal: it is a write cut short
// (only the last record can be, since records are written one after the
// other under the lock), ignored by readers and cut off by the next writer.
// A record whose checksum matches but whose sequence number, epoch or
// operation does not fit is an error: the journal was damaged or made by
// hand, and nothing of it is guessed.
const journalMagic = "hees-journal/1"

// maxJournalLine bounds a line of the journal: the header holds 2^22
// numbers at most (es's bound on lambda × d) as 8 bytes each, base64, and
// the past values.
const maxJournalLine = 1 << 27

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one operation of a journal.
type record struct {
	Seq    int64   `json:"q"`
	Epoch  uint64  `json:"e"`
	Op     string  `json:"o"`
	Rows   []int   `json:"r,omitempty"`
	Slots  []int   `json:"s,omitempty"`
	Now    int64   `json:"t,omitempty"`
	Until  int64   `json:"u,omitempty"`
	Value  string  `json:"v,omitempty"`
	Why    string  `json:"y,omitempty"`
	Holder *Holder `json:"h,omitempty"`
}

// The operations of a record.
const (
	opValue   = "v"
	opFailed  = "f"
	opExpired = "x"
	opClaim   = "c"
	opRenew   = "n"
	opRelease = "b"
	opSlots   = "w"
)

// appendLine appends the line of the JSON of v, with its checksum, to buf.
func appendLine(buf []byte, prefix string, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		buf = append(buf, prefix...)
		buf = append(buf, ' ')
	}
	buf = fmt.Appendf(buf, "%08x ", crc32.Checksum(data, castagnoli))
	buf = append(buf, data...)
	return append(buf, '\n'), nil
}

// encodeJournal returns a journal of header h and no records.
func encodeJournal(h *Header) ([]byte, error) {
	return appendLine(nil, journalMagic, h)
}

// errTorn reports a line cut short or damaged: the journal ends before it.
var errTorn = errors.New("torn record")

// splitLine returns the JSON of the line at the start of data, checked
// against its checksum, and the length of the line. A line without its
// newline or with a checksum that does not match is errTorn.
func splitLine(data []byte, prefix string) (json []byte, n int, err error) {
	end := bytes.IndexByte(data, '\n')
	if end < 0 {
		return nil, 0, errTorn
	}
	line := data[:end]
	if prefix != "" {
		if !bytes.HasPrefix(line, []byte(prefix+" ")) {
			return nil, 0, fmt.Errorf("%w: the journal does not start with %q", errNotJournal, prefix)
		}
		line = line[len(prefix)+1:]
	}
	if len(line) < 9 || line[8] != ' ' {
		return nil, 0, errTorn
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], line[:8]); err != nil {
		return nil, 0, errTorn
	}
	json = line[9:]
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	if crc32.Checksum(json, castagnoli) != want {
		return nil, 0, errTorn
	}
	return json, end + 1, nil
}

// errNotJournal: the file is not a journal.
var errNotJournal = errors.New("not a journal")

// decodeHeader reads the header line at the start of data, and returns
// its length.
func decodeHeader(data []byte) (Header, int, error) {
	if end := bytes.IndexByte(data, '\n'); end > maxJournalLine || (end < 0 && len(data) > maxJournalLine) {
		return Header{}, 0, fmt.Errorf("%w: a header line longer than %d bytes", errNotJournal, maxJournalLine)
	}
	js, n, err := splitLine(data, journalMagic)
	if errors.Is(err, errTorn) {
		return Header{}, 0, fmt.Errorf("%w: its header is cut short or damaged", errNotJournal)
	}
	if err != nil {
		return Header{}, 0, err
	}
	var h Header
	if err := statefile.UnmarshalJSONBytes(js, &h, "x", &h.X); err != nil {
		return Header{}, 0, fmt.Errorf("%w: header: %v", errNotJournal, err)
	}
	if err := h.check(); err != nil {
		return Header{}, 0, fmt.Errorf("%w: header: %v", errNotJournal, err)
	}
	return h, n, nil
}

// replay applies to v the records of data, which starts right after the
// records v has seen (v.seq of them), and returns the length of data that
// holds complete, valid records and whether a torn record follows them.
// A record whose checksum matches but that does not fit is an error.
func (v *View) replay(data []byte) (used int, torn bool, err error) {
	seq := v.seq
	defer func() { v.seq = seq }()
	for used < len(data) {
		js, n, err := splitLine(data[used:], "")
		if errors.Is(err, errTorn) {
			return used, true, nil
		}
		r, err := decodeRecord(js)
		if err != nil {
			return used, false, fmt.Errorf("record %d: %v", seq+1, err)
		}
		if r.Seq != seq+1 || r.Epoch != v.Epoch {
			return used, false, fmt.Errorf("record %d: sequence number %d of epoch %d in the journal of epoch %d (a record repeated or out of place)",
				seq+1, r.Seq, r.Epoch, v.Epoch)
		}
		if v.b.done() {
			return used, false, fmt.Errorf("record %d: after the batch was complete", seq+1)
		}
		if err := applyOp(v.b, r); err != nil {
			return used, false, fmt.Errorf("record %d (%s): %v", seq+1, r.Op, err)
		}
		used += n
		seq++
	}
	return used, false, nil
}

// applyOp applies the record r to b, or reports why it does not fit.
func applyOp(b *batch, r record) error {
	one := func() (int, error) {
		if len(r.Rows) != 1 {
			return 0, fmt.Errorf("%d rows, want 1", len(r.Rows))
		}
		return r.Rows[0], nil
	}
	if r.Holder != nil {
		if err := r.Holder.check(); err != nil {
			return err
		}
	}
	if len(r.Rows) > maxRows || len(r.Slots) > maxRows {
		return fmt.Errorf("%d rows and %d slots", len(r.Rows), len(r.Slots))
	}
	switch r.Op {
	case opValue:
		row, err := one()
		if err != nil {
			return err
		}
		f, err := parseValue(r.Value)
		if err != nil {
			return err
		}
		return b.value(row, f)
	case opFailed:
		row, err := one()
		if err != nil {
			return err
		}
		return b.fail(row, r.Why)
	case opExpired:
		row, err := one()
		if err != nil {
			return err
		}
		return b.expire(row, r.Now)
	case opClaim:
		if r.Holder == nil || len(r.Rows) == 0 {
			return errors.New("a claim without its holder or rows")
		}
		for _, row := range r.Rows {
			if err := b.claim(row, r.Now, r.Until, *r.Holder); err != nil {
				return err
			}
		}
		return nil
	case opRenew:
		if r.Holder == nil || r.Until <= 0 {
			return errors.New("a renewal without its holder or end")
		}
		if err := b.renew(r.Rows, r.Until, *r.Holder); err != nil {
			return err
		}
		return b.setSlots(r.Slots, r.Until, *r.Holder)
	case opRelease:
		if err := b.release(r.Rows); err != nil {
			return err
		}
		return b.setSlots(r.Slots, 0, Holder{})
	case opSlots:
		if r.Holder == nil || r.Until <= r.Now {
			return errors.New("slots without their holder or end")
		}
		for _, slot := range r.Slots {
			if l, ok := b.slots[slot]; ok && l.Until > r.Now {
				return fmt.Errorf("slot %d is held until %d", slot, l.Until)
			}
		}
		return b.setSlots(r.Slots, r.Until, *r.Holder)
	}
	return fmt.Errorf("unknown operation %q", r.Op)
}

// toldOps are the records of a tell: the values in row order, then the
// failures.
func toldOps(t Told) []record {
	var ops []record
	rows := make([]int, 0, len(t.Values))
	for row := range t.Values {
		rows = append(rows, row)
	}
	slices.Sort(rows)
	for _, row := range rows {
		v := t.Values[row]
		if math.IsNaN(v) {
			v = math.NaN()
		}
		ops = append(ops, record{Op: opValue, Rows: []int{row}, Value: formatValue(v)})
	}
	for _, row := range t.Failed {
		ops = append(ops, record{Op: opFailed, Rows: []int{row}, Why: clip(t.Why[row])})
	}
	return ops
}

// expireOps are the records of the leases of b expired at now.
func expireOps(b *batch, now time.Time) []record {
	var ops []record
	for _, row := range b.expired(now.UnixNano()) {
		ops = append(ops, record{Op: opExpired, Rows: []int{row}, Now: now.UnixNano()})
	}
	return ops
}

// claimOp is the record of a claim of up to n claimable rows of b at now,
// and the rows.
// Rows for which own reports true (the caller's own, alive) are not
// claimed even when their leases have run out.
func claimOp(b *batch, now time.Time, n int, lease time.Duration, h Holder, own func(row int) bool) (record, []int) {
	var rows []int
	if !b.done() {
		for row := range b.rows {
			if len(rows) == n {
				break
			}
			if b.claimable(row, now.UnixNano()) && (own == nil || !own(row)) {
				rows = append(rows, row)
			}
		}
	}
	return record{Op: opClaim, Rows: rows, Now: now.UnixNano(), Until: leaseEnd(now, lease), Holder: &h}, rows
}

// renewOp is the record of a renewal of the leases of ids that are
// pending, and of slots, and which ids are pending.
func renewOp(v *View, now time.Time, ids []ID, lease time.Duration, h Holder, slots []int) (record, []bool) {
	pending := make([]bool, len(ids))
	op := record{Op: opRenew, Until: leaseEnd(now, lease), Holder: &h, Slots: slots}
	if !v.b.done() {
		for i, id := range ids {
			if row, ok := v.current(id); ok {
				op.Rows = append(op.Rows, row)
				pending[i] = true
			}
		}
	}
	return op, pending
}

// releaseOp is the record that gives back the leases of ids that are
// pending, and slots; false when there is nothing to give back.
func releaseOp(v *View, ids []ID, slots []int) (record, bool) {
	op := record{Op: opRelease, Slots: slots}
	if !v.b.done() {
		for _, id := range ids {
			if row, ok := v.current(id); ok {
				if _, leased := v.b.leases[row]; leased {
					op.Rows = append(op.Rows, row)
				}
			}
		}
	}
	return op, len(op.Rows)+len(op.Slots) > 0
}

// holderText quotes a holder for a message.
func holderText(h Holder) string { return strings.TrimSpace(h.String()) }
