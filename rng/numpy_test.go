package rng

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestNumpyPhilox checks NewPhilox against numpy.random.Philox on the
// vectors in testdata/numpy_philox.txt: the first 10 words of random_raw()
// and the first 10 doubles of Generator(...).random() for five (key,
// counter) pairs, including counters whose increment carries across words.
//
// The vectors were made with Debian's python3-numpy 1.24.2
// (apt-get install python3-numpy; /usr/bin/python3) by this script:
//
//	import numpy as np
//	cases = [
//	    ((0, 0), (0, 0, 0, 0)),
//	    ((0x243f6a8885a308d3, 0x13198a2e03707344), (0, 0, 0, 0)),
//	    ((1, 2), (0xffffffffffffffff, 0xffffffffffffffff, 5, 0)),
//	    ((0xdeadbeefcafef00d, 0x0123456789abcdef), (0xfffffffffffffffe, 7, 0xffffffffffffffff, 0xffffffffffffffff)),
//	    ((0xffffffffffffffff, 0xffffffffffffffff), (0xffffffffffffffff,) * 4),
//	]
//	print("# numpy.random.Philox vectors, numpy %s (see numpy_test.go)" % np.__version__)
//	for key, ctr in cases:
//	    k = np.array(key, dtype=np.uint64)
//	    c = np.array(ctr, dtype=np.uint64)
//	    raw = np.random.Philox(key=k, counter=c).random_raw(10)
//	    dbl = np.random.Generator(np.random.Philox(key=k, counter=c)).random(10)
//	    print("case", " ".join("%016x" % v for v in key + ctr))
//	    print("raw", " ".join("%016x" % int(v) for v in raw))
//	    print("random", " ".join(float(v).hex() for v in dbl))
func TestNumpyPhilox(t *testing.T) {
	f, err := os.Open("testdata/numpy_philox.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var key [2]uint64
	var ctr [4]uint64
	cases, checked := 0, 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch fields[0] {
		case "case":
			if len(fields) != 7 {
				t.Fatalf("line %d: %d fields, want 7", line, len(fields))
			}
			var w [6]uint64
			for i := range w {
				if w[i], err = strconv.ParseUint(fields[1+i], 16, 64); err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
			}
			key = [2]uint64{w[0], w[1]}
			ctr = [4]uint64{w[2], w[3], w[4], w[5]}
			cases++
		case "raw":
			p := NewPhilox(key, ctr)
			for i, s := range fields[1:] {
				want, err := strconv.ParseUint(s, 16, 64)
				if err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
				if got := p.Uint64(); got != want {
					t.Errorf("key %x counter %x: word %d = %016x, numpy %016x", key, ctr, i, got, want)
				}
				checked++
			}
		case "random":
			p := NewPhilox(key, ctr)
			for i, s := range fields[1:] {
				want, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
				if got := p.Float64(); got != want {
					t.Errorf("key %x counter %x: double %d = %x, numpy %x", key, ctr, i, got, want)
				}
				checked++
			}
		default:
			t.Fatalf("line %d: unknown record %q", line, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases != 5 || checked != 100 {
		t.Errorf("checked %d values in %d cases, want 100 in 5", checked, cases)
	}
}
