package svgplot_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"log"

	"github.com/hees-dev/hees/internal/svgplot"
)

// A run trace: the distance to the optimum on a logarithmic axis against
// evaluations.
func ExampleFigure_WriteSVG() {
	evals := []float64{0, 100, 200, 300, 400}
	gap := []float64{1e3, 2.5, 4e-3, 1e-6, 2e-9}
	fig := &svgplot.Figure{
		Title: "hees on ellipsoid, d = 10",
		Panels: []svgplot.Panel{{
			XLabel: "evaluations",
			YLabel: "f − f*",
			YScale: svgplot.Log10,
			Series: []svgplot.Series{{Name: "hees", X: evals, Y: gap, Style: svgplot.LineMarkers}},
		}},
	}
	var buf bytes.Buffer
	if err := fig.WriteSVG(&buf); err != nil {
		log.Fatal(err)
	}
	// The document is XML with an <svg> root; write it to a file with
	// fig.WriteSVG(file) or serve it as image/svg+xml.
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &root); err != nil {
		log.Fatal(err)
	}
	fmt.Println(root.XMLName.Local, root.Width, root.Height)
	// Output: svg 800 500
}

// An ECDF of runtimes for two strategies: step series on a [0, 1] axis,
// padded a little so the final level of 1 is not hidden by the frame.
func ExampleFigure_WriteSVG_ecdf() {
	fig := &svgplot.Figure{Width: 600, Height: 400, Panels: []svgplot.Panel{{
		Title:  "bbob, d = 5",
		XLabel: "log10(evaluations / d)",
		YLabel: "fraction of (function, target) pairs",
		YRange: svgplot.Range{Min: -0.02, Max: 1.02},
		Series: []svgplot.Series{
			{Name: "hees", X: []float64{0, 1, 2, 3, 4}, Y: []float64{0, 0.2, 0.6, 0.9, 1}, Style: svgplot.Step},
			{Name: "cmaes", X: []float64{0, 1, 2, 3, 4}, Y: []float64{0, 0.1, 0.5, 0.8, 0.95}, Style: svgplot.Step, Dashed: true},
		},
	}}}
	var buf bytes.Buffer
	if err := fig.WriteSVG(&buf); err != nil {
		log.Fatal(err)
	}
	first, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	fmt.Printf("%s\n", first)
	// Output: <?xml version="1.0" encoding="UTF-8"?>
}

// Evaluations to a target against the condition number, log-log; a run
// stopped by its budget is censored and drawn with a hollow marker.
func ExampleFigure_WriteSVG_censored() {
	conds := []float64{1, 1e2, 1e4, 1e6}
	fig := &svgplot.Figure{Panels: []svgplot.Panel{{
		XLabel: "condition number",
		YLabel: "evaluations to 1e-8",
		XScale: svgplot.Log10,
		YScale: svgplot.Log10,
		Series: []svgplot.Series{
			{Name: "hees", X: conds, Y: []float64{1800, 2900, 4000, 5100}, Style: svgplot.LineMarkers},
			{
				Name: "es11", X: conds, Y: []float64{1500, 15000, 1e5, 1e5}, Style: svgplot.LineMarkers,
				Censored: []bool{false, false, true, true},
			},
		},
		CensoredLabel: "budget of 1e5 reached",
	}}}
	var buf bytes.Buffer
	fmt.Println(fig.WriteSVG(&buf), bytes.Contains(buf.Bytes(), []byte("budget of 1e5 reached")))
	// Output: <nil> true
}

// Give a strategy the same colour in every figure by asking the palette.
func ExamplePaletteColor() {
	for i, name := range []string{"hees", "cmaes", "cma11"} {
		fmt.Println(name, svgplot.PaletteColor(i))
	}
	// Output:
	// hees #0072B2
	// cmaes #D55E00
	// cma11 #009E73
}
