//go:build amd64 && !purego

package linalg

// useAVX2 reports whether the AVX2 kernels of kernels_amd64.s run: the CPU
// has AVX2 and the operating system saves the YMM registers. Otherwise the
// portable Go kernels run; both give the same bits.
var useAVX2 = detectAVX2()

// detectAVX2 asks CPUID for AVX and AVX2 and XGETBV for the operating
// system's support of the SSE and AVX register state.
func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	const osxsave, avx = 1 << 27, 1 << 28
	if _, _, ecx, _ := cpuid(1, 0); ecx&(osxsave|avx) != osxsave|avx {
		return false
	}
	const sseAndAVXState = 1<<1 | 1<<2
	if xcr0, _ := xgetbv(); xcr0&sseAndAVXState != sseAndAVXState {
		return false
	}
	const avx2 = 1 << 5
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&avx2 != 0
}

// dot is dotGo; len(y) >= len(x).
func dot(x, y []float64) float64 {
	if useAVX2 {
		return dotAVX2(x, y[:len(x)])
	}
	return dotGo(x, y)
}

// dot2 is dot2Go; len(r0), len(r1) >= len(x).
func dot2(x, r0, r1 []float64) (float64, float64) {
	if useAVX2 {
		n := len(x)
		return dot2AVX2(x, r0[:n], r1[:n])
	}
	return dot2Go(x, r0, r1)
}

// mulVec is mulVecGo, four rows at a time.
func mulVec(dst []float64, a *Dense, x []float64) {
	if !useAVX2 {
		mulVecGo(dst, a, x)
		return
	}
	n, s := len(x), a.stride
	i := 0
	for ; i+4 <= a.rows; i += 4 {
		// The slice expression checks that all four rows lie within the
		// capacity of a.data (a Dense's storage covers every row).
		dst[i], dst[i+1], dst[i+2], dst[i+3] = dot4AVX2(x, a.data[i*s:(i+3)*s+n], s)
	}
	for ; i < a.rows; i++ {
		dst[i] = dotAVX2(x, a.data[i*s:i*s+n])
	}
}

// dotRows is dotRowsGo, by four rows of b and two rows of a at a time,
// with the rows of b in the outer loop: b is read from memory once, while
// the rows of a, typically few, stay in the cache.
func dotRows(m, a, b *Dense) {
	if !useAVX2 {
		dotRowsGo(m, a, b)
		return
	}
	n, as, bs, ms := a.cols, a.stride, b.stride, m.stride
	var out [8]float64
	j := 0
	for ; j+4 <= b.rows; j += 4 {
		bj := b.data[j*bs : (j+3)*bs+n]
		i := 0
		for ; i+2 <= a.rows; i += 2 {
			dot4x2AVX2(bj, bs, a.data[i*as:(i+1)*as+n], as, n, &out)
			r0, r1 := m.data[i*ms+j:i*ms+j+4], m.data[(i+1)*ms+j:(i+1)*ms+j+4]
			r0[0], r1[0], r0[1], r1[1] = out[0], out[1], out[2], out[3]
			r0[2], r1[2], r0[3], r1[3] = out[4], out[5], out[6], out[7]
		}
		if i < a.rows {
			r := m.data[i*ms+j : i*ms+j+4]
			r[0], r[1], r[2], r[3] = dot4AVX2(a.data[i*as:i*as+n], bj, bs)
		}
	}
	for ; j < b.rows; j++ {
		bj := b.data[j*bs : j*bs+n]
		for i := range a.rows {
			m.data[i*ms+j] = dotAVX2(a.data[i*as:i*as+n], bj)
		}
	}
}

// axpy is axpyGo; len(y) >= len(x).
func axpy(alpha float64, x, y []float64) {
	if useAVX2 {
		axpyAVX2(alpha, x, y[:len(x)])
		return
	}
	axpyGo(alpha, x, y)
}

// mulVecT is mulVecTGo. With AVX2, dst gains Σ_i x_i·(row i) by the block
// update of AddOuterSum with the coefficients x, outerChunk rows per pass:
// the same terms in the same order.
func mulVecT(dst []float64, a *Dense, x []float64) {
	if !useAVX2 {
		mulVecTGo(dst, a, x)
		return
	}
	clear(dst)
	// dst is a 1×c matrix; its coefficients are x_i·1, which is x_i.
	for i0 := 0; i0 < a.rows; i0 += outerChunk {
		i1 := min(i0+outerChunk, a.rows)
		addOuterBlock(dst, len(dst), 1, len(dst), x[i0:i1], ones[:], 1, a.data[i0*a.stride:], a.stride)
	}
}

// ones is the coefficient column of MulVecT's block update.
var ones = [outerChunk]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}

// axpyDot is axpyDotGo; z is y or shares no element with it.
func axpyDot(alpha float64, x, y, z []float64) float64 {
	if useAVX2 {
		n := len(x)
		return axpyDotAVX2(alpha, x, y[:n], z[:n])
	}
	return axpyDotGo(alpha, x, y, z)
}

// addOuterBlock is addOuterBlockGo.
func addOuterBlock(m []float64, ms, r, c int, alpha, x []float64, xs int, y []float64, ys int) {
	k := len(alpha)
	if !useAVX2 || r == 0 || c == 0 || k == 0 {
		addOuterBlockGo(m, ms, r, c, alpha, x, xs, y, ys)
		return
	}
	var coef [outerChunk]float64
	_ = coef[k-1] // the kernel writes k coefficients into coef
	// The slice expressions check that every row of m, every column of
	// coefficients and every y_k lie within the slices' capacity.
	addOuterBlockAVX2(m[:(r-1)*ms+c], ms, r, c, alpha, x[:(k-1)*xs+r], xs, y[:(k-1)*ys+c], ys, &coef)
}

