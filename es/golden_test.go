package es

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

var update = flag.Bool("update", false, "rewrite the golden trajectories and the FuzzLoad seed corpus in testdata/")

// goldenGenerations is the length of the golden trajectories.
const goldenGenerations = 100

// hexFloat writes v so that any change of a bit shows ('x' format).
func hexFloat(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }

// hexFloats writes a vector with hexFloat, separated by commas.
func hexFloats(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = hexFloat(x)
	}
	return strings.Join(parts, ",")
}

// stateLine renders the state of s after a generation, bit for bit:
// generation, evaluations, sigma, best value, the generation's values and
// the mean.
func stateLine(s Strategy, values []float64) string {
	_, best := s.Best()
	return fmt.Sprintf("%d %d sigma=%s best=%s f=%s m=%s", s.Generation(), s.Evals(),
		hexFloat(s.Sigma()), hexFloat(best), hexFloats(values), hexFloats(s.Mean(nil)))
}

// matrixLines renders a matrix row by row, bit for bit.
func matrixLines(a *linalg.Dense) string {
	r, _ := a.Dims()
	var b strings.Builder
	for i := range r {
		fmt.Fprintf(&b, "A[%d]=%s\n", i, hexFloats(a.RawRow(i)))
	}
	return b.String()
}

// goldenProblem is the rotated ellipsoid of the golden trajectories.
func goldenProblem(t testing.TB) objectives.Problem {
	t.Helper()
	p, err := objectives.Parse("rotellipsoid:seed=1", 5)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// goldenTrajectory runs strategy name with seed 1 on the rotated ellipsoid in
// d = 5 for goldenGenerations generations (or until it stops) and renders a
// line per generation, then the final A of a strategy that has one.
func goldenTrajectory(t *testing.T, name string) []byte {
	p := goldenProblem(t)
	s, err := New(name, Config{Dim: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s, seed 1, %s in d = 5: generation evals sigma best f(rows) mean, floats in hex\n", name, p.Name())
	var pop linalg.Dense
	for range goldenGenerations {
		if reason := s.Stop(); reason != "" {
			fmt.Fprintf(&b, "stop %q\n", reason)
			break
		}
		values := askTellGeneration(t, s, p.Eval, &pop)
		b.WriteString(stateLine(s, values))
		b.WriteByte('\n')
	}
	if a := TransformOf(s); a != nil {
		b.WriteString(matrixLines(a))
	}
	return []byte(b.String())
}

// TestGoldenTrajectories compares the first 100 generations of each
// strategy with testdata/<name>.golden. Do not edit the golden files by
// hand; a change must be explained in the commit that runs -update.
func TestGoldenTrajectories(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			got := goldenTrajectory(t, name)
			golden.Check(t, filepath.Join("testdata", name+".golden"), got, *update)
		})
	}
}
