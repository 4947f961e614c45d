package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/experiment"
	"github.com/hees-dev/hees/objectives"
)

// TestExperimentGolden pins the help and the error lines of bad input.
func TestExperimentGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"experiment_help", []string{"experiment", "-h"}},
		{"experiment_help_via_help", []string{"help", "experiment"}},
		{"experiment_fig2_help", []string{"experiment", "fig2", "-h"}},
		{"experiment_no_name", []string{"experiment"}},
		{"experiment_unknown", []string{"experiment", "fig3"}},
		{"experiment_unknown_flag", []string{"experiment", "fig2", "-budget", "10"}},
		{"experiment_bad_dim", []string{"experiment", "condition", "-d", "1"}},
		{"experiment_non_number", []string{"experiment", "fig2", "-runs", "many"}},
		{"experiment_bad_runs", []string{"experiment", "condition", "-runs", "0"}},
		{"experiment_bad_iters", []string{"experiment", "fig2", "-iters", "0"}},
		{"experiment_bad_every", []string{"experiment", "fig2", "-every", "-3"}},
		{"experiment_bad_budget", []string{"experiment", "condition", "-budget", "0"}},
		{"experiment_bad_target", []string{"experiment", "condition", "-target", "NaN"}},
		{"experiment_bad_workers", []string{"experiment", "fig2", "-workers", "-1"}},
		{"experiment_extra_argument", []string{"experiment", "fig2", "out"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc.name, tc.args, "") })
	}
}

// readCSV parses a CSV file and checks its header.
func readCSV(t *testing.T, path, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if first != header {
		t.Fatalf("%s: header %q, want %q", path, first, header)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows[1:]
}

// checkSVG checks that path is an XML document with an <svg> root and
// returns its text.
func checkSVG(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root struct{ XMLName xml.Name }
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s is not XML: %v", path, err)
	}
	if root.XMLName.Local != "svg" {
		t.Fatalf("%s: root element <%s>, want <svg>", path, root.XMLName.Local)
	}
	// encoding/xml reads the first element only; decode every token too.
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return string(data)
}

