package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Colours of the non-data ink.
const (
	inkColor    = "#333333" // frame, ticks, text
	gridColor   = "#e3e3e3"
	mutedColor  = "#888888" // "no data"
	legendFrame = "#bbbbbb"
)

// render writes the validated figure to buf.
func (f *Figure) render(buf *bytes.Buffer) error {
	width, height := float64(defaultWidth), float64(defaultHeight)
	if f.Width != 0 {
		width = float64(f.Width)
	}
	if f.Height != 0 {
		height = float64(f.Height)
	}
	n := len(f.Panels)
	cols := f.Columns
	if cols == 0 {
		for cols = 1; cols*cols < n; cols++ {
		}
	}
	rows := (n + cols - 1) / cols
	top := 0.0
	if f.Title != "" {
		top = figureTitleHeight
	}
	cellW, cellH := width/float64(cols), (height-top)/float64(rows)

	w := &svgWriter{buf: buf}
	w.printf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" fill="%s">`+"\n",
		w.num(width), w.num(height), w.num(width), w.num(height), inkColor)
	if f.Title != "" {
		w.printf("<title>%s</title>\n", escape(f.Title))
	}
	w.printf(`<rect width="%s" height="%s" fill="white"/>`+"\n", w.num(width), w.num(height))
	if f.Title != "" {
		w.text(point{width / 2, 20}, fontFigureTitle, "middle", ` font-weight="bold"`, label{base: f.Title})
	}
	for i := range f.Panels {
		cell := rect{float64(i%cols) * cellW, top + float64(i/cols)*cellH, cellW, cellH}
		g, err := layoutPanel(&f.Panels[i], cell)
		if err != nil {
			return fmt.Errorf("svgplot: panel %d (%q): %w", i, f.Panels[i].Title, err)
		}
		w.panel(&f.Panels[i], g)
	}
	w.printf("</svg>\n")
	return w.err
}

// svgWriter writes SVG elements to a buffer. Its first error sticks.
type svgWriter struct {
	buf *bytes.Buffer
	err error
}

func (w *svgWriter) printf(format string, args ...any) {
	fmt.Fprintf(w.buf, format, args...)
}

// num formats a coordinate with two decimals and no trailing zeros.
func (w *svgWriter) num(v float64) string {
	return string(w.appendNum(nil, v))
}

