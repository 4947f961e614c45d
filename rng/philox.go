package rng

import "math/bits"

// Philox constants from Random123 (philox.h): the round multipliers and the
// Weyl key increments ("golden ratio" and "sqrt(3)-1" words).
const (
	philoxM4x64_0 = 0xD2E7470EE14C6C93
	philoxM4x64_1 = 0xCA5A826395121157
	philoxW64_0   = 0x9E3779B97F4A7C15
	philoxW64_1   = 0xBB67AE8584CAA73B

	philoxM4x32_0 = 0xD2511F53
	philoxM4x32_1 = 0xCD9E8D57
	philoxW32_0   = 0x9E3779B9
	philoxW32_1   = 0xBB67AE85
)

// Philox4x64 is the Random123 Philox4x64-10 block function: it maps the
// 256-bit counter ctr under the 128-bit key to 256 pseudo-random bits. Word 0
// of each array is Random123's v[0]. It is a pure function and never
// allocates.
func Philox4x64(ctr [4]uint64, key [2]uint64) [4]uint64 {
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	// Ten rounds (Salmon et al. 2011, Section 4.2), unrolled; the key is
	// bumped by the Weyl words between rounds.
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	c0, c1, c2, c3 = philoxRound64(c0, c1, c2, c3, k0, k1)
	return [4]uint64{c0, c1, c2, c3}
}

// philoxRound64 is one Philox4x64 round: with (hi0, lo0) = M0·c0 and
// (hi1, lo1) = M1·c2, the new words are (hi1^c1^k0, lo1, hi0^c3^k1, lo0).
func philoxRound64(c0, c1, c2, c3, k0, k1 uint64) (uint64, uint64, uint64, uint64) {
	hi0, lo0 := bits.Mul64(philoxM4x64_0, c0)
	hi1, lo1 := bits.Mul64(philoxM4x64_1, c2)
	return hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
}

// Philox4x32 is the Random123 Philox4x32-10 block function: it maps the
// 128-bit counter ctr under the 64-bit key to 128 pseudo-random bits. Word 0
// of each array is Random123's v[0].
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	for r := 0; r < 10; r++ {
		if r > 0 {
			k0 += philoxW32_0
			k1 += philoxW32_1
		}
		p0 := uint64(philoxM4x32_0) * uint64(c0)
		p1 := uint64(philoxM4x32_1) * uint64(c2)
		hi0, lo0 := uint32(p0>>32), uint32(p0)
		hi1, lo1 := uint32(p1>>32), uint32(p1)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
	}
	return [4]uint32{c0, c1, c2, c3}
}

// Philox is a plain Philox4x64-10 stream compatible with numpy's
// numpy.random.Philox bit generator: NewPhilox(key, counter) yields exactly
// the words of numpy.random.Philox(key=key, counter=counter).random_raw(),
// and Float64 the doubles of numpy.random.Generator(...).random().
//
// Like numpy, the 256-bit counter (word 0 least significant) is incremented,
// with carry, before each block is produced, so the first block uses
// counter+1; the four words of a block come out in order 0..3.
//
// A Philox is not safe for concurrent use. The strategies use Stream, whose
// draws are addressed by (purpose, generation, index) instead.
type Philox struct {
	key  [2]uint64
	ctr  [4]uint64
	buf  [4]uint64
	next int // index of the next word of buf to return; 4 means empty
}

// NewPhilox returns a numpy-compatible Philox stream with the given key and
// initial counter.
func NewPhilox(key [2]uint64, counter [4]uint64) *Philox {
	return &Philox{key: key, ctr: counter, next: 4}
}

// Uint64 returns the next 64-bit word of the stream.
func (p *Philox) Uint64() uint64 {
	if p.next == 4 {
		// numpy philox_next: increment the 256-bit counter with carry first.
		var carry uint64
		p.ctr[0], carry = bits.Add64(p.ctr[0], 1, 0)
		p.ctr[1], carry = bits.Add64(p.ctr[1], 0, carry)
		p.ctr[2], carry = bits.Add64(p.ctr[2], 0, carry)
		p.ctr[3], _ = bits.Add64(p.ctr[3], 0, carry)
		p.buf = Philox4x64(p.ctr, p.key)
		p.next = 0
	}
	v := p.buf[p.next]
	p.next++
	return v
}

// Float64 returns a uniform double in [0, 1) with 53 random bits,
// (u>>11)*2^-53 of the next word, as numpy's random() does.
func (p *Philox) Float64() float64 {
	return float64(p.Uint64()>>11) * 0x1p-53
}

// philox4x64Pair writes the Philox4x64-10 blocks of the counters
// (b, c1, c2, c3) and (b+1, c1, c2, c3) under key to dst[0:4] and dst[4:8].
// It gives exactly Philox4x64 twice, but interleaves the two blocks' rounds,
// whose multiplications are independent, so that the processor overlaps
// their latencies.
func philox4x64Pair(dst *[8]uint64, b, c1, c2, c3 uint64, key [2]uint64) {
	a0, a1, a2, a3 := b, c1, c2, c3
	b0, b1, b2, b3 := b+1, c1, c2, c3
	k0, k1 := key[0], key[1]
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	k0, k1 = k0+philoxW64_0, k1+philoxW64_1
	a0, a1, a2, a3, b0, b1, b2, b3 = philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1)
	*dst = [8]uint64{a0, a1, a2, a3, b0, b1, b2, b3}
}

// philoxPairRound is philoxRound64 on two blocks.
func philoxPairRound(a0, a1, a2, a3, b0, b1, b2, b3, k0, k1 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	ha0, la0 := bits.Mul64(philoxM4x64_0, a0)
	ha1, la1 := bits.Mul64(philoxM4x64_1, a2)
	hb0, lb0 := bits.Mul64(philoxM4x64_0, b0)
	hb1, lb1 := bits.Mul64(philoxM4x64_1, b2)
	return ha1 ^ a1 ^ k0, la1, ha0 ^ a3 ^ k1, la0, hb1 ^ b1 ^ k0, lb1, hb0 ^ b3 ^ k1, lb0
}
