package svgplot

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// axis is a laid-out axis. Positions are in axis units: the data value on a
// Linear axis and its base-10 logarithm on a Log10 axis.
type axis struct {
	scale  Scale
	lo, hi float64
	// major ticks carry a label and a grid line; minor ticks are short marks.
	major []tick
	minor []float64
}

// tick is a labelled tick at an axis position.
type tick struct {
	at    float64
	label label
}

// label is tick text: base followed by a raised exponent sup (possibly empty).
type label struct {
	base, sup string
}

// extent is the smallest and largest drawable data value along one axis.
type extent struct {
	min, max float64
	ok       bool
}

func (e *extent) add(v float64) {
	if !e.ok {
		e.min, e.max, e.ok = v, v, true
		return
	}
	e.min = math.Min(e.min, v)
	e.max = math.Max(e.max, v)
}

// toAxis maps a data value to axis units; ok is false for values that
// cannot be drawn on the scale.
func toAxis(s Scale, v float64) (float64, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	if s == Log10 {
		if v <= 0 {
			return 0, false
		}
		return math.Log10(v), true
	}
	return v, true
}

// Minimum spacing of labelled ticks, in pixels.
const (
	minLabelGapX = 10            // between the ends of neighbouring x labels
	minPitchY    = 2 * fontTicks // between neighbouring y labels

	// minorTicksDecade is the smallest decade, in pixels, that gets minor
	// ticks at 2..9 times the decade.
	minorTicksDecade = 30
)

// buildAxis lays out an axis of the given length in pixels, with labels
// spaced so they do not overlap: x labels by their estimated width, y labels
// by their height.
func buildAxis(s Scale, r Range, e extent, length float64, vertical bool) (axis, error) {
	fits := func(ticks []tick, pitch float64) bool {
		if vertical {
			return pitch >= minPitchY
		}
		widest := 0.0
		for _, t := range ticks {
			widest = math.Max(widest, t.label.width(fontTicks))
		}
		return pitch >= widest+minLabelGapX
	}
	var a axis
	if s == Log10 {
		a = logAxis(r, e, length, fits)
	} else {
		var err error
		if a, err = linearAxis(r, e, length, vertical, fits); err != nil {
			return axis{}, err
		}
	}
	if r == (Range{}) && e.ok {
		a.padEnds(e)
	}
	return a, nil
}

// Data closer to an end of an automatic range than edgeTouch times the
// range's length would lie on the frame; the range is then widened at that
// end by edgePadding times its length.
const (
	edgeTouch   = 0.01
	edgePadding = 0.03
)

// padEnds widens an automatic range at each end the data touches, so
// lines and markers there are not hidden under the frame.
func (a *axis) padEnds(e extent) {
	lo, _ := toAxis(a.scale, e.min)
	hi, _ := toAxis(a.scale, e.max)
	span := a.hi - a.lo
	if lo-a.lo < edgeTouch*span && !math.IsInf(a.lo-edgePadding*span, 0) {
		a.lo -= edgePadding * span
	}
	if a.hi-hi < edgeTouch*span && !math.IsInf(a.hi+edgePadding*span, 0) {
		a.hi += edgePadding * span
	}
}

// minLinearSpan is the smallest range of a linear axis: its tick steps
// m*10^k must have k >= -307 for decimalValue to compute them exactly.
const minLinearSpan = 1e-290

// linearAxis places ticks at multiples of 1, 2 or 5 times a power of ten,
// as many as fit. An automatic range is widened to the outermost ticks.
func linearAxis(r Range, e extent, length float64, vertical bool, fits func([]tick, float64) bool) (axis, error) {
	auto := r == (Range{})
	lo, hi := r.Min, r.Max
	if auto {
		lo, hi = autoLinearRange(e)
	}
	if math.IsInf(hi-lo, 0) {
		return axis{}, errors.New("data range too wide to draw on a linear axis")
	}
	if hi-lo < minLinearSpan {
		return axis{}, fmt.Errorf("data range %g is too small to draw on a linear axis (at least %g)", hi-lo, minLinearSpan)
	}
	pixelsPerTick := 70.0
	if vertical {
		pixelsPerTick = 40
	}
	intervals := max(1, int(length/pixelsPerTick))
	var a axis
	for ; intervals >= 1; intervals-- {
		a = linearTicks(lo, hi, auto, intervals)
		if math.IsInf(a.lo, 0) || math.IsInf(a.hi, 0) {
			return axis{}, errors.New("data range too wide to draw on a linear axis")
		}
		pitch := length
		if len(a.major) > 1 {
			pitch = length * (a.major[1].at - a.major[0].at) / (a.hi - a.lo)
		}
		if fits(a.major, pitch) {
			break
		}
	}
	return a, nil
}

