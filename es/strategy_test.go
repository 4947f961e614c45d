package es

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/rng"
)

// stSphere is sum x_i^2.
func stSphere(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

// stEllipsoid returns sum cond^((i-1)/(d-1)) x_i^2.
func stEllipsoid(d int, cond float64) func([]float64) float64 {
	c := make([]float64, d)
	for i := range c {
		c[i] = math.Pow(cond, float64(i)/float64(d-1))
	}
	return func(x []float64) float64 {
		var s float64
		for i, v := range x {
			s += c[i] * v * v
		}
		return s
	}
}

// stNew returns New(name, cfg) or fails the test.
func stNew(t testing.TB, name string, cfg Config) Strategy {
	t.Helper()
	s, err := New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stGeneration asks one generation, evaluates it with f and tells the
// values, which it returns (in a reused slice).
func stGeneration(t testing.TB, s Strategy, f func([]float64) float64, pop *linalg.Dense, vals []float64) []float64 {
	t.Helper()
	if err := s.Ask(pop); err != nil {
		t.Fatal(err)
	}
	r, _ := pop.Dims()
	vals = slices.Grow(vals[:0], r)[:r]
	for i := range vals {
		vals[i] = f(pop.RawRow(i))
	}
	if err := s.Tell(vals); err != nil {
		t.Fatal(err)
	}
	return vals
}

// stRunTo runs s on f until a value reaches target, maxEvals evaluations
// are spent or s stops, and returns the best value and the evaluations.
func stRunTo(t testing.TB, s Strategy, f func([]float64) float64, target float64, maxEvals int) (best float64, evals int) {
	t.Helper()
	var pop linalg.Dense
	var vals []float64
	best = math.Inf(1)
	for evals < maxEvals && best > target && s.Stop() == "" {
		vals = stGeneration(t, s, f, &pop, vals)
		best = min(best, slices.Min(vals))
		evals += len(vals)
	}
	return best, evals
}

// stGap returns x -> f(x) - f*, the distance to the optimum value of p.
func stGap(p objectives.Problem) func([]float64) float64 {
	_, fopt, _ := p.Optimum()
	return func(x []float64) float64 { return p.Eval(x) - fopt }
}

// stReload saves s and returns what Load makes of the state.
func stReload(t testing.TB, s Strategy) Strategy {
	t.Helper()
	data, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stLockstep runs a and its restored copy b on f side by side until a
// stops or gens generations pass: every generation both must ask the same
// points (and same, if not nil, must hold), and at the end their stop
// reasons and saved states must be equal.
func stLockstep(t *testing.T, a, b Strategy, f func([]float64) float64, gens int, same func() bool) {
	t.Helper()
	var pa, pb linalg.Dense
	for g := 0; g < gens && a.Stop() == ""; g++ {
		askTellGeneration(t, a, f, &pa)
		askTellGeneration(t, b, f, &pb)
		if matrixLines(&pa) != matrixLines(&pb) || (same != nil && !same()) {
			t.Fatalf("generation %d: the restored run differs", a.Generation())
		}
	}
	sa, _ := a.MarshalBinary()
	sb, _ := b.MarshalBinary()
	if a.Stop() != b.Stop() || string(sa) != string(sb) {
		t.Fatalf("final states differ (stop %q, %q)", a.Stop(), b.Stop())
	}
}

func TestNewErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	singular := linalg.NewDense(2, 2, []float64{1, 2, 2, 4})
	for _, c := range []struct {
		strategy string
		cfg      Config
		want     string
	}{
		{"nope", Config{Dim: 3}, `unknown strategy "nope"`},
		{"hees", Config{Dim: 1}, "Config.Dim = 1"},
		{"hees14", Config{Dim: 1}, "Config.Dim = 1"},
		{"es11", Config{Dim: 0}, "Config.Dim = 0"},
		{"hees", Config{Dim: 3, Sigma0: -1}, "Config.Sigma0 = -1"},
		{"hees", Config{Dim: 3, Sigma0: nan}, "Config.Sigma0 = NaN"},
		{"cma11", Config{Dim: 3, Sigma0: inf}, "Config.Sigma0 = +Inf"},
		{"hees", Config{Dim: 3, X0: []float64{1, 2}}, "Config.X0 has length 2"},
		{"es11", Config{Dim: 2, X0: []float64{1, nan}}, "Config.X0[1] = NaN"},
		{"hees14", Config{Dim: 2, X0: []float64{inf, 1}}, "Config.X0[0] = +Inf"},
		{"hees", Config{Dim: 3, Box: -1}, "Config.Box = -1"},
		{"hees", Config{Dim: 3, Pairs: -1}, "Config.Pairs = -1"},
		{"hees14", Config{Dim: 3, Pairs: 4}, "Config.Pairs = 4"},
		{"es11", Config{Dim: 3, Pairs: 1}, "Config.Pairs = 1"},
		{"cma11", Config{Dim: 3, Pairs: 2}, "Config.Pairs = 2"},
		{"hees", Config{Dim: 3, Kappa: 0.5}, "Config.Kappa = 0.5"},
		{"hees", Config{Dim: 3, EtaA: -1}, "Config.EtaA = -1"},
		{"es11", Config{Dim: 3, Kappa: 3}, "Config.Kappa"},
		{"cma11", Config{Dim: 3, EtaA: 1}, "Config.EtaA"},
		{"hees", Config{Dim: 3, CS: 2}, "Config.CS = 2"},
		{"hees", Config{Dim: 3, DS: -2}, "Config.DS = -2"},
		{"hees14", Config{Dim: 3, CS: 0.3}, "Config.CS"},
		{"hees", Config{Dim: 3, CSigma: 1.5}, "Config.CSigma"},
		{"es11", Config{Dim: 3, CSigma: 0.9}, "Config.CSigma = 0.9"},
		{"hees", Config{Dim: 3, TolFun: nan}, "Config.TolFun is NaN"},
		{"hees", Config{Dim: 3, A0: linalg.NewIdentity(2)}, "Config.A0 is 2×2"},
		{"cma11", Config{Dim: 2, A0: singular}, "Config.A0 is singular"},
		{"hees", Config{Dim: 2, A0: linalg.NewDense(2, 2, []float64{1, 0, 0, inf})}, "Config.A0[1][1] = +Inf"},
		{"es11", Config{Dim: 2, A0: linalg.NewIdentity(2)}, "Config.A0"},
		{"es11", Config{Dim: 3, Sigma0: 1e300}, "Config.Sigma0 = 1e+300: must be at most 1e+150"},
		{"cmaes", Config{Dim: 2, Sigma0: 1e100, A0: linalg.NewDense(2, 2, []float64{1, 0, -1e60, 1})}, "Config.Sigma0 = 1e+100 times the largest entry of Config.A0 is 1e+160"},
		{"es11", Config{Dim: 1 << 30}, "Config.Dim = 1073741824 with 1 candidates per generation: es11 would need about 128 GiB of memory"},
		{"cmaes", Config{Dim: 14000}, "more than MaxMemory = 8 GiB"},
		{"hees", Config{Dim: 1 << 20}, "Config.Dim = 1048576 with 45 candidates per generation (Config.Pairs): hees would need about 4.92e+04 GiB"},
		{"hees", Config{Dim: 1 << 20}, "in this dimension es11 and lmhees would fit"},
		{"cmaes", Config{Dim: 13370, Lambda: 40}, "Config.Dim = 13370 with 40 candidates per generation (Config.Lambda): cmaes would need about 8.01 GiB"},
		{"hees", Config{Dim: 1000, Pairs: 1 << 20}, "Config.Dim = 1000 with 2097153 candidates per generation (Config.Pairs): hees would need about 62.5 GiB"},
		{"hees", Config{Dim: 1000, Pairs: 5000}, "with 10001 candidates per generation (Config.Pairs): 10001000 coordinates per generation exceed the bound of 4194304"},
		{"hees2", Config{Dim: 1000, Pairs: 5000}, "with 10001 candidates per generation (Config.Pairs): 10001000 coordinates per generation exceed the bound of 4194304"},
		{"cmaes", Config{Dim: 100, Lambda: 100000}, "with 100000 candidates per generation (Config.Lambda): 10000000 coordinates"},
	} {
		s, err := New(c.strategy, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || s != nil {
			t.Errorf("New(%q, %+v) = %v, %v; want an error containing %q", c.strategy, c.cfg, s, err, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 4})
		if s.Name() != name || s.Dim() != 4 {
			t.Errorf("%s: Name %q Dim %d", name, s.Name(), s.Dim())
		}
	}
}

// TestTellErrors checks Tell before Ask and Tell with the wrong count: an
// error, and the state is unchanged.
// TestAskNil: Ask with a nil matrix is an error, not a panic, for every
// strategy and IPOP.
func TestAskNil(t *testing.T) {
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 3, Seed: 5})
		w, err := NewIPOP(name, Config{Dim: 3, Seed: 5}, IPOPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Strategy{s, w} {
			if err := s.Ask(nil); err == nil || !strings.Contains(err.Error(), "got nil") {
				t.Errorf("%s: Ask(nil) = %v, want an error", s.Name(), err)
			}
		}
	}
}

func TestTellErrors(t *testing.T) {
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 3, Seed: 5})
		if err := s.Tell([]float64{1}); err == nil || !strings.Contains(err.Error(), "without a pending Ask") {
			t.Errorf("%s: Tell before Ask: %v", name, err)
		}
		var pop linalg.Dense
		var vals []float64
		for g := 0; g < 3; g++ {
			vals = stGeneration(t, s, stSphere, &pop, vals)
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		before, _ := s.MarshalBinary()
		r, _ := pop.Dims()
		for _, n := range []int{0, r - 1, r + 1} {
			err := s.Tell(make([]float64, n))
			if err == nil || !strings.Contains(err.Error(), "values for the") {
				t.Errorf("%s: Tell with %d of %d values: %v", name, n, r, err)
			}
		}
		after, _ := s.MarshalBinary()
		if !bytes.Equal(before, after) {
			t.Errorf("%s: a rejected Tell changed the state", name)
		}
	}
}

