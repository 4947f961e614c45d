package linalg

// The kernels below are the inner loops of the products, Gram-Schmidt,
// SymEig and the LU and Gauss-Jordan eliminations in portable Go. On amd64
// with AVX2 (and without the purego build tag) the same loops run as
// assembly, in kernels_amd64.s, with the same operations in the same
// order: one 4-lane vector register holds the four partial sums s0..s3 of
// a dot product, products are rounded before they are added (VMULPD then
// VADDPD, never a fused multiply-add), and the partial sums are combined
// as (s0+s1)+(s2+s3). Both paths
// therefore give the same bits: TestKernelsMatch and FuzzKernels compare
// the kernels (lengths 0-70 at four element offsets, special values),
// TestRoutinesMatchGo and TestFactorizationsMatchGo the public routines,
// and TestKernelsStayInBounds runs the assembly against guard pages.

// dotGo returns Σ x_i·y_i in the order Dot documents; len(y) >= len(x).
// (Indexed loops with one three-index slice per step compile to the
// tightest code here.)
func dotGo(x, y []float64) float64 {
	n := len(x)
	y = y[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i <= n-4; i += 4 {
		xs, ys := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += float64(xs[0] * ys[0])
		s1 += float64(xs[1] * ys[1])
		s2 += float64(xs[2] * ys[2])
		s3 += float64(xs[3] * ys[3])
	}
	s := (s0 + s1) + (s2 + s3)
	for ; i < n; i++ {
		s += float64(x[i] * y[i])
	}
	return s
}

// dot2Go returns dotGo(x, r0) and dotGo(x, r1), bit for bit, sharing the
// loads of x between two rows; len(r0), len(r1) >= len(x).
func dot2Go(x, r0, r1 []float64) (float64, float64) {
	n := len(x)
	r0, r1 = r0[:n], r1[:n]
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	i := 0
	for ; i <= n-4; i += 4 {
		xs, p, q := x[i:i+4:i+4], r0[i:i+4:i+4], r1[i:i+4:i+4]
		a0 += float64(p[0] * xs[0])
		b0 += float64(q[0] * xs[0])
		a1 += float64(p[1] * xs[1])
		b1 += float64(q[1] * xs[1])
		a2 += float64(p[2] * xs[2])
		b2 += float64(q[2] * xs[2])
		a3 += float64(p[3] * xs[3])
		b3 += float64(q[3] * xs[3])
	}
	s, t := (a0+a1)+(a2+a3), (b0+b1)+(b2+b3)
	for ; i < n; i++ {
		s += float64(r0[i] * x[i])
		t += float64(r1[i] * x[i])
	}
	return s, t
}

// mulVecGo sets dst = A·x two rows at a time; element i is dotGo(x, row i).
func mulVecGo(dst []float64, a *Dense, x []float64) {
	i := 0
	for ; i+2 <= a.rows; i += 2 {
		dst[i], dst[i+1] = dot2Go(x, a.data[i*a.stride:], a.data[(i+1)*a.stride:])
	}
	if i < a.rows {
		dst[i] = dotGo(x, a.data[i*a.stride:])
	}
}

// dotRowsGo sets element (i, j) of m to dotGo(row i of a, row j of b), each
// row of m by mulVecGo; a and b have the same number of columns, and m is
// a's rows × b's rows.
func dotRowsGo(m, a, b *Dense) {
	for i := range a.rows {
		mulVecGo(m.data[i*m.stride:i*m.stride+b.rows], b, a.data[i*a.stride:i*a.stride+a.cols])
	}
}

// axpyGo sets y = y + alpha·x element by element; len(y) >= len(x).
func axpyGo(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(alpha * v)
	}
}

// mulVecTGo sets dst = Aᵀ·x, element j being Σ_i A_ij·x_i summed in
// increasing i from +0, four rows per pass: dst is loaded and stored once
// for four terms, which are still added one after another.
func mulVecTGo(dst []float64, a *Dense, x []float64) {
	clear(dst)
	i := 0
	for ; i+4 <= a.rows; i += 4 {
		x0, x1, x2, x3 := x[i], x[i+1], x[i+2], x[i+3]
		r0 := a.data[i*a.stride:][:len(dst)]
		r1 := a.data[(i+1)*a.stride:][:len(dst)]
		r2 := a.data[(i+2)*a.stride:][:len(dst)]
		r3 := a.data[(i+3)*a.stride:][:len(dst)]
		for j, v := range dst {
			v += float64(x0 * r0[j])
			v += float64(x1 * r1[j])
			v += float64(x2 * r2[j])
			v += float64(x3 * r3[j])
			dst[j] = v
		}
	}
	for ; i < a.rows; i++ {
		axpyGo(x[i], a.data[i*a.stride:][:len(dst)], dst)
	}
}

