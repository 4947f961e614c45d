package session

import (
	"bytes"
	"testing"
)

// journalForBench returns a journal of the shape a run of hees2 in 10
// dimensions with a population of 101 has after 16 generations: a header
// with the values of the last past generation, and the 202 records of a
// generation told by 32 workers (a claim and a value per candidate).
func journalForBench(b *testing.B) (journal []byte, headerLen int) {
	b.Helper()
	h := Header{RunID: "0123abcd", Lock: LockFlock, Epoch: 17, SnapSize: 43682, SnapCRC: 1,
		Strategy: "hees2", Dim: 10, Gen: 16, Rows: 101, X: make([]byte, 8*101*10), BestF: "1", BestX: make([]float64, 10)}
	h.Spec.Algo, h.Spec.Restarts, h.Spec.Retries, h.Spec.LostLeases = "hees2", "none", 3, 10
	for g := range 1 {
		p := Past{Gen: g}
		for i := range 101 {
			p.Values = append(p.Values, formatValue(1.0/float64(3+i+g)))
		}
		h.Past = append(h.Past, p)
	}
	journal, err := encodeJournal(&h)
	if err != nil {
		b.Fatal(err)
	}
	headerLen = len(journal)
	const now, lease = 1795743065505347069, 60e9
	for row := range 101 {
		c := record{Seq: int64(2*row + 1), Epoch: 17, Op: opClaim, Rows: []int{row}, Now: now + int64(row), Until: now + int64(row) + lease,
			Holder: &Holder{Host: "vm", PID: 13111 + row%32, Slot: row % 32}}
		v := record{Seq: int64(2*row + 2), Epoch: 17, Op: opValue, Rows: []int{row}, Value: formatValue(1 / float64(row+7))}
		for _, r := range []record{c, v} {
			if journal, err = appendLine(journal, "", &r); err != nil {
				b.Fatal(err)
			}
		}
	}
	return journal, headerLen
}

// BenchmarkDecodeHeader decodes the header of journalForBench, which every
// worker process does once per generation.
func BenchmarkDecodeHeader(b *testing.B) {
	journal, n := journalForBench(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		if _, _, err := decodeHeader(journal); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay replays the 202 records of journalForBench, which every
// worker process does for each generation; ns/op over 202 is the cost of a
// record.
func BenchmarkReplay(b *testing.B) {
	journal, n := journalForBench(b)
	h, _, err := decodeHeader(journal)
	if err != nil {
		b.Fatal(err)
	}
	records := journal[n:]
	b.SetBytes(int64(len(records)))
	for b.Loop() {
		v := newView(h)
		used, torn, err := v.replay(records)
		if err != nil || torn || used != len(records) || !bytes.Equal(records[used:], nil) {
			b.Fatalf("replay: %d of %d bytes, torn %v, %v", used, len(records), torn, err)
		}
	}
}
