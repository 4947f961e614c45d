package objectives

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// readNoisyCSV reads one file of testdata/bbob-noisy (see its README.md),
// checks its header and returns the data rows.
func readNoisyCSV(t *testing.T, name string, header ...string) [][]string {
	t.Helper()
	file, err := os.Open("testdata/bbob-noisy/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	records, err := csv.NewReader(file).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(records[0], header) {
		t.Fatalf("%s: header %q, want %q", name, records[0], header)
	}
	return records[1:]
}

// noisyKey is (function, instance, dim).
type noisyKey [3]int

// noisyOptimum is a row of optima.csv: COCO's best value and point.
type noisyOptimum struct {
	fopt float64
	xopt []float64
}

// parseNoisyRow parses the leading function, instance and dim columns and
// the float columns of a row.
func parseNoisyRow(t *testing.T, rec []string, floats ...int) (noisyKey, []float64) {
	t.Helper()
	var k noisyKey
	for i := range k {
		v, err := strconv.Atoi(rec[i])
		if err != nil {
			t.Fatalf("row %q: %v", rec, err)
		}
		k[i] = v
	}
	out := make([]float64, len(floats))
	for i, c := range floats {
		v, err := strconv.ParseFloat(rec[c], 64)
		if err != nil {
			t.Fatalf("row %q: %v", rec, err)
		}
		out[i] = v
	}
	return k, out
}

func readNoisyOptima(t *testing.T) map[noisyKey]noisyOptimum {
	t.Helper()
	optima := map[noisyKey]noisyOptimum{}
	for _, rec := range readNoisyCSV(t, "optima.csv", "function", "instance", "dim", "fopt", "xopt") {
		k, v := parseNoisyRow(t, rec, 3)
		o := noisyOptimum{fopt: v[0]}
		for _, s := range strings.Fields(rec[4]) {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("row %q: %v", rec, err)
			}
			o.xopt = append(o.xopt, x)
		}
		if len(o.xopt) != k[2] {
			t.Fatalf("row %q: %d coordinates", rec, len(o.xopt))
		}
		optima[k] = o
	}
	return optima
}

// noisyPoint is the point named id of the reference file for problem k:
// origin, xopt (COCO's, from optima.csv), rK (referencePoint) or oK (rK
// times 1.5, partly outside [−5, 5]^D).
func noisyPoint(t *testing.T, k noisyKey, id string, opt noisyOptimum) []float64 {
	t.Helper()
	var n int
	switch {
	case id == "origin":
		return make([]float64, k[2])
	case id == "xopt":
		return slices.Clone(opt.xopt)
	case strings.HasPrefix(id, "r"):
		if _, err := fmt.Sscanf(id, "r%d", &n); err == nil {
			return referencePoint(k[0], k[1], k[2], n)
		}
	case strings.HasPrefix(id, "o"):
		if _, err := fmt.Sscanf(id, "o%d", &n); err == nil {
			x := referencePoint(k[0], k[1], k[2], n)
			for i := range x {
				x[i] = float64(1.5 * x[i])
			}
			return x
		}
	}
	t.Fatalf("unknown point %q", id)
	return nil
}

// noisyTolerance is the agreement required with COCO: 1e-9 relative to
// max(1, |v − fopt|), as for bbob (cocoTolerance); most values agree to the
// last bit.
func noisyTolerance(v, fopt float64) float64 {
	return 1e-9 * max(1, math.Abs(v-fopt))
}

