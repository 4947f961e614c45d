package es

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/rng"
)

// cmaesOf returns the *cmaes behind New("cmaes", cfg).
func cmaesOf(t testing.TB, cfg Config) *cmaes {
	t.Helper()
	return stNew(t, "cmaes", cfg).(*cmaes)
}

// withinPrinted reports whether got rounds to the decimal string want: it
// differs from it by at most half a unit of want's last printed digit.
func withinPrinted(got float64, want string) bool {
	v, err := strconv.ParseFloat(want, 64)
	if err != nil {
		panic(err)
	}
	decimals := 0
	if i := strings.IndexByte(want, '.'); i >= 0 {
		decimals = len(want) - i - 1
	}
	return math.Abs(got-v) <= 0.5*math.Pow(10, -float64(decimals))*(1+1e-9)
}

// TestCMAESParams checks the defaults against pycma 4.4's formulas
// (docs/ALGORITHMS.md Section 8), each to the digits printed there, and the
// recombination weights with their active part: the positive ones sum to 1,
// the negative ones to -min(alpha_mu^-, alpha_posdef^-, alpha_mueff^-).
func TestCMAESParams(t *testing.T) {
	for _, row := range []struct {
		n, lambda, mu                          int
		muEff, muEffMinus, cs, ds, cc, c1, cmu string
		alpha                                  string // minus the sum of the negative weights
	}{
		// d = 2: alpha_mueff^- (2.20732) is below alpha_mu^- (2.80874).
		{2, 6, 3, "2.02861", "2.43192", "0.57317", "1.57317", "0.62455", "0.154815", "0.085593", "2.20732"},
		{10, 10, 5, "3.16730", "3.98912", "0.31961", "1.31961", "0.29499", "0.015284", "0.023552", "1.64895"},
		{40, 15, 7, "4.54092", "5.88905", "0.13758", "1.13758", "0.09301", "0.001169", "0.003405", "1.34342"},
	} {
		c := cmaesOf(t, Config{Dim: row.n})
		p := c.p
		if p.lambda != row.lambda || p.mu != row.mu || c.PopulationSize() != row.lambda || c.cfg.Lambda != row.lambda {
			t.Errorf("n=%d: lambda %d mu %d, want %d %d", row.n, p.lambda, p.mu, row.lambda, row.mu)
		}
		var negSum float64
		for _, w := range p.weights[p.mu:] {
			negSum += w
		}
		for _, v := range []struct {
			name string
			got  float64
			want string
		}{
			{"mu_eff", p.muEff, row.muEff}, {"mu_eff^-", p.muEffMinus, row.muEffMinus},
			{"c_sigma", p.cs, row.cs}, {"d_sigma", p.ds, row.ds},
			{"c_c", p.cc, row.cc}, {"c_1", p.c1, row.c1}, {"c_mu", p.cmu, row.cmu}, {"alpha", -negSum, row.alpha},
		} {
			if !withinPrinted(v.got, v.want) {
				t.Errorf("n=%d: %s = %.8f, want %s", row.n, v.name, v.got, v.want)
			}
		}
		checkCMAESWeights(t, p, row.n)
		// pycma's lazy_update_gap and history lengths.
		n := float64(row.n)
		if gap := 0.1 * float64(p.lambda) / ((p.c1 + p.cmu) * n); math.Abs(p.lazyGap-gap) > 1e-12*gap {
			t.Errorf("n=%d: lazy gap %g evaluations, want %g", row.n, p.lazyGap, gap)
		}
		if want := int(10 + 30*n/float64(p.lambda)); p.histLen != want {
			t.Errorf("n=%d: tolfun history of %d generations, want %d", row.n, p.histLen, want)
		}
		var stag stagnation
		stag.setup(row.n, p.lambda)
		if want := int(100 + 100*math.Pow(n, 1.5)/float64(p.lambda)); stag.iters != want {
			t.Errorf("n=%d: tolstagnation %d, want %d", row.n, stag.iters, want)
		}
	}
	// A given Lambda: mu = floor(lambda/2), also for odd lambda, whose
	// middle weight is 0.
	if p := cmaesOf(t, Config{Dim: 3, Lambda: 11}).p; p.lambda != 11 || p.mu != 5 || len(p.weights) != 11 || p.weights[5] != 0 {
		t.Errorf("Lambda 11: lambda %d mu %d with weights %v", p.lambda, p.mu, p.weights)
	}
	// A large population at d = 2: alpha_posdef^- binds.
	p := cmaesOf(t, Config{Dim: 2, Lambda: 200}).p
	checkCMAESWeights(t, p, 2)
	if posdef := (1 - p.c1 - p.cmu) / (2 * p.cmu); math.Abs(p.weightSum-(1-posdef)) > 1e-12 {
		t.Errorf("lambda 200, d = 2: sum of the weights %g, want 1 - alpha_posdef^- = %g", p.weightSum, 1-posdef)
	}
}

