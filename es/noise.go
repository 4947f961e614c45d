package es

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
)

// Uncertainty handling (docs/ALGORITHMS.md Section 20). A NoiseHandler
// wraps hees, hees2 or cmaes (alone or inside IPOP or BIPOP) and changes
// what a generation evaluates and what the strategy is told:
//
//	ask      the strategy's candidates, each k times (k = 1 by default),
//	         then its mean k more times: the mean is row 0 of hees and
//	         hees2, and an extra point (k rows) for cmaes
//	tell     the median of each point's k values; the mean's two medians
//	         measure the noise by the change of its rank among the
//	         generation's values (Hansen et al. 2009, as pycma's
//	         NoiseHandler), smoothed into s; the mean is told the median
//	         of all its 2k values
//	respond  s > 0: sigma *= alpha = 1 + 2/(d + 10) while sigma is at
//	         most the run's sigma0, else k grows by alpha up to
//	         MaxEvals, and where k would reach 4 the strategy starts
//	         anew from its mean and sigma A with twice its population
//	         and k = 1 (at most 8 times; not inside IPOP or BIPOP);
//	         s <= 0: k shrinks by alpha^(-1/4) down to 1
//	damp     hees and hees2: eta_A is multiplied by rho = max(0.3,
//	         1 - 2/R^2), R the ratio of the smoothed median |f(x^+) +
//	         f(x^-) - 2 f(m)| to the 75th percentile of the differences
//	         of the mean's two medians over the last 10 generations
//	         (about sqrt(2) when the curvature estimates are noise alone)
//	stop     a stop of a strategy run alone starts it anew from its
//	         mean with sigma0, A = I and twice its population (a
//	         doubling too); the recommendation of the stopped run is
//	         held while the new run's estimate is not below it; with no
//	         doubling left the criteria on f-values that noise defeats
//	         (tolfun, tolfunhist, stagnation) are ignored and the others
//	         end the run (inside IPOP or BIPOP a stop restarts the run)
//	report   the recommendation (Recommend), on which Run and Minimize
//	         test a target: the average of the run's recent means where
//	         their estimates show no trend over 64 generations or more,
//	         else the last mean (es/noiserec.go); its estimate is the
//	         median of the values behind it

// NoiseConfig configures a NoiseHandler. The zero value selects the
// defaults.
type NoiseConfig struct {
	// MaxEvals is the largest number of evaluations of one point, whose
	// median the strategy is told: while the handler detects noise and
	// sigma is above the run's sigma0 (Config.Sigma0), it raises the
	// number by the factor alpha per generation up to MaxEvals, and it
	// lowers it by alpha^(-1/4) down to 1 otherwise. Where the number
	// would reach NoiseGrowEvals, a strategy the handler runs alone
	// starts anew from its search distribution with twice its population
	// instead, up to NoiseMaxDoublings times. 0 means DefaultNoiseEvals;
	// 1 leaves sigma as the only response, and below NoiseGrowEvals the
	// population stays.
	MaxEvals int
}

// DefaultNoiseEvals is the default NoiseConfig.MaxEvals
// (docs/ALGORITHMS.md Section 20 item 2 measured it).
const DefaultNoiseEvals = 30

// NoiseGrowEvals is the number of evaluations per point at which a
// NoiseHandler doubles the population of the strategy it runs alone
// instead (docs/ALGORITHMS.md Section 20 item 2 measured it).
const NoiseGrowEvals = 4

// NoiseMaxDoublings is the most times a NoiseHandler doubles the
// population, where the evaluations per point would reach NoiseGrowEvals
// or at a stop of the strategy, together; beyond it the evaluations per
// point grow up to MaxEvals and a stop ends the run.
const NoiseMaxDoublings = 8

// MaxNoiseEvals bounds NoiseConfig.MaxEvals: a generation asks at most
// that many copies of each point.
const MaxNoiseEvals = 1000

// Recommendation is the point a run recommends when its objective is
// noisy, apart from its best single evaluation, which noise makes the
// luckiest draw rather than the best point.
type Recommendation struct {
	// X is the recommended point: for a NoiseHandler, the average of
	// the recent means of its run where their estimates show no trend,
	// else the mean of the search distribution that was evaluated last;
	// or, where its estimate is lower, the recommendation of a run that
	// stopped before the current one started.
	X []float64
	// F is its estimated value, the median of its Evals values (NaN
	// before it was evaluated): for an average, the median of the values
	// of the means it averages, which is above the value of the average
	// where f is convex.
	F float64
	// Evals is the number of evaluations behind F.
	Evals int
	// Means is the number of means X averages: 1 for the last mean, more
	// for an average (0 before the first generation).
	Means int
}

