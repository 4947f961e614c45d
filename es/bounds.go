package es

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/rng"
)

// Bounds is a box [Lower, Upper] for the points handed to the objective.
// A strategy keeps sampling in the unbounded space; Map carries each
// candidate into the box by a smooth map that is the identity on the inner
// part of the box, so the strategy keeps its invariances there and bounds
// that never come into play change no result. Beyond the box the map folds
// the space back periodically; so that the folded copies do not hide a
// problem's global structure, the population strategies (hees, hees2,
// cmaes) rank their candidates with a penalty on the distance of the search
// point to the box's preimage, which changes no evaluated point and no
// reported value (docs/ALGORITHMS.md Section 14.5).
//
// Lower and Upper each hold one entry per coordinate, or are nil when that
// side is absent for every coordinate. An entry of -Inf in Lower or +Inf in
// Upper leaves that side of that coordinate open. Lower[i] < Upper[i] is
// required: a fixed coordinate is not a box. Check validates a Bounds for a
// dimension; the other methods assume a Bounds that passed it. A nil
// *Bounds is the unbounded space: Map copies, Inverse copies and Contains
// holds for every point of the right length.
type Bounds struct {
	Lower, Upper []float64
}

// marginDivisor sets the width of the quadratic pieces of the map: the
// margin of a bound b of a box of width w is min(w, max(1, |b|))/20.
const marginDivisor = 20

// boundsSigmaFactor is the default sigma0 per unit of box width (pycma's
// advice, docs/ALGORITHMS.md Section 14).
const boundsSigmaFactor = 0.3

// Check reports whether b is a valid box in dimension d: each of Lower and
// Upper is nil or has length d, no entry is NaN, no lower bound is +Inf and
// no upper bound -Inf, Lower[i] < Upper[i], and the map of every coordinate
// is representable (not for a box wider than about 8e307, whose period
// overflows, nor for a bound beyond about ±1.7e308). A nil b is valid.
func (b *Bounds) Check(d int) error {
	if b == nil {
		return nil
	}
	for _, s := range []struct {
		name string
		v    []float64
		bad  float64 // the infinity this side may not take
	}{{"Lower", b.Lower, math.Inf(1)}, {"Upper", b.Upper, math.Inf(-1)}} {
		if s.v == nil {
			continue
		}
		if len(s.v) != d {
			return fmt.Errorf("es: Bounds.%s has length %d, want Dim = %d", s.name, len(s.v), d)
		}
		for i, v := range s.v {
			if math.IsNaN(v) || v == s.bad {
				return fmt.Errorf("es: Bounds.%s[%d] = %v: must be a number (%v for no bound)", s.name, i, v, -s.bad)
			}
		}
	}
	for i := 0; i < d; i++ {
		c := b.coord(i)
		if !(c.l < c.u) {
			return fmt.Errorf("es: Bounds: Lower[%d] = %v is not below Upper[%d] = %v", i, c.l, i, c.u)
		}
		if c.two() && math.IsInf(c.period, 0) ||
			!math.IsInf(c.l, -1) && math.IsInf(c.lo, -1) || !math.IsInf(c.u, 1) && math.IsInf(c.hi, 1) {
			return fmt.Errorf("es: Bounds: coordinate %d, [%v, %v], is too wide or too far out to map (use ±Inf for an open side)", i, c.l, c.u)
		}
	}
	return nil
}

// Contains reports whether x has one entry per coordinate of b and lies in
// the box (bounds included). A NaN entry is outside.
func (b *Bounds) Contains(x []float64) bool {
	if b == nil {
		return true
	}
	return b.fits(len(x)) && b.outside(x) < 0
}

// outside returns the first coordinate of x (of the length of b) that
// lies outside the box, or -1 when x is in it. A NaN entry is outside.
func (b *Bounds) outside(x []float64) int {
	if b == nil {
		return -1
	}
	for i, v := range x {
		c := b.coord(i)
		if !(v >= c.l && v <= c.u) {
			return i
		}
	}
	return -1
}

// clone returns a copy of b that shares no storage with it (nil for nil).
func (b *Bounds) clone() *Bounds {
	if b == nil {
		return nil
	}
	return &Bounds{Lower: slices.Clone(b.Lower), Upper: slices.Clone(b.Upper)}
}

