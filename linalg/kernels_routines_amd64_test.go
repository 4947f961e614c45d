//go:build amd64 && !purego

package linalg

import (
	"math"
	"testing"
)

// specials are the values specialDense mixes into its entries.
var specials = []float64{0, math.Copysign(0, -1), 0x1p-1060, -0x1p-1070, math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e-300}

// specialDense returns an r×c matrix with stride c+pad whose entries span
// 60 binary orders of magnitude, one in ten a special value.
func specialDense(seed uint64, r, c, pad int) *Dense {
	rng := newRNG(seed)
	a := randDense(rng, r, c)
	for i := range a.data {
		a.data[i] = math.Ldexp(a.data[i], rng.IntN(61)-30)
		if rng.IntN(10) == 0 {
			a.data[i] = specials[rng.IntN(len(specials))]
		}
	}
	return padded(a, pad)
}

// sameDense reports whether a and b have the same shape and bits, any two
// NaNs counting as the same.
func sameDense(a, b *Dense) bool {
	if a.rows != b.rows || a.cols != b.cols {
		return false
	}
	for i := 0; i < a.rows; i++ {
		for j := 0; j < a.cols; j++ {
			x, y := a.At(i, j), b.At(i, j)
			if !(sameBits(x, y) || math.IsNaN(x) && math.IsNaN(y)) {
				return false
			}
		}
	}
	return true
}

// both runs f with the Go kernels and then with the AVX2 kernels, switching
// useAVX2 (no test in this package runs in parallel).
func both(f func() *Dense) (goRes, asmRes *Dense) {
	old := useAVX2
	defer func() { useAVX2 = old }()
	useAVX2 = false
	goRes = f()
	useAVX2 = true
	asmRes = f()
	return
}

// TestRoutinesMatchGo runs the public products with the Go kernels and with
// the AVX2 kernels on padded views with special values and compares the
// results bit for bit: it covers the 4×8 gemm tile against the 3×3 one
// (shapes across the block sizes), MulVec, MulVecT, AddOuter and
// AddOuterSum.
func TestRoutinesMatchGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: only the Go kernels run")
	}
	dims := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 97, 129, 130}
	seed := uint64(1000)
	for _, r := range dims {
		for _, k := range dims {
			for _, c := range []int{0, 1, 3, 8, 9, 33, 97, 100} {
				seed++
				pad := int(seed % 3)
				a := specialDense(seed, r, k, pad)
				b := specialDense(seed+7, k, c, pad)
				g, s := both(func() *Dense { var m Dense; m.Mul(a, b); return &m })
				if !sameDense(g, s) {
					t.Fatalf("Mul %dx%dx%d differs", r, k, c)
				}
				if r < 40 || k < 40 {
					g, s = both(func() *Dense { var m Dense; m.MulTA(a); return &m })
					if !sameDense(g, s) {
						t.Fatalf("MulTA %dx%d differs", r, k)
					}
					g, s = both(func() *Dense { var m Dense; m.MulAAT(a); return &m })
					if !sameDense(g, s) {
						t.Fatalf("MulAAT %dx%d differs", r, k)
					}
				}
				// MulVec / MulVecT
				xv := specialDense(seed+11, 1, k, 0).data
				xt := specialDense(seed+12, 1, r, 0).data
				g, s = both(func() *Dense { d := NewDense(1, r, nil); MulVec(d.data, a, xv); return d })
				if !sameDense(g, s) {
					t.Fatalf("MulVec %dx%d differs", r, k)
				}
				bt := specialDense(seed+17, c, k, pad)
				g, s = both(func() *Dense { var m Dense; m.DotRows(a, bt); return &m })
				if !sameDense(g, s) {
					t.Fatalf("DotRows %dx%d by %dx%d differs", r, k, c, k)
				}
				g, s = both(func() *Dense { d := NewDense(1, k, nil); MulVecT(d.data, a, xt); return d })
				if !sameDense(g, s) {
					t.Fatalf("MulVecT %dx%d differs", r, k)
				}
				// AddOuter / AddOuterSum with a view receiver
				al := specialDense(seed+13, 1, c, 0).data
				xm := specialDense(seed+14, c, r, 1)
				ym := specialDense(seed+15, c, k, 2)
				g, s = both(func() *Dense {
					m := specialDense(seed+16, r, k, 1)
					m.AddOuterSum(al, xm, ym)
					return m
				})
				if !sameDense(g, s) {
					t.Fatalf("AddOuterSum %dx%d K=%d differs", r, k, c)
				}
				g, s = both(func() *Dense {
					m := specialDense(seed+16, r, k, 1)
					m.AddOuter(0.75, xt, xv)
					return m
				})
				if !sameDense(g, s) {
					t.Fatalf("AddOuter %dx%d differs", r, k)
				}
			}
		}
	}
}

// TestFactorizationsMatchGo does the same for SymEig, GramSchmidt, LogDet,
// LogAbsDetInPlace and Inverse.
func TestFactorizationsMatchGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: only the Go kernels run")
	}
	for n := 1; n <= 40; n++ {
		rng := newRNG(uint64(n))
		a := randSym(rng, n)
		g, s := both(func() *Dense {
			vals, vecs, err := SymEig(a)
			if err != nil {
				t.Fatal(err)
			}
			out := NewDense(n+1, n, nil)
			copy(out.data, vals)
			out.View(1, 0, n, n).CopyFrom(vecs)
			return out
		})
		if !sameDense(g, s) {
			t.Fatalf("SymEig n=%d differs", n)
		}
		g, s = both(func() *Dense {
			v := randDense(newRNG(uint64(n)+99), min(n, 7), n+3)
			p := padded(v, 2)
			norms := make([]float64, min(n, 7))
			if err := GramSchmidt(p, norms); err != nil {
				t.Fatal(err)
			}
			res := NewDense(p.rows+1, p.cols, nil)
			res.View(0, 0, p.rows, p.cols).CopyFrom(p)
			copy(res.data[p.rows*p.cols:], norms)
			return res
		})
		if !sameDense(g, s) {
			t.Fatalf("GramSchmidt n=%d differs", n)
		}
		g, s = both(func() *Dense {
			l, sg := LogDet(randDense(newRNG(uint64(n)+5), n, n))
			return NewDense(1, 2, []float64{l, sg})
		})
		if !sameDense(g, s) {
			t.Fatalf("LogDet n=%d differs", n)
		}
		g, s = both(func() *Dense {
			var inv Dense
			m := randDense(newRNG(uint64(n)+7), n, n)
			if err := inv.Inverse(m); err != nil {
				t.Fatal(err)
			}
			out := NewDense(n+1, n, nil)
			out.View(0, 0, n, n).CopyFrom(&inv)
			out.Set(n, 0, LogAbsDetInPlace(m))
			return out
		})
		if !sameDense(g, s) {
			t.Fatalf("Inverse or LogAbsDetInPlace n=%d differs", n)
		}
	}
}
