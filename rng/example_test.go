package rng_test

import (
	"fmt"

	"github.com/hees-dev/hees/rng"
)

// Candidate k of generation g draws from its own sub-stream, so the values
// do not depend on the order (or goroutine) in which candidates are drawn.
func ExampleNewStream() {
	const purposeSample rng.Purpose = 2 // callers define their purposes
	key := rng.KeyFromSeed(42)
	z := make([]float64, 3)
	for k := uint64(2); ; k-- { // any order gives the same rows
		s := rng.NewStream(key, purposeSample, 7, k)
		s.FillNormal(z)
		fmt.Printf("candidate %d: %.4f\n", k, z)
		if k == 0 {
			break
		}
	}
	// Output:
	// candidate 2: [0.9727 -0.5397 -0.8800]
	// candidate 1: [0.5806 -0.3785 -1.2796]
	// candidate 0: [-0.2974 0.2755 0.4843]
}

// A saved stream continues with exactly the next value.
func ExampleStream_MarshalBinary() {
	s := rng.NewStream(rng.KeyFromSeed(1), 1, 0, 0)
	s.Normal()
	saved, _ := s.MarshalBinary()
	next := s.Normal()

	var restored rng.Stream
	if err := restored.UnmarshalBinary(saved); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(restored.Normal() == next, restored.Pos() == s.Pos())
	// Output: true true
}

// The plain Philox stream reproduces numpy:
// numpy.random.Philox(key=[0, 0]).random_raw(2) and
// numpy.random.Generator(numpy.random.Philox(key=[0, 0])).random().
func ExampleNewPhilox() {
	p := rng.NewPhilox([2]uint64{0, 0}, [4]uint64{})
	fmt.Printf("%#x %#x\n", p.Uint64(), p.Uint64())
	q := rng.NewPhilox([2]uint64{0, 0}, [4]uint64{})
	fmt.Println(q.Float64())
	// Output:
	// 0x2f4ba6408e4d89b 0x3dd62b0b9ca8c5b2
	// 0.011546754286331562
}

// The block function is a pure function of counter and key (Random123's
// known-answer test for the zero counter and key).
func ExamplePhilox4x64() {
	fmt.Printf("%016x\n", rng.Philox4x64([4]uint64{}, [2]uint64{}))
	// Output: [16554d9eca36314c db20fe9d672d0fdc d7e772cee186176b 7e68b68aec7ba23b]
}
