package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/coco"
	"github.com/hees-dev/hees/internal/refalg"
)

// TestBenchSeedAndLabel checks the documented seed formula against FNV-1a
// computed here, and that the folder name is the strategy's Name().
func TestBenchSeedAndLabel(t *testing.T) {
	j := Job{Strategy: "hees", Function: 12, Dim: 20, Instance: 7}
	hash := uint64(14695981039346656037)
	for _, c := range []byte("hees/f12/d20/i7") {
		hash ^= uint64(c)
		hash *= 1099511628211
	}
	if j.Seed() != hash {
		t.Errorf("seed %d, want FNV-1a-64 %d", j.Seed(), hash)
	}
	// Each job's label is its strategy's Name(); BIPOP skips cma11, which
	// has no population.
	g := &Grid{Strategies: []string{"hees", "cma11"}, Restarts: []es.Restarts{es.RestartsNone, es.RestartsIPOP, es.RestartsBIPOP},
		Functions: []int{1}, Dims: []int{2}, Instances: []int{1}}
	var labels []string
	for _, j := range g.Jobs() {
		s, err := es.NewRestarting(j.Strategy, j.Restarts, es.Config{Dim: 2, Seed: 1}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if j.Label != s.Name() {
			t.Errorf("label %q, strategy name %q", j.Label, s.Name())
		}
		labels = append(labels, j.Label)
	}
	if got, want := strings.Join(labels, " "), "hees ipop-hees bipop-hees cma11 ipop-cma11"; got != want {
		t.Errorf("labels %q, want %q", got, want)
	}
}

// checkContains reports each of wants that table lacks.
func checkContains(t *testing.T, table string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestBenchRatioTable checks the cells of an ERT ratio table on made-up
// runs: a ratio, "∞", "0", "—" and the success counts.
func TestBenchRatioTable(t *testing.T) {
	run := func(f, inst, evals, hitAt, lowest int) *coco.Run {
		r := &coco.Run{Problem: coco.Problem{Function: f, Instance: inst, Dim: 2}, Evals: evals, BestDelta: 1}
		for k := coco.MaxTargetLevel; k >= lowest && hitAt > 0; k-- {
			r.Hits[coco.MaxTargetLevel-k] = hitAt
		}
		return r
	}
	byLabel := map[string][]*coco.Run{
		"hees": {
			run(1, 1, 100, 100, coco.MinTargetLevel), run(1, 2, 50, 50, coco.MinTargetLevel), // f1: ERT 75
			run(2, 1, 500, 0, 0), run(2, 2, 500, 0, 0), // f2: nothing
			run(3, 1, 40, 40, coco.MinTargetLevel), run(3, 2, 500, 10, 5), // f3: 1e1 at 10; 1e-8 once
		},
		"cmaes": {
			run(1, 1, 150, 150, coco.MinTargetLevel), run(1, 2, 150, 150, coco.MinTargetLevel), // f1: ERT 150
			run(2, 1, 300, 300, coco.MinTargetLevel), run(2, 2, 500, 0, 0), // f2: once
			run(3, 1, 500, 0, 0), run(3, 2, 500, 0, 0), // f3: nothing
		},
	}
	g := &Grid{Functions: []int{1, 2, 3}, Instances: []int{1, 2}, Budget: 250}
	table := string(g.ratioTable(2, "0.1.0", "hees", "cmaes", byLabel))
	checkContains(t, table,
		"# ERT ratio hees / cmaes, d = 2\n",
		"| f | 1e1 | 1e-1 | 1e-3 | 1e-5 | 1e-8 |\n",
		"| 1 | 0.5 | 0.5 | 0.5 | 0.5 | 0.5 |\n",
		"| 2 | ∞ (0/1) | ∞ (0/1) | ∞ (0/1) | ∞ (0/1) | ∞ (0/1) |\n",
		"| 3 | 0 (2/0) | 0 (1/0) | 0 (1/0) | 0 (1/0) | 0 (1/0) |\n",
		"hees 0.1.0 bench, BBOB f1-3, 2 instances, budget 250·d",
		"1e1: 1 of 1, 1e-1: 1 of 1, 1e-3: 1 of 1, 1e-5: 1 of 1, 1e-8: 1 of 1.",
	)
	byLabel["cmaes"] = byLabel["cmaes"][:4]
	byLabel["hees"] = byLabel["hees"][:4]
	if table := string(g.ratioTable(2, "0.1.0", "hees", "cmaes", byLabel)); !strings.Contains(table, "| 3 | — | — | — | — | — |\n") {
		t.Errorf("a function neither reached is not —:\n%s", table)
	}
}

// TestRefTable checks a table of ratios to best 2009 on made-up runs in
// d = 10, by hand: best 2009 needs 23 evaluations on f1 and 4739 on f10
// to reach 1e-7 (its files). f1: runs at 46 and 92 evaluations, ERT 69,
// ratio 3. f10: one run of two at 9478, the other stopped after 9478, ERT
// 18956, ratio 4. f2: no run, ∞. Geometric mean sqrt(3·4) = 3.46 over 2
// functions, 1 solved only by best 2009.
func TestRefTable(t *testing.T) {
	run := func(f, evals, hitAt int) *coco.Run {
		r := &coco.Run{Problem: coco.Problem{Function: f, Instance: 1, Dim: 10}, Evals: evals, BestDelta: 1}
		for k := coco.MaxTargetLevel; k >= refLevel && hitAt > 0; k-- {
			r.Hits[coco.MaxTargetLevel-k] = hitAt
		}
		return r
	}
	byLabel := map[string][]*coco.Run{"ipop-hees": {
		run(1, 46, 46), run(1, 92, 92),
		run(2, 1000, 0),
		run(10, 9478, 9478), run(10, 9478, 0),
	}}
	best, err := refalg.Load(refalg.Best2009)
	if err != nil {
		t.Fatal(err)
	}
	comps, err := compareWithReference(best, 10, []string{"ipop-hees"}, byLabel)
	if err != nil {
		t.Fatal(err)
	}
	g := &Grid{Functions: []int{1, 2, 10}, Instances: []int{1, 2}, Budget: 1e4}
	table := string(g.refTable(g.references()[0], 10, "0.1.0", comps))
	checkContains(t, table,
		"# ERT / ERT_best2009 at 1e-7, d = 10\n",
		"hees 0.1.0 bench, BBOB f1-2,10, 2 instances, budget 10000·d",
		"| f | ipop-hees |\n| ---: | ---: |\n",
		"| 1 | 3 |\n| 2 | ∞ |\n| 10 | 4 (1/2) |\n",
		"| geometric mean | 3.46 |\n| functions in the mean | 2 |\n| solved only by best2009 | 1 |\n",
	)
	var console strings.Builder
	printRefMeans(&console, g.references()[0], 10, comps)
	if want := "ipop-hees    d=10  ERT/ERT_best2009 at 1e-7: geometric mean 3.46 over 2 functions, 1 solved only by best2009\n"; console.String() != want {
		t.Errorf("console line\n%q, want\n%q", console.String(), want)
	}
}

// TestThinSteps checks the thinned ECDF corners on a dense made-up step
// function: every kept corner is an original one, the first and last are
// kept, the thinned curve is never above the exact one and lags it by less
// than ecdfResolution, and the points are far fewer.
func TestThinSteps(t *testing.T) {
	var x, y []float64
	for i := range 20000 {
		x = append(x, float64(i)*1e-4+float64(i%7)*1e-5)
		y = append(y, float64(i+1)/20000)
	}
	tx, ty := thinSteps(x, y)
	if len(tx) > 1000 || tx[0] != x[0] || ty[0] != y[0] || tx[len(tx)-1] != x[len(x)-1] || ty[len(ty)-1] != y[len(y)-1] {
		t.Fatalf("%d corners kept, first (%v, %v), last (%v, %v)", len(tx), tx[0], ty[0], tx[len(tx)-1], ty[len(ty)-1])
	}
	// step(xs, ys, v): the value of a step function at v.
	step := func(xs, ys []float64, v float64) float64 {
		value := 0.0
		for i := range xs {
			if xs[i] <= v {
				value = ys[i]
			}
		}
		return value
	}
	j := 0
	for i := range tx {
		for j < len(x) && x[j] != tx[i] {
			j++
		}
		if j == len(x) || y[j] != ty[i] {
			t.Fatalf("kept corner (%v, %v) is not an original one", tx[i], ty[i])
		}
	}
	for v := 0.0; v < 2.01; v += 0.0037 {
		exact, thin := step(x, y, v), step(tx, ty, v)
		if thin > exact || thin < step(x, y, v-ecdfResolution) {
			t.Errorf("at %v: thinned %v, exact %v, exact %v earlier %v", v, thin, exact, ecdfResolution, step(x, y, v-ecdfResolution))
		}
	}
}

// TestGridRunBadGrid checks that a Grid that cannot run is one error line
// before any run, and writes nothing.
func TestGridRunBadGrid(t *testing.T) {
	good := Grid{Strategies: []string{"hees"}, Functions: []int{1}, Dims: []int{2}, Instances: []int{1}, Budget: 10, Sigma0: 2}
	for _, c := range []struct {
		change func(*Grid)
		want   string
	}{
		{func(g *Grid) { g.Strategies = []string{"nope"} }, `unknown strategy "nope"`},
		{func(g *Grid) { g.Functions = nil }, "the grid is empty"},
		{func(g *Grid) { g.Budget = 0 }, "Budget 0"},
		{func(g *Grid) { g.Budget = 0.4; g.Dims = []int{2, 3} }, "Budget 0.4 gives no evaluation in d = 2"},
		{func(g *Grid) { g.Sigma0 = math.Inf(1) }, "Sigma0 +Inf"},
		{func(g *Grid) { g.Workers = -1 }, "Workers -1"},
		{func(g *Grid) { g.Out = "" }, "no output directory"},
		{func(g *Grid) { g.Lambda = 24 }, "Config.Lambda = 24"},
		{func(g *Grid) { g.Strategies = []string{"hees", "cmaes"}; g.Pairs = 8 }, "Config.Pairs = 8"},
		{func(g *Grid) { g.Restarts = []es.Restarts{"lpop"} }, `restarts "lpop": want one of none, ipop, bipop`},
		{func(g *Grid) { g.Restarts = []es.Restarts{es.RestartsIPOP, es.RestartsIPOP} }, `restarts "ipop" given twice`},
		{func(g *Grid) { g.Strategies, g.Restarts = []string{"cma11"}, []es.Restarts{es.RestartsBIPOP} }, "no strategy of cma11 supports the restarts [bipop]"},
	} {
		g := good
		g.Out = filepath.Join(t.TempDir(), "out")
		c.change(&g)
		err := g.Run(context.Background(), io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), "bench: ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v, want one line with %q", err, c.want)
		}
		if g.Out != "" {
			if _, err := os.Stat(g.Out); !os.IsNotExist(err) {
				t.Errorf("%q: the bench wrote %s", c.want, g.Out)
			}
		}
	}
}

