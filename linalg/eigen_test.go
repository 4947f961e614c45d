package linalg

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

var eigenSizes = []int{1, 2, 3, 5, 10, 50, 200}

// checkEigen verifies one decomposition: ascending values, V·diag(w)·Vᵀ = A,
// VᵀV = I, the sign convention, and the known spectrum if given.
func checkEigen(t *testing.T, c symCase, w []float64, v *Dense) {
	t.Helper()
	n, _ := c.a.Dims()
	normA := c.a.FrobeniusNorm()
	for k := 1; k < n; k++ {
		if !(w[k-1] <= w[k]) {
			t.Fatalf("eigenvalues not ascending at %d: %g > %g", k, w[k-1], w[k])
		}
	}
	// Reconstruction: ‖A − V·diag(w)·Vᵀ‖_F ≤ 1e-13·‖A‖_F.
	vd := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			vd.Set(i, k, v.At(i, k)*w[k])
		}
	}
	var vt, rec, diff Dense
	vt.Transpose(v)
	rec.Mul(vd, &vt)
	diff.Scale(-1, &rec)
	diff.Add(&diff, c.a)
	if e := diff.FrobeniusNorm(); e > 1e-13*normA {
		t.Errorf("‖A − VΛVᵀ‖_F = %.3g, want ≤ 1e-13·‖A‖_F = %.3g", e, 1e-13*normA)
	}
	// Orthonormality, entrywise: |VᵀV − I| ≤ 1e-14.
	if e := orthonormalityError(v); e > 1e-14 {
		t.Errorf("max |VᵀV − I| = %.3g, want ≤ 1e-14", e)
	}
	// Sign convention: the first entry of largest magnitude is positive.
	for k := 0; k < n; k++ {
		best := 0
		for i := 0; i < n; i++ {
			if math.Abs(v.At(i, k)) > math.Abs(v.At(best, k)) {
				best = i
			}
		}
		if v.At(best, k) <= 0 {
			t.Errorf("eigenvector %d: largest entry %d is %g, want positive", k, best, v.At(best, k))
		}
	}
	// Known spectrum: backward stability gives |w_k − λ_k| ≲ n·ε·‖A‖.
	if c.lambda != nil {
		tol := 4 * float64(n) * epsilon * max(normA, 1e-300)
		for k := range w {
			if math.Abs(w[k]-c.lambda[k]) > tol {
				t.Errorf("eigenvalue %d = %.17g, want %.17g (tol %.3g)", k, w[k], c.lambda[k], tol)
			}
		}
	}
}

func TestSymEigProperties(t *testing.T) {
	rng := newRNG(10)
	for _, n := range eigenSizes {
		for _, c := range symCases(rng, n) {
			t.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(t *testing.T) {
				w, v, err := SymEig(c.a)
				if err != nil {
					t.Fatal(err)
				}
				if len(w) != n {
					t.Fatalf("%d eigenvalues, want %d", len(w), n)
				}
				if r, cc := v.Dims(); r != n || cc != n {
					t.Fatalf("vectors are %d×%d, want %d×%d", r, cc, n, n)
				}
				checkEigen(t, c, w, v)
			})
		}
	}
}

// TestEigenSymReuse factors with junk-filled outputs, twice on one value, with
// and without vectors, from a strided input whose upper triangle is junk, and
// requires identical bits each time.
func TestEigenSymReuse(t *testing.T) {
	rng := newRNG(11)
	var eig EigenSym
	for _, n := range []int{1, 2, 5, 10, 50} {
		for _, c := range symCases(rng, n) {
			t.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(t *testing.T) {
				// Only the lower triangle may be read: poison the upper one.
				in := padded(c.a, 3)
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						in.Set(i, j, math.NaN())
					}
				}
				if err := eig.Factorize(in, true); err != nil {
					t.Fatal(err)
				}
				w1 := eig.Values(junkVec(n))
				v1 := junkDense(n, n)
				eig.VectorsTo(v1)
				checkEigen(t, c, w1, v1)

				if err := eig.Factorize(in, false); err != nil {
					t.Fatal(err)
				}
				w2 := eig.Values(junkVec(n))
				if msg := panics(func() { eig.VectorsTo(junkDense(n, n)) }); msg == "" {
					t.Error("VectorsTo after Factorize(a, false) did not panic")
				}
				if err := eig.Factorize(in, true); err != nil {
					t.Fatal(err)
				}
				w3 := eig.Values(nil)
				v3 := padded(junkDense(n, n), 2)
				eig.VectorsTo(v3)
				for k := 0; k < n; k++ {
					if !sameBits(w1[k], w2[k]) || !sameBits(w1[k], w3[k]) {
						t.Fatalf("eigenvalue %d differs between runs: %x %x %x", k, w1[k], w2[k], w3[k])
					}
					for i := 0; i < n; i++ {
						if !sameBits(v1.At(i, k), v3.At(i, k)) {
							t.Fatalf("eigenvector entry (%d, %d) differs between runs", i, k)
						}
					}
				}
			})
		}
	}
}

