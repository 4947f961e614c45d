package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// newRNG returns the seeded generator every test uses (gonum's habit:
// PCG(1, 1) plus a per-test stream so tests stay independent).
func newRNG(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(1, stream)) }

// randDense returns an r×c matrix of standard normal entries.
func randDense(rng *rand.Rand, r, c int) *Dense {
	m := NewDense(r, c, nil)
	for i := range m.data {
		m.data[i] = rng.NormFloat64()
	}
	return m
}

// randVec returns a vector of n standard normal entries.
func randVec(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// padded returns a copy of a stored with stride c+pad, the padding filled
// with NaN so that a routine that reads past a row's end is caught.
func padded(a *Dense, pad int) *Dense {
	r, c := a.Dims()
	stride := c + pad
	data := make([]float64, r*stride)
	for i := range data {
		data[i] = math.NaN()
	}
	big := &Dense{rows: r, cols: stride, stride: stride, data: data}
	v := big.View(0, 0, r, c)
	if r > 0 && c > 0 {
		v.CopyFrom(a)
	}
	return v
}

// junkDense returns an r×c matrix full of NaN, as a destination that must be
// overwritten completely.
func junkDense(r, c int) *Dense {
	m := NewDense(r, c, nil)
	for i := range m.data {
		m.data[i] = math.NaN()
	}
	return m
}

// junkVec returns a vector full of NaN.
func junkVec(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.NaN()
	}
	return x
}

// randOrthogonal returns a random n×n orthogonal matrix (the Gram-Schmidt
// orthonormalisation of the rows of a Gaussian matrix).
func randOrthogonal(rng *rand.Rand, n int) *Dense {
	q := randDense(rng, n, n)
	if err := GramSchmidt(q, make([]float64, n)); err != nil {
		panic(err)
	}
	return q
}

// withSpectrum returns Q·diag(lambda)·Qᵀ for a random orthogonal Q, with the
// upper triangle mirrored from the lower one so the result is exactly
// symmetric.
func withSpectrum(rng *rand.Rand, lambda []float64) *Dense {
	n := len(lambda)
	q := randOrthogonal(rng, n)
	a := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += float64(q.At(i, k)*lambda[k]) * q.At(j, k)
			}
			a.Set(i, j, s)
			a.Set(j, i, s)
		}
	}
	return a
}

// randSym returns a symmetric matrix with standard normal entries.
func randSym(rng *rand.Rand, n int) *Dense {
	a := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := rng.NormFloat64()
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
	return a
}

// symCase is a named symmetric test matrix with its spectrum when known.
type symCase struct {
	name   string
	a      *Dense
	lambda []float64 // ascending exact eigenvalues, or nil if unknown
}

// symCases returns the matrix classes the eigensolver is tested on, for size n: random,
// ill-conditioned SPD (condition 1e12), rank-deficient, diagonal and
// repeated eigenvalues, plus the zero and identity matrices.
func symCases(rng *rand.Rand, n int) []symCase {
	sorted := func(x []float64) []float64 {
		y := append([]float64(nil), x...)
		for i := 1; i < len(y); i++ {
			for j := i; j > 0 && y[j-1] > y[j]; j-- {
				y[j-1], y[j] = y[j], y[j-1]
			}
		}
		return y
	}
	var cases []symCase
	cases = append(cases, symCase{name: "random", a: randSym(rng, n)})

	ill := make([]float64, n)
	for k := range ill {
		// Log-spaced from 1 down to 1e-12 (1 when n == 1).
		ill[k] = 1
		if n > 1 {
			ill[k] = math.Pow(10, -12*float64(k)/float64(n-1))
		}
	}
	cases = append(cases, symCase{name: "illcond1e12", a: withSpectrum(rng, ill), lambda: sorted(ill)})

	rank := make([]float64, n)
	for k := 0; k < (n+1)/2; k++ {
		rank[k] = 1 + rng.Float64()
	}
	cases = append(cases, symCase{name: "rankdeficient", a: withSpectrum(rng, rank), lambda: sorted(rank)})

	diag := NewDense(n, n, nil)
	dvals := make([]float64, n)
	for k := range dvals {
		dvals[k] = rng.NormFloat64() * 10
		diag.Set(k, k, dvals[k])
	}
	cases = append(cases, symCase{name: "diagonal", a: diag, lambda: sorted(dvals)})

	rep := make([]float64, n)
	for k := range rep {
		rep[k] = float64(k%3) - 1 // eigenvalues −1, 0, 1, each repeated
	}
	cases = append(cases, symCase{name: "repeated", a: withSpectrum(rng, rep), lambda: sorted(rep)})

	cases = append(cases, symCase{name: "zero", a: NewDense(n, n, nil), lambda: make([]float64, n)})
	ones := make([]float64, n)
	for k := range ones {
		ones[k] = 1
	}
	cases = append(cases, symCase{name: "identity", a: NewIdentity(n), lambda: ones})
	return cases
}