// checkCMAESWeights recomputes the weights of p from eqs. (49)-(53): the
// raw ln((lambda+1)/2) - ln i, the positive ones normalised to sum 1, the
// negative ones to sum -alpha with the smallest of the three alphas.
func checkCMAESWeights(t *testing.T, p cmaesParams, d int) {
	t.Helper()
	n := float64(d)
	raw := make([]float64, p.lambda)
	var pos, neg, sumSq, negSq float64
	for i := range raw {
		raw[i] = math.Log(float64(p.lambda+1)/2) - math.Log(float64(i+1))
		if i < p.mu {
			pos += raw[i]
		} else {
			neg += raw[i]
		}
	}
	for i := p.mu; i < p.lambda; i++ {
		negSq += (raw[i] / neg) * (raw[i] / neg)
	}
	muEffMinus := 1 / negSq
	alpha := min(1+p.c1/p.cmu, (1-p.c1-p.cmu)/(n*p.cmu), 1+2*muEffMinus/(p.muEff+2))
	var sum, sumPos float64
	for i, w := range p.weights {
		want := raw[i] / pos
		if i >= p.mu {
			want = -alpha * raw[i] / neg
		} else {
			sumPos += w
			sumSq += w * w
		}
		if math.Abs(w-want) > 1e-15 {
			t.Errorf("n=%d lambda=%d: w_%d = %.17g, want %.17g", d, p.lambda, i+1, w, want)
		}
		sum += w
	}
	if math.Abs(sumPos-1) > 1e-15 || math.Abs(sum-(1-alpha)) > 1e-14 || math.Abs(p.weightSum-sum) > 1e-14 {
		t.Errorf("n=%d lambda=%d: positive weights sum to %.17g, all to %.17g (kept %.17g), want 1 and %.17g",
			d, p.lambda, sumPos, sum, p.weightSum, 1-alpha)
	}
	if math.Abs(p.muEff*sumSq-1) > 1e-14 || math.Abs(p.muEffMinus/muEffMinus-1) > 1e-14 {
		t.Errorf("n=%d lambda=%d: mu_eff %g, mu_eff^- %g, want %g, %g", d, p.lambda, p.muEff, p.muEffMinus, 1/sumSq, muEffMinus)
	}
}

// TestCMAESPycmaDoc checks the parameters printed by pycma's own example of
// CMAParameters (options_parameters.py, d = 20, lambda = 12), to the digits
// it prints.
func TestCMAESPycmaDoc(t *testing.T) {
	p := cmaesOf(t, Config{Dim: 20}).p
	want := []string{"0.4024029428", "0.2533890840", "0.1662215645", "0.1043752252", "0.05640347757",
		"0.01720770576", "-0.05018713636", "-0.1406167894", "-0.2203813963", "-0.2917332686",
		"-0.3562788884", "-0.4152044225"}
	if p.lambda != 12 || p.mu != 6 || len(p.weights) != len(want) {
		t.Fatalf("lambda %d mu %d, %d weights", p.lambda, p.mu, len(p.weights))
	}
	for i, w := range p.weights {
		// pycma prints 10 significant digits, truncated.
		if v, _ := strconv.ParseFloat(want[i], 64); math.Abs(w-v) > 1e-10*math.Max(1, math.Abs(v))*10 {
			t.Errorf("w_%d = %.12g, pycma prints %s", i+1, w, want[i])
		}
	}
	for _, v := range []struct {
		name string
		got  float64
		want string
	}{{"c_1", p.c1, "0.00437235"}, {"c_c", p.cc, "0.171767"}, {"c_mu", p.cmu, "0.00921656"}} {
		if !withinPrinted(v.got, v.want) {
			t.Errorf("%s = %.10f, pycma prints %s", v.name, v.got, v.want)
		}
	}
	// pycma's chiN: exact for n <= 6 (sqrt(2) Gamma((n+1)/2)/Gamma(n/2)).
	for d := 1; d <= 6; d++ {
		a, _ := math.Lgamma(float64(d+1) / 2)
		b, _ := math.Lgamma(float64(d) / 2)
		if want := math.Sqrt2 * math.Exp(a-b); math.Abs(pycmaChiN(d)-want) > 1e-13 {
			t.Errorf("chi_%d = %.17g, want %.17g", d, pycmaChiN(d), want)
		}
	}
}