func TestEigenSymNoAlloc(t *testing.T) {
	rng := newRNG(12)
	a := randSym(rng, 30)
	var eig EigenSym
	vals := make([]float64, 30)
	vecs := NewDense(30, 30, nil)
	run := func() {
		if err := eig.Factorize(a, true); err != nil {
			t.Fatal(err)
		}
		eig.Values(vals)
		eig.VectorsTo(vecs)
	}
	run()
	if allocs := testing.AllocsPerRun(5, run); allocs != 0 {
		t.Errorf("repeated Factorize+Values+VectorsTo allocated %v times, want 0", allocs)
	}
}

// TestSymEigScaling checks that extreme magnitudes are handled by the
// power-of-two scaling: the results are the unit-scale ones times 2^±1000,
// bit for bit.
func TestSymEigScaling(t *testing.T) {
	rng := newRNG(13)
	a := randSym(rng, 20)
	w, v, err := SymEig(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []int{-1000, 1000} {
		var b Dense
		b.Scale(math.Ldexp(1, e), a)
		wb, vb, err := SymEig(&b)
		if err != nil {
			t.Fatalf("2^%d·A: %v", e, err)
		}
		for k := range w {
			if !sameBits(wb[k], math.Ldexp(w[k], e)) {
				t.Errorf("2^%d·A: eigenvalue %d = %g, want %g", e, k, wb[k], math.Ldexp(w[k], e))
			}
		}
		if d := maxAbsDiff(v, vb); d != 0 {
			t.Errorf("2^%d·A: eigenvectors differ by %g", e, d)
		}
	}
}

func TestSymEigErrors(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a := NewIdentity(4)
		a.Set(2, 1, bad)
		if _, _, err := SymEig(a); !errors.Is(err, ErrNotFinite) {
			t.Errorf("SymEig with %g: err = %v, want ErrNotFinite", bad, err)
		}
		if _, err := CondSym(a); !errors.Is(err, ErrNotFinite) {
			t.Errorf("CondSym with %g: err = %v, want ErrNotFinite", bad, err)
		}
	}
	var eig EigenSym
	if err := eig.Factorize(NewDense(2, 2, []float64{1, 0, math.NaN(), 1}), true); err == nil {
		t.Fatal("Factorize with NaN returned nil")
	}
	if msg := panics(func() { eig.Values(nil) }); msg == "" {
		t.Error("Values after a failed Factorize did not panic")
	}
	wantPanic(t, "SymEig 2×3", func() { _, _, _ = SymEig(NewDense(2, 3, nil)) }, "2×3")
	wantPanic(t, "VectorsTo wrong shape", func() {
		if err := eig.Factorize(NewIdentity(3), true); err != nil {
			t.Fatal(err)
		}
		eig.VectorsTo(NewDense(2, 2, nil))
	}, "2×2", "3×3")
	wantPanic(t, "Values wrong length", func() { eig.Values(make([]float64, 2)) }, "3", "2")
}

// TestSymEigEmpty checks the 0×0 matrix.
func TestSymEigEmpty(t *testing.T) {
	w, v, err := SymEig(NewDense(0, 0, nil))
	if err != nil || len(w) != 0 || !v.IsEmpty() {
		t.Errorf("SymEig(0×0) = %v, %v, %v", w, v, err)
	}
	if _, err := CondSym(NewDense(0, 0, nil)); err == nil {
		t.Error("CondSym(0×0) returned no error")
	}
}

// TestSymEigTridiagonalHard runs matrices that stress the QL iteration:
// the Wilkinson matrix W21+ (pairs of nearly equal eigenvalues) and a
// graded diagonal with tiny couplings.
func TestSymEigTridiagonalHard(t *testing.T) {
	const n = 21
	wil := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		wil.Set(i, i, math.Abs(float64(i-10)))
		if i+1 < n {
			wil.Set(i, i+1, 1)
			wil.Set(i+1, i, 1)
		}
	}
	graded := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		graded.Set(i, i, math.Ldexp(1, -3*i))
		if i+1 < n {
			c := math.Ldexp(1, -3*i-2)
			graded.Set(i, i+1, c)
			graded.Set(i+1, i, c)
		}
	}
	for _, c := range []symCase{{name: "wilkinson21", a: wil}, {name: "graded", a: graded}} {
		t.Run(c.name, func(t *testing.T) {
			w, v, err := SymEig(c.a)
			if err != nil {
				t.Fatal(err)
			}
			checkEigen(t, c, w, v)
		})
	}
	// The two largest eigenvalues of W21+ agree to 14 digits and are known:
	// 10.746194182903393 (Wilkinson, The Algebraic Eigenvalue Problem, §5.45).
	w, _, _ := SymEig(wil)
	for _, k := range []int{n - 1, n - 2} {
		if math.Abs(w[k]-10.746194182903393) > 1e-13 {
			t.Errorf("W21+ eigenvalue %d = %.17g, want 10.746194182903393", k, w[k])
		}
	}
}

