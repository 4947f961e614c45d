package coco

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// geometricRun is a run of n evaluations on p whose values fall
// geometrically, f_i = fopt + 100·ratio^i (i from 0), with a restart
// signalled before evaluation restartAt (0: none).
func geometricRun(t *testing.T, p Problem, n int, ratio float64, restartAt int) *Run {
	t.Helper()
	evals := make([]evaluation, n)
	for i := range evals {
		x := make([]float64, p.Dim)
		for j := range x {
			x[j] = float64(i+j) / 7
		}
		evals[i] = evaluation{x, p.Fopt + 100*math.Pow(ratio, float64(i))}
	}
	if restartAt > 0 {
		return observe(t, p, evals, restartAt)
	}
	return observe(t, p, evals)
}

// infoEntry is one three-line entry of an .info file as cocopp reads it.
type infoEntry struct {
	header   map[string]string // key = value, quotes removed from strings
	comment  string
	dataFile string
	runs     []infoRun
}

type infoRun struct {
	instance, evals int
	final           float64
}

// readInfo parses an .info file the way cocopp's DataSetList does: blank
// lines are skipped, then entries of three lines (a header of "key = value"
// pairs separated by ", ", a comment starting with "%", and a data line of
// ", "-separated parts: the .dat file and "instance:evals|final" items).
func readInfo(t *testing.T, text string) []infoEntry {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines)%3 != 0 {
		t.Fatalf(".info has %d non-blank lines, not entries of 3:\n%s", len(lines), text)
	}
	var entries []infoEntry
	for i := 0; i < len(lines); i += 3 {
		e := infoEntry{header: map[string]string{}, comment: lines[i+1]}
		for _, pair := range strings.Split(lines[i], ", ") {
			key, value, ok := strings.Cut(pair, " = ")
			if !ok {
				t.Fatalf("header %q: %q is not key = value", lines[i], pair)
			}
			if strings.HasPrefix(value, "'") {
				if !strings.HasSuffix(value, "'") || len(value) < 2 {
					t.Fatalf("header %q: unterminated string %q", lines[i], value)
				}
				value = value[1 : len(value)-1]
			}
			e.header[key] = value
		}
		if !strings.HasPrefix(e.comment, "%") {
			t.Fatalf("comment line %q does not start with %%", e.comment)
		}
		for j, part := range strings.Split(lines[i+2], ", ") {
			if j == 0 {
				if !strings.HasSuffix(part, ".dat") {
					t.Fatalf("data line %q does not start with a .dat file", lines[i+2])
				}
				e.dataFile = part
				continue
			}
			inst, rest, ok1 := strings.Cut(part, ":")
			evals, final, ok2 := strings.Cut(rest, "|")
			var r infoRun
			var err1, err2, err3 error
			r.instance, err1 = strconv.Atoi(inst)
			r.evals, err2 = strconv.Atoi(evals)
			r.final, err3 = strconv.ParseFloat(final, 64)
			if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("data line item %q is not instance:evals|final", part)
			}
			e.runs = append(e.runs, r)
		}
		entries = append(entries, e)
	}
	return entries
}

// readData splits a .dat/.tdat/.rdat file into runs at header lines (lines
// starting with %), as cocopp's readalign.split does, and parses every data
// line as numbers, checking its number of columns.
func readData(t *testing.T, name, text string, dim int) (headers []string, runs [][][]float64) {
	t.Helper()
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Errorf("%s does not end with a newline", name)
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.HasPrefix(line, "%") {
			headers = append(headers, line)
			runs = append(runs, nil)
			continue
		}
		if len(runs) == 0 {
			t.Fatalf("%s: data line %q before any header", name, line)
		}
		fields := strings.Fields(line)
		want := 5
		if dim < 7 {
			want += dim
		}
		if len(fields) != want {
			t.Errorf("%s: line %q has %d columns, want %d", name, line, len(fields), want)
		}
		row := make([]float64, len(fields))
		for i, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: column %d of %q is not a finite number", name, i+1, line)
			}
			row[i] = v
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], row)
	}
	return headers, runs
}

