package objectives

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hees-dev/hees/internal/xmath"
)

// Limits of the bbob-largescale suite (and of bbob-mixint, which uses its
// functions from dimension 50 on).
const (
	// MaxLargeScaleDim is the largest dimension NewBBOBLargeScale and
	// NewBBOBMixint accept. COCO seeds block b of a block rotation with
	// base + 10^6·b, so a problem of dimension d draws seeds up to
	// rseed + 10^6·⌈d/40⌉; with d <= 40000 (1000 blocks) and instances up
	// to MaxLargeScaleInstance every seed stays a valid state of the legacy
	// generator, 1 … 2^31−2 (docs/BBOB.md §9). Beyond that COCO's C code has
	// no defined value to match. Memory is O(d·40): at the limit about
	// 60 MB for most functions, and 190 MB at the peak of building f21
	// (101 peaks of d numbers each), which takes about 1.5 s.
	MaxLargeScaleDim = 40000
	// MaxLargeScaleInstance is the largest instance NewBBOBLargeScale and
	// NewBBOBMixint accept (COCO's default instances are 1 … 15); see
	// MaxLargeScaleDim for the reason.
	MaxLargeScaleInstance = 100000
)

// Parameters of COCO's permuted block-diagonal rotations (docs/BBOB.md §9).
const (
	lsMaxBlock       = 40      // block size min(d, 40)
	lsBlockSeedStep  = 1000000 // block b of rotation(seed) uses seed + 10^6·b
	lsSwapSeedStep   = 1000    // swap k of a permutation uses seed + 1000·(k+1)
	lsPermSeedStep   = 1000000 // permutation Pk uses rseed + 10^6·k
	lsIdentityBelow  = 40      // permutations are the identity for d <= 40
	lsNormDim        = 40      // values are scaled by min(1, 40/d)
	lsGallagherStep  = 1000    // peak j's axis permutation uses rseed + 1000·j
	lsShortAxesDenom = 40      // f11, f12, f13: ⌈d/40⌉ special axes
)

// NewBBOBLargeScale returns function f1 … f24 of COCO's bbob-largescale
// suite, instance instance (1 … MaxLargeScaleInstance; COCO's are 1 … 15)
// in dimension dim (2 … MaxLargeScaleDim; COCO's suite has 20, 40, 80, 160,
// 320 and 640), exactly as COCO defines it (docs/BBOB.md §9,
// numbbo/coco-experiment v2.8.2). The name is "bbob-largescale/fF/iI".
//
// The functions are those of the bbob suite with the full rotations
// replaced by permuted block-diagonal ones (blocks of min(d, 40)
// coordinates, the coordinates shuffled by d truncated random swaps of
// range d/3), so memory and time per evaluation are O(d·40); most values are
// scaled by min(1, 40/d), and f11-f13 have ⌈d/40⌉ special axes instead of
// one. The values include fopt; Optimum reports COCO's optimal point and
// COCO's optimal value, and Bounds is [−5, 5].
//
// Outside the usual numbers COCO's rules apply: a point with an infinite
// coordinate has the value +Inf, one with a NaN the value NaN, and an
// intermediate vector that overflows gives +Inf (f21, f22: NaN) as COCO's
// chain of transformations does.
//
// The values match COCO's own C code (testdata/bbob-largescale, d = 2 to
// 640) to within 1e-9·max(1, |f − fopt|) on every row, 1e-8 for f19 and
// f23, and bit for bit on half or more of the rows of each function;
// docs/BBOB.md §11 lists the largest differences (the Gaussians behind the
// rotations differ from glibc's in the last bit now and then).
func NewBBOBLargeScale(function, instance, dim int) (Problem, error) {
	if function < 1 || function > BBOBFunctions {
		return nil, fmt.Errorf("objectives: bbob-largescale function must be 1 … %d, got %d", BBOBFunctions, function)
	}
	if instance < 1 || instance > MaxLargeScaleInstance {
		return nil, fmt.Errorf("objectives: bbob-largescale instance must be 1 … %d, got %d", MaxLargeScaleInstance, instance)
	}
	name := suiteName(suiteLargeScale, function, instance)
	if err := checkDim(name, dim, 2, MaxLargeScaleDim); err != nil {
		return nil, err
	}
	b := newLargeScaleData(function, instance, dim)
	p := &problem{
		name:   name,
		dim:    dim,
		bound:  bbobBound,
		xopt:   b.best,
		fopt:   b.bestValue,
		hasOpt: true,
	}
	if function == 1 {
		// f1 is min(1, 40/d)·|x − xopt|² + fopt: H = 2·min(1, 40/d)·I.
		h := make([]float64, dim)
		for i := range h {
			h[i] = 2 * b.norm
		}
		p.hessDiag = h
	}
	p.f = b.evaluate
	return p, nil
}