// maxAbsDiff returns max |a_ij − b_ij|.
func maxAbsDiff(a, b *Dense) float64 {
	var m float64
	for i := 0; i < a.rows; i++ {
		for j := 0; j < a.cols; j++ {
			m = max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

// orthonormalityError returns max |(XᵀX − I)_ij| for the columns of x,
// computed accurately (see rowOrthonormalityError).
func orthonormalityError(x *Dense) float64 {
	var xt Dense
	xt.Transpose(x)
	return rowOrthonormalityError(&xt)
}

// rowOrthonormalityError returns max |(V·Vᵀ − I)_ij| for the rows of v,
// with each entry computed in double-double arithmetic so that the check
// itself adds no rounding error of the size being checked (a plain sum of
// 1000 products is off by about 1e-15 on its own).
func rowOrthonormalityError(v *Dense) float64 {
	r, _ := v.Dims()
	var worst float64
	for i := 0; i < r; i++ {
		for j := 0; j <= i; j++ {
			g := accurateDot(v.RawRow(i), v.RawRow(j))
			if i == j {
				g -= 1
			}
			worst = max(worst, math.Abs(g))
		}
	}
	return worst
}

// accurateDot returns Σ x_i·y_i correctly rounded up to a few units in the
// last place: exact products by math.FMA, sums in double-double (TwoSum).
func accurateDot(x, y []float64) float64 {
	var hi, lo float64
	for i := range x {
		p := x[i] * y[i]
		pe := math.FMA(x[i], y[i], -p) // exact error of the product
		s := hi + p
		bb := s - hi
		se := (hi - (s - bb)) + (p - bb) // exact error of the sum
		hi = s
		lo += se + pe
	}
	return hi + lo
}

// naiveMul is the reference triple loop, summing in increasing k.
func naiveMul(a, b *Dense) *Dense {
	r, _ := a.Dims()
	_, c := b.Dims()
	m := NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			var s float64
			for k := 0; k < a.cols; k++ {
				s += float64(a.At(i, k) * b.At(k, j))
			}
			m.Set(i, j, s)
		}
	}
	return m
}

// panics runs fn and returns the panic message, or "" if it did not panic.
func panics(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
			if msg == "" {
				msg = "(empty panic)"
			}
		}
	}()
	fn()
	return ""
}

// wantPanic checks that fn panics with a "linalg: " message containing every
// one of the fragments (typically the shapes involved).
func wantPanic(t *testing.T, what string, fn func(), fragments ...string) {
	t.Helper()
	msg := panics(fn)
	if msg == "" {
		t.Errorf("%s: did not panic", what)
		return
	}
	if !strings.HasPrefix(msg, "linalg: ") {
		t.Errorf("%s: panic %q lacks the linalg: prefix", what, msg)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("%s: panic %q does not mention %q", what, msg, f)
		}
	}
}

// sameBits reports whether x and y are the same float64 bit patterns.
func sameBits(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
