package linalg

import (
	"math"
	"testing"
)

func TestNewDense(t *testing.T) {
	m := NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	if r, c := m.Dims(); r != 2 || c != 3 {
		t.Fatalf("Dims = %d, %d", r, c)
	}
	if m.At(1, 2) != 6 || m.At(0, 1) != 2 {
		t.Errorf("At: got %g, %g, want 6, 2", m.At(1, 2), m.At(0, 1))
	}
	m.Set(1, 0, -4)
	if got := m.RawRow(1); got[0] != -4 || len(got) != 3 {
		t.Errorf("RawRow(1) = %v", got)
	}
	z := NewDense(3, 2, nil)
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			if z.At(i, j) != 0 {
				t.Fatalf("NewDense(nil) not zero at (%d, %d)", i, j)
			}
		}
	}
	wantPanic(t, "NewDense length", func() { NewDense(2, 2, make([]float64, 3)) }, "2×2", "3")
	wantPanic(t, "NewDense negative", func() { NewDense(-1, 2, nil) }, "-1×2")
	wantPanic(t, "At out of range", func() { m.At(2, 0) }, "(2, 0)", "2×3")
	wantPanic(t, "Set out of range", func() { m.Set(0, 3, 1) }, "(0, 3)", "2×3")
	wantPanic(t, "At negative", func() { m.At(-1, 0) }, "2×3")
	wantPanic(t, "RawRow", func() { m.RawRow(2) }, "2×3")
}

func TestIdentityTraceFrobenius(t *testing.T) {
	id := NewIdentity(4)
	if id.Trace() != 4 {
		t.Errorf("Trace(I₄) = %g", id.Trace())
	}
	if got := id.FrobeniusNorm(); got != 2 {
		t.Errorf("‖I₄‖_F = %g, want 2", got)
	}
	m := NewDense(2, 2, []float64{3, 0, 0, 4})
	if got := m.FrobeniusNorm(); got != 5 {
		t.Errorf("‖diag(3,4)‖_F = %g, want 5", got)
	}
	huge := NewDense(1, 2, []float64{3e300, 4e300})
	if got := huge.FrobeniusNorm(); math.Abs(got-5e300) > 1e285 {
		t.Errorf("‖(3e300, 4e300)‖_F = %g, want 5e300", got)
	}
	tiny := NewDense(1, 2, []float64{3e-320, 4e-320})
	if got := tiny.FrobeniusNorm(); math.Abs(got-5e-320) > 1e-322 {
		t.Errorf("‖(3e-320, 4e-320)‖_F = %g, want 5e-320", got)
	}
	if got := NewDense(1, 1, []float64{math.NaN()}).FrobeniusNorm(); !math.IsNaN(got) {
		t.Errorf("‖NaN‖_F = %g", got)
	}
	wantPanic(t, "Trace non-square", func() { NewDense(2, 3, nil).Trace() }, "2×3")
	wantPanic(t, "SetIdentity non-square", func() { NewDense(2, 3, nil).SetIdentity() }, "2×3")
	s := junkDense(3, 3)
	s.SetIdentity()
	if maxAbsDiff(s, NewIdentity(3)) != 0 {
		t.Error("SetIdentity on junk did not give I")
	}
}

func TestViewSharesStorage(t *testing.T) {
	m := NewDense(4, 5, nil)
	for i := range m.data {
		m.data[i] = float64(i)
	}
	v := m.View(1, 2, 2, 3)
	if r, c := v.Dims(); r != 2 || c != 3 {
		t.Fatalf("view Dims = %d, %d", r, c)
	}
	if v.At(0, 0) != 7 || v.At(1, 2) != 14 {
		t.Errorf("view elements %g, %g, want 7, 14", v.At(0, 0), v.At(1, 2))
	}
	v.Set(1, 1, -1)
	if m.At(2, 3) != -1 {
		t.Error("write through view not seen in parent")
	}
	if got := v.RawRow(1); len(got) != 3 || got[0] != 12 {
		t.Errorf("view RawRow(1) = %v", got)
	}
	wantPanic(t, "View too large", func() { m.View(3, 0, 2, 1) }, "4×5")
	wantPanic(t, "view At outside view", func() { v.At(0, 3) }, "2×3")
	// Operations on views must not touch the parent outside the view.
	v.Scale(2, v)
	if m.At(1, 1) != 6 || m.At(1, 5-1) != 2*9 || m.At(3, 2) != 17 {
		t.Errorf("Scale on view: parent is %v", m.data)
	}
	v.ReuseAs(2, 3)
	if m.At(1, 2) != 0 || m.At(1, 1) != 6 || m.At(3, 2) != 17 {
		t.Errorf("ReuseAs on view: parent is %v", m.data)
	}
}

