package objectives

import (
	"fmt"
	"math"
	"sync"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/rng"
)

// Function numbers of COCO's bbob-noisy suite.
const (
	// BBOBNoisyFirst is the first function of the noisy suite, f101.
	BBOBNoisyFirst = 101
	// BBOBNoisyLast is the last function of the noisy suite, f130.
	BBOBNoisyLast = 130
)

// Noisy is a problem whose values carry random noise: the functions of
// COCO's bbob-noisy suite (NewBBOBNoisy). It offers three evaluations of
// the same function:
//
//   - Eval draws the noise from COCO's own sequence, in the order of the
//     calls, as COCO does: a freshly built problem evaluated at a list of
//     points gives COCO's values for the same points in the same order.
//     The values therefore depend on how many evaluations came before and
//     in which order concurrent calls arrive. Eval is safe for concurrent
//     use (the sequence is advanced under a lock), but only sequential
//     calls give reproducible values.
//   - EvalKeyed draws the noise as a pure function of (problem, seed, key):
//     the same arguments give the same bits, in any order, on any number
//     of goroutines, after a save and a resume. This is the mode for
//     optimisation runs (hees run passes its seed and the evaluation's
//     number in the run).
//   - Noiseless is the value without noise, the one COCO's targets and
//     logs refer to.
//
// docs/BBOB.md (Section 12) describes the noise models and both streams.
type Noisy interface {
	Problem
	// EvalKeyed returns the noisy value at x with the noise drawn from the
	// Philox sub-stream addressed by seed and key (and the problem): a pure
	// function of its arguments, safe for concurrent use. The caller
	// chooses the keys: distinct keys give independent noise, the same key
	// the same value. It panics, as Eval does, if len(x) != Dim().
	EvalKeyed(x []float64, seed, key uint64) float64
	// Noiseless returns the value at x without noise (and without the
	// boundary term that the noisy values add outside [−5, 5]^D): COCO's
	// "noise-free" value, which its targets f* + Δf refer to. It panics,
	// as Eval does, if len(x) != Dim().
	Noiseless(x []float64) float64
}

// noiseModel is one of the three noise models of bbob-noisy.
type noiseModel uint8

const (
	gaussianNoise noiseModel = iota // Δ·exp(β·N)
	uniformNoise                    // Δ·U1^β·max(1, (1e9/Δ)^(α·U2))
	cauchyNoise                     // f + α·max(0, 1000 + [U < p]·N1/|N2|)
)

// noisyFunction is one function of the suite: its noiseless base (a bbob
// function, whose seed it uses) and its noise.
type noisyFunction struct {
	base   int        // 1, 8, 7, 10, 14, 17, 19 or 21
	model  noiseModel // Gaussian, uniform or Cauchy
	severe bool       // the severe noise (f107 on), else the moderate one
}

// noisyFunctions lists f101 … f130 in order. The bases are sphere (f1),
// Rosenbrock (f8), step ellipsoid (f7), rotated ellipsoid (f10),
// different powers (f14), Schaffers F7 (f17), Griewank–Rosenbrock (f19) and
// Gallagher's 101 peaks (f21), with the changes of NewBBOBNoisy.
var noisyFunctions = [BBOBNoisyLast - BBOBNoisyFirst + 1]noisyFunction{
	{1, gaussianNoise, false}, {1, uniformNoise, false}, {1, cauchyNoise, false}, // f101-f103
	{8, gaussianNoise, false}, {8, uniformNoise, false}, {8, cauchyNoise, false}, // f104-f106
	{1, gaussianNoise, true}, {1, uniformNoise, true}, {1, cauchyNoise, true}, // f107-f109
	{8, gaussianNoise, true}, {8, uniformNoise, true}, {8, cauchyNoise, true}, // f110-f112
	{7, gaussianNoise, true}, {7, uniformNoise, true}, {7, cauchyNoise, true}, // f113-f115
	{10, gaussianNoise, true}, {10, uniformNoise, true}, {10, cauchyNoise, true}, // f116-f118
	{14, gaussianNoise, true}, {14, uniformNoise, true}, {14, cauchyNoise, true}, // f119-f121
	{17, gaussianNoise, true}, {17, uniformNoise, true}, {17, cauchyNoise, true}, // f122-f124
	{19, gaussianNoise, true}, {19, uniformNoise, true}, {19, cauchyNoise, true}, // f125-f127
	{21, gaussianNoise, true}, {21, uniformNoise, true}, {21, cauchyNoise, true}, // f128-f130
}

