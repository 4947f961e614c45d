package es

import (
	"math"
	"slices"

	"github.com/hees-dev/hees/linalg"
)

// The linear-quadratic model of lqhees (docs/ALGORITHMS.md Section 22): a
// weighted least-squares fit of f over an archive of evaluated points, built
// as pycma's LQModel builds it (cma/fitness_models.py, pycma 4.4.0), but in
// the coordinates of the HE-ES's sampling distribution,
//
//	y = A^-1 (x - m) / sigma,
//
// in which a convex quadratic that A has learned is nearly isotropic. The
// model is linear (1 + d terms) while the archive is small, then quadratic
// in each y_i (1 + 2d terms), then a full quadratic (1 + 2d + d(d-1)/2
// terms) in dimensions up to lqFullDim.

// lqKind is the set of terms of the model.
type lqKind int

// The kinds of model, in increasing order of terms.
const (
	lqLinear lqKind = iota // 1, y_i
	lqIso                  // and |y|^2
	lqDiag                 // 1, y_i, y_i^2
	lqFull                 // and y_i y_j for i < j
)

// The constants of pycma's LQModel and SurrogatePopulation (pycma 4.4.0,
// LQModelSettings and SurrogatePopulationSettings), and two of this
// project.
const (
	// lqTruncation: the fit uses the best 3/4 of the archive
	// (truncation_ratio).
	lqTruncation = 0.75
	// lqMinRelative: a kind of model is used once the archive holds
	// lqMinRelative/lqTruncation times its number of terms
	// (min_relative_size).
	lqMinRelative = 1.1
	// lqMaxRelative: the archive holds up to lqMaxRelative times the terms
	// of the largest kind, or a generation if that is more
	// (max_relative_size_end, model_max_size_factor).
	lqMaxRelative = 2
	// lqMaxWeight: the regression weights fall linearly from lqMaxWeight
	// for the best point to 1 for the worst point of the fit (max_weight).
	lqMaxWeight = 20
	// lqTauThreshold: the model ranks the candidates once the Kendall rank
	// correlation of its values with the true ones reaches it
	// (tau_truth_threshold).
	lqTauThreshold = 0.85
	// lqFullDim is the largest dimension with the full quadratic model
	// (chosen: its fit costs O(d^5) per round, 18 million multiply-adds at
	// d = 20, docs/ALGORITHMS.md Section 22).
	lqFullDim = 20
	// lqMaxDim is the largest dimension with a model at all (chosen: the
	// fit of the quadratic in each y_i costs about 6 d^3 multiply-adds per
	// round); above it lqhees runs as hees2.
	lqMaxDim = 100
	// lqErrorRatio: the model below the full quadratic predicts well only
	// while its values of the candidates evaluated lie within lqErrorRatio
	// times the range of its values over the population of the true ones
	// (chosen, docs/ALGORITHMS.md Section 22).
	lqErrorRatio = 0.2
	// lqFitEvery bounds the interval, in iterations, between two fits
	// while the model keeps failing (chosen: the interval doubles with
	// every failing iteration after the first, up to lqFitEvery; the
	// fits are most of lqhees's time on functions the model does not
	// predict).
	lqFitEvery = 8
	// lqRidge is the ridge added to the normal equations scaled to a unit
	// diagonal when there are fewer points than coefficients or the
	// equations are numerically singular: it makes an underdetermined fit
	// the smallest in the scaled coefficients (pycma takes the
	// pseudo-inverse).
	lqRidge = 1e-10
)

// lqTerms is the number of coefficients of a model of kind k in dimension d.
func lqTerms(k lqKind, d int) int {
	switch k {
	case lqLinear:
		return 1 + d
	case lqIso:
		return 2 + d
	case lqDiag:
		return 1 + 2*d
	}
	return 1 + 2*d + d*(d-1)/2
}

// lqTop is the largest kind of model in dimension d.
func lqTop(d int) lqKind {
	if d <= lqFullDim {
		return lqFull
	}
	return lqDiag
}

// lqCapacity is the number of points the archive holds in dimension d with
// pop candidates per generation: lqMaxRelative times the terms of the
// largest kind, at least a generation and one point more.
func lqCapacity(d, pop int) int {
	return max(lqMaxRelative*lqTerms(lqTop(d), d), pop+1)
}

