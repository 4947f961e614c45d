package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/bench"
	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/golden"
	"github.com/hees-dev/hees/internal/version"
	"github.com/hees-dev/hees/objectives"
)

// The tiny grid of the tests: the three strategies of the BBOB results with
// IPOP, hees and cmaes also with BIPOP, two functions (the sphere, solved, and the separable Rastrigin,
// where IPOP restarts and some runs fail), d = 2, two instances, a budget of
// 500·d.
var benchGrid = []string{"-algo", "hees,cmaes,cma11", "-restarts", "ipop,bipop", "-functions", "1,3", "-dims", "2",
	"-instances", "1-2", "-budget", "500"}

// benchCLI runs hees bench on the tiny grid with the given workers and
// output directory, and fails the test unless it succeeds silently on
// standard error.
func benchCLI(t *testing.T, out string, workers int, extra ...string) string {
	t.Helper()
	args := append([]string{"bench"}, benchGrid...)
	args = append(args, "-workers", strconv.Itoa(workers), "-out", out)
	args = append(args, extra...)
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
		t.Fatalf("hees %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// readTree returns every file under dir by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestBenchEndToEnd runs the tiny grid and checks summary.csv against
// testdata/bench_summary.golden (go test -update rewrites it), the COCO
// files against the documented format, and the ECDF plot as XML.
func TestBenchEndToEnd(t *testing.T) {
	out := t.TempDir()
	stdout := benchCLI(t, out, 2)
	for _, want := range []string{"wrote COCO data of ipop-hees", "wrote COCO data of ipop-cmaes", "wrote COCO data of ipop-cma11",
		"wrote COCO data of bipop-hees", "wrote COCO data of bipop-cmaes",
		"summary.csv", "ecdf_d2.svg", "ert_ratio_d2.md", "best2009_ratio_d2.md", "best09-16_ratio_d2.md",
		"ipop-hees    d=2 ", "runs reached 1e-8",
		"\nipop-hees    d=2   ERT/ERT_best2009 at 1e-7: geometric mean ", "\nbipop-cmaes  d=2   ERT/ERT_best09-16 at 1e-7: geometric mean "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	files := readTree(t, out)

	summary := files["summary.csv"]
	golden.Check(t, filepath.Join("testdata", "bench_summary.golden"), summary, *update)

	finals := map[string]float64{} // "label f i" -> final Δ of the .info file
	for _, label := range []string{"ipop-hees", "ipop-cmaes", "ipop-cma11", "bipop-hees", "bipop-cmaes"} {
		for _, f := range []int{1, 3} {
			checkCocoFiles(t, files, label, f, finals)
		}
	}
	// The summary's successes agree with the final Δ of the .info files.
	for _, line := range strings.Split(strings.TrimSpace(string(summary)), "\n")[1:] {
		cols := strings.Split(line, ",")
		solved := 0
		for i := 1; i <= 2; i++ {
			if finals[fmt.Sprintf("%s %s %d", cols[0], cols[1], i)] <= 1e-8 {
				solved++
			}
		}
		if cols[4] != strconv.Itoa(solved) {
			t.Errorf("summary line %q: %s successes, the .info files show %d", line, cols[4], solved)
		}
	}

	svg := files["ecdf_d2.svg"]
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("ecdf_d2.svg is not XML: %v", err)
		}
	}
	for _, want := range []string{"<svg", "ipop-hees", "ipop-cmaes", "ipop-cma11", "d = 2", "log10(evaluations / d)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("ecdf_d2.svg lacks %q", want)
		}
	}
	ratio := string(files["ert_ratio_d2.md"])
	for _, want := range []string{"# ERT ratio ipop-hees / ipop-cmaes, d = 2\n", "| f | 1e1 | 1e-1 | 1e-3 | 1e-5 | 1e-8 |\n", "\n| 1 | ", "\n| 3 | ",
		"\n# ERT ratio bipop-hees / bipop-cmaes, d = 2\n"} {
		if !strings.Contains(ratio, want) {
			t.Errorf("ert_ratio_d2.md lacks %q:\n%s", want, ratio)
		}
	}
	best := string(files["best2009_ratio_d2.md"])
	for _, want := range []string{"# ERT / ERT_best2009 at 1e-7, d = 2\n", "| f | ipop-hees | bipop-hees | ipop-cmaes | bipop-cmaes | ipop-cma11 |\n",
		"\n| 1 | ", "\n| 3 | ", "\n| geometric mean | "} {
		if !strings.Contains(best, want) {
			t.Errorf("best2009_ratio_d2.md lacks %q:\n%s", want, best)
		}
	}
	if len(files["runs/ipop-hees/f3_d2_i2.txt"]) == 0 {
		t.Error("no record of ipop-hees f3 d2 i2 in runs/")
	}
}

