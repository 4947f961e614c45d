package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// LMMAES is the name of the limited-memory matrix adaptation ES.
const LMMAES = "lmmaes"

// lmmaesRow is LM-MA-ES's row of the table of strategies: its population
// is Lambda (at least 2, the CMA-ES's default), no tuning fields (the
// authors' constants), O(lambda d + m d) memory.
var lmmaesRow = strategyRow{
	Info: Info{
		Name:       LMMAES,
		Summary:    "limited-memory matrix adaptation ES (Loshchilov, Glasmachers & Beyer 2019), O(d log d) per evaluation",
		Population: PopulationLambda,
		MinDim:     1,
	},
	population: defaultLambda,
	tolFun:     1e-11, // pycma's tolfun, docs/ALGORITHMS.md Sec. 8
	defaults:   func(cfg *Config) error { return checkLambda(LMMAES, cfg) },
	memory: func(cfg Config) float64 {
		// z and d (lambda×d each), the m paths, and about twenty vectors
		// of d numbers (the mean, p_sigma, the search map, the best point,
		// the ranking penalty's scratch).
		return 8 * float64(cfg.Dim) * (2*float64(cfg.Lambda) + float64(lmmaesVectors(cfg.Dim)) + 20)
	},
	zero: func() strategy { return new(lmmaes) },
}

// lmmaesVectors is m = 4 + floor(3 ln n), the number of evolution paths
// that define LM-MA-ES's transformation (the paper's m, the reference
// code's nvectors).
func lmmaesVectors(d int) int { return defaultLambda(d) }

// lmmaes is the limited-memory matrix adaptation evolution strategy,
// Algorithm 1 of Loshchilov, Glasmachers & Beyer, "Large Scale Black-box
// Optimization by Limited-Memory Matrix Adaptation", IEEE TEVC 23(2),
// 2019, with the defaults of the authors' reference implementation in C
// (the paper's supplementary material; docs/ALGORITHMS.md Section 21.3):
//
//	z_k ~ N(0, I), z_{k+1} = -z_k (mirrored pairs)        (lines 5-6)
//	d_k = M z_k, M = prod_{j<min(t,m)} ((1 - c_d,j) I + c_d,j p_j p_j^T)  (lines 7-8)
//	x_k = m + sigma d_k                                     (line 9)
//	m   <- m + sigma sum_{i<=mu} w_i d_i:lambda             (line 10)
//	p_s <- (1 - c_s) p_s + sqrt(mu_w c_s (2 - c_s)) sum w_i z_i:lambda    (line 11)
//	p_j <- (1 - c_c,j) p_j + sqrt(mu_w c_c,j (2 - c_c,j)) sum w_i z_i:lambda  (lines 12-13)
//	sigma <- sigma exp(c_s (|p_s|^2/n - 1))                (line 14)
//
// with lambda = 4 + floor(3 ln n), mu = floor(lambda/2), w_i ∝ ln(mu +
// 1/2) - ln i, m = 4 + floor(3 ln n) paths, c_s = 2 lambda/n, c_d,j =
// 1/(1.5^j n) and c_c,j = lambda/(4^j n) for j = 0..m-1; the reference
// code samples mirrored pairs and uses the damping 1 in line 14. Where
// the paper's rates exceed 1 (n < 2 lambda, below the paper's n >= 128),
// c_s is the MA-ES's of the same reference code and c_c,j is limited to 1
// (docs/ALGORITHMS.md Section 21.3). A candidate costs O(m d): the
// transformation is applied as m rank-one updates of z.
type lmmaes struct {
	core

	lambda, mu int
	weights    []float64 // w_1..w_mu
	muW        float64   // mu_w = 1/sum w_i^2
	cs         float64   // c_sigma
	cd, cc     []float64 // c_d,j and c_c,j
	m          int       // the number of paths

	ps    []float64    // p_sigma
	paths linalg.Dense // m×d, row j is p_j

	z, dk     linalg.Dense // lambda×d: z_k and d_k = M z_k
	order     []int
	selection []int
	zw, dw    []float64 // sum w_i z_i:lambda, sum w_i d_i:lambda

	funHist history // best value of each generation (tolfun)

	// The scratch of stds: M = alpha I + P^T C P (P the k×d matrix of the
	// paths in use), C k×k, and the k×k Gram matrix G = P P^T.
	gram, coef, tmp linalg.Dense
	proj            []float64
}

