package es

// The paper's results (Glasmachers & Krause, docs/ALGORITHMS.md Section 11) and
// the agreement with the authors' reference implementation of the full
// HE-ES, as tests with fixed seeds.

import (
	"math"
	"slices"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// purposeTest is the sub-stream purpose of the random test problems.
const purposeTest rng.Purpose = 1000

// stQuadratic is f(x) = 1/2 x^T H x with a random symmetric positive
// definite H = Q^T diag(lambda) Q, lambda_i = cond^(u_i) for uniform u_i
// (the extremes are 1 and cond) and a random orthogonal Q.
type stQuadratic struct {
	h          *linalg.Dense
	q          *linalg.Dense // orthogonal, H = Q^T diag(lambda) Q
	sqrtLambda []float64
}

func newSTQuadratic(t testing.TB, d int, cond float64, seed uint64) *stQuadratic {
	key := rng.KeyFromSeed(seed)
	q := linalg.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		st := rng.NewStream(key, purposeTest, 0, uint64(i))
		st.FillNormal(q.RawRow(i))
	}
	if err := linalg.GramSchmidt(q, make([]float64, d)); err != nil {
		t.Fatal(err)
	}
	st := rng.NewStream(key, purposeTest, 1, 0)
	lambda := make([]float64, d)
	sqrtLambda := make([]float64, d)
	for i := range lambda {
		u := st.Float64()
		switch i {
		case 0:
			u = 0
		case 1:
			u = 1
		}
		lambda[i] = math.Pow(cond, u)
		sqrtLambda[i] = math.Sqrt(lambda[i])
	}
	h := linalg.NewDense(d, d, nil)
	for k, l := range lambda {
		h.AddOuter(l, q.RawRow(k), q.RawRow(k))
	}
	return &stQuadratic{h: h, q: q, sqrtLambda: sqrtLambda}
}

func (p *stQuadratic) eval(x []float64) float64 {
	d := len(x)
	var s float64
	for i := 0; i < d; i++ {
		s += x[i] * linalg.Dot(p.h.RawRow(i), x)
	}
	return 0.5 * s
}

// whitened returns M = A^T H A, the Hessian in the coordinates of A.
func whitened(h, a *linalg.Dense) *linalg.Dense {
	var ha, m, at linalg.Dense
	ha.Mul(h, a)
	at.Transpose(a)
	m.Mul(&at, &ha)
	return &m
}

// randomUnitDetMatrix returns a random d×d matrix scaled to |det| = 1.
func randomUnitDetMatrix(d int, seed uint64) *linalg.Dense {
	key := rng.KeyFromSeed(seed)
	a := linalg.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		st := rng.NewStream(key, purposeTest, 2, uint64(i))
		st.FillNormal(a.RawRow(i))
	}
	logDet, _ := linalg.LogDet(a)
	a.Scale(math.Exp(-logDet/float64(d)), a)
	return a
}

// TestTraceLemma checks the paper's trace lemma in the analysed setting
// (eta_A = 1, no trust region, the hees14 defaults): on a convex quadratic
// with Hessian H, one update lowers tr(A^T H A) by exactly
// (sqrt(h1) - sqrt(h2))^2 with h_i = u_i^T A^T H A u_i, and keeps det(A).
func TestTraceLemma(t *testing.T) {
	cases := 0
	for _, d := range []int{2, 3, 5, 10} {
		for seed := uint64(1); seed <= 10; seed++ {
			p := newSTQuadratic(t, d, 1e3, seed)
			a0 := randomUnitDetMatrix(d, seed+100)
			x0 := make([]float64, d)
			st := rng.NewStream(rng.KeyFromSeed(seed), purposeTest, 3, 0)
			st.FillNormal(x0)
			s := stNew(t, "hees14", Config{Dim: d, Seed: seed, X0: x0, Sigma0: 0.7, A0: a0, TolFun: -1})
			h := s.(*hees14)
			var pop linalg.Dense
			var vals []float64
			for g := 0; g < 1+int(seed%3); g++ {
				vals = stGeneration(t, s, p.eval, &pop, vals)
			}
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			var a linalg.Dense
			a.CopyFrom(TransformOf(s))
			m := whitened(p.h, &a)
			var hs [2]float64
			for i := range hs {
				u := h.ad.u.RawRow(i)
				mu := make([]float64, d)
				linalg.MulVec(mu, m, u)
				hs[i] = linalg.Dot(u, mu)
			}
			vals = vals[:0]
			for i := 0; i < 4; i++ {
				vals = append(vals, p.eval(pop.RawRow(i)))
			}
			if err := s.Tell(vals); err != nil {
				t.Fatal(err)
			}
			drop := m.Trace() - whitened(p.h, TransformOf(s)).Trace()
			want := math.Pow(math.Sqrt(hs[0])-math.Sqrt(hs[1]), 2)
			if math.Abs(drop-want) > 1e-10*want {
				t.Errorf("d=%d seed %d: trace drop %.15g, want (sqrt(h1) - sqrt(h2))^2 = %.15g", d, seed, drop, want)
			}
			before, _ := linalg.LogDet(&a)
			after, _ := linalg.LogDet(TransformOf(s))
			if math.Abs(after-before) > 1e-12 {
				t.Errorf("d=%d seed %d: log|det A| %.17g -> %.17g", d, seed, before, after)
			}
			cases++
		}
	}
	if cases != 40 {
		t.Errorf("%d cases", cases)
	}
}

