package linalg

import (
	"fmt"
	"math"
	"testing"
)

func TestDot(t *testing.T) {
	rng := newRNG(2)
	for _, n := range []int{0, 1, 3, 4, 5, 8, 13, 100} {
		x, y := randVec(rng, n), randVec(rng, n)
		// The documented order: four strided partial sums, then the tail.
		var s [4]float64
		m := n - n%4
		for i := 0; i < m; i++ {
			s[i%4] += float64(x[i] * y[i])
		}
		want := (s[0] + s[1]) + (s[2] + s[3])
		for i := m; i < n; i++ {
			want += float64(x[i] * y[i])
		}
		if got := Dot(x, y); !sameBits(got, want) {
			t.Errorf("n=%d: Dot = %x, want %x", n, got, want)
		}
	}
	wantPanic(t, "Dot lengths", func() { Dot(make([]float64, 3), make([]float64, 4)) }, "3", "4")
}

func TestNorm(t *testing.T) {
	cases := []struct {
		x    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3, 4}, 5},
		{[]float64{3e200, 4e200}, 5e200},
		{[]float64{3e-200, 4e-200}, 5e-200},
		{[]float64{-3e-320, 4e-320}, 5e-320},
		{[]float64{1, math.Inf(-1)}, math.Inf(1)},
	}
	for _, c := range cases {
		if got := Norm(c.x); math.Abs(got-c.want) > 1e-15*c.want {
			t.Errorf("Norm(%v) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := Norm([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("Norm with NaN = %g", got)
	}
	x := randVec(newRNG(3), 37)
	if got, want := Norm(x), math.Sqrt(Dot(x, x)); !sameBits(got, want) {
		t.Errorf("Norm = %x, want sqrt(Dot) = %x", got, want)
	}
}

func TestMulVec(t *testing.T) {
	rng := newRNG(4)
	for _, shp := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 3}, {5, 9}, {9, 5}, {33, 17}, {100, 100}} {
		r, c := shp[0], shp[1]
		a := padded(randDense(rng, r, c), 3)
		x := randVec(rng, c)
		y := junkVec(r)
		MulVec(y, a, x)
		for i := 0; i < r; i++ {
			if want := Dot(a.RawRow(i), x); !sameBits(y[i], want) {
				t.Fatalf("%d×%d: MulVec row %d = %x, want Dot = %x", r, c, i, y[i], want)
			}
		}
		xt := randVec(rng, r)
		yt := junkVec(c)
		MulVecT(yt, a, xt)
		for j := 0; j < c; j++ {
			var want float64
			for i := 0; i < r; i++ {
				want += float64(xt[i] * a.At(i, j))
			}
			if !sameBits(yt[j], want) {
				t.Fatalf("%d×%d: MulVecT entry %d = %x, want %x", r, c, j, yt[j], want)
			}
		}
	}
	a := randDense(rng, 3, 4)
	wantPanic(t, "MulVec dst", func() { MulVec(make([]float64, 4), a, make([]float64, 4)) }, "3×4", "dst has length 4")
	wantPanic(t, "MulVec x", func() { MulVec(make([]float64, 3), a, make([]float64, 3)) }, "3×4", "x has length 3")
	wantPanic(t, "MulVecT", func() { MulVecT(make([]float64, 3), a, make([]float64, 3)) }, "3×4")
	buf := make([]float64, 8)
	wantPanic(t, "MulVec alias", func() { MulVec(buf[:3], a, buf[2:6]) }, "shares storage")
	wantPanic(t, "MulVecT alias", func() { MulVecT(buf[:4], a, buf[3:6]) }, "shares storage")
	wantPanic(t, "MulVec dst in A", func() { MulVec(a.RawRow(0)[:3], a, make([]float64, 4)) }, "3×4")
}