// Suite names of the specs.
const (
	suiteBBOB       = "bbob"
	suiteLargeScale = "bbob-largescale"
	suiteMixint     = "bbob-mixint"
	suiteNoisy      = "bbob-noisy"
)

// suiteName is the canonical spec of function f, instance i of a suite.
func suiteName(suite string, function, instance int) string {
	return fmt.Sprintf("%s/f%d/i%d", suite, function, instance)
}

// blockRotation is COCO's block-diagonal rotation of dimension dim: blocks of
// size min(dim, 40), the last one holding what is left, each an independent
// rotation(seed + 10^6·b) of docs/BBOB.md §4 (docs/BBOB.md §9).
type blockRotation struct {
	dim, size int
	// data holds the blocks one after another, each row-major.
	data []float64
}

// newBlockRotation computes COCO's block rotation for seed.
func newBlockRotation(seed int64, dim int) *blockRotation {
	size := min(dim, lsMaxBlock)
	b := &blockRotation{dim: dim, size: size, data: make([]float64, 0, dim*size)}
	for blk, first := 0, 0; first < dim; blk, first = blk+1, first+size {
		s := min(size, dim-first)
		b.data = append(b.data, bbobRotation(seed+lsBlockSeedStep*int64(blk), s)...)
	}
	return b
}

// row returns the stored entries of row r (those of its block) and the
// column of its first entry.
func (b *blockRotation) row(r int) (row []float64, first int) {
	first = r / b.size * b.size
	s := min(b.size, b.dim-first)
	off := first*b.size + (r-first)*s
	return b.data[off : off+s], first
}

// permBlock is one permuted block rotation y = P_out·B·P_in·x of COCO's
// large-scale functions: z_j = x[in[j]], w = B·z, y_i = w[out[i]], computed
// in COCO's order (each y_i summed over its block from 0, first column
// first). A nil permutation is the identity.
type permBlock struct {
	in, out []int32
	rot     *blockRotation
}

// apply writes the result for x into dst; tmp (len(x)) holds the permuted
// input.
func (pb *permBlock) apply(dst, x, tmp []float64) {
	z := x
	if pb.in != nil {
		for j, k := range pb.in {
			tmp[j] = x[k]
		}
		z = tmp
	}
	for i := range dst {
		r := i
		if pb.out != nil {
			r = int(pb.out[i])
		}
		row, first := pb.rot.row(r)
		dst[i] = affineRow(row, z[first:first+len(row)], 0)
	}
}

// argsortFast returns the permutation that sorts u ascending, ties in index
// order: argsortUniform's result, computed faster for the long vectors of
// the large-scale suite (values and indices sorted together).
func argsortFast(u []float64) []int {
	type entry struct {
		v float64
		i int
	}
	e := make([]entry, len(u))
	for i, v := range u {
		e[i] = entry{v, i}
	}
	slices.SortFunc(e, func(a, b entry) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return cmp.Compare(a.i, b.i)
	})
	perm := make([]int, len(u))
	for k, x := range e {
		perm[k] = x.i
	}
	return perm
}

// swapPermutation is COCO's truncated uniform swap permutation of 0 … n−1
// for seed (docs/BBOB.md §9): the identity for n <= 40; otherwise the
// coordinates, taken in the order that sorts unif(n, seed), are each
// swapped with a partner drawn uniformly among the others within distance
// n/3, the k-th swap's partner from one uniform of seed + 1000·(k+1). It
// returns nil for the identity.
func swapPermutation(seed int64, n int) []int32 {
	if n <= lsIdentityBelow {
		return nil
	}
	u := make([]float64, n)
	legacyUniform(u, seed)
	order := argsortFast(u)
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	swapRange := n / 3
	var one [1]float64
	for k, first := range order {
		lower, upper := max(0, first-swapRange), min(n-1, first+swapRange)
		// COCO's coco_random_unif_integer(lower, upper−1, seed'): one
		// uniform, scaled to the upper − lower integers and truncated.
		legacyUniform(one[:], seed+lsSwapSeedStep*int64(k+1))
		second := int(one[0]*float64(upper-lower)) + lower
		if second >= first {
			second++
		}
		p[first], p[second] = p[second], p[first]
	}
	return p
}

