package es

import (
	"math"
	"math/bits"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
)

// LQHEES is the name of lqhees.
const LQHEES = "lqhees"

// lqheesRow is lqhees's row of the table of strategies: hees2's, with the
// memory of the model.
var lqheesRow = strategyRow{
	Info: Info{
		Name:       LQHEES,
		Summary:    "hees2 ranking its candidates on a linear-quadratic model of f while the model predicts well (not invariant to monotone transformations of f)",
		Population: PopulationPairs,
		Transform:  true,
		MinDim:     2,
	},
	population: hees2Pairs,
	tuning:     []tuning{tuneKappa, tuneEtaA, tuneCS, tuneDS},
	tolFun:     1e-11,
	defaults:   hees2Defaults, // hees2's
	memory: func(cfg Config) float64 {
		return denseMemory(cfg.Dim, 2*cfg.Pairs+1) + lqMemory(cfg.Dim, 2*cfg.Pairs+1)
	},
	zero: func() strategy { return new(lqhees) },
}

// lqhees is hees2 (docs/ALGORITHMS.md Section 17) whose candidates are
// ranked on a model of f while the model predicts their ranks well: the
// surrogate of pycma's lq-CMA-ES (Hansen, "A global surrogate assisted
// CMA-ES", GECCO 2019; pycma's SurrogatePopulation and LQModel) in the
// coordinates y = A^-1 (x - m)/sigma of the HE-ES, plus the model's
// minimiser as a candidate of its own. docs/ALGORITHMS.md Section 22 gives
// the measurements. One iteration (a generation of hees2) takes one or
// more Ask/Tell rounds:
//
//	begin   draw the directions as hees2; order the 2 lambda~ + 1
//	        candidates by the model's values, the best first, and put
//	        before them x* = the model's minimiser when the model predicted
//	        well in the last iteration and is a quadratic with a positive
//	        definite Hessian
//	round   evaluate x* and the next candidates of that order: 1 + max(0.02
//	        (2 lambda~ + 1), 3/0.75 - archive size) of them in the first
//	        round, half as many more in each later one; archive them; fit
//	        the model (lqmodel.go); Kendall tau of the model's and the true
//	        values of the newest max(15, min(1.2 evaluated, 0.75 (2 lambda~
//	        + 1))) archived points
//	finish  when tau >= 0.85, with the model's values of all 2 lambda~ + 1
//	        candidates (shifted so that their smallest is the smallest true
//	        value among them); when every candidate is evaluated, with the
//	        true values; then hees2's update (ranks, mean, step size,
//	        A, stop criteria) with those values, without hees2's
//	        departure 7 (measured in lqhees, it made no difference)
//
// The model's values are a function of the true values, not of their
// ranks: lqhees gives up the invariance of hees2 (and of CMA-ES) to
// monotone transformations of f. Where the model does not predict, every
// candidate is evaluated and an iteration is hees2's generation.
type lqhees struct {
	hees2
	model lqModel

	// The iteration in progress. Candidate i < pop is row i of hees2 (0 the
	// mean, 2k+1 and 2k+2 the pair k); candidate pop is x*.
	inIter bool      // its directions are drawn
	gen0   int       // the generation (round) that drew them
	star   bool      // x* is a candidate
	xstar  []float64 // x*, in the search space
	order  []int     // the candidates in the order of evaluation
	done   int       // candidates of order evaluated
	target int       // candidates of order evaluated after the pending round
	vals   []float64 // true values by candidate, NaN while not evaluated
	bad    bool      // a value not finite was told in this iteration
	// predicted: pred holds the model's values of the population; checked:
	// predictionsOK checks them (a model short of the full quadratic).
	predicted, checked bool

	iters     int  // completed iterations
	surrogate int  // of which on the model's values
	failing   int  // iterations in a row that ended with a model that did not predict well
	doubt     bool // the model mispredicted the candidates of the last iteration (predictionsOK)

	v     []float64 // the values hees2's update takes
	pred  []float64 // the model's values of the population at begin
	point []float64
}