// TestBBOBNoisyReference replays COCO's sequences of testdata/bbob-noisy:
// every sequence of values.csv is evaluated, in order, on a freshly built
// problem with Eval (COCO's noise sequence) and Noiseless, and fopt and
// xopt are checked against optima.csv.
func TestBBOBNoisyReference(t *testing.T) {
	optima := readNoisyOptima(t)
	if len(optima) != 30*7*6 {
		t.Fatalf("optima.csv has %d rows, want 1260", len(optima))
	}
	for k, o := range optima {
		p, err := NewBBOBNoisy(k[0], k[1], k[2])
		if err != nil {
			t.Fatal(err)
		}
		x, fopt, ok := p.Optimum()
		if !ok || fopt != o.fopt {
			t.Errorf("%s d=%d: f* = %.17g, COCO %.17g", p.Name(), k[2], fopt, o.fopt)
		}
		// f125-f127 derive xopt from the rotation Q (as f19 does), whose
		// last bits differ from glibc's; every other xopt is exact.
		xtol := 0.0
		if k[0] >= 125 && k[0] <= 127 {
			xtol = 1e-12
		}
		for i := range x {
			if math.Abs(x[i]-o.xopt[i]) > xtol {
				t.Errorf("%s d=%d: xopt[%d] = %.17g, COCO %.17g", p.Name(), k[2], i, x[i], o.xopt[i])
				break
			}
		}
	}

	rows := readNoisyCSV(t, "values.csv", "function", "instance", "dim", "seq", "point", "f", "noiseless")
	if len(rows) != 1260*8+30*40 {
		t.Fatalf("values.csv has %d rows, want %d", len(rows), 1260*8+30*40)
	}
	var (
		p                 Noisy
		current           noisyKey
		last              = -1
		exact, exactFree  int
		worst, worstFree  [BBOBNoisyLast + 1]float64 // largest |Δ|/tolerance per function
		exactBy, rowsBy   [BBOBNoisyLast + 1]int     // bit-identical noisy values per function
		sequences, errors int
	)
	for _, rec := range rows {
		k, v := parseNoisyRow(t, rec, 5, 6)
		seq, err := strconv.Atoi(rec[3])
		if err != nil {
			t.Fatal(err)
		}
		if k != current || seq != last+1 {
			// A new sequence: a fresh problem, as COCO's after a reset.
			if seq%100 != 0 {
				t.Fatalf("row %q: a sequence must start at 0 or 100", rec)
			}
			if p, err = NewBBOBNoisy(k[0], k[1], k[2]); err != nil {
				t.Fatal(err)
			}
			current = k
			sequences++
		}
		last = seq
		opt := optima[k]
		x := noisyPoint(t, k, rec[4], opt)
		got, gotFree := p.Eval(x), p.Noiseless(x)
		want, wantFree := v[0], v[1]
		name := fmt.Sprintf("%s d=%d seq %d (%s)", p.Name(), k[2], seq, rec[4])
		rowsBy[k[0]]++
		if got == want {
			exact++
			exactBy[k[0]]++
		}
		if gotFree == wantFree {
			exactFree++
		}
		tol := noisyTolerance(want, opt.fopt)
		if d := math.Abs(got - want); !(d <= tol) {
			if errors++; errors <= 20 {
				t.Errorf("%s: f = %.17g, COCO %.17g (|Δ| = %.3g > %.3g)", name, got, want, d, tol)
			}
		} else {
			worst[k[0]] = max(worst[k[0]], d/tol)
		}
		tol = noisyTolerance(wantFree, opt.fopt)
		if d := math.Abs(gotFree - wantFree); !(d <= tol) {
			if errors++; errors <= 20 {
				t.Errorf("%s: noiseless f = %.17g, COCO %.17g (|Δ| = %.3g > %.3g)", name, gotFree, wantFree, d, tol)
			}
		} else {
			worstFree[k[0]] = max(worstFree[k[0]], d/tol)
		}
	}
	t.Logf("%d sequences, %d values: %d noisy and %d noiseless values are COCO's bits", sequences, len(rows), exact, exactFree)
	for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
		t.Logf("f%d: %d of %d noisy values bit-identical; largest |Δ| is %.2g (noisy) and %.2g (noiseless) of the tolerance",
			f, exactBy[f], rowsBy[f], worst[f], worstFree[f])
	}
	// The bits depend only on the portable code (internal/xmath), so these
	// counts are the same on every platform: a drop means a change.
	if exact < minExactNoisy || exactFree < minExactNoiseless {
		t.Errorf("%d noisy and %d noiseless values are bit-identical to COCO's, want at least %d and %d",
			exact, exactFree, minExactNoisy, minExactNoiseless)
	}
}

// Values of values.csv that agree with COCO to the last bit (measured:
// see TestBBOBNoisyReference's log).
const (
	minExactNoisy     = 10063
	minExactNoiseless = 9967
)