func TestReuseAs(t *testing.T) {
	var m Dense
	if !m.IsEmpty() {
		t.Fatal("zero Dense not empty")
	}
	m.ReuseAs(3, 4)
	if r, c := m.Dims(); r != 3 || c != 4 || m.IsEmpty() {
		t.Fatalf("after ReuseAs(3, 4): %d×%d", r, c)
	}
	for i := range m.data {
		m.data[i] = math.NaN()
	}
	m.Reset()
	m.ReuseAs(2, 5)
	if allocs := testing.AllocsPerRun(10, func() { m.ReuseAs(2, 5) }); allocs != 0 {
		t.Errorf("ReuseAs of the same shape allocated %v times", allocs)
	}
	for i := 0; i < 2; i++ {
		for j := 0; j < 5; j++ {
			if m.At(i, j) != 0 {
				t.Fatalf("ReuseAs left %g at (%d, %d)", m.At(i, j), i, j)
			}
		}
	}
	// A non-empty matrix keeps its shape: reshaping it needs a Reset.
	wantPanic(t, "ReuseAs reshape", func() { m.ReuseAs(10, 10) }, "2×5")
	wantPanic(t, "ReuseAs reshape same size", func() { m.ReuseAs(5, 2) }, "2×5")
	m.Reset()
	if r, c := m.Dims(); r != 0 || c != 0 || !m.IsEmpty() {
		t.Fatalf("after Reset: %d×%d", r, c)
	}
	if allocs := testing.AllocsPerRun(10, func() { m.Reset(); m.ReuseAs(4, 3) }); allocs != 0 {
		t.Errorf("Reset and ReuseAs within capacity allocated %v times", allocs)
	}
	m.Reset()
	m.ReuseAs(10, 10)
	if r, c := m.Dims(); r != 10 || c != 10 {
		t.Errorf("ReuseAs(10, 10): %d×%d", r, c)
	}
	// A reset view gets its own storage and leaves the parent alone.
	p := NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	v := p.View(0, 0, 2, 2)
	wantPanic(t, "ReuseAs reshape view", func() { v.ReuseAs(1, 3) }, "2×2")
	v.Reset()
	v.ReuseAs(1, 2)
	v.Set(0, 1, 42)
	if p.At(0, 1) != 2 || p.At(1, 0) != 4 {
		t.Errorf("reset view wrote into its parent: %v", p.data)
	}
	wantPanic(t, "ReuseAs negative", func() { m.ReuseAs(2, -3) }, "2×-3")
}

func TestCopyScaleAddTranspose(t *testing.T) {
	rng := newRNG(1)
	a := randDense(rng, 5, 7)
	b := randDense(rng, 5, 7)
	for _, pad := range []int{0, 3} {
		pa, pb := padded(a, pad), padded(b, pad)
		var c Dense
		c.CopyFrom(pa)
		if maxAbsDiff(&c, a) != 0 {
			t.Error("CopyFrom into empty differs")
		}
		d := padded(junkDense(5, 7), pad)
		d.CopyFrom(pa)
		if maxAbsDiff(d, a) != 0 {
			t.Error("CopyFrom into strided junk differs")
		}
		d.Scale(-2, pa)
		d.Add(d, pb)
		for i := 0; i < 5; i++ {
			for j := 0; j < 7; j++ {
				if want := -2*a.At(i, j) + b.At(i, j); !sameBits(d.At(i, j), want) {
					t.Fatalf("Scale+Add (%d, %d) = %g, want %g", i, j, d.At(i, j), want)
				}
			}
		}
		tr := padded(junkDense(7, 5), pad)
		tr.Transpose(pa)
		for i := 0; i < 5; i++ {
			for j := 0; j < 7; j++ {
				if tr.At(j, i) != a.At(i, j) {
					t.Fatalf("Transpose (%d, %d)", j, i)
				}
			}
		}
	}
	big := randDense(rng, 70, 45) // crosses the transpose block size
	var bt Dense
	bt.Transpose(big)
	for i := 0; i < 70; i++ {
		for j := 0; j < 45; j++ {
			if bt.At(j, i) != big.At(i, j) {
				t.Fatalf("Transpose 70×45 at (%d, %d)", j, i)
			}
		}
	}
	wantPanic(t, "CopyFrom shape", func() { NewDense(2, 2, nil).CopyFrom(a) }, "2×2", "5×7")
	wantPanic(t, "Add shapes", func() { new(Dense).Add(a, NewDense(7, 5, nil)) }, "5×7", "7×5")
	wantPanic(t, "Add receiver", func() { NewDense(1, 1, nil).Add(a, b) }, "1×1", "5×7")
	wantPanic(t, "Scale receiver", func() { NewDense(1, 1, nil).Scale(1, a) }, "1×1", "5×7")
	wantPanic(t, "Transpose receiver", func() { NewDense(5, 7, nil).Transpose(a) }, "5×7", "7×5")
	sq := randDense(rng, 4, 4)
	wantPanic(t, "Transpose in place", func() { sq.Transpose(sq) }, "4×4")
	wantPanic(t, "Transpose overlapping view", func() { sq.View(0, 0, 2, 2).Transpose(sq.View(1, 1, 2, 2)) }, "2×2")
}

