package linalg

import (
	"fmt"
	"math"
)

// Dot returns Σ x_i·y_i. The terms are summed in a fixed order: four partial
// sums over the indices i ≡ 0, 1, 2, 3 (mod 4) of the largest multiple of 4,
// combined as (s0+s1)+(s2+s3), then the remaining terms in index order.
// Dot panics if the lengths differ.
func Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("linalg: Dot: lengths %d and %d differ", len(x), len(y)))
	}
	return dot(x, y)
}

// Norm returns the Euclidean norm of x. It is sqrt(Dot(x, x)) unless that
// overflows or underflows, in which case x is scaled by its largest
// magnitude first.
func Norm(x []float64) float64 {
	return normFromSquares(dot(x, x), x)
}

// normFromSquares returns the norm of x given ss = dot(x, x): sqrt(ss) if
// the squares neither overflowed nor lost bits to underflow (below 2⁻⁹⁶⁸),
// otherwise a second pass over x scaled by its largest magnitude.
func normFromSquares(ss float64, x []float64) float64 {
	if ss >= 0x1p-968 && ss < math.Inf(1) {
		return math.Sqrt(ss)
	}
	var scale float64
	for _, v := range x {
		scale = max(scale, math.Abs(v))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	var t float64
	for _, v := range x {
		u := v / scale
		t += float64(u * u)
	}
	return scale * math.Sqrt(t)
}

// Axpy sets y = y + alpha·x: element i gains float64(alpha·x_i), the
// product rounded before the sum (never fused into one multiply-add), so
// the result is the same on every platform. Axpy panics if the lengths
// differ or if x and y share storage.
func Axpy(alpha float64, x, y []float64) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("linalg: Axpy: lengths %d and %d differ", len(x), len(y)))
	}
	if vectorsOverlap(x, y) {
		panic(fmt.Sprintf("linalg: Axpy: x (length %d) shares storage with y", len(x)))
	}
	axpy(alpha, x, y)
}

// MulVec sets dst = A·x. dst must have length r and x length c for an r×c
// matrix A, and dst must not share elements with x or A, or MulVec panics.
// Element i of dst equals Dot(row i of A, x) bit for bit.
func MulVec(dst []float64, a *Dense, x []float64) {
	checkMatVec("MulVec", dst, a, x, a.rows, a.cols)
	mulVec(dst, a, x)
}

// MulVecT sets dst = Aᵀ·x. dst must have length c and x length r for an r×c
// matrix A, and dst must not share elements with x or A, or MulVecT panics.
// Element j of dst is Σ_i A_ij·x_i summed in increasing i.
func MulVecT(dst []float64, a *Dense, x []float64) {
	checkMatVec("MulVecT", dst, a, x, a.cols, a.rows)
	mulVecT(dst, a, x)
}

// DotRows sets element (i, j) of m to Dot(row i of A, row j of B): m = A·Bᵀ
// with every element summed in Dot's order, so row i of m is bit for bit
// MulVec(B, row i of A). An empty m is sized to A's rows × B's rows;
// otherwise it must have that shape. A and B must have the same number of
// columns and m must not share storage with either, or DotRows panics.
// Several products B·x_i cost less this way than by MulVec one at a time:
// with AVX2, B is read from memory once, not once for each row of A.
func (m *Dense) DotRows(a, b *Dense) {
	if a.cols != b.cols {
		panic(fmt.Sprintf("linalg: DotRows: A is %s, B is %s: the numbers of columns differ", shape(a), shape(b)))
	}
	m.sizeFor("DotRows", a.rows, b.rows)
	checkNoOverlap("DotRows", m, a)
	checkNoOverlap("DotRows", m, b)
	dotRows(m, a, b)
}

// checkMatVec panics unless dst has length m and x length n, and dst shares
// no element with x or A: the preconditions of MulVec and MulVecT (op).
func checkMatVec(op string, dst []float64, a *Dense, x []float64, m, n int) {
	if len(dst) != m || len(x) != n {
		panic(fmt.Sprintf("linalg: %s: A is %s, x has length %d, dst has length %d", op, shape(a), len(x), len(dst)))
	}
	if vectorsOverlap(dst, x) {
		panic(fmt.Sprintf("linalg: %s: dst (length %d) shares storage with x (length %d)", op, len(dst), len(x)))
	}
	if vectorOverlapsMatrix(dst, a) {
		panic(fmt.Sprintf("linalg: %s: dst (length %d) shares storage with A %s", op, len(dst), shape(a)))
	}
}

