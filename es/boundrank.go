package es

import (
	"math"
	"slices"
)

// boundPenaltyFactor is c in the ranking penalty of bounded population
// strategies, gamma = c·IQR(f) (docs/ALGORITHMS.md Section 14.5).
const boundPenaltyFactor = 3

// boundRanking is the scratch of the ranking penalty (penalized): no state
// of its own, every value is recomputed from the generation.
type boundRanking struct {
	point  []float64 // a search point
	scale  []float64 // sigma_i = sigma·sqrt((A A^T)_ii)
	pen    []float64 // p_k of each row
	sorted []float64 // the finite values, sorted
	values []float64 // f_k + gamma p_k
}

// penalized returns the values a population strategy ranks and adapts with
// in a generation with the values f (docs/ALGORITHMS.md Section 14.5): f
// itself without Bounds, or when every row's search point lies in the
// preimage [L - aL, U + aU] of the box; otherwise f_k + gamma p_k, where
// p_k = (1/d) sum_i (delta_ki/sigma_i)^2 with delta_ki the distance of
// coordinate i of row k's search point to that preimage and sigma_i the
// strategy's standard deviation along coordinate i, and gamma =
// boundPenaltyFactor × the interquartile range of the finite values of f
// (f itself when that range is not positive and finite). point(dst, k)
// writes the search point of row k into dst, stds(dst) the standard
// deviations sigma_i. The best point and the stop criteria keep f: the
// penalty only steers the search. O(d) per row plus the cost of stds
// (O(d^2) with a full A), point called once per row; no allocation once the
// scratch has grown.
func (c *core) penalized(f []float64, point func(dst []float64, k int), stds func(dst []float64)) []float64 {
	if c.cfg.Bounds == nil {
		return f
	}
	r := &c.ranking
	d := c.cfg.Dim
	r.point = slicesGrow(r.point, d)
	r.pen = slicesGrow(r.pen, len(f))
	// One search point per row: p_k is 0 up to the first row outside the
	// preimage, which is where the scales are first needed.
	outside := false
	for k := range f {
		point(r.point, k)
		if !outside && c.out.preimageOutside(r.point) {
			outside = true
			r.scale = slicesGrow(r.scale, d)
			stds(r.scale)
		}
		r.pen[k] = 0
		if outside {
			r.pen[k] = c.out.preimageDistance(r.point, r.scale) / float64(d)
		}
	}
	if !outside {
		return f
	}
	r.sorted = r.sorted[:0]
	for _, v := range f {
		if finite(v) {
			r.sorted = append(r.sorted, v)
		}
	}
	slices.Sort(r.sorted)
	n := len(r.sorted)
	if n < 2 {
		return f
	}
	// The quartiles at the ranks (n+1)/4 and 3(n+1)/4, as pycma's
	// BoundPenalty takes them; 3(n+1)/4 passes n-1 for n = 2 and 3 (few
	// finite values), which take the largest value.
	gamma := float64(boundPenaltyFactor * (r.sorted[min(3*(n+1)/4, n-1)] - r.sorted[(n+1)/4]))
	if !(gamma > 0) || math.IsInf(gamma, 1) {
		return f
	}
	r.values = slicesGrow(r.values, len(f))
	for k, v := range f {
		r.values[k] = v
		if p := r.pen[k]; p > 0 {
			r.values[k] = v + float64(gamma*p)
		}
	}
	return r.values
}

// preimageOutside reports whether some coordinate of the search point x
// lies outside the preimage [L - aL, U + aU] of the box, where the map of
// Bounds is not the one-to-one part (Bounds.Map).
func (m searchMap) preimageOutside(x []float64) bool {
	return m.preimageDistance(x, nil) > 0
}

// preimageDistance returns sum_i (delta_i/scale_i)^2, where delta_i is the
// distance of coordinate i of the search point x to the preimage
// [L - aL, U + aU] of the box (in search units: divided by Stds), with
// scale nil counting every scale_i as 1. A NaN coordinate adds nothing.
func (m searchMap) preimageDistance(x, scale []float64) float64 {
	var sum float64
	for i, v := range x {
		if m.disc != nil && m.disc.pos[i] >= 0 {
			continue // discrete: the margin folds the mean back (Section 19)
		}
		if m.stds != nil {
			v = float64(v * m.stds[i])
		}
		c := m.coords[i]
		var delta float64
		switch {
		case v < c.lo:
			delta = c.lo - v
		case v > c.hi:
			delta = v - c.hi
		default:
			continue
		}
		if m.stds != nil {
			delta /= m.stds[i]
		}
		if scale != nil {
			delta /= scale[i]
		}
		sum += float64(delta * delta)
	}
	return sum
}

// rankGeneration is the selection step of the strategies with a
// population of lambda (cmaes, sepcma, lmmaes): it ranks the generation's
// values f into order (NaN and +Inf last, ties by index), records the
// best point when it improves (point writes candidate k; the margin's
// factors apply to it), and reports whether the generation has a finite
// value (docs/ALGORITHMS.md Section 13 item 8). When it has, sel is the
// order the update selects by, order itself or, in a bounded run,
// selection ranked by the penalized values v (Section 14.5); v is f
// otherwise.
func (c *core) rankGeneration(f []float64, order, selection []int, point func(dst []float64, k int), stds func(dst []float64)) (sel []int, v []float64, accepted bool) {
	rankOrder(order, f)
	best := order[0]
	if c.improves(f[best]) {
		point(c.bestX, best)
		c.stretchBest() // discrete coordinates
		c.bestF, c.hasBest = f[best], true
	}
	if worstValue(f[best]) {
		return nil, nil, false
	}
	c.nonFinite = 0
	sel, v = order, c.penalized(f, point, stds)
	if &v[0] != &f[0] {
		rankOrder(selection, v)
		sel = selection
	}
	return sel, v, true
}

// observePairs is the first step of the Tell of the strategies that
// evaluate the mean and mirrored pairs (hees, hees2, lmhees): it counts
// the values f (the mean's, then offspring 2k and 2k+1 of pair k), ranks
// the offspring by the values v[1:] into order (f, or f with the penalty
// of a bounded run, Section 14.5), updates the best so far from f (the
// mean first, so that it wins a tie; candidate writes the offspring of
// pair k on the minus side or not) and reports whether the generation has
// a finite offspring value. One without is rejected (Section 13 item 8):
// m and A stay and sigma is halved.
func (c *core) observePairs(f, v []float64, order []int, candidate func(dst []float64, k int, minus bool)) bool {
	off := f[1:]
	c.evals += len(f)
	c.fMean = f[0]
	rankOrder(order, v[1:])
	if c.improves(f[0]) {
		c.setBest(c.mean, f[0])
	}
	if b := bestIndex(off); c.improves(off[b]) {
		candidate(c.bestX, b/2, b%2 == 1)
		c.stretchBest() // discrete coordinates (hees2)
		c.bestF, c.hasBest = off[b], true
	}
	if !slices.ContainsFunc(off, finite) {
		c.sigma *= 0.5
		c.nonFinite++
		return false
	}
	c.nonFinite = 0
	return true
}