// lsData is the per-instance data of one bbob-largescale problem. Which
// fields are set depends on the function (newLargeScaleData).
type lsData struct {
	dim       int
	fopt      float64   // the shift of the values (bbob's fopt)
	bestValue float64   // COCO's optimal value (fopt plus a leftover for f16, f20)
	xopt      []float64 // the shift of x (nil for f5, f19, f21, f22, f24)
	best      []float64 // COCO's optimal point
	norm      float64   // min(1, 40/d), COCO's normalisation by dimension
	// stages are the permuted block rotations in the order they act.
	stages []*permBlock
	// coef, coef2 are per-coordinate constants of the function (conditioning,
	// asymmetry, ellipsoid coefficients, …).
	coef, coef2 []float64
	scalar      float64 // f16 f0, f20 offset, f23 exponent, f24 s
	scalar2     float64 // f24 μ1
	// wa, wb are f16's a_k = 0.5^k and b_k = 3^k.
	wa, wb []float64
	// Gallagher peaks (f21, f22): heights, the rotated centres ỹ_j
	// (peak-major), each peak's inverse axis permutation, conditioning
	// coefficients and scale.
	peakHeight []float64
	peakLoc    []float64
	peakPerm   []int32
	peakCond   []float64
	peakScale  []float64
	// sign holds ±1 per coordinate for f20 and f24 (the sign of xopt).
	sign []float64

	eval    func(x, work []float64) float64
	workLen int
	pool    sync.Pool // of *[]float64 of length workLen
}

// evaluate is COCO's coco_evaluate_function around eval: a point with an
// infinite coordinate has the value +Inf, one with a NaN the value NaN.
func (b *lsData) evaluate(x []float64) float64 {
	if v, bad := special(x); bad {
		return v
	}
	if b.workLen == 0 {
		return b.eval(x, nil)
	}
	wp := b.pool.Get().(*[]float64)
	v := b.eval(x, *wp)
	b.pool.Put(wp)
	return v
}

// special reports whether v holds an infinity or a NaN and, if so, the
// value COCO gives such an input: +Inf if any coordinate is infinite (|x_i|
// of the first), otherwise NaN.
func special(v []float64) (float64, bool) {
	nan := false
	for _, x := range v {
		switch {
		case math.IsInf(x, 0):
			return math.Inf(1), true
		case x != x:
			nan = true
		}
	}
	if nan {
		return math.NaN(), true
	}
	return 0, false
}