// TestDotRows checks that DotRows gives, row by row, the bits of MulVec
// (and so of Dot) for every count of rows mod 4 of A and mod 2 of B, padded
// strides and views, and that it panics on bad shapes and shared storage.
func TestDotRows(t *testing.T) {
	rng := newRNG(10)
	for _, ka := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 17} {
		for _, kb := range []int{0, 1, 2, 3, 8, 33} {
			for _, c := range []int{0, 1, 3, 4, 7, 100} {
				a := padded(randDense(rng, ka, c), 1)
				b := padded(randDense(rng, kb, c), 3)
				var m Dense
				m.DotRows(a, b)
				if r, cc := m.Dims(); r != ka || cc != kb {
					t.Fatalf("%d×%d by %d×%d: result is %d×%d", ka, c, kb, c, r, cc)
				}
				want := make([]float64, kb)
				for i := range ka {
					MulVec(want, b, a.RawRow(i))
					for j := range kb {
						if !sameBits(m.At(i, j), want[j]) {
							t.Fatalf("%d×%d by %d×%d: (%d, %d) = %x, MulVec gives %x", ka, c, kb, c, i, j, m.At(i, j), want[j])
						}
					}
				}
				if ka > 0 && kb > 0 {
					// Into a sized view, whose padding must stay untouched.
					big := padded(NewDense(ka+1, kb+2, nil), 2)
					v := big.View(1, 1, ka, kb)
					v.DotRows(a, b)
					for i := range ka {
						for j := range kb {
							if !sameBits(v.At(i, j), m.At(i, j)) {
								t.Fatalf("%d×%d by %d×%d into a view: (%d, %d) differs", ka, c, kb, c, i, j)
							}
						}
					}
					if big.At(0, 0) != 0 || big.At(ka, kb+1) != 0 {
						t.Fatalf("%d×%d by %d×%d into a view: wrote outside it", ka, c, kb, c)
					}
				}
			}
		}
	}
	a, b := randDense(rng, 3, 4), randDense(rng, 5, 4)
	wantPanic(t, "DotRows columns", func() { var m Dense; m.DotRows(a, randDense(rng, 5, 3)) }, "3×4", "5×3", "columns differ")
	wantPanic(t, "DotRows receiver", func() { NewDense(3, 4, nil).DotRows(a, b) }, "receiver is 3×4", "3×5")
	big := NewDense(8, 8, nil)
	wantPanic(t, "DotRows alias", func() { big.View(0, 0, 3, 5).DotRows(big.View(2, 0, 3, 4), b) }, "shares storage")
	wantPanic(t, "DotRows alias B", func() { big.View(0, 0, 3, 5).DotRows(a, big.View(2, 2, 5, 4)) }, "shares storage")
}

func TestMul(t *testing.T) {
	rng := newRNG(5)
	shapes := [][3]int{{1, 1, 1}, {1, 5, 1}, {2, 3, 4}, {3, 3, 3}, {4, 4, 4}, {5, 7, 11},
		{7, 300, 5}, {97, 131, 101}, {130, 129, 200}}
	for _, s := range shapes {
		r, k, c := s[0], s[1], s[2]
		a := randDense(rng, r, k)
		b := randDense(rng, k, c)
		want := naiveMul(a, b)
		for _, pad := range []int{0, 2} {
			m := padded(junkDense(r, c), pad)
			m.Mul(padded(a, pad), padded(b, pad))
			if d := maxAbsDiff(m, want); d != 0 {
				t.Errorf("%d×%d·%d×%d pad %d: Mul differs from the sequential triple loop by %g", r, k, k, c, pad, d)
			}
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if !sameBits(m.At(i, j), want.At(i, j)) {
						t.Fatalf("%d×%d·%d×%d: bits differ at (%d, %d)", r, k, k, c, i, j)
					}
				}
			}
		}
		var empty Dense
		empty.Mul(a, b)
		if maxAbsDiff(&empty, want) != 0 {
			t.Errorf("Mul into an empty receiver differs")
		}
	}
	// An inner dimension of zero gives a zero matrix.
	m := junkDense(2, 3)
	m.Mul(NewDense(2, 0, nil), NewDense(0, 3, nil))
	if maxAbsDiff(m, NewDense(2, 3, nil)) != 0 {
		t.Error("Mul with inner dimension 0 is not zero")
	}
	a := randDense(rng, 4, 4)
	wantPanic(t, "Mul inner", func() { new(Dense).Mul(NewDense(2, 3, nil), NewDense(4, 2, nil)) }, "2×3", "4×2")
	wantPanic(t, "Mul receiver", func() { NewDense(3, 3, nil).Mul(NewDense(2, 3, nil), NewDense(3, 2, nil)) }, "3×3", "2×2")
	wantPanic(t, "Mul m == a", func() { a.Mul(a, NewIdentity(4)) }, "shares storage")
	wantPanic(t, "Mul m overlaps b", func() { a.View(0, 0, 2, 2).Mul(NewIdentity(2), a.View(1, 1, 2, 2)) }, "shares storage")
}