// TestCMAESNewErrors checks the configuration errors that concern cmaes.
func TestCMAESNewErrors(t *testing.T) {
	for _, c := range []struct {
		strategy string
		cfg      Config
		want     string
	}{
		{"cmaes", Config{Dim: 0}, "Config.Dim = 0"},
		{"cmaes", Config{Dim: 3, Lambda: 1}, "Config.Lambda = 1: cmaes needs at least 2"},
		{"cmaes", Config{Dim: 3, Lambda: -4}, "Config.Lambda = -4: must be in [0, 1048576]"},
		{"cmaes", Config{Dim: 3, Lambda: 1<<20 + 1}, "Config.Lambda = 1048577: must be in [0, 1048576]"},
		{"hees", Config{Dim: 3, Pairs: 1<<20 + 1}, "Config.Pairs = 1048577: must be in [0, 1048576]"},
		{"hees", Config{Dim: 3, Lambda: 8}, "Config.Lambda = 8: hees sets its population with Pairs (leave Lambda 0; it is for cmaes, "},
		{"cma11", Config{Dim: 3, Lambda: 8}, "Config.Lambda = 8: cma11 has a fixed population"},
		{"cmaes", Config{Dim: 3, Pairs: 4}, "Config.Pairs = 4: cmaes sets its population with Lambda"},
		{"cmaes", Config{Dim: 3, Kappa: 3}, "Config.Kappa"},
		{"cmaes", Config{Dim: 3, CS: 0.3}, "Config.CS"},
		{"cmaes", Config{Dim: 3, CSigma: 1.2}, "Config.CSigma"},
		{"cmaes", Config{Dim: 3, Sigma0: -1}, "Config.Sigma0 = -1"},
		{"cmaes", Config{Dim: 2, X0: []float64{1, math.NaN()}}, "Config.X0[1] = NaN"},
		{"cmaes", Config{Dim: 2, A0: linalg.NewDense(2, 2, []float64{1, 2, 2, 4})}, "Config.A0 is singular"},
	} {
		s, err := New(c.strategy, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || s != nil {
			t.Errorf("New(%q, %+v) = %v, %v; want an error containing %q", c.strategy, c.cfg, s, err, c.want)
		}
	}
}

// TestCMAESGeneration checks one generation against pycma's update
// computed independently from the candidates asked: the new mean is
// sum_{i<=mu} w_i x_{i:lambda} (eqs. (41)-(42)), C^(-1/2) of the sigma path
// (eq. (43)) and of the negative weights' rescaling (eq. (46)) is that of
// the sampling covariance A A^T, C follows eq. (47) over all lambda
// offspring, h_sigma is pycma's, and the change of ln sigma is clipped to 1.
func TestCMAESGeneration(t *testing.T) {
	const d = 6
	// Far from the optimum with a small sigma, so that sigma grows and
	// h_sigma = 0 in the first generations.
	c := cmaesOf(t, Config{Dim: d, Seed: 3, A0: randomUnitDetMatrix(d, 2), X0: slices.Repeat([]float64{30}, d), Sigma0: 0.01})
	f := stEllipsoid(d, 1e3)
	var pop linalg.Dense
	var vals []float64
	p := c.p
	sawNoH := false
	for g := 0; g < 60; g++ {
		m0, sigma0 := c.Mean(nil), c.Sigma()
		var cov0, sampling linalg.Dense
		cov0.CopyFrom(&c.cov)
		sampling.MulAAT(c.Transform())
		ps0, pc0 := slices.Clone(c.ps), slices.Clone(c.pc)
		psVar0 := c.psVar
		vals = stGeneration(t, c, f, &pop, vals)
		order := make([]int, p.lambda)
		rankOrder(order, vals)

		// Mean: sum_i w_i x_{i:lambda}.
		for j := range d {
			var want float64
			for i, w := range p.weights[:p.mu] {
				want += w * pop.At(order[i], j)
			}
			if got := c.mean[j]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("generation %d: m_%d = %.17g, want %.17g", g, j, got, want)
			}
		}
		yw := make([]float64, d)
		ys := make([][]float64, p.lambda)
		for i, w := range p.weights {
			ys[i] = make([]float64, d)
			for j := range d {
				ys[i][j] = (pop.At(order[i], j) - m0[j]) / sigma0
				if i < p.mu {
					yw[j] += w * ys[i][j]
				}
			}
		}
		// (A A^T)^(-1/2) from an independent decomposition.
		vals2, vecs, err := linalg.SymEig(&sampling)
		if err != nil {
			t.Fatal(err)
		}
		invSqrtOf := func(y []float64) []float64 {
			proj := make([]float64, d)
			linalg.MulVecT(proj, vecs, y)
			for k := range proj {
				proj[k] /= math.Sqrt(vals2[k])
			}
			v := make([]float64, d)
			linalg.MulVec(v, vecs, proj)
			return v
		}
		invSqrt := invSqrtOf(yw)
		cs := p.cs
		var norm2 float64
		for j := range d {
			want := (1-cs)*ps0[j] + math.Sqrt(cs*(2-cs)*p.muEff)*invSqrt[j]
			if math.Abs(c.ps[j]-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("generation %d: p_sigma[%d] = %.17g, want %.17g", g, j, c.ps[j], want)
			}
			norm2 += want * want
		}
		// h_sigma with the tutorial's 1 - (1 - c_sigma)^(2(g+1)).
		gens := float64(g + 1)
		if math.Abs(c.psVar-(1-math.Pow(1-cs, 2*gens))) > 1e-14 || psVar0 > c.psVar {
			t.Fatalf("generation %d: path variance factor %g", g, c.psVar)
		}
		h := norm2/(1-math.Pow(1-cs, 2*gens))/d < 2+4.0/(d+1)
		sawNoH = sawNoH || !h
		cc := p.cc
		hv, delta := 1.0, 0.0
		if !h {
			hv, delta = 0, cc*(2-cc)
		}
		for j := range d {
			want := (1-cc)*pc0[j] + hv*math.Sqrt(cc*(2-cc)*p.muEff)*yw[j]
			if math.Abs(c.pc[j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("generation %d: p_c[%d] = %.17g, want %.17g (h_sigma %v)", g, j, c.pc[j], want, h)
			}
		}
		// Eq. (46): a negative weight times n/|C^(-1/2) y|^2 (pycma adds
		// 1e-9 to the length); the decay uses the weights before it.
		scale := make([]float64, p.lambda)
		var wSum float64
		for k, w := range p.weights {
			wSum += w
			scale[k] = 1
			if w < 0 {
				var l2 float64
				for _, v := range invSqrtOf(ys[k]) {
					l2 += v * v
				}
				l := math.Sqrt(l2) + 1e-9
				scale[k] = d / (l * l)
			}
		}
		for i := range d {
			for j := range d {
				want := (1+p.c1*delta-p.c1-p.cmu*wSum)*cov0.At(i, j) + p.c1*c.pc[i]*c.pc[j]
				for k, w := range p.weights {
					want += p.cmu * w * scale[k] * ys[k][i] * ys[k][j]
				}
				if math.Abs(c.cov.At(i, j)-want) > 1e-11*cov0.FrobeniusNorm() {
					t.Fatalf("generation %d: C[%d][%d] = %.17g, want %.17g", g, i, j, c.cov.At(i, j), want)
				}
			}
		}
		// Eq. (44) with pycma's clip of the exponent to [-1, 1].
		if want := sigma0 * math.Exp(max(-1, min(1, cs/p.ds*(math.Sqrt(norm2)/pycmaChiN(d)-1)))); math.Abs(c.sigma-want) > 1e-12*want {
			t.Fatalf("generation %d: sigma %.17g, want %.17g", g, c.sigma, want)
		}
	}
	if !sawNoH {
		t.Error("h_sigma was 1 in every generation, so its 0 branch is untested")
	}
}

// TestCMAESLazyDecomposition checks that C is decomposed every lazy gap
// (pycma's 0.1 lambda/((c_1 + c_mu) n) evaluations) and that A = B D then
// satisfies A A^T = C; in between, A (the sampling transformation) stays
// as it was. With the default population the gap is below one generation
// for any d up to about 100, so lambda = 2 makes it larger.
func TestCMAESLazyDecomposition(t *testing.T) {
	const d = 12
	c := cmaesOf(t, Config{Dim: d, Seed: 5, Lambda: 2})
	f := stEllipsoid(d, 1e4)
	var pop linalg.Dense
	var vals []float64
	decompositions := 0
	for g := 0; g < 200; g++ {
		var a0 linalg.Dense
		a0.CopyFrom(c.Transform())
		before := c.eigenEvals
		vals = stGeneration(t, c, f, &pop, vals)
		due := float64(c.evals-before) >= c.p.lazyGap
		if due != (c.eigenEvals == c.evals) {
			t.Fatalf("generation %d: evaluations %d, last decomposition at %d (before %d, gap %g)", g, c.evals, c.eigenEvals, before, c.p.lazyGap)
		}
		if !due {
			if !sameMatrix(&a0, c.Transform()) {
				t.Fatalf("generation %d: A changed without a decomposition", g)
			}
			continue
		}
		decompositions++
		var aat linalg.Dense
		aat.MulAAT(c.Transform())
		for i := range d {
			for j := 0; j <= i; j++ {
				if math.Abs(aat.At(i, j)-c.cov.At(i, j)) > 1e-12*c.cov.FrobeniusNorm() {
					t.Fatalf("generation %d: (A A^T)[%d][%d] = %g, C = %g", g, i, j, aat.At(i, j), c.cov.At(i, j))
				}
			}
		}
	}
	// d = 12, lambda = 2: gap = 2.65 evaluations, so every second generation.
	if decompositions != 100 {
		t.Errorf("%d decompositions in 200 generations, want 100", decompositions)
	}
}

// cmaesEvalsToTarget runs cmaes with the defaults (m0 uniform in [-3, 3]^d,
// sigma0 = 2) on f until a told value is at most target and returns the
// number of evaluations, or fails the test.
func cmaesEvalsToTarget(t *testing.T, f func([]float64) float64, d int, seed uint64, target float64, budget int) int {
	t.Helper()
	s := cmaesOf(t, Config{Dim: d, Seed: seed})
	var pop linalg.Dense
	var vals []float64
	for s.Evals() < budget && s.Stop() == "" {
		vals = stGeneration(t, s, f, &pop, vals)
		if slices.Min(vals) <= target {
			return s.Evals()
		}
	}
	t.Fatalf("seed %d: f <= %g not reached (%d evaluations, stop %q)", seed, target, s.Evals(), s.Stop())
	return 0
}

// TestCMAESPycma runs pycma 4.4's reference setting at d = 10 (x0 =
// (3, ..., 3), sigma0 = 2, seeds 1-15) to f <= 1e-8, counting evaluations
// in candidate order up to the first value at the target, and requires the
// median of each function within 10% of pycma's median over 15 runs with
// its default options (docs/ALGORITHMS.md Section 8): sphere 1448,
// ellipsoid 4174, rotated ellipsoid 4059, cigar 4079, discus 2972 and
// Rosenbrock 5456 (14 of 15 runs reached the target; the median is over
// the runs that did).
func TestCMAESPycma(t *testing.T) {
	const d, seeds = 10, 15
	for _, c := range []struct {
		spec  string
		pycma float64
	}{
		{"sphere", 1448}, {"ellipsoid", 4174}, {"rotellipsoid", 4059},
		{"cigar", 4079}, {"discus", 2972}, {"rosenbrock", 5456},
	} {
		p, err := objectives.Parse(c.spec, d)
		if err != nil {
			t.Fatal(err)
		}
		var evals []float64
		for seed := uint64(1); seed <= seeds; seed++ {
			if n := cmaesCandidatesToTarget(t, p.Eval, d, seed, 1e-8, 20000); n > 0 {
				evals = append(evals, float64(n))
			}
		}
		m := median(evals)
		t.Logf("%s: %d of %d runs, median %g evaluations (pycma %g)", c.spec, len(evals), seeds, m, c.pycma)
		if len(evals) < seeds-1 || math.Abs(m/c.pycma-1) > 0.1 {
			t.Errorf("%s: %d runs reached 1e-8 with median %g evaluations, want at least %d within 10%% of %g",
				c.spec, len(evals), m, seeds-1, c.pycma)
		}
	}
}

// cmaesCandidatesToTarget runs cmaes from x0 = (3, ..., 3) with sigma0 = 2
// and returns the number of evaluations up to and including the first
// candidate with f <= target, or 0 when the run stops or spends the budget
// before.
func cmaesCandidatesToTarget(t *testing.T, f func([]float64) float64, d int, seed uint64, target float64, budget int) int {
	t.Helper()
	s := cmaesOf(t, Config{Dim: d, Seed: seed, X0: slices.Repeat([]float64{3}, d), Sigma0: 2})
	var pop linalg.Dense
	var vals []float64
	for s.Evals() < budget && s.Stop() == "" {
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		vals = vals[:0]
		for k := range s.PopulationSize() {
			v := f(pop.RawRow(k))
			if v <= target {
				return s.Evals() + k + 1
			}
			vals = append(vals, v)
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
	}
	return 0
}

// TestCMAESRotationInvariance compares the evaluations to 1e-8 on the
// ellipsoid (condition 1e6, d = 10) and on the same ellipsoid rotated by a
// random rotation: CMA-ES is rotation invariant, so the medians over 11
// seeds agree within noise (their spread is a few percent).
func TestCMAESRotationInvariance(t *testing.T) {
	const d, seeds = 10, 11
	rot, err := objectives.Parse("rotellipsoid:seed=3", d)
	if err != nil {
		t.Fatal(err)
	}
	var axis, rotated []float64
	for seed := uint64(1); seed <= seeds; seed++ {
		axis = append(axis, float64(cmaesEvalsToTarget(t, stEllipsoid(d, 1e6), d, seed, 1e-8, 12000)))
		rotated = append(rotated, float64(cmaesEvalsToTarget(t, rot.Eval, d, seed+100, 1e-8, 12000)))
	}
	ma, mr := median(axis), median(rotated)
	t.Logf("median evaluations to 1e-8: ellipsoid %g, rotated ellipsoid %g", ma, mr)
	if math.Abs(mr/ma-1) > 0.1 {
		t.Errorf("rotated ellipsoid needs %g evaluations (median), the ellipsoid %g: not within 10%%", mr, ma)
	}
}

// noise is a deterministic function of x that ignores any structure:
// 1 + a uniform value in [0, 1) hashed from the bits of x.
func noise(x []float64) float64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range x {
		h ^= math.Float64bits(v)
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return 1 + float64(h>>11)/(1<<53)
}

// TestCMAESStopCriteria makes each criterion of docs/ALGORITHMS.md Section 8
// fire on a constructed case, with the generation at which it must fire
// where the construction fixes it.
func TestCMAESStopCriteria(t *testing.T) {
	flat := func([]float64) float64 { return 1 }
	r45 := linalg.NewDense(2, 2, []float64{math.Sqrt2 / 2, -math.Sqrt2 / 2, math.Sqrt2 / 2, math.Sqrt2 / 2})
	var thin linalg.Dense // R diag(1e-6, 1): cond(C) = 1e12, its thin axis is diagonal
	thin.Mul(r45, linalg.NewDense(2, 2, []float64{1e-6, 0, 0, 1}))
	for _, c := range []struct {
		what string
		cfg  Config
		f    func([]float64) float64
		want Reason
		gen  int // the generation after which it fires; 0: not fixed
	}{
		// tolfun: flat values and a flat history.
		{"flat", Config{Dim: 3}, flat, ReasonTolFun, 1},
		// tolfunhist: with tolfun off, after 10 flat best values.
		{"flat, TolFun off", Config{Dim: 3, TolFun: -1}, flat, ReasonTolFunHist, 10},
		// tolx: values ~1e20 |x| keep every f-difference large.
		{"steep cone", Config{Dim: 4}, func(x []float64) float64 { return 1e20 * math.Sqrt(stSphere(x)) }, ReasonTolX, 0},
		// tolconditioncov: cond(A0 A0^T) = 1e32.
		{"ill-conditioned A0", Config{Dim: 2, A0: linalg.NewDense(2, 2, []float64{1e8, 0, 0, 1e-8})}, stSphere, ReasonConditionCov, 1},
		// tolupsigma: sigma/sigma0 = O(1) > 1e20 max(D) = 1e-1.
		{"creeping", Config{Dim: 2, A0: linalg.NewDense(2, 2, []float64{1e-21, 0, 0, 1e-21})}, stSphere, ReasonSigmaTooLarge, 1},
		// sigma below 1e-300.
		{"tiny sigma", Config{Dim: 2, Sigma0: 1e-301, X0: []float64{1, 1}}, stSphere, ReasonSigmaTooSmall, 1},
		// noeffectaxis: axis 0 (generation 0 mod 2) has length 1e-6 at
		// m = 1e12, while both coordinates have standard deviation 0.7.
		{"thin diagonal axis", Config{Dim: 2, TolFun: -1, Sigma0: 1, X0: []float64{1e12, 1e12}, A0: &thin}, flat, ReasonNoEffectAxis, 1},
		// noeffectcoord: coordinate 1 at 1e20 with sigma 1.
		{"huge coordinate", Config{Dim: 2, TolFun: -1, Sigma0: 1, X0: []float64{0, 1e20}}, flat, ReasonNoEffectCoord, 1},
		// tolstagnation: random values never improve in the median.
		{"noise", Config{Dim: 2, Seed: 2}, noise, ReasonStagnation, 0},
	} {
		s := cmaesOf(t, c.cfg)
		var pop linalg.Dense
		var vals []float64
		for g := 0; g < 20000 && s.Stop() == ""; g++ {
			vals = stGeneration(t, s, c.f, &pop, vals)
		}
		if s.Stop() != c.want || (c.gen > 0 && s.Generation() != c.gen) {
			t.Errorf("%s: Stop() = %q after %d generations, want %q after %d", c.what, s.Stop(), s.Generation(), c.want, c.gen)
		}
		switch c.want {
		case ReasonStagnation:
			if float64(s.Generation()) <= s.stag.minGen || s.stag.best.size() <= 100 {
				t.Errorf("stagnation after %d generations with %d records", s.Generation(), s.stag.best.size())
			}
		case ReasonTolX:
			if !(s.Sigma()*math.Sqrt(s.cov.At(0, 0)) < tolX) || !(s.Sigma()*math.Sqrt(s.cov.At(0, 0)) > 1e-3*tolX) {
				t.Errorf("tolx at sigma sqrt(C_00) = %g", s.Sigma()*math.Sqrt(s.cov.At(0, 0)))
			}
		}
		if err := s.Ask(&pop); err == nil {
			t.Errorf("%s: Ask after the stop: no error", c.what)
		}
	}
}

// TestCMAESStagnationWindows checks the median test of tolstagnation on
// constructed records: it needs more than 100 records and compares the
// newest l = max(tolstagnation/10, n/10) records with the l before them.
func TestCMAESStagnationWindows(t *testing.T) {
	c := &cmaesOf(t, Config{Dim: 2}).stag // tolstagnation 147 generations: l >= 14
	improving := func(n int) {
		c.best.count, c.median.count = 0, 0
		for k := range n {
			c.best.push(float64(n - k))
			c.median.push(float64(2 * (n - k)))
		}
	}
	improving(101)
	if c.medianConditions() {
		t.Error("improving records: stagnation")
	}
	// The newest 20 (l = 101/10 = 10 ... here max(14.7, 10.1) -> 14) worse
	// than the 14 before them: stagnation; with 100 records: too few.
	for _, n := range []int{100, 101, 400} {
		improving(n)
		l := int(max(14.7, float64(n)/10))
		for k := range l {
			c.best.buf[(c.best.count-1-k)%stagnationRecords] = 1e3
			c.median.buf[(c.median.count-1-k)%stagnationRecords] = 1e3
		}
		if got, want := c.medianConditions(), n > 100; got != want {
			t.Errorf("%d records, newest %d worse: stagnation %v, want %v", n, l, got, want)
		}
		// Only the best values stagnate: no stop.
		for k := range l {
			c.median.buf[(c.median.count-1-k)%stagnationRecords] = -1
		}
		if c.medianConditions() {
			t.Errorf("%d records: medians improve, but stagnation", n)
		}
	}
}

// TestCMAESNonFinite checks Section 13 item 8: NaN ranks last; a
// generation without a finite value keeps m, C and the paths and halves
// sigma, ten in a row stop the run; -Inf stops it as the best value.
func TestCMAESNonFinite(t *testing.T) {
	const d = 4
	s := cmaesOf(t, Config{Dim: d, Seed: 6})
	var pop linalg.Dense
	var vals []float64
	for g := 0; g < 5; g++ {
		vals = stGeneration(t, s, stSphere, &pop, vals)
	}
	// NaN in 3 of the 8 rows: the mean is the weighted mean of the best
	// 4 finite rows.
	m := s.Mean(nil)
	if err := s.Ask(&pop); err != nil {
		t.Fatal(err)
	}
	vals = vals[:0]
	for i := range s.PopulationSize() {
		v := stSphere(pop.RawRow(i))
		if i%3 == 0 {
			v = math.NaN()
		}
		vals = append(vals, v)
	}
	finite := []int{}
	for i, v := range vals {
		if !math.IsNaN(v) {
			finite = append(finite, i)
		}
	}
	slices.SortFunc(finite, func(a, b int) int { return compareValues(vals[a], vals[b]) })
	if err := s.Tell(vals); err != nil {
		t.Fatal(err)
	}
	for j := range d {
		want := 0.0
		for i, w := range s.p.weights[:s.p.mu] {
			want += w * pop.At(finite[i], j)
		}
		if math.Abs(s.mean[j]-want) > 1e-12*(1+math.Abs(want)) || s.mean[j] == m[j] {
			t.Fatalf("with NaN rows: m_%d = %g, want %g", j, s.mean[j], want)
		}
	}

	nan := func([]float64) float64 { return math.NaN() }
	for g := 1; g <= nonFiniteMax; g++ {
		before, _ := s.MarshalBinary()
		m, sigma := s.Mean(nil), s.Sigma()
		var cov linalg.Dense
		cov.CopyFrom(&s.cov)
		ps, pc := slices.Clone(s.ps), slices.Clone(s.pc)
		vals = stGeneration(t, s, nan, &pop, vals)
		if !slices.Equal(m, s.Mean(nil)) || s.Sigma() != sigma/2 || !sameMatrix(&cov, &s.cov) ||
			!slices.Equal(ps, s.ps) || !slices.Equal(pc, s.pc) {
			t.Fatalf("rejected generation %d changed m, C or a path, or sigma %g -> %g", g, sigma, s.Sigma())
		}
		after, _ := s.MarshalBinary()
		if bytes.Equal(before, after) {
			t.Fatal("a rejected generation changed nothing (counters, sigma)")
		}
		want := Reason("")
		if g == nonFiniteMax {
			want = ReasonNotFinite
		}
		if s.Stop() != want {
			t.Fatalf("after %d non-finite generations: Stop() = %q, want %q", g, s.Stop(), want)
		}
	}
	if err := s.Ask(&pop); err == nil {
		t.Error("Ask after the stop: no error")
	}

	// -Inf: the best value, and the run stops.
	stMinusInfStops(t, cmaesOf(t, Config{Dim: 3, Seed: 1}))
}

// TestCMAESResume saves runs at generations 37 and 520 (with and without
// a pending Ask; the second after the tolfun history has wrapped and with
// more than 100 stagnation records), restores them into fresh values and
// continues: every run is bit-identical to the uninterrupted one, up to
// its stop.
func TestCMAESResume(t *testing.T) {
	rot, err := objectives.Parse("rotellipsoid", 5)
	if err != nil {
		t.Fatal(err)
	}
	restore := func(data []byte) Strategy {
		s := stNew(t, "cmaes", Config{Dim: 3, Lambda: 20, Seed: 9})
		if err := s.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		what     string
		cfg      Config
		f        func([]float64) float64
		gens     int
		resumeAt int
	}{
		{"rotated ellipsoid", Config{Dim: 5, Seed: 1}, rot.Eval, 150, 37},
		{"rotated ellipsoid, lambda 13", Config{Dim: 5, Seed: 1, Lambda: 13}, rot.Eval, 100, 37},
		{"noise until stagnation", Config{Dim: 2, Seed: 2}, noise, 20000, 510},
	} {
		want := stTrajectory(t, stNew(t, "cmaes", c.cfg), c.f, c.gens, -1, false, nil)
		for _, pending := range []bool{false, true} {
			got := stTrajectory(t, stNew(t, "cmaes", c.cfg), c.f, c.gens, c.resumeAt, pending, restore)
			if i := slices.Compare(want, got); i != 0 {
				for g := range want {
					if g >= len(got) || want[g] != got[g] {
						t.Errorf("%s, pending %v: generation %d differs", c.what, pending, g)
						break
					}
				}
			}
		}
		t.Logf("%s: %d generations, stop %q", c.what, len(want)-2, want[len(want)-1])
	}
}

// TestCMAESUnmarshalErrors checks the field cmaes writes before the shared
// configuration: a corrupted Lambda is an error that names it.
func TestCMAESUnmarshalErrors(t *testing.T) {
	s := cmaesOf(t, Config{Dim: 3, Seed: 1})
	data, _ := s.MarshalBinary()
	head := len(stateHeader(CMAES))
	bad := slices.Clone(data)
	binary.LittleEndian.PutUint64(bad[head:], 1) // lambda = 1
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[:len(bad)-4]))
	before, _ := s.MarshalBinary()
	err := s.UnmarshalBinary(bad)
	if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), "Config.Lambda = 1") {
		t.Errorf("lambda 1: %v", err)
	}
	if after, _ := s.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a failed UnmarshalBinary changed the strategy")
	}
	// A Lambda of 4 changes the population of the restored strategy.
	binary.LittleEndian.PutUint64(bad[head:], 4)
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[:len(bad)-4]))
	if err := s.UnmarshalBinary(bad); err != nil || s.PopulationSize() != 4 {
		t.Errorf("lambda 4: %v, PopulationSize %d", err, s.PopulationSize())
	}
}