// TestAskTwice checks that asking again without a Tell gives the same
// candidates, and that the generation counts and evaluation counts follow
// the layout of each strategy.
func TestAskTwice(t *testing.T) {
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 6, Seed: 2})
		var pop, again linalg.Dense
		var vals []float64
		evals := 0
		for g := 0; g < 5; g++ {
			if err := s.Ask(&pop); err != nil {
				t.Fatal(err)
			}
			if err := s.Ask(&again); err != nil {
				t.Fatal(err)
			}
			r, c := pop.Dims()
			want := s.PopulationSize()
			// The elitist strategies ask for the initial mean alone first.
			if elitist := name == "es11" || name == "hees14" || name == "cma11"; g == 0 && elitist {
				want = 1
			}
			// lqhees asks for part of its population in a round while its
			// model predicts well.
			if name == LQHEES && r >= 1 && r <= want {
				want = r
			}
			if r != want || c != 6 {
				t.Fatalf("%s generation %d: %d×%d candidates, want %d×6", name, g, r, c, want)
			}
			for i := 0; i < r; i++ {
				if !slices.Equal(pop.RawRow(i), again.RawRow(i)) {
					t.Errorf("%s generation %d: row %d differs on the second Ask", name, g, i)
				}
			}
			vals = vals[:0]
			for i := 0; i < r; i++ {
				vals = append(vals, stSphere(pop.RawRow(i)))
			}
			if err := s.Tell(vals); err != nil {
				t.Fatal(err)
			}
			evals += r
			if s.Generation() != g+1 || s.Evals() != evals {
				t.Errorf("%s: Generation %d Evals %d, want %d %d", name, s.Generation(), s.Evals(), g+1, evals)
			}
		}
	}
}