// Recommender is a strategy that recommends a point other than its best
// evaluation (NoiseHandler); Run.Result and Minimize report it in
// Result.Recommendation.
type Recommender interface {
	// Recommend returns the recommendation, X a copy.
	Recommend() Recommendation
}

// NoiseHandler is uncertainty handling around a population strategy: a
// Strategy that evaluates the strategy's mean twice in every generation,
// measures the noise by the change of its rank, and responds by raising
// sigma up to the run's sigma0 and the evaluations per point beyond it,
// damping the HE-ES's update of A while its curvature estimates are below
// the noise and starting the strategy anew at its stops; it
// recommends the mean with its estimated value (Recommend). The listing is
// at the top of es/noise.go, the reasons and measurements in
// docs/ALGORITHMS.md Section 20.
//
// Name, Dim, Mean, Sigma, Generation, Stop and Transform are the
// strategy's: the handling is a property of the run, not another strategy,
// so that a checkpoint of hees run names the strategy it runs. Evals counts
// every evaluation, re-evaluations included, so that a budget and the keys
// of a KeyedProblem count them too. Best is the best single value, as Run
// and Minimize report it, apart from the recommendation.
//
// Build a NoiseHandler with NewNoiseHandler; the zero value is only a
// destination for UnmarshalBinary.
type NoiseHandler struct {
	inner    Strategy
	maxEvals int
	dim      int

	noiseS   float64 // the rank-change measure s, smoothed
	evalsPer float64 // evaluations per point, k = floor(evalsPer)
	logNoise float64 // ln of the noise scale of diffs (NaN before the first)
	logCurv  float64 // ln of the median curvature signal, smoothed (NaN before the first)
	rho      float64 // the damping factor of eta_A
	// diffs holds |f(m)_1 - f(m)_2|, the differences of the mean's two
	// medians, of the last noiseWindow generations.
	diffs history
	evals int // evaluations told, plus the strategy's own before the handler
	// grown is the number of times the handler doubled the population,
	// pastGens the generations of the runs it replaced.
	grown, pastGens int

	pending bool
	k       int          // evaluations per point of the pending generation
	pop     linalg.Dense // the strategy's candidates
	mean    []float64    // cmaes's mean, the extra point of a generation
	items   int          // points of a generation before the re-evaluation
	a1, a2  []float64    // the medians of each point's first k values; a2 is a1 but for the mean's second k
	told    []float64
	order   []int
	ranks   []int
	joint   []float64
	dist    []float64
	scratch []float64

	rec Recommendation // the last mean evaluated
	win meanWindow     // the recent means of the run
	// held is the best recommendation of the runs a stop ended (item 4),
	// by its estimate; Evals is 0 for none.
	held Recommendation

	// The best single value told, as Run keeps it (the first of equal
	// values), and its point in the objective's space.
	bestX   []float64
	bestF   float64
	hasBest bool
}

// noiseStateName names the NoiseHandler's state in its header,
// "hees-es/noise/v1" (v2 once the population was doubled); the format and
// checksum are the strategies'.
const noiseStateName = "noise"

// noiseStateGrown is the version of a NoiseHandler's state that holds the
// doublings of the population and the generations before them; a state
// without doublings or means recorded stays in version 1.
const noiseStateGrown = 2

// noiseStateWindow is the version that holds the recent means of the run
// too (meanWindow), once one was recorded.
const noiseStateWindow = 3

// noiseStateHeld is the version that holds the recommendation of a run a
// stop ended too (NoiseHandler.held), once there is one.
const noiseStateHeld = 4

var errZeroNoise = errors.New("es: NoiseHandler not set up (use NewNoiseHandler or UnmarshalBinary)")

// NewNoiseHandler returns s with uncertainty handling. s must be hees,
// hees2 or cmaes, or an IPOP or BIPOP of one of them (the elitist
// strategies keep a lucky parent and are refused), and must have no
// generation pending; it may be fresh or restored. NewNoiseHandler reports
// a bad MaxEvals too.
func NewNoiseHandler(s Strategy, cfg NoiseConfig) (*NoiseHandler, error) {
	if s == nil {
		return nil, errors.New("es: NewNoiseHandler: nil Strategy")
	}
	if err := unsetWrapper(s); err != nil {
		return nil, fmt.Errorf("es: NewNoiseHandler: %w", err)
	}
	if _, ok := s.(*NoiseHandler); ok {
		return nil, errors.New("es: NewNoiseHandler: the strategy already has noise handling")
	}
	if !noiseCapable(innermost(s)) {
		return nil, fmt.Errorf("es: NewNoiseHandler: %s has no noise handling (only hees, hees2 and cmaes, alone or with restarts)", s.Name())
	}
	if cfg.MaxEvals < 0 || cfg.MaxEvals > MaxNoiseEvals {
		return nil, fmt.Errorf("es: NewNoiseHandler: MaxEvals = %d: must be in [0, %d]", cfg.MaxEvals, MaxNoiseEvals)
	}
	if cfg.MaxEvals == 0 {
		cfg.MaxEvals = DefaultNoiseEvals
	}
	if innermost(s).(hasCore).coreOf().pending {
		return nil, errors.New("es: NewNoiseHandler: the strategy has a generation pending (wrap it before Ask or after Tell)")
	}
	h := &NoiseHandler{inner: s, maxEvals: cfg.MaxEvals, dim: s.Dim(), evalsPer: 1, logNoise: math.NaN(),
		logCurv: math.NaN(), rho: 1, evals: s.Evals()}
	h.rec = Recommendation{X: s.Mean(nil), F: math.NaN()}
	h.diffs = history{buf: make([]float64, noiseWindow)}
	h.win = newMeanWindow(h.dim)
	h.bestX, h.bestF = s.Best()
	h.hasBest = h.bestX != nil
	return h, nil
}