// TestFilesFormat writes two functions × two dimensions × two instances
// (given out of order) and reads the files back as cocopp does, checking
// the documented names, header lines, columns and the agreement between
// the .info items and the data files.
func TestFilesFormat(t *testing.T) {
	var runs []*Run
	fopts := map[[2]int]float64{{1, 1}: 79.48, {1, 2}: -1.5, {24, 1}: 102.61, {24, 2}: 0}
	for _, f := range []int{24, 1} {
		for _, d := range []int{3, 2} {
			for _, i := range []int{2, 1} {
				p := Problem{Function: f, Instance: i, Dim: d, Fopt: fopts[[2]int{f, i}]}
				// Instance 1 solves (0.5^n reaches 1e-10); instance 2 stops at 0.9^40.
				if i == 1 {
					runs = append(runs, geometricRun(t, p, 40+d, 0.5, 0))
				} else {
					runs = append(runs, geometricRun(t, p, 40, 0.9, 17))
				}
			}
		}
	}
	files, err := FilesWithHeader("ipop-hees", "hees bench test", Header{}, runs)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	var paths []string
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
		paths = append(paths, f.Path)
	}
	wantPaths := []string{
		"data_f1/bbobexp_f1_DIM2.dat", "data_f1/bbobexp_f1_DIM2.tdat", "data_f1/bbobexp_f1_DIM2.rdat",
		"data_f1/bbobexp_f1_DIM3.dat", "data_f1/bbobexp_f1_DIM3.tdat", "data_f1/bbobexp_f1_DIM3.rdat",
		"bbobexp_f1.info",
		"data_f24/bbobexp_f24_DIM2.dat", "data_f24/bbobexp_f24_DIM2.tdat", "data_f24/bbobexp_f24_DIM2.rdat",
		"data_f24/bbobexp_f24_DIM3.dat", "data_f24/bbobexp_f24_DIM3.tdat", "data_f24/bbobexp_f24_DIM3.rdat",
		"bbobexp_f24.info",
	}
	if !slices.Equal(paths, wantPaths) {
		t.Fatalf("paths %v, want %v", paths, wantPaths)
	}

	for _, f := range []int{1, 24} {
		entries := readInfo(t, byPath[fmt.Sprintf("bbobexp_f%d.info", f)])
		if len(entries) != 2 {
			t.Fatalf("f%d: %d entries, want one per dimension", f, len(entries))
		}
		for k, e := range entries {
			d := []int{2, 3}[k]
			want := map[string]string{
				"suite": "bbob", "funcId": strconv.Itoa(f), "DIM": strconv.Itoa(d), "Precision": "1.000e-08",
				"algId": "ipop-hees", "coco_version": "", "logger": "bbob", "data_format": "bbob-new2", "settings": "",
			}
			if fmt.Sprint(e.header) != fmt.Sprint(want) {
				t.Errorf("f%d d=%d header %v, want %v", f, d, e.header, want)
			}
			if e.comment != "% hees bench test" {
				t.Errorf("comment %q", e.comment)
			}
			wantFile := fmt.Sprintf("data_f%d/bbobexp_f%d_DIM%d.dat", f, f, d)
			if e.dataFile != wantFile {
				t.Errorf("data file %q, want %q", e.dataFile, wantFile)
			}
			if len(e.runs) != 2 || e.runs[0].instance != 1 || e.runs[1].instance != 2 {
				t.Fatalf("f%d d=%d runs %+v, want instances 1 and 2", f, d, e.runs)
			}
			checkDataFiles(t, byPath, e, f, d, fopts)
		}
	}
}

// checkDataFiles checks the .dat, .tdat and .rdat files of one .info entry.
func checkDataFiles(t *testing.T, byPath map[string]string, e infoEntry, f, d int, fopts map[[2]int]float64) {
	t.Helper()
	base := strings.TrimSuffix(e.dataFile, ".dat")
	datHeaders, dat := readData(t, base+".dat", byPath[base+".dat"], d)
	_, tdat := readData(t, base+".tdat", byPath[base+".tdat"], d)
	_, rdat := readData(t, base+".rdat", byPath[base+".rdat"], d)
	if len(dat) != len(e.runs) || len(tdat) != len(e.runs) || len(rdat) != len(e.runs) {
		t.Fatalf("%s: %d/%d/%d runs in .dat/.tdat/.rdat, want %d", base, len(dat), len(tdat), len(rdat), len(e.runs))
	}
	for j, r := range e.runs {
		fopt := fopts[[2]int{f, r.instance}]
		want := fmt.Sprintf("%% f evaluations | g evaluations | best noise-free fitness - Fopt (%13.12e) + sum g_i+ | measured fitness | best measured fitness or single-digit g-values | x1 | x2...", fopt)
		if datHeaders[j] != want {
			t.Errorf("%s run %d header\n%q\nwant\n%q", base, j, datHeaders[j], want)
		}
		rows := dat[j]
		if rows[0][0] != 1 {
			t.Errorf("%s run %d: first .dat line at evaluation %v, want 1 (cocopp asserts it)", base, j, rows[0][0])
		}
		for i := 1; i < len(rows); i++ {
			if !(rows[i][0] > rows[i-1][0]) || !(rows[i][2] < rows[i-1][2]) {
				t.Errorf("%s run %d: .dat line %d does not improve on the previous one", base, j, i)
			}
		}
		for _, row := range append(slices.Clone(rows), tdat[j]...) {
			// Each column has 10 significant digits.
			tol := 1e-9 * (math.Abs(row[4]) + math.Abs(fopt) + math.Abs(row[2]))
			if row[1] != 0 || math.Abs(row[4]-fopt-row[2]) > tol {
				t.Errorf("%s run %d: columns 2 and 5 of %v disagree with column 3", base, j, row)
			}
		}
		last := tdat[j][len(tdat[j])-1]
		if int(last[0]) != r.evals {
			t.Errorf("%s run %d: last .tdat line at %v evaluations, .info says %d", base, j, last[0], r.evals)
		}
		if got, _ := strconv.ParseFloat(fmt.Sprintf("%.1e", last[2]), 64); got != r.final {
			t.Errorf("%s run %d: .info final %v, last .tdat line %v", base, j, r.final, last[2])
		}
		// The solving instance 1 reaches 1e-8, instance 2 does not, and only
		// instance 2 restarted.
		if solved := rows[len(rows)-1][2] <= 1e-8; solved != (r.instance == 1) {
			t.Errorf("%s instance %d: solved = %v", base, r.instance, solved)
		}
		if (len(rdat[j]) == 1) != (r.instance == 2) || r.instance == 2 && rdat[j][0][0] != 18 {
			t.Errorf("%s instance %d: .rdat lines %v", base, r.instance, rdat[j])
		}
	}
}