// TestInitialMean checks the drawn X0: inside [-Box, Box]^d, a function of
// the seed, and X0 and Sigma0 are used when given.
func TestInitialMean(t *testing.T) {
	for _, name := range Names() {
		a := stNew(t, name, Config{Dim: 50, Seed: 7, Box: 2}).Mean(nil)
		b := stNew(t, name, Config{Dim: 50, Seed: 7, Box: 2}).Mean(nil)
		c := stNew(t, name, Config{Dim: 50, Seed: 8, Box: 2}).Mean(nil)
		if !slices.Equal(a, b) || slices.Equal(a, c) {
			t.Errorf("%s: X0 is not a function of the seed", name)
		}
		lo, hi := slices.Min(a), slices.Max(a)
		if lo < -2 || hi > 2 || hi-lo < 2 {
			t.Errorf("%s: drawn X0 spans [%g, %g], want a spread inside [-2, 2]", name, lo, hi)
		}
		x0 := []float64{1, 2, 3}
		s := stNew(t, name, Config{Dim: 3, X0: x0, Sigma0: 0.25})
		x0[0] = 99 // New copies X0
		if m := s.Mean(nil); !slices.Equal(m, []float64{1, 2, 3}) || s.Sigma() != 0.25 {
			t.Errorf("%s: mean %v sigma %v", name, m, s.Sigma())
		}
		if x, f := s.Best(); x != nil || !math.IsInf(f, 1) {
			t.Errorf("%s: Best before any value: %v %v", name, x, f)
		}
		if a0 := TransformOf(s); a0 != nil {
			if r, c := a0.Dims(); r != 3 || c != 3 || a0.Trace() != 3 || a0.At(0, 1) != 0 {
				t.Errorf("%s: initial A is not the identity", name)
			}
		}
	}
}

