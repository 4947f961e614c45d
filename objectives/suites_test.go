package objectives

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
)

// suiteRow is one row of testdata/bbob-largescale/values.csv or
// testdata/bbob-mixint/values.csv (see their README.md): COCO's value f at
// the point point for (function, instance, dim), COCO's optimal value fopt
// and xsum = Σ_j (j+1)·x_j of the point, summed in order.
type suiteRow struct {
	function, instance, dim int
	point                   string
	f, fopt, xsum           float64
}

// readSuiteRows reads a values.csv of a COCO suite.
func readSuiteRows(t *testing.T, path string) []suiteRow {
	t.Helper()
	records := readCSV(t, path, []string{"function", "instance", "dim", "point_id", "f", "fopt", "xsum"})
	rows := make([]suiteRow, len(records))
	for n, rec := range records {
		p := csvParser{t: t, path: path, line: n + 2}
		rows[n] = suiteRow{
			function: p.int(rec[0]), instance: p.int(rec[1]), dim: p.int(rec[2]),
			point: rec[3], f: p.float(rec[4]), fopt: p.float(rec[5]), xsum: p.float(rec[6]),
		}
	}
	return rows
}

// readCSV reads a CSV file, checks its header and returns the data rows.
func readCSV(t *testing.T, path string, header []string) [][]string {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	records, err := csv.NewReader(file).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) == 0 || !slices.Equal(records[0], header) {
		t.Fatalf("%s: header %q, want %q", path, records[0], header)
	}
	return records[1:]
}

// csvParser parses the fields of one line of a CSV file.
type csvParser struct {
	t    *testing.T
	path string
	line int
}

func (p csvParser) int(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		p.t.Fatalf("%s line %d: %v", p.path, p.line, err)
	}
	return v
}

func (p csvParser) float(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.t.Fatalf("%s line %d: %v", p.path, p.line, err)
	}
	return v
}

// splitmix is the point generator of the READMEs of the suites' reference
// values: splitmix64 seeded with s = ((F·10^6 + I)·10^5 + D)·100 + K.
type splitmix struct{ s uint64 }

func newSplitmix(function, instance, dim, k int) *splitmix {
	return &splitmix{((uint64(function)*1000000+uint64(instance))*100000+uint64(dim))*100 + uint64(k)}
}

// next returns the next uniform number in [0, 1).
func (r *splitmix) next() float64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) * 0x1p-53
}

// largeScalePoint is the point of a bbob-largescale reference row, built
// from COCO's optimal point xopt as that file's README says.
func largeScalePoint(row suiteRow, xopt []float64) []float64 {
	x := make([]float64, row.dim)
	var k int
	switch {
	case specialPoint(row, nil, x):
	case row.point == "xopt":
		copy(x, xopt)
	case row.point == "origin":
	case sscan(row.point, "r%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j := range x {
			x[j] = -5 + float64(10*r.next())
		}
	case sscan(row.point, "o%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j := range x {
			x[j] = -7 + float64(14*r.next())
		}
	case sscan(row.point, "n%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j := range x {
			x[j] = xopt[j] + float64(0.02*(r.next()-0.5))
		}
	default:
		panic("unknown point " + row.point)
	}
	return x
}

// mixintPoint is the point of a bbob-mixint reference row, built from the
// domains and COCO's optimal point xopt as that file's README says.
func mixintPoint(row suiteRow, dom []Domain, xopt []float64) []float64 {
	x := make([]float64, row.dim)
	var k int
	switch {
	case specialPoint(row, dom, x):
	case row.point == "xopt":
		copy(x, xopt)
	case sscan(row.point, "r%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j, d := range dom {
			u := r.next()
			if d.Integer {
				x[j] = (d.Lo - 0.5) + float64((d.Hi-d.Lo+1)*u)
			} else {
				x[j] = d.Lo + float64((d.Hi-d.Lo)*u)
			}
		}
	case sscan(row.point, "o%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j, d := range dom {
			x[j] = (d.Lo - 3) + float64((d.Hi-d.Lo+6)*r.next())
		}
	case sscan(row.point, "h%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j, d := range dom {
			u := r.next()
			if d.Integer {
				x[j] = math.Floor(u*(d.Hi-d.Lo+3)) + d.Lo - 1 + 0.5
			} else {
				x[j] = d.Lo + float64((d.Hi-d.Lo)*u)
			}
		}
	case sscan(row.point, "i%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j, d := range dom {
			u := r.next()
			if d.Integer {
				x[j] = d.Lo + math.Floor(u*(d.Hi-d.Lo+1))
			} else {
				x[j] = d.Lo + float64((d.Hi-d.Lo)*u)
			}
		}
	case sscan(row.point, "n%d", &k):
		r := newSplitmix(row.function, row.instance, row.dim, k)
		for j, d := range dom {
			w := 0.02
			if d.Integer {
				w = 0.8
			}
			x[j] = xopt[j] + float64(w*(r.next()-0.5))
		}
	case row.point == "edge":
		edge := []float64{0.49999999999999994, -0.5, 1.4999999999999998, 0, 0, -1e300, 1e300, 2.5}
		for j, d := range dom {
			if !d.Integer {
				x[j] = float64(0.1*float64(j%7)) - 0.3
				continue
			}
			switch m := j % 8; m {
			case 3:
				x[j] = d.Hi + 0.49999999999999994
			case 4:
				x[j] = d.Hi + 0.5
			default:
				x[j] = edge[m]
			}
		}
	default:
		panic("unknown point " + row.point)
	}
	return x
}

