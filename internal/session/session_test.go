package session

import "testing"

func TestParseID(t *testing.T) {
	for in, want := range map[string][2]int{"g0-0": {0, 0}, "g12-3": {12, 3}, "g100000-1048575": {100000, 1048575}} {
		gen, row, ok := ParseID(in)
		if !ok || gen != want[0] || row != want[1] {
			t.Errorf("ParseID(%q) = %d, %d, %v", in, gen, row, ok)
		}
	}
	for _, in := range []string{"", "g", "g1", "g1-", "g-1", "1-2", "G1-2", "g01-2", "g1-02", "g+1-2", "g1--2", "g1-2-3", "g1-2x", "g99999999999999999999-1"} {
		if _, _, ok := ParseID(in); ok {
			t.Errorf("ParseID(%q) accepted", in)
		}
	}
}
