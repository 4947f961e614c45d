// Package traceplot draws the trace of a run (es.Trace.WriteCSV, hees run
// -trace) as an SVG figure for hees plot: the objective, the step size, and
// the condition and normalised trace of C = A A^T (and of A^T H A when the
// trace has them) against the evaluations. It also draws the evaluation log
// of a run (hees run -log, internal/runlog): every value, and the best so
// far. Lines that start with '#' (the run's description) are skipped.
package traceplot

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/svgplot"
)

// traceColumns are the columns of a trace (es.Trace.WriteCSV) that plot
// reads; evals, f_best and sigma are required, the others optional.
var traceColumns = []string{
	"f_best", "f_generation", "sigma",
	"cond_C", "normtrace_C", "cond_AHA", "normtrace_AHA",
}

// traceRequired are the columns a trace must have.
var traceRequired = []string{"evals", "f_best", "sigma"}

// The columns of an evaluation log (runlog.LogHeader) that plot reads.
const (
	logEvaluation = "evaluation"
	logValue      = "f"
	logStatus     = "status"
)

// Trace holds the columns of a trace by name. An empty cell (a value
// the trace did not compute, such as the matrix columns between two
// intervals) is left out of its column, so each column keeps the
// evaluation counts of its own rows.
type Trace struct {
	columns map[string]traceColumn
	// log says that the file was an evaluation log: f_generation then
	// holds every value and f_best the best so far.
	log bool
}

// traceColumn is one column of a trace: its values and the evaluation
// counts of the rows that have them.
type traceColumn struct {
	evals, values []float64
}

// MaxFileSize bounds the files ReadFile reads: 1 GiB, millions of
// generations.
const MaxFileSize = 1 << 30