// innermost returns the strategy that runs now inside s: the current run
// of an IPOP or BIPOP.
func innermost(s Strategy) Strategy {
	switch w := s.(type) {
	case *IPOP:
		return innermost(w.inner)
	case *BIPOP:
		return innermost(w.ipop().inner)
	}
	return s
}

// noiseCapable reports whether the handler can run s: its row of the
// table says so (Info.Noise).
func noiseCapable(s Strategy) bool {
	row, err := lookup(s.Name())
	return err == nil && row.Noise
}

// coreOf returns the shared state of a strategy of the table, for the
// NoiseHandler's responses.
func (c *core) coreOf() *core { return c }

// hasCore is a strategy of the table (every one embeds core).
type hasCore interface{ coreOf() *core }

// meanEvaluated reports whether row 0 of s's generation is its mean.
func meanEvaluated(s Strategy) bool {
	switch s.(type) {
	case *hees, *hees2:
		return true
	}
	return false
}

// adaptationOf returns the HE-ES's adaptation of A of s and its configured
// eta_A, or nil.
func adaptationOf(s Strategy) (*adaptation, float64) {
	switch h := s.(type) {
	case *hees:
		return &h.ad, h.cfg.EtaA
	case *hees2:
		return &h.ad, h.cfg.EtaA
	}
	return nil, 0
}

// unset reports whether h is nil or was set up by neither NewNoiseHandler
// nor UnmarshalBinary.
func (h *NoiseHandler) unset() bool { return h == nil || h.inner == nil }

// Name is the strategy's name.
func (h *NoiseHandler) Name() string {
	if h.unset() {
		return ""
	}
	return h.inner.Name()
}

// Dim is the dimension of the search space.
func (h *NoiseHandler) Dim() int {
	if h == nil {
		return 0
	}
	return h.dim
}

// PopulationSize is the most rows a generation asks: the strategy's
// candidates, its mean when they do not hold it, and the mean again, each
// MaxEvals times.
func (h *NoiseHandler) PopulationSize() int {
	if h.unset() {
		return 0
	}
	n := h.inner.PopulationSize() + 1
	if !meanEvaluated(innermost(h.inner)) {
		n++
	}
	return n * h.maxEvals
}

// GenerationSize is the number of rows the next Ask writes (before a
// doubling or a restart that the generation may bring): the strategy's
// candidates, and for cmaes its mean, each EvalsPerPoint times, and the
// mean as many times again. PopulationSize bounds it.
func (h *NoiseHandler) GenerationSize() int {
	if h.unset() {
		return 0
	}
	return h.PopulationSize() / h.maxEvals * h.EvalsPerPoint()
}

// Mean is the strategy's mean.
func (h *NoiseHandler) Mean(dst []float64) []float64 {
	if h.unset() {
		return dst[:0]
	}
	return h.inner.Mean(dst)
}

// Sigma is the strategy's step size.
func (h *NoiseHandler) Sigma() float64 {
	if h.unset() {
		return 0
	}
	return h.inner.Sigma()
}

// Best returns a copy of the best single value told and its point (the
// first of equal values), as Run keeps them: the luckiest draw under noise
// (Recommend is the point to use). Nil and +Inf before a value below +Inf.
func (h *NoiseHandler) Best() ([]float64, float64) {
	if h.unset() || !h.hasBest {
		return nil, math.Inf(1)
	}
	return slices.Clone(h.bestX), h.bestF
}

// fold takes the value f of the point x into the best single value.
func (h *NoiseHandler) fold(x []float64, f float64) {
	if worstValue(f) || (h.hasBest && !(f < h.bestF)) {
		return
	}
	h.bestX = append(h.bestX[:0], x...)
	h.bestF, h.hasBest = f, true
}

