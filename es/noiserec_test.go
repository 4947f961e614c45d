package es

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestWindowTest checks the statistics of a window against a count of
// the pairs (an older value larger than a newer one, ties counting one
// half) for both splits, and its median against medianValue, with
// estimates older than the window before it, ties, NaN and +Inf.
func TestWindowTest(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct{ before, v []float64 }{
		{nil, []float64{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{[]float64{-5, 100}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{[]float64{5}, []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}},
		{[]float64{0, 9, 1}, []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7}},
		{[]float64{nan, 2}, []float64{2, nan, 7, inf, 1, 8, 2, 8, nan, -inf, 0, 2, 2}},
	} {
		w := newMeanWindow(1)
		for _, f := range append(slices.Clone(tc.before), tc.v...) {
			w.add([]float64{0}, f, 2)
		}
		n := len(tc.v)
		z := func(newer int) float64 {
			older := n - newer
			var u float64
			for _, a := range tc.v[:older] {
				for _, b := range tc.v[older:] {
					switch compareValues(a, b) {
					case 1:
						u++
					case 0:
						u += 0.5
					}
				}
			}
			n1, n2 := float64(older), float64(newer)
			return (u - n1*n2/2) / math.Sqrt(n1*n2*float64(n+1)/12)
		}
		trend, recent, median := w.test(n)
		wantMedian := medianValue(slices.Clone(tc.v))
		if math.Abs(trend-z(n/2)) > 1e-12 || math.Abs(recent-z(recRecent)) > 1e-12 ||
			math.Float64bits(median) != math.Float64bits(wantMedian) && !(math.IsNaN(median) && math.IsNaN(wantMedian)) {
			t.Errorf("%v: z %v and %v, median %v; want %v, %v, %v", tc.v, trend, recent, median, z(n/2), z(recRecent), wantMedian)
		}
	}
	falling := newMeanWindow(1)
	for g := range recMinWindow {
		falling.add([]float64{0}, float64(recMinWindow-g), 2)
	}
	if trend, _, _ := falling.test(recMinWindow); trend < recTrendZ {
		t.Errorf("a falling sequence: z = %v, want a trend", trend)
	}
}

// TestMeanWindow checks the choice of a window on made-up estimates: 64
// that alternate give the average of the 64 means, with the median and
// the sum of their evaluations; a fall between the halves (the newest 8
// not below the rest by the second test) and a fall in the newest 8 alone
// (not a trend between the halves) each give none.
func TestMeanWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(g int) float64
		ok   bool
	}{
		{"alternating", func(g int) float64 { return float64(10 + g%2) }, true},
		{"halves", func(g int) float64 { return float64(10*(1-g/32)) + float64(g%2) }, false},
		{"newest 8", func(g int) float64 { return float64(10*(1-g/56)) + float64(g%2) }, false},
	} {
		w := newMeanWindow(2)
		var sum float64
		for g := range recMinWindow {
			w.add([]float64{float64(g), 1}, tc.f(g), 2)
			sum += float64(g)
		}
		r, ok := w.average()
		if ok != tc.ok {
			t.Errorf("%s: averaged %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if ok && (r.X[0] != sum/recMinWindow || r.X[1] != 1 || r.F != 10.5 || r.Evals != 2*recMinWindow || r.Means != recMinWindow) {
			t.Errorf("%s: %+v, want x (%v, 1), F 10.5, %d evaluations, %d means", tc.name, r, sum/recMinWindow, 2*recMinWindow, recMinWindow)
		}
	}
}

// TestMeanWindowSorted checks that the sorted estimates are those of the
// ring after it has wrapped around (ties included), and that a saved and
// restored window derives the same.
func TestMeanWindowSorted(t *testing.T) {
	w := newMeanWindow(2)
	for g := range 2*recRing + 77 {
		w.add([]float64{float64(g), 0}, float64(g%13), 2)
	}
	var want []estimate
	for k := range w.f.size() {
		want = append(want, estimate{w.f.at(k), w.gens - 1 - k})
	}
	slices.SortFunc(want, compareEstimates)
	if !slices.Equal(w.sorted, want) {
		t.Fatalf("%d sorted estimates, want the ring's %d", len(w.sorted), len(want))
	}
	sw := newStateWriter(noiseStateName)
	w.write(sw)
	r, err := openState(sw.finish(), noiseStateName)
	if err != nil {
		t.Fatal(err)
	}
	var back meanWindow
	back.read(r)
	if err := r.done(); err != nil || back.check(2) != "" || !slices.Equal(back.sorted, want) {
		t.Errorf("restored: %v, %q, %d sorted estimates", err, back.check(2), len(back.sorted))
	}
}

