package es

import (
	"math"
	"slices"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// TestSepcmaParams checks the constants against pycma 4.4's formulas for
// CMA_diagonal (options_parameters.py CMAParameters.set, the _sep rates,
// and the negative weights finalized with them and pos_def=False), and the
// switch to TPA above d = 299.
func TestSepcmaParams(t *testing.T) {
	for _, c := range []struct{ d, lambda int }{{10, 10}, {100, 17}, {299, 21}, {300, 21}, {1000, 24}} {
		p := newSepcmaParams(c.d, c.lambda)
		n := float64(c.d)
		var pos, neg, sq, sqNeg float64
		for _, w := range p.weights {
			if w > 0 {
				pos += w
				sq += w * w
			} else {
				neg += w
				sqNeg += w * w
			}
		}
		muEff := 1 / sq
		c1 := 1 / (n + 2*math.Sqrt(n) + muEff/n)
		cmu := math.Min(1-c1, (0.25+muEff+1/muEff-2)/(n+4*math.Sqrt(n)+muEff/2))
		cc := (1 + 1/n + muEff/n) / (math.Sqrt(n) + 1/n + 2*muEff/n)
		// The raw negative weights sum to -1, so mu_eff^- is that of the
		// scaled ones.
		muEffMinus := neg * neg / sqNeg
		alpha := math.Min(1+c1/cmu, 1+2*muEffMinus/(muEff+2))
		close := func(got, want float64) bool { return math.Abs(got-want) <= 1e-14*math.Abs(want) }
		switch {
		case p.mu != c.lambda/2 || !close(pos, 1) || !close(p.muEff, muEff):
			t.Errorf("d=%d: mu %d, positive weights sum %v, mu_eff %v (want %v)", c.d, p.mu, pos, p.muEff, muEff)
		case !close(p.c1, c1) || !close(p.cmu, cmu) || !close(p.cc, cc):
			t.Errorf("d=%d: c1 %v cmu %v cc %v, want %v %v %v", c.d, p.c1, p.cmu, p.cc, c1, cmu, cc)
		case !close(-neg, alpha):
			t.Errorf("d=%d: negative weights sum to %v, want -%v", c.d, neg, alpha)
		case p.tpa != (c.d > 299) || !close(p.tpaDamp, 0.7+2*math.Log(n)):
			t.Errorf("d=%d: TPA %v with damping %v", c.d, p.tpa, p.tpaDamp)
		}
	}
}

// TestSepcmaGeneration checks one generation's update against pycma's
// rules computed independently from the candidates asked: the mean is
// sum_{i<=mu} w_i x_{i:lambda}, and each D_i is multiplied by
// exp((ln 2/2)(c_1a (p_c,i^2 - 1) + c_mu sum_k w_k (z_k,i^2 - 1))) with
// z_k = (x_k - m)/(sigma D) and the new p_c.
func TestSepcmaGeneration(t *testing.T) {
	for _, d := range []int{12, 320} { // CSA and TPA
		s := stNew(t, SEPCMA, Config{Dim: d, Seed: 5})
		c := s.(*sepcma)
		f := stEllipsoid(d, 1e4)
		var pop linalg.Dense
		for range 6 {
			askTellGeneration(t, s, f, &pop)
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		lambda, _ := pop.Dims()
		m, sigma := slices.Clone(c.mean), c.sigma
		dOld, pcOld := slices.Clone(c.d), slices.Clone(c.pc)
		vals := make([]float64, lambda)
		for k := range vals {
			vals[k] = f(pop.RawRow(k))
		}
		order := make([]int, lambda)
		rankOrder(order, vals)
		z := make([][]float64, lambda)
		for k := range z {
			z[k] = make([]float64, d)
			for i := range d {
				z[k][i] = (pop.At(k, i) - m[i]) / (sigma * dOld[i])
			}
		}
		wantMean := make([]float64, d)
		for r := range c.p.mu {
			for i := range d {
				wantMean[i] += c.p.weights[r] * pop.At(order[r], i)
			}
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
		// h_sigma was true or false; recover it from p_c.
		for i := range d {
			if math.Abs(c.mean[i]-wantMean[i]) > 1e-12*(math.Abs(wantMean[i])+sigma) {
				t.Fatalf("d=%d: mean[%d] = %v, want %v", d, i, c.mean[i], wantMean[i])
			}
		}
		var zw = make([]float64, d)
		for r := range c.p.mu {
			for i := range d {
				zw[i] += c.p.weights[r] * z[order[r]][i]
			}
		}
		cc := c.p.cc
		hs := math.Abs(c.pc[0]-(1-cc)*pcOld[0]) > 1e-14
		c1a := c.p.c1
		if !hs {
			c1a *= 1 - cc*(2-cc)
		}
		for i := range d {
			e := c1a * (c.pc[i]*c.pc[i] - 1)
			for r, k := range order {
				e += c.p.cmu * c.p.weights[r] * (z[k][i]*z[k][i] - 1)
			}
			want := dOld[i] * math.Exp(math.Ln2*e/2)
			if math.Abs(c.d[i]-want) > 1e-10*want {
				t.Fatalf("d=%d: D[%d] = %v, want %v", d, i, c.d[i], want)
			}
		}
	}
}

// TestSepcmaTPAPair checks TPA's pair above d = 299: from the second
// generation on, candidates 0 and 1 are m ± sigma D |z_0| u, mirrored
// exactly, with u the unit vector along D^-1 (m_t - m_{t-1}).
func TestSepcmaTPAPair(t *testing.T) {
	const d = 300
	s := stNew(t, SEPCMA, Config{Dim: d, Seed: 2})
	c := s.(*sepcma)
	var pop linalg.Dense
	f := stEllipsoid(d, 100)
	for g := range 4 {
		before := slices.Clone(c.mean)
		askTellGeneration(t, s, f, &pop)
		shift := make([]float64, d)
		for i := range shift {
			shift[i] = c.mean[i] - before[i]
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		var dot, n0, n1 float64
		for i := range d {
			a := (pop.At(0, i) - c.mean[i]) / c.d[i]
			b := shift[i] / c.d[i]
			if c.y.At(0, i) != -c.y.At(1, i) {
				t.Fatalf("generation %d: candidates 0 and 1 are not mirrored in coordinate %d", g+1, i)
			}
			dot += a * b
			n0 += a * a
			n1 += b * b
		}
		if cos := dot / math.Sqrt(n0*n1); !(cos > 1-1e-9) {
			t.Errorf("generation %d: candidate 0 has cosine %v with the last mean shift in z units", g+1, cos)
		}
		// Tell the pending generation before the next round.
		vals := make([]float64, c.p.lambda)
		for k := range vals {
			vals[k] = f(pop.RawRow(k))
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSepcmaLikePycma runs sepcma on the sphere and the separable
// ellipsoid (condition 1e6) in d = 100 from x0 = (3, ..., 3), sigma0 = 2,
// seeds 1-3, and checks that the median evaluations to 1e-8 lie within
// 10% of pycma 4.4.0's with CMA_diagonal=True over 15 seeds of its own
// (11,045 and 27,550; BENCHMARKS.md, section "Large scale").
func TestSepcmaLikePycma(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement of about a second")
	}
	for _, c := range []struct {
		spec  string
		pycma float64
	}{{"sphere", 11045}, {"ellipsoid", 27550}} {
		p, err := objectives.Parse(c.spec, 100)
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]int, 3)
		for i := range runs {
			runs[i] = gridRun(t, SEPCMA, p, 100, uint64(i+1), 200000)
		}
		med := summarizeRuns(runs).median
		if r := med / c.pycma; !(r > 0.9 && r < 1.1) {
			t.Errorf("%s: median %v evaluations (runs %v), %.3f times pycma's %v", c.spec, med, runs, r, c.pycma)
		}
	}
}

// TestSepcmaStagnation checks that sepcma keeps tolstagnation's records as
// cmaes does: on values that ignore x it stops by stagnation, after more
// than 100 records and past the generation the criterion waits for, and a
// state saved before the stop resumes with the records and stops at the
// same generation.
func TestSepcmaStagnation(t *testing.T) {
	s := stNew(t, SEPCMA, Config{Dim: 2, Seed: 2})
	var pop linalg.Dense
	var saved []byte
	for g := 0; g < 20000 && s.Stop() == ""; g++ {
		askTellGeneration(t, s, noise, &pop)
		if g == 505 { // 101 records, before the stop
			var err error
			if saved, err = s.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := s.(*sepcma)
	if s.Stop() != ReasonStagnation || float64(s.Generation()) <= c.stag.minGen || c.stag.best.size() <= 100 {
		t.Fatalf("Stop() = %q after %d generations with %d records, want %q after more than %v and 100",
			s.Stop(), s.Generation(), c.stag.best.size(), ReasonStagnation, c.stag.minGen)
	}
	if saved == nil {
		t.Fatalf("stopped after %d generations, before the state was saved", s.Generation())
	}
	r, err := Load(saved)
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g < 20000 && r.Stop() == ""; g++ {
		askTellGeneration(t, r, noise, &pop)
	}
	if r.Stop() != s.Stop() || r.Generation() != s.Generation() {
		t.Errorf("resumed: Stop() = %q after %d generations, want %q after %d", r.Stop(), r.Generation(), s.Stop(), s.Generation())
	}
}

// TestLimitedMemoryStateSize checks that the strategies without a d×d
// transformation save O(d) or O(m d) bytes, not O(d^2): at d = 2000 their
// state is below 64 d numbers.
func TestLimitedMemoryStateSize(t *testing.T) {
	const d = 2000
	for _, r := range strategies {
		if r.Transform {
			continue
		}
		s := stNew(t, r.Name, Config{Dim: d, Seed: 1})
		var pop linalg.Dense
		for range 3 {
			askTellGeneration(t, s, stSphere, &pop)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 8*64*d {
			t.Errorf("%s: %d bytes of state in d = %d", r.Name, len(data), d)
		}
	}
}
