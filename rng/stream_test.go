package rng

import (
	"bytes"
	"math"
	"testing"
)

// TestStreamLayout checks the documented counter layout: word w of the
// sub-stream (key, purpose, generation, index) is word w%4 of
// Philox4x64({w/4, index, generation, purpose}, key).
func TestStreamLayout(t *testing.T) {
	key := KeyFromSeed(42)
	s := NewStream(key, 7, 11, 13)
	for w := uint64(0); w < 40; w++ {
		block := Philox4x64([4]uint64{w / 4, 13, 11, 7}, [2]uint64(key))
		if got, want := s.Uint64(), block[w%4]; got != want {
			t.Fatalf("word %d = %#x, want %#x", w, got, want)
		}
	}
}

// TestKeyFromSeed pins the documented SplitMix64 derivation.
func TestKeyFromSeed(t *testing.T) {
	// SplitMix64 seeded with 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4
	// (the reference sequence of Vigna's splitmix64.c).
	if got, want := KeyFromSeed(0), (Key{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4}); got != want {
		t.Errorf("KeyFromSeed(0) = %#x, want %#x", got, want)
	}
	seen := map[uint64]uint64{}
	for seed := uint64(0); seed < 1000; seed++ {
		k := KeyFromSeed(seed)
		if prev, ok := seen[k[0]]; ok {
			t.Fatalf("seeds %d and %d share key word %#x", prev, seed, k[0])
		}
		seen[k[0]] = seed
	}
}

// TestStreamsDiffer checks that changing any address component changes the
// words, and that a Stream and its copy continue identically.
func TestStreamsDiffer(t *testing.T) {
	key := KeyFromSeed(1)
	first := func(s Stream) [8]uint64 {
		var w [8]uint64
		for i := range w {
			w[i] = s.Uint64()
		}
		return w
	}
	base := first(NewStream(key, 1, 2, 3))
	for name, s := range map[string]Stream{
		"key":        NewStream(KeyFromSeed(2), 1, 2, 3),
		"purpose":    NewStream(key, 2, 2, 3),
		"generation": NewStream(key, 1, 3, 3),
		"index":      NewStream(key, 1, 2, 4),
	} {
		if first(s) == base {
			t.Errorf("changing the %s gives the same words", name)
		}
	}
	var reset Stream
	reset.Uint64()
	reset.Reset(key, 1, 2, 3)
	if first(reset) != base {
		t.Error("Reset does not give the same words as NewStream")
	}
	s := NewStream(key, 1, 2, 3)
	s.Uint64()
	c := s
	if s.Uint64() != c.Uint64() {
		t.Error("a copied Stream does not continue identically")
	}
	var zero Stream
	if first(zero) != first(NewStream(Key{}, 0, 0, 0)) {
		t.Error("the zero Stream is not NewStream(Key{}, 0, 0, 0)")
	}
}

// TestSeek checks Seek and Pos against sequential reading, including
// positions inside a block and the block boundary.
func TestSeek(t *testing.T) {
	key := KeyFromSeed(3)
	seq := NewStream(key, 5, 0, 9)
	words := make([]uint64, 50)
	for i := range words {
		words[i] = seq.Uint64()
	}
	if seq.Pos() != 50 {
		t.Fatalf("Pos = %d after 50 words", seq.Pos())
	}
	for _, start := range []uint64{0, 1, 3, 4, 5, 17, 48} {
		s := NewStream(key, 5, 0, 9)
		s.Uint64() // leave a stale buffer behind
		s.Seek(start)
		if s.Pos() != start {
			t.Errorf("Pos after Seek(%d) = %d", start, s.Pos())
		}
		for i := start; i < 50; i++ {
			if got := s.Uint64(); got != words[i] {
				t.Fatalf("after Seek(%d), word %d = %#x, want %#x", start, i, got, words[i])
			}
		}
	}
	// Far positions: Seek is O(1) and agrees with the block function.
	s := NewStream(key, 5, 0, 9)
	far := uint64(1)<<62 + 6
	s.Seek(far)
	block := Philox4x64([4]uint64{far / 4, 9, 0, 5}, [2]uint64(key))
	if got := s.Uint64(); got != block[2] {
		t.Errorf("word %d = %#x, want %#x", far, got, block[2])
	}
}

// TestFills checks that the bulk fills equal repeated single draws from
// every phase of a block, and that they leave the stream at the same
// position.
func TestFills(t *testing.T) {
	key := KeyFromSeed(4)
	for offset := uint64(0); offset < 5; offset++ {
		for _, n := range []int{0, 1, 3, 4, 7, 64, 101} {
			a, b := NewStream(key, 1, 2, 3), NewStream(key, 1, 2, 3)
			a.Seek(offset)
			b.Seek(offset)
			got := make([]uint64, n)
			a.FillUint64(got)
			for i := range got {
				if want := b.Uint64(); got[i] != want {
					t.Fatalf("offset %d, n %d: FillUint64[%d] = %#x, want %#x", offset, n, i, got[i], want)
				}
			}
			if a.Pos() != b.Pos() {
				t.Fatalf("offset %d, n %d: Pos %d after fill, %d after loop", offset, n, a.Pos(), b.Pos())
			}
			f := make([]float64, n)
			a.FillFloat64(f)
			for i := range f {
				if want := b.Float64(); f[i] != want {
					t.Fatalf("FillFloat64[%d] = %v, want %v", i, f[i], want)
				}
			}
			a.FillNormal(f)
			for i := range f {
				if want := b.Normal(); f[i] != want {
					t.Fatalf("FillNormal[%d] = %v, want %v", i, f[i], want)
				}
			}
			if a.Pos() != b.Pos() {
				t.Fatalf("Pos %d after fills, %d after loops", a.Pos(), b.Pos())
			}
		}
	}
}