// TestBBOBNoisyOptimum checks that Noiseless(x*) = f* (within a few ulp for
// f125-f127, whose x* goes through a rotation), that no noisy value at x*
// reaches f* + 1e-8, and that nothing of a random sample goes below f*.
func TestBBOBNoisyOptimum(t *testing.T) {
	for _, dim := range []int{2, 7, 40} {
		for _, inst := range []int{1, 6, 110} {
			for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
				p, err := NewBBOBNoisy(f, inst, dim)
				if err != nil {
					t.Fatal(err)
				}
				x, fopt, _ := p.Optimum()
				free := p.Noiseless(x)
				switch {
				case f >= 125 && f <= 127:
					if math.Abs(free-fopt) > 1e-12*max(1, math.Abs(fopt)) {
						t.Errorf("%s d=%d: f(x*) = %.17g, f* = %.17g", p.Name(), dim, free, fopt)
					}
				case free != fopt:
					t.Errorf("%s d=%d: f(x*) = %.17g, f* = %.17g", p.Name(), dim, free, fopt)
				}
				for key := range uint64(5) {
					if v := p.EvalKeyed(x, 1, key); !(v > fopt+1e-8) {
						t.Errorf("%s d=%d: noisy f(x*) = %.17g reaches f* + 1e-8", p.Name(), dim, v)
					}
				}
				for k := 1; k <= 10; k++ {
					y := referencePoint(f, inst, dim, k)
					if v := p.Noiseless(y); !(v >= fopt-1e-12*max(1, math.Abs(fopt))) {
						t.Errorf("%s d=%d: f = %.17g below f* = %.17g at r%d", p.Name(), dim, v, fopt, k)
					}
				}
			}
		}
	}
}

// TestBBOBNoisyBases checks that each noisy function's noiseless value is
// its bbob base function's where COCO uses the same definition (f101-f112,
// f119-f121), and differs from it only by the documented changes
// elsewhere.
func TestBBOBNoisyBases(t *testing.T) {
	const dim = 6
	in := referencePoint(1, 1, dim, 1) // inside [−5, 5]^D
	out := slices.Clone(in)            // outside: where penalties act
	for i := range out {
		out[i] *= 1.8
	}
	for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
		nf := noisyFunctions[f-BBOBNoisyFirst]
		p, err := NewBBOBNoisy(f, 3, dim)
		if err != nil {
			t.Fatal(err)
		}
		q, err := NewBBOB(nf.base, 3, dim)
		if err != nil {
			t.Fatal(err)
		}
		_, fp, _ := p.Optimum()
		_, fq, _ := q.Optimum()
		if fp != fq {
			t.Errorf("%s: f* = %v, %s has %v", p.Name(), fp, q.Name(), fq)
		}
		for _, x := range [][]float64{in, out} {
			a, b := p.Noiseless(x), q.Eval(x)
			same := a == b
			switch nf.base {
			case 7, 17, 21: // no penalty: equal inside, smaller outside
				if x[0] == out[0] {
					same = a < b
				}
			case 10, 19: // other constants
				same = a != b
			}
			if !same {
				t.Errorf("%s at %v: noiseless %v, %s %v", p.Name(), x, a, q.Name(), b)
			}
		}
	}
}

// TestBBOBNoisyCOCOStream checks COCO's sequence: a point that is not
// finite draws nothing, the seeds go back to 1 after 1e9, and concurrent
// calls of Eval are safe (run with -race) and each take distinct noise.
func TestBBOBNoisyCOCOStream(t *testing.T) {
	x := referencePoint(3, 3, 4, 1)
	for _, f := range []int{101, 102, 103} {
		fresh, _ := NewBBOBNoisy(f, 1, 4)
		p, _ := NewBBOBNoisy(f, 1, 4)
		inf := slices.Clone(x)
		inf[2] = math.Inf(-1)
		nan := slices.Clone(x)
		nan[0] = math.NaN()
		both := slices.Clone(nan)
		both[3] = math.Inf(1)
		if v := p.Eval(inf); v != math.Inf(1) {
			t.Errorf("f%d: Eval with −Inf = %v, want +Inf", f, v)
		}
		if v := p.Eval(both); v != math.Inf(1) {
			t.Errorf("f%d: Eval with NaN and +Inf = %v, want +Inf", f, v)
		}
		if v := p.Eval(nan); !math.IsNaN(v) {
			t.Errorf("f%d: Eval with NaN = %v, want NaN", f, v)
		}
		if v := p.(*noisyProblem).Noiseless(nan); !math.IsNaN(v) {
			t.Errorf("f%d: Noiseless with NaN = %v, want NaN", f, v)
		}
		if v := p.EvalKeyed(inf, 1, 1); v != math.Inf(1) {
			t.Errorf("f%d: EvalKeyed with −Inf = %v, want +Inf", f, v)
		}
		if a, b := p.Eval(x), fresh.Eval(x); a != b {
			t.Errorf("f%d: after points that are not finite Eval gives %v, a fresh problem %v", f, a, b)
		}
	}

	s := int64(cocoSeedMax - 1)
	if a, b, c := nextCOCOSeed(&s), nextCOCOSeed(&s), nextCOCOSeed(&s); a != cocoSeedMax || b != 1 || c != 2 {
		t.Errorf("seeds after 1e9 − 1: %d %d %d, want 1e9 1 2", a, b, c)
	}

	// Concurrent Eval: every call takes its own seeds, so the values are
	// those of a sequential run, in some order.
	const calls = 64
	want := make([]float64, calls)
	seq, _ := NewBBOBNoisy(124, 1, 4)
	for i := range want {
		want[i] = seq.Eval(x)
	}
	p, _ := NewBBOBNoisy(124, 1, 4)
	got := make([]float64, calls)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = p.Eval(x)
		}()
	}
	wg.Wait()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("concurrent Eval gave other values than sequential calls")
	}
}