// ReadFile reads and parses the trace or log at path. An error reading the
// file is boundedfile.Read's (os.ErrNotExist for a missing file); an error
// parsing it starts with path.
func ReadFile(path string) (*Trace, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	t, err := Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read parses a trace CSV: a header naming the columns, then one
// row per generation.
func Read(data []byte) (*Trace, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	r.Comment = '#' // the lines that describe the run
	header, err := r.Read()
	if err == io.EOF {
		return nil, errors.New("empty file, want a CSV header such as hees run -trace writes")
	}
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for i, name := range header {
		index[strings.TrimSpace(name)] = i
	}
	if _, ok := index[logEvaluation]; ok {
		return readLog(r, index)
	}
	for _, name := range traceRequired {
		if _, ok := index[name]; !ok {
			return nil, fmt.Errorf("no column %q in the header (want a trace written by hees run -trace)", name)
		}
	}
	t := &Trace{columns: map[string]traceColumn{}}
	rows := 0
	err = forEachRecord(r, func(rec []string, line int) error {
		cell := func(name string) (v float64, ok bool, err error) {
			i, ok := index[name]
			if !ok {
				return 0, false, nil
			}
			text := strings.TrimSpace(rec[i])
			if text == "" {
				return 0, false, nil
			}
			if v, err = strconv.ParseFloat(text, 64); err != nil {
				return 0, false, fmt.Errorf("line %d, column %s: %q is not a number", line, name, text)
			}
			return v, true, nil
		}
		evals, ok, err := cell("evals")
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("line %d: the evals cell is empty", line)
		}
		rows++
		for _, name := range traceColumns {
			v, ok, err := cell(name)
			if err != nil {
				return err
			}
			if ok {
				c := t.columns[name]
				c.evals, c.values = append(c.evals, evals), append(c.values, v)
				t.columns[name] = c
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, errors.New("no rows after the header")
	}
	return t, nil
}

// readLog reads the rows of an evaluation log after its header, whose
// columns index gives: the value of each evaluation whose status is ok
// goes to f_generation, the smallest so far to f_best.
func readLog(r *csv.Reader, index map[string]int) (*Trace, error) {
	iEval := index[logEvaluation]
	iValue, okValue := index[logValue]
	iStatus, okStatus := index[logStatus]
	if !okValue {
		return nil, fmt.Errorf("no column %q in the header (want a log written by hees run -log)", logValue)
	}
	var all, best traceColumn
	fBest := math.Inf(1)
	err := forEachRecord(r, func(rec []string, line int) error {
		if okStatus && strings.TrimSpace(rec[iStatus]) != "ok" {
			return nil
		}
		evals, err := strconv.ParseFloat(strings.TrimSpace(rec[iEval]), 64)
		if err != nil {
			return fmt.Errorf("line %d, column %s: %q is not a number", line, logEvaluation, rec[iEval])
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[iValue]), 64)
		if err != nil {
			return fmt.Errorf("line %d, column %s: %q is not a number", line, logValue, rec[iValue])
		}
		all.evals, all.values = append(all.evals, evals), append(all.values, v)
		if v < fBest {
			fBest = v
		}
		best.evals, best.values = append(best.evals, evals), append(best.values, fBest)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all.values) == 0 {
		return nil, errors.New("no evaluation with status ok after the header")
	}
	return &Trace{columns: map[string]traceColumn{"f_generation": all, "f_best": best}, log: true}, nil
}

// forEachRecord calls f with every record left in r and its line, until
// the end or the first error.
func forEachRecord(r *csv.Reader, f func(rec []string, line int) error) error {
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line, _ := r.FieldPos(0)
		if err := f(rec, line); err != nil {
			return err
		}
	}
}

// Hidden counts the values of the objective panel that its logarithmic
// axis cannot show: those at or below fopt with subtract (f - fopt <= 0),
// none otherwise (without subtract the axis is linear unless every value
// is positive). hees plot warns about them rather than drop them in
// silence.
func (t *Trace) Hidden(subtract bool, fopt float64) int {
	if !subtract {
		return 0
	}
	n := 0
	for _, name := range []string{"f_generation", "f_best"} {
		for _, v := range t.columns[name].values {
			if v-fopt <= 0 {
				n++
			}
		}
	}
	return n
}

// series returns the named column as a series against evaluations, with
// f applied to each value, or false when the column is missing or has no
// finite value.
func (t *Trace) series(column, name string, f func(float64) float64) (svgplot.Series, bool) {
	c := t.columns[column]
	y := make([]float64, len(c.values))
	drawable := false
	for i, v := range c.values {
		y[i] = f(v)
		drawable = drawable || (!math.IsNaN(y[i]) && !math.IsInf(y[i], 0))
	}
	return svgplot.Series{Name: name, X: c.evals, Y: y}, drawable
}

// Figure builds the panels of a trace. With subtract, the objective panel
// draws f - fopt.
func (t *Trace) Figure(title string, subtract bool, fopt float64) (*svgplot.Figure, error) {
	identity := func(v float64) float64 { return v }
	objective := svgplot.Panel{Title: "objective", XLabel: "evaluations", YScale: svgplot.Log10}
	value, label := identity, "f"
	if subtract {
		value = func(v float64) float64 { return v - fopt }
		label = "f − f*"
	} else if !allPositive(t.columns["f_best"].values) {
		objective.YScale = svgplot.Linear
	}
	objective.YLabel = label
	// The generation's best goes first, in a light colour, so that the
	// best so far is drawn over it.
	name := "generation's best "
	if t.log {
		name = "evaluated "
	}
	if s, ok := t.series("f_generation", name+label, value); ok {
		s.Color = "#bbbbbb"
		objective.Series = append(objective.Series, s)
	}
	best, ok := t.series("f_best", "best "+label, value)
	if !ok {
		return nil, errors.New("the f_best column has no finite value")
	}
	best.Color = svgplot.PaletteColor(0)
	objective.Series = append(objective.Series, best)
	panels := []svgplot.Panel{objective}
	for _, p := range []struct {
		title, label string
		columns      [][2]string // column and legend name
	}{
		{"step size", "σ", [][2]string{{"sigma", "σ"}}},
		{"condition number", "cond", [][2]string{{"cond_C", "cond(C)"}, {"cond_AHA", "cond(AᵀHA)"}}},
		{"normalised trace (d when isotropic)", "tr / det^(1/d)", [][2]string{{"normtrace_C", "tr(C) / det(C)^(1/d)"}, {"normtrace_AHA", "same for AᵀHA"}}},
	} {
		panel := svgplot.Panel{Title: p.title, XLabel: "evaluations", YLabel: p.label, YScale: svgplot.Log10}
		for k, c := range p.columns {
			if s, ok := t.series(c[0], c[1], identity); ok {
				s.Dashed = k > 0
				panel.Series = append(panel.Series, s)
			}
		}
		if len(panel.Series) == 1 {
			panel.Legend = svgplot.LegendNone // the y label names it
		}
		if len(panel.Series) > 0 {
			panels = append(panels, panel)
		}
	}
	// One evaluation axis for all panels, from 0 to the last row.
	last := 0.0
	for _, c := range t.columns {
		for _, e := range c.evals {
			last = max(last, e)
		}
	}
	if last > 0 && !math.IsInf(last, 1) {
		for i := range panels {
			panels[i].XRange = svgplot.Range{Min: 0, Max: 1.02 * last}
		}
	}
	return &svgplot.Figure{Title: title, Columns: 2, Panels: panels}, nil
}

// allPositive reports whether every finite value of v is above zero.
func allPositive(v []float64) bool {
	for _, x := range v {
		if !math.IsNaN(x) && x <= 0 {
			return false
		}
	}
	return true
}

// Column returns the evaluation counts and the values of the named column,
// and whether the trace has it.
func (t *Trace) Column(name string) (evals, values []float64, ok bool) {
	c, ok := t.columns[name]
	return c.evals, c.values, ok
}