// TestFloat64Range checks Float64's definition (u>>11)·2^-53 and range.
func TestFloat64Range(t *testing.T) {
	a, b := NewStream(KeyFromSeed(5), 0, 0, 0), NewStream(KeyFromSeed(5), 0, 0, 0)
	for range 10000 {
		f, u := a.Float64(), b.Uint64()
		if f != float64(u>>11)/(1<<53) || f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v for word %#x", f, u)
		}
	}
}

// TestMarshal saves and restores a stream at many positions (every phase of
// a block, after normals whose rejections consumed extra words) and checks
// that the restored stream continues bit-identically.
func TestMarshal(t *testing.T) {
	s := NewStream(KeyFromSeed(6), 0x1905, 1<<40, 77)
	for step := range 300 {
		switch step % 3 {
		case 0:
			s.Uint64()
		case 1:
			s.Normal()
		default:
			s.Float64()
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var r Stream
		r.Reset(KeyFromSeed(99), 1, 1, 1) // overwritten completely
		r.Uint64()
		if err := r.UnmarshalBinary(b); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if rb, _ := r.MarshalBinary(); !bytes.Equal(rb, b) || r.Pos() != s.Pos() {
			t.Fatalf("step %d: restored stream encodes as %x, want %x", step, rb, b)
		}
		c := s
		for i := range 9 {
			if got, want := r.Uint64(), c.Uint64(); got != want {
				t.Fatalf("step %d, word %d after restore: %#x, want %#x", step, i, got, want)
			}
		}
	}
}

// TestUnmarshalErrors checks that corrupt input is an error that leaves the
// stream unchanged.
func TestUnmarshalErrors(t *testing.T) {
	s := NewStream(KeyFromSeed(7), 1, 2, 3)
	s.Seek(5)
	good, _ := s.MarshalBinary()
	badVersion := bytes.Clone(good)
	badVersion[len(streamTag)]++
	badTag := bytes.Clone(good)
	badTag[0] ^= 1
	for name, b := range map[string][]byte{
		"nil":       nil,
		"short":     good[:len(good)-1],
		"long":      append(bytes.Clone(good), 0),
		"tag only":  good[:len(streamTag)],
		"version":   badVersion,
		"tag":       badTag,
		"pcg state": []byte("pcg:0123456789abcdef0123456789abcdef"),
	} {
		r := NewStream(KeyFromSeed(8), 0, 0, 0)
		before := r
		if err := r.UnmarshalBinary(b); err == nil {
			t.Errorf("%s: no error", name)
		} else if r != before {
			t.Errorf("%s: stream changed on error", name)
		}
	}
}

// TestZeroAlloc checks that creating streams and drawing never allocates.
func TestZeroAlloc(t *testing.T) {
	buf := make([]float64, 64)
	words := make([]uint64, 64)
	key := KeyFromSeed(9)
	allocs := testing.AllocsPerRun(100, func() {
		s := NewStream(key, 1, 2, 3)
		s.FillNormal(buf)
		s.FillFloat64(buf)
		s.FillUint64(words)
		_ = s.Normal() + s.Float64() + float64(s.Uint64())
		s.Seek(3)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

// TestPhiloxNumpyCarry checks the plain stream's counter increment with a
// carry across all four words: starting from the all-ones counter, the first
// block is that of counter 0.
func TestPhiloxNumpyCarry(t *testing.T) {
	key := [2]uint64{3, 4}
	p := NewPhilox(key, [4]uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64})
	want := Philox4x64([4]uint64{}, key)
	for i := range 4 {
		if got := p.Uint64(); got != want[i] {
			t.Fatalf("word %d = %#x, want %#x", i, got, want[i])
		}
	}
	want = Philox4x64([4]uint64{1}, key)
	if got := p.Uint64(); got != want[0] {
		t.Fatalf("word 4 = %#x, want %#x", got, want[0])
	}
}

// TestStreamAsNumpy checks the recipe of the package comment: word w of a
// Stream is word w%4 of the numpy-compatible Philox started at the counter
// (w/4, index, generation, purpose) minus one, as a 256-bit integer.
func TestStreamAsNumpy(t *testing.T) {
	key := KeyFromSeed(10)
	for _, w := range []uint64{0, 5, 1 << 20} {
		s := NewStream(key, 3, 2, 1)
		s.Seek(w)
		c := [4]uint64{w / 4, 1, 2, 3}
		// c - 1 with borrow.
		for i := range c {
			c[i]--
			if c[i] != math.MaxUint64 {
				break
			}
		}
		p := NewPhilox([2]uint64(key), c)
		for range w % 4 {
			p.Uint64()
		}
		if got, want := s.Uint64(), p.Uint64(); got != want {
			t.Errorf("word %d: Stream %#x, Philox %#x", w, got, want)
		}
	}
}
