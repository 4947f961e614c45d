package xmath

import (
	"math"
	"testing"
)

// benchInputs returns 1024 arguments in [lo, hi), spread evenly.
func benchInputs(lo, hi float64) []float64 {
	x := make([]float64, 1024)
	for i := range x {
		x[i] = lo + (hi-lo)*(float64(i)+0.5)/float64(len(x))
	}
	return x
}

// benchUnary runs f over the inputs, next to the same loop with ref (package
// math), so the two are measured in the same run.
func benchUnary(b *testing.B, lo, hi float64, f, ref func(float64) float64) {
	x := benchInputs(lo, hi)
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"xmath", f}, {"math", ref}} {
		b.Run(c.name, func(b *testing.B) {
			var sum float64
			i := 0
			for b.Loop() {
				sum += c.f(x[i&1023])
				i++
			}
		})
	}
}

func BenchmarkExp(b *testing.B)   { benchUnary(b, -700, 700, Exp, math.Exp) }
func BenchmarkExpm1(b *testing.B) { benchUnary(b, -1, 1, Expm1, math.Expm1) }
func BenchmarkLog(b *testing.B)   { benchUnary(b, 1e-10, 1e10, Log, math.Log) }
func BenchmarkLog1p(b *testing.B) { benchUnary(b, -0.5, 1, Log1p, math.Log1p) }
func BenchmarkSin(b *testing.B)   { benchUnary(b, -1e4, 1e4, Sin, math.Sin) }
func BenchmarkCos(b *testing.B)   { benchUnary(b, -1e4, 1e4, Cos, math.Cos) }
func BenchmarkSinLarge(b *testing.B) {
	benchUnary(b, 1e9, 1e12, Sin, math.Sin)
}

func BenchmarkPow(b *testing.B) {
	x, y := benchInputs(0.01, 100), benchInputs(-20, 20)
	for _, c := range []struct {
		name string
		f    func(float64, float64) float64
	}{{"xmath", Pow}, {"math", math.Pow}} {
		b.Run(c.name, func(b *testing.B) {
			var sum float64
			i := 0
			for b.Loop() {
				sum += c.f(x[i&1023], y[(i*7)&1023])
				i++
			}
		})
	}
}