// lqMemory is the memory estimate, in bytes, of the model of lqhees in
// dimension d with pop candidates per generation (0 above lqMaxDim).
func lqMemory(d, pop int) float64 {
	if d > lqMaxDim {
		return 0
	}
	n, p, fd := float64(lqCapacity(d, pop)), float64(lqTerms(lqTop(d), d)), float64(d)
	return 8 * (2*n*fd + n*p + 2*p*p + 5*fd*fd + 4*n + 8*p)
}

// lqModel is the archive and the model fitted to it.
type lqModel struct {
	d int

	// The archive: a ring of the newest points (in the strategy's search
	// space) and their values.
	ax    linalg.Dense // capacity×d
	af    []float64
	age   []int // insertion number of each point
	n     int   // points held
	next  int   // ring position of the next point
	added int   // points added so far

	// The frame of the last fit: y = inv (x - mean)/sigma.
	mean  []float64
	sigma float64
	inv   linalg.Dense
	a     linalg.Dense // A of the frame, for the optimum

	// The last fit.
	fitted bool
	kind   lqKind
	coef   []float64 // lqTerms(kind, d) coefficients
	tau    float64   // Kendall tau of the last fit on the newest points
	hasOpt bool      // the quadratic model has a positive definite Hessian
	opt    []float64 // its minimiser, in the search space

	// Workspace.
	ay    linalg.Dense // the archive in the frame, by ring position
	order []int
	z     linalg.Dense // weighted design matrix
	wf    []float64    // weighted values
	g     linalg.Dense // normal equations
	chol  linalg.Cholesky
	rhs   []float64
	scale []float64
	feat  []float64
	h     linalg.Dense // twice the Hessian of the model in the frame
	hchol linalg.Cholesky
	work  linalg.Dense
	y     []float64
	tmp   []float64
	pred  []float64
	truth []float64
}

// setup sizes the model for dimension d and pop candidates per generation,
// allocating all it will need.
func (m *lqModel) setup(d, pop int) {
	*m = lqModel{d: d}
	if d > lqMaxDim {
		return
	}
	c, p := lqCapacity(d, pop), lqTerms(lqTop(d), d)
	m.ax.ReuseAs(c, d)
	m.af = make([]float64, c)
	m.age = make([]int, c)
	m.mean = make([]float64, d)
	m.inv.ReuseAs(d, d)
	m.a.ReuseAs(d, d)
	m.coef = make([]float64, p)
	m.opt = make([]float64, d)
	m.ay.ReuseAs(c, d)
	m.order = make([]int, c)
	m.z.ReuseAs(c, p)
	m.wf = make([]float64, c)
	m.g.ReuseAs(p, p)
	m.g.SetIdentity()
	m.chol.TryFactorize(&m.g) // sizes the factor once
	m.rhs = make([]float64, p)
	m.scale = make([]float64, p)
	m.feat = make([]float64, p)
	m.h.ReuseAs(d, d)
	m.h.SetIdentity()
	m.hchol.TryFactorize(&m.h)
	m.work.ReuseAs(d, d)
	m.y = make([]float64, d)
	m.tmp = make([]float64, d)
	m.pred = make([]float64, c)
	m.truth = make([]float64, c)
}

// enabled reports whether the dimension has a model.
func (m *lqModel) enabled() bool { return m.d <= lqMaxDim }

// add puts the search point x with the finite value f into the archive,
// replacing the oldest point when it is full.
func (m *lqModel) add(x []float64, f float64) {
	if !m.enabled() {
		return
	}
	copy(m.ax.RawRow(m.next), x)
	m.af[m.next] = f
	m.age[m.next] = m.added
	m.added++
	c := len(m.af)
	m.next = (m.next + 1) % c
	m.n = min(m.n+1, c)
}

// kindFor returns the largest kind of model that n points support: the
// kind k once lqTruncation n >= lqMinRelative lqTerms(k) (pycma's
// update_type).
func (m *lqModel) kindFor(n int) lqKind {
	for k := lqTop(m.d); k > lqLinear; k-- {
		if float64(lqTruncation*float64(n)) >= float64(lqMinRelative*float64(lqTerms(k, m.d))) {
			return k
		}
	}
	return lqLinear
}

