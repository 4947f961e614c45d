package objectives

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
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
// max(1, |f − fopt|): 1e-9 (docs/BBOB.md §8), and 1e-8 for f19 and f23, which
// amplify the last-bit differences of the rotations most (docs/BBOB.md §11:
// up to 2.4e-9 measured).
func suiteTolerance(function int) float64 {
	if function == 19 || function == 23 {
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

// skipShort reports the rows that -short leaves out: three problems in
// four (the race detector makes the full check take 20 s).
func skipShort(row suiteRow) bool {
	return testing.Short() && (row.function+row.instance+row.dim)%4 != 0
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
		if skipShort(row) {
			continue
		}
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
		if skipShort(row) {
			continue
		}
		name := fmt.Sprintf("bbob-mixint/f%d/i%d d=%d %s", row.function, row.instance, row.dim, row.point)
		if p == nil || p.Name() != suiteName(suiteMixint, row.function, row.instance) || p.Dim() != row.dim {
			var err error
			if p, err = NewBBOBMixint(row.function, row.instance, row.dim); err != nil {
				t.Fatal(err)
			}
			var fopt float64
			xopt, fopt, _ = p.Optimum()
			dom = DomainsOf(p)
			if fopt != row.fopt {
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

// suiteSpecs lists one spec of every function of the two COCO suites with
// a dimension that exercises their permutations (d > 40) and, for
// bbob-mixint, both of its constructions.
func suiteSpecs() (specs []string, dims []int) {
	for f := 1; f <= BBOBFunctions; f++ {
		specs = append(specs, fmt.Sprintf("bbob-largescale/f%d/i3", f), fmt.Sprintf("bbob-mixint/f%d/i3", f), fmt.Sprintf("bbob-mixint/f%d/i4", f))
		dims = append(dims, 50, 10, 55)
	}
	return specs, dims
}

// TestSuitesEvalAllocations checks that Eval allocates nothing in steady
// state.
func TestSuitesEvalAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	specs, dims := suiteSpecs()
	for k, spec := range specs {
		p, err := Parse(spec, dims[k])
		if err != nil {
			t.Fatal(err)
		}
		x := referencePoint(5, 5, dims[k], 1)
		sink := 0.0
		if allocs := testing.AllocsPerRun(50, func() { sink += p.Eval(x) }); allocs != 0 {
			t.Errorf("%s: Eval allocates %v times per call", spec, allocs)
		}
		if math.IsNaN(sink) {
			t.Errorf("%s: NaN", spec)
		}
	}
}

// TestSuitesEvalConcurrent evaluates every problem from several goroutines
// at once and checks each value against a single goroutine's, and that
// Eval leaves x alone. Run with -race to also check for data races.
func TestSuitesEvalConcurrent(t *testing.T) {
	const points, workers = 16, 6
	specs, dims := suiteSpecs()
	for k, spec := range specs {
		p, err := Parse(spec, dims[k])
		if err != nil {
			t.Fatal(err)
		}
		xs := make([][]float64, points)
		want := make([]float64, points)
		for j := range xs {
			xs[j] = referencePoint(7, 7, dims[k], j+1)
			keep := slices.Clone(xs[j])
			want[j] = p.Eval(xs[j])
			if !slices.Equal(keep, xs[j]) {
				t.Fatalf("%s: Eval changed x", spec)
			}
		}
		errs := make(chan string, workers)
		done := make(chan bool)
		for w := range workers {
			go func() {
				defer func() { done <- true }()
				for rep := range 12 {
					j := (w*5 + rep*3) % points
					if got := p.Eval(xs[j]); got != want[j] {
						errs <- fmt.Sprintf("%s: goroutine %d got %v at point %d, want %v", spec, w, got, j, want[j])
						return
					}
				}
			}()
		}
		for range workers {
			<-done
		}
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// TestSuitesOptimum checks f(x*) against f* on instances and dimensions
// beyond the reference files (held-out instances 6, 71, 110, 1000; d up to
// 200), that x* lies in the domains, and that random points in and around
// the domains do not go below f*.
func TestSuitesOptimum(t *testing.T) {
	dims := map[string][]int{
		suiteLargeScale: {2, 41, 120, 200},
		suiteMixint:     {5, 25, 30, 60, 120},
	}
	if testing.Short() {
		dims[suiteLargeScale], dims[suiteMixint] = []int{2, 41}, []int{5, 60}
	}
	for _, suite := range []string{suiteLargeScale, suiteMixint} {
		for _, d := range dims[suite] {
			for _, inst := range []int{6, 71, 110, 1000} {
				for f := 1; f <= BBOBFunctions; f++ {
					name := suiteName(suite, f, inst)
					p, err := Parse(name, d)
					if err != nil {
						t.Fatal(err)
					}
					x, fopt, ok := p.Optimum()
					if !ok {
						t.Fatalf("%s d=%d: no optimum", name, d)
					}
					got := p.Eval(x)
					// f20's optimum is a few ulp away from COCO's point; the
					// mixed-integer shift of the grid rounds.
					if math.Abs(got-fopt) > 1e-11*max(1, math.Abs(fopt)) {
						t.Errorf("%s d=%d: f(x*) = %.17g, f* = %.17g", name, d, got, fopt)
					}
					dom := DomainsOf(p)
					for i, v := range x {
						if v < dom[i].Lo || v > dom[i].Hi || dom[i].Integer && v != math.Trunc(v) {
							t.Errorf("%s d=%d: x*[%d] = %v outside %+v", name, d, i, v, dom[i])
							break
						}
					}
					floor := fopt - 1e-11*max(1, math.Abs(fopt))
					for k := 1; k <= 8; k++ {
						y := referencePoint(f, inst, d, k)
						for i := range y {
							c := (dom[i].Lo + dom[i].Hi) / 2
							y[i] = c + float64(1.2*(dom[i].Hi-dom[i].Lo)/10*y[i])
						}
						if v := p.Eval(y); !(v >= floor) {
							t.Errorf("%s d=%d: f = %.17g below f* = %.17g at r%d", name, d, v, fopt, k)
						}
					}
				}
			}
		}
	}
}

// TestSuitesErrors checks the errors of the constructors and of Parse for
// the COCO suites: one line, starting with "objectives: ", saying what is
// wrong.
func TestSuitesErrors(t *testing.T) {
	tests := []struct {
		spec string
		dim  int
		want string
	}{
		{"bbob-largescale", 20, `"bbob-largescale" is not of the form bbob-largescale/fN or bbob-largescale/fN/iI`},
		{"bbob-largescale/", 20, `function "" is not f followed by digits`},
		{"bbob-largescale/f0", 20, `bbob-largescale function must be 1 … 24, got 0`},
		{"bbob-largescale/f25/i1", 20, `got 25`},
		{"bbob-largescale/f1/i0", 20, `bbob-largescale instance must be 1 … 100000, got 0`},
		{"bbob-largescale/f1/i100001", 20, `got 100001`},
		{"bbob-largescale/f1/i99999999999999999999", 20, `instance "i99999999999999999999" is out of range`},
		{"bbob-largescale/f1/i1/d20", 20, `is not of the form`},
		{"bbob-largescale/f1:cond=2", 20, `bbob-largescale problems take no parameters`},
		{"bbob-largescale/f3", 1, `bbob-largescale/f3/i1 needs dimension >= 2, got 1`},
		{"bbob-largescale/f3", 40001, `bbob-largescale/f3/i1 supports dimensions up to 40000, got 40001`},
		{"bbob-largescale/f3", 1 << 40, `supports dimensions up to 40000`},
		{"bbob-largescale/f3", -7, `needs dimension >= 2, got -7`},
		{"bbob-mixint/f3", 4, `bbob-mixint/f3/i1 needs dimension >= 5, got 4`},
		{"bbob-mixint/f3", 12, `bbob-mixint/f3/i1 needs a dimension that is a multiple of 5, got 12`},
		{"bbob-mixint/f3", 45, `bbob-mixint/f3/i1 does not exist in dimension 45`},
		{"bbob-mixint/f3", 40005, `supports dimensions up to 40000, got 40005`},
		{"bbob-mixint/f24/i100001", 10, `bbob-mixint instance must be 1 … 100000, got 100001`},
		{"bbob-mixint/f-1", 10, `function "f-1" is not f followed by digits`},
		{"bbob-mixint/f1/x", 10, `instance "x" is not i followed by digits`},
		{"bbob-mixint/f1:x=1", 10, `bbob-mixint problems take no parameters`},
		{"bbob-Mixint/f1", 10, `unknown problem "bbob-Mixint/f1"`},
		{"bbob-largescalex/f1", 10, `unknown problem "bbob-largescalex/f1"`},
	}
	for _, tc := range tests {
		p, err := Parse(tc.spec, tc.dim)
		if err == nil {
			t.Errorf("Parse(%q, %d) = %s, want an error", tc.spec, tc.dim, p.Name())
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "objectives: ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q, %d): error %q\nwant one line containing %q", tc.spec, tc.dim, msg, tc.want)
		}
	}
	// The same specs parse with leading zeros and a default instance.
	for spec, name := range map[string]string{
		"bbob-largescale/f010/i03": "bbob-largescale/f10/i3",
		"bbob-largescale/f7":       "bbob-largescale/f7/i1",
		" bbob-mixint/f01/i015 ":   "bbob-mixint/f1/i15",
	} {
		p, err := Parse(spec, 20)
		if err != nil || p.Name() != name {
			t.Errorf("Parse(%q) = %v, %v; want %s", spec, p, err, name)
		}
	}
}

// TestLargeScaleLargeDimensions builds every function in a large dimension
// and checks that it is quick, agrees with itself and reaches f* at x*.
func TestLargeScaleLargeDimensions(t *testing.T) {
	dim := 4000 // 100 blocks; BenchmarkNewLargeScale goes to 10000
	if testing.Short() {
		dim = 1000
	}
	for f := 1; f <= BBOBFunctions; f++ {
		p, err := NewBBOBLargeScale(f, 2, dim)
		if err != nil {
			t.Fatal(err)
		}
		x, fopt, _ := p.Optimum()
		if got := p.Eval(x); math.Abs(got-fopt) > 1e-11*max(1, math.Abs(fopt)) {
			t.Errorf("f%d d=%d: f(x*) = %.17g, f* = %.17g", f, dim, got, fopt)
		}
		y := referencePoint(f, 2, dim, 1)
		if v := p.Eval(y); !(v > fopt) || math.IsInf(v, 0) {
			t.Errorf("f%d d=%d: f = %v at a random point, f* = %v", f, dim, v, fopt)
		}
	}
}

// TestLargeScaleHessian checks the Hessian of the large-scale sphere, the
// one quadratic of the suites: f = min(1, 40/d)·|x − x*|² + f*.
func TestLargeScaleHessian(t *testing.T) {
	for _, d := range []int{20, 80} {
		p, err := NewBBOBLargeScale(1, 3, d)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := p.Hessian()
		if !ok {
			t.Fatalf("d=%d: no Hessian", d)
		}
		xopt, fopt, _ := p.Optimum()
		x := referencePoint(1, 3, d, 1)
		q := 0.0
		for i := range x {
			for j := range x {
				q += (x[i] - xopt[i]) * h.At(i, j) * (x[j] - xopt[j])
			}
		}
		if got, want := p.Eval(x), q/2+fopt; math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("d=%d: f = %v, the Hessian gives %v", d, got, want)
		}
		if _, ok := p.(Domains); ok {
			t.Errorf("d=%d: a large-scale problem implements Domains", d)
		}
	}
	if _, ok := mustParse(t, "bbob-mixint/f1/i1", 5).Hessian(); ok {
		t.Error("a mixed-integer problem has a Hessian")
	}
}

// mustParse is Parse that fails the test on an error.
func mustParse(t *testing.T, spec string, dim int) Problem {
	t.Helper()
	p, err := Parse(spec, dim)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDomains checks DomainsOf for a problem without Domains and the
// mixed-integer layout: five groups, the integer ones first.
func TestDomains(t *testing.T) {
	p, err := Parse("bbob/f3/i2", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := DomainsOf(p); !slices.Equal(got, []Domain{{-5, 5, false}, {-5, 5, false}, {-5, 5, false}}) {
		t.Errorf("DomainsOf(bbob) = %v", got)
	}
	if _, ok := p.(Domains); ok {
		t.Error("a bbob problem implements Domains")
	}
	q, err := Parse("bbob-mixint/f3/i2", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Domain{{0, 1, true}, {0, 1, true}, {0, 3, true}, {0, 3, true}, {0, 7, true}, {0, 7, true},
		{0, 15, true}, {0, 15, true}, {-5, 5, false}, {-5, 5, false}}
	d := q.(Domains).Domains()
	if !slices.Equal(d, want) {
		t.Errorf("Domains() = %v, want %v", d, want)
	}
	d[0].Hi = 99 // a copy
	if q.(Domains).Domains()[0].Hi != 1 {
		t.Error("Domains returned its own slice")
	}
	if lo, hi := q.Bounds(); lo != -5 || hi != 15 {
		t.Errorf("Bounds() = %v, %v, want -5, 15", lo, hi)
	}
}

// TestMixintRounding checks COCO's rounding of integer coordinates: half up
// (⌊x + 0.5⌋, so −0.5 goes to 0 and 0.49999999999999994 to 1), then clamped
// to the domain, the continuous coordinates passed on unchanged.
func TestMixintRounding(t *testing.T) {
	p, err := NewBBOBMixint(1, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	same := [][2][]float64{
		{{0.49999999999999994, 1, 2, 3, 0.7}, {1, 1, 2, 3, 0.7}},
		{{-0.5, 1.5, 2.5, 3.5, 0.7}, {0, 2, 3, 4, 0.7}},
		{{-1e300, 1e300, 7.49, 16, 0.7}, {0, 3, 7, 15, 0.7}},
		{{1.4999999999999998, 2.4999999999999996, -0.2, 15.5, -4.9}, {1, 2, 0, 15, -4.9}},
	}
	for _, c := range same {
		if a, b := p.Eval(c[0]), p.Eval(c[1]); a != b {
			t.Errorf("f(%v) = %v, f(%v) = %v", c[0], a, c[1], b)
		}
	}
	if v := p.Eval([]float64{0, 0, 0, 0, 0.71}); v == p.Eval([]float64{0, 0, 0, 0, 0.7}) {
		t.Error("the continuous coordinate is rounded")
	}
	for x, want := range map[[5]float64]float64{
		{math.NaN(), 0, 0, 0, math.Inf(1)}: math.Inf(1),
		{0, math.Inf(-1), 0, 0, 0}:         math.Inf(1),
		{0, 0, math.NaN(), 0, 0}:           math.NaN(),
	} {
		got := p.Eval(x[:])
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("f(%v) = %v, want %v", x, got, want)
		}
	}
}

// BenchmarkLargeScale measures Eval of some bbob-largescale functions at
// d = 640 and d = 10000.
func BenchmarkLargeScale(b *testing.B) {
	for _, dim := range []int{640, 10000} {
		for _, f := range []int{1, 10, 15, 21} {
			p, err := NewBBOBLargeScale(f, 1, dim)
			if err != nil {
				b.Fatal(err)
			}
			x := referencePoint(f, 1, dim, 1)
			b.Run(fmt.Sprintf("f%d/d=%d", f, dim), func(b *testing.B) {
				sink := 0.0
				for b.Loop() {
					sink += p.Eval(x)
				}
				if math.IsNaN(sink) {
					b.Fatal("NaN")
				}
			})
		}
	}
}

// BenchmarkNewLargeScale measures building a bbob-largescale problem.
func BenchmarkNewLargeScale(b *testing.B) {
	for _, dim := range []int{640, 10000} {
		for _, f := range []int{15, 21} {
			b.Run(fmt.Sprintf("f%d/d=%d", f, dim), func(b *testing.B) {
				for b.Loop() {
					if _, err := NewBBOBLargeScale(f, 1, dim); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