// Noise parameters of docs/BBOB.md §12.
const (
	noiseBetaModerate    = 0.01 // β of the moderate Gaussian and uniform noise
	noiseBetaSevere      = 1    // β of the severe ones
	uniformAlphaBase     = 0.49 // α = c·(0.49 + 1/D) of the uniform noise …
	uniformAlphaModerate = 0.01 // … with c = 0.01 (moderate) or 1 (severe)
	uniformScaleNum      = 1e9  // the factor (1e9/(Δ + 1e-99))^(α·U2)
	noiseTiny            = 1e-99
	cauchyAlphaModerate  = 0.01 // α of the moderate Cauchy noise
	cauchyAlphaSevere    = 1    // α of the severe one
	cauchyPModerate      = 0.05 // probability of an outlier, moderate
	cauchyPSevere        = 0.2  // probability of an outlier, severe
	cauchyOffset         = 1e3  // the Cauchy noise adds α·1000 (and more)
	cauchyTiny           = 1e-199
	boundaryFactor       = 100 // COCO's 100·Σ (x_i − clamp(x_i))²
	cocoSeedStart        = 30  // COCO's noise seeds start at 30 …
	cocoSeedMax          = 1e9 // … and go back to 1 after 1e9
	ellipsoidCondNoisy   = 1e4 // f116-f118: the rotated ellipsoid with 1e4
	griewankFactorNoisy  = 1   // f125-f127: 1 + Σ(…)/(D−1)
)

// noiseShift is COCO's 1.01·tol with tol = 1e-8, computed as the product of
// the two doubles (COCO writes 1.01 * tol).
var noiseShift = func() float64 {
	tol := 1e-8
	return 1.01 * tol
}()

// purposeNoise addresses the keyed noise (rng sub-streams; "noise").
const purposeNoise rng.Purpose = 0x6e6f697365

// noisyProblem implements Noisy. The embedded problem holds the noiseless
// function (f) and everything Problem reports; only the COCO sequence
// (mu, gaussSeed, uniformSeed) changes after construction.
type noisyProblem struct {
	problem
	model noiseModel
	// alpha and beta of the uniform noise, beta of the Gaussian, alpha and
	// p of the Cauchy.
	alpha, beta, p float64
	stream         uint64 // the generation word of the keyed sub-streams

	mu          sync.Mutex
	gaussSeed   int64 // COCO's RANDNSEED: the seed of its last Gaussian
	uniformSeed int64 // COCO's RANDSEED: the seed of its last uniform
}

