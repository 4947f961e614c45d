//go:build amd64 && !purego

package linalg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// kernelValues returns n values for the kernel comparison: normal numbers
// scaled over 60 binary orders of magnitude, so that any change in the
// order of the additions changes the rounded result, and, if special is
// set, some zeros of both signs, subnormals, infinities and NaNs.
func kernelValues(rng *rand.Rand, n int, special bool) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(61)-30)
		if special && rng.IntN(8) == 0 {
			x[i] = []float64{0, math.Copysign(0, -1), 0x1p-1060, -0x1p-1070, math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(7)]
		}
	}
	return x
}

// sameResult reports whether two kernel results are the same bits, counting
// any two NaNs as the same (x86 propagates a NaN's payload from whichever
// operand the instruction lists first, which the compiler chooses).
func sameResult(a, b float64) bool {
	return sameBits(a, b) || math.IsNaN(a) && math.IsNaN(b)
}

func sameVectors(a, b []float64) bool {
	for i := range a {
		if !sameResult(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestKernelsMatch checks that every AVX2 kernel gives the bits of its Go
// twin, for all lengths up to 70 (every remainder mod 4 and mod 32), at
// four element offsets into their arrays (which move the 32-byte loads
// across alignments), with and without special values.
func TestKernelsMatch(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: only the Go kernels run")
	}
	rng := newRNG(120)
	for n := 0; n <= 70; n++ {
		for off := 0; off < 4; off++ {
			for _, special := range []bool{false, true} {
				// Slices start off elements into their arrays.
				vec := func(m int) []float64 { return kernelValues(rng, m+off, special)[off:] }
				x, y, z := vec(n), vec(n), vec(n)
				stride := n + rng.IntN(5)
				a := vec(3*stride + n)
				var four [4]float64
				four[0], four[1], four[2], four[3] = dot4AVX2(x, a, stride)
				for r, got := range four {
					if want := dotGo(x, a[r*stride:]); !sameResult(got, want) {
						t.Fatalf("dot4 n=%d off=%d row %d: AVX2 %x, Go %x", n, off, r, got, want)
					}
				}

				bstride := n + rng.IntN(5)
				b := vec(bstride + n)
				var eight [8]float64
				dot4x2AVX2(a, stride, b, bstride, n, &eight)
				for r := range 4 {
					for c := range 2 {
						if got, want := eight[2*r+c], dotGo(a[r*stride:r*stride+n], b[c*bstride:]); !sameResult(got, want) {
							t.Fatalf("dot4x2 n=%d off=%d row %d by %d: AVX2 %x, Go %x", n, off, r, c, got, want)
						}
					}
				}

				alpha, beta := kernelValues(rng, 1, false)[0], kernelValues(rng, 1, false)[0]
				compareVectorKernels(t, fmt.Sprintf("n=%d off=%d", n, off), x, y, z, alpha, beta)
				yAsm, yGo := append([]float64(nil), y...), append([]float64(nil), y...)
				got, want := axpyDotAVX2(alpha, x, yAsm, yAsm), axpyDotGo(alpha, x, yGo, yGo)
				if !sameResult(got, want) || !sameVectors(yAsm, yGo) {
					t.Fatalf("axpyDot with z = y, n=%d off=%d: AVX2 %x, Go %x (or y differs)", n, off, got, want)
				}

				var cs [8]float64
				for j := 0; j < 4; j++ {
					theta := rng.Float64() * 2 * math.Pi
					cs[2*j], cs[2*j+1] = math.Cos(theta), math.Sin(theta)
				}
				rows := vec(5 * n)
				rowsAsm, rowsGo := append([]float64(nil), rows...), append([]float64(nil), rows...)
				rotate4(rowsAsm, n, &cs)
				rotate4Go(rowsGo, n, n, &cs)
				if !sameVectors(rowsAsm, rowsGo) {
					t.Fatalf("rotate4 n=%d off=%d: AVX2 %v, Go %v", n, off, rowsAsm, rowsGo)
				}

				for _, k := range []int{1, 2, 8, 32} {
					for _, r := range []int{1, 3} {
						coef := kernelValues(rng, k, false)
						ms, xs, ys := n+rng.IntN(3), r+rng.IntN(3), n+rng.IntN(5)
						xk, yk := vec((k-1)*xs+r), vec((k-1)*ys+n)
						m := vec(max(0, (r-1)*ms+n))
						mAsm, mGo := append([]float64(nil), m...), append([]float64(nil), m...)
						addOuterBlock(mAsm, ms, r, n, coef, xk, xs, yk, ys)
						addOuterBlockGo(mGo, ms, r, n, coef, xk, xs, yk, ys)
						if !sameVectors(mAsm, mGo) {
							t.Fatalf("addOuterBlock n=%d off=%d k=%d r=%d: AVX2 %v, Go %v", n, off, k, r, mAsm, mGo)
						}
					}
				}
			}
		}
	}
}

// TestMulVecKernelsMatch checks the four-row MulVec and the row-update
// MulVecT of amd64 against the Go versions for every row count mod 4 and
// padded strides.
func TestMulVecKernelsMatch(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: only the Go kernels run")
	}
	rng := newRNG(121)
	for _, rows := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 70} {
		for _, cols := range []int{1, 3, 4, 7, 33} {
			a := padded(randDense(rng, rows, cols), rng.IntN(3))
			x := kernelValues(rng, cols, false)
			got, want := junkVec(rows), junkVec(rows)
			mulVec(got, a, x)
			mulVecGo(want, a, x)
			if !sameVectors(got, want) {
				t.Fatalf("%d×%d: AVX2 %v, Go %v", rows, cols, got, want)
			}
			xt := kernelValues(rng, rows, false)
			got, want = junkVec(cols), junkVec(cols)
			mulVecT(got, a, xt)
			mulVecTGo(want, a, xt)
			if !sameVectors(got, want) {
				t.Fatalf("%d×%d transposed: AVX2 %v, Go %v", rows, cols, got, want)
			}
		}
	}
}

