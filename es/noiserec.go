package es

import (
	"cmp"
	"math"
	"slices"
)

// The recommendation of a NoiseHandler (docs/ALGORITHMS.md Section 20
// item 5): where the noise hides the ranking, the mean wanders about the
// point the noise lets it reach, and the average of its recent positions
// is closer than any one of them. A window is the last w + (g mod w)
// means of the current run, w = 64, 128, …, 1024 and g the run's
// generations; the recommendation is the average of the longest window
// such that neither it nor a shorter one shows a trend in its estimates
// f(m), or the last mean where even the shortest does:
//
//	trend   |z| >= 2 of the Mann-Whitney test of the window's older half
//	        against its newer half (the estimates of a converging mean
//	        fall; those of a wandering one do not)
//	recent  z >= 3 for "the newest 8 estimates are below the rest of the
//	        window" (a mean that has just left a plateau)
//
// The windows belong to the current run: a restart of IPOP or BIPOP or a
// doubling of the population empties them.

// Windows of the averaged recommendation.
const (
	recMinWindow = 64                                  // the shortest window w, in generations
	recLevels    = 5                                   // windows of recMinWindow << i generations, i < recLevels
	recRing      = 2 * recMinWindow << (recLevels - 1) // estimates kept: more than the longest window
	recTrendZ    = 2                                   // |z| of a trend between a window's halves
	recRecent    = 8                                   // the newest estimates tested against the window
	recRecentZ   = 3                                   // z of "the newest are below the window"
)

// meanWindow holds the means of the current run a recommendation may
// average: their estimates, and the sums of the means and of the
// evaluations behind their estimates by blocks of recMinWindow << i
// generations aligned on the run's first.
type meanWindow struct {
	gens int     // means recorded since the run started
	f    history // their estimates f(m), the newest recRing
	// cur[i] is the sum of the means of the current, incomplete block of
	// level i, prev[i] of the block before it; curEvals and prevEvals
	// the evaluations behind their estimates.
	cur, prev           [recLevels][]float64
	curEvals, prevEvals [recLevels]int
	// sorted holds the estimates of f in the order of compareEstimates,
	// so that a window's ranks are a pass over it (derived from f).
	sorted []estimate
}

// estimate is the estimate f(m) of the mean of generation gen of the run.
type estimate struct {
	f   float64
	gen int
}

// compareEstimates orders estimates by value (compareValues), then by
// generation.
func compareEstimates(a, b estimate) int {
	if c := compareValues(a.f, b.f); c != 0 {
		return c
	}
	return cmp.Compare(a.gen, b.gen)
}

// newMeanWindow returns an empty window for means of dimension d.
func newMeanWindow(d int) meanWindow {
	w := emptyWindow()
	for i := range recLevels {
		w.cur[i], w.prev[i] = make([]float64, d), make([]float64, d)
	}
	return w
}

// emptyWindow returns a window without estimates and without its sums.
func emptyWindow() meanWindow {
	return meanWindow{f: history{buf: make([]float64, recRing)}, sorted: make([]estimate, 0, recRing+1)}
}

// reset empties the window for a new run.
func (w *meanWindow) reset() {
	w.gens, w.f.count, w.sorted = 0, 0, w.sorted[:0]
	w.curEvals, w.prevEvals = [recLevels]int{}, [recLevels]int{}
	for i := range recLevels {
		clear(w.cur[i])
		clear(w.prev[i])
	}
}

// add records the mean m of a generation with its estimate f from n
// evaluations.
func (w *meanWindow) add(m []float64, f float64, n int) {
	if w.f.size() == recRing {
		w.remove(estimate{w.f.at(recRing - 1), w.gens - recRing})
	}
	w.insert(estimate{f, w.gens})
	w.gens++
	w.f.push(f)
	for i := range recLevels {
		for j, v := range m {
			w.cur[i][j] += v
		}
		w.curEvals[i] += n
		if w.gens%(recMinWindow<<i) == 0 {
			w.cur[i], w.prev[i] = w.prev[i], w.cur[i]
			clear(w.cur[i])
			w.prevEvals[i], w.curEvals[i] = w.curEvals[i], 0
		}
	}
}

// insert adds e to sorted.
func (w *meanWindow) insert(e estimate) {
	i, _ := slices.BinarySearchFunc(w.sorted, e, compareEstimates)
	w.sorted = slices.Insert(w.sorted, i, e)
}

// remove takes e out of sorted.
func (w *meanWindow) remove(e estimate) {
	if i, ok := slices.BinarySearchFunc(w.sorted, e, compareEstimates); ok {
		w.sorted = slices.Delete(w.sorted, i, i+1)
	}
}

