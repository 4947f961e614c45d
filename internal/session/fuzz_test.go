package session

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/statefile"
)

// FuzzJournal replays arbitrary bytes as the records of a journal, after
// a valid header, and decodes them as a whole journal: neither may panic;
// a replay applies complete, valid records only (what it used ends at a
// line's end), and replaying what it used again, from the header, gives
// the same batch.
func FuzzJournal(f *testing.F) {
	ss := newSessionFuzz(f)
	_, h, err := ss.Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	header, err := encodeJournal(&h)
	if err != nil {
		f.Fatal(err)
	}
	line := func(r record) []byte {
		b, _ := appendLine(nil, "", &r)
		return b
	}
	holder := &Holder{Host: "n", PID: 1}
	f.Add(line(record{Seq: 1, Epoch: 1, Op: opValue, Rows: []int{0}, Value: "1.5"}))
	f.Add(append(line(record{Seq: 1, Epoch: 1, Op: opClaim, Rows: []int{1, 2}, Now: 5, Until: 9, Holder: holder}),
		line(record{Seq: 2, Epoch: 1, Op: opExpired, Rows: []int{1}, Now: 10})...))
	f.Add(line(record{Seq: 1, Epoch: 1, Op: opSlots, Slots: []int{0, 1}, Now: 1, Until: 2, Holder: holder}))
	f.Add([]byte("00000000 {}\n"))
	f.Add(header)
	f.Fuzz(func(t *testing.T, data []byte) {
		v := newView(h)
		used, _, err := v.replay(data)
		if used > len(data) || (used > 0 && data[used-1] != '\n') {
			t.Fatalf("used %d of %d bytes", used, len(data))
		}
		if err == nil {
			again := newView(h)
			if _, torn, err := again.replay(data[:used]); err != nil || torn || again.seq != v.seq || again.NumTold() != v.NumTold() {
				t.Fatalf("replaying the used bytes: %v, torn %v, %d records and %d told, want %d and %d", err, torn, again.seq, again.NumTold(), v.seq, v.NumTold())
			}
			v.Claimable(time.Unix(7, 0))
			v.Pending()
		}
		// The whole file: a header that does not decode is an error.
		if hh, n, err := decodeHeader(append(bytes.Clone(header[:len(header)/2]), data...)); err == nil {
			newView(hh).replay(data[min(n, len(data)):])
		}
		decodeHeader(data)
	})
}

// newSessionFuzz is the session of the fuzz target: hees2 in 3
// dimensions.
func newSessionFuzz(f *testing.F) *Session { return newSessionDimTB(f, 3) }

// FuzzRecord decodes arbitrary bytes as a record's JSON: wherever the fast
// parser accepts them, encoding/json (statefile.UnmarshalJSON) must accept them too and
// give the same record.
func FuzzRecord(f *testing.F) {
	for _, r := range []record{
		{Seq: 1, Epoch: 1, Op: opValue, Rows: []int{0}, Value: "1.5"},
		{Seq: 2, Epoch: 9, Op: opClaim, Rows: []int{1, 2}, Now: -5, Until: 1795743125505347069, Holder: &Holder{Host: "n", PID: 1, Job: "77", Slot: 3}},
		{Seq: 3, Epoch: 1, Op: opFailed, Rows: []int{4}, Why: "exit status 1"},
		{Seq: 4, Epoch: 1, Op: opRenew, Rows: []int{1}, Slots: []int{0}, Until: 9, Holder: &Holder{}},
	} {
		js, err := json.Marshal(&r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Add([]byte(`{"q":1,"e":1,"o":"v","r":[],"v":"1"}`))
	f.Add([]byte(`{"q":-0,"e":01,"o":"v"}`))
	f.Add([]byte(`{"q":1,"e":1,"o":"v","v":"\u0031"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := parseRecord(data)
		if !ok {
			return
		}
		var want record
		if err := statefile.UnmarshalJSON(data, &want); err != nil {
			t.Fatalf("parseRecord accepted %q, which encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("parseRecord(%q) = %+v, encoding/json gives %+v", data, fast, want)
		}
	})
}