func TestMulTAAndAAT(t *testing.T) {
	rng := newRNG(6)
	for _, s := range [][2]int{{1, 1}, {3, 1}, {1, 3}, {5, 4}, {4, 7}, {100, 7}, {7, 100}, {130, 101}} {
		a := randDense(rng, s[0], s[1])
		var at Dense
		at.Transpose(a)
		wantTA := naiveMul(&at, a)
		wantAAT := naiveMul(a, &at)
		ta := padded(junkDense(s[1], s[1]), 1)
		ta.MulTA(padded(a, 2))
		aat := junkDense(s[0], s[0])
		aat.MulAAT(a)
		for _, c := range []struct {
			name      string
			got, want *Dense
		}{{"MulTA", ta, wantTA}, {"MulAAT", aat, wantAAT}} {
			n, _ := c.got.Dims()
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if !sameBits(c.got.At(i, j), c.want.At(i, j)) {
						t.Fatalf("%v %s: (%d, %d) = %g, want %g", s, c.name, i, j, c.got.At(i, j), c.want.At(i, j))
					}
					if !sameBits(c.got.At(i, j), c.got.At(j, i)) {
						t.Fatalf("%v %s: not symmetric at (%d, %d)", s, c.name, i, j)
					}
				}
			}
		}
	}
	a := randDense(rng, 3, 3)
	wantPanic(t, "MulTA receiver", func() { NewDense(2, 2, nil).MulTA(NewDense(4, 3, nil)) }, "2×2", "3×3")
	wantPanic(t, "MulAAT receiver", func() { NewDense(3, 3, nil).MulAAT(NewDense(4, 3, nil)) }, "3×3", "4×4")
	wantPanic(t, "MulTA alias", func() { a.MulTA(a) }, "shares storage")
	wantPanic(t, "MulAAT alias", func() { a.MulAAT(a) }, "shares storage")
}

func TestAddOuter(t *testing.T) {
	rng := newRNG(7)
	for _, s := range [][2]int{{1, 1}, {3, 5}, {8, 3}, {17, 29}} {
		r, c := s[0], s[1]
		m := padded(randDense(rng, r, c), 2)
		orig := NewDense(r, c, nil)
		orig.CopyFrom(m)
		x, y := randVec(rng, r), randVec(rng, c)
		m.AddOuter(0.7, x, y)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				want := orig.At(i, j) + float64((0.7*x[i])*y[j])
				if !sameBits(m.At(i, j), want) {
					t.Fatalf("AddOuter (%d, %d) = %g, want %g", i, j, m.At(i, j), want)
				}
			}
		}
	}
	m := NewDense(3, 3, nil)
	wantPanic(t, "AddOuter lengths", func() { m.AddOuter(1, make([]float64, 2), make([]float64, 3)) }, "3×3", "x has length 2")
	wantPanic(t, "AddOuter alias", func() { m.AddOuter(1, m.RawRow(0), make([]float64, 3)) }, "shares storage")
}