// Mul sets m = A·B. An empty m is sized to A's rows × B's columns; otherwise
// it must have that shape. m must not share storage with A or B, and A's
// columns must equal B's rows, or Mul panics. Element (i, j) is
// Σ_k A_ik·B_kj summed in increasing k from zero, as in the textbook triple
// loop, whatever the blocking; the work is done in cache-sized blocks with a
// register tile (3×3 in Go, 4×8 with AVX2).
func (m *Dense) Mul(a, b *Dense) {
	if a.cols != b.rows {
		panic(fmt.Sprintf("linalg: Mul: inner dimensions differ, A is %s, B is %s", shape(a), shape(b)))
	}
	m.sizeFor("Mul", a.rows, b.cols)
	checkNoOverlap("Mul", m, a)
	checkNoOverlap("Mul", m, b)
	gemm(m, operand{m: a}, operand{m: b}, a.cols, false)
}

// AddOuter sets m = m + alpha·x·yᵀ for an r×c m, len(x) = r, len(y) = c.
// Element (i, j) gains float64(t·y_j) with t = alpha·x_i. AddOuter panics on
// wrong lengths or if x or y shares storage with m.
func (m *Dense) AddOuter(alpha float64, x, y []float64) {
	if len(x) != m.rows || len(y) != m.cols {
		panic(fmt.Sprintf("linalg: AddOuter: receiver is %s, x has length %d, y has length %d", shape(m), len(x), len(y)))
	}
	if vectorOverlapsMatrix(x, m) || vectorOverlapsMatrix(y, m) {
		panic(fmt.Sprintf("linalg: AddOuter: x or y shares storage with the %s receiver", shape(m)))
	}
	for i, xi := range x {
		axpy(alpha*xi, y, m.data[i*m.stride:i*m.stride+m.cols])
	}
}

// AddOuterSum sets m = m + Σ_k alpha_k·x_k·y_kᵀ, where x_k and y_k are row k
// of x and y. For an r×c m, x must be K×r, y must be K×c and len(alpha) = K,
// or AddOuterSum panics; x and y must not share storage with m. The result
// is bit-identical to K calls AddOuter(alpha[k], x_k, y_k) in increasing k,
// but m is read and written once for every 32 terms.
func (m *Dense) AddOuterSum(alpha []float64, x, y *Dense) {
	k := len(alpha)
	if x.rows != k || y.rows != k || x.cols != m.rows || y.cols != m.cols {
		panic(fmt.Sprintf("linalg: AddOuterSum: receiver is %s, %d coefficients, x is %s, y is %s", shape(m), k, shape(x), shape(y)))
	}
	if matricesOverlap(x, m) || matricesOverlap(y, m) {
		panic(fmt.Sprintf("linalg: AddOuterSum: x %s or y %s shares storage with the %s receiver", shape(x), shape(y), shape(m)))
	}
	if m.IsEmpty() {
		return
	}
	for k0 := 0; k0 < k; k0 += outerChunk {
		k1 := min(k0+outerChunk, k)
		addOuterBlock(m.data, m.stride, m.rows, m.cols, alpha[k0:k1], x.data[k0*x.stride:], x.stride, y.data[k0*y.stride:], y.stride)
	}
}

// outerChunk is the number of rank-one terms AddOuterSum applies per pass.
const outerChunk = 32

// MulTA sets m = Aᵀ·A. An empty m is sized to c×c for an r×c A; otherwise m
// must be c×c. m must not share storage with A. The result is bit-identical
// to Mul(Aᵀ, A) (sums in increasing k) and exactly symmetric; only the upper
// triangle is computed and then mirrored.
func (m *Dense) MulTA(a *Dense) {
	m.sizeFor("MulTA", a.cols, a.cols)
	checkNoOverlap("MulTA", m, a)
	gemm(m, operand{m: a, trans: true}, operand{m: a}, a.rows, true)
	m.mirrorUpper()
}

// MulAAT sets m = A·Aᵀ. An empty m is sized to r×r for an r×c A; otherwise m
// must be r×r. m must not share storage with A. The result is bit-identical
// to Mul(A, Aᵀ) (sums in increasing k) and exactly symmetric; only the upper
// triangle is computed and then mirrored.
func (m *Dense) MulAAT(a *Dense) {
	m.sizeFor("MulAAT", a.rows, a.rows)
	checkNoOverlap("MulAAT", m, a)
	gemm(m, operand{m: a}, operand{m: a, trans: true}, a.cols, true)
	m.mirrorUpper()
}

// mirrorUpper copies the upper triangle of the square m into its lower one.
func (m *Dense) mirrorUpper() {
	for i := 1; i < m.rows; i++ {
		for j := 0; j < i; j++ {
			m.data[i*m.stride+j] = m.data[j*m.stride+i]
		}
	}
}