// FuzzKernels compares the AVX2 kernels with their Go twins on arbitrary
// bit patterns: the input is cut into three vectors (or five rows) of
// 8-byte floats, and alpha is a coefficient and a rotation angle.
func FuzzKernels(f *testing.F) {
	f.Add([]byte{}, uint64(0))
	f.Add(make([]byte, 8*3*9), math.Float64bits(-1.5))
	f.Fuzz(func(t *testing.T, data []byte, alphaBits uint64) {
		if !useAVX2 {
			t.Skip("this CPU has no AVX2")
		}
		vals := make([]float64, len(data)/8)
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		n := len(vals) / 3
		x, y, z := vals[:n], vals[n:2*n], vals[2*n:3*n]
		alpha := math.Float64frombits(alphaBits)
		compareVectorKernels(t, "fuzz input", x, y, z, alpha, -alpha)
		// Six rows of m values: four of a, two of b.
		m := len(vals) / 6
		var eight [8]float64
		dot4x2AVX2(vals, m, vals[4*m:], m, m, &eight)
		for r := range 4 {
			for c := range 2 {
				if want := dotGo(vals[r*m:(r+1)*m], vals[(4+c)*m:]); !sameResult(eight[2*r+c], want) {
					t.Fatalf("dot4x2 row %d by %d: AVX2 %x, Go %x", r, c, eight[2*r+c], want)
				}
			}
		}
		c, sn := math.Cos(alpha), math.Sin(alpha)
		if m := len(vals) / 5; m > 0 {
			cs := [8]float64{c, sn, sn, c, -c, sn, alpha, 1 - alpha}
			rowsAsm, rowsGo := append([]float64(nil), vals[:5*m]...), append([]float64(nil), vals[:5*m]...)
			rotate4(rowsAsm, m, &cs)
			rotate4Go(rowsGo, m, m, &cs)
			if !sameVectors(rowsAsm, rowsGo) {
				t.Fatalf("rotate4: AVX2 %v, Go %v", rowsAsm, rowsGo)
			}
		}
		if n > 0 {
			coef := []float64{alpha, x[0], z[n-1]}
			rowAsm, rowGo := append([]float64(nil), z...), append([]float64(nil), z...)
			xk := []float64{y[0], x[n-1], alpha}
			yk := append(append(append([]float64(nil), x...), y...), z...)
			addOuterBlock(rowAsm, n, 1, n, coef, xk, 1, yk, n)
			addOuterBlockGo(rowGo, n, 1, n, coef, xk, 1, yk, n)
			if !sameVectors(rowAsm, rowGo) {
				t.Fatalf("addOuterBlock: AVX2 %v, Go %v", rowAsm, rowGo)
			}
		}
	})
}