// TestGridPopulation runs hees with 8 pairs: the record keeps the
// population, a run of the COCO data evaluates whole generations of 17,
// and the same bench with another population refuses the records.
func TestGridPopulation(t *testing.T) {
	g := Grid{Strategies: []string{"hees"}, Functions: []int{2}, Dims: []int{3}, Instances: []int{1}, Budget: 60, Sigma0: 2, Pairs: 8, Workers: 1}
	g.Out = filepath.Join(t.TempDir(), "out")
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	j := g.Jobs()[0]
	r, err := g.load(j)
	if err != nil || r == nil {
		t.Fatalf("record: %v", err)
	}
	if r.pairs != 8 || r.run.Evals%17 != 0 || r.run.Evals == 0 {
		t.Errorf("record with pairs %d and %d evaluations, want 8 and a multiple of 17", r.pairs, r.run.Evals)
	}
	g.Pairs = 9
	if _, err := g.load(j); !errors.Is(err, errSettings) {
		t.Errorf("a record of 8 pairs loaded for a bench of 9: %v", err)
	}
}

// TestGridSuites runs one small grid on each COCO suite besides bbob and
// checks what is particular to it: on bbob-noisy the record holds the
// noise-free values (its best Δ is that of the best noise-free value the
// observer saw, and a run that reaches 1e-8 stops there by the target);
// on bbob-mixint every point lies in the problem's domains (runJob counts
// the points outside the bounds, and fails a run that has any); the .info
// files name the suite; the records name it and a bench of another suite
// refuses them.
func TestGridSuites(t *testing.T) {
	for _, c := range []struct {
		suite     string
		functions []int
		dim       int
		refs      int
	}{
		{"bbob-noisy", []int{101, 108}, 2, 2},
		{"bbob-largescale", []int{1}, 20, 1},
		{"bbob-mixint", []int{1, 21}, 5, 0},
	} {
		t.Run(c.suite, func(t *testing.T) {
			g := Grid{Suite: c.suite, Strategies: []string{es.HEES2}, Functions: c.functions, Dims: []int{c.dim},
				Instances: []int{1}, Budget: 400, Sigma0: 2, Workers: 1, Out: filepath.Join(t.TempDir(), "out")}
			if err := g.Run(context.Background(), io.Discard); err != nil {
				t.Fatal(err)
			}
			if len(g.references()) != c.refs {
				t.Errorf("%d references, want %d", len(g.references()), c.refs)
			}
			j := g.Jobs()[0]
			r, err := g.load(j)
			if err != nil || r == nil || r.suite != c.suite {
				t.Fatalf("record: %v, %+v", err, r)
			}
			info, err := os.ReadFile(filepath.Join(g.Out, es.HEES2, fmt.Sprintf("bbobexp_f%d.info", j.Function)))
			if err != nil || !strings.HasPrefix(string(info), "suite = '"+c.suite+"'") {
				t.Errorf("the .info file: %v, %.60q", err, info)
			}
			// A noisy value is at least f* + 1.01e-8 (COCO's bbob-noisy adds
			// it to every value): only the noise-free values reach 1e-8.
			if c.suite == "bbob-noisy" && (r.run.BestDelta > 1e-8 || r.reason != es.ReasonTarget) {
				t.Errorf("the sphere with moderate noise: best Δ %g, stopped by %q; want 1e-8 and the target", r.run.BestDelta, r.reason)
			}
			other := g
			other.Suite = "bbob"
			other.Functions, other.Dims = []int{1}, []int{c.dim}
			if _, err := other.load(Job{Strategy: j.Strategy, Label: j.Label, Function: j.Function, Dim: j.Dim, Instance: 1}); !errors.Is(err, errSettings) {
				t.Errorf("a %s record loaded for a bbob bench: %v", c.suite, err)
			}
		})
	}
}

