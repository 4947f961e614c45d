package svgplot

import (
	"fmt"
	"math"
)

// Layout sizes in pixels.
const (
	figureTitleHeight = 30
	panelTitleHeight  = 22
	edgePad           = 6  // between a panel's cell edge and its content
	topPad            = 8  // above the plot area of a panel without title
	tickLength        = 4  // major ticks, drawn outwards
	minorTickLength   = 2  // minor ticks
	tickLabelGap      = 3  // between a tick and its label
	xTickLabelHeight  = 17 // from the tick's end to below an x tick label
	axisLabelGap      = 6  // between tick labels and an axis label
	minRightPad       = 14 // right of the plot area, for the last x label
	minPlotSide       = 30 // smallest plot area side that is still drawn

	lineWidth    = 1.6
	markerRadius = 3.2

	legendPad    = 6  // inside the legend box
	legendRow    = 15 // height of one legend entry
	legendSample = 24 // length of the line sample
	legendGap    = 10 // between the plot area and an outside legend
	legendInset  = 6  // between the plot area's edge and an inside legend
	legendColGap = 14 // between entries side by side in a legend above the plot

	// outsideRightShare is the largest share of the plot area's width that a
	// legend to its right may take; a wider legend goes above the plot area.
	outsideRightShare = 0.4
)

type point struct{ x, y float64 }

type rect struct{ x, y, w, h float64 }

func (r rect) right() float64  { return r.x + r.w }
func (r rect) bottom() float64 { return r.y + r.h }

// grow returns r enlarged by d on every side.
func (r rect) grow(d float64) rect { return rect{r.x - d, r.y - d, r.w + 2*d, r.h + 2*d} }

// contains reports whether p is in r, edges included.
func (r rect) contains(p point) bool {
	return p.x >= r.x && p.x <= r.right() && p.y >= r.y && p.y <= r.bottom()
}

// panelGeom is a panel laid out in pixels.
type panelGeom struct {
	cell    rect
	plot    rect
	x, y    axis
	series  []seriesGeom
	titleY  float64 // base line of the panel title
	entries []legendEntry
	legend  rect    // zero when there is no legend
	slots   []point // top left corner of each entry, relative to legend
	hasData bool    // some point is drawable on the panel's scales
}

// seriesGeom is a series in pixels: polylines already clipped to the plot
// area and the markers inside it.
type seriesGeom struct {
	color   string
	dashed  bool
	shape   int
	lines   [][]point
	markers []point // filled markers
	hollow  []point // censored points
}

// legendEntry is one row of a legend.
type legendEntry struct {
	text                 string
	color                string
	dashed, line, marker bool
	hollow               bool
	shape                int
}

// numShapes is the number of marker shapes; series cycle through them.
const numShapes = 5

// censoredColor draws the legend sample of censored points.
const censoredColor = "#555555"

// layoutPanel lays out panel p in cell: axes, plot area, series and legend.
func layoutPanel(p *Panel, cell rect) (*panelGeom, error) {
	var xe, ye extent
	for i := range p.Series {
		s := &p.Series[i]
		for j := range s.X {
			_, okx := toAxis(p.XScale, s.X[j])
			_, oky := toAxis(p.YScale, s.Y[j])
			if okx && oky {
				xe.add(s.X[j])
				ye.add(s.Y[j])
			}
		}
	}
	entries := legendEntries(p)
	if p.Legend == LegendNone {
		entries = nil
	}
	g, err := placePanel(p, cell, xe, ye, 0, 0)
	if err != nil || len(entries) == 0 {
		return g, err
	}
	stack := stackLegend(entries)
	if p.Legend == LegendAuto {
		if box, ok := g.freeCorner(stack.w, stack.h); ok {
			g.entries, g.legend, g.slots = entries, box, stack.slots
			return g, nil
		}
	}
	if stack.w+legendGap <= outsideRightShare*g.plot.w {
		if g, err = placePanel(p, cell, xe, ye, stack.w+legendGap, 0); err != nil {
			return nil, err
		}
		g.entries, g.slots = entries, stack.slots
		g.legend = rect{g.plot.right() + legendGap, g.plot.y, stack.w, stack.h}
		return g, nil
	}
	flow := flowLegend(entries, cell.w-2*edgePad)
	if g, err = placePanel(p, cell, xe, ye, 0, flow.h+legendGap); err != nil {
		return nil, err
	}
	x := g.plot.x + (g.plot.w-flow.w)/2
	x = math.Max(cell.x+edgePad, math.Min(x, cell.right()-edgePad-flow.w))
	g.entries, g.slots = entries, flow.slots
	g.legend = rect{x, g.plot.y - legendGap/2 - flow.h, flow.w, flow.h}
	return g, nil
}

