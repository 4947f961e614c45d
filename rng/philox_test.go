package rng

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestKAT checks the block functions against every philox4x32-10 and
// philox4x64-10 line of Random123's known-answer vectors
// (testdata/kat_vectors.txt; provenance and license in testdata/README.md).
func TestKAT(t *testing.T) {
	f, err := os.Open("testdata/kat_vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name, rounds := fields[0], fields[1]
		words := make([]uint64, len(fields)-2)
		for i, w := range fields[2:] {
			words[i], err = strconv.ParseUint(w, 16, 64)
			if err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
		}
		if rounds != "10" {
			continue
		}
		switch name {
		case "philox4x64":
			if len(words) != 10 {
				t.Fatalf("line %d: %d words, want 10", line, len(words))
			}
			ctr := [4]uint64{words[0], words[1], words[2], words[3]}
			key := [2]uint64{words[4], words[5]}
			want := [4]uint64{words[6], words[7], words[8], words[9]}
			if got := Philox4x64(ctr, key); got != want {
				t.Errorf("line %d: Philox4x64(%x, %x) = %x, want %x", line, ctr, key, got, want)
			}
		case "philox4x32":
			if len(words) != 10 {
				t.Fatalf("line %d: %d words, want 10", line, len(words))
			}
			var ctr, want [4]uint32
			var key [2]uint32
			for i := range 4 {
				ctr[i], want[i] = uint32(words[i]), uint32(words[6+i])
			}
			key[0], key[1] = uint32(words[4]), uint32(words[5])
			if got := Philox4x32(ctr, key); got != want {
				t.Errorf("line %d: Philox4x32(%x, %x) = %x, want %x", line, ctr, key, got, want)
			}
		default:
			continue
		}
		checked[name]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"philox4x32", "philox4x64"} {
		if checked[name] != 3 {
			t.Errorf("checked %d %s lines, want 3", checked[name], name)
		}
	}
}
