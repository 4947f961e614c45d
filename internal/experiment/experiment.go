// Package experiment runs the experiments behind the figures of the
// documentation (hees experiment): the paper's Figure 2, the adaptation of
// the covariance of the (1+4)-HE-ES and the (1+1)-CMA-ES on the sphere
// started with the covariance of an ill-conditioned ellipsoid, and the
// evaluations to a target against the condition of the ellipsoid. Each
// experiment spreads its runs over Workers goroutines, prints a summary and
// returns its CSV and SVG files, which do not depend on Workers. Check
// reports bad settings in the words of hees experiment's flags.
package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/svgplot"
	"github.com/hees-dev/hees/internal/workpool"
	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

// File is one output file of an experiment.
type File struct {
	Name string
	Data []byte
}

// Median returns the median of v, which it sorts: the middle value, or
// the mean of the two middle values for an even count. NaN ranks above
// +Inf, so NaNs (failed eigendecompositions) move the median up, never
// hide.
func Median(v []float64) float64 {
	slices.SortFunc(v, compareNaNLast)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return 0.5 * (v[n/2-1] + v[n/2])
}

// compareNaNLast orders floats increasingly with NaN after +Inf.
func compareNaNLast(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// formatValue writes v in the shortest form that reads back to the same
// float64.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// shortFloat writes v as %g does, without the exponent's plus sign and
// leading zero: 1e-8, 3e6.
func shortFloat(v float64) string {
	s := formatValue(v)
	s = strings.Replace(s, "e+", "e", 1)
	s = strings.Replace(s, "e-0", "e-", 1)
	return strings.Replace(s, "e0", "e", 1)
}

// Figure 2.

// Fig2 is the paper's Figure 2 (docs/ALGORITHMS.md Section 13 item 7):
// hees14 and cma11 on the sphere in Dim dimensions, started with sigma0 =
// 1, m0 = (1, ..., 1) and C0 = A0 A0^T = diag(1e6^(-(i-1)/(d-1))) scaled to
// det 1. Per iteration, the median over Runs runs (seeds 1..Runs) of
// cond(C) - 1 and tr(C / det(C)^(1/d)) - d. Every run lasts Iters
// iterations; every Every-th (and the last) is recorded.
type Fig2 struct {
	Dim, Runs, Workers int
	Iters, Every       int
}

// checkCommon reports the first bad setting that every experiment has.
func checkCommon(dim, runs, workers int) error {
	switch {
	case dim < 2:
		return fmt.Errorf("-d is %d, want at least 2 (the HE-ES compares two directions)", dim)
	case dim > objectives.MaxDim:
		return fmt.Errorf("-d is %d, want at most %d", dim, objectives.MaxDim)
	case runs < 1:
		return fmt.Errorf("-runs is %d, want at least 1", runs)
	case workers < 0:
		return fmt.Errorf("-workers is %d, want 0 (the number of CPUs) or more", workers)
	}
	return nil
}

// checkMemory reports settings whose runs at a time would need more
// than es.MaxMemory together: each run of an experiment holds about
// matrices d×d matrices of float64 (its strategy's, and the experiment's
// own), and workpool.Size(workers, runs) runs go at once.
func checkMemory(dim, runs, workers int, matrices float64) error {
	at := workpool.Size(workers, runs)
	est := matrices * 8 * float64(dim) * float64(dim) * float64(at)
	if est > es.MaxMemory {
		return fmt.Errorf("-d %d with %d runs at a time would need about %.3g GiB of memory, more than %d GiB: lower -d or -workers", dim, at, est/(1<<30), es.MaxMemory>>30)
	}
	return nil
}

// fig2Matrices is the number of d×d matrices a run of Fig2 holds: hees14's
// or cma11's six (es.MaxMemory), A0, and C and its eigenvectors for the
// figure's columns.
const fig2Matrices = 9

// maxFig2Records bounds the iterations Fig2 records per run
// (recordedIterations: Iters/Every + 1, and the last when Every does not
// divide Iters): each run keeps four numbers per recorded iteration.
const maxFig2Records = 1_000_000

// Check reports the first bad setting of e.
func (e *Fig2) Check() error {
	switch err := checkCommon(e.Dim, e.Runs, e.Workers); {
	case err != nil:
		return err
	case e.Iters < 1:
		return fmt.Errorf("-iters is %d, want at least 1", e.Iters)
	case e.Every < 1:
		return fmt.Errorf("-every is %d, want at least 1", e.Every)
	case e.Iters/e.Every >= maxFig2Records || e.Iters/e.Every+1 == maxFig2Records && e.Iters%e.Every != 0:
		return fmt.Errorf("-iters %d with -every %d records more than %d iterations per run (raise -every)", e.Iters, e.Every, maxFig2Records)
	}
	return checkMemory(e.Dim, len(fig2Strategies)*e.Runs, e.Workers, fig2Matrices)
}

// fig2Strategies are the strategies of Figure 2 with their panel titles.
var fig2Strategies = []struct{ name, title string }{
	{es.HEES14, "(1+4)-HE-ES (" + es.HEES14 + ")"},
	{es.CMA11, "(1+1)-CMA-ES (" + es.CMA11 + ")"},
}

// fig2Run is the record of one run: the values at each recorded iteration.
type fig2Run struct {
	evals                          []int
	condMinus1, traceMinusD, fBest []float64
}

// recordedIterations lists the iterations Figure 2 records: 0, every,
// 2·every, ... and iters.
func (e *Fig2) recordedIterations() []int {
	var its []int
	for t := 0; t <= e.Iters; t += e.Every {
		its = append(its, t)
	}
	if its[len(its)-1] != e.Iters {
		its = append(its, e.Iters)
	}
	return its
}

// Run runs the experiment, prints its summary on w and returns its files,
// fig2.csv and fig2.svg. Bad settings are Check's error.
func (e *Fig2) Run(w io.Writer) ([]File, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	its := e.recordedIterations()
	runs := make([]fig2Run, len(fig2Strategies)*e.Runs)
	err := workpool.Run(context.Background(), len(runs), workpool.Size(e.Workers, len(runs)), func(_ context.Context, i int) error {
		var err error
		runs[i], err = e.oneRun(fig2Strategies[i/e.Runs].name, uint64(i%e.Runs+1), its)
		return err
	})
	if err != nil {
		return nil, err
	}
	medians := e.medians(runs, len(its))
	svg, err := e.figure(its, medians)
	if err != nil {
		return nil, fmt.Errorf("drawing the figure: %w", err)
	}
	e.summary(w, its, medians)
	return []File{{"fig2.csv", e.csv(its, medians)}, {"fig2.svg", svg}}, nil
}

// fig2InitialTransform returns A0 = diag(sqrt(c_i)) with
// c_i = 1e6^(1/2 - (i-1)/(d-1)), i = 1..d: C0 = A0 A0^T is
// diag(1e6^(-(i-1)/(d-1))) scaled by 1e6^(1/2) to det 1 (docs/ALGORITHMS.md
// Section 13 item 7).
func fig2InitialTransform(d int) *linalg.Dense {
	a := linalg.NewDense(d, d, nil)
	for i := range d {
		a.Set(i, i, xmath.Pow(1e6, 0.25-float64(i)/float64(2*(d-1))))
	}
	return a
}

// oneRun runs strategy name with seed on the sphere for e.Iters iterations
// and records cond(C) - 1, tr(C/det(C)^(1/d)) - d and the best value at the
// iterations its.
func (e *Fig2) oneRun(name string, seed uint64, its []int) (fig2Run, error) {
	d := e.Dim
	sphere, err := objectives.NewSphere(d)
	if err != nil {
		return fig2Run{}, err
	}
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = 1
	}
	s, err := es.New(name, es.Config{
		Dim: d, Seed: seed, Sigma0: 1, X0: x0, A0: fig2InitialTransform(d),
		TolFun: -1, // the figure runs a fixed number of iterations
	})
	if err != nil {
		return fig2Run{}, err
	}
	r := fig2Run{
		evals:       make([]int, len(its)),
		condMinus1:  make([]float64, len(its)),
		traceMinusD: make([]float64, len(its)),
		fBest:       make([]float64, len(its)),
	}
	run, err := es.NewRun(s, es.Limits{})
	if err != nil {
		return fig2Run{}, err
	}
	var (
		cov    linalg.Dense
		eig    linalg.EigenSym
		values []float64
		f      []float64
	)
	next := 0 // index into its of the next iteration to record
	// Generation 0 evaluates the initial mean; iteration t is generation t.
	for gen := 0; gen <= e.Iters; gen++ {
		pop, err := run.Ask()
		if err != nil {
			return r, fmt.Errorf("%s run with seed %d: %w", name, seed, err)
		}
		if pop == nil {
			return r, fmt.Errorf("%s run with seed %d stopped at iteration %d of %d: %s (try fewer -iters)", name, seed, gen-1, e.Iters, run.Reason())
		}
		f = evaluate(f, pop, sphere.Eval)
		if err := run.Tell(f); err != nil {
			return r, fmt.Errorf("%s run with seed %d: %w", name, seed, err)
		}
		if gen != its[next] {
			continue
		}
		a := es.TransformOf(s)
		if a == nil {
			return r, fmt.Errorf("%s has no transformation A to measure", name)
		}
		cov.MulAAT(a)
		cond, trace := math.NaN(), math.NaN()
		if eig.Factorize(&cov, false) == nil {
			values = eig.Values(values)
			cond, trace = covarianceDeviation(values)
		}
		_, best := s.Best()
		r.evals[next] = s.Evals()
		r.condMinus1[next] = cond
		r.traceMinusD[next] = trace
		r.fBest[next] = best
		next++
	}
	return r, nil
}