// compareVectorKernels checks that the AVX2 kernels on vectors (dot, dot2,
// axpy, axpyDot, dotAxpy, syr2Row and rotate1) give the bits of their Go
// twins on x, y, z (of equal lengths) with the coefficients alpha and beta
// (rotate1 turns by the angle beta). The inputs are not changed; where
// names the case in a failure.
func compareVectorKernels(t *testing.T, where string, x, y, z []float64, alpha, beta float64) {
	t.Helper()
	clone := func(v []float64) []float64 { return append([]float64(nil), v...) }
	if got, want := dotAVX2(x, y), dotGo(x, y); !sameResult(got, want) {
		t.Fatalf("dot %s: AVX2 %x, Go %x", where, got, want)
	}
	s, u := dot2AVX2(x, y, z)
	if s2, u2 := dot2Go(x, y, z); !sameResult(s, s2) || !sameResult(u, u2) {
		t.Fatalf("dot2 %s: AVX2 %x %x, Go %x %x", where, s, u, s2, u2)
	}
	yAsm, yGo := clone(y), clone(y)
	axpyAVX2(alpha, x, yAsm)
	axpyGo(alpha, x, yGo)
	if !sameVectors(yAsm, yGo) {
		t.Fatalf("axpy %s: AVX2 %v, Go %v", where, yAsm, yGo)
	}
	yAsm, yGo = clone(y), clone(y)
	got, want := axpyDotAVX2(alpha, x, yAsm, z), axpyDotGo(alpha, x, yGo, z)
	if !sameResult(got, want) || !sameVectors(yAsm, yGo) {
		t.Fatalf("axpyDot %s: AVX2 %x, Go %x (or y differs)", where, got, want)
	}
	zAsm, zGo := clone(z), clone(z)
	got, want = dotAxpyAVX2(x, y, zAsm, alpha), dotAxpyGo(x, y, zGo, alpha)
	if !sameResult(got, want) || !sameVectors(zAsm, zGo) {
		t.Fatalf("dotAxpy %s: AVX2 %x, Go %x (or z differs)", where, got, want)
	}
	zAsm, zGo = clone(z), clone(z)
	syr2RowAVX2(zAsm, x, y, alpha, beta)
	syr2RowGo(zGo, x, y, alpha, beta)
	if !sameVectors(zAsm, zGo) {
		t.Fatalf("syr2Row %s: AVX2 %v, Go %v", where, zAsm, zGo)
	}
	c, sn := math.Cos(beta), math.Sin(beta)
	xAsm, yAsm, xGo, yGo := clone(x), clone(y), clone(x), clone(y)
	rotate1(xAsm, yAsm, c, sn)
	rotate1Go(xGo, yGo, c, sn)
	if !sameVectors(xAsm, xGo) || !sameVectors(yAsm, yGo) {
		t.Fatalf("rotate1 %s: AVX2 %v %v, Go %v %v", where, xAsm, yAsm, xGo, yGo)
	}
}
