package linalg

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/digest.golden")

// digest records the exact bits of a list of float64 results: their count,
// an FNV-1a hash over all bits, and the first and last values in hex.
func digest(name string, xs []float64) string {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range xs {
		u := math.Float64bits(x)
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	first, last := "-", "-"
	if len(xs) > 0 {
		first = strconv.FormatFloat(xs[0], 'x', -1, 64)
		last = strconv.FormatFloat(xs[len(xs)-1], 'x', -1, 64)
	}
	return fmt.Sprintf("%-16s n=%-6d fnv=%016x first=%s last=%s\n", name, len(xs), h.Sum64(), first, last)
}

// flat returns the elements of m row by row.
func flat(m *Dense) []float64 {
	var xs []float64
	for i := 0; i < m.rows; i++ {
		xs = append(xs, m.RawRow(i)...)
	}
	return xs
}

// TestDigest pins the exact bits every operation produces on fixed inputs,
// so that a change of summation order or an accidental fused multiply-add
// (GOAMD64=v3, arm64) shows up as a diff against testdata/digest.golden.
// Do not edit the golden file by hand: a change in it must be intended and
// explained, then written with go test ./linalg -run TestDigest -update.
func TestDigest(t *testing.T) {
	// Inputs come from Uint64 only (rand's NormFloat64 may call math.Exp,
	// whose bits differ between architectures).
	rng := newRNG(99)
	randVec := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		return x
	}
	randDense := func(r, c int) *Dense { return NewDense(r, c, randVec(r*c)) }
	var out bytes.Buffer
	put := func(name string, xs []float64) { out.WriteString(digest(name, xs)) }

	x, y := randVec(103), randVec(103)
	put("Dot", []float64{Dot(x, y)})
	put("Norm", []float64{Norm(x)})
	a := randDense(67, 103)
	mv := make([]float64, 67)
	MulVec(mv, a, x)
	put("MulVec", mv)
	mvt := make([]float64, 103)
	MulVecT(mvt, a, mv)
	put("MulVecT", mvt)
	b := randDense(103, 71)
	var c Dense
	c.Mul(a, b)
	put("Mul", flat(&c))
	var ta, aat Dense
	ta.MulTA(a)
	put("MulTA", flat(&ta))
	aat.MulAAT(a)
	put("MulAAT", flat(&aat))
	m := randDense(67, 103)
	m.AddOuter(0.3, mv, x)
	put("AddOuter", flat(m))
	xs, ys := randDense(9, 67), randDense(9, 103)
	m.AddOuterSum(randVec(9), xs, ys)
	put("AddOuterSum", flat(m))
	g := randDense(8, 300)
	norms := make([]float64, 8)
	if err := GramSchmidt(g, norms); err != nil {
		t.Fatal(err)
	}
	put("GramSchmidt", append(flat(g), norms...))

	// A symmetric positive definite matrix: G·Gᵀ + 10⁻³·I.
	var spd Dense
	spd.MulAAT(randDense(9, 9))
	for i := 0; i < 9; i++ {
		spd.Set(i, i, spd.At(i, i)+1e-3)
	}
	var ch Cholesky
	if err := ch.Factorize(&spd); err != nil {
		t.Fatal(err)
	}
	sol := make([]float64, 9)
	ch.SolveVecTo(sol, x[:9])
	put("Cholesky", append(append(flat(ch.L()), sol...), ch.LogDet()))
	// Draw the 40×25 matrix a removed QR test factored, so that the inputs
	// below, and their lines in the golden file, stay as they were.
	randDense(40, 25)
	sq := randDense(30, 30)
	la, sa := LogDet(sq)
	put("LogDet", []float64{la, sa})
	// SymEig reads the lower triangle only.
	w, v, err := SymEig(randDense(60, 60))
	if err != nil {
		t.Fatal(err)
	}
	put("SymEig", append(w, flat(v)...))
	cond, err := CondSym(&spd)
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NormalizedTrace(&spd)
	if err != nil {
		t.Fatal(err)
	}
	put("CondSym", []float64{cond, nt})
	var inv Dense
	if err := inv.Inverse(sq); err != nil {
		t.Fatal(err)
	}
	put("Inverse", flat(&inv))
	put("LogAbsDetInPlace", []float64{LogAbsDetInPlace(sq)})

	golden.Check(t, filepath.Join("testdata", "digest.golden"), out.Bytes(), *update)
}