// features writes the terms of the model of kind k at y into dst.
func features(dst, y []float64, k lqKind) {
	d := len(y)
	dst[0] = 1
	copy(dst[1:1+d], y)
	if k == lqLinear {
		return
	}
	if k == lqIso {
		dst[1+d] = linalg.Dot(y, y)
		return
	}
	for i, v := range y {
		dst[1+d+i] = float64(v * v)
	}
	if k == lqDiag {
		return
	}
	j := 1 + 2*d
	for a := 0; a < d; a++ {
		for b := a + 1; b < d; b++ {
			dst[j] = float64(y[a] * y[b])
			j++
		}
	}
}

// toFrame writes the coordinates y = inv (x - mean)/sigma of the search
// point x in the frame of the last fit into y.
func (m *lqModel) toFrame(y, x []float64) {
	for i, v := range x {
		m.tmp[i] = (v - m.mean[i]) / m.sigma
	}
	linalg.MulVec(y, &m.inv, m.tmp)
}

// predictY returns the model's value at frame coordinates y.
func (m *lqModel) predictY(y []float64) float64 {
	p := lqTerms(m.kind, m.d)
	features(m.feat[:p], y, m.kind)
	return linalg.Dot(m.coef[:p], m.feat[:p])
}

// predict returns the model's value at the search point x.
func (m *lqModel) predict(x []float64) float64 {
	m.toFrame(m.y, x)
	return m.predictY(m.y)
}

// fit fits the model to the archive in the frame of the sampling
// distribution mean + sigma a N(0, I) and measures its Kendall tau on the
// newest nTau points; it reports whether a model was fitted. After a fit,
// opt holds the minimiser of a quadratic model whose Hessian is positive
// definite (hasOpt).
//
// As pycma's LQModel: the best max(terms + 2, lqTruncation (n + 1)) of the
// n archived points (at most n), weighted linearly from lqMaxWeight (the
// best) down to 1, give the coefficients of least squares with the
// weighted rows. Here the normal equations, scaled to a unit diagonal with
// a ridge of lqRidge, are solved by Cholesky; pycma takes the
// pseudo-inverse of the weighted rows.
func (m *lqModel) fit(mean []float64, sigma float64, a *linalg.Dense, nTau int) bool {
	m.fitted, m.hasOpt, m.tau = false, false, 0
	if !m.enabled() || m.n < 3 {
		return false
	}
	d := m.d
	copy(m.mean, mean)
	m.sigma = sigma
	m.a.CopyFrom(a)
	if !invertInto(&m.inv, &m.work, a) {
		return false
	}
	for j := range m.n {
		m.toFrame(m.ay.RawRow(j), m.ax.RawRow(j))
	}
	m.kind = m.kindFor(m.n)
	p := lqTerms(m.kind, d)
	nFit := min(m.n, max(p+2, int(lqTruncation*float64(m.n+1))))
	order := m.order[:m.n]
	for i := range order {
		order[i] = i
	}
	// Best first; ties by age, the older first.
	slices.SortFunc(order, func(i, j int) int {
		if c := compareValues(m.af[i], m.af[j]); c != 0 {
			return c
		}
		return m.age[i] - m.age[j]
	})
	fBest := m.af[order[0]]
	resize(&m.z, nFit, p)
	for r, j := range order[:nFit] {
		w := float64(lqMaxWeight)
		if nFit > 1 {
			w = lqMaxWeight - float64(float64(lqMaxWeight-1)*float64(r))/float64(nFit-1)
		}
		row := m.z.RawRow(r)
		features(row, m.ay.RawRow(j), m.kind)
		for i := range row {
			row[i] = float64(w * row[i])
		}
		m.wf[r] = float64(w * (m.af[j] - fBest))
	}
	resize(&m.g, p, p)
	m.g.MulTA(&m.z)
	rhs, scale, coef := m.rhs[:p], m.scale[:p], m.coef[:p]
	linalg.MulVecT(rhs, &m.z, m.wf[:nFit])
	for i := range p {
		s := 1.0
		if g := m.g.At(i, i); g > 0 {
			s = 1 / math.Sqrt(g)
		}
		scale[i] = s
	}
	for i := range p {
		row := m.g.RawRow(i)
		for j := range row {
			row[j] = float64(float64(row[j]*scale[i]) * scale[j])
		}
		rhs[i] = float64(rhs[i] * scale[i])
	}
	// Without a ridge when the points determine the coefficients and the
	// factorisation succeeds (the ridge biases an exact fit); otherwise
	// with lqRidge, then 100 times more until it does.
	ridge := 0.0
	if nFit < p {
		ridge = lqRidge
	}
	for !m.factorize(ridge, p) {
		if ridge >= 1e-4 {
			return false
		}
		ridge = max(lqRidge, 100*ridge)
	}
	m.chol.SolveVecTo(coef, rhs)
	for i := range coef {
		coef[i] = float64(coef[i] * scale[i])
		if !finite(coef[i]) {
			return false
		}
	}
	coef[0] += fBest
	m.fitted = true
	m.tau = m.kendall(nTau)
	m.optimum()
	return true
}