// evaluate returns the values under eval of the rows of pop, in row
// order, in f's array when it is large enough.
func evaluate(f []float64, pop *linalg.Dense, eval func([]float64) float64) []float64 {
	rows, _ := pop.Dims()
	f = slices.Grow(f[:0], rows)[:rows]
	for k := range rows {
		f[k] = eval(pop.RawRow(k))
	}
	return f
}

// covarianceDeviation returns cond(C) - 1 and tr(C / det(C)^(1/d)) - d
// from the eigenvalues of C in ascending order, or NaNs when the smallest is
// not positive or a value is not finite.
//
// Both are computed so that they keep their relative accuracy when C is
// close to a multiple of I, where the direct differences would cancel to
// rounding noise (about 2e-15 for the trace of a 10×10 matrix).
// cond - 1 is (λ_max - λ_min)/λ_min, a subtraction that is exact for close
// values. With w_i = ln(λ_i/λ_min) and v_i = w_i - mean(w), the normalised
// eigenvalues are λ_i / det(C)^(1/d) = e^(v_i) and Σ v_i = 0, so
// tr(C / det(C)^(1/d)) - d = Σ (e^(v_i) - 1 - v_i), a sum of non-negative
// terms of about v_i²/2 that does not depend on the rounding of mean(w) to
// first order (docs/ALGORITHMS.md Section 13 item 6 defines the quantity).
func covarianceDeviation(values []float64) (condMinus1, traceMinusD float64) {
	d := len(values)
	lo, hi := values[0], values[d-1]
	if !(lo > 0) || math.IsInf(hi, 1) || math.IsNaN(hi) {
		return math.NaN(), math.NaN()
	}
	w := make([]float64, d)
	mean := 0.0
	for i, v := range values {
		w[i] = xmath.Log1p((v - lo) / lo)
		mean += w[i]
	}
	mean /= float64(d)
	for _, wi := range w {
		traceMinusD += expMinusLinear(wi - mean)
	}
	return (hi - lo) / lo, traceMinusD
}