// checkPoint checks a known point against the strategy (Run.Inject).
func (h *NoiseHandler) checkPoint(x []float64) error {
	if h.unset() {
		return errZeroNoise
	}
	return h.inner.(injector).checkPoint(x)
}

// inject counts the known point's evaluation, takes it into the best
// single value, and gives it to the strategy.
func (h *NoiseHandler) inject(x []float64, f float64) {
	h.evals++
	h.fold(x, f)
	h.inner.(injector).inject(x, f)
}

// Evals is the number of evaluations, re-evaluations included.
func (h *NoiseHandler) Evals() int {
	if h == nil {
		return 0
	}
	return h.evals
}

// Generation is the number of generations, those of the runs the handler
// replaced when it doubled the population included.
func (h *NoiseHandler) Generation() int {
	if h.unset() {
		return 0
	}
	return h.pastGens + h.inner.Generation()
}

// Doublings is the number of times the handler doubled the population
// (at NoiseGrowEvals evaluations per point or at a stop).
func (h *NoiseHandler) Doublings() int {
	if h == nil {
		return 0
	}
	return h.grown
}

// Stop is the strategy's stop reason.
func (h *NoiseHandler) Stop() Reason {
	if h.unset() {
		return ""
	}
	return h.inner.Stop()
}

// Restarts is the number of restarts of a restarting strategy.
func (h *NoiseHandler) Restarts() int {
	if h.unset() {
		return 0
	}
	return restartsOf(h.inner)
}

// Transform is the strategy's transformation A (Transformer), or nil.
func (h *NoiseHandler) Transform() *linalg.Dense {
	if h.unset() {
		return nil
	}
	return TransformOf(h.inner)
}

// EvalsPerPoint is the number of evaluations of each point in the next
// generation.
func (h *NoiseHandler) EvalsPerPoint() int {
	if h.unset() {
		return 0
	}
	if h.pending {
		return h.k
	}
	return int(h.evalsPer)
}

// NoiseMeasure is the smoothed rank-change measure s: positive while the
// noise changes the ranks more than a quarter of random ranks would.
func (h *NoiseHandler) NoiseMeasure() float64 {
	if h == nil {
		return 0
	}
	return h.noiseS
}

// Recommend returns the recommended point with its estimate: the average
// of the run's recent means where their estimates show no trend (over 64
// generations or more; es/noiserec.go), else the last mean evaluated with
// the median of its evaluations; before the first generation, the mean
// with F NaN and Evals 0. Where a run before the current one stopped
// (item 4), it is that run's recommendation while the current one's
// estimate is not below it. It passes over up to 2,048 estimates for each
// of five windows (50-80 µs): call it when the recommendation is
// needed rather than after every Tell.
func (h *NoiseHandler) Recommend() Recommendation {
	if h.unset() {
		return Recommendation{F: math.NaN()}
	}
	r, owned := h.win.average() // X a new slice when owned
	if !owned {
		r = h.rec
		if r.Evals > 0 {
			r.Means = 1
		}
	}
	if h.held.Evals > 0 && !(r.F < h.held.F) {
		r, owned = h.held, false
	}
	if !owned {
		r.X = slices.Clone(r.X)
	}
	return r
}

// Ask writes the rows of the current generation: the strategy's
// candidates, k rows each, then (for cmaes) the mean k times, then the
// mean k times again.
func (h *NoiseHandler) Ask(pop *linalg.Dense) error {
	if h.unset() {
		return errZeroNoise
	}
	if pop == nil {
		return fmt.Errorf("es: %s: Ask needs a matrix to write the candidates into, got nil", h.Name())
	}
	if !h.pending {
		if err := h.prepare(); err != nil {
			return err
		}
	}
	k := h.k
	resize(pop, (h.items+1)*k, h.dim)
	for b := range h.items + 1 {
		x := h.point(b)
		for j := range k {
			copy(pop.RawRow(b*k+j), x)
		}
	}
	return nil
}

// prepare asks the strategy for its generation and fixes k.
func (h *NoiseHandler) prepare() error {
	if err := h.inner.Ask(&h.pop); err != nil {
		return err
	}
	h.items, _ = h.pop.Dims()
	h.mean = h.mean[:0]
	if !meanEvaluated(innermost(h.inner)) {
		h.mean = h.inner.Mean(h.mean)
		h.items++
	}
	h.k = int(h.evalsPer)
	h.pending = true
	return nil
}

// meanItem is the point of the generation that is the mean: row 0 of the
// strategy's candidates, or the extra point after them.
func (h *NoiseHandler) meanItem() int {
	if len(h.mean) > 0 {
		return h.items - 1
	}
	return 0
}

// point returns point b of the generation: the strategy's candidates, the
// extra mean, then the mean again.
func (h *NoiseHandler) point(b int) []float64 {
	if b == h.items {
		b = h.meanItem()
	}
	if lam, _ := h.pop.Dims(); b >= lam {
		return h.mean
	}
	return h.pop.RawRow(b)
}