// specialPoint fills x with the special point sK of the READMEs (K = 51 …
// 56): integer coordinates (those in dom marked Integer) random integers,
// the others huge, large or random, with an infinity or a NaN placed in
// some. It reports false for another point name.
func specialPoint(row suiteRow, dom []Domain, x []float64) bool {
	var k int
	if !sscan(row.point, "s%d", &k) || k < 51 || k > 56 {
		return false
	}
	r := newSplitmix(row.function, row.instance, row.dim, k)
	for j := range x {
		u := r.next()
		if dom != nil && dom[j].Integer {
			x[j] = dom[j].Lo + math.Floor(u*(dom[j].Hi-dom[j].Lo+1))
			continue
		}
		switch k {
		case 51:
			x[j] = 1e160
		case 52:
			x[j] = 1e308 * (2*u - 1)
		case 53:
			x[j] = 3e5 * (2*u - 1)
		default:
			x[j] = -5 + float64(10*u)
		}
	}
	d := len(x)
	switch k {
	case 54:
		x[d-1] = math.Inf(1)
	case 55:
		x[d/2] = math.NaN()
	case 56:
		x[d-1], x[0] = math.Inf(-1), math.NaN()
	}
	return true
}

// sscan reports whether s matches format with one integer.
func sscan(s, format string, k *int) bool {
	n, err := fmt.Sscanf(s, format, k)
	return n == 1 && err == nil
}

// weightedSum is Σ_j (j+1)·x_j, summed in order (the xsum column).
func weightedSum(x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += float64(float64(j+1) * v)
	}
	return s
}

// sameSum reports whether the weighted sums a (hees) and b (COCO) of a point
// agree: exactly, or to 1e-12·d² for the points built from the optimal
// points of f9 and f19, which COCO derives from rotations whose last bits
// differ from hees's.
func sameSum(row suiteRow, a, b float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return (row.function == 9 || row.function == 19) && (row.point == "xopt" || row.point == "n41") &&
		math.Abs(a-b) <= 1e-12*float64(row.dim*row.dim)
}

// suiteTolerance is the agreement required with COCO's values, relative to
// max(1, |f − fopt|): 1e-9 (docs/BBOB.md §8), and 1e-8 for f19, whose cosine
// of arguments up to about 1e8 amplifies the last-bit differences of the
// rotations (docs/BBOB.md §11).
func suiteTolerance(function int) float64 {
	if function == 19 {
		return 1e-8
	}
	return 1e-9
}

// noisy reports the rows whose value is rounding noise in COCO as in hees:
// f17 and f18 at the huge points s51 … s53, where the sine in the
// Schaffers function gets arguments near 1e17, whose last bit is 64.
func noisy(row suiteRow) bool {
	var k int
	return (row.function == 17 || row.function == 18) && sscan(row.point, "s%d", &k) && k <= 53
}

// suiteCheck compares a suite's values with COCO's reference rows and
// reports the largest differences per function.
type suiteCheck struct {
	t     *testing.T
	worst [BBOBFunctions + 1]float64 // largest |Δf|/max(1, |f − fopt|)
	exact [BBOBFunctions + 1]int     // rows that agree to the last bit
	rows  [BBOBFunctions + 1]int
}