// setup initialises LM-MA-ES from a resolved configuration: m = X0,
// sigma = Sigma0, p_sigma and the paths 0.
func (l *lmmaes) setup(cfg Config) {
	d, lambda := cfg.Dim, cfg.Lambda
	n := float64(d)
	l.setupCore(LMMAES, cfg, 0)
	l.lambda = lambda
	l.mu = lambda / 2
	l.weights = make([]float64, lambda)
	l.muW = logWeights(l.weights, l.mu, xmath.Log(float64(l.mu)+0.5))
	l.weights = l.weights[:l.mu]
	// c_s = 2 lambda/n, the paper's and the reference code's, is a
	// valid rate for n >= 2 lambda (n >= 28). Below, where it would exceed
	// 1, c_s is the one of the MA-ES in the same reference code, (mu_w +
	// 2)/(n + mu_w + 5) (docs/ALGORITHMS.md Section 21.3).
	l.cs = float64(2*lambda) / n
	if l.cs > 1 {
		l.cs = (l.muW + 2) / (n + l.muW + 5)
	}
	l.m = lmmaesVectors(d)
	l.cd = make([]float64, l.m)
	l.cc = make([]float64, l.m)
	for j := range l.m {
		l.cd[j] = 1 / float64(n*xmath.Pow(1.5, float64(j)))
		l.cc[j] = min(1, (float64(lambda)/n)/xmath.Pow(4, float64(j)))
	}
	l.ps = make([]float64, d)
	l.paths.ReuseAs(l.m, d)
	l.z.ReuseAs(lambda, d)
	l.dk.ReuseAs(lambda, d)
	l.order = make([]int, lambda)
	l.selection = make([]int, lambda)
	l.zw = make([]float64, d)
	l.dw = make([]float64, d)
	l.funHist = history{buf: make([]float64, tolFunGens(d, lambda))}
}

// PopulationSize is lambda.
func (l *lmmaes) PopulationSize() int { return l.lambda }

// used is min(t, m), the number of paths in the transformation of the
// current generation t.
func (l *lmmaes) used() int { return min(l.gen, l.m) }

// Ask writes the lambda candidates of the current generation into pop.
func (l *lmmaes) Ask(pop *linalg.Dense) error {
	return l.askLambda(pop, l.lambda, l.draw, l.candidate)
}

// draw samples the current generation (lines 4-8): for even k, z_k ~
// N(0, I) from the sub-stream (purposeSample, generation, k) and d_k =
// M z_k; z_{k+1} = -z_k and d_{k+1} = -d_k (the reference code's
// sample_symmetry). An odd lambda's last candidate has no mirror.
func (l *lmmaes) draw() {
	k := l.used()
	for i := 0; i < l.lambda; i += 2 {
		z, dk := l.z.RawRow(i), l.dk.RawRow(i)
		st := rng.NewStream(l.key, purposeSample, uint64(l.gen), uint64(i))
		st.FillNormal(z)
		copy(dk, z)
		for j := range k {
			p, c := l.paths.RawRow(j), l.cd[j]
			t := float64(c * linalg.Dot(p, dk))
			for q, v := range p {
				dk[q] = float64((1-c)*dk[q]) + float64(v*t)
			}
		}
		if i+1 < l.lambda {
			z1, d1 := l.z.RawRow(i+1), l.dk.RawRow(i+1)
			for q := range z {
				z1[q], d1[q] = -z[q], -dk[q]
			}
		}
	}
}

