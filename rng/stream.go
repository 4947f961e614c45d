package rng

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Key is the 128-bit Philox key of a run, normally derived from the user's
// seed with KeyFromSeed.
type Key [2]uint64

// splitmix64Gamma is the Weyl increment of SplitMix64 (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014).
const splitmix64Gamma = 0x9E3779B97F4A7C15

// splitmix64Mix is SplitMix64's output function (the "mix64" variant 13
// finaliser of Stafford, as used in java.util.SplittableRandom).
func splitmix64Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// KeyFromSeed derives the Philox key of a run from a user seed: the key
// words are the first two outputs of SplitMix64 started at seed, that is
// Key{mix(seed + γ), mix(seed + 2γ)} with γ = 0x9E3779B97F4A7C15 and mix
// SplitMix64's output function. Distinct seeds give distinct keys (the map
// seed → key[0] is a bijection).
func KeyFromSeed(seed uint64) Key {
	return Key{
		splitmix64Mix(seed + splitmix64Gamma),
		splitmix64Mix(seed + splitmix64Gamma + splitmix64Gamma),
	}
}

// Purpose names what a sub-stream is used for (sampling, initial point,
// ...). Callers define their own constants; distinct purposes give
// non-overlapping sub-streams.
type Purpose uint64

// Stream is the sub-stream of a run addressed by (key, purpose, generation,
// index): a Philox4x64-10 stream over counter blocks
// (block, index, generation, purpose) for block = 0, 1, 2, ...; see the
// package comment for the layout.
//
// Stream is a small value type: creating or copying one never allocates, and
// the zero value is the stream (Key{}, 0, 0, 0) at position 0. A copy
// continues independently from the same position. A Stream is not safe for
// concurrent use; give each goroutine its own.
type Stream struct {
	key        Key
	purpose    Purpose
	generation uint64
	index      uint64
	pos        uint64    // words consumed so far
	buf        [8]uint64 // blocks 2⌊pos/8⌋ and 2⌊pos/8⌋+1, valid whenever pos%8 != 0
}

// NewStream returns the sub-stream (key, purpose, generation, index) at
// position 0.
func NewStream(key Key, purpose Purpose, generation, index uint64) Stream {
	return Stream{key: key, purpose: purpose, generation: generation, index: index}
}

// Reset makes s the sub-stream (key, purpose, generation, index) at position
// 0, exactly as NewStream would.
func (s *Stream) Reset(key Key, purpose Purpose, generation, index uint64) {
	*s = Stream{key: key, purpose: purpose, generation: generation, index: index}
}

// blocks computes the counter blocks b and b+1 of the sub-stream (package
// comment table) into dst.
func (s *Stream) blocks(dst *[8]uint64, b uint64) {
	philox4x64Pair(dst, b, s.index, s.generation, uint64(s.purpose), s.key)
}

// refill loads the pair of blocks holding word s.pos into the buffer.
func (s *Stream) refill() {
	s.blocks(&s.buf, s.pos>>3<<1)
}

// Uint64 returns the next 64-bit word of the sub-stream.
func (s *Stream) Uint64() uint64 {
	p := s.pos
	if p&7 == 0 {
		s.refill()
	}
	s.pos = p + 1
	return s.buf[p&7]
}

// buffered returns the next word and true when it is in the buffer, and
// leaves s unchanged with false when the next word needs a refill: the fast
// case of Uint64, small enough for the inliner (Uint64 is not).
func (s *Stream) buffered() (uint64, bool) {
	p := s.pos
	if p&7 == 0 {
		return 0, false
	}
	s.pos = p + 1
	return s.buf[p&7], true
}

// FillUint64 fills dst with the next len(dst) words, exactly as repeated
// calls to Uint64 would, generating whole blocks straight into dst.
func (s *Stream) FillUint64(dst []uint64) {
	for len(dst) > 0 && s.pos&7 != 0 {
		dst[0] = s.Uint64()
		dst = dst[1:]
	}
	for len(dst) >= 8 {
		s.blocks((*[8]uint64)(dst), s.pos>>2)
		s.pos += 8
		dst = dst[8:]
	}
	for i := range dst {
		dst[i] = s.Uint64()
	}
}

// Float64 returns a uniform double in [0, 1) with 53 random bits: (u>>11)·2^-53
// of the next word u. It is exact, hence identical on every platform.
func (s *Stream) Float64() float64 {
	return float64(s.Uint64()>>11) * 0x1p-53
}

// FillFloat64 fills dst with uniforms, exactly as repeated calls to Float64
// would.
func (s *Stream) FillFloat64(dst []float64) {
	for i := range dst {
		dst[i] = s.Float64()
	}
}

// Seek moves s to position word (counted in 64-bit words from the start of
// the sub-stream), so that the next Uint64 returns word number word. Seeking
// is O(1).
func (s *Stream) Seek(word uint64) {
	s.pos = word
	if s.pos&7 != 0 {
		s.refill()
	}
}

// Pos returns the number of 64-bit words consumed from the sub-stream, that
// is the position a Seek would restore.
func (s *Stream) Pos() uint64 {
	return s.pos
}

// streamTag starts every marshaled Stream; the byte after it is the version.
const (
	streamTag     = "hees/rng.Stream"
	streamVersion = 1
	streamLen     = len(streamTag) + 1 + 6*8
)

// MarshalBinary encodes the stream's address and position: the tag
// "hees/rng.Stream", a version byte (1), then key[0], key[1], purpose,
// generation, index and position as big-endian uint64. It never fails.
func (s *Stream) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, streamLen)
	b = append(b, streamTag...)
	b = append(b, streamVersion)
	for _, w := range [...]uint64{s.key[0], s.key[1], uint64(s.purpose), s.generation, s.index, s.pos} {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return b, nil
}

// UnmarshalBinary restores a stream encoded by MarshalBinary; it continues
// with exactly the word that would have come next. Input of the wrong
// length, tag or version is an error and leaves s unchanged.
func (s *Stream) UnmarshalBinary(b []byte) error {
	if len(b) < len(streamTag)+1 || string(b[:len(streamTag)]) != streamTag {
		return errors.New("rng: UnmarshalBinary: not an encoded Stream (missing tag \"" + streamTag + "\")")
	}
	if v := b[len(streamTag)]; v != streamVersion {
		return fmt.Errorf("rng: UnmarshalBinary: unsupported Stream encoding version %d (want %d)", v, streamVersion)
	}
	if len(b) != streamLen {
		return fmt.Errorf("rng: UnmarshalBinary: encoded Stream has %d bytes, want %d", len(b), streamLen)
	}
	w := b[len(streamTag)+1:]
	word := func(i int) uint64 { return binary.BigEndian.Uint64(w[8*i:]) }
	s.Reset(Key{word(0), word(1)}, Purpose(word(2)), word(3), word(4))
	s.Seek(word(5))
	return nil
}