// NewBBOBNoisy returns function f101 … f130 of COCO's bbob-noisy suite,
// instance instance (1 … MaxBBOBInstance) in dimension dim (2 …
// MaxMatrixDim), exactly as COCO defines it (numbbo/coco-experiment
// v2.8.2; docs/BBOB.md §12):
//
//	f101-f103  sphere (f1)                 moderate Gaussian, uniform, Cauchy noise
//	f104-f106  Rosenbrock (f8)             moderate Gaussian, uniform, Cauchy noise
//	f107-f109  sphere                      severe Gaussian, uniform, Cauchy noise
//	f110-f112  Rosenbrock                  severe …
//	f113-f115  step ellipsoid (f7)         severe …, no penalty
//	f116-f118  rotated ellipsoid (f10)     severe …, condition 1e4
//	f119-f121  different powers (f14)      severe …
//	f122-f124  Schaffers F7 (f17)          severe …, no penalty
//	f125-f127  Griewank–Rosenbrock (f19)   severe …, 1 + Σ(…)/(D−1)
//	f128-f130  Gallagher 101 peaks (f21)   severe …, no penalty
//
// Each base function uses the xopt, rotations and fopt of its bbob
// counterpart in the same instance. The noisy value at x is, with
// f = Noiseless(x), fopt = f* and Δ = f − fopt,
//
//	Gaussian  (Δ·exp(β·N) + 1.01e-8) + fopt + b(x)                    β = 0.01 or 1
//	uniform   (Δ·U1^β·max(1, (1e9/(Δ + 1e-99))^(α·U2)) + 1.01e-8) + fopt + b(x)
//	                                                                 α = 0.01 or 1 times 0.49 + 1/D, β = 0.01 or 1
//	Cauchy    f + α·max(0, 1000 + [U < p]·N1/|N2 + 1e-199|) + 1.01e-8 + b(x)
//	                                                                 α = 0.01 or 1, p = 0.05 or 0.2
//
// with N, N1, N2 standard normal and U, U1, U2 uniform on (0, 1) draws,
// and b(x) = 100·Σ max(0, |x_i| − 5)². COCO adds the 1.01e-8 (and the
// Cauchy noise's α·1000) at every point, the optimum included: no noisy
// value reaches f* + 1e-8. A point with an infinite coordinate has the
// value |x_i| of the first one and a point with a NaN the value NaN, as
// COCO's evaluation gives, and neither draws noise.
//
// Optimum reports COCO's optimal point and f* = fopt, which Noiseless
// attains there. Hessian reports false.
func NewBBOBNoisy(function, instance, dim int) (Noisy, error) {
	if function < BBOBNoisyFirst || function > BBOBNoisyLast {
		return nil, fmt.Errorf("objectives: bbob-noisy function must be %d … %d, got %d", BBOBNoisyFirst, BBOBNoisyLast, function)
	}
	if instance < 1 || instance > MaxBBOBInstance {
		return nil, fmt.Errorf("objectives: bbob-noisy instance must be 1 … %d, got %d", MaxBBOBInstance, instance)
	}
	name := bbobNoisyName(function, instance)
	if err := checkDim(name, dim, 2, MaxMatrixDim); err != nil {
		return nil, err
	}
	nf := noisyFunctions[function-BBOBNoisyFirst]
	b := newBBOBData(nf.base, instance, dim)
	switch nf.base {
	case 7, 17, 21:
		b.penalty = 0
	case 10:
		b.coef = ellipsoidCoefficients(dim, ellipsoidCondNoisy)
	case 19:
		b.scalar = griewankFactorNoisy
	}
	p := &noisyProblem{
		problem: problem{
			name:   name,
			dim:    dim,
			bound:  bbobBound,
			xopt:   b.best,
			fopt:   b.fopt,
			f:      b.evaluator(),
			hasOpt: true,
		},
		model:       nf.model,
		stream:      uint64(function) | uint64(instance)<<8 | uint64(dim)<<32,
		gaussSeed:   cocoSeedStart,
		uniformSeed: cocoSeedStart,
	}
	switch nf.model {
	case gaussianNoise:
		p.beta = noiseBetaModerate
		if nf.severe {
			p.beta = noiseBetaSevere
		}
	case uniformNoise:
		// COCO: 0.01·(0.49 + 1/D) and β = 0.01, or 0.49 + 1.0/D and β = 1.
		p.alpha, p.beta = uniformAlphaBase+1/float64(dim), noiseBetaSevere
		if !nf.severe {
			p.alpha, p.beta = uniformAlphaModerate*p.alpha, noiseBetaModerate
		}
	case cauchyNoise:
		p.alpha, p.p = cauchyAlphaModerate, cauchyPModerate
		if nf.severe {
			p.alpha, p.p = cauchyAlphaSevere, cauchyPSevere
		}
	}
	return p, nil
}

// bbobNoisyName is the canonical spec of a bbob-noisy problem.
func bbobNoisyName(function, instance int) string {
	return fmt.Sprintf("bbob-noisy/f%d/i%d", function, instance)
}

// noiseDraws are the random numbers of one noisy evaluation: the Gaussian
// noise uses g1, the uniform u1 and u2, the Cauchy u1, g1 and g2.
type noiseDraws struct {
	u1, u2, g1, g2 float64
}

// Eval returns the noisy value at x with the noise of COCO's sequence.
func (p *noisyProblem) Eval(x []float64) float64 {
	if len(x) != p.dim {
		panicDim(p.name, len(x), p.dim)
	}
	if v, ok := cocoSpecialValue(x); ok {
		return v
	}
	return p.noisyValue(x, p.cocoDraws())
}

// EvalKeyed returns the noisy value at x with the noise of the sub-stream
// (seed, key).
func (p *noisyProblem) EvalKeyed(x []float64, seed, key uint64) float64 {
	if len(x) != p.dim {
		panicDim(p.name, len(x), p.dim)
	}
	if v, ok := cocoSpecialValue(x); ok {
		return v
	}
	return p.noisyValue(x, p.keyedDraws(seed, key))
}

// Noiseless returns the value at x without noise.
func (p *noisyProblem) Noiseless(x []float64) float64 {
	if len(x) != p.dim {
		panicDim(p.name, len(x), p.dim)
	}
	if v, ok := cocoSpecialValue(x); ok {
		return v
	}
	return p.f(x)
}

// cocoSpecialValue is COCO's rule for points that are not finite
// (coco_evaluate_function): |x_i| for the first infinite x_i, else NaN if
// some x_i is NaN; ok is false for a finite point.
func cocoSpecialValue(x []float64) (v float64, ok bool) {
	for _, xi := range x {
		if math.IsInf(xi, 0) {
			return math.Inf(1), true
		}
	}
	for _, xi := range x {
		if xi != xi {
			return math.NaN(), true
		}
	}
	return 0, false
}

// nextCOCOSeed advances one of COCO's two noise seeds and returns it
// (increase_random_seed: + 1, back to 1 after 1e9).
func nextCOCOSeed(s *int64) int64 {
	*s++
	if *s > cocoSeedMax {
		*s = 1
	}
	return *s
}