// medianValue returns the median of v by compareValues, NaN and +Inf
// ranked last (v is reordered): the middle value, or halfway between the
// two middle ones.
func medianValue(v []float64) float64 {
	slices.SortFunc(v, compareValues)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return halfway(v[n/2-1], v[n/2])
}

// halfway returns the median of the two middle values a <= b of an even
// count: halfway between them, or b where that is not a number.
func halfway(a, b float64) float64 {
	if worstValue(b) || math.IsInf(a, -1) {
		return b
	}
	return a + (b-a)/2
}

// median returns the median of the values of blocks (each k rows of f).
func (h *NoiseHandler) median(f []float64, blocks ...int) float64 {
	s := h.scratch[:0]
	for _, b := range blocks {
		s = append(s, f[b*h.k:(b+1)*h.k]...)
	}
	h.scratch = s
	return medianValue(s)
}

// noiseEMA is the rate of the smoothing of the curvature signal of the
// damping.
const noiseEMA = 0.2

// noiseRhoFloor is the smallest damping factor rho of eta_A: under noise
// A learns at 0.3 of its rate rather than not at all (docs/ALGORITHMS.md
// Section 20 item 3 measured it).
const noiseRhoFloor = 0.3

// noiseWindow is the number of generations whose differences of the
// mean's two medians give the noise scale of the damping, their 75th
// percentile.
const noiseWindow = 10

// Tell takes the values of the rows of the last Ask, in row order, and
// performs the strategy's generation with the medians, then the handler's
// responses.
func (h *NoiseHandler) Tell(f []float64) error {
	switch {
	case h.unset():
		return errZeroNoise
	case !h.pending:
		return errorOf(ErrNoAsk, "es: %s: Tell without a pending Ask", h.Name())
	case len(f) != (h.items+1)*h.k:
		return fmt.Errorf("es: %s: Tell got %d values for %d candidates", h.Name(), len(f), (h.items+1)*h.k)
	}
	n, lam, mi := h.items, h.strategyRows(), h.meanItem()
	h.a1, h.a2 = slicesGrow(h.a1, n), slicesGrow(h.a2, n)
	for i := range n {
		h.a1[i] = h.median(f, i)
	}
	copy(h.a2, h.a1)
	h.a2[mi] = h.median(f, n)
	// The measures change only when the strategy takes the generation.
	s, logNoise, logCurv, rho := h.noiseS, h.logNoise, h.logCurv, h.rho
	h.measure()
	meanF := h.median(f, mi, n)
	h.told = slicesGrow(h.told, lam)
	copy(h.told, h.a1[:lam])
	if mi < lam {
		h.told[mi] = meanF
	}
	inner := innermost(h.inner)
	h.damp(inner, mi)
	if err := h.inner.Tell(h.told); err != nil {
		h.noiseS, h.logNoise, h.logCurv, h.rho = s, logNoise, logCurv, rho
		return err
	}
	h.rec.X = append(h.rec.X[:0], h.point(mi)...)
	h.rec.F, h.rec.Evals = meanF, 2*h.k
	if innermost(h.inner) == inner {
		h.win.add(h.rec.X, meanF, 2*h.k)
	} else {
		h.win.reset() // IPOP or BIPOP restarted: a new run
	}
	for b := range h.items + 1 {
		x := h.point(b)
		for _, v := range f[b*h.k : (b+1)*h.k] {
			h.fold(x, v)
		}
	}
	h.evals += len(f)
	h.pending = false
	h.respond(inner)
	return nil
}

// strategyRows is the number of the strategy's own candidates.
func (h *NoiseHandler) strategyRows() int {
	r, _ := h.pop.Dims()
	return r
}

// measure updates s with the rank change of the mean between its two
// medians, as pycma's NoiseHandler.update_measure does for each point it
// evaluates again (Hansen et al. 2009): both lists of values a1 and a2
// (a2 is a1 with the mean's second median) are ranked together; the
// mean's rank change, less one, is compared with the 25th percentile of
// the changes a random rank would make, and s moves by 0.3 towards the
// difference.
func (h *NoiseHandler) measure() {
	n := h.items
	h.joint = append(append(h.joint[:0], h.a1[:n]...), h.a2[:n]...)
	h.order = growInts(h.order, 2*n)
	h.ranks = growInts(h.ranks, 2*n)
	rankOrder(h.order, h.joint)
	for r, i := range h.order {
		h.ranks[i] = r
	}
	i := h.meanItem()
	r0, r1 := h.ranks[i], h.ranks[n+i]
	delta := r0 - r1
	switch {
	case delta > 0:
		delta--
	case delta < 0:
		delta++
	}
	// The limit: the 25th percentile of |r - c| over the ranks r = 1 ..
	// 2n - 1 of a value re-ranked at random, for c the 1-based rank of
	// each median (less one when it is the larger), averaged over both.
	var limit float64
	for _, p := range [][2]int{{r0, r1}, {r1, r0}} {
		c := p[0] + 1
		if p[0] > p[1] {
			c--
		}
		h.dist = slicesGrow(h.dist, 2*n-1)
		for r := 1; r < 2*n; r++ {
			h.dist[r-1] = math.Abs(float64(r - c))
		}
		limit += 0.5 * prctile(h.dist, 25)
	}
	h.noiseS += 0.3 * (math.Abs(float64(delta)) - limit - h.noiseS)
}

