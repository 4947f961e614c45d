package es

import (
	"fmt"
	"math"
	"slices"
)

// Discrete coordinates and the margin (docs/ALGORITHMS.md Section 19).
//
// Config.Steps makes coordinates discrete, as the steps of CyberAgent's
// CMAwM do: coordinate i with Steps[i] = s > 0 takes only the n_i values
// v_k = L_i + k s (k = 0 … n_i - 1, the last one U_i exactly) of its box
// [L_i, U_i]. The strategy keeps searching in its continuous space: a
// discrete coordinate is carried into the box by the box map of Bounds
// like any other (Bounds.Map) and then to the nearest value (a point
// halfway goes to the lower one): the value v_k for an image in the cell
// (t_{k-1}, t_k], with the thresholds t_k = (v_k + v_{k+1})/2. The box map
// folds the line back at the ends of the box's preimage [L - a_L, U + a_U],
// so in the search space every cell, the two end ones included, is an
// interval bounded on both sides, and leaving it on either side gives
// another value.
//
// The margin is the integer handling of CMA-ES with Margin (Hamano, Saito,
// Nomura and Shirakawa, GECCO 2022): it keeps the marginal probability
// that a candidate leaves the mean's cell on each side at least α/2
// (Config.Margin), so that the variance of a discrete coordinate cannot
// fall so far below the width of its cell that the coordinate is fixed for
// the rest of the run. With m the mean, σ_i the strategy's standard
// deviation along coordinate i and A_i the margin's factor (1 at the
// start), a candidate x is handed out as m_i + A_i (x_i - m_i), mapped and
// rounded, while the strategy learns from x itself; the probabilities
// p_low and p_up that the candidate lands below and above the mean's cell
// follow from N(m_i, (A_i σ_i)^2). After each update, in the search units
// times Config.Stds: a mean outside the preimage is folded into it (the
// same values; it replaces the ranking penalty of Section 14.5 on discrete
// coordinates), and when p_low or p_up is below α/2, both are raised to at
// least α/2, the three cell probabilities renormalised (the excess taken
// from each in proportion to its share above α/2), and A_i and m_i solved
// from the two thresholds of the cell and the two new tail probabilities,
// as CMAwM's tell does. O(1) per discrete coordinate, no allocation.

// discrete holds the discrete coordinates of Config.Steps and the state
// of their margin: nil for a strategy without discrete coordinates.
type discrete struct {
	// pos[i] is the index j of coordinate i among the discrete ones, -1
	// for a continuous coordinate.
	pos []int
	// Per discrete coordinate j, in increasing order of coordinates:
	idx   []int      // the coordinate i
	lo    []float64  // the first value L_i
	hi    []float64  // the last value U_i
	step  []float64  // the step s_i
	last  []float64  // n_i - 1, the index of the last value
	scale []float64  // Config.Stds[i], or 1
	box   []boxCoord // the box map of coordinate i
	a     []float64  // the margin's factor A_i, 1 at the start
	sd    []float64  // scratch: the strategy's standard deviation along coordinate i
	// alpha is the margin α, 0 when the correction is switched off
	// (Config.Margin negative).
	alpha float64
}

// maxDiscreteValues bounds the number of values of a discrete coordinate,
// so that every index is an exact float64.
const maxDiscreteValues = 1 << 52

// stepTolerance is the relative tolerance of "a whole number of steps" in
// checkSteps: a step such as 0.1 divides the width 0.3 only up to
// rounding.
const stepTolerance = 1e-9

