package objectives

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

// allSpecs lists one spec of every function of the package, BBOB included.
func allSpecs() []string {
	specs := []string{
		"sphere", "ellipsoid", "rotellipsoid", "cigar", "discus", "twoaxes",
		"diffpowers", "rosenbrock", "rastrigin", "quadratic",
	}
	for f := 1; f <= BBOBFunctions; f++ {
		specs = append(specs, fmt.Sprintf("bbob/f%d/i2", f))
	}
	return specs
}

// TestEvalAllocations checks that Eval allocates nothing in steady state.
func TestEvalAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	const dim = 10
	x := referencePoint(5, 5, dim, 1)
	for _, spec := range allSpecs() {
		p, err := Parse(spec, dim)
		if err != nil {
			t.Fatal(err)
		}
		sink := 0.0
		if allocs := testing.AllocsPerRun(100, func() { sink += p.Eval(x) }); allocs != 0 {
			t.Errorf("%s: Eval allocates %v times per call", spec, allocs)
		}
		if math.IsNaN(sink) {
			t.Errorf("%s: NaN at %v", spec, x)
		}
	}
}

// TestEvalConcurrent evaluates every problem from many goroutines at once
// and checks that each value is the one a single goroutine computes. Run
// with -race to also check for data races.
func TestEvalConcurrent(t *testing.T) {
	const dim, points, workers = 7, 40, 8
	xs := make([][]float64, points)
	for k := range xs {
		xs[k] = referencePoint(7, 7, dim, k+1)
	}
	for _, spec := range allSpecs() {
		p, err := Parse(spec, dim)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, points)
		for k, x := range xs {
			want[k] = p.Eval(x)
		}
		var wg sync.WaitGroup
		errs := make(chan string, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rep := range 20 {
					k := (w*7 + rep*3) % points
					if got := p.Eval(xs[k]); got != want[k] {
						errs <- fmt.Sprintf("%s: goroutine %d got %v at point %d, want %v", spec, w, got, k, want[k])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// TestEvalDoesNotModifyInput checks that Eval leaves x alone.
func TestEvalDoesNotModifyInput(t *testing.T) {
	for _, spec := range allSpecs() {
		p, err := Parse(spec, 6)
		if err != nil {
			t.Fatal(err)
		}
		x := referencePoint(3, 3, 6, 1)
		keep := append([]float64(nil), x...)
		p.Eval(x)
		for i := range x {
			if x[i] != keep[i] {
				t.Fatalf("%s: Eval changed x[%d] from %v to %v", spec, i, keep[i], x[i])
			}
		}
	}
}

// BenchmarkBBOB measures Eval of every BBOB function (instance 1) at d = 40.
func BenchmarkBBOB(b *testing.B) {
	const dim = 40
	x := referencePoint(1, 1, dim, 1)
	for f := 1; f <= BBOBFunctions; f++ {
		p, err := NewBBOB(f, 1, dim)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("f%d/d=%d", f, dim), func(b *testing.B) {
			sink := 0.0
			for b.Loop() {
				sink += p.Eval(x)
			}
			if math.IsNaN(sink) {
				b.Fatal("NaN")
			}
		})
	}
}

// BenchmarkClassic measures Eval of the classic functions at d = 40.
func BenchmarkClassic(b *testing.B) {
	const dim = 40
	x := referencePoint(1, 1, dim, 2)
	for _, spec := range allSpecs()[:10] {
		p, err := Parse(spec, dim)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/d=%d", spec, dim), func(b *testing.B) {
			sink := 0.0
			for b.Loop() {
				sink += p.Eval(x)
			}
			if math.IsNaN(sink) {
				b.Fatal("NaN")
			}
		})
	}
}

// BenchmarkNewBBOB measures building a BBOB problem at d = 40 (rotations,
// combined matrices, Gallagher peaks).
func BenchmarkNewBBOB(b *testing.B) {
	for _, f := range []int{1, 6, 21} {
		b.Run(fmt.Sprintf("f%d/d=40", f), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewBBOB(f, 1, 40); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
