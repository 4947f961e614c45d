package linalg

import (
	"errors"
	"fmt"
	"math"
)

// ErrDependent is returned (wrapped) by GramSchmidt when a row is zero, not
// finite, or numerically a linear combination of the rows before it.
var ErrDependent = errors.New("linalg: vectors are linearly dependent")

// GramSchmidt orthonormalises the rows of the k×d matrix v in place, in row
// order, by modified Gram-Schmidt with re-orthogonalisation, and writes the
// original Euclidean norm of row i into norms[i]. This is the
// sampleOrthogonal step of HE-ES (docs/ALGORITHMS.md): row i of the result
// spans the same space as rows 0..i of the input.
//
// Each row is orthogonalised against the finished rows; if that removes more
// than 1 − 1/√2 of its norm (so cancellation may have spoilt orthogonality),
// the pass is repeated once (the DGKS criterion; "twice is enough",
// Kahan–Parlett). A row whose remaining norm is at most d·ε times its
// original norm, or that is zero or not finite, makes GramSchmidt return an
// error wrapping ErrDependent; rows from that one on are then unspecified.
// The cost is O(d·k²) and GramSchmidt does not allocate. It panics if k > d
// or len(norms) != k.
func GramSchmidt(v *Dense, norms []float64) error {
	k, d := v.rows, v.cols
	if k > d || len(norms) != k {
		panic(fmt.Sprintf("linalg: GramSchmidt: v is %s (need rows <= columns), norms has length %d", shape(v), len(norms)))
	}
	tol := float64(d) * epsilon
	for i := 0; i < k; i++ {
		vi := v.data[i*v.stride : i*v.stride+d]
		var orig, c float64
		if i == 0 {
			orig = Norm(vi)
		} else {
			// One pass for both the original norm and the first
			// coefficient c = ⟨v_0, v_i⟩.
			var ss float64
			c, ss = dot2(vi, v.data[:d], vi)
			orig = normFromSquares(ss, vi)
		}
		norms[i] = orig
		if orig == 0 || math.IsInf(orig, 0) || math.IsNaN(orig) {
			return fmt.Errorf("%w: row %d of %s has norm %g", ErrDependent, i, shape(v), orig)
		}
		nrm := orig
		for pass := 0; pass < 2 && i > 0; pass++ {
			if pass > 0 {
				c = dot(v.data[:d], vi)
			}
			before := nrm
			nrm = orthogonalizeRow(v, i, c)
			// DGKS criterion: if less than 1/√2 of the norm survived, the
			// cancellation may have spoilt orthogonality; do it again.
			if nrm > math.Sqrt2/2*before {
				break
			}
		}
		if !(nrm > tol*orig) {
			return fmt.Errorf("%w: row %d of %s keeps norm %g of %g after orthogonalisation", ErrDependent, i, shape(v), nrm, orig)
		}
		inv := 1 / nrm
		for t := range vi {
			vi[t] *= inv
		}
	}
	return nil
}

// orthogonalizeRow subtracts from row i ≥ 1 of v its projections on rows
// 0..i−1 in turn (modified Gram-Schmidt: each coefficient is taken from the
// partly reduced row) and returns the new norm of row i; c0 must be
// ⟨v_0, v_i⟩. Each subtraction is fused with the next dot product, so row i
// is read and written once per earlier row; the arithmetic is that of dot,
// axpy and Norm.
func orthogonalizeRow(v *Dense, i int, c0 float64) float64 {
	d := v.cols
	vi := v.data[i*v.stride : i*v.stride+d]
	c := c0
	for j := 1; j < i; j++ {
		prev := v.data[(j-1)*v.stride : (j-1)*v.stride+d]
		c = axpyDot(-c, prev, vi, v.data[j*v.stride:j*v.stride+d])
	}
	last := v.data[(i-1)*v.stride : (i-1)*v.stride+d]
	return normFromSquares(axpyDot(-c, last, vi, vi), vi)
}

// epsilon is the machine epsilon 2⁻⁵², the spacing of float64 at 1 (twice
// the unit roundoff 2⁻⁵³).
const epsilon = 0x1p-52
