package objectives

import (
	"fmt"
	"math"
	"sync"

	"github.com/hees-dev/hees/internal/xmath"
)

// BBOB limits.
const (
	// BBOBFunctions is the number of functions of the noiseless suite,
	// f1 … f24.
	BBOBFunctions = 24
	// MaxBBOBInstance is the largest instance NewBBOB accepts: every seed
	// the suite derives from rseed = F + 10000·I (up to rseed + 1000000)
	// then stays a valid state of the Park–Miller generator, 1 … 2^31−2
	// (docs/BBOB.md §1-2). Published BBOB data use instances up to 110.
	MaxBBOBInstance = 214648
)

// Seed offsets of docs/BBOB.md §1 and §6.
const (
	seedInstanceStep  = 10000   // rseed = F + 10000·I
	seedSecondRot     = 1000000 // R = rotation(rseed + 1000000)
	seedGallagherPeak = 1000    // peak i scales use rseed + 1000·i
)

// NewBBOB returns function f1 … f24 of COCO's noiseless bbob suite, instance
// instance (1 … MaxBBOBInstance) in dimension dim (2 … MaxMatrixDim), exactly as
// COCO defines it (docs/BBOB.md, numbbo/coco-experiment v2.8.2): the values
// include fopt, Optimum reports COCO's optimal point and the 2-decimal fopt,
// and Bounds is the region of interest [−5, 5]. Every per-instance quantity
// (xopt, fopt, rotations, scalings, Gallagher peaks) is computed here, once.
//
// Two COCO quirks show in Optimum. For f20 the point is COCO's
// sign·((420.96874633/100 − 4.2096874637) + 4.2096874637)/2, where f is
// within a few ulp of fopt, not exactly fopt. For f19 (and f9, which agrees
// with COCO in every dimension) the point is Qᵀ·1/(2c) with
// c = max(1, sqrt(dim)/8): the true optimum, which is COCO's value for
// dim <= 64; COCO reports Qᵀ·1/2 also above.
//
// The values match COCO's reference values to within 1e-9·max(1, |f − fopt|)
// (checked on every row of testdata/bbob). The largest differences seen there
// are below 1e-13 of that scale for 20 of the 24 functions, and 2.7e-13
// (f24), 5e-13 (f16), 1.4e-12 (f19) and 9e-12 (f23) for the others.
// The rotations and transforms go through logarithms, powers and cosines
// whose last bits differ from glibc's, and f16, f19 and f23 amplify that.
func NewBBOB(function, instance, dim int) (Problem, error) {
	if function < 1 || function > BBOBFunctions {
		return nil, fmt.Errorf("objectives: BBOB function must be 1 … %d, got %d", BBOBFunctions, function)
	}
	if instance < 1 || instance > MaxBBOBInstance {
		return nil, fmt.Errorf("objectives: BBOB instance must be 1 … %d, got %d", MaxBBOBInstance, instance)
	}
	name := bbobName(function, instance)
	if err := checkDim(name, dim, 2, MaxMatrixDim); err != nil {
		return nil, err
	}
	b := newBBOBData(function, instance, dim)
	p := &problem{
		name:   name,
		dim:    dim,
		bound:  bbobBound,
		xopt:   b.best,
		fopt:   b.fopt,
		hasOpt: true,
	}
	if function == 1 {
		// f1 is the sphere |x − xopt|² + fopt: H = 2I.
		two := make([]float64, dim)
		for i := range two {
			two[i] = 2
		}
		p.hessDiag = two
	}
	p.f = b.evaluator()
	return p, nil
}

// evaluator returns the function x ↦ f(x) of b, which takes its work vector
// (if it needs one) from b's pool.
func (b *bbobData) evaluator() func(x []float64) float64 {
	if b.workLen == 0 {
		return func(x []float64) float64 { return b.eval(x, nil) }
	}
	b.pool.New = func() any {
		w := make([]float64, b.workLen)
		return &w
	}
	return func(x []float64) float64 {
		wp := b.pool.Get().(*[]float64)
		v := b.eval(x, *wp)
		b.pool.Put(wp)
		return v
	}
}

