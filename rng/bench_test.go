package rng

import (
	"math/rand/v2"
	"testing"
)

// The benchmarks put math/rand/v2 next to this package in the same run, so
// that ratios are meaningful on a loaded machine. Bulk figures are also
// reported per 64-bit word or per normal (ns/word, ns/normal).

func BenchmarkUint64(b *testing.B) {
	b.Run("Stream.Uint64", func(b *testing.B) {
		s := NewStream(KeyFromSeed(1), 1, 0, 0)
		var sum uint64
		for b.Loop() {
			sum += s.Uint64()
		}
	})
	b.Run("Stream.FillUint64/n=1024", func(b *testing.B) {
		s := NewStream(KeyFromSeed(1), 1, 0, 0)
		buf := make([]uint64, 1024)
		for b.Loop() {
			s.FillUint64(buf)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(buf)), "ns/word")
	})
	b.Run("Philox.Uint64", func(b *testing.B) {
		p := NewPhilox([2]uint64{1, 2}, [4]uint64{})
		var sum uint64
		for b.Loop() {
			sum += p.Uint64()
		}
	})
	b.Run("rand.ChaCha8.Uint64", func(b *testing.B) {
		c := rand.NewChaCha8([32]byte{1})
		var sum uint64
		for b.Loop() {
			sum += c.Uint64()
		}
	})
	b.Run("rand.PCG.Uint64", func(b *testing.B) {
		p := rand.NewPCG(1, 2)
		var sum uint64
		for b.Loop() {
			sum += p.Uint64()
		}
	})
}

func BenchmarkPhilox4x64(b *testing.B) {
	var ctr [4]uint64
	key := [2]uint64{1, 2}
	for b.Loop() {
		ctr = Philox4x64(ctr, key)
	}
}

func BenchmarkNormal(b *testing.B) {
	b.Run("Stream.Normal", func(b *testing.B) {
		s := NewStream(KeyFromSeed(1), 1, 0, 0)
		var sum float64
		for b.Loop() {
			sum += s.Normal()
		}
	})
	b.Run("Stream.FillNormal/n=1000", func(b *testing.B) {
		s := NewStream(KeyFromSeed(1), 1, 0, 0)
		buf := make([]float64, 1000)
		for b.Loop() {
			s.FillNormal(buf)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(buf)), "ns/normal")
	})
	b.Run("rand.PCG.NormFloat64", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		var sum float64
		for b.Loop() {
			sum += r.NormFloat64()
		}
	})
	b.Run("rand.ChaCha8.NormFloat64", func(b *testing.B) {
		r := rand.New(rand.NewChaCha8([32]byte{1}))
		var sum float64
		for b.Loop() {
			sum += r.NormFloat64()
		}
	})
}

// BenchmarkNewStream shows that addressing a sub-stream costs nothing until
// the first word.
func BenchmarkNewStream(b *testing.B) {
	key := KeyFromSeed(1)
	var sum uint64
	for i := uint64(0); b.Loop(); i++ {
		s := NewStream(key, 1, i, i)
		sum += s.Uint64()
	}
}