func TestOverlapDetection(t *testing.T) {
	m := NewDense(6, 6, nil)
	cases := []struct {
		name string
		a, b *Dense
		want bool
	}{
		{"same", m, m, true},
		{"disjoint columns", m.View(0, 0, 6, 3), m.View(0, 3, 6, 3), false},
		{"disjoint rows", m.View(0, 0, 3, 6), m.View(3, 0, 3, 6), false},
		{"corner touch", m.View(0, 0, 3, 3), m.View(2, 2, 3, 3), true},
		{"interleaved rows, disjoint", m.View(0, 5, 3, 1), m.View(1, 0, 1, 5), false},
		{"wrap-around overlap", m.View(0, 5, 2, 1), m.View(1, 4, 1, 2), true},
		{"other matrix", m, NewDense(6, 6, nil), false},
	}
	for _, c := range cases {
		if got := matricesOverlap(c.a, c.b); got != c.want {
			t.Errorf("%s: matricesOverlap = %v, want %v", c.name, got, c.want)
		}
		if got := matricesOverlap(c.b, c.a); got != c.want {
			t.Errorf("%s (swapped): matricesOverlap = %v, want %v", c.name, got, c.want)
		}
	}
	if !vectorOverlapsMatrix(m.RawRow(2), m.View(2, 3, 2, 2)) {
		t.Error("row 2 should overlap a view starting in row 2")
	}
	if vectorOverlapsMatrix(m.RawRow(2)[:3], m.View(2, 3, 2, 2)) {
		t.Error("first half of row 2 should not overlap a view of columns 3..4")
	}
	x := make([]float64, 10)
	if !vectorsOverlap(x[2:5], x[4:8]) || vectorsOverlap(x[2:5], x[5:8]) {
		t.Error("vectorsOverlap wrong on adjacent slices")
	}
}

func TestElementwiseOverlap(t *testing.T) {
	m := NewDense(4, 4, nil)
	for i := range m.data {
		m.data[i] = float64(i)
	}
	same := m.View(1, 1, 2, 2)
	again := m.View(1, 1, 2, 2)
	again.Scale(2, same) // the same elements: allowed
	if m.At(1, 1) != 10 || m.At(2, 2) != 20 {
		t.Errorf("Scale through an identical view: %v", m.data)
	}
	wantPanic(t, "Scale shifted", func() { m.View(0, 0, 2, 2).Scale(1, m.View(1, 1, 2, 2)) }, "partly overlaps")
	wantPanic(t, "CopyFrom shifted", func() { m.View(0, 1, 2, 2).CopyFrom(m.View(0, 0, 2, 2)) }, "partly overlaps")
	wantPanic(t, "Add shifted", func() { m.View(0, 0, 3, 3).Add(m.View(0, 0, 3, 3), m.View(1, 0, 3, 3)) }, "partly overlaps")
}

// TestEmptyViews runs every operation on views with no elements (r×0 and
// 0×c blocks of a larger matrix, which carry no storage): none may panic,
// and MulVec of an r×0 matrix is a zero vector.
func TestEmptyViews(t *testing.T) {
	big := NewDense(4, 4, nil)
	for _, v := range []*Dense{big.View(0, 4, 4, 0), big.View(1, 2, 3, 0), big.View(4, 0, 0, 4), NewDense(5, 0, nil)} {
		r, c := v.Dims()
		try := func(name string, f func()) {
			t.Helper()
			if msg := panics(f); msg != "" {
				t.Errorf("%s on a %d×%d view panicked: %s", name, r, c, msg)
			}
		}
		try("MulVec", func() {
			y := junkVec(r)
			MulVec(y, v, make([]float64, c))
			for i, yi := range y {
				if !sameBits(yi, 0) {
					t.Errorf("%d×%d: MulVec entry %d = %g, want +0", r, c, i, yi)
				}
			}
		})
		try("MulVecT", func() { MulVecT(make([]float64, c), v, make([]float64, r)) })
		try("AddOuter", func() { v.AddOuter(1, make([]float64, r), make([]float64, c)) })
		try("AddOuterSum", func() { v.AddOuterSum([]float64{1}, NewDense(1, r, nil), NewDense(1, c, nil)) })
		try("Scale", func() { v.Scale(2, v) })
		try("Add", func() { v.Add(v, v) })
		try("CopyFrom", func() { v.CopyFrom(NewDense(r, c, nil)) })
		try("FrobeniusNorm", func() { v.FrobeniusNorm() })
		try("Mul", func() { v.Mul(NewDense(r, 2, nil), NewDense(2, c, nil)) })
		try("MulTA", func() { var m Dense; m.MulTA(v) })
		try("MulAAT", func() { var m Dense; m.MulAAT(v) })
		try("Transpose", func() { var m Dense; m.Transpose(v) })
		try("View", func() { v.View(0, 0, r, c) })
		try("ReuseAs", func() { v.ReuseAs(r, c) })
	}
}