// Map writes into dst the point of the box that the unbounded point x
// stands for; dst and x may be the same slice. It is O(d) and does not
// allocate. Per coordinate with both bounds L < U:
//
//   - on [L + aL, U - aU] the map is the identity, bit for bit;
//   - on [L - aL, L + aL] it is the parabola L + (x - L + aL)²/(4 aL),
//     from L with slope 0 to L + aL with slope 1, and likewise at U;
//   - outside [L - aL, U + aU] it is mirrored at L - aL and U + aU, so it is
//     periodic with period 2(U - L + aL + aU) and continuously
//     differentiable everywhere.
//
// The margins are aL = min(U - L, max(1, |L|))/20 and aU likewise with U: the
// identity covers at least the middle 90% of every box. With one side open
// (say only L) the map is the identity above L + aL, the parabola below it,
// and the mirror image x -> 2(L - aL) - x below L - aL, so it reaches the
// bound but never repeats; aL = max(1, |L|)/20 then. A coordinate with
// neither bound is copied.
//
// A NaN entry stays NaN (it is no point of the box, and the strategy ranks
// it worst). An infinite entry goes to the bound on its side, or stays
// infinite when that side is open. Every other entry maps into [L, U].
// Map panics if the lengths of dst, x and b differ. It only reads b, so
// goroutines may call it at once.
func (b *Bounds) Map(dst, x []float64) {
	if len(dst) != len(x) || !b.fits(len(x)) {
		panic(fmt.Sprintf("es: Bounds.Map: lengths of dst (%d), x (%d) and the bounds differ", len(dst), len(x)))
	}
	if b == nil {
		copy(dst, x)
		return
	}
	for i, v := range x {
		dst[i] = b.coord(i).apply(v)
	}
}

// Inverse writes into dst a point of the unbounded space that Map carries
// to y, the one in [L - aL, U + aU] (see Map); dst and y may be the same
// slice. On the inner part of the box it is the identity, bit for bit. It
// returns an error, leaving dst unspecified, when y is not a point of the
// box; it panics if the lengths of dst, y and b differ.
func (b *Bounds) Inverse(dst, y []float64) error {
	if len(dst) != len(y) || !b.fits(len(y)) {
		panic(fmt.Sprintf("es: Bounds.Inverse: lengths of dst (%d), y (%d) and the bounds differ", len(dst), len(y)))
	}
	if b == nil {
		copy(dst, y)
		return nil
	}
	for i, v := range y {
		c := b.coord(i)
		if !(v >= c.l && v <= c.u) {
			return fmt.Errorf("es: Bounds.Inverse: y[%d] = %v is outside [%v, %v]", i, v, c.l, c.u)
		}
		dst[i] = c.invert(v)
	}
	return nil
}

// fits reports whether the bounds have length n (nil sides fit any n).
func (b *Bounds) fits(n int) bool {
	return b == nil || (b.Lower == nil || len(b.Lower) == n) && (b.Upper == nil || len(b.Upper) == n)
}

// boxCoord is the map of one coordinate (see Bounds.Map): the box [l, u]
// (±Inf for an open side), the margins al and au (0 for an open side), the
// identity on [lin, uin], the parabolas on [lo, lin] and [uin, hi], and the
// period 2(hi - lo) when both sides are bounded.
type boxCoord struct {
	l, u     float64
	al, au   float64
	lin, uin float64
	lo, hi   float64
	period   float64
}

// coord returns the map of coordinate i.
func (b *Bounds) coord(i int) boxCoord {
	c := boxCoord{l: math.Inf(-1), u: math.Inf(1)}
	if b.Lower != nil {
		c.l = b.Lower[i]
	}
	if b.Upper != nil {
		c.u = b.Upper[i]
	}
	w := c.u - c.l // +Inf when a side is open
	c.lin, c.lo = c.l, c.l
	if !math.IsInf(c.l, -1) {
		c.al = min(w, max(1, math.Abs(c.l))) / marginDivisor
		c.lin, c.lo = c.l+c.al, c.l-c.al
	}
	c.uin, c.hi = c.u, c.u
	if !math.IsInf(c.u, 1) {
		c.au = min(w, max(1, math.Abs(c.u))) / marginDivisor
		c.uin, c.hi = c.u-c.au, c.u+c.au
	}
	c.period = 2 * (c.hi - c.lo)
	return c
}