// TestCMAESZeroAllocs checks that generations allocate nothing in steady
// state, including the decompositions of C and the history records. The
// objective is noise, so that no stop criterion fires in these 221
// generations (tolstagnation needs more than 500).
func TestCMAESZeroAllocs(t *testing.T) {
	for _, cfg := range []Config{{Dim: 10, Seed: 1}, {Dim: 3, Lambda: 20, Seed: 2}} {
		c := cmaesOf(t, cfg)
		var pop linalg.Dense
		vals := make([]float64, c.PopulationSize())
		generation := func() {
			if err := c.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			for i := range c.PopulationSize() {
				vals[i] = noise(pop.RawRow(i))
			}
			if err := c.Tell(vals); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 {
			generation()
		}
		evals, records := c.eigenEvals, c.stag.best.count
		if allocs := testing.AllocsPerRun(200, generation); allocs != 0 {
			t.Errorf("d=%d: %v allocations per generation, want 0", cfg.Dim, allocs)
		}
		if c.Stop() != "" || c.eigenEvals == evals || c.stag.best.count == records {
			t.Errorf("d=%d: stop %q; decomposition at %d, %d records: not every path was measured", cfg.Dim, c.Stop(), c.eigenEvals, c.stag.best.count)
		}
	}
}

// BenchmarkCMAESDecomposition measures the lazy eigendecomposition of C
// (C = B D^2 B^T with vectors, then A = B D) and reports its cost per
// evaluation, amortised over the lazy gap 0.5 lambda/((c_1 + c_mu) d)
// evaluations. BenchmarkGeneration/cmaes at d = 1000 runs too few
// generations to include it reliably; the two add up to cmaes's cost.
func BenchmarkCMAESDecomposition(b *testing.B) {
	for _, d := range benchDims {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			c := new(cmaes)
			cfg, err := resolve(CMAES, Config{Dim: d, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			c.setup(cfg)
			// A random covariance matrix G G^T / d.
			g := linalg.NewDense(d, d, nil)
			st := rng.NewStream(rng.KeyFromSeed(1), 1, 0, 0)
			for i := range d {
				st.FillNormal(g.RawRow(i))
			}
			c.cov.MulAAT(g)
			c.cov.Scale(1/float64(d), &c.cov)
			for b.Loop() {
				if !c.decompose() {
					b.Fatal("decomposition failed")
				}
			}
			perDecomposition := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perDecomposition/c.p.lazyGap, "ns/eval")
		})
	}
}