// TestBBOBNoisyKeyed checks the keyed mode: the same (seed, key) gives the
// same bits in any order and on any number of goroutines, distinct keys
// and seeds give distinct noise, and the value does not depend on Eval's
// sequence.
func TestBBOBNoisyKeyed(t *testing.T) {
	const dim, keys = 5, 200
	x := referencePoint(7, 7, dim, 2)
	for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
		p, err := NewBBOBNoisy(f, 2, dim)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, keys)
		for k := range want {
			want[k] = p.EvalKeyed(x, 9, uint64(k))
		}
		p.Eval(x) // advances COCO's sequence, which EvalKeyed ignores
		got := make([]float64, keys)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := keys - 1 - w; k >= 0; k -= 4 { // backwards, interleaved
					got[k] = p.EvalKeyed(x, 9, uint64(k))
				}
			}()
		}
		wg.Wait()
		q, _ := NewBBOBNoisy(f, 2, dim)
		for k := range got {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) || q.EvalKeyed(x, 9, uint64(k)) != want[k] {
				t.Fatalf("%s: key %d: %v, then %v", p.Name(), k, want[k], got[k])
			}
		}
		distinct := map[float64]bool{}
		for _, v := range want {
			distinct[v] = true
		}
		// The Cauchy noise is the constant α·1000 unless U < p.
		if min := map[noiseModel]int{gaussianNoise: keys, uniformNoise: keys, cauchyNoise: 10}[noisyFunctions[f-BBOBNoisyFirst].model]; len(distinct) < min {
			t.Errorf("%s: %d distinct values over %d keys", p.Name(), len(distinct), keys)
		}
		if p.EvalKeyed(x, 10, 0) == want[0] && noisyFunctions[f-BBOBNoisyFirst].model != cauchyNoise {
			t.Errorf("%s: seeds 9 and 10 give the same value", p.Name())
		}
	}
}

// TestBBOBNoisyKeyedDistribution checks the keyed draws against their
// distributions (means and variances within 5 standard errors, the Cauchy
// outlier rate), and the Gaussian model's multiplier exp(β·N) end to end.
func TestBBOBNoisyKeyedDistribution(t *testing.T) {
	const n = 40000
	p, err := NewBBOBNoisy(130, 1, 3) // Cauchy: draws u1, g1, g2
	if err != nil {
		t.Fatal(err)
	}
	np := p.(*noisyProblem)
	var su, suu, sg, sgg, sh, shh float64
	outliers := 0
	for k := range uint64(n) {
		d := np.keyedDraws(4, k)
		su, suu = su+d.u1, suu+d.u1*d.u1
		sg, sgg = sg+d.g1, sgg+d.g1*d.g1
		sh, shh = sh+d.g2, shh+d.g2*d.g2
		if d.u1 <= 0 || d.u1 >= 1 {
			t.Fatalf("key %d: uniform %v outside (0, 1)", k, d.u1)
		}
		if d.u1 < np.p {
			outliers++
		}
	}
	check := func(what string, got, want, stderr float64) {
		if math.Abs(got-want) > 5*stderr {
			t.Errorf("%s = %.5f, want %.5f ± %.5f", what, got, want, 5*stderr)
		}
	}
	check("mean of U", su/n, 0.5, math.Sqrt(1.0/12/n))
	check("variance of U", suu/n-(su/n)*(su/n), 1.0/12, math.Sqrt(1.0/180/n))
	check("mean of N1", sg/n, 0, math.Sqrt(1.0/n))
	check("variance of N1", sgg/n-(sg/n)*(sg/n), 1, math.Sqrt(2.0/n))
	check("mean of N2", sh/n, 0, math.Sqrt(1.0/n))
	check("variance of N2", shh/n-(sh/n)*(sh/n), 1, math.Sqrt(2.0/n))
	check("outlier rate", float64(outliers)/n, 0.2, math.Sqrt(0.2*0.8/n))

	// f107: Gaussian noise with β = 1 on the sphere. Inside the box,
	// log((v − f* − 1.01e-8)/(f − f*)) is N(0, 1) up to rounding.
	g, err := NewBBOBNoisy(107, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, 3}
	_, fopt, _ := g.Optimum()
	delta := g.Noiseless(x) - fopt
	var sl, sll float64
	for k := range uint64(n) {
		l := math.Log((g.EvalKeyed(x, 11, k) - fopt - noiseShift) / delta)
		sl, sll = sl+l, sll+l*l
	}
	check("mean of log multiplier", sl/n, 0, math.Sqrt(1.0/n))
	check("variance of log multiplier", sll/n-(sl/n)*(sl/n), 1, math.Sqrt(2.0/n))
}