// bbobName is the canonical spec of a BBOB problem.
func bbobName(function, instance int) string {
	return fmt.Sprintf("bbob/f%d/i%d", function, instance)
}

// bbobData is the per-instance data of one BBOB problem. Which fields are
// set, and what coef and coef2 hold, depends on the function (see the
// constructor of each).
type bbobData struct {
	dim  int
	fopt float64
	// xopt is the shift of the transforms (x − xopt); best is COCO's optimal
	// point, reported by Optimum. They differ for f5 and f20; f9, f19, f21
	// and f22 have no shift (xopt is nil). f24 uses xopt for its signs.
	xopt, best []float64
	// rot is R = rotation(rseed + 1000000) and rotQ is Q = rotation(rseed),
	// row-major dim×dim; mat is the combined matrix of the function.
	rot, rotQ, mat []float64
	// coef, coef2 are per-coordinate constants of the function.
	coef, coef2 []float64
	// Scalars of the function (Weierstrass f0, Lunacek s and μ1, the
	// Griewank–Rosenbrock factor, …).
	scalar, scalar2 float64
	// penalty is the factor of fpen(x) in f7, f17/f18 and f21/f22 (1, 10,
	// 1); their bbob-noisy variants set it to 0.
	penalty float64
	// Gallagher peaks (f21, f22): heights w_i, scales c_ij and rotated
	// locations ỹ_ij, peak-major.
	peakHeight, peakScale, peakLoc []float64

	eval    func(x, work []float64) float64
	workLen int       // length of the work vector eval needs; 0 for none
	pool    sync.Pool // of *[]float64 of length workLen

	// checks makes the evaluators check each intermediate vector as COCO's
	// coco_evaluate_function does between two transformations: one that
	// holds an infinity gives +Inf, else one that holds a NaN gives NaN
	// (docs/BBOB.md §10). Only bbob-mixint sets it: NewBBOB's problems keep
	// their values, which differ from COCO's only where an intermediate
	// vector overflows.
	checks bool
}

// Transform parameters of docs/BBOB.md §6.
const (
	condEllipsoid   = 1e6  // f2, f10 coefficients pow(1e6, t)
	condDiscus      = 1e6  // f11
	condBentCigar   = 1e6  // f12
	condRastrigin   = 10   // Λ^10 of f3, f15, f20
	condStep        = 100  // f7 coefficients pow(100, t)
	sectorFactor    = 100  // f6 s_i
	ridgeFactor     = 100  // f13
	betaRastrigin   = 0.2  // Tasy^0.2 of f3, f15
	betaSchaffers   = 0.5  // Tasy^0.5 of f12, f17, f18
	condSchaffers17 = 10   // Λ^10 of f17
	condSchaffers18 = 1000 // Λ^1000 of f18
	weierstrassK    = 12   // summands k = 0 … 11
	katsuuraTerms   = 32   // j = 1 … 32
	schwefelConst   = 4.2096874637
	schwefelCOCOopt = 420.96874633 // COCO's best point of f20, ×100
	schwefelOffset  = 418.9828872724339
	lunacekMu0      = 2.5
	lunacekD        = 1
	griewankFactor  = 10 // f19's 10 + 10·Σ(…)/(D−1)
)