// checkSteps reports whether steps can be Config.Steps in dimension d with
// the box b, and returns the number of values of each coordinate (0 for a
// continuous one).
func checkSteps(steps []float64, b *Bounds, d int) ([]float64, error) {
	if len(steps) != d {
		return nil, fmt.Errorf("es: Config.Steps has length %d, want Dim = %d", len(steps), d)
	}
	last := make([]float64, d)
	for i, s := range steps {
		switch {
		case !(s >= 0) || math.IsInf(s, 1):
			return nil, fmt.Errorf("es: Config.Steps[%d] = %v: must be 0 (continuous) or a positive, finite step", i, s)
		case s == 0:
			continue
		}
		var l, u float64 = math.Inf(-1), math.Inf(1)
		if b != nil && b.Lower != nil {
			l = b.Lower[i]
		}
		if b != nil && b.Upper != nil {
			u = b.Upper[i]
		}
		if math.IsInf(l, 0) || math.IsInf(u, 0) {
			return nil, fmt.Errorf("es: Config.Steps[%d] = %v: a discrete coordinate needs a lower and an upper bound (Config.Bounds), it has [%v, %v]", i, s, l, u)
		}
		r := (u - l) / s
		k := math.Round(r)
		switch {
		case math.Abs(r-k) > stepTolerance*max(1, r):
			return nil, fmt.Errorf("es: Config.Steps[%d] = %v: the bounds [%v, %v] are not a whole number of steps apart", i, s, l, u)
		case k < 1:
			return nil, fmt.Errorf("es: Config.Steps[%d] = %v: the bounds [%v, %v] hold one value; a discrete coordinate needs two", i, s, l, u)
		case k >= maxDiscreteValues:
			return nil, fmt.Errorf("es: Config.Steps[%d] = %v: the bounds [%v, %v] hold more than 2^52 values", i, s, l, u)
		}
		last[i] = k
	}
	return last, nil
}

// resolveSteps checks Steps and Margin for the strategy of row and fills
// in the default margin (the population is resolved).
func resolveSteps(row *strategyRow, cfg Config) (Config, error) {
	if cfg.Steps != nil {
		if _, err := checkSteps(cfg.Steps, cfg.Bounds, cfg.Dim); err != nil {
			return cfg, err
		}
		if !anyPositive(cfg.Steps) {
			cfg.Steps = nil // all continuous: the plain run, bit for bit
		}
	}
	switch {
	case math.IsNaN(cfg.Margin):
		return cfg, fmt.Errorf("es: Config.Margin is NaN (use a negative value to switch it off)")
	case cfg.Margin >= 0.5:
		return cfg, fmt.Errorf("es: Config.Margin = %v: must be below 1/2 (or negative to switch it off)", cfg.Margin)
	case cfg.Steps == nil && cfg.Margin != 0:
		return cfg, fmt.Errorf("es: Config.Margin = %v without discrete coordinates (Config.Steps)", cfg.Margin)
	case cfg.Steps == nil:
		return cfg, nil
	case row.margin == nil:
		return cfg, fmt.Errorf("es: Config.Steps: %s has no discrete coordinates (only %s)",
			row.Name, rowsTaking(func(r *strategyRow) bool { return r.margin != nil }))
	}
	if cfg.Margin == 0 {
		cfg.Margin = row.margin(cfg)
	}
	return cfg, nil
}

// anyPositive reports whether some v_i is positive.
func anyPositive(v []float64) bool {
	for _, x := range v {
		if x > 0 {
			return true
		}
	}
	return false
}

// newDiscrete returns the discrete coordinates of a resolved cfg (nil
// without Steps), with A = 1.
func newDiscrete(cfg Config) *discrete {
	if cfg.Steps == nil {
		return nil
	}
	last, err := checkSteps(cfg.Steps, cfg.Bounds, cfg.Dim)
	if err != nil {
		panic(err) // resolve checked them
	}
	g := &discrete{pos: make([]int, cfg.Dim)}
	for i, s := range cfg.Steps {
		g.pos[i] = -1
		if s == 0 {
			continue
		}
		g.pos[i] = len(g.idx)
		g.idx = append(g.idx, i)
		g.lo = append(g.lo, cfg.Bounds.Lower[i])
		g.hi = append(g.hi, cfg.Bounds.Upper[i])
		g.step = append(g.step, s)
		g.last = append(g.last, last[i])
		sc := 1.0
		if cfg.Stds != nil {
			sc = cfg.Stds[i]
		}
		g.scale = append(g.scale, sc)
		g.box = append(g.box, cfg.Bounds.coord(i))
		g.a = append(g.a, 1)
	}
	g.sd = make([]float64, len(g.idx))
	g.alpha = max(cfg.Margin, 0)
	return g
}

