package linalg

// The matrix-matrix products share one blocked kernel. Every element of the
// result is Σ_k op(A)_ik·op(B)_kj added in increasing k, starting from zero,
// exactly as the textbook triple loop does; the blocking only changes which
// elements are worked on when, never the order of any sum. The scheme
// follows the GotoBLAS layout in miniature: a kc×nc block of op(B) is
// packed into strips of nr columns, mr rows of op(A) at a time are packed
// alongside, and an mr×nr register tile of C accumulates over the block.
// The Go kernel uses a 3×3 tile; the AVX2 kernel of amd64 a 4×8 tile
// (kernels_amd64.go). The tile shape changes the blocking only, so both
// give the same bits.

const (
	// gemmKC is the depth of a block (rows of op(B)); gemmNC its width in
	// columns, a multiple of every tile width. The packed block,
	// gemmKC·gemmNC float64s, lives on the stack and fits the L2 cache.
	gemmKC = 128
	gemmNC = 96
	// gemmMaxTile is the largest tile, mr·nr, and gemmMaxMR the largest mr.
	gemmMaxTile = 32
	gemmMaxMR   = 4
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
	mr, nr := gemmShape()
	var bpack [gemmKC * gemmNC]float64
	var apack [gemmKC * gemmMaxMR]float64
	var t [gemmMaxTile]float64
	tile := t[:mr*nr]
	for jb := 0; jb < n; jb += gemmNC {
		nb := min(gemmNC, n-jb)
		for kb := 0; kb < kdim; kb += gemmKC {
			kc := min(gemmKC, kdim-kb)
			packB(bpack[:], b, kb, kc, jb, nb, nr)
			iEnd := r
			if upper {
				iEnd = min(r, jb+nb)
			}
			for ib := 0; ib < iEnd; ib += mr {
				rows := min(mr, r-ib)
				packA(apack[:], a, ib, rows, kb, kc, mr)
				ap := apack[:kc*mr]
				for js := 0; js < nb; js += nr {
					j := jb + js
					cols := min(nr, n-j)
					if upper && j+cols <= ib {
						continue // the tile lies below the diagonal
					}
					// The tile of c (or zero, for the first block of k)
					// goes through the kernel and back.
					clear(tile)
					if kb > 0 {
						for ii := 0; ii < rows; ii++ {
							copy(tile[ii*nr:ii*nr+cols], c.data[(ib+ii)*c.stride+j:])
						}
					}
					gemmTile(tile, ap, bpack[js*kc:js*kc+kc*nr])
					for ii := 0; ii < rows; ii++ {
						copy(c.data[(ib+ii)*c.stride+j:(ib+ii)*c.stride+j+cols], tile[ii*nr:ii*nr+cols])
					}
				}
			}
		}
	}
}

// packB copies rows kb..kb+kc and columns jb..jb+nb of op(B) into dst as
// strips of nr columns: strip s holds, for each k in turn, the nr entries
// (k, jb+nr·s ..). Columns past nb are zero.
func packB(dst []float64, b operand, kb, kc, jb, nb, nr int) {
	m, st := b.m.data, b.m.stride
	full := nb - nb%nr
	if !b.trans {
		// Full strips, walking each row of B once (one page at a time).
		for k := 0; k < kc; k++ {
			src := m[(kb+k)*st+jb:][:full]
			for js := 0; js < full; js += nr {
				copy(dst[js*kc+nr*k:][:nr], src[js:js+nr])
			}
		}
	} else {
		// op(B)(k, j) = B[j][k]: nr rows of B, read along k.
		for js := 0; js < full; js += nr {
			strip := dst[js*kc : js*kc+kc*nr]
			for jj := 0; jj < nr; jj++ {
				for k, v := range m[(jb+js+jj)*st+kb:][:kc] {
					strip[nr*k+jj] = v
				}
			}
		}
	}
	if full < nb {
		strip := dst[full*kc : full*kc+kc*nr]
		cols := nb - full
		for k := 0; k < kc; k++ {
			for jj := 0; jj < nr; jj++ {
				v := 0.0
				if jj < cols {
					v = b.at(kb+k, jb+full+jj)
				}
				strip[nr*k+jj] = v
			}
		}
	}
}

// packA copies rows ib..ib+rows and columns kb..kb+kc of op(A) into dst,
// for each k in turn the mr entries (ib..ib+mr−1, k). Rows past rows are
// zero.
func packA(dst []float64, a operand, ib, rows, kb, kc, mr int) {
	m, st := a.m.data, a.m.stride
	switch {
	case rows == mr && !a.trans:
		for ii := 0; ii < mr; ii++ {
			for k, v := range m[(ib+ii)*st+kb:][:kc] {
				dst[mr*k+ii] = v
			}
		}
	case rows == mr && a.trans:
		// op(A)(i, k) = A[k][i]: mr contiguous entries of row k of A.
		for k := 0; k < kc; k++ {
			copy(dst[mr*k:mr*k+mr], m[(kb+k)*st+ib:])
		}
	default:
		for k := 0; k < kc; k++ {
			for ii := 0; ii < mr; ii++ {
				v := 0.0
				if ii < rows {
					v = a.at(ib+ii, kb+k)
				}
				dst[mr*k+ii] = v
			}
		}
	}
}

// kernel3x3 adds Σ_k a_k·b_kᵀ to the row-major 3×3 tile t, where a_k and b_k
// are consecutive triples of ap and bp (the Go kernel of gemm); each entry accumulates in
// increasing k. Two steps of k per iteration, with the entries of a_k used
// straight from memory, keep the Go compiler from spilling accumulators
// (it schedules the updates of loop-carried values last).
func kernel3x3(tile, ap, bp []float64) {
	t := (*[9]float64)(tile)
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
