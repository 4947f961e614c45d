package refalg

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestERT checks values read by hand from the .dat lines of the archives
// (data/PROVENANCE.md): the ERT to a target is the evaluations of the first
// line whose value is at most the target.
func TestERT(t *testing.T) {
	for _, c := range []struct {
		alg         string
		f, d        int
		target, ert float64
	}{
		// best2009 f1 d5: "12 1.0e-08 ... NEWUOA_ros" is the first line
		// below 1e-7 (cocopp's tables print 12 for f1 in 5-D).
		{Best2009, 1, 5, 1e-7, 12},
		// f1 d10: "23 1.0e-08 ... BFGS_ros"; "22 2.51e+00 ... NEWUOA_ros" before it.
		{Best2009, 1, 10, 1e-7, 23},
		{Best2009, 1, 10, 1, 23},
		{Best2009, 1, 10, 2.511886431509580e+00, 22},
		// f2 d10: "195 1.0e-07 ... LSfminbnd_posik", "196 1.0e-08".
		{Best2009, 2, 10, 1e-7, 195},
		{Best2009, 2, 10, 1e-8, 196},
		// f3 d10: "3651 1.0e-07 ... LSstep_posik".
		{Best2009, 3, 10, 1e-7, 3651},
		// f10 d20: "17476 1.0e-07 ... CMA-ESPLUSSEL_auger" (best 2009),
		// "2303 1.0e-07 ... BIPOP-saACM-k_loshchilov" (best 2009-2016).
		{Best2009, 10, 20, 1e-7, 17476},
		{Best0916, 10, 20, 1e-7, 2303},
		// f24 d20: "52041276 1.0e-07 ... BIPOP-CMA-ES_hansen 3 15".
		{Best2009, 24, 20, 1e-7, 52041276},
		// f20 d40: the last line is "161154556 1.0e-01": 1e-7 never reached.
		{Best2009, 20, 40, 0.1, 161154556},
		{Best2009, 20, 40, 1e-7, math.Inf(1)},
	} {
		a, err := Load(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.ERT(c.f, c.d, c.target)
		if err != nil || got != c.ert {
			t.Errorf("%s f%d d%d target %g: ERT %v, %v; want %v", c.alg, c.f, c.d, c.target, got, err, c.ert)
		}
	}
}

// sortedCells lists the functions and dimensions a has data for, by
// dimension, then function.
func sortedCells(a *Algorithm) []Cell {
	cells := make([]Cell, 0, len(a.cells))
	for c := range a.cells {
		cells = append(cells, c)
	}
	slices.SortFunc(cells, byDimThenFunction)
	return cells
}

// TestCells checks that both archives cover f1-f24 in d = 2, 3, 5, 10, 20, 40.
func TestCells(t *testing.T) {
	for _, name := range []string{Best2009, Best0916} {
		a, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Name() != name {
			t.Errorf("Name() = %q, want %q", a.Name(), name)
		}
		cells := sortedCells(a)
		if len(cells) != 6*24 {
			t.Fatalf("%s: %d cells, want 144", name, len(cells))
		}
		i := 0
		for _, d := range []int{2, 3, 5, 10, 20, 40} {
			for f := 1; f <= 24; f++ {
				if cells[i] != (Cell{f, d}) {
					t.Fatalf("%s: cell %d is %+v, want f%d d%d", name, i, cells[i], f, d)
				}
				i++
			}
		}
	}
}

// TestErrors checks the errors of the public functions.
func TestErrors(t *testing.T) {
	if _, err := Load("best2010"); err == nil || !strings.Contains(err.Error(), `unknown reference algorithm "best2010"`) {
		t.Errorf("Load(best2010): %v", err)
	}
	a, err := Load(Best2009)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ERT(25, 10, 1e-7); err == nil || !strings.Contains(err.Error(), "no data for f25 in dimension 10") {
		t.Errorf("ERT(f25): %v", err)
	}
	if _, err := a.ERT(1, 4, 1e-7); err == nil {
		t.Error("ERT(d = 4): no error")
	}
	if _, err := a.ERT(1, 10, math.NaN()); err == nil {
		t.Error("ERT(target NaN): no error")
	}
	if _, _, err := a.Compare(map[Cell]float64{{1, 10}: math.NaN()}, 1e-7); err == nil {
		t.Error("Compare with a NaN ERT: no error")
	}
	if _, _, err := a.Compare(map[Cell]float64{{1, 7}: 10}, 1e-7); err == nil {
		t.Error("Compare with d = 7: no error")
	}
	if _, err := parse("x", []byte("not gzip")); err == nil {
		t.Error("parse of a non-archive: no error")
	}
	for _, body := range []string{"1 2", "5 1e-1 1e-1 a 1 1\n4 1e-2 1e-2 a 1 1", "5 1e-1 1e-1 a 1 1\n6 1e-1 1e-1 a 1 1", "x 1 1"} {
		if _, err := parseDat([]byte(body)); err == nil {
			t.Errorf("parseDat(%q): no error", body)
		}
	}
}

// TestCompare checks the ratios and their geometric means on a made-up
// strategy against the hand-read reference values of TestERT.
func TestCompare(t *testing.T) {
	a, err := Load(Best2009)
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	ratios, means, err := a.Compare(map[Cell]float64{
		{1, 10}: 46, {2, 10}: 780, {3, 10}: inf, // 2, 4, only the reference
		{10, 20}: 17476, {20, 40}: inf, {1, 40}: 83 * 3, // 1, neither, 3
	}, 1e-7)
	if err != nil {
		t.Fatal(err)
	}
	want := []Ratio{
		{Cell{1, 10}, 46, 23, 2}, {Cell{2, 10}, 780, 195, 4}, {Cell{3, 10}, inf, 3651, inf},
		{Cell{10, 20}, 17476, 17476, 1},
		{Cell{1, 40}, 249, 83, 3}, {Cell{20, 40}, inf, inf, math.NaN()},
	}
	if len(ratios) != len(want) {
		t.Fatalf("%d ratios, want %d: %+v", len(ratios), len(want), ratios)
	}
	for i, r := range ratios {
		w := want[i]
		if r.Cell != w.Cell || r.ERT != w.ERT || r.Reference != w.Reference ||
			!(r.Ratio == w.Ratio || math.IsNaN(r.Ratio) && math.IsNaN(w.Ratio)) {
			t.Errorf("ratio %d = %+v, want %+v", i, r, w)
		}
	}
	wantMeans := []DimMean{
		{Dim: 10, GeoMean: math.Sqrt(8), Functions: 2, Unsolved: 1},
		{Dim: 20, GeoMean: 1, Functions: 1},
		{Dim: 40, GeoMean: 3, Functions: 1, Neither: 1},
	}
	if len(means) != len(wantMeans) {
		t.Fatalf("means %+v, want %+v", means, wantMeans)
	}
	for i, m := range means {
		w := wantMeans[i]
		if m.Dim != w.Dim || math.Abs(m.GeoMean-w.GeoMean) > 1e-15*w.GeoMean || m.Functions != w.Functions ||
			m.Unsolved != w.Unsolved || m.Neither != w.Neither {
			t.Errorf("mean %d = %+v, want %+v", i, m, w)
		}
	}
}

// TestSuiteReferences reads the references of the noisy and large-scale
// suites: bbob-noisy's best 2009 on f101 in d = 2, 5, 10, 20 and 40, and
// bbob-largescale's best 2019 on f1-f24 in d = 20 to 640, with finite
// ERTs to 1e1 on the sphere.
func TestSuiteReferences(t *testing.T) {
	for _, c := range []struct {
		suite     string
		functions []int
		dims      []int
	}{
		{"bbob-noisy", []int{101, 130}, []int{2, 5, 10, 20, 40}},
		{"bbob-largescale", []int{1, 24}, []int{20, 40, 80, 160, 320, 640}},
	} {
		names := ForSuite(c.suite)
		if len(names) == 0 {
			t.Fatalf("%s: no reference", c.suite)
		}
		for _, name := range names {
			a, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.functions {
				for _, d := range c.dims {
					if _, err := a.ERT(f, d, 1e-7); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			}
			if ert, err := a.ERT(c.functions[0], c.dims[0], 1e1); err != nil || math.IsInf(ert, 1) || ert < 1 {
				t.Errorf("%s: ERT to 1e1 on f%d d=%d: %v, %v", name, c.functions[0], c.dims[0], ert, err)
			}
		}
	}
	if names := ForSuite("bbob-mixint"); names != nil {
		t.Errorf("bbob-mixint has references %v", names)
	}
	if _, err := Load("best2019-bbob-mixint"); err == nil || !strings.Contains(err.Error(), Best2019LargeScale) {
		t.Errorf("an unknown reference: %v", err)
	}
}