// normalizedTrace returns tr(M)/det(M)^(1/d) for M = A^T H A. With
// B = diag(sqrt(lambda)) Q A, M = B^T B, so tr(M) is the sum of the
// squares of B's elements and det(M) = det(B)^2; B is close to a multiple
// of an orthogonal matrix once A is adapted, which keeps both accurate.
func normalizedTrace(p *stQuadratic, a *linalg.Dense) float64 {
	d, _ := a.Dims()
	var b linalg.Dense
	b.Mul(p.q, a)
	for i, s := range p.sqrtLambda {
		row := b.RawRow(i)
		for j := range row {
			row[j] *= s
		}
	}
	logDetB, _ := linalg.LogDet(&b)
	fro := b.FrobeniusNorm()
	return fro * fro / math.Exp(2*logDetB/float64(d))
}

// TestTraceMonotone runs hees14 for 2000 iterations on random convex
// quadratics in d = 2, 5, 20: tr(A^T H A / det(A^T H A)^(1/d)) never
// increases from one iteration to the next (Lemma "trace reduction" and the
// discussion after it). The comparison allows a relative 1e-13 for rounding:
// evaluating the normalised trace (see normalizedTrace) and the update of A
// itself err by a few 1e-16 relative (the largest rise seen is about 2e-15,
// once the trace sits at its minimum d), while a genuine violation, such as
// the printed sign of eq. (G), raises it by orders of magnitude more.
func TestTraceMonotone(t *testing.T) {
	for _, c := range []struct {
		d     int
		scale float64 // of X0, so that f stays far above the subnormal range
	}{{2, 1e100}, {5, 1e30}, {20, 1}} {
		p := newSTQuadratic(t, c.d, 1e4, uint64(c.d))
		x0 := make([]float64, c.d)
		for i := range x0 {
			x0[i] = c.scale
		}
		s := stNew(t, "hees14", Config{Dim: c.d, Seed: 21, X0: x0, Sigma0: c.scale, TolFun: -1})
		var pop linalg.Dense
		var vals []float64
		vals = stGeneration(t, s, p.eval, &pop, vals)
		first := normalizedTrace(p, TransformOf(s))
		prev := first
		maxRise := 0.0
		for it := 1; it <= 2000; it++ {
			vals = stGeneration(t, s, p.eval, &pop, vals)
			if s.Stop() != "" {
				t.Fatalf("d=%d: stopped at iteration %d: %s", c.d, it, s.Stop())
			}
			r := normalizedTrace(p, TransformOf(s))
			maxRise = max(maxRise, r/prev-1)
			if r > prev*(1+1e-13) {
				t.Fatalf("d=%d iteration %d: normalised trace rose from %.17g to %.17g", c.d, it, prev, r)
			}
			prev = r
		}
		if _, f := s.Best(); !(f > 1e-250) {
			t.Errorf("d=%d: f reached %g, too close to the subnormal range for exact curvatures", c.d, f)
		}
		// Not vacuous: the trace fell towards its minimum d.
		if !(prev-float64(c.d) < 0.01*(first-float64(c.d))) {
			t.Errorf("d=%d: normalised trace %g -> %g, want 99%% of the way to %d", c.d, first, prev, c.d)
		}
		t.Logf("d=%d: normalised trace %.6g -> %.17g, largest relative rise %.3g", c.d, first, prev, maxRise)
	}
}

