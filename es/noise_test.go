package es

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// noisyProblem is a keyed noisy test problem of package objectives as a
// run evaluates it: the noise of evaluation key from seed 1.
type noisyProblem struct{ p objectives.Noisy }

func (n noisyProblem) EvalKeyed(x []float64, key uint64) float64 { return n.p.EvalKeyed(x, 1, key) }
func (n noisyProblem) Eval([]float64) float64                    { panic("Eval of a keyed problem") }

// newNoisy returns the keyed problem spec in dimension d.
func newNoisy(t testing.TB, spec string, d int) noisyProblem {
	t.Helper()
	p, err := objectives.Parse(spec, d)
	if err != nil {
		t.Fatal(err)
	}
	return noisyProblem{p.(objectives.Noisy)}
}

// inOrder returns prob's value of each point it is given, keyed by the
// number of points before it, as a run that evaluates them one at a time.
func inOrder(prob noisyProblem) func([]float64) float64 {
	key := uint64(0)
	return func(x []float64) float64 {
		key++
		return prob.EvalKeyed(x, key-1)
	}
}

// newHandled returns NewNoiseHandler around New(name, cfg), or around its
// IPOP with ipop.
func newHandled(t testing.TB, name string, cfg Config, ipop bool, nc NoiseConfig) *NoiseHandler {
	t.Helper()
	var s Strategy
	var err error
	if ipop {
		s, err = NewIPOP(name, cfg, IPOPConfig{})
	} else {
		s, err = New(name, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewNoiseHandler(s, nc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestNoiseHandlerRefuses checks the errors of NewNoiseHandler and of a
// zero NoiseHandler.
func TestNoiseHandlerRefuses(t *testing.T) {
	for _, name := range []string{ES11, HEES14, CMA11} {
		s, err := New(name, Config{Dim: 3, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewNoiseHandler(s, NoiseConfig{}); err == nil || !strings.Contains(err.Error(), "only hees, hees2 and cmaes") {
			t.Errorf("%s: error %v", name, err)
		}
	}
	s, _ := New(HEES2, Config{Dim: 3, Seed: 1})
	for _, tc := range []struct {
		s    Strategy
		cfg  NoiseConfig
		want string
	}{
		{nil, NoiseConfig{}, "nil Strategy"},
		{s, NoiseConfig{MaxEvals: -1}, "MaxEvals = -1"},
		{s, NoiseConfig{MaxEvals: MaxNoiseEvals + 1}, "MaxEvals = 1001"},
		{new(IPOP), NoiseConfig{}, "not set up"},
	} {
		if _, err := NewNoiseHandler(tc.s, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewNoiseHandler: error %v, want %q", err, tc.want)
		}
	}
	h, _ := NewNoiseHandler(s, NoiseConfig{})
	if _, err := NewNoiseHandler(h, NoiseConfig{}); err == nil {
		t.Error("a NoiseHandler around a NoiseHandler")
	}
	var pop linalg.Dense
	s.Ask(&pop)
	if _, err := NewNoiseHandler(s, NoiseConfig{}); err == nil || !strings.Contains(err.Error(), "pending") {
		t.Errorf("a strategy with a generation pending: %v", err)
	}
	var zero NoiseHandler
	if err := zero.Ask(&pop); !errors.Is(err, errZeroNoise) {
		t.Errorf("zero Ask: %v", err)
	}
	if err := zero.Tell(nil); !errors.Is(err, errZeroNoise) {
		t.Errorf("zero Tell: %v", err)
	}
	if _, err := zero.MarshalBinary(); !errors.Is(err, errZeroNoise) {
		t.Errorf("zero MarshalBinary: %v", err)
	}
	if zero.Name() != "" || zero.PopulationSize() != 0 || zero.GenerationSize() != 0 || zero.Recommend().X != nil {
		t.Error("zero NoiseHandler reports a strategy")
	}
	if err := zero.Tell([]float64{1}); !errors.Is(err, errZeroNoise) {
		t.Errorf("zero Tell: %v", err)
	}
	h2, _ := NewNoiseHandler(mustNew(t, HEES2, Config{Dim: 3, Seed: 1}), NoiseConfig{})
	if err := h2.Tell([]float64{1}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("Tell without Ask: %v", err)
	}
	h2.Ask(&pop)
	if err := h2.Tell([]float64{1}); err == nil || !strings.Contains(err.Error(), "Tell got 1 values for") {
		t.Errorf("Tell with the wrong count: %v", err)
	}
}

// mustNew is New that fails the test on an error.
func mustNew(t testing.TB, name string, cfg Config) Strategy {
	t.Helper()
	s, err := New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNoiseHandlerRows checks what a generation asks: the strategy's
// candidates k times each, then (cmaes) its mean k times, then the mean k
// times again; that the strategy is told the medians; and the counts.
func TestNoiseHandlerRows(t *testing.T) {
	for _, name := range []string{HEES, HEES2, CMAES} {
		cfg := Config{Dim: 4, Seed: 3}
		h := newHandled(t, name, cfg, false, NoiseConfig{MaxEvals: 3})
		h.evalsPer = 2.5 // k = 2
		plain := mustNew(t, name, cfg)
		var pop, want linalg.Dense
		if err := h.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		plain.Ask(&want)
		lam, _ := want.Dims()
		items := lam
		if name == CMAES {
			items++
		}
		rows, _ := pop.Dims()
		if rows != 2*(items+1) || h.PopulationSize() != 3*(items+1) || h.GenerationSize() != rows {
			t.Fatalf("%s: %d rows (PopulationSize %d, GenerationSize %d), want %d", name, rows, h.PopulationSize(), h.GenerationSize(), 2*(items+1))
		}
		mean := plain.Mean(nil)
		for b := range items + 1 {
			x := mean
			if b < lam {
				x = want.RawRow(b)
			}
			for j := range 2 {
				if got := pop.RawRow(2*b + j); fmt.Sprint(got) != fmt.Sprint(x) {
					t.Fatalf("%s: row %d is %v, want %v", name, 2*b+j, got, x)
				}
			}
		}
		// Values: the first copy i, the second i + 0.5 (median i + 0.25),
		// and the mean's second k get +10 (the mean's median over 2k is
		// between).
		f := make([]float64, rows)
		for i := range f {
			f[i] = float64(i/2) + 0.5*float64(i%2)
		}
		if err := h.Tell(f); err != nil {
			t.Fatal(err)
		}
		if h.Evals() != rows || h.Generation() != 1 {
			t.Errorf("%s: Evals %d Generation %d", name, h.Evals(), h.Generation())
		}
		mi := 0
		if name == CMAES {
			mi = items - 1
		}
		r := h.Recommend()
		wantF := medianValue([]float64{f[2*mi], f[2*mi+1], f[2*items], f[2*items+1]})
		if fmt.Sprint(r.X) != fmt.Sprint(mean) || r.F != wantF || r.Evals != 4 || r.Means != 1 {
			t.Errorf("%s: recommendation %v %v %d %d, want %v %v 4 1", name, r.X, r.F, r.Evals, r.Means, mean, wantF)
		}
	}
}

// noiseTrajectory runs h on prob for gens generations with an ask/tell
// loop and returns one line per generation; at resumeAt it saves h and
// goes on with Load's copy, before the Ask or (pending) between Ask and
// Tell. reverse evaluates the rows from last to first.
func noiseTrajectory(t *testing.T, h Strategy, prob noisyProblem, gens, resumeAt int, pending, reverse bool) []string {
	t.Helper()
	var lines []string
	var pop linalg.Dense
	save := func() {
		data, err := h.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s, err := Load(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.(*NoiseHandler); !ok {
			t.Fatalf("Load gave a %T", s)
		}
		again, err := s.MarshalBinary()
		if err != nil || string(again) != string(data) {
			t.Fatalf("the restored state saves other bytes (%v)", err)
		}
		h = s
	}
	for g := 0; g < gens && h.Stop() == ""; g++ {
		if g == resumeAt && !pending {
			save()
		}
		base := h.Evals()
		if err := h.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		if g == resumeAt && pending {
			save()
			if err := h.Ask(&pop); err != nil {
				t.Fatal(err)
			}
		}
		rows, _ := pop.Dims()
		f := make([]float64, rows)
		for i := range rows {
			j := i
			if reverse {
				j = rows - 1 - i
			}
			f[j] = prob.EvalKeyed(pop.RawRow(j), uint64(base+j))
		}
		if err := h.Tell(f); err != nil {
			t.Fatal(err)
		}
		nh := h.(*NoiseHandler)
		r := nh.Recommend()
		lines = append(lines, fmt.Sprintf("%s s=%s k=%d rec=%s/%d %s", stateLine(h, f), hexFloat(nh.NoiseMeasure()),
			nh.EvalsPerPoint(), hexFloat(r.F), r.Evals, hexFloats(r.X)))
	}
	return lines
}

// TestNoiseHandlerResume checks that a handled run gives the same bits
// when it is saved and restored before an Ask or between Ask and Tell, and
// when the rows are evaluated in reverse order, for hees, hees2, cmaes and
// IPOP around hees2, with k up to 3 and a recommendation that averages
// means.
func TestNoiseHandlerResume(t *testing.T) {
	// An additive noise that dominates from the start: sigma is raised to
	// sigma0 and k beyond it.
	prob := newNoisy(t, "sphere:noise=add,sigma=100", 4)
	const gens = 150
	for _, tc := range []struct {
		name string
		ipop bool
	}{{HEES, false}, {HEES2, false}, {CMAES, false}, {HEES2, true}} {
		fresh := func() Strategy {
			return newHandled(t, tc.name, Config{Dim: 4, Seed: 2}, tc.ipop, NoiseConfig{MaxEvals: 3})
		}
		want := noiseTrajectory(t, fresh(), prob, gens, -1, false, false)
		for _, resumeAt := range []int{0, 1, 17, 40, 110} {
			for _, pending := range []bool{false, true} {
				got := noiseTrajectory(t, fresh(), prob, gens, resumeAt, pending, resumeAt == 17)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s (ipop %v): resumed at %d (pending %v) differs", tc.name, tc.ipop, resumeAt, pending)
				}
			}
		}
		if !strings.Contains(strings.Join(want, "\n"), " k=2 ") {
			t.Errorf("%s: k never rose above 1 in %d generations", tc.name, gens)
		}
		averaged := false
		for _, line := range want {
			var n int
			_, rest, _ := strings.Cut(line, " rec=")
			_, after, _ := strings.Cut(rest, "/")
			fmt.Sscanf(after, "%d", &n)
			averaged = averaged || n >= 2*recMinWindow
		}
		if !averaged {
			t.Errorf("%s: no recommendation averaged means in %d generations", tc.name, gens)
		}
	}
}

// TestNoiseHandlerWorkers checks that Minimize gives the same Result, the
// recommendation included, with 1 and 4 workers, and that the keys of the
// evaluations count the re-evaluations.
func TestNoiseHandlerWorkers(t *testing.T) {
	prob := newNoisy(t, "sphere:noise=add,sigma=0.01", 5)
	var results []string
	for _, workers := range []int{1, 4} {
		h := newHandled(t, HEES2, Config{Dim: 5, Seed: 1}, false, NoiseConfig{MaxEvals: 4})
		res, err := Minimize(context.Background(), prob, h, Options{Workers: workers, MaxEvals: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Evals != h.Evals() || res.Evals > 3000 || res.Recommendation.Evals < 2 || res.Recommendation.X == nil {
			t.Errorf("workers %d: %d evaluations (handler %d), recommendation %+v", workers, res.Evals, h.Evals(), res.Recommendation)
		}
		res.Elapsed = 0
		results = append(results, fmt.Sprintf("%x %x %d %x %x", res.X, res.F, res.Evals, res.Recommendation.X, res.Recommendation.F))
	}
	if results[0] != results[1] {
		t.Errorf("1 and 4 workers differ:\n%s\n%s", results[0], results[1])
	}
	plain, _ := Minimize(context.Background(), prob, mustNew(t, HEES2, Config{Dim: 5, Seed: 1}), Options{MaxEvals: 100})
	if plain.Recommendation.X != nil {
		t.Errorf("a strategy without handling recommends %v", plain.Recommendation)
	}
}

// TestNoiseHandlerCorrupt checks that UnmarshalBinary refuses truncated
// and altered states and a state of another kind, and leaves the receiver
// unchanged.
func TestNoiseHandlerCorrupt(t *testing.T) {
	h := newHandled(t, CMAES, Config{Dim: 3, Seed: 1}, false, NoiseConfig{})
	prob := newNoisy(t, "sphere:noise=mul", 3)
	noiseTrajectory(t, h, prob, 5, -1, false, false)
	data, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var v NoiseHandler
	for _, bad := range [][]byte{data[:len(data)-1], data[:20], nil} {
		if err := v.UnmarshalBinary(bad); !errors.Is(err, ErrCorruptState) {
			t.Errorf("%d bytes: %v", len(bad), err)
		}
	}
	flipped := append([]byte(nil), data...)
	flipped[30] ^= 1
	if err := v.UnmarshalBinary(flipped); !errors.Is(err, ErrCorruptState) {
		t.Errorf("a flipped bit: %v", err)
	}
	inner, _ := h.inner.MarshalBinary()
	if err := v.UnmarshalBinary(inner); !errors.Is(err, ErrCorruptState) {
		t.Errorf("the inner state: %v", err)
	}
	if err := v.UnmarshalBinary(append([]byte(nil), data...)); err != nil {
		t.Fatal(err)
	}
	v = NoiseHandler{}
	w0 := newStateWriter(noiseStateName)
	w0.int(1)
	for range 3 {
		w0.float(1)
	}
	w0.int(0)
	w0.float(1)
	w0.float(1)
	w0.int(0)
	w0.bool(false)
	w0.int(1)
	w0.floats([]float64{0, 0, 0})
	w0.float(math.NaN())
	w0.int(0)
	w0.bool(false)
	w0.floats(nil)
	w0.float(math.Inf(1))
	w0.string(string(data))
	if err := v.UnmarshalBinary(w0.finish()); !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "a noise state inside") {
		t.Errorf("a noise state inside: %v", err)
	}
	if !v.unset() {
		t.Error("a failed UnmarshalBinary changed the receiver")
	}
	// A state whose inner strategy cannot be handled: es11's.
	w := newStateWriter(noiseStateName)
	w.int(1)
	for range 3 {
		w.float(1)
	}
	w.int(0) // no differences kept
	w.float(1)
	w.float(1)
	w.int(0)
	w.bool(false)
	w.int(1)
	w.floats([]float64{0, 0})
	w.float(math.NaN())
	w.int(0)
	w.bool(false)
	w.floats(nil)
	w.float(math.Inf(1))
	es11, _ := mustNew(t, ES11, Config{Dim: 2, Seed: 1}).MarshalBinary()
	w.string(string(es11))
	if err := v.UnmarshalBinary(w.finish()); !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "no noise handling") {
		t.Errorf("es11 inside: %v", err)
	}
}

// TestNoiseHandlerHelps checks the handling where it matters: on the
// sphere with severe multiplicative noise (bbob-noisy f107) in d = 5,
// seeds 1-3 with 20000 evaluations, the noise-free value of the
// recommendation of hees2 with handling is below 1e-6 in every run, while
// hees2 alone stops (its A degenerates) or stalls above it in at least
// one. It also checks that the handler keeps the run going past the
// criteria on f-values.
func TestNoiseHandlerHelps(t *testing.T) {
	p, err := objectives.Parse("bbob-noisy/f107/i1", 5)
	if err != nil {
		t.Fatal(err)
	}
	noisy := p.(objectives.Noisy)
	_, fopt, _ := p.Optimum()
	stalled := 0
	for seed := uint64(1); seed <= 3; seed++ {
		prob := noisyProblem{noisy}
		cfg := Config{Dim: 5, Seed: seed, Box: 4}
		h := newHandled(t, HEES2, cfg, false, NoiseConfig{})
		res, err := Minimize(context.Background(), prob, h, Options{MaxEvals: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if got := noisy.Noiseless(res.Recommendation.X) - fopt; !(got < 1e-6) || res.Reason != ReasonMaxEvals {
			t.Errorf("seed %d: recommendation at f - f* = %g (%s)", seed, got, res.Reason)
		}
		plain := mustNew(t, HEES2, cfg)
		res, _ = Minimize(context.Background(), prob, plain, Options{MaxEvals: 20000})
		if noisy.Noiseless(plain.Mean(nil))-fopt >= 1e-6 {
			stalled++
		}
	}
	if stalled == 0 {
		t.Error("hees2 without handling reached 1e-6 in every run: the test no longer shows the handling")
	}
}

// TestNoiseHandlerInject checks known points with a handler: the batch
// counts as evaluations, a better one becomes the best single value, and
// a target is tested on the recommendation, not on a single lucky value.
func TestNoiseHandlerInject(t *testing.T) {
	prob := newNoisy(t, "sphere:noise=add", 3)
	h := newHandled(t, CMAES, Config{Dim: 3, Seed: 1}, false, NoiseConfig{})
	target := -0.25
	res, err := Minimize(context.Background(), prob, h, Options{MaxEvals: 500, Target: &target,
		Inject: [][]float64{{0, 0, 0}, {1, 1, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evals != h.Evals() || res.Evals < 400 {
		t.Errorf("%d evaluations (handler %d)", res.Evals, h.Evals())
	}
	if res.F > prob.EvalKeyed([]float64{0, 0, 0}, 0) || !(res.F < target) {
		t.Errorf("best single value %v: not the injected point's or below the target %v", res.F, target)
	}
	if res.Reason == ReasonTarget && !(res.Recommendation.F <= target) {
		t.Errorf("stopped at the target with the recommendation at %v", res.Recommendation.F)
	}
}

// TestNoiseHandlerSigmaUpToSigma0 checks the response of
// docs/ALGORITHMS.md Section 20 item 2: while the noise dominates, sigma
// is multiplied by alpha as long as it is at most the run's sigma0, and
// above sigma0 the evaluations per point grow by alpha instead (sigma
// grown by alpha each generation let the mean wander off on noise that
// grows as f falls); without noise k shrinks. On an objective whose noise
// dominates everywhere k reaches MaxEvals (below NoiseGrowEvals).
func TestNoiseHandlerSigmaUpToSigma0(t *testing.T) {
	for _, name := range []string{HEES, HEES2, CMAES} {
		h := newHandled(t, name, Config{Dim: 4, Seed: 3, Sigma0: 0.5}, false, NoiseConfig{})
		c := innermost(h.inner).(hasCore).coreOf()
		alpha := 1 + 2/float64(4+10)
		h.noiseS = 1
		for _, sigma := range []float64{0.25, 0.5, 0.75} {
			c.sigma, h.evalsPer = sigma, 2
			h.respond(innermost(h.inner))
			wantSigma, wantK := sigma*alpha, 2.0
			if sigma > 0.5 {
				wantSigma, wantK = sigma, 2*alpha
			}
			if c.sigma != wantSigma || h.evalsPer != wantK {
				t.Errorf("%s, s > 0, sigma %g (sigma0 0.5): sigma %g, k %g; want %g, %g", name, sigma, c.sigma, h.evalsPer, wantSigma, wantK)
			}
		}
		h.noiseS = -1
		c.sigma, h.evalsPer = 0.75, 2
		h.respond(innermost(h.inner))
		if c.sigma != 0.75 || h.evalsPer != 2*math.Pow(alpha, -0.25) {
			t.Errorf("%s, s < 0: sigma %g, k %g; want 0.75, %g", name, c.sigma, h.evalsPer, 2*math.Pow(alpha, -0.25))
		}
	}

	prob := newNoisy(t, "sphere:noise=add,sigma=1e6", 4)
	for _, name := range []string{HEES2, CMAES} {
		// Below NoiseGrowEvals, so that the population stays
		// (TestNoiseHandlerGrows has the doublings).
		h := newHandled(t, name, Config{Dim: 4, Seed: 3}, false, NoiseConfig{MaxEvals: NoiseGrowEvals - 1})
		f := inOrder(prob)
		var pop linalg.Dense
		maxK := 0
		for range 300 {
			askTellGeneration(t, h, f, &pop)
			maxK = max(maxK, h.EvalsPerPoint())
		}
		if maxK != NoiseGrowEvals-1 || h.Doublings() != 0 {
			t.Errorf("%s on noise alone: at most %d evaluations per point, %d doublings; want %d, 0", name, maxK, h.Doublings(), NoiseGrowEvals-1)
		}
	}
}

// TestNoiseHandlerDampFloor checks the floor of the damping of eta_A
// (docs/ALGORITHMS.md Section 20 item 3): on noise alone rho sits at
// noiseRhoFloor and never below it, and A goes on learning, so that hees2
// solves the Rosenbrock function with severe Cauchy noise (bbob-noisy
// f112) in d = 10, which it never solved within 10^5 evaluations while
// rho could reach 0.
func TestNoiseHandlerDampFloor(t *testing.T) {
	prob := newNoisy(t, "sphere:noise=add,sigma=1e6", 4)
	h := newHandled(t, HEES2, Config{Dim: 4, Seed: 3}, false, NoiseConfig{})
	f := inOrder(prob)
	var pop linalg.Dense
	floored := 0
	for range 100 {
		ad, etaA := adaptationOf(innermost(h.inner))
		askTellGeneration(t, h, f, &pop)
		if h.rho < noiseRhoFloor || ad.etaA != float64(etaA*h.rho) {
			t.Fatalf("rho %v, eta_A %v of %v: below the floor %v or not eta_A rho", h.rho, ad.etaA, etaA, noiseRhoFloor)
		}
		if h.rho == noiseRhoFloor {
			floored++
		}
	}
	if floored < 50 {
		t.Errorf("on noise alone rho was at its floor in %d generations of 100", floored)
	}

	p, err := objectives.Parse("bbob-noisy/f112/i1", 10)
	if err != nil {
		t.Fatal(err)
	}
	noisy := p.(objectives.Noisy)
	_, fopt, _ := p.Optimum()
	for seed := uint64(1); seed <= 3; seed++ {
		h := newHandled(t, HEES2, Config{Dim: 10, Seed: seed, Sigma0: 2, Box: 4}, false, NoiseConfig{})
		res, err := Minimize(context.Background(), noisyProblem{noisy}, h, Options{MaxEvals: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if got := noisy.Noiseless(res.Recommendation.X) - fopt; !(got < 1e-8) {
			t.Errorf("seed %d: recommendation at f - f* = %g after %d evaluations", seed, got, res.Evals)
		}
	}
}

// TestNoiseHandlerGrows checks the doubling of docs/ALGORITHMS.md Section
// 20 item 2: on noise alone, where k would reach NoiseGrowEvals, the
// strategy starts anew from its mean with twice its population and k = 1
// while Generation goes on counting; after NoiseMaxDoublings doublings k
// grows up to MaxEvals instead; inside IPOP the population stays (IPOP
// doubles it at its restarts); and a run saved and restored across a
// doubling gives the same bits.
func TestNoiseHandlerGrows(t *testing.T) {
	prob := newNoisy(t, "sphere:noise=add,sigma=100", 4)
	f := inOrder(prob)
	var pop linalg.Dense
	for _, name := range []string{HEES, HEES2, CMAES} {
		h := newHandled(t, name, Config{Dim: 4, Seed: 2}, false, NoiseConfig{})
		row := rowOf(name)
		n0 := row.populationOf(innermost(h.inner).(hasCore).coreOf().cfg)
		for g := 0; h.Doublings() < 2; g++ {
			if g == 400 {
				t.Fatalf("%s: %d doublings in %d generations of noise alone", name, h.Doublings(), g)
			}
			old, grown, gen, k := h.inner, h.Doublings(), h.Generation(), h.EvalsPerPoint()
			askTellGeneration(t, h, f, &pop)
			if h.Generation() != gen+1 {
				t.Fatalf("%s: generation %d after %d", name, h.Generation(), gen)
			}
			if h.Doublings() == grown {
				continue
			}
			c := h.inner.(hasCore).coreOf()
			if n := row.populationOf(c.cfg); n != n0<<h.Doublings() || h.EvalsPerPoint() != 1 || k < NoiseGrowEvals-1 ||
				!slices.Equal(h.Mean(nil), old.Mean(nil)) || c.sigma != c.cfg.Sigma0 {
				t.Errorf("%s: doubling %d: population %d (first %d), k %d after %d, sigma %v, mean %v from %v",
					name, h.Doublings(), n, n0, h.EvalsPerPoint(), k, c.sigma, h.Mean(nil), old.Mean(nil))
			}
			// The search distribution goes on: sigma A as before.
			newA, oldA := TransformOf(h.inner), TransformOf(old)
			for i := range 4 {
				for j := range 4 {
					if got, want := c.sigma*newA.At(i, j), old.Sigma()*oldA.At(i, j); math.Abs(got-want) > 1e-12*math.Abs(want) {
						t.Fatalf("%s: doubling %d: sigma A[%d][%d] = %v, was %v", name, h.Doublings(), i, j, got, want)
					}
				}
			}
		}
		h.grown = NoiseMaxDoublings
		maxK := 0
		for range 200 {
			askTellGeneration(t, h, f, &pop)
			maxK = max(maxK, h.EvalsPerPoint())
		}
		if maxK != DefaultNoiseEvals || h.Doublings() != NoiseMaxDoublings {
			t.Errorf("%s after the last doubling: at most %d evaluations per point, %d doublings; want %d, %d",
				name, maxK, h.Doublings(), DefaultNoiseEvals, NoiseMaxDoublings)
		}
	}

	ipop := newHandled(t, HEES2, Config{Dim: 4, Seed: 2}, true, NoiseConfig{})
	for range 150 {
		askTellGeneration(t, ipop, f, &pop)
	}
	if ipop.Doublings() != 0 || ipop.EvalsPerPoint() < NoiseGrowEvals {
		t.Errorf("inside IPOP: %d doublings, k %d", ipop.Doublings(), ipop.EvalsPerPoint())
	}

	fresh := func() Strategy { return newHandled(t, HEES2, Config{Dim: 4, Seed: 2}, false, NoiseConfig{}) }
	const gens = 80
	want := noiseTrajectory(t, fresh(), prob, gens, -1, false, false)
	h := fresh().(*NoiseHandler)
	for range gens {
		askTellGeneration(t, h, f, &pop)
	}
	if h.Doublings() == 0 {
		t.Fatalf("no doubling in %d generations: the resume below does not cross one", gens)
	}
	for _, resumeAt := range []int{20, 50, 70} {
		got := noiseTrajectory(t, fresh(), prob, gens, resumeAt, resumeAt == 70, false)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("resumed at %d differs", resumeAt)
		}
	}

	// Minimize reports the doublings in its Result.
	m := fresh().(*NoiseHandler)
	res, err := Minimize(context.Background(), prob, m, Options{MaxEvals: 5000})
	if err != nil || res.Doublings == 0 || res.Doublings != m.Doublings() || res.Generations != m.Generation() {
		t.Errorf("Minimize: %d doublings in %d generations (handler %d, %d), %v",
			res.Doublings, res.Generations, m.Doublings(), m.Generation(), err)
	}

	// A state whose counts of doublings and generations cannot be is
	// refused; a fresh one stays in version 1.
	for _, tc := range []struct{ grown, pastGens int }{{NoiseMaxDoublings + 1, 0}, {1, -1}, {1, h.evals + 1}} {
		bad := *h
		bad.grown, bad.pastGens = tc.grown, tc.pastGens
		data, err := bad.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(data); !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "doublings") {
			t.Errorf("%d doublings after %d generations: Load gave %v", tc.grown, tc.pastGens, err)
		}
	}
	data, err := fresh().MarshalBinary()
	if err != nil || !strings.HasPrefix(string(data), stateHeader(noiseStateName)) {
		t.Errorf("the state of a fresh handler: %.20q (%v), want version 1", data, err)
	}
}

// TestGrowConfig checks that a doubled population takes the tuning
// defaults of its own size, and keeps a tuning field the caller set.
func TestGrowConfig(t *testing.T) {
	_, rc, err := newResolved(HEES2, Config{Dim: 20, EtaA: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	got, err := growConfig(HEES2, rc, 2*rc.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := newResolved(HEES2, Config{Dim: 20, EtaA: 0.7, Pairs: 2 * rc.Pairs})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = resolve(HEES2, got); err != nil {
		t.Fatal(err)
	}
	if got.Pairs != want.Pairs || got.EtaA != 0.7 || got.CS != want.CS || got.DS != want.DS || got.DS == rc.DS {
		t.Errorf("grown %+v\nwant   %+v (from %+v)", got, want, rc)
	}
}

// TestNoiseHandlerStopRestarts checks Section 20 item 4: a stop of a
// strategy the handler runs alone starts it anew from its mean with
// sigma0, A = I and twice its population, on a criterion on f-values
// (tolfun, where the noise vanishes at the optimum) as on the others; the
// recommendation stays the stopped run's while the new run's estimate is
// not below it; after NoiseMaxDoublings a stop ends the run; a run saved
// and restored across the restart gives the same bits; NaN values give
// nothing to hold and states that load; inside IPOP the stop is IPOP's.
func TestNoiseHandlerStopRestarts(t *testing.T) {
	mul := newNoisy(t, "sphere:noise=mul,sigma=0.5", 5)
	var pop linalg.Dense
	for _, name := range []string{HEES2, CMAES} {
		h := newHandled(t, name, Config{Dim: 5, Seed: 1}, false, NoiseConfig{})
		row := rowOf(name)
		n0 := row.populationOf(h.inner.(hasCore).coreOf().cfg)
		f := inOrder(mul)
		old := h.inner
		var before Recommendation
		for g := 0; h.Doublings() == 0; g++ {
			if g == 1000 {
				t.Fatalf("%s: no restart in %d generations on the converging sphere", name, g)
			}
			before = h.Recommend()
			askTellGeneration(t, h, f, &pop)
		}
		c := h.inner.(hasCore).coreOf()
		if old.Stop() != ReasonTolFun || h.Stop() != "" || row.populationOf(c.cfg) != 2*n0 || c.sigma != c.cfg.Sigma0 ||
			!slices.Equal(h.Mean(nil), old.Mean(nil)) || !identityOrNil(TransformOf(h.inner)) {
			t.Errorf("%s: restart after %q: stop %q, population %d (first %d), sigma %v (sigma0 %v), mean %v from %v",
				name, old.Stop(), h.Stop(), row.populationOf(c.cfg), n0, c.sigma, c.cfg.Sigma0, h.Mean(nil), old.Mean(nil))
		}
		// The stopped run's recommendation is the last mean it evaluated,
		// whose value is near 0, far below what the new run evaluates once
		// its mean has left the stopped run's (after its first generation).
		askTellGeneration(t, h, f, &pop)
		for range 20 {
			askTellGeneration(t, h, f, &pop)
			r := h.Recommend()
			if !slices.Equal(r.X, h.held.X) || r.F != h.held.F || !(h.rec.F > r.F) {
				t.Fatalf("%s: recommended %v (estimate %v), the held one %v (%v), the new run's last mean %v",
					name, r.X, r.F, h.held.X, h.held.F, h.rec.F)
			}
		}
		if v := mul.p.Noiseless(h.held.X); !(v < 1e-8) || h.held.Evals < 2 || !(before.F <= h.held.F) {
			t.Errorf("%s: held recommendation at %v from %d evaluations, estimate %v (the last before the stop %v)",
				name, v, h.held.Evals, h.held.F, before.F)
		}
	}

	// On a linear function sigma grows until "sigma too large" stops the
	// run, a stop that is not on f-values; the run restarts from its mean,
	// where sigma0 is too small for it, NoiseMaxDoublings times, and the
	// next stop ends it.
	lin := newHandled(t, HEES2, Config{Dim: 5, Seed: 1}, false, NoiseConfig{})
	var stops []Reason
	for g := 0; lin.Stop() == ""; g++ {
		if g == 1000 {
			t.Fatalf("linear function: no end in %d generations (%d doublings)", g, lin.Doublings())
		}
		old := lin.inner
		askTellGeneration(t, lin, func(x []float64) float64 { return x[0] }, &pop)
		if lin.inner != old {
			stops = append(stops, old.Stop())
		}
	}
	if len(stops) != NoiseMaxDoublings || stops[0] != ReasonSigmaTooLarge || lin.Doublings() != NoiseMaxDoublings {
		t.Errorf("linear function: restarts after %q, %d doublings, stopped by %q", stops, lin.Doublings(), lin.Stop())
	}

	// Saved and restored before, across and after the restart.
	fresh := func() Strategy { return newHandled(t, HEES2, Config{Dim: 5, Seed: 1}, false, NoiseConfig{}) }
	const gens = 220
	want := noiseTrajectory(t, fresh(), mul, gens, -1, false, false)
	h := fresh().(*NoiseHandler)
	f := inOrder(mul)
	for range gens {
		askTellGeneration(t, h, f, &pop)
	}
	if h.Doublings() == 0 || h.held.Evals == 0 {
		t.Fatalf("no restart in %d generations: the resume below does not cross one", gens)
	}
	for _, resumeAt := range []int{100, 200, 210} {
		got := noiseTrajectory(t, fresh(), mul, gens, resumeAt, resumeAt == 210, false)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("resumed at %d differs", resumeAt)
		}
	}
	data, err := h.MarshalBinary()
	if err != nil || !strings.HasPrefix(string(data), stateHeaderVersion(noiseStateName, noiseStateHeld)) {
		t.Errorf("the state after a restart: %.20q (%v), want version 4", data, err)
	}
	for _, bad := range []func(*Recommendation){
		func(r *Recommendation) { r.Means = 0 },
		func(r *Recommendation) { r.X = r.X[:2] },
		func(r *Recommendation) { r.F = math.NaN() },
	} {
		v := *h
		v.held.X = slices.Clone(h.held.X)
		bad(&v.held)
		data, err := v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(data); !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "held recommendation") {
			t.Errorf("held recommendation %+v: Load gave %v", v.held, err)
		}
	}

	// An objective of NaN values only: each stop starts a new run, none
	// has an estimate to hold, and every state saved on the way loads.
	nan := newHandled(t, HEES2, Config{Dim: 3, Seed: 1}, false, NoiseConfig{})
	for g := 0; nan.Stop() == ""; g++ {
		if g == 2000 {
			t.Fatalf("NaN values: no end in %d generations (%d doublings)", g, nan.Doublings())
		}
		askTellGeneration(t, nan, func([]float64) float64 { return math.NaN() }, &pop)
		data, err := nan.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(data); err != nil {
			t.Fatalf("NaN values, generation %d: the saved state does not load: %v", g, err)
		}
	}
	if nan.Doublings() != NoiseMaxDoublings || nan.held.Evals != 0 || nan.Stop() != ReasonNotFinite {
		t.Errorf("NaN values: %d doublings, held %+v, stopped by %q", nan.Doublings(), nan.held, nan.Stop())
	}

	// Inside IPOP the stop restarts IPOP's run, and the handler holds
	// nothing.
	ipop := newHandled(t, HEES2, Config{Dim: 5, Seed: 1}, true, NoiseConfig{})
	f = inOrder(mul)
	for range 400 {
		askTellGeneration(t, ipop, f, &pop)
	}
	if ipop.Restarts() == 0 || ipop.Doublings() != 0 || ipop.held.Evals != 0 {
		t.Errorf("inside IPOP: %d restarts, %d doublings, held %+v", ipop.Restarts(), ipop.Doublings(), ipop.held)
	}
}

// identityOrNil reports whether a is nil or the identity matrix.
func identityOrNil(a *linalg.Dense) bool {
	if a == nil {
		return true
	}
	r, _ := a.Dims()
	return sameMatrix(a, linalg.NewIdentity(r))
}
