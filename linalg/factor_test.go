package linalg

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestGramSchmidt(t *testing.T) {
	rng := newRNG(20)
	for _, d := range []int{1, 2, 3, 5, 10, 50, 200, 1000} {
		for _, k := range []int{1, 2, 8, d} {
			if k > d || k > 200 {
				continue
			}
			t.Run(fmt.Sprintf("k=%d/d=%d", k, d), func(t *testing.T) {
				src := randDense(rng, k, d)
				// Nearly dependent: row i is row i−1 plus a perturbation of
				// relative size 1e-9 or 1e-12 (still above the d·ε cut-off).
				nearly := func(eps float64) *Dense {
					near := NewDense(k, d, nil)
					near.CopyFrom(src)
					for i := 1; i < k; i++ {
						prev, row := near.RawRow(i-1), near.RawRow(i)
						for j := range row {
							row[j] = prev[j] + eps*row[j]
						}
					}
					return near
				}
				inputs := []*Dense{src, nearly(1e-9)}
				if k <= 8 {
					// For k close to d the fresh direction of the last rows is
					// itself small, and 1e-12 of it falls below the cut-off.
					inputs = append(inputs, nearly(1e-12))
				}
				for _, in := range inputs {
					v := padded(in, 2)
					norms := junkVec(k)
					if err := GramSchmidt(v, norms); err != nil {
						t.Fatal(err)
					}
					if e := rowOrthonormalityError(v); e > 1e-15 {
						t.Errorf("max |VVᵀ − I| = %.3g, want ≤ 1e-15", e)
					}
					for i := 0; i < k; i++ {
						if want := Norm(in.RawRow(i)); !sameBits(norms[i], want) {
							t.Errorf("norms[%d] = %g, want %g", i, norms[i], want)
						}
					}
					// Same span, in order: row i of the input has no component
					// along output rows > i, i.e. V·inᵀ is lower triangular…
					// Checked as |⟨out_j, in_i⟩| ≤ tol·‖in_i‖ for j > i.
					for i := 0; i < k; i++ {
						for j := i + 1; j < k; j++ {
							if p := math.Abs(Dot(v.RawRow(j), in.RawRow(i))); p > 1e-12*norms[i] {
								t.Fatalf("output row %d has %g of input row %d", j, p, i)
							}
						}
					}
				}
			})
		}
	}
}

func TestGramSchmidtDependent(t *testing.T) {
	rng := newRNG(21)
	base := randDense(rng, 3, 20)
	cases := map[string]func(m *Dense){
		"zero row": func(m *Dense) { clear(m.RawRow(1)) },
		"repeated": func(m *Dense) { copy(m.RawRow(2), m.RawRow(0)) },
		"sum": func(m *Dense) {
			r := m.RawRow(2)
			a, b := m.RawRow(0), m.RawRow(1)
			for j := range r {
				r[j] = 2*a[j] - b[j]
			}
		},
		"NaN": func(m *Dense) { m.Set(1, 4, math.NaN()) },
		"Inf": func(m *Dense) { m.Set(0, 0, math.Inf(1)) },
		"scaled 1e-300": func(m *Dense) {
			r := m.RawRow(1)
			a := m.RawRow(0)
			for j := range r {
				r[j] = 1e-300 * a[j]
			}
		},
	}
	for name, spoil := range cases {
		m := NewDense(3, 20, nil)
		m.CopyFrom(base)
		spoil(m)
		if err := GramSchmidt(m, make([]float64, 3)); !errors.Is(err, ErrDependent) {
			t.Errorf("%s: err = %v, want ErrDependent", name, err)
		}
	}
	wantPanic(t, "k > d", func() { _ = GramSchmidt(NewDense(3, 2, nil), make([]float64, 3)) }, "3×2")
	wantPanic(t, "norms length", func() { _ = GramSchmidt(NewDense(2, 3, nil), make([]float64, 3)) }, "2×3", "length 3")
}

// TestCholeskyTryFactorize checks that TryFactorize gives Factorize's
// factor bit for bit when a is positive definite, reports false and
// leaves the receiver unusable when it is not, and allocates nothing in
// either case once the factor has its size.
func TestCholeskyTryFactorize(t *testing.T) {
	pd := NewDense(3, 3, []float64{4, 2, 0.5, 2, 3, 0.25, 0.5, 0.25, 2})
	indefinite := NewDense(3, 3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1})
	var want, got Cholesky
	if err := want.Factorize(pd); err != nil {
		t.Fatal(err)
	}
	if !got.TryFactorize(pd) {
		t.Fatal("TryFactorize of a positive definite matrix reported false")
	}
	if d := maxAbsDiff(got.L(), want.L()); d != 0 {
		t.Errorf("the factor differs from Factorize's by %g", d)
	}
	if got.TryFactorize(indefinite) {
		t.Error("TryFactorize of an indefinite matrix reported true")
	}
	if msg := panics(func() { got.L() }); msg == "" {
		t.Error("L after a failed TryFactorize did not panic")
	}
	for name, a := range map[string]*Dense{"positive definite": pd, "indefinite": indefinite} {
		if allocs := testing.AllocsPerRun(100, func() { got.TryFactorize(a) }); allocs != 0 {
			t.Errorf("%s: %v allocations per TryFactorize, want 0", name, allocs)
		}
	}
	if msg := panics(func() { got.TryFactorize(NewDense(2, 3, nil)) }); !strings.Contains(msg, "linalg: Cholesky.TryFactorize: matrix 2×3 is not square") {
		t.Errorf("non-square: panic %q", msg)
	}
}