// setup initialises lqhees: hees2's state under lqhees's name, and an
// empty archive.
func (h *lqhees) setup(cfg Config) {
	h.hees2.setup(cfg)
	h.name, h.row = LQHEES, rowOf(LQHEES) // hees2.setup names hees2
	pop := 2*cfg.Pairs + 1
	h.model.setup(cfg.Dim, pop)
	h.inIter, h.gen0, h.star, h.done, h.target, h.bad = false, 0, false, 0, 0, false
	h.predicted, h.checked, h.doubt = false, false, false
	h.xstar = make([]float64, cfg.Dim)
	h.order = make([]int, pop+1)
	h.vals = make([]float64, pop+1)
	h.iters, h.surrogate, h.failing = 0, 0, 0
	h.v = make([]float64, pop)
	h.pred = make([]float64, pop)
	h.point = make([]float64, cfg.Dim)
}

// population is the number of hees2's candidates, 2 lambda~ + 1.
func (h *lqhees) population() int { return 2*h.pairs + 1 }

// candidates is the number of candidates of the iteration, x* included.
func (h *lqhees) candidates() int {
	if h.star {
		return h.population() + 1
	}
	return h.population()
}

// Ask writes the candidates of the pending round into pop: at the first
// round of an iteration it draws the iteration's directions and orders its
// candidates (begin).
func (h *lqhees) Ask(pop *linalg.Dense) error {
	if err := h.checkAsk(pop); err != nil {
		return err
	}
	if !h.inIter {
		if err := h.begin(); err != nil {
			return err
		}
	}
	h.pending = true
	rows := h.target - h.done
	resize(pop, rows, h.cfg.Dim)
	for r := range rows {
		h.candidate(pop.RawRow(r), h.order[h.done+r])
	}
	h.toBox(pop)
	return nil
}

// candidate writes the search point of candidate i into dst.
func (h *lqhees) candidate(dst []float64, i int) {
	if i == h.population() {
		copy(dst, h.xstar)
		return
	}
	h.searchPoint(dst, i)
}

// begin starts an iteration: hees2's directions of this generation, x*
// when the model predicted well, the order of evaluation and the first
// round (see the type's listing).
func (h *lqhees) begin() error {
	if err := h.sample(); err != nil {
		return err
	}
	h.inIter, h.gen0, h.done, h.bad = true, h.gen, 0, false
	pop := h.population()
	m := &h.model
	trusted := m.fitted && m.tau >= lqTauThreshold && !h.doubt
	h.star = trusted && m.hasOpt
	if h.star {
		copy(h.xstar, m.opt)
	}
	for i := range h.vals {
		h.vals[i] = math.NaN()
	}
	first := 0
	if h.star {
		h.order[0] = pop
		first = 1
	}
	rest := h.order[first : first+pop]
	for i := range rest {
		rest[i] = i
	}
	h.predicted = m.fitted
	if !m.fitted {
		h.target = pop // the whole population in one round
		return nil
	}
	// The model's values of the population, for the order and the check
	// of the predictions (predictionsOK).
	h.checked = m.kind < lqFull
	for i := range pop {
		h.searchPoint(h.point, i)
		h.pred[i] = m.predict(h.point)
	}
	if !trusted {
		h.target = first + pop // the whole population in one round
		return nil
	}
	// The best first (ties by row).
	slices.SortFunc(rest, func(i, j int) int {
		if c := compareValues(h.pred[i], h.pred[j]); c != 0 {
			return c
		}
		return i - j
	})
	// pycma's SurrogatePopulation: int(1 + max(0.02 popsize, 3/0.75 -
	// archive size)) in the first round.
	k := int(1 + max(float64(0.02*float64(pop)), float64(3/lqTruncation-float64(m.n))))
	h.target = first + min(k, pop-first)
	return nil
}

// predictionsOK reports whether the model's values at begin were within
// lqErrorRatio times their range over the population of the true values of
// every evaluated candidate of the population; it is always true for the
// full quadratic, and without a model.
func (h *lqhees) predictionsOK() bool {
	if !h.predicted || !h.checked {
		return true
	}
	pop := h.population()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range h.pred[:pop] {
		lo, hi = min(lo, p), max(hi, p)
	}
	tol := float64(lqErrorRatio * (hi - lo))
	for i, v := range h.vals[:pop] {
		if !math.IsNaN(v) && !(math.Abs(v-h.pred[i]) <= tol) {
			return false
		}
	}
	return true
}