// autoLinearRange is the data extent, widened when it is a single value and
// [0, 1] when there is no data.
func autoLinearRange(e extent) (lo, hi float64) {
	switch {
	case !e.ok:
		return 0, 1
	case !tooNarrow(e.min, e.max):
		return e.min, e.max
	case e.min == 0 && e.max == 0:
		return -1, 1
	}
	mid := e.min/2 + e.max/2
	d := math.Max(math.Abs(e.min), math.Abs(e.max)) / 10
	if mid-d == mid+d {
		return mid - 1, mid + 1
	}
	return math.Max(mid-d, -math.MaxFloat64), math.Min(mid+d, math.MaxFloat64)
}

// linearTicks puts ticks at the multiples of a nice step in [lo, hi] that
// divides it into about the given number of intervals; with snap the range
// is first widened to multiples of the step.
func linearTicks(lo, hi float64, snap bool, intervals int) axis {
	mant, exp := niceStep((hi - lo) / float64(intervals))
	step := decimalValue(mant, exp)
	first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
	if snap {
		first, last = math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
		lo, hi = decimalValue(first*mant, exp), decimalValue(last*mant, exp)
	}
	a := axis{scale: Linear, lo: lo, hi: hi}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return a // the caller reports the overflow
	}
	values := make([]float64, 0, int(last-first)+1)
	for j := range int(last-first) + 1 {
		v := decimalValue((first+float64(j))*mant, exp)
		if v == 0 {
			v = 0 // not -0, which would print as "-0.0"
		}
		values = append(values, v)
	}
	for _, v := range values {
		a.major = append(a.major, tick{at: v, label: linearLabel(v, exp, values)})
	}
	return a
}

// niceStep returns the step mant * 10^exp with mant in {1, 2, 5} closest
// to raw on a logarithmic scale (raw > 0 and finite).
func niceStep(raw float64) (mant float64, exp int) {
	exp = decadeFloor(raw)
	mant, best := 1.0, math.Inf(1)
	for _, m := range [...]float64{1, 2, 5, 10} {
		if d := math.Abs(math.Log(decimalValue(m, exp) / raw)); d < best {
			mant, best = m, d
		}
	}
	if mant == 10 {
		return 1, exp + 1
	}
	return mant, exp
}

// decimalValue returns m * 10^exp rounded once, so that steps such as 0.1 and
// multiples such as 3 * 0.1 are the doubles nearest their decimal values.
func decimalValue(m float64, exp int) float64 {
	if exp >= 0 {
		return m * math.Pow10(exp)
	}
	return m / math.Pow10(-exp)
}

// decadeFloor returns the largest k with 10^k <= v, for finite v > 0. It
// corrects math.Log10's rounding at exact powers of ten.
func decadeFloor(v float64) int {
	k := int(math.Floor(math.Log10(v)))
	for k < 308 && math.Pow10(k+1) <= v {
		k++
	}
	for math.Pow10(k) > v {
		k--
	}
	return k
}

// decadeCeil returns the smallest k with 10^k >= v, for finite v > 0.
func decadeCeil(v float64) int {
	k := decadeFloor(v)
	if math.Pow10(k) < v {
		k++
	}
	return k
}

// linearLabel formats a tick value v of a step with decimal exponent
// stepExp, with as many decimals as the step needs. When the largest tick
// value is 10^6 or more, or below 10^-3, the label is m×10^k with k the
// exponent of the largest value, and zero is "0".
func linearLabel(v float64, stepExp int, all []float64) label {
	largest := 0.0
	for _, w := range all {
		largest = math.Max(largest, math.Abs(w))
	}
	if largest < 1e6 && largest >= 1e-3 {
		return label{base: minus(strconv.FormatFloat(v, 'f', max(0, -stepExp), 64))}
	}
	if v == 0 {
		return label{base: "0"}
	}
	k := decadeFloor(largest)
	m := v / math.Pow10(k)
	if k < 0 {
		m = v * math.Pow10(-k)
	}
	return label{base: minus(strconv.FormatFloat(m, 'f', max(0, k-stepExp), 64)) + "×10", sup: minus(strconv.Itoa(k))}
}

