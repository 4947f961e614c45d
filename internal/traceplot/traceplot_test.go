package traceplot

import (
	"io"
	"slices"
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

// TestReadLog reads an evaluation log (hees run -log) with its comment
// lines and a failed evaluation: every value with status ok, the best so
// far, and the values that f - f* cannot show on a logarithmic axis.
func TestReadLog(t *testing.T) {
	log := "# strategy: hees\n# d: 2\nevaluation,generation,row,status,f,x1,x2\n" +
		"1,0,0,ok,5,1,2\n2,0,1,failed,NaN,0,0\n3,0,2,ok,3,1,1\n# resumed after generation: 1\n4,1,0,ok,4,0,1\n5,1,1,ok,-1,0,0\n"
	tr, err := Read([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		evals, values []float64
	}{
		{"f_generation", []float64{1, 3, 4, 5}, []float64{5, 3, 4, -1}},
		{"f_best", []float64{1, 3, 4, 5}, []float64{5, 3, 3, -1}},
	} {
		evals, values, _ := tr.Column(c.name)
		if !slices.Equal(evals, c.evals) || !slices.Equal(values, c.values) {
			t.Errorf("%s: %v at %v, want %v at %v", c.name, values, evals, c.values, c.evals)
		}
	}
	if n := tr.Hidden(true, 3); n != 5 {
		t.Errorf("Hidden(fopt 3) = %d, want 5 (3 and -1 of the values, 3, 3 and -1 of the best)", n)
	}
	if n := tr.Hidden(false, 3); n != 0 {
		t.Errorf("Hidden without subtract = %d, want 0", n)
	}
	fig, err := tr.Figure("log", true, -2)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 1 || fig.Panels[0].Series[0].Name != "evaluated f − f*" {
		t.Errorf("%d panels, first series %q; want the objective panel alone", len(fig.Panels), fig.Panels[0].Series[0].Name)
	}
	if _, err := Read([]byte("evaluation,status,f\n1,failed,NaN\n")); err == nil {
		t.Error("a log without an evaluation with status ok was read")
	}
}