func TestCholesky(t *testing.T) {
	rng := newRNG(22)
	var ch Cholesky
	for _, n := range eigenSizes {
		for _, c := range symCases(rng, n) {
			if c.lambda == nil || c.lambda[0] <= 0 {
				continue // not positive definite
			}
			t.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(t *testing.T) {
				a := padded(c.a, 1)
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						a.Set(i, j, math.NaN()) // only the lower triangle is read
					}
				}
				if err := ch.Factorize(a); err != nil {
					t.Fatal(err)
				}
				l := junkDense(n, n)
				ch.LTo(l)
				var lt, llt Dense
				lt.Transpose(l)
				llt.Mul(l, &lt)
				if d := maxAbsDiff(&llt, c.a); d > 8*float64(n)*epsilon*c.a.FrobeniusNorm() {
					t.Errorf("max |LLᵀ − A| = %.3g", d)
				}
				for i := 0; i < n; i++ {
					if !(l.At(i, i) > 0) {
						t.Errorf("L_%d%d = %g, want positive", i, i, l.At(i, i))
					}
					for j := i + 1; j < n; j++ {
						if l.At(i, j) != 0 {
							t.Fatalf("L not lower triangular at (%d, %d)", i, j)
						}
					}
				}
				// Solve against a known solution; the error bound is κ·ε.
				x := randVec(rng, n)
				b := make([]float64, n)
				MulVec(b, c.a, x)
				got := junkVec(n)
				ch.SolveVecTo(got, b)
				cond := c.lambda[n-1] / c.lambda[0]
				for i := range x {
					if math.Abs(got[i]-x[i]) > 100*float64(n)*cond*epsilon*Norm(x) {
						t.Fatalf("solve: x[%d] = %g, want %g", i, got[i], x[i])
					}
				}
				// log det A = Σ log λ. Forming A = Q·Λ·Qᵀ in floating point
				// moves each λ_i by about n·ε·λ_max, hence log λ_i by that
				// over λ_i: 1e-4 for λ_i = 1e-12.
				var want, tol float64
				for _, lam := range c.lambda {
					want += math.Log(lam)
					tol += 4 * float64(n) * epsilon * c.lambda[n-1] / lam
				}
				if got := ch.LogDet(); math.Abs(got-want) > tol+1e-14*math.Abs(want) {
					t.Errorf("LogDet = %.15g, want %.15g", got, want)
				}
			})
		}
	}
	if err := ch.Factorize(NewDense(2, 2, []float64{1, 2, 2, 1})); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("indefinite: err = %v, want ErrNotPositiveDefinite", err)
	}
	if msg := panics(func() { ch.L() }); msg == "" {
		t.Error("L after failed Factorize did not panic")
	}
	if err := ch.Factorize(NewDense(2, 2, []float64{1, 0, math.NaN(), 1})); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("NaN: err = %v, want ErrNotPositiveDefinite", err)
	}
	if err := ch.Factorize(NewDense(1, 1, []float64{math.Inf(1)})); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("Inf: err = %v, want ErrNotPositiveDefinite", err)
	}
	wantPanic(t, "Cholesky non-square", func() { _ = ch.Factorize(NewDense(2, 3, nil)) }, "2×3")
	if err := ch.Factorize(NewIdentity(3)); err != nil {
		t.Fatal(err)
	}
	wantPanic(t, "SolveVecTo length", func() { ch.SolveVecTo(make([]float64, 2), make([]float64, 3)) }, "3×3", "dst has length 2")
	id3 := NewIdentity(3)
	if allocs := testing.AllocsPerRun(3, func() { _ = ch.Factorize(id3) }); allocs != 0 {
		t.Errorf("Factorize of the same size allocated %v times", allocs)
	}
}

