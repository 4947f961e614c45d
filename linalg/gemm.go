package linalg

// The matrix-matrix products share one blocked kernel. Every element of the
// result is Σ_k op(A)_ik·op(B)_kj added in increasing k, starting from zero,
// exactly as the textbook triple loop does; the blocking only changes which
// elements are worked on when, never the order of any sum. The scheme
// follows the GotoBLAS layout in miniature: a kc×nc block of op(B) is
// packed into strips of three columns, three rows of op(A) at a time are
// packed alongside, and a 3×3 register tile of C accumulates over the block.

const (
	// gemmKC is the depth of a block (rows of op(B)); gemmNC its width in
	// columns, a multiple of gemmTile. The packed block, gemmKC·gemmNC
	// float64s, lives on the stack and fits the L2 cache.
	gemmKC   = 128
	gemmNC   = 96
	gemmTile = 3
)

// operand describes op(X) for X stored row-major: element (i, k) of op(X)
// is X[i][k], or X[k][i] if trans is set.
type operand struct {
	m     *Dense
	trans bool
}

// at returns element (i, k) of op(X); the packing routines use it only for
// partial strips at the edges.
func (o operand) at(i, k int) float64 {
	if o.trans {
		return o.m.data[k*o.m.stride+i]
	}
	return o.m.data[i*o.m.stride+k]
}

// gemm sets c = op(A)·op(B) for an r×n c and inner dimension kdim. If upper
// is set, c is symmetric by construction and only tiles that reach the
// upper triangle are computed; the caller mirrors them.
func gemm(c *Dense, a, b operand, kdim int, upper bool) {
	r, n := c.rows, c.cols
	if kdim == 0 {
		c.zero()
		return
	}
	var bpack [gemmKC * gemmNC]float64
	var apack [gemmKC * gemmTile]float64
	for jb := 0; jb < n; jb += gemmNC {
		nb := min(gemmNC, n-jb)
		for kb := 0; kb < kdim; kb += gemmKC {
			kc := min(gemmKC, kdim-kb)
			packB(bpack[:], b, kb, kc, jb, nb)
			iEnd := r
			if upper {
				iEnd = min(r, jb+nb)
			}
			for ib := 0; ib < iEnd; ib += gemmTile {
				rows := min(gemmTile, r-ib)
				packA(apack[:], a, ib, rows, kb, kc)
				ap := apack[:kc*gemmTile]
				for js := 0; js < nb; js += gemmTile {
					j := jb + js
					cols := min(gemmTile, n-j)
					if upper && j+cols <= ib {
						continue // the tile lies below the diagonal
					}
					bp := bpack[js*kc : js*kc+kc*gemmTile]
					if rows == gemmTile && cols == gemmTile {
						tile3x3(c, ib, j, kb == 0, ap, bp)
						continue
					}
					var t [gemmTile * gemmTile]float64
					if kb > 0 {
						for ii := 0; ii < rows; ii++ {
							copy(t[ii*gemmTile:ii*gemmTile+cols], c.data[(ib+ii)*c.stride+j:])
						}
					}
					kernel3x3(&t, ap, bp)
					for ii := 0; ii < rows; ii++ {
						copy(c.data[(ib+ii)*c.stride+j:(ib+ii)*c.stride+j+cols], t[ii*gemmTile:ii*gemmTile+cols])
					}
				}
			}
		}
	}
}

// packB copies rows kb..kb+kc and columns jb..jb+nb of op(B) into dst as
// strips of three columns: strip s holds, for each k in turn, the three
// entries (k, jb+3s..jb+3s+2). Columns past nb are zero.
func packB(dst []float64, b operand, kb, kc, jb, nb int) {
	m, st := b.m.data, b.m.stride
	if !b.trans {
		// Full strips, walking each row of B once (one page at a time).
		full := nb - nb%gemmTile
		for k := 0; k < kc; k++ {
			src := m[(kb+k)*st+jb:][:full]
			for js := 0; js < full; js += gemmTile {
				s := src[js : js+3 : js+3]
				t := dst[js*kc+3*k:][:3:3]
				t[0], t[1], t[2] = s[0], s[1], s[2]
			}
		}
	}
	for js := 0; js < nb; js += gemmTile {
		strip := dst[js*kc : js*kc+kc*gemmTile]
		cols := min(gemmTile, nb-js)
		j := jb + js
		switch {
		case cols == gemmTile && !b.trans:
			continue // packed below, row by row
		case cols == gemmTile && b.trans:
			// op(B)(k, j) = B[j][k]: three rows of B, read along k.
			r0 := m[j*st+kb:][:kc]
			r1 := m[(j+1)*st+kb:][:kc]
			r2 := m[(j+2)*st+kb:][:kc]
			for k := range r0 {
				t := strip[3*k : 3*k+3 : 3*k+3]
				t[0], t[1], t[2] = r0[k], r1[k], r2[k]
			}
		default:
			for k := 0; k < kc; k++ {
				for jj := 0; jj < gemmTile; jj++ {
					v := 0.0
					if jj < cols {
						v = b.at(kb+k, j+jj)
					}
					strip[3*k+jj] = v
				}
			}
		}
	}
}