// factorize factorises the scaled normal equations g with ridge added to
// their unit diagonal, leaving g as it was, and reports whether they were
// positive definite.
func (m *lqModel) factorize(ridge float64, p int) bool {
	for i := range p {
		m.g.Set(i, i, 1+ridge)
	}
	return m.chol.TryFactorize(&m.g)
}

// optimum sets opt to the minimiser mean + sigma A y* of a quadratic model
// whose Hessian M (in the frame) is positive definite: M y* = -b, with b
// the linear coefficients.
func (m *lqModel) optimum() {
	if m.kind == lqLinear {
		return
	}
	d := m.d
	m.h.SetIdentity()
	for i := range d {
		if m.kind == lqIso {
			m.h.Set(i, i, 2*m.coef[1+d])
		} else {
			m.h.Set(i, i, 2*m.coef[1+d+i])
		}
	}
	if m.kind == lqFull {
		k := 1 + 2*d
		for a := 0; a < d; a++ {
			for c := a + 1; c < d; c++ {
				m.h.Set(a, c, m.coef[k])
				m.h.Set(c, a, m.coef[k])
				k++
			}
		}
	}
	if !m.hchol.TryFactorize(&m.h) {
		return
	}
	for i := range d {
		m.tmp[i] = -m.coef[1+i]
	}
	m.hchol.SolveVecTo(m.y, m.tmp)
	m.setOpt()
}

// setOpt sets opt = mean + sigma A y for the frame coordinates m.y.
func (m *lqModel) setOpt() {
	linalg.MulVec(m.tmp, &m.a, m.y)
	for i := range m.d {
		v := m.mean[i] + float64(m.sigma*m.tmp[i])
		if !finite(v) {
			return
		}
		m.opt[i] = v
	}
	m.hasOpt = true
}

// kendall returns Kendall's tau-b between the values of the newest
// min(nTau, n) archived points and the model's values at them (0 for fewer
// than 3 points, as pycma's LQModel.kendall).
func (m *lqModel) kendall(nTau int) float64 {
	k := min(nTau, m.n)
	if k < 3 {
		return 0
	}
	c := len(m.af)
	for i := range k {
		j := (m.next - 1 - i + c) % c
		m.truth[i] = m.af[j]
		m.pred[i] = m.predictY(m.ay.RawRow(j))
	}
	return kendallTau(m.truth[:k], m.pred[:k])
}

// kendallTau returns Kendall's tau-b of x and y (scipy.stats.kendalltau):
// (C - D)/sqrt((C + D + T_x)(C + D + T_y)) over the pairs, with C
// concordant, D discordant, and T_x (T_y) the pairs tied in x (y) only; 0
// when it is not defined.
func kendallTau(x, y []float64) float64 {
	var conc, disc, tx, ty float64
	for i := 1; i < len(x); i++ {
		for j := range i {
			dx, dy := cmpSign(x[i], x[j]), cmpSign(y[i], y[j])
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				conc++
			default:
				disc++
			}
		}
	}
	den := math.Sqrt(float64((conc + disc + tx) * (conc + disc + ty)))
	if !(den > 0) {
		return 0
	}
	tau := (conc - disc) / den
	if !finite(tau) {
		return 0
	}
	return tau
}