// checkCocoFiles checks the .info, .dat, .tdat and .rdat files of one
// strategy and function of the tiny grid: the documented header lines, 5 +
// d columns of numbers, the first .dat line at evaluation 1 and the last
// .tdat line at the run's evaluations. It stores the final Δ of each run in
// finals.
func checkCocoFiles(t *testing.T, files map[string][]byte, label string, f int, finals map[string]float64) {
	t.Helper()
	info := string(files[fmt.Sprintf("%s/bbobexp_f%d.info", label, f)])
	lines := strings.Split(strings.TrimSuffix(info, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%s f%d: .info has %d lines, want 3 (one dimension):\n%s", label, f, len(lines), info)
	}
	wantHeader := fmt.Sprintf("suite = 'bbob', funcId = %d, DIM = 2, Precision = 1.000e-08, algId = '%s', coco_version = '%s', logger = 'bbob', data_format = 'bbob-new2', settings = 'algorithm=%s sigma0=2 budget=500*d'",
		f, label, version.String(), label)
	if lines[0] != wantHeader {
		t.Errorf(".info header\n%s\nwant\n%s", lines[0], wantHeader)
	}
	if !strings.HasPrefix(lines[1], "% ") {
		t.Errorf(".info comment %q does not start with %%", lines[1])
	}
	base := fmt.Sprintf("data_f%d/bbobexp_f%d_DIM2", f, f)
	items := strings.Split(lines[2], ", ")
	if len(items) != 3 || items[0] != base+".dat" {
		t.Fatalf(".info data line %q: want %s.dat and two runs", lines[2], base)
	}
	var evals [2]int
	for i, item := range items[1:] {
		inst, rest, _ := strings.Cut(item, ":")
		n, final, _ := strings.Cut(rest, "|")
		var err1, err2 error
		evals[i], err1 = strconv.Atoi(n)
		fin, err2 := strconv.ParseFloat(final, 64)
		if inst != strconv.Itoa(i+1) || err1 != nil || err2 != nil || evals[i] < 1 || evals[i] > 1000 {
			t.Errorf(".info item %q: want instance %d, evaluations in 1..1000 and a final Δ", item, i+1)
		}
		finals[fmt.Sprintf("%s %d %d", label, f, i+1)] = fin
	}
	for _, ext := range []string{".dat", ".tdat", ".rdat"} {
		text := string(files[label+"/"+base+ext])
		var headers int
		var rows [][]string
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if strings.HasPrefix(line, "%") {
				p, err := objectives.NewBBOB(f, headers+1, 2)
				if err != nil {
					t.Fatal(err)
				}
				_, fopt, _ := p.Optimum()
				want := fmt.Sprintf("%% f evaluations | g evaluations | best noise-free fitness - Fopt (%13.12e) + sum g_i+ | measured fitness | best measured fitness or single-digit g-values | x1 | x2...", fopt)
				if line != want {
					t.Errorf("%s%s header\n%s\nwant\n%s", base, ext, line, want)
				}
				if headers > 0 && ext != ".rdat" && len(rows) == 0 {
					t.Errorf("%s%s: run %d has no lines", base, ext, headers)
				}
				if headers > 0 && ext == ".tdat" {
					checkLastEvals(t, rows, evals[headers-1], base)
				}
				headers++
				rows = nil
				continue
			}
			fields := strings.Fields(line)
			if len(fields) != 5+2 {
				t.Errorf("%s%s: line %q has %d columns, want 7", base, ext, line, len(fields))
			}
			for _, v := range fields {
				if x, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s%s: %q in %q is not a finite number", base, ext, v, line)
				}
			}
			if ext == ".dat" && len(rows) == 0 && fields[0] != "1" {
				t.Errorf("%s.dat: a run starts at evaluation %s, want 1", base, fields[0])
			}
			rows = append(rows, fields)
		}
		if headers != 2 {
			t.Errorf("%s%s: %d runs, want 2", base, ext, headers)
		}
		if ext == ".tdat" {
			checkLastEvals(t, rows, evals[1], base)
		}
	}
}