// candidate writes x_k = m + sigma d_k (line 9) into dst.
func (l *lmmaes) candidate(dst []float64, k int) {
	dk := l.dk.RawRow(k)
	for i, mi := range l.mean {
		dst[i] = mi + float64(l.sigma*dk[i])
	}
}

// Tell takes the values of the rows of the last Ask and performs lines
// 10-14.
func (l *lmmaes) Tell(f []float64) error {
	if err := l.checkTell(f, l.lambda); err != nil {
		return err
	}
	l.evals += len(f)
	selection, _, accepted := l.rankGeneration(f, l.order, l.selection, l.candidate, l.stds)
	if accepted {
		l.update(selection)
		l.funHist.push(f[l.order[0]])
	} else {
		// docs/ALGORITHMS.md Section 13 item 8: m and the paths stay.
		l.sigma *= 0.5
		l.nonFinite++
	}
	l.gen++
	l.pending = false
	l.stop = l.checkStop(f)
	return nil
}

// update performs lines 10-14 with the candidates ranked in order.
func (l *lmmaes) update(order []int) {
	clear(l.zw)
	clear(l.dw)
	for i, w := range l.weights {
		k := order[i]
		for q, v := range l.z.RawRow(k) {
			l.zw[q] += float64(w * v)
		}
		for q, v := range l.dk.RawRow(k) {
			l.dw[q] += float64(w * v)
		}
	}
	for q, v := range l.dw { // line 10
		l.mean[q] += float64(l.sigma * v)
	}
	cs := l.cs
	coef := math.Sqrt(float64(l.muW*cs) * (2 - cs))
	var norm2 float64
	for q, v := range l.zw { // line 11
		p := float64((1-cs)*l.ps[q]) + float64(coef*v)
		l.ps[q] = p
		norm2 += float64(p * p)
	}
	for j := range l.m { // lines 12-13
		c := l.cc[j]
		a, b := 1-c, math.Sqrt(float64(l.muW*c)*(2-c))
		p := l.paths.RawRow(j)
		for q, v := range l.zw {
			p[q] = float64(a*p[q]) + float64(b*v)
		}
	}
	// Line 14, with the reference code's damping 1.
	l.sigma *= xmath.Exp(float64(cs * (norm2/float64(l.cfg.Dim) - 1)))
}

// checkStop returns the first criterion that fires after a generation
// with the values f: a value -Inf, too many generations without a finite
// value, the limits on sigma, and pycma's tolfun on the generation's
// values and the best values of the last 10 + ceil(30 n/lambda)
// generations (once that many have passed). The paper and the reference
// code stop at a target, a budget or sigma < 1e-20 only.
func (l *lmmaes) checkStop(f []float64) Reason {
	switch {
	case math.IsInf(f[l.order[0]], -1):
		return ReasonMinusInf
	case l.nonFinite >= nonFiniteMax:
		return ReasonNotFinite
	}
	if r := l.checkSigma(); r != "" {
		return r
	}
	if l.cfg.TolFun > 0 && l.funHist.size() == len(l.funHist.buf) &&
		f[l.order[l.lambda-1]]-f[l.order[0]] < l.cfg.TolFun && l.funHist.spread() < l.cfg.TolFun {
		return ReasonTolFun
	}
	return ""
}

