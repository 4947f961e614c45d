package es

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/rng"
)

// TestLMHEESConstants checks the sizes of lmhees: lambda~ = floor(4 + 1.5
// ln d) pairs (at most d and what maxSamples allows), m = 4 + floor(3 ln
// d) paths (at most d - 1), r = floor((lambda~ + 2)/5) measured, the path
// rates c_j = lambda~/(1.5^j d), and the memory estimate, O(m d).
func TestLMHEESConstants(t *testing.T) {
	for _, c := range []struct{ d, pairs, slots, measure int }{
		{2, 2, 0, 0},
		{5, 5, 4, 1},
		{10, 7, 9, 1},
		{100, 10, 17, 2},
		{1000, 14, 24, 3},
		{100000, 20, 38, 4},
	} {
		s := stNew(t, LMHEES, Config{Dim: c.d})
		l := s.(*lmhees)
		if l.pairs != c.pairs || l.slots != c.slots || l.measure != c.measure {
			t.Errorf("d=%d: %d pairs, %d paths, %d measured, want %d %d %d", c.d, l.pairs, l.slots, l.measure, c.pairs, c.slots, c.measure)
		}
		for j, r := range l.pathRate {
			want := math.Min(1, float64(c.pairs)/(math.Pow(1.5, float64(j))*float64(c.d)))
			if math.Abs(r-want) > 1e-15*want {
				t.Errorf("d=%d: c_%d = %v, want %v", c.d, j, r, want)
			}
		}
		cfg, err := resolve(LMHEES, Config{Dim: c.d})
		if err != nil {
			t.Fatal(err)
		}
		est := lmheesRow.memory(cfg)
		if low, high := 8*float64(c.d)*float64(c.slots), 8*float64(c.d)*float64(4*c.pairs+2*c.slots+40); est < low || est > high {
			t.Errorf("d=%d: memory estimate %.3g bytes, want between %.3g and %.3g", c.d, est, low, high)
		}
	}
}