// newLargeScaleData computes the per-instance data of function f, instance
// inst, dimension dim and chooses its evaluator (docs/BBOB.md §9).
func newLargeScaleData(f, inst, dim int) *lsData {
	base := int64(f)
	switch f {
	case 4:
		base = 3
	case 18:
		base = 17
	}
	rseed := base + seedInstanceStep*int64(inst)
	b := &lsData{dim: dim, fopt: bbobFopt(rseed)}
	b.bestValue = b.fopt
	b.norm = 1
	if r := float64(lsNormDim) / float64(dim); r < 1 {
		b.norm = r
	}
	n1 := float64(dim) - 1
	// Coefficients of COCO's elementwise transforms.
	conditioning := func(alpha float64) []float64 {
		c := make([]float64, dim)
		for i := range c {
			c[i] = xmath.Pow(alpha, 0.5*float64(i)/n1)
		}
		return c
	}
	asymmetry := func(beta float64) []float64 {
		c := make([]float64, dim)
		for i := range c {
			c[i] = beta * float64(i) / n1
		}
		return c
	}
	powers := func(cond float64) []float64 {
		c := make([]float64, dim)
		for i := range c {
			c[i] = xmath.Pow(cond, float64(i)/n1)
		}
		return c
	}
	// Rotations and permutations, by their offsets from rseed.
	rotR := func() *blockRotation { return newBlockRotation(rseed+seedSecondRot, dim) }
	rotQ := func() *blockRotation { return newBlockRotation(rseed, dim) }
	perm := func(k int64) []int32 { return swapPermutation(rseed+lsPermSeedStep*k, dim) }
	// stage is the permuted block rotation [P_in, rot, P_out].
	stage := func(in, out int64, rot *blockRotation) *permBlock {
		return &permBlock{in: perm(in), out: perm(out), rot: rot}
	}
	xoptStd := func() {
		b.xopt = bbobXopt(rseed, dim)
		b.best = b.xopt
	}

	switch f {
	case 1:
		xoptStd()
		b.eval = b.f1
	case 2:
		xoptStd()
		b.coef = ellipsoidCoefficients(dim, condEllipsoid)
		b.eval = b.f2
	case 3:
		xoptStd()
		b.coef = conditioning(condRastrigin)
		b.coef2 = asymmetry(betaRastrigin)
		b.eval = b.f3
	case 4:
		xoptStd()
		for i := 0; i < dim; i += 2 {
			b.xopt[i] = math.Abs(b.xopt[i])
		}
		b.coef = make([]float64, dim)
		for i := range b.coef {
			b.coef[i] = xmath.Pow(math.Sqrt(10), float64(i)/n1)
		}
		b.eval = b.f4
	case 5:
		x0 := bbobXopt(rseed, dim)
		b.best = make([]float64, dim)
		b.coef = make([]float64, dim)
		for i, v := range x0 {
			s := xmath.Pow(math.Sqrt(100), float64(i)/n1)
			b.best[i] = bbobBound
			if v < 0 {
				b.best[i], s = -bbobBound, -s
			}
			b.coef[i] = s
		}
		b.eval = b.f5
	case 6, 7:
		xoptStd()
		q, r := rotQ(), rotR()
		b.stages = []*permBlock{stage(2, 3, q), stage(4, 5, r)}
		b.coef = conditioning(condRastrigin)
		if f == 6 {
			b.eval, b.workLen = b.f6, 3*dim
		} else {
			b.coef2 = powers(condStep)
			b.eval, b.workLen = b.f7, 3*dim
		}
	case 8, 9:
		xoptStd()
		for i := range b.xopt {
			b.xopt[i] *= 0.75
		}
		if f == 8 {
			b.eval = b.f8
		} else {
			b.stages = []*permBlock{stage(2, 3, rotQ())}
			b.eval, b.workLen = b.f9, 3*dim
		}
	case 10, 11, 14:
		xoptStd()
		b.stages = []*permBlock{stage(2, 3, rotR())}
		switch f {
		case 10:
			b.coef = ellipsoidCoefficients(dim, condEllipsoid)
			b.eval = b.f10
		case 11:
			b.eval = b.f11
		case 14:
			b.coef = make([]float64, dim)
			for i := range b.coef {
				b.coef[i] = 2 + 4*float64(i)/n1
			}
			b.eval = b.f14
		}
		b.workLen = 3 * dim
	case 12:
		b.xopt = bbobXopt(rseed+seedSecondRot, dim)
		b.best = b.xopt
		st := stage(2, 3, rotR())
		b.stages = []*permBlock{st, st}
		b.coef2 = asymmetry(betaSchaffers)
		b.eval, b.workLen = b.f12, 3*dim
	case 13:
		xoptStd()
		b.stages = []*permBlock{stage(5, 6, rotQ()), stage(3, 4, rotR())}
		b.coef = conditioning(condRastrigin)
		b.eval, b.workLen = b.f13, 3*dim
	case 15:
		xoptStd()
		r := rotR()
		first := stage(3, 4, r)
		b.stages = []*permBlock{first, stage(5, 6, rotQ()), first}
		b.coef = conditioning(condRastrigin)
		b.coef2 = asymmetry(betaRastrigin)
		b.eval, b.workLen = b.f15, 3*dim
	case 16:
		xoptStd()
		r := rotR()
		first := stage(5, 6, r)
		b.stages = []*permBlock{first, stage(3, 4, rotQ()), first}
		b.coef = conditioning(1.0 / 100)
		b.wa, b.wb = make([]float64, weierstrassK), make([]float64, weierstrassK)
		a, bk := 1.0, 1.0
		for k := range weierstrassK {
			b.wa[k], b.wb[k] = a, bk
			b.scalar += float64(a * xmath.Cos(2*math.Pi*bk*0.5))
			a, bk = a*0.5, bk*3
		}
		// COCO's optimal value is the raw value at z = 0 (which need not be
		// exactly 0) plus fopt.
		s := 0.0
		for range dim {
			for k, a := range b.wa {
				s += float64(xmath.Cos(2*math.Pi*0.5*b.wb[k]) * a)
			}
		}
		b.bestValue = float64(10*xmath.Pow(s/float64(dim)-b.scalar, 3)) + b.fopt
		b.eval, b.workLen = b.f16, 3*dim
	case 17, 18:
		xoptStd()
		cond := float64(condSchaffers17)
		if f == 18 {
			cond = condSchaffers18
		}
		b.stages = []*permBlock{stage(5, 6, rotR()), stage(3, 4, rotQ())}
		b.coef = conditioning(cond)
		b.coef2 = asymmetry(betaSchaffers)
		b.eval, b.workLen = b.f17, 3*dim
	case 19:
		q := rotQ()
		st := stage(2, 3, q)
		b.stages = []*permBlock{st}
		// COCO sets x* = P1ᵀ·(Bᵀ·1)/2: per block, the column sums of B
		// over 2, then placed by P1 (the first permutation).
		b.best = make([]float64, dim)
		x1 := make([]float64, dim)
		for first := 0; first < dim; first += q.size {
			s := min(q.size, dim-first)
			for j := range s {
				t := 0.0
				for i := range s {
					row, _ := q.row(first + i)
					t += row[j]
				}
				x1[first+j] = t / 2
			}
		}
		for j, v := range x1 {
			k := j
			if st.in != nil {
				k = int(st.in[j])
			}
			b.best[k] = v
		}
		b.eval, b.workLen = b.f19, 3*dim
	case 20:
		b.initSchwefel(rseed, conditioning(condRastrigin))
	case 21, 22:
		b.initGallagher(f, rseed)
	case 23:
		xoptStd()
		b.stages = []*permBlock{stage(3, 4, rotQ()), stage(5, 6, rotR())}
		b.coef = conditioning(100)
		b.scalar = 10 / xmath.Pow(float64(dim), 1.2)
		b.eval, b.workLen = b.f23, 3*dim
	case 24:
		b.stages = []*permBlock{stage(3, 4, rotQ()), stage(5, 6, rotR())}
		b.coef = conditioning(100)
		g := make([]float64, dim)
		legacyGauss(g, rseed)
		b.sign = make([]float64, dim)
		b.best = make([]float64, dim)
		for i, v := range g {
			b.sign[i] = 1
			if v < 0 {
				b.sign[i] = -1
			}
			b.best[i] = 0.5 * lunacekMu0 * b.sign[i]
		}
		s := 1 - 0.5/(math.Sqrt(float64(dim)+20)-4.1)
		b.scalar = s
		b.scalar2 = -math.Sqrt((lunacekMu0*lunacekMu0 - lunacekD) / s)
		b.eval, b.workLen = b.f24, 4*dim
	}
	if b.workLen > 0 {
		n := b.workLen
		b.pool.New = func() any {
			w := make([]float64, n)
			return &w
		}
	}
	return b
}