func TestRankOrder(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := []float64{3, nan, -inf, 1, inf, 1, nan, -2, 3}
	order := make([]int, len(f))
	rankOrder(order, f)
	want := []int{2, 7, 3, 5, 0, 8, 1, 4, 6}
	if !slices.Equal(order, want) {
		t.Errorf("rankOrder = %v, want %v", order, want)
	}
	if allocs := testing.AllocsPerRun(100, func() { rankOrder(order, f) }); allocs != 0 {
		t.Errorf("rankOrder allocates %v times", allocs)
	}
}

// TestMirroredPairs checks that the full HE-ES asks its mean in row 0 and
// exactly mirrored pairs, along directions that are orthogonal within a
// block, with lengths |b_k| and A u_k as used.
func TestMirroredPairs(t *testing.T) {
	for _, c := range []struct{ d, pairs int }{{10, 0}, {2, 0}, {3, 7}} {
		s := stNew(t, "hees", Config{Dim: c.d, Pairs: c.pairs, Seed: 11})
		h := s.(*hees)
		var pop linalg.Dense
		var vals []float64
		for g := 0; g < 4; g++ {
			vals = stGeneration(t, s, stEllipsoid(c.d, 100), &pop, vals)
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		m := s.Mean(nil)
		if !slices.Equal(pop.RawRow(0), m) {
			t.Errorf("d=%d: row 0 is not the mean", c.d)
		}
		n := h.pairs
		for k := 0; k < n; k++ {
			// x^± = m ± sigma |b_k| A u_k with one rounded step for both.
			plus, minus := pop.RawRow(2*k+1), pop.RawRow(2*k+2)
			au := make([]float64, c.d)
			linalg.MulVec(au, TransformOf(s), h.ad.u.RawRow(k))
			for j := range m {
				step := float64(s.Sigma() * h.ad.norms[k] * au[j])
				if plus[j] != m[j]+step || minus[j] != m[j]-step {
					t.Fatalf("d=%d pair %d: not m ± sigma A b_k in coordinate %d", c.d, k, j)
				}
			}
		}
		u := &h.ad.u
		for k := 0; k < n; k++ {
			for l := 0; l <= k; l++ {
				want := 0.0
				if k == l {
					want = 1
				}
				dot := linalg.Dot(u.RawRow(k), u.RawRow(l))
				if k/c.d == l/c.d && math.Abs(dot-want) > 1e-14 {
					t.Errorf("d=%d: u_%d . u_%d = %g, want %g", c.d, k, l, dot, want)
				}
			}
		}
	}
}

// TestDirectionLengths checks that the sampling keeps the lengths of the
// Gaussian vectors (chi_d distributed): their mean over many generations is
// close to E|N(0, I_d)|.
func TestDirectionLengths(t *testing.T) {
	const d, gens = 8, 400
	var ad adaptation
	ad.setup(12, d, 3, 0.5)
	a := linalg.NewIdentity(d)
	var sum float64
	for g := 0; g < gens; g++ {
		if err := ad.sample(rng.KeyFromSeed(3), g, a); err != nil {
			t.Fatal(err)
		}
		for _, n := range ad.norms {
			sum += n
		}
	}
	mean := sum / (gens * 12)
	// E|N(0, I_8)| = sqrt(2) Gamma(4.5)/Gamma(4) = 2.7418...; the standard
	// error of the mean of 4800 lengths (sd about 0.7) is about 0.01.
	want := math.Sqrt2 * math.Gamma(4.5) / math.Gamma(4)
	if math.Abs(mean-want) > 0.05 {
		t.Errorf("mean length %g, want %g", mean, want)
	}
}

// TestComputeGClosedForm checks computeG in the analysed setting (eta_A =
// 1, no trust region) against the corrected closed form gamma_1 =
// (h2/h1)^(1/4), gamma_2 = (h1/h2)^(1/4) (docs/ALGORITHMS.md Section 1), and the
// trust region's bounds on each factor.
func TestComputeGClosedForm(t *testing.T) {
	alpha := make([]float64, 2)
	for _, h := range [][2]float64{{1, 16}, {3.5, 0.01}, {2, 2}} {
		sumQ, ok := computeG(alpha, h[:], math.Inf(1), 1, 1)
		g1 := math.Pow(h[1]/h[0], 0.25)
		g2 := math.Pow(h[0]/h[1], 0.25)
		if !ok || math.Abs(alpha[0]+1-g1) > 1e-15*g1 || math.Abs(alpha[1]+1-g2) > 1e-15*g2 || math.Abs(sumQ) > 1e-15 {
			t.Errorf("h = %v: factors %v %v sum q %g, want %v %v 0", h, alpha[0]+1, alpha[1]+1, sumQ, g1, g2)
		}
	}
	// A non-positive estimate leaves A unchanged without a trust region
	// (Section 13 item 2), but is raised to max/kappa with one.
	if _, ok := computeG(alpha, []float64{1, -1}, math.Inf(1), 1, 1); ok {
		t.Error("no trust region: G != I with h = (1, -1)")
	}
	if _, ok := computeG(alpha, []float64{-1, 0}, 3, 0.5, 1); ok {
		t.Error("G != I with no positive estimate")
	}
	h := []float64{5, -1, 1e-9, 0.7, math.NaN(), 4.9}
	alpha = make([]float64, len(h))
	sumQ, ok := computeG(alpha, h, 3, 0.5, 1)
	lo, hi := math.Pow(3, -0.25), math.Pow(3, 0.25)
	for k, a := range alpha {
		f := a + 1
		if !ok || f < lo*(1-1e-15) || f > hi*(1+1e-15) {
			t.Errorf("trust region: factor %d is %g, want in [%g, %g]", k, f, lo, hi)
		}
	}
	if alpha[4] != 0 || math.Abs(sumQ) > 1e-15 {
		t.Errorf("NaN estimate: alpha %g, sum q %g; want factor 1 and q summing to 0", alpha[4], sumQ)
	}
	// Two blocks: alpha carries the factor 1/B.
	alpha = make([]float64, 2)
	computeG(alpha, []float64{1, 16}, math.Inf(1), 1, 2)
	if want := (math.Pow(16, 0.25) - 1) / 2; math.Abs(alpha[0]-want) > 1e-15 {
		t.Errorf("B = 2: alpha_1 = %g, want %g", alpha[0], want)
	}
}

// TestDeterminantNormalisation runs the full HE-ES with several blocks
// (d = 2 has lambda~ = 3, B = 2, det G > 1) and with doubled pairs: |det A|
// stays 1 within 1e-8 (Section 13 item 5), and the incrementally tracked
// log|det A| agrees with an LU determinant.
func TestDeterminantNormalisation(t *testing.T) {
	for _, c := range []struct{ d, pairs int }{{2, 0}, {3, 8}, {5, 0}} {
		s := stNew(t, "hees", Config{Dim: c.d, Pairs: c.pairs, Seed: 4, TolFun: -1})
		h := s.(*hees)
		var pop linalg.Dense
		var vals []float64
		renormalised := 0
		f := stEllipsoid(c.d, 1e4)
		for g := 0; g < 300 && s.Stop() == ""; g++ {
			before := h.logDetA
			vals = stGeneration(t, s, f, &pop, vals)
			if math.Abs(before+h.ad.logDetG) > detTol {
				renormalised++
				if h.logDetA != 0 {
					t.Fatalf("d=%d pairs=%d generation %d: log|det A| = %g not renormalised", c.d, c.pairs, g, before+h.ad.logDetG)
				}
			}
			logDet, _ := linalg.LogDet(TransformOf(s))
			if math.Abs(logDet-h.logDetA) > 1e-10 || math.Abs(logDet) > 1e-8+1e-10 {
				t.Fatalf("d=%d pairs=%d generation %d: log|det A| = %g, tracked %g", c.d, c.pairs, g, logDet, h.logDetA)
			}
		}
		if h.ad.blocks > 1 && renormalised == 0 {
			t.Errorf("d=%d pairs=%d: B = %d but A was never renormalised", c.d, c.pairs, h.ad.blocks)
		}
	}
}

// TestNonFiniteHEES checks Section 13 item 8 for the full HE-ES: a
// generation without a finite offspring value keeps m and A and halves
// sigma, ten in a row stop the run; a pair with a NaN gives no curvature
// estimate (its direction keeps factor 1); -Inf stops the run as the best
// value.
func TestNonFiniteHEES(t *testing.T) {
	s := stNew(t, "hees", Config{Dim: 4, Seed: 9})
	var pop linalg.Dense
	var vals []float64
	for g := 0; g < 5; g++ {
		vals = stGeneration(t, s, stEllipsoid(4, 1e3), &pop, vals)
	}
	nan := func([]float64) float64 { return math.NaN() }
	for g := 1; g <= nonFiniteMax; g++ {
		m, sigma := s.Mean(nil), s.Sigma()
		var a linalg.Dense
		a.CopyFrom(TransformOf(s))
		vals = stGeneration(t, s, nan, &pop, vals)
		if !slices.Equal(m, s.Mean(nil)) || s.Sigma() != sigma/2 || !sameMatrix(&a, TransformOf(s)) {
			t.Fatalf("rejected generation %d changed m or A, or sigma %g -> %g", g, sigma, s.Sigma())
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

	// A NaN in one pair: A u_k is unchanged for that direction (B = 1).
	s = stNew(t, "hees", Config{Dim: 4, Seed: 9})
	h := s.(*hees)
	for g := 0; g < 3; g++ {
		vals = stGeneration(t, s, stEllipsoid(4, 1e3), &pop, vals)
	}
	if err := s.Ask(&pop); err != nil {
		t.Fatal(err)
	}
	f := stEllipsoid(4, 1e3)
	vals = vals[:0]
	for i := 0; i < s.PopulationSize(); i++ {
		vals = append(vals, f(pop.RawRow(i)))
	}
	vals[4] = math.NaN() // x_2^-
	au := slices.Clone(h.ad.au.RawRow(1))
	u := slices.Clone(h.ad.u.RawRow(1))
	if err := s.Tell(vals); err != nil {
		t.Fatal(err)
	}
	if h.ad.logDetG == 0 && h.logDetA == 0 {
		t.Fatal("no A update with four good pairs")
	}
	got := make([]float64, 4)
	linalg.MulVec(got, TransformOf(s), u)
	scale := xmath.Exp(-h.logDetA / 4) // undo a renormalisation, if any
	for j := range got {
		if math.Abs(got[j]*scale-au[j]) > 1e-14*linalg.Norm(au) {
			t.Fatalf("A u for the pair with a NaN changed: %v, was %v", got, au)
		}
	}

	// -Inf: best value, stop.
	stMinusInfStops(t, stNew(t, "hees", Config{Dim: 3, Seed: 1}))
}

// stMinusInfStops runs one generation of s on an objective that is -Inf
// where x_0 > 0 and 1 elsewhere: the run stops with ReasonMinusInf and its
// best is a point with x_0 > 0 and the value -Inf.
func stMinusInfStops(t *testing.T, s Strategy) {
	t.Helper()
	var pop linalg.Dense
	stGeneration(t, s, func(x []float64) float64 {
		if x[0] > 0 {
			return math.Inf(-1)
		}
		return 1
	}, &pop, nil)
	if x, fb := s.Best(); s.Stop() != ReasonMinusInf || !math.IsInf(fb, -1) || x == nil || !(x[0] > 0) {
		t.Errorf("-Inf: Stop %q best %v at %v", s.Stop(), fb, x)
	}
}

// TestNonFiniteElitist checks Section 13 item 8 for the elitist strategies:
// a NaN or +Inf offspring is a failure; a non-finite parent is replaced by
// the first finite offspring; ten generations in a row without any finite
// value stop the run.
func TestNonFiniteElitist(t *testing.T) {
	for _, name := range []string{"es11", "hees14", "cma11"} {
		s := stNew(t, name, Config{Dim: 3, Seed: 3, X0: []float64{1, 1, 1}})
		var pop linalg.Dense
		var vals []float64
		vals = stGeneration(t, s, stSphere, &pop, vals)
		m, sigma := s.Mean(nil), s.Sigma()
		vals = stGeneration(t, s, func([]float64) float64 { return math.Inf(1) }, &pop, vals)
		if !slices.Equal(m, s.Mean(nil)) || !(s.Sigma() < sigma) {
			t.Errorf("%s: +Inf offspring: mean moved or sigma %g -> %g did not shrink", name, sigma, s.Sigma())
		}
		vals = stGeneration(t, s, func([]float64) float64 { return math.NaN() }, &pop, vals)
		if !slices.Equal(m, s.Mean(nil)) {
			t.Errorf("%s: NaN offspring moved the mean", name)
		}
		if s.Stop() != "" {
			t.Errorf("%s: stopped with a finite parent: %q", name, s.Stop())
		}

		// A NaN start: any finite offspring value is accepted, and a run
		// that never sees one stops after ten generations.
		s = stNew(t, name, Config{Dim: 3, Seed: 3, X0: []float64{1, 1, 1}})
		calls := 0
		vals = stGeneration(t, s, func([]float64) float64 { calls++; return math.NaN() }, &pop, vals)
		vals = stGeneration(t, s, stSphere, &pop, vals)
		if slices.Equal(s.Mean(nil), []float64{1, 1, 1}) {
			t.Errorf("%s: a finite offspring did not replace a NaN parent", name)
		}
		s = stNew(t, name, Config{Dim: 3, Seed: 3})
		for g := 0; g < nonFiniteMax; g++ {
			if s.Stop() != "" {
				t.Fatalf("%s: stopped after %d generations: %q", name, g, s.Stop())
			}
			vals = stGeneration(t, s, func([]float64) float64 { return math.NaN() }, &pop, vals)
		}
		if s.Stop() != ReasonNotFinite {
			t.Errorf("%s: Stop() = %q after %d non-finite generations", name, s.Stop(), nonFiniteMax)
		}
	}
}

// TestStopCriteria triggers each internal criterion.
func TestStopCriteria(t *testing.T) {
	run := func(name string, cfg Config, f func([]float64) float64, gens int) (Strategy, int) {
		s := stNew(t, name, cfg)
		var pop linalg.Dense
		var vals []float64
		for g := 0; g < gens; g++ {
			if s.Stop() != "" {
				return s, g
			}
			vals = stGeneration(t, s, f, &pop, vals)
		}
		return s, gens
	}
	flat := func([]float64) float64 { return 1 }
	for _, c := range []struct {
		what     string
		strategy string
		cfg      Config
		f        func([]float64) float64
		want     Reason
	}{
		{"flat", "hees", Config{Dim: 3}, flat, ReasonTolFun},
		{"flat", "hees14", Config{Dim: 3}, flat, ReasonTolFun},
		{"linear", "es11", Config{Dim: 3}, func(x []float64) float64 { return x[0] }, ReasonSigmaTooLarge},
		{"tiny sigma", "hees14", Config{Dim: 3, TolFun: -1, X0: []float64{1, 1, 1}, Sigma0: 1e-290}, stSphere, ReasonSigmaTooSmall},
		{"tiny sigma", "es11", Config{Dim: 3, TolFun: -1, X0: []float64{1, 1, 1}, Sigma0: 1e-290}, stSphere, ReasonSigmaTooSmall},
		{"ill-conditioned A0", "cma11", Config{Dim: 2, A0: linalg.NewDense(2, 2, []float64{1e8, 0, 0, 1e-8})}, stSphere, ReasonConditionCov},
		{"no effect axis", "hees14", Config{Dim: 2, TolFun: -1, Sigma0: 1, X0: []float64{1e12, 1e12},
			A0: linalg.NewDense(2, 2, []float64{1e-6, 0, 0, 1})}, flat, ReasonNoEffectAxis},
	} {
		s, g := run(c.strategy, c.cfg, c.f, 5000)
		if s.Stop() != c.want {
			t.Errorf("%s %s: Stop() = %q after %d generations, want %q", c.strategy, c.what, s.Stop(), g, c.want)
		}
	}
}

func sameMatrix(a, b *linalg.Dense) bool {
	r, c := a.Dims()
	if r2, c2 := b.Dims(); r2 != r || c2 != c {
		return false
	}
	for i := 0; i < r; i++ {
		if !slices.Equal(a.RawRow(i), b.RawRow(i)) {
			return false
		}
	}
	return true
}

// New derives every default from the dimension: the recommended strategy
// (hees2) in d = 10 asks its mean and lambda~ = 5 mirrored pairs per
// generation, starting with sigma0 = 2. A bad configuration is an error
// that names the field.
func ExampleNew() {
	s, err := New(Recommended, Config{Dim: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name(), s.Dim(), s.PopulationSize(), s.Sigma())

	_, err = New("hees14", Config{Dim: 3, Sigma0: -1})
	fmt.Println(err)
	// Output:
	// hees2 10 11 2
	// es: Config.Sigma0 = -1: must be positive and finite
}

// TestCMA11Update checks the (1+1)-CMA-ES factor updates: after a success
// C' = A'A'^T equals alpha C + beta p_c p_c^T (docs/ALGORITHMS.md Section 7),
// and the maintained inverse stays the inverse of A.
func TestCMA11Update(t *testing.T) {
	const d = 6
	s := stNew(t, "cma11", Config{Dim: d, Seed: 4, A0: randomUnitDetMatrix(d, 9)})
	c := s.(*cma11)
	f := stEllipsoid(d, 1e3)
	var pop linalg.Dense
	var vals []float64
	successes := 0
	for g := 0; g < 300; g++ {
		var cBefore linalg.Dense
		cBefore.MulAAT(&c.a)
		psucc, evals := c.psucc, s.Evals()
		m := s.Mean(nil)
		vals = stGeneration(t, s, f, &pop, vals)
		if g == 0 || slices.Equal(m, s.Mean(nil)) {
			continue // generation 0 or a failure: A unchanged
		}
		successes++
		p := c.p
		alpha := 1 - p.ccov
		if (1-p.cp)*psucc+p.cp >= p.pThresh {
			alpha += p.ccov * p.cc * (2 - p.cc)
		}
		var cAfter linalg.Dense
		cAfter.MulAAT(&c.a)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := alpha*cBefore.At(i, j) + p.ccov*c.pc[i]*c.pc[j]
				if math.Abs(cAfter.At(i, j)-want) > 1e-12*cBefore.FrobeniusNorm() {
					t.Fatalf("evaluation %d: C'[%d][%d] = %g, want %g", evals, i, j, cAfter.At(i, j), want)
				}
			}
		}
	}
	var prod linalg.Dense
	prod.Mul(&c.a, &c.ainv)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(prod.At(i, j)-want) > 1e-10 {
				t.Fatalf("A A^-1 [%d][%d] = %g after 300 generations", i, j, prod.At(i, j))
			}
		}
	}
	if successes < 30 {
		t.Errorf("only %d successes", successes)
	}
}
