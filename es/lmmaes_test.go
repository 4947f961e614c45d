package es

import (
	"math"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// TestLMMAESConstants checks the constants of Algorithm 1 with the
// reference code's defaults: lambda = 4 + floor(3 ln n), mu = lambda/2,
// w_i ∝ ln(mu + 1/2) - ln i, m = lambda paths, c_d,j = 1/(1.5^j n), c_c,j
// = lambda/(4^j n) (at most 1), c_s = 2 lambda/n, and below n = 2 lambda
// the MA-ES's c_s.
func TestLMMAESConstants(t *testing.T) {
	for _, d := range []int{5, 27, 28, 100, 1000} {
		s := stNew(t, LMMAES, Config{Dim: d})
		l := s.(*lmmaes)
		n := float64(d)
		lambda := 4 + int(math.Floor(3*math.Log(n)))
		if l.lambda != lambda || l.mu != lambda/2 || l.m != lambda || len(l.weights) != lambda/2 {
			t.Errorf("d=%d: lambda %d mu %d m %d, want %d %d %d", d, l.lambda, l.mu, l.m, lambda, lambda/2, lambda)
		}
		var sum, sq float64
		for i, w := range l.weights {
			raw := math.Log(float64(l.mu)+0.5) - math.Log(float64(i+1))
			if math.Abs(w/l.weights[0]-raw/(math.Log(float64(l.mu)+0.5))) > 1e-14 {
				t.Errorf("d=%d: w_%d = %v not proportional to %v", d, i+1, w, raw)
			}
			sum += w
			sq += w * w
		}
		if math.Abs(sum-1) > 1e-14 || math.Abs(l.muW-1/sq) > 1e-12*l.muW {
			t.Errorf("d=%d: weights sum %v, mu_w %v want %v", d, sum, l.muW, 1/sq)
		}
		cs := 2 * float64(lambda) / n
		if cs > 1 {
			cs = (l.muW + 2) / (n + l.muW + 5)
		}
		if math.Abs(l.cs-cs) > 1e-15 {
			t.Errorf("d=%d: c_s %v, want %v", d, l.cs, cs)
		}
		for j := range l.m {
			cd := 1 / (math.Pow(1.5, float64(j)) * n)
			cc := math.Min(1, float64(lambda)/(math.Pow(4, float64(j))*n))
			if math.Abs(l.cd[j]-cd) > 1e-15*cd || math.Abs(l.cc[j]-cc) > 1e-15*cc {
				t.Errorf("d=%d: c_d,%d %v c_c,%d %v, want %v %v", d, j, l.cd[j], j, l.cc[j], cd, cc)
			}
		}
	}
}

// TestLMMAESSampling checks lines 5-9: the candidates come in mirrored
// pairs x = m ± sigma d with d the product of the min(t, m) rank-one
// factors applied to z in order, and Stds gives the square roots of the
// diagonal of M M^T computed column by column.
func TestLMMAESSampling(t *testing.T) {
	const d = 9
	s := stNew(t, LMMAES, Config{Dim: d, Seed: 3})
	l := s.(*lmmaes)
	var pop linalg.Dense
	for range 7 {
		askTellGeneration(t, s, stEllipsoid(d, 100), &pop)
	}
	if err := s.Ask(&pop); err != nil {
		t.Fatal(err)
	}
	k := l.used()
	if k != 7 {
		t.Fatalf("%d paths in use after 7 generations, want 7", k)
	}
	apply := func(v []float64) {
		for j := range k {
			p, c := l.paths.RawRow(j), l.cd[j]
			var dot float64
			for q := range v {
				dot += p[q] * v[q]
			}
			for q := range v {
				v[q] = (1-c)*v[q] + c*dot*p[q]
			}
		}
	}
	for i := 0; i+1 < l.lambda; i += 2 {
		z := append([]float64(nil), l.z.RawRow(i)...)
		apply(z)
		d0, d1 := l.dk.RawRow(i), l.dk.RawRow(i+1)
		for q := range d {
			if d0[q] != -d1[q] || math.Abs(d0[q]-z[q]) > 1e-12 {
				t.Fatalf("pair %d, coordinate %d: steps %v and %v, want ±%v", i/2, q, d0[q], d1[q], z[q])
			}
			if pop.At(i, q) != l.mean[q]+float64(l.sigma*d0[q]) {
				t.Fatalf("candidate %d, coordinate %d: %v, want m + sigma d", i, q, pop.At(i, q))
			}
		}
	}
	got := make([]float64, d)
	l.stds(got)
	cols := make([][]float64, d)
	for j := range d {
		cols[j] = make([]float64, d)
		cols[j][j] = 1
		apply(cols[j])
	}
	for i := range d {
		var ss float64
		for j := range d {
			ss += cols[j][i] * cols[j][i]
		}
		if want := l.sigma * math.Sqrt(ss); math.Abs(got[i]-want) > 1e-12*want {
			t.Errorf("stds[%d] = %v, want %v", i, got[i], want)
		}
	}
}

// TestLMMAESConverges: on the sphere and a rotated ellipsoid of condition
// 100 in d = 30 the paths and sigma reach 1e-8.
func TestLMMAESConverges(t *testing.T) {
	for _, spec := range []string{"sphere", "rotellipsoid:cond=100"} {
		p, err := objectives.Parse(spec, 30)
		if err != nil {
			t.Fatal(err)
		}
		if n := gridRun(t, LMMAES, p, 30, 1, 100000); n < 0 {
			t.Errorf("%s: no 1e-8 within 100000 evaluations", spec)
		}
	}
}