// average returns the average of the longest window without a trend,
// its estimate the median of the window's and its evaluations theirs, and
// false where there is none.
func (w *meanWindow) average() (Recommendation, bool) {
	level, n, median := -1, 0, 0.0
	for i := range recLevels {
		size := recMinWindow << i
		if w.gens < size {
			break
		}
		m := size + w.gens%size
		trend, recent, med := w.test(m)
		if math.Abs(trend) >= recTrendZ || recent >= recRecentZ {
			break
		}
		level, n, median = i, m, med
	}
	if level < 0 {
		return Recommendation{}, false
	}
	r := Recommendation{X: make([]float64, len(w.cur[level])), F: median, Means: n,
		Evals: w.prevEvals[level] + w.curEvals[level]}
	for j := range r.X {
		r.X[j] = (w.prev[level][j] + w.cur[level][j]) / float64(n)
	}
	return r, true
}

// test returns, for the window of the newest m estimates, the normal
// scores of the Mann-Whitney statistics for "the older half is larger
// than the newer m/2" and "the others are larger than the newest
// recRecent" (ranks by compareValues, equal values taking their mean
// rank), and the window's median.
func (w *meanWindow) test(m int) (trend, recent, median float64) {
	from := w.gens - m
	half, last := w.gens-m/2, w.gens-recRecent
	var sumHalf, sumLast float64 // of the ranks of the older values of each split
	var lo, hi float64           // the values of rank (m+1)/2 and m/2+1
	pos := 0                     // values of the window passed
	for i := 0; i < len(w.sorted); {
		// One value's run of equal estimates, those in the window counted.
		j, inHalf, inLast, count := i, 0, 0, 0
		for ; j < len(w.sorted) && compareValues(w.sorted[j].f, w.sorted[i].f) == 0; j++ {
			if g := w.sorted[j].gen; g >= from {
				count++
				if g < half {
					inHalf++
				}
				if g < last {
					inLast++
				}
			}
		}
		if count > 0 {
			rank := float64(2*pos+count+1) / 2
			sumHalf += rank * float64(inHalf)
			sumLast += rank * float64(inLast)
			if pos < (m+1)/2 && (m+1)/2 <= pos+count {
				lo = w.sorted[i].f
			}
			if pos < m/2+1 && m/2+1 <= pos+count {
				hi = w.sorted[i].f
			}
			pos += count
		}
		i = j
	}
	median = lo
	if m%2 == 0 {
		median = halfway(lo, hi)
	}
	return mannWhitneyZ(sumHalf, m-m/2, m/2), mannWhitneyZ(sumLast, m-recRecent, recRecent), median
}

// mannWhitneyZ returns the normal score of the Mann-Whitney statistic for
// "the n1 older values are larger than the n2 newer ones" from the sum of
// the older values' ranks among all n1 + n2: positive when the newer are
// the smaller.
func mannWhitneyZ(rankSum float64, n1, n2 int) float64 {
	a, b := float64(n1), float64(n2)
	u := rankSum - a*(a+1)/2
	return (u - a*b/2) / math.Sqrt(a*b*(a+b+1)/12)
}

// write saves the window (sorted is derived from it).
func (w *meanWindow) write(sw *stateWriter) {
	sw.int(w.gens)
	w.f.write(sw)
	for i := range recLevels {
		sw.floats(w.cur[i])
		sw.floats(w.prev[i])
		sw.int(w.curEvals[i])
		sw.int(w.prevEvals[i])
	}
}

// read restores what write saved (check tells whether it can be).
func (w *meanWindow) read(r *stateReader) {
	*w = emptyWindow()
	w.gens = r.int()
	w.f.read(r)
	for i := range recLevels {
		w.cur[i] = r.floats(nil)
		w.prev[i] = r.floats(nil)
		w.curEvals[i] = r.int()
		w.prevEvals[i] = r.int()
	}
	if w.gens >= 0 && w.f.count == w.gens {
		for k := range w.f.size() {
			w.sorted = append(w.sorted, estimate{w.f.at(k), w.gens - 1 - k})
		}
		slices.SortFunc(w.sorted, compareEstimates)
	}
}

// check reports what is wrong with a restored window of dimension d, ""
// if nothing.
func (w *meanWindow) check(d int) string {
	if w.gens < 0 || w.f.count != w.gens {
		return "window of the recommendation: counts"
	}
	for i := range recLevels {
		// A block of n generations has between n and 2 MaxNoiseEvals n
		// evaluations behind its estimates.
		size := recMinWindow << i
		cur := w.gens % size
		prev := min(size, w.gens-cur)
		if w.curEvals[i] < cur || w.curEvals[i] > 2*MaxNoiseEvals*cur ||
			w.prevEvals[i] < prev || w.prevEvals[i] > 2*MaxNoiseEvals*prev {
			return "window of the recommendation: evaluations"
		}
	}
	for i := range recLevels {
		for _, s := range [][]float64{w.cur[i], w.prev[i]} {
			if len(s) != d || slices.ContainsFunc(s, func(v float64) bool { return !finite(v) }) {
				return "window of the recommendation: sums"
			}
		}
	}
	return ""
}