// rotate4 is rotate4Go.
func rotate4(rows []float64, n int, cs *[8]float64) {
	if !useAVX2 {
		rotate4Go(rows, n, n, cs)
		return
	}
	rotate4AVX2(rows[:5*n], n, cs)
	if m := n &^ 3; m < n {
		// The last n mod 4 columns.
		rotate4Go(rows[m:5*n], n, n-m, cs)
	}
}

// rotate1 is rotate1Go.
func rotate1(x, y []float64, c, s float64) {
	if !useAVX2 {
		rotate1Go(x, y, c, s)
		return
	}
	n := len(x)
	rotate1AVX2(x, y[:n], c, s)
	rotate1Go(x[n&^3:], y[n&^3:n], c, s)
}

// dotAxpy is dotAxpyGo.
func dotAxpy(x, y, z []float64, alpha float64) float64 {
	if useAVX2 {
		n := len(x)
		return dotAxpyAVX2(x, y[:n], z[:n], alpha)
	}
	return dotAxpyGo(x, y, z, alpha)
}

// syr2Row is syr2RowGo.
func syr2Row(row, v, q []float64, a, b float64) {
	if useAVX2 {
		n := len(row)
		syr2RowAVX2(row, v[:n], q[:n], a, b)
		return
	}
	syr2RowGo(row, v, q, a, b)
}

// gemmShape returns the register tile of gemm, mr×nr: 4×8 for the AVX2
// kernel, 3×3 for the Go one.
func gemmShape() (mr, nr int) {
	if useAVX2 {
		return 4, 8
	}
	return 3, 3
}

// gemmTile runs the kernel of gemmShape's tile: it adds Σ_k a_k·b_kᵀ to the
// row-major mr×nr tile, where a_k and b_k are consecutive groups of mr and
// nr entries of ap and bp; each entry accumulates in increasing k.
func gemmTile(tile, ap, bp []float64) {
	if !useAVX2 {
		kernel3x3(tile, ap, bp)
		return
	}
	kc := len(ap) / 4
	kernel4x8AVX2((*[32]float64)(tile), ap[:4*kc], bp[:8*kc])
}

// The assembly kernels. Each takes slices whose lengths the callers above
// have checked: the x (or row) operand sets the length n.

// cpuid executes CPUID with EAX = leaf and ECX = subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns the extended control register XCR0.
func xgetbv() (eax, edx uint32)

// dotAVX2 is dotGo; len(y) = len(x).
//
//go:noescape
func dotAVX2(x, y []float64) float64

// dot2AVX2 is dot2Go; len(r0) = len(r1) = len(x).
//
//go:noescape
func dot2AVX2(x, r0, r1 []float64) (s, t float64)

// dot4AVX2 returns dotGo(x, row r) for the rows r = 0..3 that start at
// a[r·stride]; len(a) >= 3·stride + len(x).
//
//go:noescape
func dot4AVX2(x, a []float64, stride int) (s0, s1, s2, s3 float64)

// dot4x2AVX2 writes dotGo(row r of a, row c of b) to out[2r+c] for the
// rows r = 0..3 of a, as apart, and c = 0, 1 of b, bs apart, over n
// elements; len(a) >= 3·as + n, len(b) >= bs + n.
//
//go:noescape
func dot4x2AVX2(a []float64, as int, b []float64, bs int, n int, out *[8]float64)

// axpyAVX2 is axpyGo; len(y) = len(x).
//
//go:noescape
func axpyAVX2(alpha float64, x, y []float64)

// axpyDotAVX2 is axpyDotGo; len(y) = len(z) = len(x).
//
//go:noescape
func axpyDotAVX2(alpha float64, x, y, z []float64) float64

// addOuterBlockAVX2 is addOuterBlockGo for 1 ≤ len(alpha) ≤ outerChunk,
// r, c ≥ 1, with coef as the scratch for each row's coefficients;
// len(m) = (r−1)·ms+c, len(x) = (len(alpha)−1)·xs+r and
// len(y) = (len(alpha)−1)·ys+c.
//
//go:noescape
func addOuterBlockAVX2(m []float64, ms, r, c int, alpha, x []float64, xs int, y []float64, ys int, coef *[outerChunk]float64)

// rotate4AVX2 is rotate4Go for the columns below n&^3; len(rows) = 5n.
//
//go:noescape
func rotate4AVX2(rows []float64, n int, cs *[8]float64)

// rotate1AVX2 is rotate1Go for the elements below len(x)&^3;
// len(y) = len(x).
//
//go:noescape
func rotate1AVX2(x, y []float64, c, s float64)

// kernel4x8AVX2 is gemmTile for a 4×8 tile; len(bp) = 2·len(ap).
//
//go:noescape
func kernel4x8AVX2(tile *[32]float64, ap, bp []float64)

// dotAxpyAVX2 is dotAxpyGo; len(y) = len(z) = len(x).
//
//go:noescape
func dotAxpyAVX2(x, y, z []float64, alpha float64) float64

// syr2RowAVX2 is syr2RowGo; len(v) = len(q) = len(row).
//
//go:noescape
func syr2RowAVX2(row, v, q []float64, a, b float64)