// minus replaces a leading hyphen with the typographic minus sign.
func minus(s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + rest
	}
	return s
}

// logAxis labels decades, every k-th one when they would not fit, with
// minor ticks at 2..9 times each decade when there is room. An automatic
// range is widened to whole decades. A fixed range with fewer than two
// decades inside gets linear-style ticks placed logarithmically.
func logAxis(r Range, e extent, length float64, fits func([]tick, float64) bool) axis {
	var lo, hi float64
	var firstDecade, lastDecade int
	switch {
	case r != (Range{}):
		lo, hi = math.Log10(r.Min), math.Log10(r.Max)
		firstDecade, lastDecade = decadeCeil(r.Min), decadeFloor(r.Max)
	case e.ok:
		firstDecade, lastDecade = decadeFloor(e.min), decadeCeil(e.max)
		if firstDecade == lastDecade {
			lastDecade++
		}
		lo, hi = float64(firstDecade), float64(lastDecade)
	default:
		firstDecade, lastDecade, lo, hi = 0, 1, 0, 1
	}
	a := axis{scale: Log10, lo: lo, hi: hi}
	if lastDecade-firstDecade < 1 {
		return subDecadeAxis(r, length, fits)
	}
	pixelsPerDecade := length / (hi - lo)
	every := 1
	for _, k := range decadeSkips(lastDecade - firstDecade) {
		every = k
		if fits(decadeTicks(firstDecade, lastDecade, k), float64(k)*pixelsPerDecade) {
			break
		}
	}
	a.major = decadeTicks(firstDecade, lastDecade, every)
	switch {
	case every == 1 && pixelsPerDecade >= minorTicksDecade:
		for d := firstDecade - 1; d <= lastDecade; d++ {
			for m := 2.0; m <= 9; m++ {
				if at := math.Log10(decimalValue(m, d)); at >= lo && at <= hi {
					a.minor = append(a.minor, at)
				}
			}
		}
	case every > 1 && pixelsPerDecade >= 4:
		for d := firstDecade; d <= lastDecade; d++ {
			if floorMod(d, every) != 0 {
				a.minor = append(a.minor, float64(d))
			}
		}
	}
	return a
}

// decadeSkips lists the label spacings (in decades) to try, in increasing
// order, up to one that leaves at most two labels for a span of n decades.
func decadeSkips(n int) []int {
	skips := []int{1, 2, 3, 5}
	for base := 10; skips[len(skips)-1] < n; base *= 10 {
		skips = append(skips, base, 2*base, 5*base)
	}
	return skips
}

// decadeTicks labels the decades from first to last whose exponent is a
// multiple of every.
func decadeTicks(first, last, every int) []tick {
	var ticks []tick
	for d := first; d <= last; d++ {
		if floorMod(d, every) == 0 {
			ticks = append(ticks, tick{at: float64(d), label: label{base: "10", sup: minus(strconv.Itoa(d))}})
		}
	}
	return ticks
}

// subDecadeAxis serves a fixed logarithmic range that holds fewer than two
// decades: linear nice ticks, as many as fit at the narrowest spacing.
func subDecadeAxis(r Range, length float64, fits func([]tick, float64) bool) axis {
	lo, hi := math.Log10(r.Min), math.Log10(r.Max)
	var a axis
	for intervals := max(1, int(length/40)); intervals >= 1; intervals-- {
		lin := linearTicks(r.Min, r.Max, false, intervals)
		a = axis{scale: Log10, lo: lo, hi: hi}
		pitch := length
		for i, t := range lin.major {
			if t.at <= 0 {
				continue
			}
			at := math.Log10(t.at)
			if len(a.major) > 0 {
				pitch = math.Min(pitch, length*(at-a.major[len(a.major)-1].at)/(hi-lo))
			}
			a.major = append(a.major, tick{at: at, label: lin.major[i].label})
		}
		if fits(a.major, pitch) {
			break
		}
	}
	return a
}

// tooNarrow reports whether [lo, hi] is too narrow, relative to its
// magnitude, to hold distinct tick values.
func tooNarrow(lo, hi float64) bool {
	return hi-lo <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi))
}

func floorMod(a, b int) int {
	return ((a % b) + b) % b
}