// appendNum appends v formatted as num does to dst. A value that is not
// finite is recorded as an error instead of reaching the SVG.
func (w *svgWriter) appendNum(dst []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if w.err == nil {
			w.err = errors.New("svgplot: internal error: a coordinate is not finite")
		}
		return append(dst, '0')
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', 2, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// escape returns s escaped for XML text and attribute values.
func escape(s string) string {
	var b strings.Builder
	// xml.EscapeText only fails when its writer does, and a strings.Builder
	// does not.
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// text writes a label with its base line at p; anchor is the SVG
// text-anchor and attrs extra attributes (with a leading space).
func (w *svgWriter) text(p point, size float64, anchor, attrs string, l label) {
	w.printf(`<text x="%s" y="%s" font-size="%s" text-anchor="%s"%s>%s`,
		w.num(p.x), w.num(p.y), w.num(size), anchor, attrs, escape(l.base))
	if l.sup != "" {
		w.printf(`<tspan dy="%s" font-size="%s">%s</tspan>`,
			w.num(-0.4*size), w.num(superscriptScale*size), escape(l.sup))
	}
	w.printf("</text>\n")
}

// panel writes one laid-out panel.
func (w *svgWriter) panel(p *Panel, g *panelGeom) {
	pl := g.plot
	xpix := func(at float64) float64 { return pl.x + float64((at-g.x.lo)/(g.x.hi-g.x.lo)*pl.w) }
	ypix := func(at float64) float64 { return pl.bottom() - float64((at-g.y.lo)/(g.y.hi-g.y.lo)*pl.h) }
	w.printf("<g>\n")

	// Grid at the labelled ticks, under the data.
	w.printf(`<g stroke="%s" stroke-width="1">`+"\n", gridColor)
	for _, t := range g.x.major {
		x := xpix(t.at)
		w.line(point{x, pl.y}, point{x, pl.bottom()})
	}
	for _, t := range g.y.major {
		y := ypix(t.at)
		w.line(point{pl.x, y}, point{pl.right(), y})
	}
	w.printf("</g>\n")

	for i := range g.series {
		w.series(&g.series[i])
	}
	if !g.hasData {
		w.text(point{pl.x + pl.w/2, pl.y + pl.h/2}, fontAxisLabel, "middle", ` fill="`+mutedColor+`"`, label{base: "no data"})
	}

	// Frame and ticks, over the data.
	w.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s" stroke-width="1"/>`+"\n",
		w.num(pl.x), w.num(pl.y), w.num(pl.w), w.num(pl.h), inkColor)
	w.printf(`<g stroke="%s" stroke-width="1">`+"\n", inkColor)
	for _, t := range g.x.major {
		x := xpix(t.at)
		w.line(point{x, pl.bottom()}, point{x, pl.bottom() + tickLength})
	}
	for _, at := range g.x.minor {
		x := xpix(at)
		w.line(point{x, pl.bottom()}, point{x, pl.bottom() + minorTickLength})
	}
	for _, t := range g.y.major {
		y := ypix(t.at)
		w.line(point{pl.x - tickLength, y}, point{pl.x, y})
	}
	for _, at := range g.y.minor {
		y := ypix(at)
		w.line(point{pl.x - minorTickLength, y}, point{pl.x, y})
	}
	w.printf("</g>\n")

	// Tick labels.
	for _, t := range g.x.major {
		w.text(point{xpix(t.at), pl.bottom() + tickLength + xTickLabelHeight - 4}, fontTicks, "middle", "", t.label)
	}
	for _, t := range g.y.major {
		w.text(point{pl.x - tickLength - tickLabelGap, ypix(t.at) + 0.35*fontTicks}, fontTicks, "end", "", t.label)
	}

	// Axis labels and title.
	if p.XLabel != "" {
		y := pl.bottom() + tickLength + xTickLabelHeight + axisLabelGap + fontAxisLabel - 2
		w.text(point{pl.x + pl.w/2, y}, fontAxisLabel, "middle", "", label{base: p.XLabel})
	}
	if p.YLabel != "" {
		at := point{g.cell.x + edgePad + fontAxisLabel - 2, pl.y + pl.h/2}
		rotate := fmt.Sprintf(` transform="rotate(-90 %s %s)"`, w.num(at.x), w.num(at.y))
		w.text(at, fontAxisLabel, "middle", rotate, label{base: p.YLabel})
	}
	if p.Title != "" {
		w.text(point{pl.x + pl.w/2, g.titleY}, fontPanelTitle, "middle", ` font-weight="bold"`, label{base: p.Title})
	}
	if g.legend != (rect{}) {
		w.legend(g)
	}
	w.printf("</g>\n")
}

// line writes a line segment; the stroke comes from the enclosing group.
func (w *svgWriter) line(a, b point) {
	w.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", w.num(a.x), w.num(a.y), w.num(b.x), w.num(b.y))
}

// series writes a series' polylines and markers.
func (w *svgWriter) series(s *seriesGeom) {
	dash := ""
	if s.dashed {
		dash = ` stroke-dasharray="6 3"`
	}
	var d []byte
	for _, line := range s.lines {
		d = append(d[:0], `<path d="`...)
		for k, pt := range line {
			if k == 0 {
				d = append(d, 'M')
			} else {
				d = append(d, 'L')
			}
			d = append(w.appendNum(d, pt.x), ' ')
			d = w.appendNum(d, pt.y)
		}
		w.buf.Write(d)
		w.printf(`" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"%s/>`+"\n",
			s.color, w.num(lineWidth), dash)
	}
	if len(s.markers) > 0 {
		w.printf(`<g fill="%s" stroke="%s" stroke-width="1">`+"\n", s.color, s.color)
		for _, m := range s.markers {
			w.marker(m, s.shape)
		}
		w.printf("</g>\n")
	}
	if len(s.hollow) > 0 {
		w.printf(`<g fill="white" stroke="%s" stroke-width="1.4">`+"\n", s.color)
		for _, m := range s.hollow {
			w.marker(m, s.shape)
		}
		w.printf("</g>\n")
	}
}

// marker writes one marker of the given shape centred at c; fill and stroke
// come from the enclosing group.
func (w *svgWriter) marker(c point, shape int) {
	r := markerRadius
	poly := func(pts ...point) {
		var d strings.Builder
		for k, pt := range pts {
			cmd := "L"
			if k == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, w.num(c.x+pt.x*r), w.num(c.y+pt.y*r))
		}
		w.printf(`<path d="%sZ"/>`+"\n", d.String())
	}
	switch shape {
	case 0:
		w.printf(`<circle cx="%s" cy="%s" r="%s"/>`+"\n", w.num(c.x), w.num(c.y), w.num(r))
	case 1: // square
		poly(point{-0.9, -0.9}, point{0.9, -0.9}, point{0.9, 0.9}, point{-0.9, 0.9})
	case 2: // triangle pointing up
		poly(point{0, -1.25}, point{1.1, 0.65}, point{-1.1, 0.65})
	case 3: // diamond
		poly(point{0, -1.3}, point{1.1, 0}, point{0, 1.3}, point{-1.1, 0})
	default: // triangle pointing down
		poly(point{0, 1.25}, point{1.1, -0.65}, point{-1.1, -0.65})
	}
}

// legend writes the panel's legend box and entries.
func (w *svgWriter) legend(g *panelGeom) {
	box := g.legend
	w.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="white" fill-opacity="0.9" stroke="%s" stroke-width="1"/>`+"\n",
		w.num(box.x), w.num(box.y), w.num(box.w), w.num(box.h), legendFrame)
	for i, e := range g.entries {
		x, y := box.x+g.slots[i].x, box.y+g.slots[i].y+float64(legendRow)/2
		sg := seriesGeom{color: e.color, dashed: e.dashed, shape: e.shape}
		if e.line {
			sg.lines = [][]point{{{x, y}, {x + legendSample, y}}}
		}
		mid := point{x + legendSample/2, y}
		switch {
		case e.hollow:
			sg.hollow = []point{mid}
		case e.marker:
			sg.markers = []point{mid}
		}
		w.series(&sg)
		w.text(point{x + legendSample + legendPad, y + 0.35*fontLegend}, fontLegend, "start", "", label{base: e.text})
	}
}