// condWhitened returns cond(A^T H A).
func condWhitened(t testing.TB, h, a *linalg.Dense) float64 {
	c, err := linalg.CondSym(whitened(h, a))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCovarianceConvergence checks the convergence theorem on the
// ellipsoid with condition 1e6 in d = 10 (m0 = 1, sigma0 = 1): cond(A^T H A)
// < 1.01 within 2000 iterations for 10 of 10 seeds, and it reaches
// 1 + 1e-8 later (docs/ALGORITHMS.md Section 11 items 2 and 5).
func TestCovarianceConvergence(t *testing.T) {
	const d = 10
	h := linalg.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		h.Set(i, i, 2*math.Pow(1e6, float64(i)/(d-1)))
	}
	f := stEllipsoid(d, 1e6) // = 1/2 x^T H x
	var reached, precise []int
	for seed := uint64(1); seed <= 10; seed++ {
		s := stNew(t, "hees14", Config{Dim: d, Seed: seed, X0: slices.Repeat([]float64{1}, d), Sigma0: 1, TolFun: -1})
		var pop linalg.Dense
		var vals []float64
		vals = stGeneration(t, s, f, &pop, vals)
		at01, at1e8 := -1, -1
		for it := 1; it <= 6000 && at1e8 < 0; it++ {
			vals = stGeneration(t, s, f, &pop, vals)
			if s.Stop() != "" {
				t.Fatalf("seed %d: stopped at iteration %d: %s", seed, it, s.Stop())
			}
			c := condWhitened(t, h, TransformOf(s))
			if at01 < 0 && c < 1.01 {
				at01 = it
			}
			if c < 1+1e-8 {
				at1e8 = it
			}
		}
		if at01 < 0 || at01 > 2000 {
			t.Errorf("seed %d: cond(A^T H A) < 1.01 first at iteration %d, want within 2000", seed, at01)
		}
		if at1e8 < 0 {
			t.Errorf("seed %d: cond(A^T H A) did not reach 1 + 1e-8 in 6000 iterations", seed)
		}
		reached = append(reached, at01)
		precise = append(precise, at1e8)
	}
	t.Logf("iterations to cond < 1.01: %v; to cond < 1 + 1e-8: %v", reached, precise)
}