// newBBOBData computes the per-instance data of function f, instance inst,
// dimension dim and chooses its evaluator.
func newBBOBData(f, inst, dim int) *bbobData {
	base := int64(f)
	switch f {
	case 4:
		base = 3 // f4 shares xopt and fopt with f3 (docs/BBOB.md §1)
	case 18:
		base = 17 // f18 shares xopt, rotations and fopt with f17
	}
	rseed := base + seedInstanceStep*int64(inst)
	b := &bbobData{dim: dim, fopt: bbobFopt(rseed)}
	// t[i] = i/(D−1), the position of coordinate i (docs/BBOB.md notation).
	t := make([]float64, dim)
	for i := range t {
		t[i] = float64(i) / float64(dim-1)
	}
	rotR := func() []float64 { return bbobRotation(rseed+seedSecondRot, dim) }
	rotQ := func() []float64 { return bbobRotation(rseed, dim) }
	// sqrtPowers returns λ_i = pow(sqrt(alpha), t_i), the Λ^alpha of a
	// combined matrix.
	sqrtPowers := func(alpha float64) []float64 {
		l := make([]float64, dim)
		for i := range l {
			l[i] = xmath.Pow(math.Sqrt(alpha), t[i])
		}
		return l
	}
	// conditioning returns pow(alpha, 0.5·i/(D−1)), COCO's conditioning
	// transform Λ^alpha.
	conditioning := func(alpha float64) []float64 {
		l := make([]float64, dim)
		for i := range l {
			l[i] = xmath.Pow(alpha, 0.5*float64(i)/float64(dim-1))
		}
		return l
	}
	// asymmetry returns β·i/(D−1), the Tasy^β coefficient of sqrt(x_i).
	asymmetry := func(beta float64) []float64 {
		c := make([]float64, dim)
		for i := range c {
			c[i] = beta * float64(i) / float64(dim-1)
		}
		return c
	}
	// rowScaled returns diag(λ)·m.
	rowScaled := func(lambda, m []float64) []float64 {
		out := make([]float64, dim*dim)
		for i, l := range lambda {
			for j := range dim {
				out[i*dim+j] = l * m[i*dim+j]
			}
		}
		return out
	}
	// rosenbrockFactor is c = max(1, sqrt(D)/8) of f8, f9, f19.
	rosenbrockFactor := max(1, math.Sqrt(float64(dim))/8)

	b.xopt = bbobXopt(rseed, dim)
	b.best = b.xopt
	switch f {
	case 1:
		b.eval = b.f1
	case 2:
		b.coef = ellipsoidCoefficients(dim, condEllipsoid)
		b.eval = b.f2
	case 3:
		b.coef = conditioning(condRastrigin)
		b.coef2 = asymmetry(betaRastrigin)
		b.eval = b.f3
	case 4:
		for i := 0; i < dim; i += 2 {
			b.xopt[i] = math.Abs(b.xopt[i])
		}
		b.coef = make([]float64, dim)
		for i := range b.coef {
			b.coef[i] = xmath.Pow(math.Sqrt(10), t[i])
		}
		b.eval = b.f4
	case 5:
		// The optimum is the corner on the side of xopt_std; s_i =
		// sign(xopt_i)·pow(sqrt(100), t_i).
		b.best = make([]float64, dim)
		b.coef = make([]float64, dim)
		for i, v := range b.xopt {
			s := xmath.Pow(math.Sqrt(100), t[i])
			b.best[i] = 5
			if v < 0 {
				b.best[i], s = -5, -s
			}
			b.coef[i] = s
		}
		b.eval = b.f5
	case 6:
		b.mat = mulDiagonalRotations(rotR(), sqrtPowers(10), rotQ())
		b.eval, b.workLen = b.f6, dim
	case 7:
		// ẑ = diag(sqrt(pow(10, t)))·Q·(x − xopt), then z = R·z̃.
		lambda := make([]float64, dim)
		b.coef = make([]float64, dim)
		for i := range lambda {
			lambda[i] = math.Sqrt(xmath.Pow(condStep/10, t[i]))
			b.coef[i] = xmath.Pow(condStep, t[i])
		}
		b.rotQ = rowScaled(lambda, rotQ())
		b.rot = rotR()
		b.penalty = 1
		b.eval, b.workLen = b.f7, dim
	case 8:
		for i := range b.xopt {
			b.xopt[i] *= 0.75
		}
		b.scalar = rosenbrockFactor
		b.eval = b.f8
	case 9, 19:
		q := rotQ()
		b.mat = make([]float64, dim*dim)
		for i, v := range q {
			b.mat[i] = rosenbrockFactor * v
		}
		b.xopt = nil
		b.best = make([]float64, dim)
		for j := range dim {
			s := 0.0
			for r := range dim {
				s += q[r*dim+j]
			}
			b.best[j] = s / (2 * rosenbrockFactor)
		}
		b.workLen = dim
		b.scalar = griewankFactor
		if f == 9 {
			b.eval = b.f9
		} else {
			b.eval = b.f19
		}
	case 10:
		b.rot = rotR()
		b.coef = ellipsoidCoefficients(dim, condEllipsoid)
		b.eval, b.workLen = b.f10, dim
	case 11:
		b.rot = rotR()
		b.eval, b.workLen = b.f11, dim
	case 12:
		b.xopt = bbobXopt(rseed+seedSecondRot, dim)
		b.best = b.xopt
		b.rot = rotR()
		b.coef2 = asymmetry(betaSchaffers)
		b.eval, b.workLen = b.f12, 2*dim
	case 13:
		b.mat = mulDiagonalRotations(rotR(), sqrtPowers(10), rotQ())
		b.eval, b.workLen = b.f13, dim
	case 14:
		b.rot = rotR()
		b.coef = make([]float64, dim)
		for i := range b.coef {
			b.coef[i] = 2 + 4*float64(i)/float64(dim-1)
		}
		b.eval, b.workLen = b.f14, dim
	case 15:
		b.rot = rotR()
		b.mat = mulDiagonalRotations(b.rot, sqrtPowers(10), rotQ())
		b.coef2 = asymmetry(betaRastrigin)
		b.eval, b.workLen = b.f15, 2*dim
	case 16:
		b.rot = rotR()
		b.mat = mulDiagonalRotations(b.rot, sqrtPowers(1.0/100), rotQ())
		// a_k = 0.5^k, b_k = 3^k (exact), f0 = Σ_k a_k cos(2π b_k·0.5).
		b.coef, b.coef2 = make([]float64, weierstrassK), make([]float64, weierstrassK)
		a, bk := 1.0, 1.0
		for k := range weierstrassK {
			b.coef[k], b.coef2[k] = a, bk
			b.scalar += float64(a * xmath.Cos(2*math.Pi*bk*0.5))
			a, bk = a*0.5, bk*3
		}
		b.eval, b.workLen = b.f16, 2*dim
	case 17, 18:
		cond := float64(condSchaffers17)
		if f == 18 {
			cond = condSchaffers18
		}
		b.rot = rotR()
		b.mat = rowScaled(sqrtPowers(cond), rotQ())
		b.coef2 = asymmetry(betaSchaffers)
		b.penalty = 10
		b.eval, b.workLen = b.f17, 2*dim
	case 20:
		b.initSchwefel(rseed, conditioning(condRastrigin))
	case 21, 22:
		b.initGallagher(f, rseed)
	case 23:
		b.mat = mulDiagonalRotations(rotR(), sqrtPowers(100), rotQ())
		b.scalar = 10 / xmath.Pow(float64(dim), 1.2)
		b.eval, b.workLen = b.f23, dim
	case 24:
		b.initLunacek(rseed, rotR(), rowScaled(sqrtPowers(100), rotQ()))
	}
	return b
}