// value checks one value against COCO's.
func (c *suiteCheck) value(name string, row suiteRow, got float64) {
	c.t.Helper()
	c.rows[row.function]++
	if got == row.f || math.IsNaN(got) && math.IsNaN(row.f) {
		c.exact[row.function]++
		return
	}
	if noisy(row) && !math.IsInf(got, 0) && !math.IsNaN(got) && !math.IsInf(row.f, 0) && !math.IsNaN(row.f) {
		return // both finite is all that can be asked there
	}
	rel := math.Abs(got-row.f) / max(1, math.Abs(row.f-row.fopt))
	if !(rel <= suiteTolerance(row.function)) {
		c.t.Errorf("%s: f = %.17g, COCO %.17g (relative difference %.3g)", name, got, row.f, rel)
		return
	}
	c.worst[row.function] = max(c.worst[row.function], rel)
}

// report logs the largest differences per function.
func (c *suiteCheck) report() {
	for f := 1; f <= BBOBFunctions; f++ {
		c.t.Logf("f%d: %d of %d rows bit-exact, largest |f − f_COCO|/max(1, |f − fopt|) %.2g", f, c.exact[f], c.rows[f], c.worst[f])
	}
}

// TestLargeScaleReference checks every row of COCO's bbob-largescale
// reference values: the value at each point, COCO's optimal value, and
// COCO's optimal point (through its weighted sum).
func TestLargeScaleReference(t *testing.T) {
	rows := readSuiteRows(t, "testdata/bbob-largescale/values.csv")
	if len(rows) != 9600 {
		t.Fatalf("%d rows, want 9600", len(rows))
	}
	c := &suiteCheck{t: t}
	var p Problem
	var xopt []float64
	for _, row := range rows {
		name := fmt.Sprintf("bbob-largescale/f%d/i%d d=%d %s", row.function, row.instance, row.dim, row.point)
		if p == nil || p.Name() != suiteName(suiteLargeScale, row.function, row.instance) || p.Dim() != row.dim {
			var err error
			if p, err = NewBBOBLargeScale(row.function, row.instance, row.dim); err != nil {
				t.Fatal(err)
			}
			var fopt float64
			xopt, fopt, _ = p.Optimum()
			if fopt != row.fopt {
				t.Errorf("%s: fopt = %.17g, COCO %.17g", name, fopt, row.fopt)
			}
		}
		x := largeScalePoint(row, xopt)
		if s := weightedSum(x); !sameSum(row, s, row.xsum) {
			t.Errorf("%s: Σ(j+1)x_j = %.17g, COCO %.17g", name, s, row.xsum)
		}
		c.value(name, row, p.Eval(x))
	}
	c.report()
}

// TestMixintReference checks every row of COCO's bbob-mixint reference
// values, and the domains against COCO's regions of interest.
func TestMixintReference(t *testing.T) {
	const domainsPath = "testdata/bbob-mixint/domains.csv"
	want := map[int][]Domain{}
	for n, rec := range readCSV(t, domainsPath, []string{"dim", "coordinate", "lo", "hi", "integer"}) {
		p := csvParser{t: t, path: domainsPath, line: n + 2}
		d := p.int(rec[0])
		want[d] = append(want[d], Domain{Lo: p.float(rec[2]), Hi: p.float(rec[3]), Integer: rec[4] == "1"})
	}
	for d, doms := range want {
		p, err := NewBBOBMixint(1, 1, d)
		if err != nil {
			t.Fatal(err)
		}
		if got := DomainsOf(p); !slices.Equal(got, doms) {
			t.Errorf("d=%d: domains %v, COCO %v", d, got, doms)
		}
	}

	rows := readSuiteRows(t, "testdata/bbob-mixint/values.csv")
	if len(rows) != 14880 {
		t.Fatalf("%d rows, want 14880", len(rows))
	}
	c := &suiteCheck{t: t}
	var p Problem
	var xopt []float64
	var dom []Domain
	for _, row := range rows {
		name := fmt.Sprintf("bbob-mixint/f%d/i%d d=%d %s", row.function, row.instance, row.dim, row.point)
		if p == nil || p.Name() != suiteName(suiteMixint, row.function, row.instance) || p.Dim() != row.dim {
			var err error
			if p, err = NewBBOBMixint(row.function, row.instance, row.dim); err != nil {
				t.Fatal(err)
			}
			var fopt float64
			xopt, fopt, _ = p.Optimum()
			dom = DomainsOf(p)
			if math.Abs(fopt-row.fopt) > 1e-15*max(1, math.Abs(row.fopt)) {
				t.Errorf("%s: fopt = %.17g, COCO %.17g", name, fopt, row.fopt)
			}
		}
		x := mixintPoint(row, dom, xopt)
		if s := weightedSum(x); !sameSum(row, s, row.xsum) {
			t.Errorf("%s: Σ(j+1)x_j = %.17g, COCO %.17g", name, s, row.xsum)
		}
		c.value(name, row, p.Eval(x))
	}
	c.report()
}