// stds writes sigma sqrt((M M^T)_ii), the standard deviation of each
// coordinate, into dst (for the ranking penalty of a bounded run), in
// O(k^3 + k^2 d) for the k paths in use: the product of the rank-one
// updates is M = alpha I + P^T C P, where P holds the paths in its rows
// and C is k×k; then (M M^T)_ii = alpha^2 + 2 alpha p_i^T C p_i +
// p_i^T C G C^T p_i with p_i the i-th column of P and G = P P^T.
func (l *lmmaes) stds(dst []float64) {
	k, d := l.used(), l.cfg.Dim
	if k == 0 {
		for i := range dst {
			dst[i] = l.sigma
		}
		return
	}
	resize(&l.gram, k, k)
	resize(&l.tmp, k, k)
	l.proj = slicesGrow(l.proj, 2*k)
	for a := range k {
		for b := range k {
			l.gram.Set(a, b, linalg.Dot(l.paths.RawRow(a), l.paths.RawRow(b)))
		}
	}
	// Factor j applied after the earlier ones: ((1 - c) I + c p_j p_j^T)
	// (alpha I + P^T C P) = alpha (1 - c) I + P^T [(1 - c) C + c e_j
	// (alpha e_j + C^T G e_j)^T] P, as p_j^T P^T = e_j^T G.
	alpha := 1.0
	c := &l.coef
	resize(c, k, k)
	for j := range k {
		cj := l.cd[j]
		rowj := l.proj[:k]
		for b := range k {
			var s float64
			for a := range k {
				s += float64(l.gram.At(j, a) * c.At(a, b))
			}
			rowj[b] = s
		}
		rowj[j] += alpha
		for a := range k {
			row := c.RawRow(a)
			for b := range row {
				row[b] = float64((1 - cj) * row[b])
			}
		}
		for b, v := range rowj {
			c.RawRow(j)[b] += float64(cj * v)
		}
		alpha = float64(alpha * (1 - cj))
	}
	// T = C G C^T.
	for a := range k {
		for b := range k {
			var s float64
			for q := range k {
				s += float64(c.At(a, q) * l.gram.At(q, b))
			}
			l.tmp.Set(a, b, s)
		}
	}
	for a := range k {
		row := l.tmp.RawRow(a)
		for b := range k {
			var s float64
			for q := range k {
				s += float64(row[q] * c.At(b, q))
			}
			l.proj[k+b] = s
		}
		copy(row, l.proj[k:2*k])
	}
	pi, cp := l.proj[:k], l.proj[k:2*k]
	for i := range d {
		for a := range k {
			pi[a] = l.paths.At(a, i)
		}
		var lin, quad float64
		for a := range k {
			var s, t float64
			for b := range k {
				s += float64(c.At(a, b) * pi[b])
				t += float64(l.tmp.At(a, b) * pi[b])
			}
			cp[a] = s
			lin += float64(pi[a] * s)
			quad += float64(pi[a] * t)
		}
		v := float64(alpha*alpha) + float64(float64(2*alpha)*lin) + quad
		dst[i] = float64(l.sigma * math.Sqrt(max(v, 0)))
	}
}

// MarshalBinary saves the complete state under the tag "hees-es/lmmaes/v3"
// (the format without the slot for A): Lambda, the core, p_sigma, the m
// paths and the tolfun history, O(m d) numbers.
func (l *lmmaes) MarshalBinary() ([]byte, error) {
	w := newStateWriterVersion(LMMAES, stateVersionNoA)
	w.int(l.cfg.Lambda)
	l.marshalCore(w, nil)
	w.floats(l.ps)
	w.matrix(&l.paths)
	l.funHist.write(w)
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of an lmmaes
// strategy, replacing the receiver's state entirely.
func (l *lmmaes) UnmarshalBinary(data []byte) error {
	r, cfg, err := openLambdaState(data, LMMAES)
	if err != nil {
		return err
	}
	var fresh lmmaes
	fresh.setup(cfg)
	fresh.unmarshalCore(r, nil)
	fresh.ps = r.floats(fresh.ps)
	r.matrix(&fresh.paths)
	fresh.funHist.read(r)
	if r.err == nil {
		rows, cols := fresh.paths.Dims()
		switch {
		case len(fresh.ps) != cfg.Dim:
			r.fail("p_sigma has length %d, want %d", len(fresh.ps), cfg.Dim)
		case rows != fresh.m || cols != cfg.Dim:
			r.fail("the paths are %d×%d, want %d×%d", rows, cols, fresh.m, cfg.Dim)
		}
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		fresh.draw() // a function of (seed, generation) and the paths
	}
	*l = fresh
	return nil
}
