package traceplot

import (
	"io"
	"testing"

	"github.com/hees-dev/hees/internal/svgplot"
)

// TestPlotScales checks the objective axis: logarithmic for positive
// values or with -fopt, linear for values at or below zero without it, and
// that a trace without matrix columns gets no matrix panels.
func TestPlotScales(t *testing.T) {
	for _, tc := range []struct {
		csv      string
		subtract bool
		scale    svgplot.Scale
		panels   int
	}{
		{"evals,f_best,sigma\n1,3,1\n2,2,1\n", false, svgplot.Log10, 2},
		{"evals,f_best,sigma\n1,3,1\n2,-2,1\n", false, svgplot.Linear, 2},
		{"evals,f_best,sigma\n1,3,1\n2,-2,1\n", true, svgplot.Log10, 2},
		{"evals,f_best,sigma,cond_C\n1,3,1,\n2,2,1,5\n", false, svgplot.Log10, 3},
		{"evals,f_best,sigma,cond_C,normtrace_C\n1,3,1,,\n", false, svgplot.Log10, 2},
	} {
		tr, err := Read([]byte(tc.csv))
		if err != nil {
			t.Fatal(err)
		}
		fig, err := tr.Figure("t", tc.subtract, -5)
		if err != nil {
			t.Fatal(err)
		}
		if fig.Panels[0].YScale != tc.scale || len(fig.Panels) != tc.panels {
			t.Errorf("%q subtract=%t: scale %v and %d panels, want %v and %d",
				tc.csv, tc.subtract, fig.Panels[0].YScale, len(fig.Panels), tc.scale, tc.panels)
		}
		if err := fig.WriteSVG(io.Discard); err != nil {
			t.Errorf("%q: %v", tc.csv, err)
		}
	}
}