func TestLogDetInverse(t *testing.T) {
	rng := newRNG(24)
	for _, n := range []int{1, 2, 3, 5, 10, 50, 200} {
		lam := randVec(rng, n)
		var wantLog, wantSign float64 = 0, 1
		for _, l := range lam {
			wantLog += math.Log(math.Abs(l))
			if l < 0 {
				wantSign = -wantSign
			}
		}
		a := withSpectrum(rng, lam)
		before := NewDense(n, n, nil)
		before.CopyFrom(a)
		logAbs, sign := LogDet(a)
		if sign != wantSign || math.Abs(logAbs-wantLog) > 1e-10*max(1, math.Abs(wantLog)) {
			t.Errorf("n=%d: LogDet = %.15g, %g, want %.15g, %g", n, logAbs, sign, wantLog, wantSign)
		}
		if maxAbsDiff(a, before) != 0 {
			t.Errorf("n=%d: LogDet modified its argument", n)
		}
		// LogAbsDetInPlace: the same log|det| to rounding, a overwritten.
		if got := LogAbsDetInPlace(before); math.Abs(got-wantLog) > 1e-10*max(1, math.Abs(wantLog)) {
			t.Errorf("n=%d: LogAbsDetInPlace = %.15g, want %.15g", n, got, wantLog)
		}
		// Inverse: A·A⁻¹ = I.
		var inv, prod Dense
		if err := inv.Inverse(a); err != nil {
			t.Fatalf("n=%d: Inverse: %v", n, err)
		}
		prod.Mul(a, &inv)
		if d := maxAbsDiff(&prod, NewIdentity(n)); d > 1e-10 {
			t.Errorf("n=%d: max |A·A⁻¹ − I| = %.3g", n, d)
		}
	}
	// Permutation (sign −1), singular, huge, NaN.
	perm := NewDense(3, 3, []float64{0, 1, 0, 1, 0, 0, 0, 0, 1})
	if l, s := LogDet(perm); l != 0 || s != -1 {
		t.Errorf("LogDet(swap) = %g, %g", l, s)
	}
	sing := NewDense(2, 2, []float64{1, 2, 2, 4})
	if l, s := LogDet(sing); !math.IsInf(l, -1) || s != 0 {
		t.Errorf("LogDet(singular) = %g, %g", l, s)
	}
	if l := LogAbsDetInPlace(NewDense(2, 2, []float64{1, 2, 2, 4})); !math.IsInf(l, -1) {
		t.Errorf("LogAbsDetInPlace(singular) = %g", l)
	}
	var inv Dense
	if err := inv.Inverse(sing); !errors.Is(err, ErrSingular) {
		t.Errorf("Inverse(singular): err = %v, want ErrSingular", err)
	}
	var huge Dense
	huge.Scale(1e200, NewIdentity(4))
	if l, s := LogDet(&huge); s != 1 || math.Abs(l-4*200*math.Ln10) > 1e-12*l {
		t.Errorf("LogDet(1e200·I₄) = %g, %g", l, s)
	}
	if l := LogAbsDetInPlace(&huge); math.Abs(l-4*200*math.Ln10) > 1e-12*l {
		t.Errorf("LogAbsDetInPlace(1e200·I₄) = %g", l)
	}
	nan := NewDense(1, 1, []float64{math.NaN()})
	if l, s := LogDet(nan); !math.IsNaN(l) || !math.IsNaN(s) {
		t.Errorf("LogDet(NaN) = %g, %g", l, s)
	}
	if e := LogDet; e == nil {
		t.Fatal("unreachable")
	}
	if l, s := LogDet(NewDense(0, 0, nil)); l != 0 || s != 1 {
		t.Errorf("LogDet(0×0) = %g, %g, want 0, 1", l, s)
	}
	if err := inv.Inverse(nan); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inverse(NaN): err = %v, want ErrNotFinite", err)
	}
	// An inverse in place, and its workspace reused without allocating.
	a := NewDense(2, 2, []float64{0, 2, 4, 0})
	if err := a.Inverse(a); err != nil || a.At(0, 1) != 0.25 || a.At(1, 0) != 0.5 || a.At(0, 0) != 0 {
		t.Errorf("Inverse in place: %v, %v", err, a.data)
	}
	w := NewDense(3, 3, nil)
	if allocs := testing.AllocsPerRun(10, func() {
		w.CopyFrom(perm)
		LogAbsDetInPlace(w)
	}); allocs != 0 {
		t.Errorf("LogAbsDetInPlace allocated %v times", allocs)
	}
	wantPanic(t, "LogDet non-square", func() { LogDet(NewDense(2, 3, nil)) }, "2×3")
	wantPanic(t, "LogAbsDetInPlace non-square", func() { LogAbsDetInPlace(NewDense(2, 3, nil)) }, "2×3")
	wantPanic(t, "LogAbsDetInPlace strided view", func() { LogAbsDetInPlace(NewDense(3, 3, nil).View(0, 0, 2, 2)) }, "2×2")
	wantPanic(t, "Inverse non-square", func() { inv.Inverse(NewDense(2, 3, nil)) }, "2×3")
	wantPanic(t, "Inverse into wrong shape", func() { NewDense(2, 2, nil).Inverse(NewIdentity(3)) }, "2×2")
}
