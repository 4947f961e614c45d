package es

import (
	"math"
	"testing"
)

// TestHEESParams checks the full HE-ES constants against the table of
// docs/ALGORITHMS.md Section 4 (values printed to 5 decimals, so 1e-5).
func TestHEESParams(t *testing.T) {
	table := []struct {
		d, pairs, blocks, evals           int
		w1, muEff, muEffMirr, cs, ds, chi float64
	}{
		{2, 3, 2, 7, 0.63704, 2.02861, 2.55403, 0.60286, 1.60286, 1.25427},
		{5, 4, 1, 9, 0.52993, 2.60018, 3.37071, 0.47233, 1.47233, 2.12852},
		{10, 5, 1, 11, 0.45627, 3.16730, 4.17195, 0.35942, 1.35942, 3.08473},
		{20, 6, 1, 13, 0.40240, 3.72946, 4.96026, 0.24893, 1.24893, 4.41677},
		{40, 7, 1, 15, 0.36115, 4.28714, 5.73804, 0.15877, 1.15877, 6.28522},
	}
	const tol = 1e-5
	for _, row := range table {
		s, err := New("hees", Config{Dim: row.d})
		if err != nil {
			t.Fatal(err)
		}
		h := s.(*hees)
		p := h
		if p.pairs != row.pairs || p.ad.blocks != row.blocks || s.PopulationSize() != row.evals {
			t.Errorf("d=%d: lambda~=%d B=%d PopulationSize=%d, want %d %d %d", row.d, p.pairs, p.ad.blocks, s.PopulationSize(), row.pairs, row.blocks, row.evals)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"w_1", p.weights[0], row.w1},
			{"mu_eff", p.muEff, row.muEff},
			{"mu_eff^mirr", p.muEffMirr, row.muEffMirr},
			{"c_s", p.cs, row.cs},
			{"d_s", p.ds, row.ds},
			{"chi_d", p.chi, row.chi},
			{"Config.CS", h.cfg.CS, row.cs},
			{"Config.DS", h.cfg.DS, row.ds},
		} {
			if math.Abs(c.got-c.want) > tol {
				t.Errorf("d=%d: %s = %.7f, want %.5f", row.d, c.name, c.got, c.want)
			}
		}
		// The weights: positive and decreasing over the best lambda~ ranks,
		// zero for the rest, summing to 1.
		var sum float64
		for r, w := range p.weights {
			sum += w
			switch {
			case r < p.pairs && !(w > 0):
				t.Errorf("d=%d: weight of rank %d is %g, want > 0", row.d, r, w)
			case r > 0 && r < p.pairs && !(w < p.weights[r-1]):
				t.Errorf("d=%d: weights not decreasing at rank %d", row.d, r)
			case r >= p.pairs && w != 0:
				t.Errorf("d=%d: weight of rank %d is %g, want 0", row.d, r, w)
			}
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("d=%d: weights sum to %.17g", row.d, sum)
		}
	}
}

// TestHEESParamsPairs checks the derived constants for a doubled number of
// pairs (IPOP), where B > 1 once 2 lambda~ exceeds 2d.
func TestHEESParamsPairs(t *testing.T) {
	s, err := New("hees", Config{Dim: 5, Pairs: 16})
	if err != nil {
		t.Fatal(err)
	}
	h := s.(*hees)
	if h.pairs != 16 || h.ad.blocks != 4 || s.PopulationSize() != 33 {
		t.Errorf("pairs %d blocks %d PopulationSize %d, want 16 4 33", h.pairs, h.ad.blocks, s.PopulationSize())
	}
	// mu_eff^mirr from its definition, recomputed independently.
	var ws [32]float64
	var sum, sq float64
	for k := 1; k <= 16; k++ {
		ws[k-1] = math.Log(16.5) - math.Log(float64(k))
		sum += ws[k-1]
	}
	for _, w := range ws {
		sq += (w / sum) * (w / sum)
	}
	mu := 1 / sq
	mirr := 1 / (1/mu - (1-1/mu)/31)
	if math.Abs(h.muEff-mu) > 1e-12 || math.Abs(h.muEffMirr-mirr) > 1e-12 {
		t.Errorf("mu_eff %g mirr %g, want %g %g", h.muEff, h.muEffMirr, mu, mirr)
	}
}