// TestBBOBNoisyAllocations checks that Eval, EvalKeyed and Noiseless
// allocate nothing in steady state.
func TestBBOBNoisyAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	x := referencePoint(5, 5, 10, 1)
	for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
		p, err := NewBBOBNoisy(f, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		sink := 0.0
		key := uint64(0)
		if allocs := testing.AllocsPerRun(50, func() {
			key++
			sink += p.Eval(x) + p.EvalKeyed(x, 1, key) + p.Noiseless(x)
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per call", p.Name(), allocs)
		}
		if math.IsNaN(sink) {
			t.Errorf("%s: NaN", p.Name())
		}
	}
}

// TestParseBBOBNoisy checks the bbob-noisy specs and their errors.
func TestParseBBOBNoisy(t *testing.T) {
	for spec, name := range map[string]string{
		"bbob-noisy/f101":        "bbob-noisy/f101/i1",
		" bbob-noisy/f0130/i007": "bbob-noisy/f130/i7",
		"bbob-noisy/f115/i15":    "bbob-noisy/f115/i15",
	} {
		p, err := Parse(spec, 3)
		if err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
			continue
		}
		if p.Name() != name {
			t.Errorf("Parse(%q).Name() = %q, want %q", spec, p.Name(), name)
		}
		if _, ok := p.(Noisy); !ok {
			t.Errorf("Parse(%q) is not Noisy", spec)
		}
	}
	for _, tc := range []struct {
		spec string
		dim  int
		want string
	}{
		{"bbob-noisy", 3, `"bbob-noisy" is not of the form bbob-noisy/fN or bbob-noisy/fN/iI`},
		{"bbob-noisy/", 3, `function "" is not f followed by digits`},
		{"bbob-noisy/f100", 3, `bbob-noisy function must be 101 … 130, got 100`},
		{"bbob-noisy/f131/i1", 3, `got 131`},
		{"bbob-noisy/f1", 3, `got 1`},
		{"bbob-noisy/f99999999999999999999", 3, `is out of range`},
		{"bbob-noisy/f-101", 3, `function "f-101" is not f followed by digits`},
		{"bbob-noisy/f101/i0", 3, `bbob-noisy instance must be 1 … 214648, got 0`},
		{"bbob-noisy/f101/i214649", 3, `got 214649`},
		{"bbob-noisy/f101/1", 3, `instance "1" is not i followed by digits`},
		{"bbob-noisy/f101/i1/d3", 3, `is not of the form`},
		{"bbob-noisy/f101/i1:seed=2", 3, `bbob-noisy problems take no parameters`},
		{"bbob-noisy/f101", 1, `bbob-noisy/f101/i1 needs dimension >= 2, got 1`},
		{"bbob-noisy/f101", -3, `got -3`},
		{"bbob-noisy/f101", MaxMatrixDim + 1, `supports dimensions up to 2000, got 2001`},
		{"bbob-noisyf101", 3, `unknown problem "bbob-noisyf101"`},
	} {
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
}

// BenchmarkBBOBNoisy measures the three evaluations of a noisy function of
// each noise model at d = 40: COCO's sequence (two or three runs of the
// legacy generator per call), the keyed noise and the noise-free value.
func BenchmarkBBOBNoisy(b *testing.B) {
	const dim = 40
	x := referencePoint(1, 1, dim, 1)
	for _, f := range []int{107, 108, 109, 128} {
		p, err := NewBBOBNoisy(f, 1, dim)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"Eval", "EvalKeyed", "Noiseless"} {
			b.Run(fmt.Sprintf("f%d/%s/d=%d", f, mode, dim), func(b *testing.B) {
				sink, key := 0.0, uint64(0)
				for b.Loop() {
					switch mode {
					case "Eval":
						sink += p.Eval(x)
					case "EvalKeyed":
						key++
						sink += p.EvalKeyed(x, 1, key)
					default:
						sink += p.Noiseless(x)
					}
				}
				if math.IsNaN(sink) {
					b.Fatal("NaN")
				}
			})
		}
	}
}
