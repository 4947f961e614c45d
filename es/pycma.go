package es

import (
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
)

// What several strategies take from pycma (docs/ALGORITHMS.md Section 8):
// the learning rates of C, the recombination weights, E|N(0, I)|, tolx,
// and the history of best values behind tolfun.

// tolX is pycma's tolx: every sigma |p_c,i| and sigma sqrt(C_ii) is below
// it (cmaes; hees2 with C = A A^T and no p_c).
const tolX = 1e-11

// cmaRates returns pycma's learning rates c_1 of the rank-one and c_mu of
// the rank-mu update of C for dimension d, population size lambda and
// variance effective selection mass muEff:
//
//   - c_1 = min(1, lambda/6) 2/((n + 1.3)^2 + mu_eff), pycma's
//     GaussSampler.parameters (also CMAParameters.set): the tutorial's eq.
//     (57) with alpha_cov = 2, reduced for lambda < 6;
//   - c_mu = min(1 - c_1, 2 (1/4 + mu_eff - 2 + 1/mu_eff)/((n + 2)^2 +
//     2 mu_eff/2)), pycma's GaussSampler.parameters with alpha_cov = 2 and
//     rankmu_offset 1/4 (the tutorial's eq. (58) has none and alpha_cov
//     mu_eff in the denominator).
func cmaRates(d, lambda int, muEff float64) (c1, cmu float64) {
	n := float64(d)
	c1 = float64(min(1, float64(lambda)/6)*2) / (float64((n+1.3)*(n+1.3)) + muEff)
	cmu = min(1-c1, 2*(0.25+muEff-2+1/muEff)/(float64((n+2)*(n+2))+muEff))
	return c1, cmu
}

// rawCMAESWeights writes pycma's recombination weights before the active
// scaling into w (len(w) = lambda >= 2): w'_i = ln((lambda+1)/2) - ln i
// (eq. (49)), the positive ones divided by their sum, the others by minus
// theirs, so they sum to 1 and -1. It returns mu (the number of positive
// weights), mu_eff and mu_eff^- (eq. (50)).
func rawCMAESWeights(w []float64) (mu int, muEff, muEffMinus float64) {
	top := xmath.Log(float64(len(w)+1) / 2)
	var pos, neg float64
	for i := range w {
		w[i] = top - xmath.Log(float64(i+1))
		if w[i] > 0 {
			mu++
			pos += w[i]
		} else {
			neg += w[i]
		}
	}
	var sqPos, sqNeg float64
	for i := range w {
		if i < mu {
			w[i] /= pos
			sqPos += float64(w[i] * w[i])
		} else {
			w[i] /= -neg
			sqNeg += float64(w[i] * w[i])
		}
	}
	return mu, 1 / sqPos, 1 / sqNeg
}

// pycmaChiN is pycma's E|N(0, I_n)| (utilities/math.py chiN): the exact
// value for n <= 6 and sqrt(n) (1 - 1/(4n) + 1/(26 n^2)) above.
func pycmaChiN(d int) float64 {
	exact := [...]float64{0.7978845608028654, 1.2533141373156, 1.59576912160573,
		1.87997120597325, 2.1276921621409746, 2.3499640074665633}
	if d <= len(exact) {
		return exact[d-1]
	}
	n := float64(d)
	return float64(math.Sqrt(n) * (1 - 1/(4*n) + 1/float64(26*n*n)))
}

// history is a ring of the most recent values pushed into it.
type history struct {
	buf   []float64
	count int // values pushed so far; the newest is at (count-1) % len(buf)
}

// push appends v, dropping the oldest value when the ring is full.
func (h *history) push(v float64) {
	h.buf[h.count%len(h.buf)] = v
	h.count++
}

// size is the number of values held.
func (h *history) size() int { return min(h.count, len(h.buf)) }

// at returns the k-th newest value held (k = 0 is the newest).
func (h *history) at(k int) float64 { return h.buf[(h.count-1-k)%len(h.buf)] }

// spread returns max - min of the values held.
func (h *history) spread() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range h.size() {
		v := h.at(k)
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi - lo
}