// placePanel sizes the plot area inside cell, leaving reserveRight pixels
// to its right and reserveTop above it for a legend, builds the axes and
// projects the series.
func placePanel(p *Panel, cell rect, xe, ye extent, reserveRight, reserveTop float64) (*panelGeom, error) {
	top := cell.y + edgePad + topPad
	if p.Title != "" {
		top = cell.y + edgePad + panelTitleHeight
	}
	titleY := top - 8
	top += reserveTop
	bottom := cell.bottom() - edgePad - tickLength - xTickLabelHeight
	if p.XLabel != "" {
		bottom -= axisLabelGap + fontAxisLabel
	}
	height := bottom - top
	if height < minPlotSide {
		return nil, fmt.Errorf("panel cell %.0fx%.0f pixels is too small: the plot area would be %.0f pixels high", cell.w, cell.h, height)
	}
	ya, err := buildAxis(p.YScale, p.YRange, ye, height, true)
	if err != nil {
		return nil, fmt.Errorf("y axis: %w", err)
	}
	left := cell.x + edgePad + maxLabelWidth(ya.major) + tickLength + tickLabelGap
	if p.YLabel != "" {
		left += fontAxisLabel + axisLabelGap
	}
	var xa axis
	rightPad := float64(minRightPad)
	var width float64
	// Two passes: the second makes room for an x label that overhangs the
	// right end of the plot area by more than rightPad.
	for range 2 {
		width = cell.right() - edgePad - left - math.Max(rightPad, reserveRight)
		if width < minPlotSide {
			return nil, fmt.Errorf("panel cell %.0fx%.0f pixels is too small: the plot area would be %.0f pixels wide", cell.w, cell.h, width)
		}
		if xa, err = buildAxis(p.XScale, p.XRange, xe, width, false); err != nil {
			return nil, fmt.Errorf("x axis: %w", err)
		}
		overhang := 0.0
		for _, t := range xa.major {
			at := float64((t.at-xa.lo)/(xa.hi-xa.lo)) * width
			overhang = math.Max(overhang, at+t.label.width(fontTicks)/2-width)
		}
		if overhang <= rightPad {
			break
		}
		rightPad = overhang + 2
	}
	g := &panelGeom{cell: cell, plot: rect{left, top, width, height}, x: xa, y: ya, titleY: titleY}
	for i := range p.Series {
		g.series = append(g.series, g.projectSeries(p, i))
	}
	return g, nil
}

// maxLabelWidth is the estimated width of the widest tick label.
func maxLabelWidth(ticks []tick) float64 {
	widest := 0.0
	for _, t := range ticks {
		widest = math.Max(widest, t.label.width(fontTicks))
	}
	return widest
}

// project maps a data point to pixels; ok is false when it is not drawable.
func (g *panelGeom) project(xs, ys Scale, x, y float64) (point, bool) {
	ax, okx := toAxis(xs, x)
	ay, oky := toAxis(ys, y)
	if !okx || !oky {
		return point{}, false
	}
	p := point{
		x: g.plot.x + float64((ax-g.x.lo)/(g.x.hi-g.x.lo)*g.plot.w),
		y: g.plot.bottom() - float64((ay-g.y.lo)/(g.y.hi-g.y.lo)*g.plot.h),
	}
	if math.IsNaN(p.x) || math.IsInf(p.x, 0) || math.IsNaN(p.y) || math.IsInf(p.y, 0) {
		return point{}, false
	}
	return p, true
}

// projectSeries draws series i of p in pixels: lines between consecutive
// drawable points (a point that is not drawable breaks the line), clipped
// to the plot area, and the markers inside it.
func (g *panelGeom) projectSeries(p *Panel, i int) seriesGeom {
	s := &p.Series[i]
	sg := seriesGeom{color: seriesColor(s, i), dashed: s.Dashed, shape: i % numShapes}
	var b polylineBuilder
	b.clip = g.plot
	var prev point
	prevOK := false
	for j := range s.X {
		pt, ok := g.project(p.XScale, p.YScale, s.X[j], s.Y[j])
		if ok {
			g.hasData = true
		}
		if ok && prevOK && s.Style != Markers {
			if s.Style == Step {
				corner := point{pt.x, prev.y}
				b.segment(prev, corner)
				b.segment(corner, pt)
			} else {
				b.segment(prev, pt)
			}
		}
		prev, prevOK = pt, ok
		if !ok || !g.plot.grow(clipSlack).contains(pt) {
			continue
		}
		switch {
		case s.Censored != nil && s.Censored[j]:
			sg.hollow = append(sg.hollow, round(pt))
		case s.Style == Markers || s.Style == LineMarkers:
			sg.markers = append(sg.markers, round(pt))
		}
	}
	sg.lines = b.lines
	return sg
}

// seriesColor is the series' colour or the palette's colour for index i.
func seriesColor(s *Series, i int) string {
	if s.Color != "" {
		return s.Color
	}
	return PaletteColor(i)
}

// clipSlack keeps points and lines lying on the plot area's edge (within
// rounding), such as an ECDF reaching 1 on a [0, 1] axis.
const clipSlack = 1e-6

// polylineBuilder joins clipped segments into polylines.
type polylineBuilder struct {
	clip  rect
	lines [][]point
}