// axpyDotGo sets y = y + alpha·x and returns dotGo(z, y) of the updated y,
// in one pass; z is y or shares no element with it, and len(y), len(z) >=
// len(x). The results are bit-identical to axpy then dot.
func axpyDotGo(alpha float64, x, y, z []float64) float64 {
	n := len(x)
	y, z = y[:n], z[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i <= n-4; i += 4 {
		xs, ys, zs := x[i:i+4:i+4], y[i:i+4:i+4], z[i:i+4:i+4]
		y0 := ys[0] + float64(alpha*xs[0])
		y1 := ys[1] + float64(alpha*xs[1])
		y2 := ys[2] + float64(alpha*xs[2])
		y3 := ys[3] + float64(alpha*xs[3])
		ys[0], ys[1], ys[2], ys[3] = y0, y1, y2, y3
		s0 += float64(zs[0] * y0)
		s1 += float64(zs[1] * y1)
		s2 += float64(zs[2] * y2)
		s3 += float64(zs[3] * y3)
	}
	s := (s0 + s1) + (s2 + s3)
	for ; i < n; i++ {
		y[i] += float64(alpha * x[i])
		s += float64(z[i] * y[i])
	}
	return s
}

// addOuterRowGo adds Σ_k t_k·y_k to row, the terms in increasing k, where
// y_k = y[k·ys : k·ys+len(row)]; len(y) >= (len(t)−1)·ys + len(row). It is
// one row of AddOuterSum: each element is loaded and stored once.
func addOuterRowGo(row, t, y []float64, ys int) {
	// Eight columns at a time.
	j := 0
	for ; j+8 <= len(row); j += 8 {
		r := row[j : j+8 : j+8]
		v0, v1, v2, v3, v4, v5, v6, v7 := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		off := j
		for _, tk := range t {
			yk := y[off : off+8 : off+8]
			v0 += float64(tk * yk[0])
			v1 += float64(tk * yk[1])
			v2 += float64(tk * yk[2])
			v3 += float64(tk * yk[3])
			v4 += float64(tk * yk[4])
			v5 += float64(tk * yk[5])
			v6 += float64(tk * yk[6])
			v7 += float64(tk * yk[7])
			off += ys
		}
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = v0, v1, v2, v3, v4, v5, v6, v7
	}
	// The last columns one at a time.
	for ; j < len(row); j++ {
		v := row[j]
		off := j
		for _, tk := range t {
			v += float64(tk * y[off])
			off += ys
		}
		row[j] = v
	}
}

// addOuterBlockGo adds Σ_k t_k·y_k, the terms in increasing k, to row i of
// the r×c matrix stored in m with stride ms, for every i, where
// t_k = alpha_k·x[k·xs+i] and y_k = y[k·ys : k·ys+c]; len(alpha) ≤
// outerChunk. It is AddOuterSum for one chunk of terms: each element of m
// is loaded and stored once.
func addOuterBlockGo(m []float64, ms, r, c int, alpha, x []float64, xs int, y []float64, ys int) {
	var coef [outerChunk]float64
	t := coef[:len(alpha)]
	for i := 0; i < r; i++ {
		for k, a := range alpha {
			t[k] = a * x[k*xs+i]
		}
		addOuterRowGo(m[i*ms:i*ms+c], t, y, ys)
	}
}

// rotate4Go applies four plane rotations to five consecutive rows r_0..r_4,
// where row r is rows[r·stride : r·stride+n]: for j = 1..4, with
// (c_j, s_j) = (cs[2j−2], cs[2j−1]), rows 4−j and 5−j become
// (c_j·x − s_j·y, s_j·x + c_j·y) with x = row 4−j and y = row 5−j, in that
// order (j = 1 rotates rows 3 and 4). The running row stays in a register,
// so each element is loaded and stored once for the four rotations.
func rotate4Go(rows []float64, stride, n int, cs *[8]float64) {
	c1, s1, c2, s2, c3, s3, c4, s4 := cs[0], cs[1], cs[2], cs[3], cs[4], cs[5], cs[6], cs[7]
	r4 := rows[4*stride : 4*stride+n]
	r3 := rows[3*stride : 3*stride+n][:len(r4)]
	r2 := rows[2*stride : 2*stride+n][:len(r4)]
	r1 := rows[stride : stride+n][:len(r4)]
	r0 := rows[:n][:len(r4)]
	for k := range r4 {
		y, x := r4[k], r3[k]
		r4[k] = float64(s1*x) + float64(c1*y)
		y = float64(c1*x) - float64(s1*y)
		x = r2[k]
		r3[k] = float64(s2*x) + float64(c2*y)
		y = float64(c2*x) - float64(s2*y)
		x = r1[k]
		r2[k] = float64(s3*x) + float64(c3*y)
		y = float64(c3*x) - float64(s3*y)
		x = r0[k]
		r1[k] = float64(s4*x) + float64(c4*y)
		r0[k] = float64(c4*x) - float64(s4*y)
	}
}

// rotate1Go sets (x, y) = (c·x − s·y, s·x + c·y) element by element;
// len(y) >= len(x).
func rotate1Go(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for k, xk := range x {
		yk := y[k]
		y[k] = float64(s*xk) + float64(c*yk)
		x[k] = float64(c*xk) - float64(s*yk)
	}
}

// dotAxpyGo returns dotGo(x, y) and sets z = z + alpha·x, in one pass over
// x; len(y), len(z) >= len(x), and z shares no element with x or y.
func dotAxpyGo(x, y, z []float64, alpha float64) float64 {
	n := len(x)
	y, z = y[:n], z[:n]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j <= n-4; j += 4 {
		xs, ys, zs := x[j:j+4:j+4], y[j:j+4:j+4], z[j:j+4:j+4]
		s0 += float64(xs[0] * ys[0])
		s1 += float64(xs[1] * ys[1])
		s2 += float64(xs[2] * ys[2])
		s3 += float64(xs[3] * ys[3])
		zs[0] += float64(xs[0] * alpha)
		zs[1] += float64(xs[1] * alpha)
		zs[2] += float64(xs[2] * alpha)
		zs[3] += float64(xs[3] * alpha)
	}
	s := (s0 + s1) + (s2 + s3)
	for ; j < n; j++ {
		s += float64(x[j] * y[j])
		z[j] += float64(x[j] * alpha)
	}
	return s
}

// syr2RowGo sets row = row − (a·q + b·v) element by element, the symmetric
// rank-2 update of one row; len(v), len(q) >= len(row).
func syr2RowGo(row, v, q []float64, a, b float64) {
	v, q = v[:len(row)], q[:len(row)]
	for j := range row {
		row[j] -= float64(a*q[j]) + float64(b*v[j])
	}
}