// runExperimentIn runs hees experiment with args and -out dir, and fails
// the test unless it succeeds.
func runExperimentIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"experiment"}, append(args, "-out", dir)...)
	if code := run(args, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("hees %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// parseFloatCell parses a CSV cell written by formatCSVFloat.
func parseFloatCell(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFig2 runs a small Figure 2 and checks its files, the initial
// covariance, the HE-ES's adaptation, and that the bytes do not depend on
// the number of workers.
func TestFig2(t *testing.T) {
	const d, iters, every = 4, 200, 7
	one, three := t.TempDir(), t.TempDir()
	args := []string{"fig2", "-d", strconv.Itoa(d), "-runs", "3", "-iters", strconv.Itoa(iters), "-every", strconv.Itoa(every)}
	out := runExperimentIn(t, one, append(args, "-workers", "1")...)
	runExperimentIn(t, three, append(args, "-workers", "3")...)
	sameOutputs(t, one, three, "fig2.csv", "fig2.svg")
	if !strings.Contains(out, "wrote "+filepath.Join(one, "fig2.svg")) {
		t.Errorf("stdout does not report the SVG:\n%s", out)
	}
	checkSVG(t, filepath.Join(one, "fig2.svg"))

	rows := readCSV(t, filepath.Join(one, "fig2.csv"),
		"strategy,iteration,evals,median_cond_C_minus_1,median_normtrace_C_minus_d,median_f_best")
	points := iters/every + 2 // 0, 7, ..., 196 and 200
	if len(rows) != 2*points {
		t.Fatalf("%d rows, want %d", len(rows), 2*points)
	}
	// C0 = diag(1e3, 10, 0.1, 1e-3) for d = 4.
	wantCond, wantTrace := 1e6-1, 1e3+10+0.1+1e-3-4
	for si, name := range []string{"hees14", "cma11"} {
		first, last := rows[si*points], rows[(si+1)*points-1]
		if first[0] != name || first[1] != "0" || last[1] != strconv.Itoa(iters) {
			t.Fatalf("rows of %s: first %q, last %q", name, first, last)
		}
		if got := parseFloatCell(t, first[3]); math.Abs(got-wantCond) > 1e-9*wantCond {
			t.Errorf("%s: cond(C0) - 1 = %v, want %v", name, got, wantCond)
		}
		if got := parseFloatCell(t, first[4]); math.Abs(got-wantTrace) > 1e-12*wantTrace {
			t.Errorf("%s: tr(C0) - d = %v, want %v", name, got, wantTrace)
		}
		if first[2] != "1" || first[5] != "4" { // f(1, 1, 1, 1) = 4 on the sphere
			t.Errorf("%s at iteration 0: evals %s, best f %s; want 1 and 4", name, first[2], first[5])
		}
		wantEvals := 1 + iters
		if name == "hees14" {
			wantEvals = 1 + 4*iters
		}
		if last[2] != strconv.Itoa(wantEvals) {
			t.Errorf("%s: %s evaluations after %d iterations, want %d", name, last[2], iters, wantEvals)
		}
	}
	// The (1+4)-HE-ES's update contracts the condition number fast: after
	// 200 iterations in d = 4 it is far below the initial 1e6.
	if got := parseFloatCell(t, rows[points-1][3]); !(got < 1) {
		t.Errorf("hees14: median cond(C) - 1 after %d iterations is %v, want below 1", iters, got)
	}
}

// TestCondition runs a small condition experiment and checks its files,
// each run against es.Minimize with the same settings, and that the bytes
// do not depend on the number of workers.
func TestCondition(t *testing.T) {
	const d, runs, budget = 3, 3, 4000
	one, three := t.TempDir(), t.TempDir()
	args := []string{"condition", "-d", strconv.Itoa(d), "-runs", strconv.Itoa(runs), "-budget", strconv.Itoa(budget)}
	runExperimentIn(t, one, append(args, "-workers", "1")...)
	runExperimentIn(t, three, append(args, "-workers", "3")...)
	sameOutputs(t, one, three, "condition.csv", "condition_summary.csv", "condition.svg")
	svg := checkSVG(t, filepath.Join(one, "condition.svg"))
	for _, name := range experiment.ConditionStrategies {
		if !strings.Contains(svg, ">"+name+"<") {
			t.Errorf("the SVG has no legend entry %q", name)
		}
	}

	rows := readCSV(t, filepath.Join(one, "condition.csv"), "strategy,cond,run,seed,evals,reached,capped,stop,f_best")
	if len(rows) != len(experiment.ConditionStrategies)*len(experiment.ConditionNumbers)*runs {
		t.Fatalf("%d rows, want %d", len(rows), len(experiment.ConditionStrategies)*len(experiment.ConditionNumbers)*runs)
	}
	capped := 0
	for _, row := range rows {
		name, cond, seed := row[0], parseFloatCell(t, row[1]), parseFloatCell(t, row[3])
		evals, fBest := parseFloatCell(t, row[4]), parseFloatCell(t, row[8])
		reached, isCapped := row[5] == "true", row[6] == "true"
		if reached == isCapped {
			t.Errorf("%q: reached and capped must differ here (no other stop is expected)", row)
		}
		if isCapped {
			capped++
		}
		// The same run through the library's driver.
		p, err := objectives.NewEllipsoid(d, cond)
		if err != nil {
			t.Fatal(err)
		}
		s, err := es.New(name, es.Config{Dim: d, Seed: uint64(seed), Sigma0: 2, Box: 3, TolFun: -1})
		if err != nil {
			t.Fatal(err)
		}
		target := 1e-8
		res, err := es.Minimize(context.Background(), es.Func(p.Eval), s, es.Options{MaxEvals: budget, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		if res.F != fBest || string(res.Reason) != row[7] {
			t.Errorf("%q: library run ends with f = %v (%s)", row, res.F, res.Reason)
		}
		switch {
		case reached:
			// Counted to the first value <= target in row order; the driver
			// counts whole generations.
			if fBest > target || evals > float64(res.Evals) || evals <= float64(res.Evals-s.PopulationSize()) {
				t.Errorf("%q: library run took %d evaluations (lambda %d)", row, res.Evals, s.PopulationSize())
			}
		default:
			if evals != float64(res.Evals) || evals > budget || fBest <= target {
				t.Errorf("%q: library run took %d evaluations", row, res.Evals)
			}
		}
	}
	// The (1+1)-ES needs about cond times more evaluations on the
	// ellipsoid than on the sphere: the budget caps it at 1e6.
	if capped == 0 {
		t.Error("no run was capped: the test wants es11 at condition 1e6 to hit the budget")
	}

	summary := readCSV(t, filepath.Join(one, "condition_summary.csv"),
		"strategy,cond,runs,reached,median_evals,min_evals,max_evals,budget")
	if len(summary) != len(experiment.ConditionStrategies)*len(experiment.ConditionNumbers) {
		t.Fatalf("%d summary rows, want %d", len(summary), len(experiment.ConditionStrategies)*len(experiment.ConditionNumbers))
	}
	for i, row := range summary {
		own := rows[i*runs : (i+1)*runs]
		var evals []float64
		reached := 0
		for _, r := range own {
			if r[0] != row[0] || r[1] != row[1] {
				t.Fatalf("summary row %q does not match run row %q", row, r)
			}
			v := math.Inf(1)
			if r[5] == "true" {
				v = parseFloatCell(t, r[4])
				reached++
			}
			evals = append(evals, v)
		}
		if row[3] != strconv.Itoa(reached) {
			t.Errorf("summary %q: reached %s, counted %d", row, row[3], reached)
		}
		median := experiment.Median(evals)
		if got := parseFloatCell(t, row[4]); got != median || parseFloatCell(t, row[5]) != evals[0] || parseFloatCell(t, row[6]) != evals[runs-1] {
			t.Errorf("summary %q: want median %v, min %v, max %v", row, median, evals[0], evals[runs-1])
		}
	}
}

// sameOutputs checks that the named files are identical in the output
// directories of a run with -workers 1 (one) and -workers 3 (three).
func sameOutputs(t *testing.T, one, three string, names ...string) {
	t.Helper()
	for _, name := range names {
		a, err := os.ReadFile(filepath.Join(one, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(three, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between -workers 1 and -workers 3", name)
		}
	}
}

// TestExperimentRefusesBeforeRunning checks sizes that would not fit and
// an -out that cannot be a directory: each is a one-line usage error
// before any run (before: a runtime out-of-memory trace, memory without
// bound, and an error only after the whole experiment had run).
func TestExperimentRefusesBeforeRunning(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fig2", "-d", "100000", "-runs", "1", "-iters", "1", "-workers", "1"}, "would need about 671 GiB of memory, more than 8 GiB: lower -d or -workers"},
		{[]string{"condition", "-d", "20000", "-runs", "1", "-workers", "1"}, "would need about 17.9 GiB of memory"},
		{[]string{"fig2", "-d", "2", "-runs", "1", "-iters", "9223372036854775807"}, "records more than 1000000 iterations per run (raise -every)"},
		{[]string{"fig2", "-d", "2", "-runs", "1", "-iters", "1", "-out", file}, "-out " + file + ": mkdir " + file + ": not a directory"},
		{[]string{"condition", "-d", "2", "-runs", "1", "-budget", "10", "-out", filepath.Join(file, "sub")}, "not a directory"},
	} {
		code, out, errOut := cli("", append([]string{"experiment"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("experiment %q: exit %d, stdout %q, stderr %q; want %d, no output and %q", c.args, code, out, errOut, exitUsage, c.want)
		}
	}
}
