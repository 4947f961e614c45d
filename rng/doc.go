// Package rng provides counter-based, bit-reproducible random numbers: the
// Philox block functions of Random123 (Salmon, Moraes, Dror & Shaw,
// "Parallel Random Numbers: As Easy as 1, 2, 3", SC 2011), a
// numpy-compatible Philox stream, and seeded sub-streams addressed by
// (purpose, generation, index) for the strategies.
//
// # Sub-streams
//
// Every draw of a run is a pure function of the run's key and an address, not
// of a shared generator's history, so results do not depend on how many
// goroutines evaluate a population, in which order, or whether the run was
// saved and restored in between. The key comes from the user's seed
// (KeyFromSeed); a Stream is the sub-stream (key, purpose, generation, index)
// and its 64-bit words are the outputs of Philox4x64-10 over the counter
// blocks
//
//	counter word   holds                            set by
//	ctr[0]         block number within the          the Stream (0, 1, 2, ...;
//	               sub-stream                       word w is in block w/4)
//	ctr[1]         index                            caller (e.g. candidate k)
//	ctr[2]         generation                       caller (e.g. iteration g)
//	ctr[3]         purpose                          caller (a Purpose constant)
//	key[0], key[1] KeyFromSeed(seed)                caller
//
// Distinct (purpose, generation, index) triples use disjoint counter blocks,
// so sub-streams never overlap: each has 2^64 blocks, of which Seek and Pos
// address the first 2^62 (2^64 words). Within a block the four words come
// out in order 0..3.
//
// # Bits on every platform
//
// Philox and the conversions Float64 ((u>>11)·2^-53) are integer or exact
// operations. Normal is a ziggurat whose tables are constants and whose rare
// slow paths use the portable elementary functions of internal/xmath, so the
// normals are the same bits on amd64 (any GOAMD64 level), arm64 and every
// other GOARCH; testdata/normals.golden pins the first 1000.
//
// # numpy
//
// NewPhilox gives exactly the stream of numpy.random.Philox(key=...,
// counter=...): random_raw() words from Uint64, random() doubles from
// Float64. A Python user can reproduce word w of a Stream as word w%4 of
//
//	numpy.random.Philox(key=[key0, key1], counter=c - 1).random_raw(4)
//
// with c = w//4 + index·2^64 + generation·2^128 + purpose·2^192 as one
// 256-bit integer (numpy increments the counter before each block).
//
// Nothing in this package has global state; a Stream or Philox is not safe
// for concurrent use, but copies are independent and cheap.
package rng