// expMinusLinear returns e^v - 1 - v, by its Taylor series where the
// direct form would cancel.
func expMinusLinear(v float64) float64 {
	if math.Abs(v) < 1e-2 {
		// The next term, v^7/5040, is below 2e-15 of the sum here.
		return float64(v*v) * (0.5 + v*(1.0/6+v*(1.0/24+v*(1.0/120+v*(1.0/720)))))
	}
	return xmath.Expm1(v) - v
}

// fig2Medians are the medians of one strategy at the recorded iterations.
type fig2Medians = fig2Run

// medians returns, per strategy, the medians over its runs at each of the
// points recorded iterations.
func (e *Fig2) medians(runs []fig2Run, points int) []fig2Medians {
	out := make([]fig2Medians, len(fig2Strategies))
	column := make([]float64, e.Runs)
	median := func(runs []fig2Run, k int, get func(*fig2Run) []float64) float64 {
		for j := range runs {
			column[j] = get(&runs[j])[k]
		}
		return Median(column)
	}
	for si := range fig2Strategies {
		own := runs[si*e.Runs : (si+1)*e.Runs]
		m := fig2Medians{
			evals:       own[0].evals, // the same in every run
			condMinus1:  make([]float64, points),
			traceMinusD: make([]float64, points),
			fBest:       make([]float64, points),
		}
		for k := range points {
			m.condMinus1[k] = median(own, k, func(r *fig2Run) []float64 { return r.condMinus1 })
			m.traceMinusD[k] = median(own, k, func(r *fig2Run) []float64 { return r.traceMinusD })
			m.fBest[k] = median(own, k, func(r *fig2Run) []float64 { return r.fBest })
		}
		out[si] = m
	}
	return out
}