// slopeAfter runs hees14 from m0 = 1 with sigma0 = 1 on f for skip
// iterations, then returns the slope of ln f(m) per evaluation over the next
// span iterations.
func slopeAfter(t *testing.T, f func([]float64) float64, d int, seed uint64, skip, span int) float64 {
	s := stNew(t, "hees14", Config{Dim: d, Seed: seed, X0: slices.Repeat([]float64{1}, d), Sigma0: 1, TolFun: -1})
	h := s.(*hees14)
	var pop linalg.Dense
	var vals []float64
	vals = stGeneration(t, s, f, &pop, vals)
	for it := 0; it < skip; it++ {
		vals = stGeneration(t, s, f, &pop, vals)
	}
	f0, e0 := h.fMean, s.Evals()
	for it := 0; it < span; it++ {
		vals = stGeneration(t, s, f, &pop, vals)
	}
	if s.Stop() != "" {
		t.Fatalf("seed %d: stopped: %s", seed, s.Stop())
	}
	return (math.Log(h.fMean) - math.Log(f0)) / float64(s.Evals()-e0)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// TestRateIndependentOfConditioning checks the main theorem's consequence
// (docs/ALGORITHMS.md Section 11 item 4): after adaptation, the median slope of
// ln f per evaluation of hees14 on the ellipsoid with condition 1e6 is
// within 15% of its slope on the sphere (d = 10).
func TestRateIndependentOfConditioning(t *testing.T) {
	const d, seeds, span = 10, 11, 1500
	var ell, sph []float64
	for seed := uint64(1); seed <= seeds; seed++ {
		// 2000 iterations adapt A on the ellipsoid (TestCovarianceConvergence);
		// on the sphere A = I is already adapted and 200 iterations adapt sigma.
		ell = append(ell, slopeAfter(t, stEllipsoid(d, 1e6), d, seed, 2000, span))
		sph = append(sph, slopeAfter(t, stSphere, d, seed+100, 200, span))
	}
	me, ms := median(ell), median(sph)
	t.Logf("median slope of ln f per evaluation: ellipsoid %.5f, sphere %.5f", me, ms)
	if !(ms < 0) || math.Abs(me/ms-1) > 0.15 {
		t.Errorf("slope on the ellipsoid %.5f is not within 15%% of the sphere's %.5f", me, ms)
	}
}

// evalsToTarget runs strategy name from m0 = 1 with sigma0 = 1 on f until a
// told value is at most target and returns the number of evaluations.
func evalsToTarget(t *testing.T, name string, f func([]float64) float64, d int, seed uint64, target float64, budget int) int {
	s := stNew(t, name, Config{Dim: d, Seed: seed, X0: slices.Repeat([]float64{1}, d), Sigma0: 1, TolFun: -1})
	var pop linalg.Dense
	vals := make([]float64, 0, s.PopulationSize())
	for s.Evals() < budget {
		if err := s.Ask(&pop); err != nil {
			t.Fatalf("%s seed %d: %v", name, seed, err)
		}
		r, _ := pop.Dims()
		vals = vals[:r]
		for i := range vals {
			vals[i] = f(pop.RawRow(i))
			if vals[i] <= target {
				return s.Evals() + i + 1
			}
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%s seed %d: target %g not reached in %d evaluations", name, seed, target, budget)
	return 0
}

// TestHEESBeatsOnePlusOneES: at condition 1e4 (d = 10) the (1+1)-ES needs
// more than 20 times the evaluations of the (1+4)-HE-ES to reach f <= 1e-8
// (medians over 5 seeds).
func TestHEESBeatsOnePlusOneES(t *testing.T) {
	const d = 10
	f := stEllipsoid(d, 1e4)
	var he, es []float64
	for seed := uint64(1); seed <= 5; seed++ {
		he = append(he, float64(evalsToTarget(t, "hees14", f, d, seed, 1e-8, 1e5)))
		es = append(es, float64(evalsToTarget(t, "es11", f, d, seed, 1e-8, 1e7)))
	}
	mh, me := median(he), median(es)
	t.Logf("median evaluations to 1e-8: hees14 %g, es11 %g (ratio %.1f)", mh, me, me/mh)
	if !(me > 20*mh) {
		t.Errorf("es11 needs %g evaluations, hees14 %g: ratio %.1f, want > 20", me, mh, me/mh)
	}
}

// referenceEvals runs the full HE-ES with its defaults (m0 uniform in
// [-3, 3]^d, sigma0 = 2, no restarts) until a value <= 1e-8 is seen and
// returns the evaluations as the authors' reference code counts them: one
// for f(m0), then 2 lambda~ + 1 per generation (the offspring and the new
// mean), the target being checked after each generation against the
// offspring and the new mean. Generation g here asks m_g (whose value the
// reference computed at the end of generation g - 1) and the offspring of
// generation g.
func referenceEvals(t *testing.T, f func([]float64) float64, d int, seed uint64) int {
	s := stNew(t, "hees", Config{Dim: d, Seed: seed})
	per := s.PopulationSize()
	var pop linalg.Dense
	var vals []float64
	for g := 0; g < 10000; g++ {
		if err := s.Ask(&pop); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		r, _ := pop.Dims()
		vals = vals[:0]
		for i := 0; i < r; i++ {
			vals = append(vals, f(pop.RawRow(i)))
		}
		if g > 0 && vals[0] <= 1e-8 {
			return 1 + g*per // reached by the new mean of generation g - 1
		}
		if slices.Min(vals[1:]) <= 1e-8 {
			return 1 + (g+1)*per
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("seed %d: target not reached", seed)
	return 0
}

// TestAgreementWithReference compares the full HE-ES with the authors'
// reference implementation in d = 10: its median evaluations to f <= 1e-8
// over 15 runs are 1024 (range 925-1156) on the sphere sum x_i^2 and 2971
// (2531-3169) on the ellipsoid sum 1e6^((i-1)/9) x_i^2. Ours, over 15 seeds,
// must lie within 10%.
func TestAgreementWithReference(t *testing.T) {
	const d = 10
	for _, c := range []struct {
		name   string
		f      func([]float64) float64
		median float64
	}{
		{"sphere", stSphere, 1024},
		{"ellipsoid", stEllipsoid(d, 1e6), 2971},
	} {
		var evals []float64
		for seed := uint64(1); seed <= 15; seed++ {
			evals = append(evals, float64(referenceEvals(t, c.f, d, seed)))
		}
		m := median(evals)
		t.Logf("%s: median %g, range %g-%g (reference %g)", c.name, m, slices.Min(evals), slices.Max(evals), c.median)
		if math.Abs(m/c.median-1) > 0.10 {
			t.Errorf("%s: median %g evaluations, reference %g: outside 10%%", c.name, m, c.median)
		}
	}
}