// two reports whether both sides of the coordinate are bounded.
func (c boxCoord) two() bool { return !math.IsInf(c.l, -1) && !math.IsInf(c.u, 1) }

// apply maps one coordinate (see Bounds.Map).
func (c boxCoord) apply(x float64) float64 {
	if x >= c.lin && x <= c.uin {
		return x // the identity, untouched
	}
	// A NaN fails every comparison below and comes out as NaN.
	switch {
	case math.IsInf(x, 1):
		return c.u
	case math.IsInf(x, -1):
		return c.l
	}
	z := x // x folded into [lo, hi]
	switch {
	case (x < c.lo || x > c.hi) && c.two():
		// (x - lo) mod period, from remainders that cannot overflow (Mod is
		// exact), then mirrored into the first half-period.
		r := math.Mod(math.Mod(x, c.period)-math.Mod(c.lo, c.period), c.period)
		if r < 0 {
			r += c.period
		}
		if r > c.period/2 {
			r = c.period - r
		}
		z = c.lo + r
	case x < c.lo:
		z = c.lo + (c.lo - x)
	case x > c.hi:
		z = c.hi - (x - c.hi)
	}
	// The image stays in [l, u] under rounding: on the lower parabola
	// y - l = t²/(4 al) with 0 <= t < lin - lo, which rounding widens to at
	// most 2 al plus an ulp of l, so y - l stays below (u - l)/5 (al <=
	// (u - l)/20); an al too small to move l makes lin = l, and the branch
	// is not taken. Likewise at u.
	if z < c.lin {
		t := z - c.lo
		return c.l + float64(t*(t/(2*c.al)))/2
	}
	if z > c.uin {
		t := c.hi - z
		return c.u - float64(t*(t/(2*c.au)))/2
	}
	return z
}

// invert is the inverse of apply on [lo, hi] for y in [l, u].
func (c boxCoord) invert(y float64) float64 {
	switch {
	case y < c.lin:
		return c.lo + 2*float64(math.Sqrt(c.al)*math.Sqrt(y-c.l))
	case y > c.uin:
		return c.hi - 2*float64(math.Sqrt(c.au)*math.Sqrt(c.u-y))
	}
	return y
}

// drawX0 fills x0 with the initial mean drawn from the sub-stream
// (purposeInit, 0, 0) of key, uniformly in the box. A coordinate with both
// bounds is drawn in [L, U]; one with a side open in the default box
// [-box, box] moved the least distance that puts it inside the half-line
// (unmoved when it already fits). With b nil, or no bound on a coordinate,
// the draw is box·(2u - 1), the draw without bounds. The point lies in the
// box; the strategy's mean starts at its preimage under Map (Inverse).
func (b *Bounds) drawX0(x0 []float64, key rng.Key, box float64) {
	st := rng.NewStream(key, purposeInit, 0, 0)
	st.FillFloat64(x0)
	for i, u := range x0 {
		c := boxCoord{l: math.Inf(-1), u: math.Inf(1)}
		if b != nil {
			c = b.coord(i)
		}
		switch {
		case c.two():
			// u < 1, so the exact value is below U; Min guards the rounding.
			x0[i] = math.Min(c.l+float64(u*(c.u-c.l)), c.u)
		case c.l > -box:
			x0[i] = c.l + float64(2*box*u)
		case c.u < box:
			x0[i] = c.u - float64(2*box*u)
		default:
			x0[i] = float64(box * (2*u - 1))
		}
	}
}

// DefaultStds returns the per-coordinate scales a Config with these
// bounds in dimension d gets when it sets no Stds (Config.Bounds): w_i/g
// for a coordinate bounded on both sides, w_i its width and g the
// geometric mean of those widths, 1 for the others; nil when they would
// all be 1.
func (b *Bounds) DefaultStds(d int) []float64 {
	_, stds := b.defaultScale(d)
	return stds
}