// cocoDraws takes the next seeds of COCO's sequence, in COCO's order, and
// returns the draws they give. Each uniform is the first output of the
// legacy generator for its seed, each Gaussian the first Box–Muller number
// of gauss(1, seed) (docs/BBOB.md §2-3).
func (p *noisyProblem) cocoDraws() noiseDraws {
	var us1, us2, gs1, gs2 int64
	p.mu.Lock()
	switch p.model {
	case gaussianNoise:
		gs1 = nextCOCOSeed(&p.gaussSeed)
	case uniformNoise:
		us1 = nextCOCOSeed(&p.uniformSeed)
		us2 = nextCOCOSeed(&p.uniformSeed)
	case cauchyNoise:
		us1 = nextCOCOSeed(&p.uniformSeed)
		gs1 = nextCOCOSeed(&p.gaussSeed)
		gs2 = nextCOCOSeed(&p.gaussSeed)
	}
	p.mu.Unlock()
	var d noiseDraws
	switch p.model {
	case gaussianNoise:
		d.g1 = legacyGaussOne(gs1)
	case uniformNoise:
		d.u1, d.u2 = legacyUniformOne(us1), legacyUniformOne(us2)
	case cauchyNoise:
		d.u1, d.g1, d.g2 = legacyUniformOne(us1), legacyGaussOne(gs1), legacyGaussOne(gs2)
	}
	return d
}

// keyedDraws returns the draws of the sub-stream (seed, key): uniforms on
// (0, 1) from 53-bit words, normals from rng's ziggurat, in the order
// cocoDraws takes them.
func (p *noisyProblem) keyedDraws(seed, key uint64) noiseDraws {
	s := rng.NewStream(rng.KeyFromSeed(seed), purposeNoise, p.stream, key)
	var d noiseDraws
	switch p.model {
	case gaussianNoise:
		d.g1 = s.Normal()
	case uniformNoise:
		d.u1 = openUniform(s.Uint64())
		d.u2 = openUniform(s.Uint64())
	case cauchyNoise:
		d.u1 = openUniform(s.Uint64())
		d.g1 = s.Normal()
		d.g2 = s.Normal()
	}
	return d
}

// openUniform maps a 64-bit word to (k + 1/2)·2^-53 for its top 53 bits k:
// uniform on (0, 1), never 0, like COCO's legacy uniforms.
func openUniform(w uint64) float64 {
	return (float64(w>>11) + 0.5) * 0x1p-53
}

// legacyUniformOne is the first output of the legacy uniform generator for
// seed, unif(1, seed)[0].
func legacyUniformOne(seed int64) float64 {
	var u [1]float64
	legacyUniform(u[:], seed)
	return u[0]
}

// legacyGaussOne is gauss(1, seed)[0], computed as legacyGauss does.
func legacyGaussOne(seed int64) float64 {
	var u [2]float64
	legacyUniform(u[:], seed)
	g := math.Sqrt(-2*xmath.Log(u[0])) * xmath.Cos(2*math.Pi*u[1])
	if g == 0 {
		g = 1e-99
	}
	return g
}

// noisyValue applies p's noise with the draws d to the noiseless value at
// x, in COCO's order of operations.
func (p *noisyProblem) noisyValue(x []float64, d noiseDraws) float64 {
	f := p.f(x)
	switch p.model {
	case gaussianNoise:
		factor := xmath.Exp(p.beta * d.g1)
		y := f - p.fopt
		y = float64(y*factor) + noiseShift
		return y + p.fopt + boundaryPenalty(x)
	case uniformNoise:
		factor := xmath.Pow(d.u1, p.beta)
		y := f - p.fopt
		scaling := xmath.Pow(uniformScaleNum/(y+noiseTiny), p.alpha*d.u2)
		if !(scaling > 1) {
			scaling = 1 // COCO: scaling > 1 ? scaling : 1, so NaN gives 1
		}
		y = float64(y*float64(factor*scaling)) + noiseShift
		return y + p.fopt + boundaryPenalty(x)
	default: // cauchyNoise
		c := d.g1 / math.Abs(d.g2+cauchyTiny)
		if d.u1 < p.p {
			c = cauchyOffset + c
		} else {
			c = cauchyOffset
		}
		c *= p.alpha
		if !(c > 0) {
			c = 0
		}
		return f + c + noiseShift + boundaryPenalty(x)
	}
}

// boundaryPenalty is COCO's boundary handling of the noisy suite,
// 100·Σ max(0, |x_i| − 5)².
func boundaryPenalty(x []float64) float64 {
	return float64(boundaryFactor * bbobPenalty(x))
}
