package svgplot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// Scale is how an axis maps data values to positions.
type Scale int

const (
	// Linear places values proportionally to their value.
	Linear Scale = iota
	// Log10 places values proportionally to their base-10 logarithm; values
	// at or below zero cannot be drawn on it and are skipped.
	Log10
)

// Style is how a series is drawn.
type Style int

const (
	// Line joins consecutive points with straight segments.
	Line Style = iota
	// Step draws a staircase that holds each point's y value until the next
	// point's x value and then jumps, as an empirical distribution function
	// is drawn.
	Step
	// Markers draws a marker at each point and no line.
	Markers
	// LineMarkers joins consecutive points and draws a marker at each.
	LineMarkers
)

// LegendPosition says where a panel's legend goes.
type LegendPosition int

const (
	// LegendAuto puts the legend inside the plot area, in the first corner
	// (top right, top left, bottom left, bottom right) that no line or marker
	// crosses, and outside it as LegendOutside does if every corner is taken.
	LegendAuto LegendPosition = iota
	// LegendOutside puts the legend outside the plot area: to its right, or
	// above it, entries side by side, when a legend to the right would take
	// more than 40% of the plot width.
	LegendOutside
	// LegendNone draws no legend.
	LegendNone
)

// Range is a fixed axis range. The zero Range means an automatic range that
// covers the drawable data.
type Range struct {
	// Min and Max are the data values at the ends of the axis: both finite,
	// above zero on a Log10 axis, and Max - Min more than a billionth of
	// the larger magnitude.
	Min, Max float64
}

// Series is one set of points drawn in one colour.
type Series struct {
	// Name labels the series in the legend; a series without a name has no
	// legend entry.
	Name string
	// X and Y are the point coordinates, of equal length. Points are drawn
	// and joined in the given order.
	X, Y []float64
	// Style selects line, step, markers or line with markers.
	Style Style
	// Dashed draws the line or steps dashed.
	Dashed bool
	// Color is the colour as "#rgb" or "#rrggbb". Empty means
	// PaletteColor(i) for the series' index i in its panel.
	Color string
	// Censored, if not nil, has one entry per point; a true entry marks a
	// value that is only a bound, such as the evaluations of a run stopped
	// by its budget. Such points get a hollow marker whatever the Style,
	// and the legend explains it (see Panel.CensoredLabel).
	Censored []bool
}

// Panel is one plot: a pair of axes with its series.
type Panel struct {
	// Title is drawn above the plot area; it may be empty.
	Title string
	// XLabel and YLabel name the axes; they may be empty.
	XLabel, YLabel string
	// XScale and YScale select linear or logarithmic axes.
	XScale, YScale Scale
	// XRange and YRange fix the axis ranges; the zero Range means automatic.
	XRange, YRange Range
	// Series are drawn in order, later ones on top.
	Series []Series
	// Legend places the legend; it is drawn only if a series has a name or
	// a point is censored.
	Legend LegendPosition
	// CensoredLabel is the legend text for hollow (censored) markers; empty
	// means "capped (budget reached)".
	CensoredLabel string
}

// Figure is an SVG document holding a grid of panels.
type Figure struct {
	// Title is drawn at the top of the figure; it may be empty.
	Title string
	// Width and Height are the size in pixels; 0 means 800 by 500.
	Width, Height int
	// Columns is the number of panels per row; 0 means the smallest number
	// c with c*c >= len(Panels).
	Columns int
	// Panels are laid out row by row.
	Panels []Panel
}

// Default figure size in pixels, readable in a browser window.
const (
	defaultWidth  = 800
	defaultHeight = 500
	maxSide       = 20000
)

const defaultCensoredLabel = "capped (budget reached)"

// palette is the Okabe-Ito colour-blind-friendly palette without its yellow,
// which is too light on white.
var palette = [...]string{
	"#0072B2", // blue
	"#D55E00", // vermillion
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#E69F00", // orange
	"#56B4E9", // sky blue
	"#000000", // black
}