// checkLastEvals checks that the last .tdat line of a run is at its number
// of evaluations.
func checkLastEvals(t *testing.T, rows [][]string, evals int, base string) {
	t.Helper()
	if len(rows) == 0 || rows[len(rows)-1][0] != strconv.Itoa(evals) {
		t.Errorf("%s.tdat: a run's last line is not at its %d evaluations", base, evals)
	}
}

// TestBenchWorkersIdentical checks that 1 and 3 workers write the same
// bytes in every file, the run records included.
func TestBenchWorkersIdentical(t *testing.T) {
	one, three := t.TempDir(), t.TempDir()
	benchCLI(t, one, 1)
	benchCLI(t, three, 3)
	a, b := readTree(t, one), readTree(t, three)
	if len(a) != len(b) {
		t.Errorf("%d files with 1 worker, %d with 3", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between 1 and 3 workers", path)
		}
	}
}

// TestBenchResume removes one run record, ages the others and runs the
// bench again: only the missing run is redone (the others keep their
// modification time), and every output is the same as before. A bench with
// another budget in the same directory is refused.
func TestBenchResume(t *testing.T) {
	out := t.TempDir()
	benchCLI(t, out, 2)
	before := readTree(t, out)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	missing := filepath.Join(out, "runs", "ipop-hees", "f3_d2_i2.txt")
	var kept []string
	for path := range before {
		if strings.HasPrefix(path, "runs/") && path != "runs/.lock" {
			full := filepath.Join(out, filepath.FromSlash(path))
			if full == missing {
				continue
			}
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
			kept = append(kept, full)
		}
	}
	if len(kept) != 19 {
		t.Fatalf("%d records besides the removed one, want 19", len(kept))
	}
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	benchCLI(t, out, 2)
	for _, path := range kept {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !info.ModTime().Equal(old) {
			t.Errorf("%s was rewritten by the resumed bench", path)
		}
	}
	after := readTree(t, out)
	for path, data := range before {
		if !bytes.Equal(data, after[path]) {
			t.Errorf("%s differs after the resumed bench", path)
		}
	}

	var stdout, stderr bytes.Buffer
	args := append([]string{"bench"}, benchGrid...)
	args = append(args, "-budget", "600", "-out", out)
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "made with other settings") || !strings.Contains(stderr.String(), "remove "+filepath.Join(out, "runs")) {
		t.Errorf("bench with another budget: exit %d, stderr %q; want exit 1 naming the other settings", code, stderr.String())
	}
}

// newTestBench builds a bench from command-line arguments as runBench does.
func newTestBench(t *testing.T, args ...string) *benchSettings {
	t.Helper()
	var b benchSettings
	fs, lists := benchFlags(&b)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := b.check(lists); err != nil {
		t.Fatal(err)
	}
	return &b
}