// initSchwefel sets up f20 of the large-scale suite: bbob's f20, with
// COCO's "generalized" constant 4.189828872724339·100 (the same float64 as
// bbob's 418.9828872724339, computed as COCO does) and the optimal value
// computed with it.
func (b *lsData) initSchwefel(rseed int64, lambda []float64) {
	dim := b.dim
	u := make([]float64, dim)
	legacyUniform(u, rseed)
	b.xopt = make([]float64, dim)
	b.best = make([]float64, dim)
	b.sign = make([]float64, dim)
	cocoOpt := ((schwefelCOCOopt/100 - schwefelConst) + schwefelConst) / 2
	for i, v := range u {
		sign := 1.0
		if v < 0.5 {
			sign = -1
		}
		b.sign[i] = sign
		b.xopt[i] = sign * (schwefelConst / 2)
		b.best[i] = sign * cocoOpt
	}
	b.coef = lambda
	b.scalar = schwefelGeneralizedOffset()
	// COCO's optimal value: the raw function at 420.96874633 in every
	// coordinate (about 1e-15 rather than 0), plus fopt.
	sum := 0.0
	for range dim {
		z := schwefelCOCOopt
		sum += float64(z * xmath.Sin(math.Sqrt(z)))
	}
	b.bestValue = float64(0.01*(b.scalar-sum/float64(dim))) + b.fopt
	b.eval = b.f20
}