// The (mu/mu_w, lambda)-CMA-ES derives its population size from the
// dimension (lambda = 4 + floor(3 ln d)) unless Config.Lambda sets it.
func ExampleConfig_lambda() {
	s, err := New("cmaes", Config{Dim: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name(), s.PopulationSize())
	s, _ = New("cmaes", Config{Dim: 10, Seed: 1, Lambda: 40})
	fmt.Println(s.Name(), s.PopulationSize())
	target := 1e-10
	res, err := Minimize(context.Background(), Func(stSphere), s, Options{MaxEvals: 1e5, Target: &target})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Reason)
	_, err = New("cmaes", Config{Dim: 10, Lambda: 1})
	fmt.Println(err)
	// Output:
	// cmaes 10
	// cmaes 40
	// target reached
	// es: Config.Lambda = 1: cmaes needs at least 2 (mu = floor(lambda/2) parents)
}

// TestCMAESActivePositiveDefinite runs the active update on the cigar with
// condition 1e6 at d = 40, where the negative weights remove variance
// along the long axis fastest: C stays positive definite in every
// generation (its decomposition, every generation at this d, finds a
// positive smallest eigenvalue) and the run reaches f <= 1e-8.
func TestCMAESActivePositiveDefinite(t *testing.T) {
	const d = 40
	p, err := objectives.Parse("cigar", d)
	if err != nil {
		t.Fatal(err)
	}
	c := cmaesOf(t, Config{Dim: d, Seed: 1, X0: slices.Repeat([]float64{3}, d), Sigma0: 2})
	var pop linalg.Dense
	var vals []float64
	for c.Stop() == "" && c.Evals() < 40000 {
		vals = stGeneration(t, c, p.Eval, &pop, vals)
		if c.eigenEvals != c.evals || !(c.eigenvalues[0] > 0) {
			t.Fatalf("generation %d: decomposed at %d of %d evaluations, smallest eigenvalue %g",
				c.gen, c.eigenEvals, c.evals, c.eigenvalues[0])
		}
		if slices.Min(vals) <= 1e-8 {
			t.Logf("f <= 1e-8 after %d evaluations, condition of C %.3g", c.evals, c.eigenvalues[d-1]/c.eigenvalues[0])
			return
		}
	}
	t.Fatalf("stopped with %q after %d evaluations, f = %g", c.Stop(), c.Evals(), slices.Min(vals))
}