// write saves the push count and the values held, oldest first.
func (h *history) write(w *stateWriter) {
	w.int(h.count)
	for k := h.size() - 1; k >= 0; k-- {
		w.float(h.at(k))
	}
}

// read restores what write saved into a ring of the same capacity.
func (h *history) read(r *stateReader) {
	count := r.int()
	if r.err == nil && count < 0 {
		r.fail("history count %d", count)
	}
	if r.err != nil {
		return
	}
	n := min(count, len(h.buf))
	h.count = count - n
	for range n {
		h.push(r.float())
	}
}

// The records of tolstagnation (pycma).
const (
	// stagnationEvery: pycma records the best and the median value of every
	// fifth generation for tolstagnation.
	stagnationEvery = 5
	// stagnationRecords is the number of records pycma keeps (2e4).
	stagnationRecords = 20000
)

// stagnation is pycma's tolstagnation (docs/ALGORITHMS.md Section 8): the
// best and the median value of every fifth generation are recorded, and
// the run has stagnated when the newest records improve on the ones before
// them neither in the median of their best values nor in that of their
// medians. cmaes and sepcma keep these records.
type stagnation struct {
	best, median history
	// stagnant says whether the last records met the median conditions;
	// the criterion fires once the generation count exceeds minGen too.
	stagnant bool
	iters    int     // pycma's tolstagnation, floor(100 + 100 n^1.5/lambda) generations
	minGen   float64 // n (5 + 100/lambda), the generations the criterion waits for
	scratch  []float64
}

// setup starts empty records for dimension d and lambda evaluations a
// generation.
func (s *stagnation) setup(d, lambda int) {
	n := float64(d)
	s.iters = int(100 + 100*float64(n*math.Sqrt(n))/float64(lambda))
	s.minGen = float64(n * (5 + 100/float64(lambda)))
	s.best = history{buf: make([]float64, stagnationRecords)}
	s.median = history{buf: make([]float64, stagnationRecords)}
	s.stagnant = false
	s.scratch = make([]float64, max(lambda, stagnationRecords/2))
}

// record adds the best value and the median of f (NaN counted as +Inf)
// of generation gen when gen is a multiple of stagnationEvery, and tests
// the median conditions again.
func (s *stagnation) record(gen int, best float64, f []float64) {
	if gen%stagnationEvery != 0 {
		return
	}
	s.best.push(best)
	m := s.scratch[:len(f)]
	for i, v := range f {
		if worstValue(v) {
			v = math.Inf(1)
		}
		m[i] = v
	}
	s.median.push(sortedMedian(m))
	s.stagnant = s.medianConditions()
}

// fires reports whether tolstagnation stops a run after generation gen.
func (s *stagnation) fires(gen int) bool { return s.stagnant && float64(gen) > s.minGen }

// medianConditions is pycma's test on the records: with n records (more
// than 100) and l = floor(max(iters/10, n/10)), 2 l < n, the median of the
// newest l medians is no better than that of the l before them, and the
// same holds for the best values.
func (s *stagnation) medianConditions() bool {
	n := s.best.size()
	l := int(max(float64(s.iters)/10, float64(n)/10))
	if n <= 100 || 2*l >= n {
		return false
	}
	return s.windowMedian(&s.median, 0, l) >= s.windowMedian(&s.median, l, l) &&
		s.windowMedian(&s.best, 0, l) >= s.windowMedian(&s.best, l, l)
}

// windowMedian is the median of the l values of h from the from-th newest on.
func (s *stagnation) windowMedian(h *history, from, l int) float64 {
	m := s.scratch[:l]
	for k := range m {
		m[k] = h.at(from + k)
	}
	return sortedMedian(m)
}

// sortedMedian sorts s and returns its median.
func sortedMedian(s []float64) float64 {
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// write saves the records.
func (s *stagnation) write(w *stateWriter) {
	s.best.write(w)
	s.median.write(w)
	w.bool(s.stagnant)
}

// read restores what write saved into records set up for the same
// dimension and population.
func (s *stagnation) read(r *stateReader) {
	s.best.read(r)
	s.median.read(r)
	s.stagnant = r.bool()
	if r.err == nil && s.best.count != s.median.count {
		r.fail("%d best and %d median records", s.best.count, s.median.count)
	}
}