// TestOneFifthParams checks c_sigma = exp(0.8/sqrt(d+1)) (docs/ALGORITHMS.md
// Section 13 item 3) and the failure factor c_sigma^(-1/4).
func TestOneFifthParams(t *testing.T) {
	want := map[int]float64{
		2: 1.5870551869919145, 5: 1.3862449716487617, 10: 1.2727871163009241,
		20: 1.1907392255354179, 40: 1.133079343895956,
	}
	for d, cs := range want {
		for _, name := range []string{"es11", "hees14"} {
			s, err := New(name, Config{Dim: d})
			if err != nil {
				t.Fatal(err)
			}
			var success, failure float64
			switch v := s.(type) {
			case *es11:
				success, failure = v.success, v.failure
			case *hees14:
				success, failure = v.success, v.failure
			}
			if math.Abs(success-cs) > 1e-15*cs {
				t.Errorf("%s d=%d: c_sigma = %.17g, want %.17g", name, d, success, cs)
			}
			if got := math.Pow(success, 0.25) * failure; math.Abs(got-1) > 1e-15 {
				t.Errorf("%s d=%d: c_sigma^(1/4) * failure = %.17g, want 1", name, d, got)
			}
		}
	}
}

// TestCMAParams checks the (1+1)-CMA-ES constants for lambda = 1
// (docs/ALGORITHMS.md Section 7): d = 1 + n/2, p_target = 2/11, c_p = 1/12,
// c_c = 2/(n+2), c_cov = 2/(n^2+6), p_thresh = 0.44.
func TestCMAParams(t *testing.T) {
	table := []struct {
		n                 int
		damping, cc, ccov float64
	}{
		{2, 2, 0.5, 0.2},
		{5, 3.5, 0.2857142857142857, 0.06451612903225806},
		{10, 6, 0.16666666666666666, 0.018867924528301886},
		{20, 11, 0.09090909090909091, 0.0049261083743842365},
		{40, 21, 0.047619047619047616, 0.0012453300124533001},
	}
	for _, row := range table {
		s, err := New("cma11", Config{Dim: row.n})
		if err != nil {
			t.Fatal(err)
		}
		c := s.(*cma11)
		p := c.p
		got := []float64{p.damping, p.pTarget, p.cp, p.cc, p.ccov, p.pThresh, c.psucc}
		want := []float64{row.damping, 0.18181818181818182, 0.08333333333333333, row.cc, row.ccov, 0.44, 0.18181818181818182}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-15 {
				t.Errorf("n=%d: constant %d = %.17g, want %.17g", row.n, i, got[i], want[i])
			}
		}
	}
}

// TestDefaults checks the defaults New derives for each strategy.
func TestDefaults(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name                string
		kappa, etaA, tolFun float64
	}{
		{"hees", 3, 0.5, 1e-9},
		{"hees14", inf, 1, 1e-11},
		{"es11", 0, 0, 1e-11},
		{"cma11", 0, 0, 1e-11},
	} {
		cfg, err := resolve(c.name, Config{Dim: 7})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Kappa != c.kappa || cfg.EtaA != c.etaA || cfg.TolFun != c.tolFun || cfg.Sigma0 != 2 || cfg.Box != 3 {
			t.Errorf("%s: Kappa %v EtaA %v TolFun %v Sigma0 %v Box %v", c.name, cfg.Kappa, cfg.EtaA, cfg.TolFun, cfg.Sigma0, cfg.Box)
		}
	}
}
