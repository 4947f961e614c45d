package main

import (
	"bytes"
	"context"
	"flag"
	"github.com/hees-dev/hees/internal/traceplot"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/objectives"
)

// TestPlotGolden pins the help and the error lines of bad input.
func TestPlotGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"plot_help", []string{"plot", "-h"}},
		{"plot_no_file", []string{"plot", "-o", "x.svg"}},
		{"plot_two_files", []string{"plot", "a.csv", "b.csv"}},
		{"plot_unknown_flag", []string{"plot", "-x", "a.csv"}},
		{"plot_bad_fopt", []string{"plot", "a.csv", "-fopt", "zero"}},
		{"plot_small_size", []string{"plot", "a.csv", "-width", "100"}},
		{"plot_missing_file", []string{"plot", "testdata/plot_missing.csv"}},
		{"plot_bad_number", []string{"plot", "testdata/plot_bad_number.csv", "-o", "unused.svg"}},
		{"plot_no_sigma", []string{"plot", "testdata/plot_no_sigma.csv", "-o", "unused.svg"}},
		{"plot_header_only", []string{"plot", "testdata/plot_header_only.csv", "-o", "unused.svg"}},
		{"plot_short_row", []string{"plot", "testdata/plot_short_row.csv", "-o", "unused.svg"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc.name, tc.args, "") })
	}
	if _, err := os.Stat("unused.svg"); err == nil {
		t.Error("a failed plot wrote its output file")
	}
}

// writeTestTrace runs hees on the ellipsoid with a trace (matrix columns
// every third generation, and the A^T H A columns), writes it to
// dir/trace.csv and returns the trace.
func writeTestTrace(t *testing.T, dir string) *es.Trace {
	t.Helper()
	p, err := objectives.NewEllipsoid(5, 1e4)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := p.Hessian()
	s, err := es.New("hees", es.Config{Dim: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	trace := &es.Trace{Interval: 3}
	if _, err := es.Minimize(context.Background(), es.Func(p.Eval), s, es.Options{Trace: trace, Hessian: h, MaxEvals: 1500}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := trace.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return trace
}

// TestPlotTrace draws a generated trace and checks the SVG and the columns
// read back from the CSV.
func TestPlotTrace(t *testing.T) {
	dir := t.TempDir()
	trace := writeTestTrace(t, dir)
	in := filepath.Join(dir, "trace.csv")

	// Flags after the file name, and the default output name.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"plot", in, "-fopt", "0", "-title", "hees on the ellipsoid"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := filepath.Join(dir, "trace.svg")
	if got := stdout.String(); got != "wrote "+out+"\n" {
		t.Errorf("stdout %q", got)
	}
	svg := checkSVG(t, out)
	for _, text := range []string{"hees on the ellipsoid", "objective", "step size", "condition number",
		"normalised trace (d when isotropic)", "best f − f*", "cond(C)", "cond(AᵀHA)"} {
		if !strings.Contains(svg, ">"+text+"<") {
			t.Errorf("the SVG has no text %q", text)
		}
	}

	// The columns read back bit for bit, the matrix columns only from the
	// rows that have them.
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := traceplot.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	var evals, best, cond, condAHA, matrixEvals []float64
	for _, r := range trace.Rows {
		evals = append(evals, float64(r.Evals))
		best = append(best, r.FBest)
		if r.Matrix {
			matrixEvals = append(matrixEvals, float64(r.Evals))
			cond = append(cond, r.CondC)
			condAHA = append(condAHA, r.CondAHA)
		}
	}
	if len(matrixEvals) == 0 || len(matrixEvals) == len(evals) {
		t.Fatalf("%d of %d rows have the matrix columns; the test wants some, not all", len(matrixEvals), len(evals))
	}
	for _, c := range []struct {
		name         string
		evals, value []float64
	}{
		{"f_best", evals, best}, {"cond_C", matrixEvals, cond}, {"cond_AHA", matrixEvals, condAHA},
	} {
		evals, values, _ := got.Column(c.name)
		if !slices.Equal(evals, c.evals) || !slices.Equal(values, c.value) {
			t.Errorf("column %s: read %d values, want %d equal to the trace's", c.name, len(values), len(c.value))
		}
	}
	if _, _, ok := got.Column("f_mean"); ok {
		t.Error("f_mean was read, but plot does not draw it")
	}
}

// TestParseInterleaved checks flags before, between and after positional
// arguments, and "--".
func TestParseInterleaved(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		o          string
		positional []string
	}{
		{[]string{"a.csv"}, "", []string{"a.csv"}},
		{[]string{"-o", "x", "a.csv"}, "x", []string{"a.csv"}},
		{[]string{"a.csv", "-o", "x"}, "x", []string{"a.csv"}},
		{[]string{"a.csv", "-o", "x", "b.csv"}, "x", []string{"a.csv", "b.csv"}},
		{[]string{"a.csv", "--", "-o", "x"}, "", []string{"a.csv", "-o", "x"}},
		{[]string{"--", "-a.csv"}, "", []string{"-a.csv"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		o := fs.String("o", "", "")
		positional, err := parseInterleaved(fs, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if *o != tc.o || !slices.Equal(positional, tc.positional) {
			t.Errorf("%q: -o %q and %q, want %q and %q", tc.args, *o, positional, tc.o, tc.positional)
		}
	}
}

// TestPlotLog draws the -log file of a run that reaches its target, with
// -fopt at a value the run went below: the SVG is written, and a warning
// counts the values that the logarithmic axis of f - F* cannot show.
func TestPlotLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.csv")
	runJSON(t, "-f", "sphere", "-d", "3", "-target", "1e-3", "-log", log)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"plot", log, "-fopt", "1e-2"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	svg := checkSVG(t, filepath.Join(dir, "log.svg"))
	if !strings.Contains(svg, ">evaluated f − f*<") {
		t.Error("the SVG has no series of the evaluated values")
	}
	if !regexp.MustCompile(`^hees plot: warning: .*log.csv: [1-9][0-9]* values are at or below -fopt 0.01 `).MatchString(stderr.String()) {
		t.Errorf("stderr %q, want a warning", stderr.String())
	}
}

// TestPlotRefusesOwnInput: the figure may not replace the trace it is
// drawn from, by -o or by the default name of a trace that ends in .svg
// (before: "wrote", exit 0, and the trace was gone).
func TestPlotRefusesOwnInput(t *testing.T) {
	dir := t.TempDir()
	writeTestTrace(t, dir)
	in := filepath.Join(dir, "trace.csv")
	named := filepath.Join(dir, "tr.svg")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(named, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"plot", "-o", in, in},
		{"plot", "-o", dir + "/./trace.csv", in},
		{"plot", named},
		{"plot", "-o", link, in},
	} {
		code, out, errOut := cli("", args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "is the trace file itself") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	for _, path := range []string{in, named} {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s changed (%v)", path, err)
		}
	}
}