// TestBenchInterrupt stops benches by a cancel, before the start and after
// a few milliseconds: the command fails with a message that says how to
// resume, keeps only whole records, and the resumed bench writes the same
// files as one that was never stopped.
func TestBenchInterrupt(t *testing.T) {
	grid := []string{"-algo", "hees,cma11", "-restarts", "ipop", "-functions", "1-4", "-dims", "2,3",
		"-instances", "1-3", "-budget", "2000", "-workers", "2"}
	reference := t.TempDir()
	newTestBench(t, append(grid, "-out", reference)...).run(context.Background(), io.Discard, io.Discard)

	out := t.TempDir()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	code := newTestBench(t, append(grid, "-out", out)...).run(canceled, io.Discard, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "interrupted with 0 of 48 runs finished") {
		t.Errorf("canceled before the start: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted bench wrote summary.csv (%v)", err)
	}

	timed, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	stderr.Reset()
	code = newTestBench(t, append(grid, "-out", out)...).run(timed, io.Discard, &stderr)
	if code != exitOK && (code != exitFailure || !strings.Contains(stderr.String(), "run the same command again to resume")) {
		t.Errorf("canceled while running: exit %d, stderr %q", code, stderr.String())
	}
	if code := newTestBench(t, append(grid, "-out", out)...).run(context.Background(), io.Discard, io.Discard); code != exitOK {
		t.Fatalf("resumed bench: exit %d", code)
	}
	want, got := readTree(t, reference), readTree(t, out)
	for path, data := range want {
		if !bytes.Equal(data, got[path]) {
			t.Errorf("%s differs between the interrupted and resumed bench and the reference", path)
		}
	}
}

// TestBenchBounds runs a bench with -lower and -upper, one number and d
// numbers: the runs' records keep the box, expanded to d numbers, and
// every logged point lies in it (the library's bench tests check every
// evaluation).
func TestBenchBounds(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "-algo", "hees", "-functions", "1", "-dims", "2", "-instances", "1", "-budget", "100",
		"-lower", "0.5,0.25", "-upper", "1", "-q", "-out", out}
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("hees %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
	}
	record := readFile(t, filepath.Join(out, "runs", "hees", "f1_d2_i1.txt"))
	if !strings.Contains(string(record), "\nlower 0x1p-01,0x1p-02\nupper 0x1p+00,0x1p+00\n") {
		t.Errorf("the record does not keep the box:\n%s", record)
	}
	info, err := os.ReadFile(filepath.Join(out, "hees", "bbobexp_f1.info"))
	if err != nil || !strings.Contains(string(info), "bounds=0.5;0.25:1") {
		t.Errorf("the .info file does not name the box (%v):\n%s", err, info)
	}
}