// TestFilesErrors checks the rejected inputs.
func TestFilesErrors(t *testing.T) {
	p := Problem{Function: 2, Instance: 1, Dim: 2, Fopt: 1}
	good := geometricRun(t, p, 3, 0.5, 0)
	empty := &Run{Problem: Problem{Function: 2, Instance: 3, Dim: 2, Fopt: 1}, BestDelta: math.Inf(1)}
	other := geometricRun(t, Problem{Function: 2, Instance: 1, Dim: 2, Fopt: 7}, 3, 0.5, 0)
	cases := map[string]struct {
		alg, comment string
		runs         []*Run
	}{
		"empty name":     {"", "c", []*Run{good}},
		"quote in name":  {"it's", "c", []*Run{good}},
		"comma in name":  {"a,b", "c", []*Run{good}},
		"space in name":  {"a b", "c", []*Run{good}},
		"newline":        {"a", "two\nlines", []*Run{good}},
		"no evaluations": {"a", "c", []*Run{good, empty}},
		"duplicate":      {"a", "c", []*Run{good, good}},
		"same instance":  {"a", "c", []*Run{good, other}},
		"bad problem":    {"a", "c", []*Run{{Problem: Problem{Function: 0, Instance: 1, Dim: 2}, Evals: 1}}},
	}
	for name, c := range cases {
		if _, err := FilesWithHeader(c.alg, c.comment, Header{}, c.runs); err == nil || !strings.HasPrefix(err.Error(), "coco: ") {
			t.Errorf("%s: error %v, want one starting with coco:", name, err)
		}
	}
	if files, err := FilesWithHeader("a.b+c_1-2", "", Header{}, []*Run{good}); err != nil || len(files) != 4 || path.Base(files[3].Path) != "bbobexp_f2.info" {
		t.Errorf("a valid call: %d files, error %v", len(files), err)
	}
}

// TestFilesWithHeader checks the coco_version and settings fields of the
// .info header and the errors for fields that would break its quoting.
func TestFilesWithHeader(t *testing.T) {
	good := geometricRun(t, Problem{Function: 2, Instance: 1, Dim: 2, Fopt: 1}, 3, 0.5, 0)
	files, err := FilesWithHeader("a", "c", Header{Version: "v1.2.3", Settings: "budget=1e4"}, []*Run{good})
	if err != nil {
		t.Fatal(err)
	}
	entries := readInfo(t, string(files[len(files)-1].Data))
	if len(entries) != 1 || entries[0].header["coco_version"] != "v1.2.3" || entries[0].header["settings"] != "budget=1e4" {
		t.Errorf("header %v, want coco_version v1.2.3 and settings budget=1e4", entries[0].header)
	}
	for _, h := range []Header{{Version: "it's"}, {Settings: "a\nb"}, {Version: "x\r"}} {
		if _, err := FilesWithHeader("a", "c", h, []*Run{good}); err == nil || !strings.HasPrefix(err.Error(), "coco: ") {
			t.Errorf("%+v: error %v, want one starting with coco:", h, err)
		}
	}
}