// growInts returns v resized to n.
func growInts(v []int, n int) []int {
	if cap(v) >= n {
		return v[:n]
	}
	return make([]int, n)
}

// prctile is pycma's percentile of data (sorted in place): for
// fi = p n/100 - 1/2, the first or last value when fi is outside
// [0, n - 1], else the linear interpolation at fi.
func prctile(data []float64, p float64) float64 {
	slices.Sort(data)
	n := len(data)
	fi := p*float64(n)/100 - 0.5
	switch {
	case fi <= 0:
		return data[0]
	case fi >= float64(n-1):
		return data[n-1]
	}
	i := int(fi)
	return float64((float64(i+1)-fi)*data[i]) + float64((fi-float64(i))*data[i+1])
}

// damp sets eta_A of hees and hees2 for this generation: eta_A rho with
// rho = max(noiseRhoFloor, 1 - 2/R^2), where R = exp(logCurv - logNoise)
// compares the smoothed median curvature signal |f(x_k^+) + f(x_k^-) -
// 2 f(m)| of the pairs with the noise scale, the 75th percentile of the
// differences of the mean's two medians over the last noiseWindow
// generations. With noise alone the signal has the standard deviation
// 2 sigma_f (the mean's value is a median of two) and the difference
// sqrt(2) sigma_f, so R is about sqrt(2) or less and rho at its floor; a
// signal well above the noise gives rho near 1. The floor keeps A learning
// slowly from estimates whose noise averages out over generations. A
// percentile of a window rather than a smoothed logarithm: a noise that
// leaves most values exact (bbob-noisy's Cauchy model) gives differences
// of 0 most of the time, whose logarithms would hide the others.
func (h *NoiseHandler) damp(inner Strategy, mi int) {
	if d := math.Abs(h.a1[mi] - h.a2[mi]); finite(d) {
		h.diffs.push(d)
		v := h.dist[:0]
		for k := range h.diffs.size() {
			v = append(v, h.diffs.at(k))
		}
		h.dist = v
		h.logNoise = xmath.Log(prctile(v, 75) + math.SmallestNonzeroFloat64)
	}
	ad, etaA := adaptationOf(inner)
	if ad == nil {
		return
	}
	v := h.scratch[:0]
	for p := range (h.strategyRows() - 1) / 2 {
		if c := h.told[2*p+1] + h.told[2*p+2] - 2*h.told[0]; finite(c) {
			v = append(v, math.Abs(c))
		}
	}
	h.scratch = v
	if len(v) > 0 {
		h.logCurv = smooth(h.logCurv, xmath.Log(medianValue(v)+math.SmallestNonzeroFloat64))
	}
	h.rho = 1
	if !math.IsNaN(h.logCurv) && !math.IsNaN(h.logNoise) {
		r := xmath.Exp(min(h.logCurv-h.logNoise, 300))
		h.rho = max(noiseRhoFloor, 1-2/float64(r*r))
	}
	ad.etaA = float64(etaA * h.rho)
}

// smooth moves the average avg (NaN: none yet) towards v by noiseEMA.
func smooth(avg, v float64) float64 {
	if math.IsNaN(avg) {
		return v
	}
	return avg + float64(noiseEMA*(v-avg))
}

// respond applies the responses after the strategy's generation: sigma
// up to the run's sigma0 and k beyond it by s, and a new run at a stop
// (item 4). A restart of IPOP or BIPOP during the generation starts the
// new run with its own sigma.
func (h *NoiseHandler) respond(before Strategy) {
	now := innermost(h.inner)
	c := now.(hasCore).coreOf()
	alpha := 1 + 2/float64(h.dim+10)
	if h.noiseS > 0 {
		switch {
		case c.sigma > c.cfg.Sigma0:
			h.evalsPer = min(float64(h.evalsPer*alpha), float64(h.maxEvals))
			if h.evalsPer >= NoiseGrowEvals && now == h.inner && h.grow(false) {
				h.evalsPer = 1
				return
			}
		case now == before:
			c.sigma *= alpha
		}
	} else {
		h.evalsPer = max(float64(h.evalsPer*math.Pow(alpha, -0.25)), 1)
	}
	if now != h.inner || c.stop == "" || c.stop == ReasonMinusInf {
		return
	}
	// Item 4: a stop starts the strategy anew, as IPOP would, from its
	// mean with sigma0, A = I and twice the population; once no doubling
	// is left, the criteria that noise defeats are ignored.
	if h.grow(true) {
		h.evalsPer = 1
		return
	}
	switch c.stop {
	case ReasonTolFun, ReasonTolFunHist, ReasonStagnation:
		c.stop = ""
	}
}