// csv writes one row per strategy and recorded iteration.
func (e *Fig2) csv(its []int, medians []fig2Medians) []byte {
	var b bytes.Buffer
	b.WriteString("strategy,iteration,evals,median_cond_C_minus_1,median_normtrace_C_minus_d,median_f_best\n")
	for si, st := range fig2Strategies {
		m := &medians[si]
		for k, t := range its {
			fmt.Fprintf(&b, "%s,%d,%d,%s,%s,%s\n", st.name, t, m.evals[k],
				formatValue(m.condMinus1[k]), formatValue(m.traceMinusD[k]), formatValue(m.fBest[k]))
		}
	}
	return b.Bytes()
}

// summary prints the medians at the first, middle and last recorded
// iterations.
func (e *Fig2) summary(w io.Writer, its []int, medians []fig2Medians) {
	fmt.Fprintf(w, "fig2: sphere, d = %d, medians of %d runs, %d iterations\n", e.Dim, e.Runs, e.Iters)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\titeration\tcond(C)-1\ttr(C)-d\tbest f")
	for si, st := range fig2Strategies {
		m := &medians[si]
		for _, k := range []int{0, len(its) / 2, len(its) - 1} {
			fmt.Fprintf(tw, "%s\t%d\t%.3g\t%.3g\t%.3g\n", st.name, its[k], m.condMinus1[k], m.traceMinusD[k], m.fBest[k])
		}
	}
	tw.Flush()
}