// Tell takes the values of the pending round. It archives the evaluated
// points and either ends the iteration (finish) or leaves more candidates
// for the next round.
func (h *lqhees) Tell(f []float64) error {
	if err := h.checkTell(f, h.target-h.done); err != nil {
		return err
	}
	minusInf := false
	for r, v := range f {
		i := h.order[h.done+r]
		h.vals[i] = v
		h.candidate(h.point, i)
		if h.improves(v) {
			h.setBest(h.point, v)
		}
		if finite(v) {
			h.model.add(h.point, v)
		} else {
			h.bad = true
			minusInf = minusInf || math.IsInf(v, -1)
		}
	}
	h.evals += len(f)
	h.done = h.target
	h.gen++
	h.pending = false
	if minusInf {
		h.inIter = false
		h.stop = ReasonMinusInf
		return nil
	}
	total := h.candidates()
	evaluated := h.done
	if h.star {
		evaluated-- // the rounds count the population only, as pycma's
	}
	if h.done < total && h.bad {
		// A value not finite: hees2's policy (Section 13 item 8) needs the
		// true values of every candidate.
		h.target = total
		return nil
	}
	pop := h.population()
	nTau := int(max(15, min(float64(1.2*float64(evaluated)), float64(0.75*float64(pop)))))
	if h.done < total {
		// A round of an iteration that began on a model that predicted
		// well: unless the model mispredicted the candidates evaluated,
		// fit it again; the iteration ends on the model's values when it
		// still predicts well, and evaluates more candidates otherwise
		// (all of them after a misprediction).
		if !h.predictionsOK() {
			h.doubt = true
			h.target = total
			return nil
		}
		if h.model.fit(h.mean, h.sigma, &h.a, nTau) && h.model.tau >= lqTauThreshold {
			h.finish(true)
			return nil
		}
		// pycma: 1.5 times as many evaluated, rounded up.
		h.target = min(total, h.done+(evaluated+1)/2)
		return nil
	}
	// Every candidate evaluated: check the predictions and fit the model
	// for the next iteration, less often while it keeps failing.
	h.doubt = !h.predictionsOK()
	if h.fitDue() {
		h.model.fit(h.mean, h.sigma, &h.a, nTau)
	}
	h.finish(false)
	return nil
}

// fitDue reports whether an iteration whose candidates were all evaluated
// fits the model: always after an iteration that ended with a model that
// predicted well or after the first that did not, then every 2, 4, ...,
// lqFitEvery iterations.
func (h *lqhees) fitDue() bool {
	every := lqFitEvery
	if h.failing < 2 {
		every = 1
	} else if h.failing-1 < bits.Len(lqFitEvery) {
		every = min(lqFitEvery, 1<<(h.failing-1))
	}
	return h.iters%every == 0
}

// finish ends the iteration with hees2's update on the true values of the
// population, or on the model's (surrogate), and applies the stop
// criteria.
func (h *lqhees) finish(surrogate bool) {
	pop := h.population()
	f := h.v[:pop]
	if surrogate {
		// pycma's surrogate values: the model's values of every candidate,
		// shifted so that the smallest is the smallest true value of the
		// evaluated ones.
		lo, lowest := math.Inf(1), math.Inf(1)
		for i := range pop {
			h.searchPoint(h.point, i)
			f[i] = h.model.predict(h.point)
			lo = min(lo, f[i])
			if v := h.vals[i]; finite(v) {
				lowest = min(lowest, v)
			}
		}
		for i := range f {
			f[i] = (f[i] - lo) + lowest
		}
		h.surrogate++
	} else {
		copy(f, h.vals[:pop])
	}
	off := f[1:]
	v := h.penalized(f, h.searchPoint, h.stds) // Section 14.5 in a box
	h.fMean = v[0]
	rankOrder(h.hees.order, v[1:])
	if slices.ContainsFunc(off, finite) {
		h.nonFinite = 0
		h.recombine()
		baseline := h.baseline()
		norm := h.cumulate()
		h.sigma *= xmath.Exp((norm-baseline)/float64(h.ds*h.chi) + h.lengths())
		h.ad.adapt(&h.core, &h.dense, v[0], v[1:])
	} else {
		h.sigma *= 0.5
		h.nonFinite++
	}
	if h.star {
		// The quasi-Newton step: x* becomes the mean when it is better than
		// every candidate of the population evaluated.
		better := true
		for _, v := range h.vals[:pop] {
			if !math.IsNaN(v) && !(h.vals[pop] < v) {
				better = false
			}
		}
		if better {
			copy(h.mean, h.xstar)
		}
	}
	best, worst := off[bestIndex(off)], off[worstIndex(off)]
	h.funHist.push(best)
	h.inIter = false
	h.iters++
	if m := &h.model; m.fitted && m.tau >= lqTauThreshold {
		h.failing = 0
	} else {
		h.failing++
	}
	h.stop = h.stopReason(f, h.cfg.TolFun > 0 && worst-best < h.cfg.TolFun &&
		h.funHist.size() == len(h.funHist.buf) && h.funHist.spread() < h.cfg.TolFun)
	if h.stop == "" && h.cfg.TolFun > 0 && h.tolX() {
		h.stop = ReasonTolX
	}
}