// grow replaces the strategy, when it runs alone (not inside IPOP or
// BIPOP), by a new run of it with twice its population from its mean:
// from its search distribution, A0 = (sigma/sigma0) A, so that sigma0 A0
// is the current sigma A while sigma0 stays the run's (the bound of item
// 2), or when fresh (after a stop, item 4) from sigma0 and A = I; with its
// bounds and scales, the seed its own would give a first restart, and the
// tuning defaults of the new population (growConfig). It reports whether
// it did: at most NoiseMaxDoublings times, within the population bound of
// IPOP and MaxMemory.
func (h *NoiseHandler) grow(fresh bool) bool {
	c := h.inner.(hasCore).coreOf()
	row := rowOf(h.inner.Name())
	n := row.populationOf(c.cfg)
	if h.grown >= NoiseMaxDoublings || n <= 0 || n > maxPopulation/2 {
		return false
	}
	cfg, err := growConfig(h.inner.Name(), c.cfg, 2*n)
	if err != nil || checkMemory(row, cfg) != nil {
		return false
	}
	cfg.X0 = h.inner.Mean(nil)
	if a := TransformOf(h.inner); a != nil && !fresh {
		cfg.A0 = new(linalg.Dense)
		cfg.A0.Scale(c.sigma/c.cfg.Sigma0, a)
	}
	cfg.Seed = restartSeed(c.cfg.Seed, 1)
	next, err := New(h.inner.Name(), cfg)
	if err != nil {
		return false
	}
	if fresh {
		// The better of the held one and the stopped run's (Recommend);
		// a NaN estimate, of NaN values only, is not held.
		if r := h.Recommend(); r.Evals > 0 && !math.IsNaN(r.F) {
			h.held = r
		}
	}
	h.pastGens += h.inner.Generation()
	h.grown++
	h.inner = next
	h.win.reset()
	return true
}

// growConfig returns the resolved Config rc of strategy name with the
// population n, its tuning fields cleared where they hold the defaults of
// rc's population (New derives them again for n: eta_A, c_s and d_s
// depend on the population); a field set to another value stays.
func growConfig(name string, rc Config, n int) (Config, error) {
	bare := rc
	for _, t := range tuningFields {
		*t.field(&bare) = 0
	}
	def, err := resolve(name, bare)
	if err != nil {
		return rc, err
	}
	next := rowOf(name).withPopulation(rc, n)
	for _, t := range tuningFields {
		if *t.field(&rc) == *t.field(&def) {
			*t.field(&next) = 0
		}
	}
	return next, nil
}