// initSchwefel sets up f20 (docs/BBOB.md §6): signs from unif(D, rseed),
// xopt_i = sign_i·4.2096874637/2; lambda is Λ^10 of COCO's conditioning
// transform.
func (b *bbobData) initSchwefel(rseed int64, lambda []float64) {
	dim := b.dim
	u := make([]float64, dim)
	legacyUniform(u, rseed)
	b.xopt = make([]float64, dim)
	b.best = make([]float64, dim)
	cocoOpt := ((schwefelCOCOopt/100 - schwefelConst) + schwefelConst) / 2
	for i, v := range u {
		sign := 1.0
		if v < 0.5 {
			sign = -1
		}
		b.xopt[i] = sign * (schwefelConst / 2)
		b.best[i] = sign * cocoOpt
	}
	b.coef = lambda
	b.eval = b.f20
}

// initGallagher sets up f21 (101 peaks) and f22 (21 peaks), docs/BBOB.md §6.
func (b *bbobData) initGallagher(f int, rseed int64) {
	dim := b.dim
	peaks, maxCond0, span, offset := 101, math.Sqrt(1000), 10.0, 5.0
	if f == 22 {
		peaks, maxCond0, span, offset = 21, 1000, 9.8, 4.9
	}
	q := bbobRotation(rseed, dim)
	b.rotQ = q
	// Condition numbers: cond_0 fixed, cond_i = 1000^(π[i−1]/(npk−2)).
	u := make([]float64, peaks-1)
	legacyUniform(u, rseed)
	perm := argsortUniform(u)
	cond := make([]float64, peaks)
	cond[0] = maxCond0
	b.peakHeight = make([]float64, peaks)
	b.peakHeight[0] = 10
	for i := 1; i < peaks; i++ {
		cond[i] = xmath.Pow(1000, float64(perm[i-1])/float64(peaks-2))
		b.peakHeight[i] = float64(float64(i-1)/float64(peaks-2)*8) + 1.1
	}
	// Axis scales c_ij = cond_i^(π_i[j]/(D−1) − 0.5), π_i from
	// unif(D, rseed + 1000·i).
	b.peakScale = make([]float64, peaks*dim)
	ud := make([]float64, dim)
	for i := range peaks {
		legacyUniform(ud, rseed+seedGallagherPeak*int64(i))
		pi := argsortUniform(ud)
		for j := range dim {
			b.peakScale[i*dim+j] = xmath.Pow(cond[i], float64(pi[j])/float64(dim-1)-0.5)
		}
	}
	// Locations y_j = span·u − offset from unif(D·npk, rseed); COCO stores
	// ỹ_j = Q·y_j, scaled by 0.8 after rotating for j = 0, and
	// xopt = 0.8·y_0.
	ul := make([]float64, dim*peaks)
	legacyUniform(ul, rseed)
	y := make([]float64, dim)
	b.peakLoc = make([]float64, peaks*dim)
	for j := range peaks {
		for k := range dim {
			y[k] = float64(span*ul[j*dim+k]) - offset
		}
		for i := range dim {
			s := 0.0
			for k := range dim {
				s += float64(q[i*dim+k] * y[k])
			}
			if j == 0 {
				s *= 0.8
			}
			b.peakLoc[j*dim+i] = s
		}
	}
	b.xopt = nil
	b.best = make([]float64, dim)
	for i := range dim {
		b.best[i] = 0.8 * (float64(span*ul[i]) - offset)
	}
	b.penalty = 1
	b.eval, b.workLen = b.fGallagher, dim
}

// initLunacek sets up f24 (docs/BBOB.md §6): xopt_i = ±μ0/2 by the sign of
// gauss(D, rseed)_i, z = R·Λ^100·Q·(x̂ − μ0); qScaled is Λ^100·Q.
func (b *bbobData) initLunacek(rseed int64, r, qScaled []float64) {
	dim := b.dim
	g := make([]float64, dim)
	legacyGauss(g, rseed)
	b.xopt = make([]float64, dim)
	for i, v := range g {
		b.xopt[i] = 0.5 * lunacekMu0
		if v < 0 {
			b.xopt[i] = -b.xopt[i]
		}
	}
	b.best = b.xopt
	b.rot, b.mat = r, qScaled
	s := 1 - 0.5/(math.Sqrt(float64(dim)+20)-4.1)
	b.scalar = s
	b.scalar2 = -math.Sqrt((lunacekMu0*lunacekMu0 - lunacekD) / s) // μ1
	b.eval, b.workLen = b.f24, 2*dim
}
