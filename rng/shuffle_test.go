package rng

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"testing"
)

// TestShuffleUniform checks that Shuffle gives every permutation of 4
// elements equally often (chi-square over the 24 of them) and that it
// permutes: the elements stay the same.
func TestShuffleUniform(t *testing.T) {
	const n, draws = 4, 240000
	counts := map[[n]int]int{}
	st := NewStream(KeyFromSeed(1), 9, 0, 0)
	p := make([]int, n)
	for range draws {
		for i := range p {
			p[i] = i
		}
		st.Shuffle(p)
		counts[[n]int(p)]++
	}
	if len(counts) != 24 {
		t.Fatalf("%d distinct permutations of 4 elements, want 24", len(counts))
	}
	chi2 := chiSquare(slices.Collect(maps.Values(counts)), draws)
	// 23 degrees of freedom: P(chi2 > 49.7) = 0.001.
	if chi2 > 49.7 {
		t.Errorf("chi-square %.1f over 24 permutations, want < 49.7", chi2)
	}
}

// TestShuffleRejects checks the batched indices on 20 elements, whose 19
// bounds share one word with P = 20! ≈ 0.13 · 2^64: the words are
// rejected at the rate (2^64 mod P)/2^64 = 7.68% that makes the indices
// exact (the bias the rejection removes is spread too finely over the
// values of floor(r P / 2^64) for a marginal to show it), and the element
// that lands in the last place is uniform.
func TestShuffleRejects(t *testing.T) {
	const n, draws = 20, 200000
	st := NewStream(KeyFromSeed(2), 9, 0, 0)
	var counts [n]int
	p := make([]int, n)
	for range draws {
		for i := range p {
			p[i] = i
		}
		st.Shuffle(p)
		counts[p[n-1]]++
		if !slices.Equal(slices.Sorted(slices.Values(p)), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
			t.Fatalf("Shuffle lost elements: %v", p)
		}
	}
	if words := float64(st.Pos()) / draws; math.Abs(words-1/(1-0.0768)) > 0.005 {
		t.Errorf("%.4f words per shuffle of 20, want %.4f (7.7%% rejected)", words, 1/(1-0.0768))
	}
	chi2 := chiSquare(counts[:], draws)
	// 19 degrees of freedom: P(chi2 > 43.8) = 0.001.
	if chi2 > 43.8 {
		t.Errorf("chi-square %.1f over the last element, want < 43.8: %v", chi2, counts)
	}
}

// TestShuffleLong checks a shuffle of 100 elements, whose bounds need
// several words: every element lands in the first and in the last place
// about equally often.
func TestShuffleLong(t *testing.T) {
	const n, draws = 100, 50000
	st := NewStream(KeyFromSeed(3), 9, 0, 0)
	var first, last [n]int
	p := make([]int, n)
	for range draws {
		for i := range p {
			p[i] = i
		}
		st.Shuffle(p)
		first[p[0]]++
		last[p[n-1]]++
	}
	for _, counts := range [][n]int{first, last} {
		chi2 := chiSquare(counts[:], draws)
		// 99 degrees of freedom: P(chi2 > 148.2) = 0.001.
		if chi2 > 148.2 {
			t.Errorf("chi-square %.1f, want < 148.2", chi2)
		}
	}
}

// TestShuffleMixedRadix checks the exactness argument of Shuffle word by
// word: for n <= 20 elements, an accepted word r (r·n! mod 2^64 not below
// 2^64 mod n!) gives the swaps of Fisher-Yates whose indices j_n, ...,
// j_2 (j_b uniform on 0..b-1) are the mixed-radix digits of
// floor(r·n!/2^64), most significant first, and takes one word; a word
// to reject makes it draw more. As the accepted words spread
// floor(r·n!/2^64) evenly over 0..n!-1, every permutation is equally
// likely. The test finds these digits by division, not as Shuffle does,
// and checks that Shuffle does not allocate.
func TestShuffleMixedRadix(t *testing.T) {
	for _, n := range []int{2, 3, 7, 13, 20} {
		fact := uint64(1)
		for b := 2; b <= n; b++ {
			fact *= uint64(b)
		}
		thresh := -fact % fact // 2^64 mod n!
		st := NewStream(KeyFromSeed(4), 9, 0, uint64(n))
		p, want := make([]int, n), make([]int, n)
		rejected := 0
		for range 2000 {
			pos := st.Pos()
			r := st.Uint64()
			st.Seek(pos)
			q, lo := bits.Mul64(r, fact)
			for i := range p {
				p[i], want[i] = i, i
			}
			st.Shuffle(p)
			if lo < thresh {
				if st.Pos() == pos+1 {
					t.Fatalf("n=%d, word %#x: a word to reject, and Shuffle took it alone", n, r)
				}
				rejected++
				continue
			}
			if st.Pos() != pos+1 {
				t.Fatalf("n=%d: an accepted word, and Shuffle took %d words", n, st.Pos()-pos)
			}
			rest, weight := q, fact
			for b := n; b >= 2; b-- {
				weight /= uint64(b)
				j := int(rest / weight)
				rest %= weight
				want[b-1], want[j] = want[j], want[b-1]
			}
			if !slices.Equal(p, want) {
				t.Fatalf("n=%d, word %#x: Shuffle gave %v, the digits of floor(r n!/2^64) = %d give %v", n, r, p, q, want)
			}
		}
		if n == 20 && rejected == 0 {
			t.Errorf("n=20: no word rejected in 2000 (rate 7.7%%): the rejection was not exercised")
		}
	}
	p := make([]int, 100)
	st := NewStream(KeyFromSeed(5), 9, 0, 0)
	if a := testing.AllocsPerRun(100, func() { st.Shuffle(p) }); a != 0 {
		t.Errorf("Shuffle of 100 elements: %v allocations, want 0", a)
	}
}