// MarshalBinary saves the handler's state under the tag
// "hees-es/noise/v1" (v2 after a doubling, v3 once a mean was recorded):
// its settings and measures, the recommendation and the run's recent
// means, and the strategy's own state (its MarshalBinary bytes) embedded.
func (h *NoiseHandler) MarshalBinary() ([]byte, error) {
	if h.unset() {
		return nil, errZeroNoise
	}
	inner, err := h.inner.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("es: NoiseHandler.MarshalBinary: %w", err)
	}
	w := newStateWriter(noiseStateName)
	w.int(h.maxEvals)
	w.float(h.noiseS)
	w.float(h.evalsPer)
	w.float(h.logNoise)
	h.diffs.write(w)
	w.float(h.logCurv)
	w.float(h.rho)
	w.int(h.evals)
	w.bool(h.pending)
	w.int(h.k)
	w.floats(h.rec.X)
	w.float(h.rec.F)
	w.int(h.rec.Evals)
	w.bool(h.hasBest)
	w.floats(h.bestX)
	w.float(h.bestF)
	if h.grown > 0 || h.win.gens > 0 {
		// Version 2: the doublings (version 3 holds them too).
		w.upgrade(noiseStateGrown)
		w.int(h.grown)
		w.int(h.pastGens)
	}
	if h.win.gens > 0 || h.held.Evals > 0 {
		// Version 3: means recorded (version 4 holds them too).
		w.upgrade(noiseStateWindow)
		h.win.write(w)
	}
	if h.held.Evals > 0 {
		// Version 4: the recommendation of a run a stop ended.
		w.upgrade(noiseStateHeld)
		w.floats(h.held.X)
		w.float(h.held.F)
		w.int(h.held.Evals)
		w.int(h.held.Means)
	}
	w.string(string(inner))
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into h, which
// may be a zero NoiseHandler, and leaves h unchanged on error: a state of
// another kind or version, truncated or corrupt.
func (h *NoiseHandler) UnmarshalBinary(data []byte) error {
	if h == nil {
		return errors.New("es: NoiseHandler.UnmarshalBinary into a nil *NoiseHandler")
	}
	r, err := openState(data, noiseStateName)
	if err != nil {
		return err
	}
	v := NoiseHandler{}
	v.maxEvals = r.int()
	v.noiseS = r.float()
	v.evalsPer = r.float()
	v.logNoise = r.float()
	v.diffs = history{buf: make([]float64, noiseWindow)}
	v.diffs.read(r)
	v.logCurv = r.float()
	v.rho = r.float()
	v.evals = r.int()
	v.pending = r.bool()
	v.k = r.int()
	v.rec.X = r.floats(nil)
	v.rec.F = r.float()
	v.rec.Evals = r.int()
	v.hasBest = r.bool()
	v.bestX = r.floats(nil)
	v.bestF = r.float()
	if r.version >= noiseStateGrown {
		v.grown = r.int()
		v.pastGens = r.int()
	}
	if r.version >= noiseStateWindow {
		v.win.read(r)
	} else {
		v.win = newMeanWindow(len(v.rec.X))
	}
	if r.version >= noiseStateHeld {
		v.held.X = r.floats(nil)
		v.held.F = r.float()
		v.held.Evals = r.int()
		v.held.Means = r.int()
	}
	inner := []byte(r.string())
	if err := r.done(); err != nil {
		return err
	}
	if name, _, err := parseStateHeader(inner); err == nil && name == noiseStateName {
		// Refused before it is loaded: nested states would be loaded one
		// inside the other, each a copy of the rest.
		return errorOf(ErrCorruptState, "es: saved noise state corrupt: a noise state inside")
	}
	s, err := Load(inner)
	if err != nil {
		return errorOf(ErrCorruptState, "es: saved noise state: inner strategy: %w", err)
	}
	v.inner, v.dim = s, s.Dim()
	corrupt := func(format string, args ...any) error {
		return errorOf(ErrCorruptState, "es: saved noise state corrupt: "+format, args...)
	}
	badWindow := v.win.check(v.dim)
	switch {
	case !noiseCapable(innermost(s)):
		return corrupt("inner strategy %s has no noise handling", s.Name())
	case v.maxEvals < 1 || v.maxEvals > MaxNoiseEvals:
		return corrupt("MaxEvals = %d", v.maxEvals)
	case !(v.evalsPer >= 1 && v.evalsPer <= float64(v.maxEvals)):
		return corrupt("%v evaluations per point", v.evalsPer)
	case v.pending && (v.k < 1 || v.k > v.maxEvals):
		return corrupt("k = %d", v.k)
	case !(v.rho >= 0 && v.rho <= 1) || !finite(v.noiseS) || math.IsInf(v.logNoise, 0) || math.IsInf(v.logCurv, 0):
		return corrupt("measures s = %v, rho = %v, %v, %v", v.noiseS, v.rho, v.logNoise, v.logCurv)
	case v.grown < 0 || v.grown > NoiseMaxDoublings || v.pastGens < 0 || v.pastGens > v.evals:
		return corrupt("%d doublings of the population after %d generations", v.grown, v.pastGens)
	case v.evals < s.Evals():
		return corrupt("%d evaluations, the strategy has %d", v.evals, s.Evals())
	case len(v.rec.X) != v.dim || v.rec.Evals < 0:
		return corrupt("recommendation of length %d from %d evaluations", len(v.rec.X), v.rec.Evals)
	case badWindow != "":
		return corrupt("%s", badWindow)
	case r.version >= noiseStateHeld && (len(v.held.X) != v.dim || v.held.Evals < 1 || v.held.Means < 1 || math.IsNaN(v.held.F)):
		return corrupt("held recommendation of length %d from %d evaluations of %d means, estimate %v", len(v.held.X), v.held.Evals, v.held.Means, v.held.F)
	case v.hasBest && (len(v.bestX) != v.dim || worstValue(v.bestF)):
		return corrupt("best point of length %d with the value %v", len(v.bestX), v.bestF)
	case !v.hasBest && (len(v.bestX) != 0 || v.bestF != math.Inf(1)):
		return corrupt("best value %v without a best point", v.bestF)
	}
	if !v.hasBest {
		v.bestX = nil
	}
	if v.pending {
		// The strategy restored its pending generation: ask it again.
		k := v.k
		if err := v.prepare(); err != nil {
			return corrupt("pending generation: %v", err)
		}
		v.k = k
	}
	*h = v
	return nil
}