// PaletteColor returns the i-th colour of the package's colour-blind-friendly
// palette as "#rrggbb", cycling when i is past its end; a negative i counts
// from the end. Series without a Color use PaletteColor of their index, so a
// caller can give matching colours to series in different panels.
func PaletteColor(i int) string {
	n := len(palette)
	return palette[((i%n)+n)%n]
}

// WriteSVG renders the figure and writes it to w as one SVG document. Bad
// input (mismatched lengths, invalid ranges, scales, styles or colours, no
// panels, a size too small for the panels) is reported as an error before
// anything is written.
func (f *Figure) WriteSVG(w io.Writer) error {
	if f == nil {
		return errors.New("svgplot: nil Figure")
	}
	if err := f.validate(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := f.render(&buf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// validate checks every field that render relies on.
func (f *Figure) validate() error {
	if f.Width < 0 || f.Height < 0 || f.Width > maxSide || f.Height > maxSide {
		return fmt.Errorf("svgplot: figure size %dx%d out of range (0 for the default, at most %d)", f.Width, f.Height, maxSide)
	}
	if f.Columns < 0 {
		return fmt.Errorf("svgplot: Columns = %d, want 0 (automatic) or more", f.Columns)
	}
	if len(f.Panels) == 0 {
		return errors.New("svgplot: figure has no panels")
	}
	for i := range f.Panels {
		if err := f.Panels[i].validate(); err != nil {
			return fmt.Errorf("svgplot: panel %d (%q): %w", i, f.Panels[i].Title, err)
		}
	}
	return nil
}

func (p *Panel) validate() error {
	if err := validateAxis("x", p.XScale, p.XRange); err != nil {
		return err
	}
	if err := validateAxis("y", p.YScale, p.YRange); err != nil {
		return err
	}
	if p.Legend < LegendAuto || p.Legend > LegendNone {
		return fmt.Errorf("unknown legend position %d", p.Legend)
	}
	for i := range p.Series {
		s := &p.Series[i]
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %d (%q): len(X) = %d but len(Y) = %d", i, s.Name, len(s.X), len(s.Y))
		}
		if s.Censored != nil && len(s.Censored) != len(s.X) {
			return fmt.Errorf("series %d (%q): len(Censored) = %d but len(X) = %d", i, s.Name, len(s.Censored), len(s.X))
		}
		if s.Style < Line || s.Style > LineMarkers {
			return fmt.Errorf("series %d (%q): unknown style %d", i, s.Name, s.Style)
		}
		if s.Color != "" && !isHexColor(s.Color) {
			return fmt.Errorf("series %d (%q): colour %q is not #rgb or #rrggbb", i, s.Name, s.Color)
		}
	}
	return nil
}

func validateAxis(name string, s Scale, r Range) error {
	if s != Linear && s != Log10 {
		return fmt.Errorf("unknown %s scale %d", name, s)
	}
	if r == (Range{}) {
		return nil
	}
	if math.IsNaN(r.Min) || math.IsNaN(r.Max) || math.IsInf(r.Min, 0) || math.IsInf(r.Max, 0) || !(r.Min < r.Max) {
		return fmt.Errorf("%s range [%g, %g]: want finite Min < Max", name, r.Min, r.Max)
	}
	if s == Log10 && r.Min <= 0 {
		return fmt.Errorf("%s range [%g, %g]: a logarithmic axis needs Min > 0", name, r.Min, r.Max)
	}
	if s == Linear && math.IsInf(r.Max-r.Min, 0) {
		return fmt.Errorf("%s range [%g, %g]: too wide", name, r.Min, r.Max)
	}
	if tooNarrow(r.Min, r.Max) {
		return fmt.Errorf("%s range [%g, %g]: too narrow for distinct ticks", name, r.Min, r.Max)
	}
	return nil
}

func isHexColor(c string) bool {
	if len(c) != 4 && len(c) != 7 || c[0] != '#' {
		return false
	}
	for _, r := range c[1:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}
