package linalg

import (
	"fmt"
	"runtime"
	"testing"
)

// Benchmarks are named by size. Run them with, for example,
//
//	go test ./linalg -run '^$' -bench . -benchtime=200ms -cpu 1
//
// Products report GFLOP/s; the "naive" sub-benchmarks are the plain loops
// the kernels are measured against in the same run.

// run times fn with b.Loop and reports, besides ns/op, the thread CPU time
// per operation (cpu-ns/op, where the platform provides it) and, for
// flopsPerOp > 0, GFLOP/s from both wall time and CPU time. On a shared
// machine wall time includes the time the benchmark waited for a core;
// CPU time does not.
func run(b *testing.B, flopsPerOp float64, fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, ok := threadCPUTime()
	for b.Loop() {
		fn()
	}
	cpu1, _ := threadCPUTime()
	n := float64(b.N)
	if flopsPerOp > 0 {
		b.ReportMetric(flopsPerOp*n/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	if ok {
		cpuSec := (cpu1 - cpu0).Seconds()
		b.ReportMetric(cpuSec/n*1e9, "cpu-ns/op")
		if flopsPerOp > 0 && cpuSec > 0 {
			b.ReportMetric(flopsPerOp*n/cpuSec/1e9, "cpu-GFLOP/s")
		}
	}
}

func BenchmarkMulVec(b *testing.B) {
	for _, d := range []int{10, 100, 1000, 2000} {
		rng := newRNG(100)
		a := randDense(rng, d, d)
		x := randVec(rng, d)
		y := make([]float64, d)
		flops := 2 * float64(d) * float64(d)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			run(b, flops, func() { MulVec(y, a, x) })
		})
		b.Run(fmt.Sprintf("naive/d=%d", d), func(b *testing.B) {
			run(b, flops, func() { naiveMulVec(y, a.data, x) })
		})
	}
}

// naiveMulVec is the plain double loop baseline for y = A·x (A d×d, dense).
func naiveMulVec(y, a, x []float64) {
	d := len(x)
	for i := range y {
		var s float64
		for j := 0; j < d; j++ {
			s += a[i*d+j] * x[j]
		}
		y[i] = s
	}
}

func BenchmarkMulVecT(b *testing.B) {
	for _, d := range []int{100, 1000} {
		rng := newRNG(101)
		a := randDense(rng, d, d)
		x := randVec(rng, d)
		y := make([]float64, d)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			run(b, 2*float64(d)*float64(d), func() { MulVecT(y, a, x) })
		})
	}
}

// BenchmarkAddOuterSum compares the rank-8 update in one pass over A with
// eight y = A·x products and eight rank-one updates (16·d² flops each).
func BenchmarkAddOuterSum(b *testing.B) {
	const k = 8
	for _, d := range []int{100, 1000} {
		rng := newRNG(102)
		a := randDense(rng, d, d)
		x := randDense(rng, k, d)
		y := randDense(rng, k, d)
		alpha := randVec(rng, k)
		for i := range alpha {
			alpha[i] *= 1e-9 // keep A from growing over many iterations
		}
		dst := make([]float64, d)
		flops := 2 * k * float64(d) * float64(d)
		b.Run(fmt.Sprintf("rank=8/d=%d", d), func(b *testing.B) {
			run(b, flops, func() { a.AddOuterSum(alpha, x, y) })
		})
		b.Run(fmt.Sprintf("8xMulVec/d=%d", d), func(b *testing.B) {
			run(b, flops, func() {
				for r := 0; r < k; r++ {
					MulVec(dst, a, x.RawRow(r))
				}
			})
		})
		prod := NewDense(k, d, nil)
		b.Run(fmt.Sprintf("DotRows8/d=%d", d), func(b *testing.B) {
			run(b, flops, func() { prod.DotRows(x, a) })
		})
		b.Run(fmt.Sprintf("8xAddOuter/d=%d", d), func(b *testing.B) {
			run(b, flops, func() {
				for r := 0; r < k; r++ {
					a.AddOuter(alpha[r], x.RawRow(r), y.RawRow(r))
				}
			})
		})
	}
}

func BenchmarkMul(b *testing.B) {
	for _, n := range []int{64, 256, 512} {
		rng := newRNG(103)
		x := randDense(rng, n, n)
		y := randDense(rng, n, n)
		c := NewDense(n, n, nil)
		flops := 2 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			run(b, flops, func() { c.Mul(x, y) })
		})
		b.Run(fmt.Sprintf("naive-ijk/n=%d", n), func(b *testing.B) {
			run(b, flops, func() { naiveMulIJK(c.data, x.data, y.data, n) })
		})
		b.Run(fmt.Sprintf("naive-ikj/n=%d", n), func(b *testing.B) {
			run(b, flops, func() { naiveMulIKJ(c.data, x.data, y.data, n) })
		})
	}
}

// naiveMulIJK is the textbook triple loop c = a·b for n×n matrices.
func naiveMulIJK(c, a, b []float64, n int) {
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = s
		}
	}
}

// naiveMulIKJ is the row-oriented triple loop (unit stride inner loop).
func naiveMulIKJ(c, a, b []float64, n int) {
	clear(c)
	for i := 0; i < n; i++ {
		ci := c[i*n : i*n+n]
		for k := 0; k < n; k++ {
			aik := a[i*n+k]
			bk := b[k*n : k*n+n]
			for j := range ci {
				ci[j] += aik * bk[j]
			}
		}
	}
}

func BenchmarkMulTA(b *testing.B) {
	for _, n := range []int{100, 500} {
		a := randDense(newRNG(104), n, n)
		var c Dense
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			// Only the upper triangle is computed: n·n·(n+1) flops.
			run(b, float64(n)*float64(n)*float64(n+1), func() { c.MulTA(a) })
		})
	}
}

func BenchmarkSymEig(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		a := randSym(newRNG(105), n)
		var eig EigenSym
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			run(b, 0, func() {
				if err := eig.Factorize(a, true); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("values/n=%d", n), func(b *testing.B) {
			run(b, 0, func() {
				if err := eig.Factorize(a, false); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkGramSchmidt(b *testing.B) {
	const k, d = 8, 1000
	// Orthonormalising the previous result again costs exactly as much as
	// the first time (same passes; the DGKS test does not fire), so v is
	// not refilled between iterations.
	v := randDense(newRNG(106), k, d)
	norms := make([]float64, k)
	b.Run(fmt.Sprintf("k=%d/d=%d", k, d), func(b *testing.B) {
		run(b, 0, func() {
			if err := GramSchmidt(v, norms); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func BenchmarkCholesky(b *testing.B) {
	for _, n := range []int{100, 500} {
		rng := newRNG(107)
		g := randDense(rng, n, n)
		var a Dense
		a.MulAAT(g)
		for i := 0; i < n; i++ {
			a.Set(i, i, a.At(i, i)+float64(n))
		}
		var c Cholesky
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			run(b, float64(n)*float64(n)*float64(n)/3, func() {
				if err := c.Factorize(&a); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