// figure draws Figure 2: one panel per strategy, cond(C) - 1 solid and
// tr(C) - d dashed, on the same logarithmic y range.
func (e *Fig2) figure(its []int, medians []fig2Medians) ([]byte, error) {
	x := make([]float64, len(its))
	for k, t := range its {
		x[k] = float64(t)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range medians {
		for _, v := range slices.Concat(m.condMinus1, m.traceMinusD) {
			if v > 0 && !math.IsInf(v, 1) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	var yRange svgplot.Range
	if lo < hi {
		// Whole decades, shared by both panels so they compare at a glance.
		yRange = svgplot.Range{Min: math.Pow(10, math.Floor(math.Log10(lo))), Max: math.Pow(10, math.Ceil(math.Log10(hi)))}
	}
	fig := &svgplot.Figure{
		Title:   fmt.Sprintf("Sphere, d = %d, started with C0 of the ellipsoid of condition 1e6 (medians of %d runs)", e.Dim, e.Runs),
		Columns: 2,
	}
	for si, st := range fig2Strategies {
		fig.Panels = append(fig.Panels, svgplot.Panel{
			Title:  st.title,
			XLabel: "iteration",
			YLabel: "median over the runs",
			YScale: svgplot.Log10,
			YRange: yRange,
			Series: []svgplot.Series{
				{Name: "cond(C) − 1", X: x, Y: medians[si].condMinus1},
				{Name: "tr(C) − d, det C = 1", X: x, Y: medians[si].traceMinusD, Dashed: true},
			},
		})
	}
	var b bytes.Buffer
	if err := fig.WriteSVG(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The condition experiment.

// Condition measures the evaluations until a value f <= Target is
// evaluated, on the Dim-dimensional ellipsoid sum cond^((i-1)/(d-1)) x_i^2
// with cond = 1 (the sphere), 1e2, 1e4 and 1e6, for hees14, hees, cma11 and
// es11 with their default parameters, sigma0 = 2, m0 uniform in [-3, 3]^d
// and the f-spread stop (tolfun) off. Run k (1..Runs) uses seed k for every
// strategy and condition. A run that reaches Budget evaluations first is
// capped.
type Condition struct {
	Dim, Runs, Workers int
	Budget             int
	Target             float64
}

// ConditionStrategies and ConditionNumbers span the grid of Condition.
var (
	ConditionStrategies = []string{es.HEES14, es.HEES, es.CMA11, es.ES11}
	ConditionNumbers    = []float64{1, 1e2, 1e4, 1e6}
)

// Check reports the first bad setting of e.
func (e *Condition) Check() error {
	switch err := checkCommon(e.Dim, e.Runs, e.Workers); {
	case err != nil:
		return err
	case e.Budget < 1:
		return fmt.Errorf("-budget is %d, want at least 1", e.Budget)
	case math.IsNaN(e.Target) || math.IsInf(e.Target, 0):
		return fmt.Errorf("-target is %v, want a finite number", e.Target)
	}
	return checkMemory(e.Dim, len(ConditionStrategies)*len(ConditionNumbers)*e.Runs, e.Workers, conditionMatrices)
}

// conditionMatrices is the number of d×d matrices a run of Condition
// holds: its strategy's six at most (es.MaxMemory).
const conditionMatrices = 6

// conditionRun is the outcome of one run.
type conditionRun struct {
	// evals is the number of evaluations up to and including the first
	// value <= target (counted in row order) when reached, and the
	// evaluations spent otherwise.
	evals   int
	reached bool
	stop    es.Reason
	fBest   float64
}

// capped reports whether the run ended by its budget before the target.
func (r *conditionRun) capped() bool { return r.stop == es.ReasonMaxEvals }

// Run runs the experiment, prints its summary on w and returns its files,
// condition.csv (one row per run), condition_summary.csv (median, min and
// max per strategy and condition) and condition.svg. Bad settings are
// Check's error.
func (e *Condition) Run(w io.Writer) ([]File, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	perStrategy := len(ConditionNumbers) * e.Runs
	runs := make([]conditionRun, len(ConditionStrategies)*perStrategy)
	err := workpool.Run(context.Background(), len(runs), workpool.Size(e.Workers, len(runs)), func(_ context.Context, i int) error {
		name := ConditionStrategies[i/perStrategy]
		cond := ConditionNumbers[i%perStrategy/e.Runs]
		var err error
		runs[i], err = e.oneRun(name, cond, uint64(i%e.Runs+1))
		return err
	})
	if err != nil {
		return nil, err
	}
	cells := e.summarise(runs)
	svg, err := e.figure(cells)
	if err != nil {
		return nil, fmt.Errorf("drawing the figure: %w", err)
	}
	e.printSummary(w, cells)
	return []File{
		{"condition.csv", e.runsCSV(runs)},
		{"condition_summary.csv", e.summaryCSV(cells)},
		{"condition.svg", svg},
	}, nil
}

// oneRun runs strategy name with seed on the ellipsoid of condition cond
// until a value <= e.Target, the budget, or an internal stop.
func (e *Condition) oneRun(name string, cond float64, seed uint64) (conditionRun, error) {
	p, err := objectives.NewEllipsoid(e.Dim, cond)
	if err != nil {
		return conditionRun{}, err
	}
	// TolFun < 0: the f-spread criterion is off, as it measures no speed; the
	// elitist strategies' one (1e-11 on the values of one generation and its
	// parent) stops the (1+1)-ES above 1e-8 on the ellipsoid of condition
	// 1e2. The other internal criteria stay on and are recorded.
	s, err := es.New(name, es.Config{Dim: e.Dim, Seed: seed, Sigma0: 2, Box: 3, TolFun: -1})
	if err != nil {
		return conditionRun{}, err
	}
	// The run stops by the strategy's criteria or before a generation that
	// would exceed the budget; the target is checked here, since the
	// experiment counts the evaluations up to the first value at or below
	// it.
	run, err := es.NewRun(s, es.Limits{MaxEvals: e.Budget})
	if err != nil {
		return conditionRun{}, err
	}
	var f []float64
	for {
		pop, err := run.Ask()
		if err != nil {
			return conditionRun{}, fmt.Errorf("%s on %s, seed %d: %w", name, p.Name(), seed, err)
		}
		if pop == nil {
			return e.result(s, run.Reason()), nil
		}
		f = evaluate(f, pop, p.Eval)
		hit := slices.IndexFunc(f, func(v float64) bool { return v <= e.Target })
		before := s.Evals()
		if err := run.Tell(f); err != nil {
			return conditionRun{}, fmt.Errorf("%s on %s, seed %d: %w", name, p.Name(), seed, err)
		}
		if hit >= 0 {
			r := e.result(s, es.ReasonTarget)
			r.evals, r.reached = before+hit+1, true
			return r, nil
		}
	}
}

// result is the outcome of a run of s that ended for reason.
func (e *Condition) result(s es.Strategy, reason es.Reason) conditionRun {
	_, best := s.Best()
	return conditionRun{evals: s.Evals(), stop: reason, fBest: best}
}

// conditionCell summarises the runs of one strategy on one condition.
type conditionCell struct {
	strategy string
	cond     float64
	runs     int
	reached  int
	// median, lo and hi are the median, minimum and maximum of the
	// evaluations, with a run that did not reach the target ranked above
	// every run that did: a statistic that falls on such a run is +Inf
	// (not reached within the budget).
	median, lo, hi float64
}

// summarise returns one cell per strategy and condition, in the order of
// runs.
func (e *Condition) summarise(runs []conditionRun) []conditionCell {
	var cells []conditionCell
	evals := make([]float64, e.Runs)
	for c := 0; c*e.Runs < len(runs); c++ {
		own := runs[c*e.Runs : (c+1)*e.Runs]
		cell := conditionCell{
			strategy: ConditionStrategies[c/len(ConditionNumbers)],
			cond:     ConditionNumbers[c%len(ConditionNumbers)],
			runs:     e.Runs,
		}
		for j, r := range own {
			evals[j] = math.Inf(1)
			if r.reached {
				evals[j] = float64(r.evals)
				cell.reached++
			}
		}
		cell.median = Median(evals) // sorts evals
		cell.lo, cell.hi = evals[0], evals[len(evals)-1]
		cells = append(cells, cell)
	}
	return cells
}

// runsCSV writes one row per run.
func (e *Condition) runsCSV(runs []conditionRun) []byte {
	var b bytes.Buffer
	b.WriteString("strategy,cond,run,seed,evals,reached,capped,stop,f_best\n")
	perStrategy := len(ConditionNumbers) * e.Runs
	for i, r := range runs {
		run := i%e.Runs + 1
		fmt.Fprintf(&b, "%s,%s,%d,%d,%d,%t,%t,%s,%s\n",
			ConditionStrategies[i/perStrategy], formatValue(ConditionNumbers[i%perStrategy/e.Runs]),
			run, run, r.evals, r.reached, r.capped(), r.stop, formatValue(r.fBest))
	}
	return b.Bytes()
}

// summaryCSV writes one row per strategy and condition.
func (e *Condition) summaryCSV(cells []conditionCell) []byte {
	var b bytes.Buffer
	b.WriteString("strategy,cond,runs,reached,median_evals,min_evals,max_evals,budget\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "%s,%s,%d,%d,%s,%s,%s,%d\n", c.strategy, formatValue(c.cond), c.runs, c.reached,
			formatValue(c.median), formatValue(c.lo), formatValue(c.hi), e.Budget)
	}
	return b.Bytes()
}

// printSummary prints the table of cells.
func (e *Condition) printSummary(w io.Writer, cells []conditionCell) {
	fmt.Fprintf(w, "condition: ellipsoid, d = %d, %d runs, evaluations to f <= %g, budget %d\n", e.Dim, e.Runs, e.Target, e.Budget)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tcond\treached\tmedian\tmin\tmax\t")
	show := func(v float64) string {
		if math.IsInf(v, 1) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, c := range cells {
		fmt.Fprintf(tw, "%s\t%g\t%d/%d\t%s\t%s\t%s\t\n", c.strategy, c.cond, c.reached, c.runs, show(c.median), show(c.lo), show(c.hi))
	}
	tw.Flush()
}

// figure draws the medians against the condition number on log-log axes,
// with a bar from the fastest to the slowest run. A statistic that did not
// reach the target is drawn at the budget with a hollow marker. The bars
// of the strategies are shifted a little sideways so they do not hide
// each other.
func (e *Condition) figure(cells []conditionCell) ([]byte, error) {
	budget := float64(e.Budget)
	nc := len(ConditionNumbers)
	panel := svgplot.Panel{
		XLabel:        "condition number of the ellipsoid (1 = sphere)",
		YLabel:        "evaluations to f ≤ " + shortFloat(e.Target),
		XScale:        svgplot.Log10,
		YScale:        svgplot.Log10,
		XRange:        svgplot.Range{Min: ConditionNumbers[0] / 2.5, Max: ConditionNumbers[nc-1] * 2.5},
		CensoredLabel: "target not reached: at the budget",
	}
	atBudget := func(v float64) (float64, bool) {
		if math.IsInf(v, 1) {
			return budget, true
		}
		return v, false
	}
	// The budget line goes first, under the markers drawn on it.
	panel.Series = append(panel.Series, svgplot.Series{
		Name: "budget", X: []float64{panel.XRange.Min, panel.XRange.Max}, Y: []float64{budget, budget},
		Dashed: true, Color: "#777777",
	})
	for si, name := range ConditionStrategies {
		shift := math.Pow(10, 0.06*(float64(si)-float64(len(ConditionStrategies)-1)/2))
		median := svgplot.Series{Name: name, Style: svgplot.LineMarkers, Color: svgplot.PaletteColor(si)}
		bars := svgplot.Series{Color: svgplot.PaletteColor(si)}
		for _, c := range cells[si*nc : (si+1)*nc] {
			x := c.cond * shift
			y, censored := atBudget(c.median)
			median.X = append(median.X, x)
			median.Y = append(median.Y, y)
			median.Censored = append(median.Censored, censored)
			lo, _ := atBudget(c.lo)
			hi, _ := atBudget(c.hi)
			// NaN breaks the line between two bars.
			bars.X = append(bars.X, x, x, math.NaN())
			bars.Y = append(bars.Y, lo, hi, math.NaN())
		}
		panel.Series = append(panel.Series, bars, median)
	}
	fig := &svgplot.Figure{
		Title:  fmt.Sprintf("Evaluations to f ≤ %s on ellipsoids, d = %d (median, bar: min–max of %d runs)", shortFloat(e.Target), e.Dim, e.Runs),
		Panels: []svgplot.Panel{panel},
	}
	var b bytes.Buffer
	if err := fig.WriteSVG(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