// value returns v_k of discrete coordinate j.
func (g *discrete) value(j int, k float64) float64 {
	if k == g.last[j] {
		return g.hi[j]
	}
	return g.lo[j] + float64(k*g.step[j])
}

// threshold returns t_k, the border between the cells of v_k and v_{k+1}.
func (g *discrete) threshold(j int, k float64) float64 {
	return 0.5 * (g.value(j, k) + g.value(j, k+1))
}

// cell returns the index k of the cell (t_{k-1}, t_k] that holds c, in
// the objective's units (the first and last cells are unbounded). c must
// not be NaN.
func (g *discrete) cell(j int, c float64) float64 {
	k := math.Floor((c-g.lo[j])/g.step[j] + 0.5)
	k = max(0, min(k, g.last[j])) // ±Inf and the division's rounding
	// The nearest value by the division can miss a threshold by rounding:
	// the thresholds decide, and a point on one belongs to the lower cell.
	if k > 0 && c <= g.threshold(j, k-1) {
		k--
	} else if k < g.last[j] && c > g.threshold(j, k) {
		k++
	}
	return k
}

// snap returns the value of discrete coordinate j whose cell holds c (NaN
// for NaN).
func (g *discrete) snap(j int, c float64) float64 {
	if math.IsNaN(c) {
		return c
	}
	return g.value(j, g.cell(j, c))
}

// cellAt returns the index of the cell that holds the image under the box
// map of the scaled search coordinate v of discrete coordinate j.
func (g *discrete) cellAt(j int, v float64) float64 { return g.cell(j, g.box[j].apply(v)) }

// around returns the thresholds tl < v <= tu, in scaled search units, of
// the cell about v, a point of the preimage [lo, hi] of the box of
// discrete coordinate j: the preimages of the objective's thresholds on
// either side of v's cell, or for an end cell the reflection of its inner
// threshold at the end of the preimage, where the box map folds the line
// back (Bounds.Map), so that every cell is bounded on both sides and
// leaving it on either side gives another value.
func (g *discrete) around(j int, v float64) (tl, tu float64) {
	c := g.box[j]
	k, last := g.cellAt(j, v), g.last[j]
	if k > 0 {
		tl = c.invert(g.threshold(j, k-1))
	} else {
		tl = 2*c.lo - c.invert(g.threshold(j, 0))
	}
	if k < last {
		tu = c.invert(g.threshold(j, k))
	} else {
		tu = 2*c.hi - c.invert(g.threshold(j, last-1))
	}
	return tl, tu
}

// onGrid reports whether v is one of the values of discrete coordinate j.
func (g *discrete) onGrid(j int, v float64) bool { return g.snap(j, v) == v }

// stretch applies the margin's factors about the mean m to the search
// point x in place, x_i <- m_i + A_i (x_i - m_i) on each discrete
// coordinate: the step from m to x is taken A_i times. A nil g changes
// nothing.
func (g *discrete) stretch(x, m []float64) {
	if g == nil {
		return
	}
	for j, i := range g.idx {
		if a := g.a[j]; a != 1 {
			x[i] = m[i] + float64(a*(x[i]-m[i]))
		}
	}
}