// packA copies rows ib..ib+rows and columns kb..kb+kc of op(A) into dst,
// for each k in turn the three entries (ib..ib+2, k). Rows past rows are
// zero.
func packA(dst []float64, a operand, ib, rows, kb, kc int) {
	m, st := a.m.data, a.m.stride
	switch {
	case rows == gemmTile && !a.trans:
		r0 := m[ib*st+kb:][:kc]
		r1 := m[(ib+1)*st+kb:][:kc]
		r2 := m[(ib+2)*st+kb:][:kc]
		for k := range r0 {
			t := dst[3*k : 3*k+3 : 3*k+3]
			t[0], t[1], t[2] = r0[k], r1[k], r2[k]
		}
	case rows == gemmTile && a.trans:
		// op(A)(i, k) = A[k][i]: a contiguous triple of row k of A.
		for k := 0; k < kc; k++ {
			src := m[(kb+k)*st+ib:][:3:3]
			t := dst[3*k : 3*k+3 : 3*k+3]
			t[0], t[1], t[2] = src[0], src[1], src[2]
		}
	default:
		for k := 0; k < kc; k++ {
			for ii := 0; ii < gemmTile; ii++ {
				v := 0.0
				if ii < rows {
					v = a.at(ib+ii, kb+k)
				}
				dst[3*k+ii] = v
			}
		}
	}
}

// tile3x3 adds the packed block product into the full 3×3 tile of c at
// (i, j), starting from zero instead of c's contents if first is set.
func tile3x3(c *Dense, i, j int, first bool, ap, bp []float64) {
	r0 := c.data[i*c.stride+j:][:3:3]
	r1 := c.data[(i+1)*c.stride+j:][:3:3]
	r2 := c.data[(i+2)*c.stride+j:][:3:3]
	var t [9]float64
	if !first {
		t = [9]float64{r0[0], r0[1], r0[2], r1[0], r1[1], r1[2], r2[0], r2[1], r2[2]}
	}
	kernel3x3(&t, ap, bp)
	r0[0], r0[1], r0[2] = t[0], t[1], t[2]
	r1[0], r1[1], r1[2] = t[3], t[4], t[5]
	r2[0], r2[1], r2[2] = t[6], t[7], t[8]
}

// kernel3x3 adds Σ_k a_k·b_kᵀ to the row-major 3×3 tile t, where a_k and b_k
// are consecutive triples of ap and bp; each entry accumulates in
// increasing k. Two steps of k per iteration, with the entries of a_k used
// straight from memory, keep the Go compiler from spilling accumulators
// (it schedules the updates of loop-carried values last).
func kernel3x3(t *[9]float64, ap, bp []float64) {
	c00, c01, c02 := t[0], t[1], t[2]
	c10, c11, c12 := t[3], t[4], t[5]
	c20, c21, c22 := t[6], t[7], t[8]
	n := len(ap)
	bp = bp[:n]
	i := 0
	for ; i <= n-6; i += 6 {
		a, b := ap[i:i+6:i+6], bp[i:i+6:i+6]
		b0, b1, b2 := b[0], b[1], b[2]
		c00 += float64(a[0] * b0)
		c01 += float64(a[0] * b1)
		c02 += float64(a[0] * b2)
		c10 += float64(a[1] * b0)
		c11 += float64(a[1] * b1)
		c12 += float64(a[1] * b2)
		c20 += float64(a[2] * b0)
		c21 += float64(a[2] * b1)
		c22 += float64(a[2] * b2)
		b0, b1, b2 = b[3], b[4], b[5]
		c00 += float64(a[3] * b0)
		c01 += float64(a[3] * b1)
		c02 += float64(a[3] * b2)
		c10 += float64(a[4] * b0)
		c11 += float64(a[4] * b1)
		c12 += float64(a[4] * b2)
		c20 += float64(a[5] * b0)
		c21 += float64(a[5] * b1)
		c22 += float64(a[5] * b2)
	}
	if i < n {
		a, b := ap[i:i+3:i+3], bp[i:i+3:i+3]
		b0, b1, b2 := b[0], b[1], b[2]
		c00 += float64(a[0] * b0)
		c01 += float64(a[0] * b1)
		c02 += float64(a[0] * b2)
		c10 += float64(a[1] * b0)
		c11 += float64(a[1] * b1)
		c12 += float64(a[1] * b2)
		c20 += float64(a[2] * b0)
		c21 += float64(a[2] * b1)
		c22 += float64(a[2] * b2)
	}
	*t = [9]float64{c00, c01, c02, c10, c11, c12, c20, c21, c22}
}