func TestCondSym(t *testing.T) {
	rng := newRNG(14)
	for _, n := range []int{1, 2, 5, 50} {
		lam := make([]float64, n)
		for k := range lam {
			lam[k] = math.Pow(10, -6*float64(k)/float64(max(n-1, 1)))
		}
		a := withSpectrum(rng, lam)
		got, err := CondSym(a)
		if err != nil {
			t.Fatal(err)
		}
		want := 1e6
		if n == 1 {
			want = 1
		}
		// λ_min = 1e-6 carries an absolute error of order n·ε·‖A‖, so the
		// relative error of the ratio is about n·ε·1e6.
		if math.Abs(got-want) > 1e-7*want {
			t.Errorf("n=%d: CondSym = %.17g, want %g", n, got, want)
		}
	}
	indef := NewDense(2, 2, []float64{1, 0, 0, -1})
	if _, err := CondSym(indef); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("CondSym(indefinite) err = %v, want ErrNotPositiveDefinite", err)
	}
	if _, err := CondSym(NewDense(3, 3, nil)); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("CondSym(zero) err = %v, want ErrNotPositiveDefinite", err)
	}
}

func TestNormalizedTrace(t *testing.T) {
	rng := newRNG(15)
	// Multiples of the identity give exactly d.
	for _, s := range []float64{1e-300, 1, 3, 1e300} {
		var c Dense
		c.Scale(s, NewIdentity(7))
		got, err := NormalizedTrace(&c)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-7) > 1e-13 {
			t.Errorf("NormalizedTrace(%g·I₇) = %.17g, want 7", s, got)
		}
	}
	// A known spectrum {1, 4, 16}: Σλ = 21, (Πλ)^(1/3) = 4, so 21/4.
	c := withSpectrum(rng, []float64{1, 4, 16})
	got, err := NormalizedTrace(c)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-21.0/4) > 1e-13 {
		t.Errorf("NormalizedTrace(spectrum 1,4,16) = %.17g, want 5.25", got)
	}
	// Scale invariance over 600 orders of magnitude.
	var big Dense
	big.Scale(1e300, c)
	gotBig, err := NormalizedTrace(&big)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gotBig-got) > 1e-13 {
		t.Errorf("NormalizedTrace not scale invariant: %.17g vs %.17g", gotBig, got)
	}
	if _, err := NormalizedTrace(NewDense(2, 2, []float64{1, 2, 2, 1})); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("NormalizedTrace(indefinite) err = %v, want ErrNotPositiveDefinite", err)
	}
}

// FuzzSymEig feeds small matrices built from arbitrary floats (NaN and Inf
// included) to SymEig: it must return an error for non-finite input and a
// valid decomposition otherwise, without hanging or panicking.
func FuzzSymEig(f *testing.F) {
	f.Add(uint8(3), 1.0, 2.0, 3.0, -1.0)
	f.Add(uint8(1), math.NaN(), 0.0, 0.0, 0.0)
	f.Add(uint8(4), math.Inf(1), 1.0, 1e-300, 1e300)
	f.Add(uint8(5), 0.0, 0.0, 0.0, 0.0)
	f.Add(uint8(6), 1e308, -1e308, 5e-324, 1.0)
	f.Fuzz(func(t *testing.T, size uint8, x0, x1, x2, x3 float64) {
		n := int(size%8) + 1
		// Fill the lower triangle from the four values and their products,
		// so that special values spread across the matrix.
		src := []float64{x0, x1, x2, x3}
		a := NewDense(n, n, nil)
		finite := true
		k := 0
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := src[k%4]
				if k >= 4 {
					v = src[k%4] * float64(k%5-2) / float64(1+k%3)
				}
				k++
				a.Set(i, j, v)
				a.Set(j, i, v)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					finite = false
				}
			}
		}
		w, v, err := SymEig(a)
		if !finite {
			if err == nil {
				t.Fatalf("non-finite input gave no error")
			}
			return
		}
		if err != nil {
			t.Fatalf("finite input: %v", err)
		}
		for k := 1; k < n; k++ {
			if !(w[k-1] <= w[k]) {
				t.Fatalf("eigenvalues not ascending: %v", w)
			}
		}
		if e := orthonormalityError(v); e > 1e-13 {
			t.Fatalf("max |VᵀV − I| = %g", e)
		}
		// Reconstruct in scaled form so huge entries do not overflow.
		// Eigenvalues in the subnormal range are rounded to multiples of
		// 2⁻¹⁰⁷⁴, which adds up to n·2⁻¹⁰⁷⁴/scale to each entry.
		scale := a.FrobeniusNorm()
		if scale == 0 || math.IsInf(scale, 0) {
			return
		}
		tol := 1e-13 + float64(n)*0x1p-1074/scale
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += float64(v.At(i, k)*(w[k]/scale)) * v.At(j, k)
				}
				if d := math.Abs(s - a.At(i, j)/scale); d > tol {
					t.Fatalf("reconstruction error %g at (%d, %d)", d, i, j)
				}
			}
		}
	})
}