// TestAxpy checks y + alpha·x element by element with the product rounded
// before the sum, for lengths on both sides of the kernels' 4 and 8
// element steps, and its panics.
func TestAxpy(t *testing.T) {
	rng := newRNG(10)
	for n := 0; n <= 19; n++ {
		x, y := randVec(rng, n), randVec(rng, n)
		got := append([]float64(nil), y...)
		Axpy(-0.3, x, got)
		for i := range y {
			if want := y[i] + float64(-0.3*x[i]); !sameBits(got[i], want) {
				t.Fatalf("n = %d: element %d = %x, want %x", n, i, got[i], want)
			}
		}
	}
	v := make([]float64, 6)
	wantPanic(t, "Axpy lengths", func() { Axpy(1, v[:2], v[3:6]) }, "lengths 2 and 3")
	wantPanic(t, "Axpy alias", func() { Axpy(1, v[:3], v[2:5]) }, "shares storage")
}

// TestAddOuterSum checks that the one-pass rank-k update equals k AddOuter
// calls bit for bit, for k on both sides of the 32-term chunk.
func TestAddOuterSum(t *testing.T) {
	rng := newRNG(8)
	for _, k := range []int{0, 1, 2, 3, 5, 8, 20, 32, 33, 70} {
		for _, s := range [][2]int{{1, 1}, {4, 7}, {13, 5}, {50, 61}} {
			r, c := s[0], s[1]
			t.Run(fmt.Sprintf("k=%d/%dx%d", k, r, c), func(t *testing.T) {
				m := padded(randDense(rng, r, c), 3)
				want := NewDense(r, c, nil)
				want.CopyFrom(m)
				x := padded(randDense(rng, k, r), 1)
				y := padded(randDense(rng, k, c), 2)
				alpha := randVec(rng, k)
				m.AddOuterSum(alpha, x, y)
				for kk := 0; kk < k; kk++ {
					want.AddOuter(alpha[kk], x.RawRow(kk), y.RawRow(kk))
				}
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						if !sameBits(m.At(i, j), want.At(i, j)) {
							t.Fatalf("(%d, %d) = %x, want %x", i, j, m.At(i, j), want.At(i, j))
						}
					}
				}
			})
		}
	}
	m := NewDense(3, 4, nil)
	wantPanic(t, "AddOuterSum shapes", func() { m.AddOuterSum(make([]float64, 2), NewDense(2, 3, nil), NewDense(2, 5, nil)) }, "3×4", "2×3", "2×5")
	wantPanic(t, "AddOuterSum alias", func() { m.AddOuterSum([]float64{1}, m.View(0, 0, 1, 3), NewDense(1, 4, nil)) }, "shares storage")
}

// TestProductsNoAlloc checks that products into sized destinations do not
// allocate.
func TestProductsNoAlloc(t *testing.T) {
	rng := newRNG(9)
	a := randDense(rng, 40, 40)
	b := randDense(rng, 40, 40)
	x := randVec(rng, 40)
	y := make([]float64, 40)
	c := NewDense(40, 40, nil)
	xs := randDense(rng, 8, 40)
	al := randVec(rng, 8)
	v := randDense(rng, 5, 40)
	dr := NewDense(8, 40, nil)
	norms := make([]float64, 5)
	vsrc := xs.View(0, 0, 5, 40)
	ops := map[string]func(){
		"MulVec":      func() { MulVec(y, a, x) },
		"MulVecT":     func() { MulVecT(y, a, x) },
		"Mul":         func() { c.Mul(a, b) },
		"MulTA":       func() { c.MulTA(a) },
		"MulAAT":      func() { c.MulAAT(a) },
		"AddOuter":    func() { c.AddOuter(1e-3, x, y) },
		"Axpy":        func() { Axpy(1e-3, x, y) },
		"AddOuterSum": func() { c.AddOuterSum(al, xs, xs) },
		"DotRows":     func() { dr.DotRows(xs, a) },
		"Transpose":   func() { c.Transpose(a) },
		"CopyFrom":    func() { c.CopyFrom(a) },
		"GramSchmidt": func() {
			v.CopyFrom(vsrc)
			if err := GramSchmidt(v, norms); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, op := range ops {
		if allocs := testing.AllocsPerRun(3, op); allocs != 0 {
			t.Errorf("%s allocated %v times per call", name, allocs)
		}
	}
}