// TestLMHEESMemory checks the memory estimate against what New and a few
// generations allocate in d = 20000: no more than the estimate, and at
// least a third of it (the estimate counts the caller's candidates too).
func TestLMHEESMemory(t *testing.T) {
	const d = 20000
	cfg, err := resolve(LMHEES, Config{Dim: d, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	est := lmheesRow.memory(cfg)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := stNew(t, LMHEES, Config{Dim: d, Seed: 1})
	var pop linalg.Dense
	for range 3 {
		askTellGeneration(t, s, stSphere, &pop)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	used := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	if used > est || used < est/3 {
		t.Errorf("d=%d: %.3g bytes in use after 3 generations, estimate %.3g", d, used, est)
	}
}

// TestLMHEESConverges runs lmhees to 1e-8 on the sphere, the separable
// ellipsoid (condition 1e6) and Rosenbrock from x0 = 3 with sigma0 = 2, and
// checks the evaluations against budgets two to four times those
// measured (seed 1). Over seeds 1-11 in d = 10, seed 6 of Rosenbrock ends
// in the local minimum near f = 3.99 (tolfun).
func TestLMHEESConverges(t *testing.T) {
	for _, c := range []struct {
		spec   string
		d      int
		budget int
	}{
		{"sphere", 10, 2000}, {"ellipsoid", 10, 3000}, {"rosenbrock", 10, 10000},
		{"sphere", 30, 5000}, {"ellipsoid", 30, 8000}, {"rosenbrock", 30, 80000},
		{"sphere", 100, 15000}, {"ellipsoid", 100, 25000}, {"rosenbrock", 100, 200000},
	} {
		p, err := objectives.Parse(c.spec, c.d)
		if err != nil {
			t.Fatal(err)
		}
		if n := gridRun(t, LMHEES, p, c.d, 1, c.budget); n < 0 {
			t.Errorf("%s d=%d: no 1e-8 within %d evaluations", c.spec, c.d, c.budget)
		}
	}
}

// TestLMHEESKappa is the paper's kappa argument on a quadratic that
// lmhees's family can represent: f(x) = x^T H x with H = S (I + sum_j (c_j
// - 1) q_j q_j^T) S, S diagonal with condition 10 and two random
// orthonormal directions q_j with c_j = 1e3 and 1e-2. The curvature of f
// along a learned direction v_j of the search distribution is (A v_j)^T H
// (A v_j); from generation 300 until f < 1e-9, the ratio of the largest to
// the smallest over the learned directions of a generation, pooled over
// the runs of seeds 1-8, has a median at most 30 and a 90th percentile at
// most 100 (measured: 22.8 and 97.8; the largest, 1.2e4, comes from paths
// whose direction has just turned, see docs/ALGORITHMS.md Section 21),
// while with A = I the same directions reach ratios above 1e3 (measured
// 1.1e4). One seed alone is not enough: the runs' own 90th percentiles
// range from 69 to 132, and three of the eight exceed 100 on their own.
func TestLMHEESKappa(t *testing.T) {
	const kappaSeeds = 8
	const d = 20
	st := rng.NewStream(rng.KeyFromSeed(7), 0, 0, 0)
	q := make([][]float64, 2)
	for j := range q {
		q[j] = make([]float64, d)
		st.FillNormal(q[j])
		for _, p := range q[:j] {
			c := linalg.Dot(p, q[j])
			for i := range q[j] {
				q[j][i] -= c * p[i]
			}
		}
		scaleVec(q[j], 1/linalg.Norm(q[j]))
	}
	cs := []float64{1e3, 1e-2}
	sd := make([]float64, d)
	for i := range sd {
		sd[i] = math.Pow(10, float64(i)/float64(d-1))
	}
	hv := func(dst, x []float64) { // dst = H x
		y := make([]float64, d)
		for i := range x {
			y[i] = sd[i] * x[i]
		}
		copy(dst, y)
		for j, c := range cs {
			t := (c - 1) * linalg.Dot(q[j], y)
			for i := range dst {
				dst[i] += t * q[j][i]
			}
		}
		for i := range dst {
			dst[i] *= sd[i]
		}
	}
	hx := make([]float64, d)
	f := func(x []float64) float64 {
		hv(hx, x)
		return linalg.Dot(x, hx)
	}
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = 1
	}
	av, hav := make([]float64, d), make([]float64, d)
	// ratio is the largest over the smallest curvature along the learned
	// directions of l's current generation, with A = D W (adapted) or I.
	ratio := func(l *lmhees, adapted bool) float64 {
		lo, hi := math.Inf(1), 0.0
		for b, g := range l.gammas {
			v := l.basis.RawRow(b)
			for i, x := range v {
				av[i] = x
				if adapted {
					av[i] = g * l.diag[i] * x
				}
			}
			hv(hav, av)
			c := linalg.Dot(av, hav)
			lo, hi = min(lo, c), max(hi, c)
		}
		return hi / lo
	}
	var pop linalg.Dense
	before := 0.0
	var ratios []float64
	for seed := uint64(1); seed <= kappaSeeds; seed++ {
		s := stNew(t, LMHEES, Config{Dim: d, Seed: seed, X0: x0})
		l := s.(*lmhees)
		checked := 0
		vals := make([]float64, s.PopulationSize())
		for g := 0; s.Stop() == "" && g < 5000; g++ {
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			if _, fb := s.Best(); g >= 300 && fb > 1e-9 && len(l.gammas) > 1 {
				ratios = append(ratios, ratio(l, true))
				before = max(before, ratio(l, false))
				checked++
			}
			for i := range vals {
				vals[i] = f(pop.RawRow(i))
			}
			if err := s.Tell(vals); err != nil {
				t.Fatal(err)
			}
		}
		if _, fb := s.Best(); fb > 1e-9 || checked < 100 {
			t.Fatalf("seed %d: f = %v after %d evaluations (%s), %d generations checked", seed, fb, s.Evals(), s.Stop(), checked)
		}
	}
	slices.Sort(ratios)
	med, p90 := ratios[len(ratios)/2], ratios[len(ratios)*9/10]
	t.Logf("seeds 1-%d, %d generations: ratios median %.3g, 90th percentile %.3g, largest %.3g; with A = I largest %.3g", kappaSeeds, len(ratios), med, p90, ratios[len(ratios)-1], before)
	if med > 30 || p90 > 100 || before < 1e3 {
		t.Errorf("ratio of curvatures along the learned directions: median %.3g (want <= 30), 90th percentile %.3g (want <= 100); with A = I %.3g (want >= 1e3)", med, p90, before)
	}
}

// TestLMHEESSigmaBound checks capSigma on quadratics, with the exact
// Hessian H and gradient H (m - x*) at each generation's Ask: the running
// means curv and slope agree with the same running means of the exact
// Tr(A^T H A)/(2d) and |A^T H (m - x*)|^2/d within 20% in the median, and
// the normalised step size sigma Tr(A^T H A)/|A^T H (m - x*)| has a median
// at most the bound 1.3 mu_eff^mirr (a generation may pass it: the bound
// comes from noisy estimates). Without the bound CSA runs the normalised
// step above it on these functions (docs/ALGORITHMS.md Section 21.1 item
// 8). And a sigma far above the bound is brought down to it in one
// generation: on the sphere f = |x|^2 from x0 = 3 with sigma0 = 100 and A =
// I the bound is 1.3 mu_eff^mirr |x0|/d, and CSA alone would leave sigma
// near 100.
func TestLMHEESSigmaBound(t *testing.T) {
	const d = 50
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = 3
	}
	s := stNew(t, LMHEES, Config{Dim: d, Seed: 1, X0: x0, Sigma0: 100})
	var pop linalg.Dense
	askTellGeneration(t, s, stSphere, &pop)
	l := s.(*lmhees)
	if want := lmheesSigmaCap * l.muEffMirr * linalg.Norm(x0) / d; !(l.sigma > want/2 && l.sigma < 2*want) {
		t.Errorf("sphere d=%d, sigma0 = 100: sigma %.4g after one generation, want within a factor 2 of the bound %.4g", d, l.sigma, want)
	}
	for _, c := range []struct {
		spec string
		d    int
	}{{"rotellipsoid", 30}, {"ellipsoid", 60}} {
		p, err := objectives.Parse(c.spec, c.d)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := p.Hessian()
		xopt, _, _ := p.Optimum()
		d := c.d
		x0 := make([]float64, d)
		for i := range x0 {
			x0[i] = 3
		}
		s := stNew(t, LMHEES, Config{Dim: d, Seed: 1, X0: x0, Sigma0: 2})
		l := s.(*lmhees)
		a := linalg.NewDense(d, d, nil)
		ha := linalg.NewDense(d, d, nil)
		e, col, g, ag := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		var steps, curvs, slopes []float64
		var curv, slope float64 // running means of the exact values
		var pop linalg.Dense
		vals := make([]float64, s.PopulationSize())
		for gen := 0; s.Stop() == "" && gen < 3000; gen++ {
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			// A = D W column by column, as sampled.
			for j := range d {
				clear(e)
				e[j] = 1
				l.stretch(col, e, false)
				for i := range d {
					a.Set(i, j, l.diag[i]*col[i])
				}
			}
			ha.Mul(h, a)
			var tr float64
			for j := range d {
				for i := range d {
					tr += a.At(i, j) * ha.At(i, j)
				}
			}
			for i := range e {
				e[i] = l.mean[i] - xopt[i]
			}
			linalg.MulVec(g, h, e)
			linalg.MulVecT(ag, a, g)
			c, sl := tr/float64(2*d), linalg.Dot(ag, ag)/float64(d)
			if gen == 0 {
				curv, slope = c, sl
			} else {
				curv += lmheesModelRate * (c - curv)
				slope += lmheesModelRate * (sl - slope)
			}
			step := l.sigma * tr / linalg.Norm(ag)
			for i := range vals {
				vals[i] = p.Eval(pop.RawRow(i))
			}
			if err := s.Tell(vals); err != nil {
				t.Fatal(err)
			}
			if gen >= 50 && vals[0] > 1e-6 {
				steps = append(steps, step)
				curvs = append(curvs, l.curv/curv)
				slopes = append(slopes, l.slope/slope)
			}
		}
		if len(steps) < 100 {
			t.Fatalf("%s d=%d: %d generations checked (%s)", c.spec, d, len(steps), s.Stop())
		}
		med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
		bound := lmheesSigmaCap * l.muEffMirr
		ms, mc, mg := med(steps), med(curvs), med(slopes)
		t.Logf("%s d=%d: %d generations, normalised step median %.3g (bound %.3g); running means over exact ones, medians %.3g (curv) and %.3g (slope)",
			c.spec, d, len(steps), ms, bound, mc, mg)
		if ms > bound {
			t.Errorf("%s d=%d: normalised step median %.3g, want at most the bound %.3g", c.spec, d, ms, bound)
		}
		if math.Abs(mc-1) > 0.2 || math.Abs(mg-1) > 0.2 {
			t.Errorf("%s d=%d: running means over exact ones, medians %.3g (curv) and %.3g (slope), want within 20%% of 1", c.spec, d, mc, mg)
		}
	}
}

// TestLMHEESLoadModel checks that a state whose step-size model is not
// finite (a corrupt or hostile file) is refused with an error naming it,
// instead of silently switching capSigma off.
func TestLMHEESLoadModel(t *testing.T) {
	for _, c := range []struct{ curv, slope float64 }{{math.NaN(), 1}, {1, math.Inf(1)}, {1, -1}} {
		s := stNew(t, LMHEES, Config{Dim: 10, Seed: 1})
		var pop linalg.Dense
		askTellGeneration(t, s, stSphere, &pop)
		l := s.(*lmhees)
		l.curv, l.slope = c.curv, c.slope
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(data); err == nil || !strings.Contains(err.Error(), "step-size model") {
			t.Errorf("curv %v, slope %v: Load gives %v, want an error naming the step-size model", c.curv, c.slope, err)
		}
	}
}
