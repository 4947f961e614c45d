package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden SVG files in testdata")

// traceFigure is a run trace as the CLI draws it: four panels against
// evaluations. The data come from arithmetic only, so they are the same
// bits on every platform.
func traceFigure() *Figure {
	var evals, gap, sigma, cond, trace []float64
	f, s, c := 1e3, 2.0, 1.0
	for k := range 120 {
		evals = append(evals, float64(20*k))
		gap = append(gap, f)
		sigma = append(sigma, s)
		cond = append(cond, c)
		trace = append(trace, 1+float64((k*7)%13-6)/40)
		f *= 0.78 + 0.16*float64((k*37)%11)/11
		s *= 0.9 + 0.15*float64((k*5)%7)/7
		c = math.Min(c*1.25, 1e6)
	}
	return &Figure{
		Title: "hees on ellipsoid, d = 10, seed 1",
		Panels: []Panel{
			{Title: "f − f*", XLabel: "evaluations", YScale: Log10, Series: []Series{{Name: "hees", X: evals, Y: gap}}},
			{Title: "step size σ", XLabel: "evaluations", YScale: Log10, Series: []Series{{X: evals, Y: sigma}}},
			{Title: "cond(C)", XLabel: "evaluations", YScale: Log10, Series: []Series{{X: evals, Y: cond}}},
			{Title: "tr(C) / d", XLabel: "evaluations", Series: []Series{{X: evals, Y: trace}}},
		},
	}
}

// ecdfFigure is an ECDF of runtimes for three strategies with the x axis
// in log10(evaluations / d) on a linear scale, as COCO draws it.
func ecdfFigure() *Figure {
	p := Panel{
		Title:  "bbob f1-f24, d = 10",
		XLabel: "log10(evaluations / d)",
		YLabel: "fraction of (function, target) pairs",
		YRange: Range{-0.02, 1.02},
	}
	for i, name := range []string{"hees", "cmaes", "cma11"} {
		var x, y []float64
		solved := 0.0
		for k := range 41 {
			x = append(x, float64(k)/10)
			if (k*(i+2))%5 != 0 && k > 3+2*i {
				solved += 0.027 - 0.004*float64(i)
			}
			y = append(y, math.Min(solved, 1))
		}
		p.Series = append(p.Series, Series{Name: name, X: x, Y: y, Style: Step, Dashed: i == 2})
	}
	return &Figure{Width: 800, Height: 500, Panels: []Panel{p}}
}

// conditionFigure is evaluations to a target against the condition number,
// log-log, with capped runs censored.
func conditionFigure() *Figure {
	p := Panel{
		Title:  "evaluations to reach 1e-8, ellipsoid d = 10",
		XLabel: "condition number",
		YLabel: "evaluations",
		XScale: Log10,
		YScale: Log10,
	}
	conds := []float64{1, 1e2, 1e4, 1e6}
	for i, name := range []string{"hees14", "hees", "cma11", "es11"} {
		var y []float64
		var capped []bool
		for k, c := range conds {
			v := 1500 * float64(1+i) * (1 + float64(k)/(1+float64(i)))
			if i == 3 {
				v = math.Min(1500*math.Sqrt(c), 1e5)
			}
			y = append(y, v)
			capped = append(capped, v == 1e5)
		}
		p.Series = append(p.Series, Series{Name: name, X: conds, Y: y, Style: LineMarkers, Censored: capped})
	}
	return &Figure{Width: 800, Height: 500, Panels: []Panel{p}}
}

// fig2Figure is the paper's Figure 2 layout: two log-y panels with two
// strategies each.
func fig2Figure() *Figure {
	var it, condA, condB, trA, trB []float64
	a, b, ta, tb := 1e2, 1e2, 1e1, 1e1
	for k := range 200 {
		it = append(it, float64(k))
		condA, condB = append(condA, a), append(condB, b)
		trA, trB = append(trA, ta), append(trB, tb)
		a *= 0.9
		b *= 0.985
		ta *= 0.93
		tb *= 0.99
	}
	return &Figure{
		Title: "Figure 2: learning the identity, d = 10, median of 99 runs",
		Panels: []Panel{
			{Title: "cond(C) − 1", XLabel: "iteration", YScale: Log10, Series: []Series{
				{Name: "hees14", X: it, Y: condA}, {Name: "cma11", X: it, Y: condB, Dashed: true}}},
			{Title: "tr(C) − d", XLabel: "iteration", YScale: Log10, Series: []Series{
				{Name: "hees14", X: it, Y: trA}, {Name: "cma11", X: it, Y: trB, Dashed: true}}},
		},
	}
}