// TestNoiseRecommendAverages checks the recommendation where it matters
// and where it must not average. On the sphere with additive noise
// (sigma 0.01, d = 5, seeds 1-3, 3,000 generations of hees2) the noise-free
// value of the recommendation, an average of recent means, is at most a
// tenth of the last mean's. On the sphere with multiplicative noise, where
// the mean converges, it is the last mean in every generation until the
// run stops, and the converged point after it.
func TestNoiseRecommendAverages(t *testing.T) {
	var pop linalg.Dense
	add := newNoisy(t, "sphere:noise=add,sigma=0.01", 5)
	for seed := uint64(1); seed <= 3; seed++ {
		h := newHandled(t, HEES2, Config{Dim: 5, Seed: seed}, false, NoiseConfig{})
		f := inOrder(add)
		for range 3000 {
			askTellGeneration(t, h, f, &pop)
		}
		r := h.Recommend()
		avg, last := add.p.Noiseless(r.X), add.p.Noiseless(h.rec.X)
		if r.Means < recMinWindow || r.Evals < 2*r.Means || !(avg <= last/10) {
			t.Errorf("seed %d: recommendation %v from %d means and %d evaluations, the last mean %v", seed, avg, r.Means, r.Evals, last)
		}
	}
	mul := newNoisy(t, "sphere:noise=mul,sigma=0.5", 5)
	h := newHandled(t, HEES2, Config{Dim: 5, Seed: 1}, false, NoiseConfig{})
	f := inOrder(mul)
	for g := range 300 {
		askTellGeneration(t, h, f, &pop)
		if h.Doublings() > 0 {
			break // the converged run stopped (TestNoiseHandlerStopRestarts)
		}
		if r := h.Recommend(); !slices.Equal(r.X, h.rec.X) || r.Evals != h.rec.Evals || r.Means != 1 {
			t.Fatalf("generation %d of a converging run: recommended %v from %d evaluations, the mean is %v",
				g, r.X, r.Evals, h.rec.X)
		}
	}
	if v := mul.p.Noiseless(h.Recommend().X); !(v < 1e-8) {
		t.Errorf("the converging run's recommendation is at %v", v)
	}
}

// TestNoiseRecommendRuns checks that the windows belong to the current
// run: an IPOP restart and a doubling of the population empty them.
func TestNoiseRecommendRuns(t *testing.T) {
	var pop linalg.Dense
	// The mean converges under multiplicative noise until tolx restarts it.
	conv := inOrder(newNoisy(t, "sphere:noise=mul,sigma=0.5", 4))
	ipop := newHandled(t, HEES2, Config{Dim: 4, Seed: 2}, true, NoiseConfig{})
	for g := 0; ipop.Restarts() < 2; g++ {
		if g == 5000 {
			t.Fatalf("%d restarts in 5000 generations", ipop.Restarts())
		}
		restarts, gens := ipop.Restarts(), ipop.win.gens
		askTellGeneration(t, ipop, conv, &pop)
		want := gens + 1
		if ipop.Restarts() > restarts {
			want = 0
		}
		if ipop.win.gens != want {
			t.Fatalf("generation %d: %d means in the window, want %d", g, ipop.win.gens, want)
		}
	}
	f := inOrder(newNoisy(t, "sphere:noise=add,sigma=100", 4))
	h := newHandled(t, HEES2, Config{Dim: 4, Seed: 2}, false, NoiseConfig{})
	for g := 0; h.Doublings() < 2; g++ {
		if g == 400 {
			t.Fatal("no two doublings in 400 generations")
		}
		grown := h.Doublings()
		askTellGeneration(t, h, f, &pop)
		if h.Doublings() > grown && h.win.gens != 0 {
			t.Fatalf("doubling %d: %d means in the window, want 0", h.Doublings(), h.win.gens)
		}
	}
}

// TestNoiseRecommendCorrupt checks that a state whose window cannot be is
// refused: counts that disagree, evaluations too few or too many for
// their block (or for a block not yet complete), sums that are not finite
// or of another length.
func TestNoiseRecommendCorrupt(t *testing.T) {
	h := newHandled(t, HEES2, Config{Dim: 3, Seed: 1}, false, NoiseConfig{})
	noiseTrajectory(t, h, newNoisy(t, "sphere:noise=add,sigma=1", 3), 70, -1, false, false)
	data, err := h.MarshalBinary()
	if err != nil || !strings.HasPrefix(string(data), stateHeaderVersion(noiseStateName, noiseStateWindow)) {
		t.Fatalf("the state after 70 generations: %.20q (%v), want version %d", data, err, noiseStateWindow)
	}
	for name, forge := range map[string]func(w *meanWindow){
		"counts":     func(w *meanWindow) { w.gens++ },
		"ring":       func(w *meanWindow) { w.f.count-- },
		"few evals":  func(w *meanWindow) { w.prevEvals[0] = recMinWindow - 1 },
		"many evals": func(w *meanWindow) { w.curEvals[0] = 2*MaxNoiseEvals*(w.gens%recMinWindow) + 1 },
		"no block":   func(w *meanWindow) { w.prevEvals[3] = 1 },
		"NaN sum":    func(w *meanWindow) { w.prev[0][1] = math.NaN() },
		"Inf sum":    func(w *meanWindow) { w.cur[4][0] = math.Inf(-1) },
		"length":     func(w *meanWindow) { w.cur[2] = w.cur[2][:2] },
	} {
		s, err := Load(data) // a copy of h to forge
		if err != nil {
			t.Fatalf("the state itself: %v", err)
		}
		bad := s.(*NoiseHandler)
		forge(&bad.win)
		forged, err := bad.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(forged); !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "window of the recommendation") {
			t.Errorf("%s: Load gave %v", name, err)
		}
	}
}

// BenchmarkNoiseRecommend times Recommend's work with a full window (all
// five windows tested and none with a trend: d = 10, estimates that
// alternate).
func BenchmarkNoiseRecommend(b *testing.B) {
	w := newMeanWindow(10)
	m := make([]float64, 10)
	for g := range 3000 {
		m[g%10] = float64(g % 7)
		w.add(m, float64(g%13), 2)
	}
	if _, ok := w.average(); !ok {
		b.Fatal("no window")
	}
	for b.Loop() {
		w.average()
	}
}

// BenchmarkMeanWindowAdd times the record of one generation's mean with a
// full ring (d = 10).
func BenchmarkMeanWindowAdd(b *testing.B) {
	w := newMeanWindow(10)
	m := make([]float64, 10)
	g := 0
	for b.Loop() {
		m[g%10] = float64(g % 7)
		w.add(m, float64(g%13)+float64(g)*1e-9, 2)
		g++
	}
}