// schwefelFactor and schwefelHundred are COCO's Schwefel_constant and the
// 100 it is multiplied by at run time; they are variables so that the
// product is a float64 one, as in C, not an exact constant expression.
var schwefelFactor, schwefelHundred = 4.189828872724339, 100.0

// schwefelGeneralizedOffset is COCO's 4.189828872724339·100 of the
// large-scale f20, rounded as a float64 product.
func schwefelGeneralizedOffset() float64 { return schwefelFactor * schwefelHundred }

// Gallagher parameters of the large-scale f21 and f22 (docs/BBOB.md §9).
const (
	lsGallagherCond21 = 1000    // α of peak 0, f21
	lsGallagherCond22 = 1000000 // α of peak 0, f22
	lsGallagherCond   = 1000    // α_k = 1000^(2k/(npk−2))
)

// initGallagher sets up the large-scale f21 (101 peaks) and f22 (21 peaks):
// x̃ = B·x with one block rotation B = rotation(rseed), and peak j
// contributing w_j·exp(−(1/(2d))·Σ_m (s_j·c_jm·(x̃ − ỹ_j)[π_j⁻¹(m)])²).
func (b *lsData) initGallagher(f int, rseed int64) {
	dim := b.dim
	peaks, cond0, span, offset := 101, float64(lsGallagherCond21), 10.0, 5.0
	if f == 22 {
		peaks, cond0, span, offset = 21, lsGallagherCond22, 9.8, 4.9
	}
	rot := newBlockRotation(rseed, dim)
	b.stages = []*permBlock{{rot: rot}}
	// α_k = 1000^(2k/(npk−2)), k = 0 … npk−2, assigned to the peaks 1 …
	// npk−1 by the permutation that sorts unif(npk−1, rseed).
	alphas := make([]float64, peaks-1)
	for k := range alphas {
		alphas[k] = xmath.Pow(lsGallagherCond, 2*float64(k)/float64(peaks-2))
	}
	u := make([]float64, peaks-1)
	legacyUniform(u, rseed)
	order := argsortUniform(u)
	// Peak centres y_j = span·u − offset from unif(d·npk, rseed), y_0 scaled
	// by 0.8, then rotated by B.
	ul := make([]float64, dim*peaks)
	legacyUniform(ul, rseed)
	b.peakHeight = make([]float64, peaks)
	b.peakLoc = make([]float64, peaks*dim)
	b.peakPerm = make([]int32, peaks*dim)
	b.peakCond = make([]float64, peaks*dim)
	b.peakScale = make([]float64, peaks)
	b.best = make([]float64, dim)
	y := make([]float64, dim)
	ud := make([]float64, dim)
	n1 := float64(dim) - 1
	for j := range peaks {
		for i := range y {
			y[i] = float64(span*ul[j*dim+i]) - offset
			if j == 0 {
				y[i] *= 0.8
				b.best[i] = y[i]
			}
		}
		for i := range dim {
			row, first := rot.row(i)
			b.peakLoc[j*dim+i] = affineRow(row, y[first:first+len(row)], 0)
		}
		alpha := cond0
		if j > 0 {
			alpha = alphas[order[j-1]]
		}
		// Heights: w_0 = 10, w_j = 1.1 + 8·(j − 1)/(npk − 2).
		if j == 0 {
			b.peakHeight[j] = 10
		} else {
			b.peakHeight[j] = 1.1 + float64(8*float64(j-1))/float64(peaks-2)
		}
		// The sub-problem of peak j: shift by ỹ_j, inverse permutation π_j
		// (the argsort of unif(d, rseed + 1000·j)), conditioning
		// sqrt(α)^(0.5·m/(d−1)) and scale 1/α^(1/8), then the sphere.
		legacyUniform(ud, rseed+lsGallagherStep*int64(j))
		pi := argsortFast(ud)
		inv := b.peakPerm[j*dim : (j+1)*dim]
		for i, m := range pi {
			inv[m] = int32(i)
		}
		sa := math.Sqrt(alpha)
		c := b.peakCond[j*dim : (j+1)*dim]
		for m := range c {
			c[m] = xmath.Pow(sa, 0.5*float64(m)/n1)
		}
		b.peakScale[j] = 1 / math.Sqrt(math.Sqrt(math.Sqrt(alpha)))
	}
	b.eval, b.workLen = b.fGallagher, 2*dim
}