// segment adds the part of segment a-b inside the clip area, continuing the
// last polyline when the segment starts where it ended.
func (b *polylineBuilder) segment(a, c point) {
	a, c, ok := clipSegment(a, c, b.clip.grow(clipSlack))
	if !ok {
		return
	}
	a, c = round(a), round(c)
	if n := len(b.lines); n > 0 {
		line := b.lines[n-1]
		if line[len(line)-1] == a {
			if c != a {
				b.lines[n-1] = append(line, c)
			}
			return
		}
	}
	if c != a {
		b.lines = append(b.lines, []point{a, c})
	}
}

// clipSegment clips segment a-b to r (Liang-Barsky); ok is false when no
// part of it lies in r.
func clipSegment(a, b point, r rect) (point, point, bool) {
	dx, dy := b.x-a.x, b.y-a.y
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{
		{-dx, a.x - r.x},
		{dx, r.right() - a.x},
		{-dy, a.y - r.y},
		{dy, r.bottom() - a.y},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return a, b, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return a, b, false
			}
			t0 = math.Max(t0, t)
		} else {
			if t < t0 {
				return a, b, false
			}
			t1 = math.Min(t1, t)
		}
	}
	return point{a.x + float64(t0*dx), a.y + float64(t0*dy)}, point{a.x + float64(t1*dx), a.y + float64(t1*dy)}, true
}

// round rounds a point to the 0.01 pixel written to the SVG.
func round(p point) point {
	return point{math.Round(p.x*100) / 100, math.Round(p.y*100) / 100}
}

// legendEntries lists the named series and, if any point is censored, an
// entry explaining hollow markers.
func legendEntries(p *Panel) []legendEntry {
	var entries []legendEntry
	censored := false
	for i := range p.Series {
		s := &p.Series[i]
		for j, c := range s.Censored {
			_, okx := toAxis(p.XScale, s.X[j])
			_, oky := toAxis(p.YScale, s.Y[j])
			censored = censored || c && okx && oky
		}
		if s.Name == "" {
			continue
		}
		entries = append(entries, legendEntry{
			text:   s.Name,
			color:  seriesColor(s, i),
			dashed: s.Dashed,
			line:   s.Style != Markers,
			marker: s.Style == Markers || s.Style == LineMarkers,
			shape:  i % numShapes,
		})
	}
	if censored {
		text := p.CensoredLabel
		if text == "" {
			text = defaultCensoredLabel
		}
		entries = append(entries, legendEntry{text: text, color: censoredColor, marker: true, hollow: true})
	}
	return entries
}

// legendLayout is the size of a legend box and where its entries go.
type legendLayout struct {
	w, h  float64
	slots []point // top left corner of each entry, relative to the box
}

// entryWidth is the width of an entry: sample, gap and text.
func entryWidth(e legendEntry) float64 {
	return legendSample + legendPad + textWidth(e.text, fontLegend)
}

// stackLegend puts the entries one per row.
func stackLegend(entries []legendEntry) legendLayout {
	l := legendLayout{h: 2*legendPad + float64(len(entries))*legendRow}
	for i, e := range entries {
		l.w = math.Max(l.w, 2*legendPad+entryWidth(e))
		l.slots = append(l.slots, point{legendPad, legendPad + float64(i)*legendRow})
	}
	return l
}

// flowLegend puts the entries side by side, starting a new row when the
// next one would make the box wider than maxWidth.
func flowLegend(entries []legendEntry, maxWidth float64) legendLayout {
	var l legendLayout
	x, row := float64(legendPad), 0
	for _, e := range entries {
		w := entryWidth(e)
		if x > legendPad && x+w+legendPad > maxWidth {
			x, row = legendPad, row+1
		}
		l.slots = append(l.slots, point{x, legendPad + float64(row)*legendRow})
		l.w = math.Max(l.w, x+w+legendPad)
		x += w + legendColGap
	}
	l.h = 2*legendPad + float64(row+1)*legendRow
	return l
}

// freeCorner returns the first corner box of the plot area, in the order
// top right, top left, bottom left, bottom right, that no line or marker
// crosses.
func (g *panelGeom) freeCorner(w, h float64) (rect, bool) {
	pl := g.plot
	if w > pl.w-2*legendInset || h > pl.h-2*legendInset {
		return rect{}, false
	}
	left, right := pl.x+legendInset, pl.right()-legendInset-w
	top, bottom := pl.y+legendInset, pl.bottom()-legendInset-h
	for _, box := range [...]rect{{right, top, w, h}, {left, top, w, h}, {left, bottom, w, h}, {right, bottom, w, h}} {
		if !g.crosses(box.grow(2)) {
			return box, true
		}
	}
	return rect{}, false
}

// crosses reports whether any line or marker of the panel touches r.
func (g *panelGeom) crosses(r rect) bool {
	for _, s := range g.series {
		for _, line := range s.lines {
			for k := 1; k < len(line); k++ {
				if _, _, ok := clipSegment(line[k-1], line[k], r); ok {
					return true
				}
			}
		}
		for _, set := range [2][]point{s.markers, s.hollow} {
			for _, m := range set {
				if r.grow(markerRadius * 1.3).contains(m) {
					return true
				}
			}
		}
	}
	return false
}