// defaultScale returns the default sigma0 and per-coordinate scales for a
// run in the box b of dimension d, for a configuration that sets neither
// (docs/ALGORITHMS.md Section 14): with w_i the widths of the coordinates
// bounded on both sides and g their geometric mean, sigma0 = 0.3·g and
// stds_i = w_i/g (1 for a coordinate with an open side), so that
// sigma0·stds_i = 0.3·w_i and det diag(stds) = 1, the normalisation the
// HE-ES keeps for A. stds is nil when all those widths are equal (every
// stds_i would be 1: A0 stays the identity), and sigma0 is 0 (no default
// from the box) when no coordinate is bounded on both sides.
func (b *Bounds) defaultScale(d int) (sigma0 float64, stds []float64) {
	if b == nil {
		return 0, nil
	}
	var logSum float64
	n, equal, w0 := 0, true, 0.0
	for i := 0; i < d; i++ {
		c := b.coord(i)
		if !c.two() {
			continue
		}
		w := c.u - c.l
		if n == 0 {
			w0 = w
		}
		equal = equal && w == w0
		logSum += xmath.Log(w)
		n++
	}
	switch {
	case n == 0:
		return 0, nil
	case equal:
		return float64(boundsSigmaFactor * w0), nil
	}
	g := xmath.Exp(logSum / float64(n))
	stds = make([]float64, d)
	for i := range stds {
		stds[i] = 1
		if c := b.coord(i); c.two() {
			stds[i] = (c.u - c.l) / g
		}
	}
	return float64(boundsSigmaFactor * g), stds
}

// searchMap carries a point of the space a strategy searches to the point
// handed to the objective, y_i = T_i(s_i x_i): the per-coordinate scales s
// (Config.Stds; nil for none) applied as a fixed change of units outside
// the strategy, then the map T of the bounds (nil for none). Kept outside
// A, the scales are not seen by the strategy's covariance checks (pycma
// likewise keeps its CMA_stds out of C), and they work for es11 too
// (docs/ALGORITHMS.md Section 14.4, which measured it against
// A0 = diag(s)).
type searchMap struct {
	bounds *Bounds
	stds   []float64
	coords []boxCoord // bounds.coord(i) of each coordinate, nil without bounds
	// disc holds the discrete coordinates of Config.Steps (nil for none),
	// which take the value of their cell instead of the box map
	// (docs/ALGORITHMS.md Section 19).
	disc *discrete
}

// newSearchMap returns the map of the scales stds, the bounds b and the
// discrete coordinates disc (each nil for none) in dimension d, with the
// map of every coordinate of b computed once.
func newSearchMap(d int, b *Bounds, stds []float64, disc *discrete) searchMap {
	m := searchMap{bounds: b, stds: stds, disc: disc}
	if b != nil {
		m.coords = make([]boxCoord, d)
		for i := range m.coords {
			m.coords[i] = b.coord(i)
		}
	}
	return m
}

// identity reports whether the search space is the objective's (no
// Bounds, no Stds), so that Ask hands out its points unchanged.
func (m searchMap) identity() bool { return m.bounds == nil && m.stds == nil }

// apply writes the objective's point for the search point x into dst (dst
// and x may be the same slice); O(d), no allocation.
func (m searchMap) apply(dst, x []float64) {
	if m.stds != nil {
		for i, v := range x {
			dst[i] = float64(v * m.stds[i])
		}
		x = dst
	}
	if m.coords == nil {
		copy(dst, x)
		return
	}
	if m.disc != nil {
		for i, v := range x {
			dst[i] = m.coords[i].apply(v)
			if j := m.disc.pos[i]; j >= 0 {
				dst[i] = m.disc.snap(j, dst[i])
			}
		}
		return
	}
	for i, v := range x {
		dst[i] = m.coords[i].apply(v)
	}
}

// invert writes into dst a search point whose image is the point y of the
// box (up to the rounding of the division by the scales); it returns
// Bounds.Inverse's error for a point outside the box.
func (m searchMap) invert(dst, y []float64) error {
	if err := m.bounds.Inverse(dst, y); err != nil {
		return err
	}
	for i, s := range m.stds {
		dst[i] /= s
	}
	return nil
}

// checkStds reports whether stds can be Config.Stds in dimension d: one
// positive, finite scale per coordinate.
func checkStds(stds []float64, d int) error {
	if len(stds) != d {
		return fmt.Errorf("es: Config.Stds has length %d, want Dim = %d", len(stds), d)
	}
	for i, s := range stds {
		if !(s > 0) || math.IsInf(s, 1) {
			return fmt.Errorf("es: Config.Stds[%d] = %v: must be positive and finite", i, s)
		}
	}
	return nil
}