// cmpSign is the sign of a - b (0 for a tie or a NaN).
func cmpSign(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// invertInto sets inv = a^-1 by Gauss-Jordan elimination with partial
// pivoting on the workspace w, as linalg's Inverse but without allocating;
// it reports false when a pivot is zero or a value is not finite.
func invertInto(inv, w, a *linalg.Dense) bool {
	n, _ := a.Dims()
	w.CopyFrom(a)
	inv.SetIdentity()
	for col := range n {
		piv, best := col, math.Abs(w.At(col, col))
		for i := col + 1; i < n; i++ {
			if v := math.Abs(w.At(i, col)); v > best {
				piv, best = i, v
			}
		}
		if !(best > 0) || math.IsInf(best, 0) {
			return false
		}
		if piv != col {
			for _, x := range [2]*linalg.Dense{w, inv} {
				rp, rc := x.RawRow(piv), x.RawRow(col)
				for j := range rp {
					rp[j], rc[j] = rc[j], rp[j]
				}
			}
		}
		p := 1 / w.At(col, col)
		for _, x := range [2]*linalg.Dense{w, inv} {
			row := x.RawRow(col)
			for j := range row {
				row[j] = float64(row[j] * p)
			}
		}
		for i := range n {
			l := w.At(i, col)
			if i == col || l == 0 {
				continue
			}
			for _, x := range [2]*linalg.Dense{w, inv} {
				src, dst := x.RawRow(col), x.RawRow(i)
				for j, v := range src {
					dst[j] -= float64(l * v)
				}
			}
		}
	}
	for i := range n {
		for _, v := range inv.RawRow(i) {
			if !finite(v) {
				return false
			}
		}
	}
	return true
}

// write saves the archive and the last fit.
func (m *lqModel) write(w *stateWriter) {
	if !m.enabled() {
		return
	}
	w.int(m.n)
	w.int(m.next)
	w.int(m.added)
	for j := range m.n {
		w.floats(m.ax.RawRow(j))
		w.float(m.af[j])
		w.int(m.age[j])
	}
	w.bool(m.fitted)
	if !m.fitted {
		return
	}
	w.int(int(m.kind))
	w.floats(m.coef[:lqTerms(m.kind, m.d)])
	w.float(m.tau)
	w.floats(m.mean)
	w.float(m.sigma)
	w.matrix(&m.inv)
	w.matrix(&m.a)
	w.bool(m.hasOpt)
	w.floats(m.opt)
}

// read restores what write saved into a model set up for the same
// dimension and population.
func (m *lqModel) read(r *stateReader) {
	if !m.enabled() {
		return
	}
	c := len(m.af)
	m.n, m.next, m.added = r.int(), r.int(), r.int()
	if r.err == nil && (m.n < 0 || m.n > c || m.next < 0 || m.next >= c || m.added < m.n) {
		r.fail("model archive of %d points at %d (%d added) in a ring of %d", m.n, m.next, m.added, c)
		return
	}
	for j := range m.n {
		r.fill(m.ax.RawRow(j), "archived point")
		m.af[j] = r.float()
		m.age[j] = r.int()
	}
	m.fitted = r.bool()
	if !m.fitted || r.err != nil {
		return
	}
	k := lqKind(r.int())
	if r.err == nil && (k < lqLinear || k > lqTop(m.d)) {
		r.fail("model kind %d", k)
		return
	}
	m.kind = k
	r.fill(m.coef[:lqTerms(k, m.d)], "model coefficients")
	m.tau = r.float()
	r.fill(m.mean, "model frame")
	m.sigma = r.float()
	r.matrix(&m.inv)
	r.matrix(&m.a)
	for _, x := range [2]*linalg.Dense{&m.inv, &m.a} {
		if rows, cols := x.Dims(); r.err == nil && (rows != m.d || cols != m.d) {
			r.fail("model frame matrix %d×%d, want %d×%d", rows, cols, m.d, m.d)
			return
		}
	}
	m.hasOpt = r.bool()
	r.fill(m.opt, "model optimum")
}