var goldenFigures = []struct {
	name   string
	figure func() *Figure
}{
	{"trace", traceFigure},
	{"ecdf", ecdfFigure},
	{"condition", conditionFigure},
	{"fig2", fig2Figure},
}

func render(t *testing.T, f *Figure) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.WriteSVG(&buf); err != nil {
		t.Fatalf("WriteSVG: %v", err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenFigures {
		t.Run(c.name, func(t *testing.T) {
			got := render(t, c.figure())
			golden.Check(t, filepath.Join("testdata", c.name+".svg"), got, *update)
			if again := render(t, c.figure()); !bytes.Equal(got, again) {
				t.Error("two renderings of the same figure differ")
			}
		})
	}
}

// checkXML walks every token of doc and fails on malformed XML, a root that
// is not svg, or a NaN or infinity anywhere.
func checkXML(t *testing.T, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("output is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("root element %q, want svg", root)
	}
	if bad := regexp.MustCompile(`(?i)nan|inf`).Find(stripText(doc)); bad != nil {
		t.Errorf("output contains %q outside text", bad)
	}
}

// stripText removes character data between tags, keeping the markup, so
// words in titles cannot trip the NaN check.
func stripText(doc []byte) []byte {
	return regexp.MustCompile(`>[^<]*<`).ReplaceAll(doc, []byte("><"))
}

func TestOutputParsesAsXML(t *testing.T) {
	for _, c := range goldenFigures {
		t.Run(c.name, func(t *testing.T) { checkXML(t, render(t, c.figure())) })
	}
}

func TestTextIsEscaped(t *testing.T) {
	title := `a < b & "c" > 'd'`
	f := &Figure{Title: title, Panels: []Panel{{
		Title: "<panel>", XLabel: "x & y", YLabel: "]]>",
		Series: []Series{{Name: "</text><script>", X: []float64{1, 2}, Y: []float64{3, 4}}},
	}}}
	doc := render(t, f)
	checkXML(t, doc)
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(doc))
	inText := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text" || tok.Name.Local == "title"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	for _, want := range []string{title, "<panel>", "x & y", "]]>", "</text><script>"} {
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("text %q not found in the decoded SVG text: %q", want, texts)
		}
	}
}

