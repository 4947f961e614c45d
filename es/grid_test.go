package es

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

var (
	gridFlag  = flag.Bool("grid", false, "TestClassicGrid: measure the classic grid and print the table")
	gridAlgos = flag.String("grid.algos", "hees2,hees", "TestClassicGrid: comma-separated strategies")
	gridDims  = flag.String("grid.dims", "2,5,10,20,40", "TestClassicGrid: comma-separated dimensions")
)

// The classic grid: x0 = (3, …, 3), sigma0 = 2, target f <= 1e-8, seeds
// 1..15, one run per seed without restarts.
const (
	gridTarget = 1e-8
	gridSeeds  = 15
	gridX0     = 3
)

// gridFunctions are the problem specs of the classic grid with their
// column names.
var gridFunctions = []struct{ name, spec string }{
	{"sphere", "sphere"},
	{"ellipsoid", "ellipsoid:cond=1e6"},
	{"rotellipsoid", "rotellipsoid:cond=1e6"},
	{"cigar", "cigar:cond=1e6"},
	{"discus", "discus:cond=1e6"},
	{"rosenbrock", "rosenbrock"},
}

// gridPycma are pycma 4.4.0's medians with its defaults on the classic grid
// (evaluations to 1e-8, median of 15), where they are known.
var gridPycma = map[string]int{
	"sphere/2": 241, "ellipsoid/2": 468, "rotellipsoid/2": 457, "cigar/2": 459, "rosenbrock/2": 371,
	"sphere/10": 1448, "ellipsoid/10": 4174, "rotellipsoid/10": 4059, "cigar/10": 4079,
	"discus/10": 2972, "rosenbrock/10": 5456,
	"rosenbrock/20": 17016,
	"cigar/40":      15978,
}

// gridRun runs strategy name from x0 = (3, …, 3) with sigma0 = 2 and the
// given seed, and returns the number of evaluations up to and including
// the first value <= gridTarget in candidate order, or -1 when the
// strategy stops or the budget runs out first.
func gridRun(t testing.TB, name string, p objectives.Problem, d int, seed uint64, budget int) int {
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = gridX0
	}
	s, err := New(name, Config{Dim: d, Seed: seed, Sigma0: 2, X0: x0})
	if err != nil {
		t.Fatal(err)
	}
	var pop linalg.Dense
	vals := make([]float64, s.PopulationSize())
	for s.Stop() == "" && s.Evals() < budget {
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		rows, _ := pop.Dims()
		for i := range rows {
			vals[i] = p.Eval(pop.RawRow(i))
			if vals[i] <= gridTarget {
				return s.Evals() + i + 1
			}
		}
		if err := s.Tell(vals[:rows]); err != nil {
			t.Fatal(err)
		}
	}
	return -1
}

// gridCell is the result of one strategy on one function and dimension:
// the median evaluations to the target over the seeds (a failed run counts
// as +Inf) and the number of successful runs.
type gridCell struct {
	median float64
	solved int
}

// measureGridCell runs seeds 1..gridSeeds of strategy name on spec in
// dimension d.
func measureGridCell(t testing.TB, name, spec string, d int) gridCell {
	p, err := objectives.Parse(spec, d)
	if err != nil {
		t.Fatal(err)
	}
	budget := max(100000, 5000*d)
	evals := make([]float64, gridSeeds)
	var c gridCell
	for i := range evals {
		n := gridRun(t, name, p, d, uint64(i+1), budget)
		if n < 0 {
			evals[i] = math.Inf(1)
			continue
		}
		evals[i] = float64(n)
		c.solved++
	}
	slices.Sort(evals)
	c.median = evals[gridSeeds/2]
	return c
}

// TestClassicGrid measures the strategies of -grid.algos on the classic
// grid (sphere, ellipsoid, rotated ellipsoid, cigar and discus with
// condition 1e6, Rosenbrock) in the dimensions of -grid.dims and prints one
// row per cell: the median evaluations to 1e-8 and the successful runs of
// each strategy, pycma's median where known, and the ratio of the first
// strategy's median to pycma's. It runs only with -grid:
//
//	go test ./es -run TestClassicGrid -grid -v
func TestClassicGrid(t *testing.T) {
	if !*gridFlag {
		t.Skip("measurement; run with -grid")
	}
	algos := strings.Split(*gridAlgos, ",")
	var dims []int
	for _, f := range strings.Split(*gridDims, ",") {
		var d int
		if _, err := fmt.Sscan(f, &d); err != nil || d < 2 {
			t.Fatalf("-grid.dims: bad dimension %q", f)
		}
		dims = append(dims, d)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-13s %3s", "function", "d")
	for _, a := range algos {
		fmt.Fprintf(&b, " %14s", a)
	}
	fmt.Fprintf(&b, " %8s %7s\n", "pycma", "ratio")
	ahead, known := 0, 0
	for _, d := range dims {
		for _, fn := range gridFunctions {
			fmt.Fprintf(&b, "%-13s %3d", fn.name, d)
			var first gridCell
			for i, a := range algos {
				c := measureGridCell(t, a, fn.spec, d)
				if i == 0 {
					first = c
				}
				fmt.Fprintf(&b, " %8.0f %2d/%d", c.median, c.solved, gridSeeds)
			}
			if ref, ok := gridPycma[fmt.Sprintf("%s/%d", fn.name, d)]; ok {
				known++
				if first.median < float64(ref) && first.solved == gridSeeds {
					ahead++
				}
				fmt.Fprintf(&b, " %8d %7.2f\n", ref, first.median/float64(ref))
			} else {
				fmt.Fprintf(&b, " %8s %7s\n", "-", "-")
			}
		}
	}
	fmt.Fprintf(&b, "%s ahead of pycma in %d of the %d cells with a known pycma median\n", algos[0], ahead, known)
	t.Log("\n" + b.String())
}