// TestBenchUsageErrors checks the refused command lines.
func TestBenchUsageErrors(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-functions", "1"}, exitUsage, "-out is required"},
		{[]string{"-functions", "0-3", "-out", out}, exitUsage, `-functions: "0-3" is outside 1-24`},
		{[]string{"-functions", "25", "-out", out}, exitUsage, `"25" is outside 1-24`},
		{[]string{"-functions", "3-1", "-out", out}, exitUsage, `"3-1" is not a number or a range`},
		{[]string{"-functions", "1,x", "-out", out}, exitUsage, `"x" is not a number`},
		{[]string{"-functions", "1-3,2", "-out", out}, exitUsage, "2 is given twice"},
		{[]string{"-dims", "1,2", "-out", out}, exitUsage, `-dims: "1" is outside 2-40000`},
		{[]string{"-dims", "2001", "-out", out}, exitUsage, `-dims: bbob/f1/i1 supports dimensions up to 2000, got 2001`},
		{[]string{"-suite", "bbob-mixint", "-dims", "7", "-out", out}, exitUsage, "-dims: "},
		{[]string{"-suite", "bbob-noisy", "-functions", "1-3", "-out", out}, exitUsage, `"1-3" is outside 101-130`},
		{[]string{"-instances", "0", "-out", out}, exitUsage, `-instances: "0" is outside`},
		{[]string{"-algo", "nope", "-out", out}, exitUsage, `unknown strategy "nope"`},
		{[]string{"-algo", "hees,hees", "-out", out}, exitUsage, "hees is given twice"},
		{[]string{"-suite", "bbob-biobj", "-out", out}, exitUsage, "want one of bbob, bbob-largescale, bbob-mixint, bbob-noisy"},
		{[]string{"-restarts", "lpop", "-out", out}, exitUsage, `-restarts "lpop": want one of none, ipop, bipop`},
		{[]string{"-restarts", "ipop,ipop", "-out", out}, exitUsage, "ipop is given twice"},
		{[]string{"-algo", "cma11", "-restarts", "bipop", "-out", out}, exitFailure, "no strategy of cma11 supports the restarts [bipop]"},
		{[]string{"-budget", "0", "-out", out}, exitUsage, "-budget 0"},
		{[]string{"-budget", "NaN", "-out", out}, exitUsage, "-budget NaN"},
		// Below 1/d, int(Budget d) was 0, no budget at all: runs without end.
		{[]string{"-budget", "0.4", "-dims", "2", "-out", out}, exitUsage, "-budget 0.4 gives no evaluation in d = 2: want at least 1/d"},
		{[]string{"-budget", "1e-300", "-dims", "2,40", "-out", out}, exitUsage, "-budget 1e-300 gives no evaluation in d = 2"},
		{[]string{"-sigma0", "-1", "-out", out}, exitUsage, "-sigma0 -1"},
		{[]string{"-workers", "-1", "-out", out}, exitUsage, "-workers -1"},
		{[]string{"-q", "-v", "-out", out}, exitUsage, "exclude each other"},
		{[]string{"-lower", "1,2", "-out", out}, exitUsage, "-lower/-upper: a list of d numbers needs a single -dims"},
		{[]string{"-dims", "3", "-lower", "1,2", "-out", out}, exitUsage, "-lower has 2 numbers, want 1 or d = 3"},
		{[]string{"-lower", "x", "-out", out}, exitUsage, `-lower: "x" is not a number`},
		{[]string{"-lower", "2", "-upper", "1", "-out", out}, exitUsage, "-lower/-upper: Bounds: Lower[0] = 2 is not below Upper[0] = 1"},
		{[]string{"-out", out, "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"-algo", "hees", "-functions", "1", "-dims", "2", "-instances", "1", "-budget", "1", "-out", out},
			exitFailure, "smaller than the first generation"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench"}, c.args...), strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("hees bench %s: exit %d, stderr %q; want exit %d and one line with %q",
				strings.Join(c.args, " "), code, stderr.String(), c.code, c.want)
		}
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"bench"}, benchGrid...)
	if code := run(append(args, "-v", "-out", out), strings.NewReader(""), &stdout, &stderr); code != exitOK ||
		!strings.Contains(stderr.String(), "bench: 20/20 runs") {
		t.Errorf("hees bench -v: exit %d, stderr %q; want a last progress line", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"bench", "-h"}, strings.NewReader(""), &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "FNV-1a-64") || !strings.Contains(stdout.String(), "-budget B") {
		t.Errorf("hees bench -h: exit %d, stdout %q", code, stdout.String())
	}
}

// TestPopulationFlagsAgree: hees run (and init, which shares its flags)
// and hees bench accept -pairs and -lambda for the same strategies, those
// whose population the flag sets (es.PopulationParam), and refuse them for
// the others with the same message.
func TestPopulationFlagsAgree(t *testing.T) {
	for _, name := range es.Names() {
		param, err := es.PopulationParam(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			flag          string
			pairs, lambda int
			want          es.Population
		}{{"-pairs", 5, 0, es.PopulationPairs}, {"-lambda", 0, 6, es.PopulationLambda}} {
			sf := strategyFlags{algo: name, restarts: "none", sigma0: 2, pairs: c.pairs, lambda: c.lambda}
			_, runErr := sf.config(3, 3)
			b := benchSettings{Grid: bench.Grid{Budget: 1e4, Sigma0: 2, Pairs: c.pairs, Lambda: c.lambda, Out: "out"}}
			benchErr := b.check(&benchLists{algos: name, suite: "bbob", functions: "1", dims: "3", instances: "1", restarts: "none"})
			if accepted := param == c.want; (runErr == nil) != accepted || (benchErr == nil) != accepted {
				t.Errorf("%s %s: hees run says %v, hees bench %v; want both to accept it: %v", name, c.flag, runErr, benchErr, accepted)
			}
			if runErr != nil && benchErr != nil && runErr.Error() != benchErr.Error() {
				t.Errorf("%s %s: hees run says %q, hees bench %q", name, c.flag, runErr, benchErr)
			}
		}
	}
}
