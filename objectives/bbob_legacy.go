package objectives

import (
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
)

// This file holds BBOB's per-instance generators: the legacy uniform and
// Gaussian generators, fopt, the standard xopt and the rotations
// (docs/BBOB.md Sections 2-4). They run once, at construction.

// Park–Miller "minimal standard" generator in Schrage form (docs/BBOB.md §2).
const (
	legacyModulus    = 2147483647 // 2^31 - 1
	legacyMultiplier = 16807
	legacySchrageQ   = 127773 // modulus / multiplier
	legacySchrageR   = 2836   // modulus % multiplier
	legacyTableSize  = 32
	legacyWarmUp     = 40
	legacyDivisor    = 67108865 // 1 + (modulus - 1) / tableSize
)

// legacyUniform fills dst with BBOB's legacy uniform numbers for seed
// (docs/BBOB.md §2). Every call starts again from the seed, so two calls with the
// same seed share a prefix.
func legacyUniform(dst []float64, seed int64) {
	if seed < 0 {
		seed = -seed
	}
	if seed < 1 {
		seed = 1
	}
	state := seed
	step := func() {
		k := state / legacySchrageQ
		state = legacyMultiplier*(state-legacySchrageQ*k) - legacySchrageR*k
		if state < 0 {
			state += legacyModulus
		}
	}
	// Warm-up: the state after step 9+m goes into slot 31-m (docs/BBOB.md §2.3).
	var table [legacyTableSize]int64
	for s := 1; s <= legacyWarmUp; s++ {
		step()
		if slot := legacyWarmUp - s; slot < legacyTableSize {
			table[slot] = state
		}
	}
	// Bays–Durham shuffle: output the table entry, store the fresh state.
	last := table[0]
	for n := range dst {
		step()
		j := last / legacyDivisor
		last = table[j]
		table[j] = state
		u := float64(last) / legacyModulus
		if u == 0 {
			u = 1e-99
		}
		dst[n] = u
	}
}

// legacyGauss fills dst with BBOB's Gaussian numbers for seed (docs/BBOB.md §3):
// Box–Muller on 2·len(dst) legacy uniforms, radii from the first half and
// angles from the second.
func legacyGauss(dst []float64, seed int64) {
	n := len(dst)
	u := make([]float64, 2*n)
	legacyUniform(u, seed)
	for i := range dst {
		g := math.Sqrt(-2*xmath.Log(u[i])) * xmath.Cos(2*math.Pi*u[n+i])
		if g == 0 {
			g = 1e-99
		}
		dst[i] = g
	}
}

// bbobFopt is the optimal value of the problem with seed s (docs/BBOB.md §4):
// round(10000·g1/g2)/100 clamped to [-1000, 1000], with g1 = gauss(1, s) and
// g2 = gauss(1, s+1).
func bbobFopt(seed int64) float64 {
	var g1, g2 [1]float64
	legacyGauss(g1[:], seed)
	legacyGauss(g2[:], seed+1)
	v := math.Floor(100*100*g1[0]/g2[0]+0.5) / 100
	return min(1000, max(-1000, v))
}

// bbobXopt is the standard optimum xopt_std(seed, dim) (docs/BBOB.md §4):
// x_i = 8·⌊10^4·u_i⌋/10^4 − 4 on a 0.0008 grid in [−4, 4), with −1e−5 in
// place of an exact 0.
func bbobXopt(seed int64, dim int) []float64 {
	x := make([]float64, dim)
	legacyUniform(x, seed)
	for i, u := range x {
		v := 8*math.Floor(1e4*u)/1e4 - 4
		if v == 0 {
			v = -1e-5
		}
		x[i] = v
	}
	return x
}

// bbobRotation is the dim×dim rotation(seed) of docs/BBOB.md §4, row-major: the
// Gaussians gauss(dim², seed) fill the matrix column by column, and the
// columns are orthonormalised in order by modified Gram–Schmidt, dividing
// by the root of the squared norm. It is used as z = B·x.
func bbobRotation(seed int64, dim int) []float64 {
	// cols[c*dim+r] holds B[r][c]: the first dim Gaussians form column 0, so
	// the Gaussian stream is already the column-major layout.
	cols := make([]float64, dim*dim)
	legacyGauss(cols, seed)
	for c := range dim {
		bc := cols[c*dim : c*dim+dim]
		for j := range c {
			bj := cols[j*dim : j*dim+dim]
			p := 0.0
			for r := range bc {
				p += float64(bc[r] * bj[r])
			}
			for r := range bc {
				bc[r] -= float64(p * bj[r])
			}
		}
		p := 0.0
		for _, v := range bc {
			p += float64(v * v)
		}
		root := math.Sqrt(p)
		for r := range bc {
			bc[r] /= root
		}
	}
	b := make([]float64, dim*dim)
	for c := range dim {
		for r := range dim {
			b[r*dim+c] = cols[c*dim+r]
		}
	}
	return b
}

// mulDiagonalRotations returns M = R·Λ·Q for dim×dim row-major R and Q and
// the diagonal lambda, each entry summed over k in order:
// M[r][c] = Σ_k (R[r][k]·λ_k)·Q[k][c] (docs/BBOB.md §4, combined matrices).
func mulDiagonalRotations(r []float64, lambda []float64, q []float64) []float64 {
	dim := len(lambda)
	m := make([]float64, dim*dim)
	for i := range dim {
		mi := m[i*dim : i*dim+dim]
		for k := range dim {
			rl := r[i*dim+k] * lambda[k]
			qk := q[k*dim : k*dim+dim]
			for c := range mi {
				mi[c] += float64(rl * qk[c])
			}
		}
	}
	return m
}

// argsortUniform returns the permutation π that sorts u ascending: π[m] is
// the original index of the m-th smallest value (docs/BBOB.md §6, f21/f22). Ties
// keep index order.
func argsortUniform(u []float64) []int {
	perm := make([]int, len(u))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		switch {
		case u[a] < u[b]:
			return -1
		case u[a] > u[b]:
			return 1
		}
		return 0
	})
	return perm
}