// correct applies the margin to the mean m (the search point) after an
// update, with g.sd[j] the strategy's standard deviation along discrete
// coordinate j (in search units) filled in by the caller (see the
// description above). A nil g, or a margin switched off, changes nothing.
func (g *discrete) correct(m []float64) {
	if g == nil || g.alpha == 0 {
		return
	}
	half := g.alpha / 2
	for j, i := range g.idx {
		sc := g.scale[j]
		mu := float64(m[i] * sc)      // the mean, in scaled search units
		base := float64(g.sd[j] * sc) // sigma_i in the same units
		sd := float64(base * g.a[j])  // the candidates' standard deviation
		c := g.box[j]
		if !(mu >= c.lo && mu <= c.hi) && finite(mu) {
			// The same value, folded into the preimage.
			mu = c.invert(c.apply(mu))
			m[i] = mu / sc
		}
		if !(sd > 0) || math.IsInf(sd, 1) || !(mu >= c.lo && mu <= c.hi) {
			// Outside the box's preimage the ranking penalty brings the
			// mean back (Section 14.5); an sd of 0 or +Inf stops the
			// strategy by its own criteria.
			continue
		}
		tl, tu := g.around(j, mu)
		pLow := normCDF((tl - mu) / sd)
		pUp := normCDF((mu - tu) / sd)
		if pLow >= half && pUp >= half {
			continue // the margin holds: nothing to correct
		}
		pMid := 1 - pLow - pUp
		pLow, pUp = max(pLow, half), max(pUp, half)
		// Renormalise: the excess 1 - (pLow + pMid + pUp) < 0 is shared in
		// proportion to each probability's share above alpha/2.
		excess := 1 - pLow - pUp - pMid
		denom := pLow + pMid + pUp - 3*half
		qLow := pLow + float64(excess*(pLow-half))/denom
		qUp := pUp + float64(excess*(pUp-half))/denom
		qLow = min(max(qLow, 1e-10), 0.5-1e-10)
		qUp = min(max(qUp, 1e-10), 0.5-1e-10)
		// Solve m - zLow sd' = tl and m + zUp sd' = tu.
		zLow, zUp := upperQuantile(qLow), upperQuantile(qUp)
		zSum := zLow + zUp
		g.a[j] = (tu - tl) / float64(zSum*base)
		mu = (float64(tl*zUp) + float64(tu*zLow)) / zSum
		m[i] = mu / sc
	}
}

// writeState writes the margin's factors, the part of the state of a
// strategy with discrete coordinates that its configuration does not give.
func (g *discrete) writeState(w *stateWriter) { w.floats(g.a) }

// readState reads what writeState wrote.
func (g *discrete) readState(r *stateReader) {
	g.a = r.floats(g.a)
	if r.err != nil {
		return
	}
	if len(g.a) != len(g.idx) {
		r.fail("%d margin factors for %d discrete coordinates", len(g.a), len(g.idx))
		return
	}
	for j, a := range g.a {
		if !(a > 0) || math.IsInf(a, 1) {
			r.fail("margin factor %v of coordinate %d", a, g.idx[j])
			return
		}
	}
}

// boxed is a strategy that can report the box and the steps it was built
// with: the strategies of the table (core) and IPOP and BIPOP.
type boxed interface {
	box() (*Bounds, []float64)
}

// box returns the resolved Config's Bounds and Steps.
func (c *core) box() (*Bounds, []float64) { return c.cfg.Bounds, c.cfg.Steps }

// box returns the first run's Bounds and Steps (those of every run).
func (w *IPOP) box() (*Bounds, []float64) { return w.cfg.Bounds, w.cfg.Steps }

// Box returns copies of the box (Config.Bounds) and the steps of the
// discrete coordinates (Config.Steps) the strategy s was built with by New,
// NewIPOP, NewBIPOP or NewRestarting, or restored by Load: nil for none
// (Steps of zeros only are none). A caller that keeps a description of the
// space beside a saved state, such as a checkpoint, checks with it that
// the two agree.
func Box(s Strategy) (*Bounds, []float64) {
	b, ok := s.(boxed)
	if !ok || unsetWrapper(s) != nil {
		return nil, nil
	}
	bounds, steps := b.box()
	if !anyPositive(steps) {
		steps = nil
	}
	return bounds.clone(), slices.Clone(steps)
}