// TestGridMargin runs hees2 and cmaes with -margin on bbob-mixint beside
// hees (which takes no discrete coordinates): the runs of hees2 and cmaes
// get labels ending in -margin and the seeds of the runs without it, every
// point lies in the domains with whole numbers on the integer coordinates
// (runJob fails a run with a point outside the bounds), and Margin is
// refused off bbob-mixint or with a box.
func TestGridMargin(t *testing.T) {
	g := Grid{Suite: "bbob-mixint", Strategies: []string{es.HEES2, es.CMAES, es.HEES}, Restarts: []es.Restarts{es.RestartsIPOP},
		Functions: []int{1, 3}, Dims: []int{5}, Instances: []int{1}, Budget: 300, Sigma0: 2, Workers: 1, Margin: true,
		Out: filepath.Join(t.TempDir(), "out")}
	var labels []string
	for _, j := range g.Jobs() {
		if !slices.Contains(labels, j.Label) {
			labels = append(labels, j.Label)
		}
		plain := j
		plain.Label = strings.TrimSuffix(j.Label, "-margin")
		if j.Seed() != plain.Seed() {
			t.Errorf("%s: the seed differs from the run without margin", j.Label)
		}
	}
	if want := []string{"ipop-hees2-margin", "ipop-cmaes-margin", "ipop-hees"}; !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	r, err := g.load(g.Jobs()[0])
	if err != nil || r == nil || r.strategy != "ipop-hees2-margin" {
		t.Fatalf("record %+v: %v", r, err)
	}
	for _, bad := range []func(*Grid){
		func(g *Grid) { g.Suite = "bbob" },
		func(g *Grid) { g.Lower = []float64{0} },
	} {
		b := g
		b.Out = filepath.Join(t.TempDir(), "out")
		bad(&b)
		if err := b.Run(context.Background(), io.Discard); err == nil || !strings.Contains(err.Error(), "Margin is for bbob-mixint") {
			t.Errorf("%v", err)
		}
	}
}