func TestLogAxisDecadeTicks(t *testing.T) {
	var e extent
	e.add(3e-8)
	e.add(500)
	a, err := buildAxis(Log10, Range{}, e, 400, true)
	if err != nil {
		t.Fatal(err)
	}
	if a.lo != -8 || a.hi != 3 {
		t.Errorf("range [%g, %g], want the decades [-8, 3] around the data", a.lo, a.hi)
	}
	var got []string
	for _, tk := range a.major {
		if tk.at != math.Round(tk.at) {
			t.Errorf("major tick at %g is not a decade", tk.at)
		}
		got = append(got, tk.label.base+"^"+tk.label.sup)
	}
	want := "10^−8 10^−7 10^−6 10^−5 10^−4 10^−3 10^−2 10^−1 10^0 10^1 10^2 10^3"
	if strings.Join(got, " ") != want {
		t.Errorf("labels\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	// 400 px for 11 decades leaves room for minor ticks at 2..9 x 10^k.
	if len(a.minor) != 8*11 {
		t.Fatalf("%d minor ticks, want 88", len(a.minor))
	}
	if math.Abs(a.minor[0]-math.Log10(2e-8)) > 1e-12 {
		t.Errorf("first minor tick at %g, want log10(2e-8)", a.minor[0])
	}

	// In the SVG the exponent is a raised tspan after "10".
	f := &Figure{Panels: []Panel{{YScale: Log10, Series: []Series{{X: []float64{0, 1}, Y: []float64{3e-8, 500}}}}}}
	doc := string(render(t, f))
	for _, exp := range []string{"−8", "−1", "0", "3"} {
		pattern := `>10<tspan dy="-4.4" font-size="8.25">` + exp + `</tspan></text>`
		if !strings.Contains(doc, pattern) {
			t.Errorf("SVG lacks the tick label 10^%s (%s)", exp, pattern)
		}
	}
}

func TestLogAxisThinsLabels(t *testing.T) {
	var e extent
	e.add(1e-40)
	e.add(1e40)
	a, err := buildAxis(Log10, Range{}, e, 150, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.major) < 2 {
		t.Fatalf("%d labels, want at least 2", len(a.major))
	}
	step := a.major[1].at - a.major[0].at
	pitch := 150 * step / (a.hi - a.lo)
	if pitch < minPitchY {
		t.Errorf("labels %g px apart, want at least %g", pitch, float64(minPitchY))
	}
	for _, tk := range a.major {
		if math.Mod(tk.at, step) != 0 {
			t.Errorf("label at decade %g is not a multiple of the spacing %g", tk.at, step)
		}
	}
	if step == 1 {
		t.Error("80 decades in 150 px should not label every decade")
	}
}

func TestLogAxisFixedRangeWithinOneDecade(t *testing.T) {
	// [2, 9] holds no two decades: ticks at 1, 2 or 5 times a power of ten
	// are placed logarithmically instead, at most 300/40 intervals.
	a, err := buildAxis(Log10, Range{Min: 2, Max: 9}, extent{}, 300, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range a.major {
		got = append(got, tk.label.base+tk.label.sup)
		if want := math.Log10(float64(len(got) + 1)); math.Abs(tk.at-want) > 1e-12 {
			t.Errorf("tick %d at %g, want log10(%d)", len(got), tk.at, len(got)+1)
		}
	}
	if strings.Join(got, " ") != "2 3 4 5 6 7 8 9" {
		t.Errorf("labels %q, want 2 ... 9", got)
	}
}

func TestLinearAxisNiceTicks(t *testing.T) {
	for _, c := range []struct {
		name     string
		r        Range
		min, max float64
		length   float64
		vertical bool
		want     string
	}{
		{"ecdf fraction", Range{0, 1}, 0, 0, 200, true, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{"evaluations", Range{}, 0, 2380, 400, false, "0 500 1000 1500 2000 2500"},
		{"negative", Range{}, -0.37, 0.52, 240, true, "−0.4 −0.2 0.0 0.2 0.4 0.6"},
		{"large", Range{}, 0, 3.2e7, 400, false, "0 0.5×10^7 1.0×10^7 1.5×10^7 2.0×10^7 2.5×10^7 3.0×10^7 3.5×10^7"},
		{"small", Range{}, 0, 2.4e-4, 250, true, "0 0.5×10^−4 1.0×10^−4 1.5×10^−4 2.0×10^−4 2.5×10^−4"},
		{"single value", Range{}, 5, 5, 200, true, "4.4 4.6 4.8 5.0 5.2 5.4 5.6"},
		{"fixed uneven", Range{0.3, 2.9}, 0, 0, 200, true, "0.5 1.0 1.5 2.0 2.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e extent
			if c.r == (Range{}) {
				e.add(c.min)
				e.add(c.max)
			}
			a, err := buildAxis(Linear, c.r, e, c.length, c.vertical)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tk := range a.major {
				s := tk.label.base
				if tk.label.sup != "" {
					s += "^" + tk.label.sup
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("labels %q, want %q", strings.Join(got, " "), c.want)
			}
			if c.r == (Range{}) && (a.lo > c.min || a.hi < c.max) {
				t.Errorf("automatic range [%g, %g] does not cover the data [%g, %g]", a.lo, a.hi, c.min, c.max)
			}
		})
	}
}

func TestDecadeFloorAtPowersOfTen(t *testing.T) {
	for k := -307; k <= 308; k++ {
		v := math.Pow10(k)
		if got := decadeFloor(v); got != k {
			t.Fatalf("decadeFloor(1e%d) = %d", k, got)
		}
		if got := decadeCeil(v); got != k {
			t.Fatalf("decadeCeil(1e%d) = %d", k, got)
		}
		if got := decadeFloor(math.Nextafter(v, 0)); got != k-1 {
			t.Fatalf("decadeFloor(just below 1e%d) = %d", k, got)
		}
		if got := decadeCeil(math.Nextafter(v, math.Inf(1))); k < 308 && got != k+1 {
			t.Fatalf("decadeCeil(just above 1e%d) = %d", k, got)
		}
	}
}

// seriesPaths returns the d attributes of the data lines drawn in colour.
func seriesPaths(doc []byte, color string) []string {
	re := regexp.MustCompile(`<path d="([^"]*)" fill="none" stroke="` + color + `"`)
	var ds []string
	for _, m := range re.FindAllSubmatch(doc, -1) {
		ds = append(ds, string(m[1]))
	}
	return ds
}

func TestUndrawablePointsBreakTheLine(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, style := range []Style{Line, Step, LineMarkers} {
		f := &Figure{Panels: []Panel{{
			YScale: Log10,
			Series: []Series{{
				Name:  "s",
				X:     []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, inf},
				Y:     []float64{1, 10, nan, 100, 1000, -1, 0, 1e4, inf, 1e5},
				Style: style,
				Color: "#123456",
			}},
		}}}
		doc := render(t, f)
		checkXML(t, doc)
		paths := seriesPaths(doc, "#123456")
		// The pieces 1-2 and 4-5 (8 is alone), then the legend sample.
		if len(paths) != 3 {
			t.Fatalf("style %d: %d paths %q, want 2 pieces and the legend sample", style, len(paths), paths)
		}
		wantPoints := 2
		if style == Step {
			wantPoints = 3
		}
		for _, d := range paths[:2] {
			if n := strings.Count(d, "M") + strings.Count(d, "L"); n != wantPoints {
				t.Errorf("style %d: piece %q has %d points, want %d", style, d, n, wantPoints)
			}
		}
		if style == LineMarkers {
			// Markers at the 5 drawable points (1, 10, 100, 1000, 1e4) plus
			// the legend's; circles for the first series.
			if n := bytes.Count(doc, []byte("<circle")); n != 6 {
				t.Errorf("%d markers, want 6", n)
			}
		}
	}
}

func TestEmptyData(t *testing.T) {
	for _, c := range []struct {
		name  string
		panel Panel
	}{
		{"no series", Panel{Title: "empty"}},
		{"empty series", Panel{Series: []Series{{Name: "nothing"}}, XScale: Log10, YScale: Log10}},
		{"nothing drawable", Panel{YScale: Log10, Series: []Series{{Name: "neg", X: []float64{1, 2}, Y: []float64{-1, 0}}}}},
		{"one point", Panel{XScale: Log10, YScale: Log10, Series: []Series{{Name: "dot", X: []float64{10}, Y: []float64{10}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := render(t, &Figure{Panels: []Panel{c.panel}})
			checkXML(t, doc)
			hasData := c.name == "one point"
			if got := bytes.Contains(doc, []byte(">no data<")); got == hasData {
				t.Errorf(`"no data" shown = %v, want %v`, got, !hasData)
			}
		})
	}
}

func TestCensoredPointsAreHollowAndExplained(t *testing.T) {
	doc := render(t, conditionFigure())
	// es11 (the fourth series, diamonds) is capped at 1e4 and 1e6.
	hollow := regexp.MustCompile(`<g fill="white" stroke="#CC79A7" stroke-width="1.4">
((?:<path[^>]*/>
)*)</g>`).FindSubmatch(doc)
	if hollow == nil {
		t.Fatal("no hollow markers for the capped series")
	}
	if n := bytes.Count(hollow[1], []byte("<path")); n != 2 {
		t.Errorf("%d hollow markers, want 2 (the capped runs)", n)
	}
	if !bytes.Contains(doc, []byte(">"+defaultCensoredLabel+"<")) {
		t.Errorf("legend lacks %q", defaultCensoredLabel)
	}
}

func TestLegendPlacement(t *testing.T) {
	rising := Series{Name: "rising", X: []float64{0, 1}, Y: []float64{0, 1}}
	cell := rect{0, 0, 800, 500}
	g, err := layoutPanel(&Panel{Series: []Series{rising}}, cell)
	if err != nil {
		t.Fatal(err)
	}
	// The diagonal crosses the top right corner; the top left is free.
	if g.legend.x > g.plot.x+g.plot.w/2 || g.legend.y > g.plot.y+g.plot.h/2 {
		t.Errorf("legend at %+v in plot %+v, want the top left corner", g.legend, g.plot)
	}
	if g.crosses(g.legend) {
		t.Error("legend covers data")
	}

	// Markers in every corner: the legend goes outside.
	corners := Series{Name: "corners", X: []float64{0.02, 0.98, 0.02, 0.98}, Y: []float64{0.02, 0.02, 0.98, 0.98}, Style: Markers}
	g, err = layoutPanel(&Panel{Series: []Series{corners}, XRange: Range{0, 1}, YRange: Range{0, 1}}, cell)
	if err != nil {
		t.Fatal(err)
	}
	if g.legend.x < g.plot.right() || g.legend.right() > cell.right() {
		t.Errorf("legend at %+v, want right of the plot area %+v inside the cell", g.legend, g.plot)
	}

	// A legend too wide for the right of a small panel goes above it.
	wide := rising
	wide.Name = "a strategy with a very long name indeed"
	small := rect{0, 0, 400, 250}
	alone, err := layoutPanel(&Panel{Series: []Series{rising}, Legend: LegendNone}, small)
	if err != nil {
		t.Fatal(err)
	}
	g, err = layoutPanel(&Panel{Series: []Series{wide, corners}, Legend: LegendOutside}, small)
	if err != nil {
		t.Fatal(err)
	}
	if g.legend.bottom() > g.plot.y || g.legend.y < small.y || g.legend.right() > small.right() {
		t.Errorf("legend at %+v, want above the plot area %+v inside the cell", g.legend, g.plot)
	}
	if g.plot.w != alone.plot.w || g.plot.h >= alone.plot.h {
		t.Errorf("plot area %+v, want the width and less than the height of %+v", g.plot, alone.plot)
	}
	if len(g.slots) != 2 || g.slots[0].y != g.slots[1].y {
		t.Errorf("entry slots %v, want two side by side", g.slots)
	}

	g, err = layoutPanel(&Panel{Series: []Series{rising}, Legend: LegendNone}, cell)
	if err != nil {
		t.Fatal(err)
	}
	if g.legend != (rect{}) {
		t.Errorf("LegendNone drew a legend at %+v", g.legend)
	}
}

func TestLinesAreClippedToFixedRange(t *testing.T) {
	f := &Figure{Panels: []Panel{{
		XRange: Range{0, 1}, YRange: Range{0, 1},
		Series: []Series{{X: []float64{-1, 2}, Y: []float64{0.5, 0.5}, Color: "#abcdef"}},
	}}}
	g, err := layoutPanel(&f.Panels[0], rect{0, 0, 800, 500})
	if err != nil {
		t.Fatal(err)
	}
	lines := g.series[0].lines
	if len(lines) != 1 || len(lines[0]) != 2 {
		t.Fatalf("lines %v, want one segment", lines)
	}
	a, b := lines[0][0], lines[0][1]
	if a.x != round(point{g.plot.x, 0}).x || b.x != round(point{g.plot.right(), 0}).x {
		t.Errorf("segment %v-%v, want it cut at the plot edges %g and %g", a, b, g.plot.x, g.plot.right())
	}
}

func TestBadInput(t *testing.T) {
	ok := func() Panel { return Panel{Series: []Series{{X: []float64{1}, Y: []float64{1}}}} }
	with := func(edit func(*Figure)) *Figure {
		f := &Figure{Panels: []Panel{ok()}}
		edit(f)
		return f
	}
	for _, c := range []struct {
		name   string
		figure *Figure
		want   string
	}{
		{"nil", nil, "nil Figure"},
		{"no panels", &Figure{}, "no panels"},
		{"negative width", with(func(f *Figure) { f.Width = -1 }), "size -1x0"},
		{"negative columns", with(func(f *Figure) { f.Columns = -2 }), "Columns = -2"},
		{"lengths", with(func(f *Figure) { f.Panels[0].Series[0].Y = nil }), "len(X) = 1 but len(Y) = 0"},
		{"censored length", with(func(f *Figure) { f.Panels[0].Series[0].Censored = []bool{true, false} }), "len(Censored) = 2 but len(X) = 1"},
		{"style", with(func(f *Figure) { f.Panels[0].Series[0].Style = 9 }), "unknown style 9"},
		{"scale", with(func(f *Figure) { f.Panels[0].YScale = 3 }), "unknown y scale 3"},
		{"legend", with(func(f *Figure) { f.Panels[0].Legend = -1 }), "unknown legend position -1"},
		{"colour", with(func(f *Figure) { f.Panels[0].Series[0].Color = `red"/>` }), "is not #rgb or #rrggbb"},
		{"reversed range", with(func(f *Figure) { f.Panels[0].XRange = Range{2, 1} }), "x range [2, 1]"},
		{"NaN range", with(func(f *Figure) { f.Panels[0].YRange = Range{0, math.NaN()} }), "want finite Min < Max"},
		{"log range at zero", with(func(f *Figure) { f.Panels[0].YScale = Log10; f.Panels[0].YRange = Range{0, 1} }), "needs Min > 0"},
		{"narrow range", with(func(f *Figure) { f.Panels[0].XRange = Range{1, 1 + 1e-12} }), "too narrow"},
		{"too small", with(func(f *Figure) { f.Width, f.Height = 60, 60 }), "too small"},
		{"data too wide", with(func(f *Figure) {
			f.Panels[0].Series[0] = Series{X: []float64{-math.MaxFloat64, math.MaxFloat64}, Y: []float64{1, 2}}
		}), "too wide"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := c.figure.WriteSVG(&buf)
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), "svgplot: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want the prefix svgplot: and %q", err, c.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorIsReturned(t *testing.T) {
	err := traceFigure().WriteSVG(failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error %v, want the writer's", err)
	}
}

func TestPaletteColorCycles(t *testing.T) {
	n := len(palette)
	if PaletteColor(0) != PaletteColor(n) || PaletteColor(-1) != PaletteColor(n-1) {
		t.Error("PaletteColor does not cycle")
	}
	seen := map[string]bool{}
	for i := range n {
		c := PaletteColor(i)
		if !isHexColor(c) || seen[c] {
			t.Errorf("PaletteColor(%d) = %q: not a new #rrggbb colour", i, c)
		}
		seen[c] = true
	}
}

func BenchmarkWriteSVG(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		x, y := make([]float64, n), make([]float64, n)
		v := 1e3
		for i := range n {
			x[i], y[i] = float64(i), v
			v *= 0.9995 + 0.0004*float64(i%7)/7
		}
		f := &Figure{Panels: []Panel{{YScale: Log10, Series: []Series{{Name: "trace", X: x, Y: y}}}}}
		b.Run("points="+strconv.Itoa(n), func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := f.WriteSVG(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes/svg")
		})
	}
}

// TestExtremeValues renders data at the ends of the float64 range: a log
// axis draws all of it; a linear axis draws it or reports that the range
// cannot be ticked, but never panics, hangs or writes a NaN.
func TestExtremeValues(t *testing.T) {
	tiny, huge := math.SmallestNonzeroFloat64, math.MaxFloat64
	for _, c := range []struct {
		values    []float64
		linearErr string // "" when a linear axis can draw the values
	}{
		{[]float64{1e-320, 3e-320}, "too small"},
		{[]float64{tiny, 2 * tiny}, "too small"},
		{[]float64{0, tiny}, "too small"},
		{[]float64{tiny, huge}, "too wide"},
		{[]float64{huge, huge}, "too wide"},
		{[]float64{-huge, -huge / 2}, "too wide"},
		{[]float64{-1e300, 1e300}, ""},
		{[]float64{1e-300, 1e300}, ""},
		{[]float64{1e-280, 2e-280}, ""},
	} {
		for _, scale := range []Scale{Linear, Log10} {
			f := &Figure{Panels: []Panel{{YScale: scale, XScale: scale, Series: []Series{{Name: "s", X: c.values, Y: c.values, Style: LineMarkers}}}}}
			var buf bytes.Buffer
			err := f.WriteSVG(&buf)
			wantErr := ""
			if scale == Linear {
				wantErr = c.linearErr
			}
			switch {
			case wantErr == "" && err != nil:
				t.Errorf("%g on scale %d: %v", c.values, scale, err)
			case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
				t.Errorf("%g on scale %d: error %v, want one containing %q", c.values, scale, err, wantErr)
			case err == nil:
				checkXML(t, buf.Bytes())
			}
		}
	}
}

// FuzzWriteSVG checks that any data gives an error or a valid SVG without
// NaN, for every scale and style.
func FuzzWriteSVG(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 0.5, uint8(0))
	f.Add(math.NaN(), 1e-300, math.Inf(-1), 1e300, -3.0, uint8(7))
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, uint8(15))
	f.Fuzz(func(t *testing.T, x0, x1, y0, y1, y2 float64, mode uint8) {
		fig := &Figure{Panels: []Panel{{
			XScale: Scale(mode & 1),
			YScale: Scale(mode >> 1 & 1),
			Series: []Series{{
				Name:     "s",
				X:        []float64{x0, x1, x1},
				Y:        []float64{y0, y1, y2},
				Style:    Style(mode >> 2 & 3),
				Censored: []bool{false, true, false},
			}},
		}}}
		var buf bytes.Buffer
		if err := fig.WriteSVG(&buf); err != nil {
			if !strings.Contains(err.Error(), "linear axis") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		checkXML(t, buf.Bytes())
	})
}