// inject records a known point as every strategy does, and archives it.
func (h *lqhees) inject(x []float64, f float64) {
	h.core.inject(x, f)
	if !finite(f) {
		return
	}
	if err := h.out.invert(h.point, x); err == nil {
		h.model.add(h.point, f)
	}
}

// MarshalBinary saves the complete state under the tag "hees-es/lqhees/v1":
// hees2's, the archive and the last fit, and the iteration in progress.
func (h *lqhees) MarshalBinary() ([]byte, error) {
	w := newStateWriter(LQHEES)
	h.writeState(w)
	h.funHist.write(w)
	h.model.write(w)
	w.int(h.iters)
	w.int(h.surrogate)
	w.int(h.failing)
	w.bool(h.doubt)
	w.bool(h.inIter)
	if h.inIter {
		w.int(h.gen0)
		w.bool(h.star)
		w.floats(h.xstar)
		order := make([]float64, h.candidates())
		for i, o := range h.order[:len(order)] {
			order[i] = float64(o)
		}
		w.floats(order)
		w.int(h.done)
		w.int(h.target)
		w.floats(h.vals)
		w.bool(h.bad)
		w.bool(h.predicted)
		w.bool(h.checked)
		w.floats(h.pred)
	}
	return w.finish(), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary of an lqhees
// strategy, replacing the receiver's state entirely.
func (h *lqhees) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, LQHEES)
	if err != nil {
		return err
	}
	var fresh lqhees
	fresh.setup(cfg)
	fresh.readState(r)
	fresh.funHist.read(r)
	fresh.model.read(r)
	fresh.iters, fresh.surrogate, fresh.failing = r.int(), r.int(), r.int()
	fresh.doubt = r.bool()
	fresh.inIter = r.bool()
	if fresh.inIter {
		fresh.readIteration(r)
	}
	if err := r.done(); err != nil {
		return err
	}
	if fresh.inIter {
		// The directions are a function of (seed, generation, p_s): redraw
		// those of the iteration's first round.
		gen := fresh.gen
		fresh.gen = fresh.gen0
		err := fresh.sample()
		fresh.gen = gen
		if err != nil {
			return err
		}
	}
	*h = fresh
	return nil
}

// readIteration reads the iteration in progress and checks it.
func (h *lqhees) readIteration(r *stateReader) {
	h.gen0 = r.int()
	h.star = r.bool()
	h.xstar = r.floats(h.xstar)
	order := r.floats(nil)
	h.done, h.target = r.int(), r.int()
	h.vals = r.floats(h.vals)
	h.bad = r.bool()
	h.predicted, h.checked = r.bool(), r.bool()
	h.pred = r.floats(h.pred)
	if r.err != nil {
		return
	}
	n := h.candidates()
	switch {
	case len(h.xstar) != h.cfg.Dim:
		r.fail("x* of length %d, want %d", len(h.xstar), h.cfg.Dim)
	case len(order) != n || len(h.vals) != h.population()+1 || len(h.pred) != h.population():
		r.fail("iteration of %d candidates and %d values, want %d and %d", len(order), len(h.vals), n, h.population()+1)
	case h.gen0 < 0 || h.gen0 > h.gen || h.done < 0 || h.done > h.target || h.target > n || h.done == n:
		r.fail("iteration from generation %d at %d of %d (%d evaluated)", h.gen0, h.target, n, h.done)
	}
	if r.err != nil {
		return
	}
	seen := make([]bool, n)
	for i, v := range order {
		o := int(v)
		if float64(o) != v || o < 0 || o >= n || seen[o] {
			r.fail("order of evaluation %v", order)
			return
		}
		seen[o] = true
		h.order[i] = o
	}
}
