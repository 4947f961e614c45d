package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
)

// TestGridBoundsEvaluatedInBox runs hees and cmaes with IPOP in the box
// [0.5, 1]^2, which leaves out the optimum of most instances: every point
// in the COCO data (the x columns of each .dat and .tdat line, the points
// of the logged evaluations) lies in the box, the runs find no point
// outside it either (runJob counts every evaluation), the record keeps the
// box, and the same bench with another box refuses the records.
func TestGridBoundsEvaluatedInBox(t *testing.T) {
	g := Grid{Strategies: []string{"hees", "cmaes"}, Restarts: []es.Restarts{es.RestartsIPOP}, Functions: []int{1, 3}, Dims: []int{2},
		Instances: []int{1, 2, 3}, Budget: 300, Sigma0: 2, Lower: []float64{0.5}, Upper: []float64{1}, Workers: 1}
	g.Out = filepath.Join(t.TempDir(), "out")
	if err := g.Run(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	points, onBound := 0, 0
	err := filepath.WalkDir(g.Out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "dat") || strings.HasSuffix(path, ".rdat") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			fields := strings.Fields(line)
			if strings.HasPrefix(line, "%") || len(fields) != 7 {
				continue
			}
			for _, w := range fields[5:] {
				x, err := strconv.ParseFloat(w, 64)
				if err != nil {
					return err
				}
				if !(x >= 0.5 && x <= 1) {
					t.Errorf("%s: x = %v outside [0.5, 1] in %q", path, x, line)
				}
				if x == 0.5 || x == 1 {
					onBound++
				}
			}
			points++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if points < 100 || onBound == 0 {
		t.Errorf("%d logged points, %d coordinates on a bound: the box was not exercised", points, onBound)
	}
	j := g.Jobs()[0]
	r, err := g.load(j)
	if err != nil || r == nil {
		t.Fatalf("record: %v", err)
	}
	if !slices.Equal(r.lower, []float64{0.5, 0.5}) || !slices.Equal(r.upper, []float64{1, 1}) {
		t.Errorf("record box %v, %v, want [0.5 0.5], [1 1]", r.lower, r.upper)
	}
	g.Upper = []float64{2}
	if _, err := g.load(j); !errors.Is(err, errSettings) {
		t.Errorf("a record of the box [0.5, 1] loaded for a bench in [0.5, 2]: %v", err)
	}
	g.Lower, g.Upper = nil, nil
	if _, err := g.load(j); !errors.Is(err, errSettings) {
		t.Errorf("a record with a box loaded for a bench without one: %v", err)
	}
}

// TestGridBoundsNeverActive runs the same grid without bounds and with a
// lower bound far below every candidate and no upper bound (a box that
// draws x0 as the unbounded run does, docs/ALGORITHMS.md Section 14.4):
// the COCO data files (.dat, .tdat, .rdat) are byte for byte the same.
func TestGridBoundsNeverActive(t *testing.T) {
	base := Grid{Strategies: []string{"hees", "cmaes"}, Restarts: []es.Restarts{es.RestartsIPOP}, Functions: []int{3, 15}, Dims: []int{2},
		Instances: []int{1, 2}, Budget: 400, Sigma0: 2, Workers: 1}
	data := func(g Grid) map[string][]byte {
		g.Out = filepath.Join(t.TempDir(), "out")
		if err := g.Run(context.Background(), io.Discard); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		err := filepath.WalkDir(g.Out, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "dat") {
				return err
			}
			rel, _ := filepath.Rel(g.Out, path)
			files[rel], err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	plain := data(base)
	bounded := base
	bounded.Lower = []float64{-1e300}
	boxed := data(bounded)
	if len(plain) == 0 || len(plain) != len(boxed) {
		t.Fatalf("%d data files without bounds, %d with", len(plain), len(boxed))
	}
	for name, want := range plain {
		if !bytes.Equal(boxed[name], want) {
			t.Errorf("%s differs with a never-active bound", name)
		}
	}
}

// TestGridBadBounds checks the errors of Lower and Upper.
func TestGridBadBounds(t *testing.T) {
	good := Grid{Strategies: []string{"hees"}, Functions: []int{1}, Dims: []int{2, 3}, Instances: []int{1}, Budget: 10, Sigma0: 2}
	for _, c := range []struct {
		lower, upper []float64
		want         string
	}{
		{[]float64{1, 2}, nil, "Lower has 2 numbers, want 1, or d with a single dimension"},
		{[]float64{3}, []float64{3}, "Lower[0] = 3 is not below Upper[0] = 3"},
		{[]float64{math.NaN()}, nil, "Lower[0] = NaN"},
		{nil, []float64{math.Inf(-1)}, "Upper[0] = -Inf"},
	} {
		g := good
		g.Out = filepath.Join(t.TempDir(), "out")
		g.Lower, g.Upper = c.lower, c.upper
		err := g.Run(context.Background(), io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), "bench: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bounds %v, %v: error %v, want %q", c.lower, c.upper, err, c.want)
		}
	}
}
