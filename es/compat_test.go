package es

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// TestLoadOldStates loads the states in testdata/states-v2, written by
// hees before the table of strategies (formats 1 and 2: every strategy's
// state held A, es11's the identity; see testdata/states-v2/README). Each
// loads; a strategy that keeps A writes it back byte for byte; and the
// loaded strategy, saved again in the present format and loaded once more,
// asks the same candidates and learns the same from them as the first for
// ten generations (es11 is saved in format 3, without the identity).
func TestLoadOldStates(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "states-v2", "*.state"))
	if err != nil || len(files) < 30 {
		t.Fatalf("%d old states (%v), want the 36 of testdata/states-v2", len(files), err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".state"), func(t *testing.T) {
			old, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s1, err := Load(old)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			data, err := s1.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			es11Inside := strings.Contains(string(old), ES11+"/v")
			if !es11Inside && !bytes.Equal(data, old) {
				t.Errorf("saved again, the state differs from the old one (%d bytes, %d before)", len(data), len(old))
			}
			if es11Inside && !strings.Contains(string(data), ES11+"/v3\n") {
				t.Errorf("es11 saved again in %q, want format 3", data[:min(len(data), 20)])
			}
			s2, err := Load(data)
			if err != nil {
				t.Fatalf("Load of the state saved again: %v", err)
			}
			var pop1, pop2 linalg.Dense
			for g := 0; g < 10 && s1.Stop() == ""; g++ {
				v1 := askTellGeneration(t, s1, compatObjective, &pop1)
				v2 := askTellGeneration(t, s2, compatObjective, &pop2)
				if !slices.Equal(v1, v2) || s1.Sigma() != s2.Sigma() || !slices.Equal(s1.Mean(nil), s2.Mean(nil)) {
					t.Fatalf("generation %d after loading: the two copies differ", g)
				}
			}
			x1, f1 := s1.Best()
			x2, f2 := s2.Best()
			if f1 != f2 || !slices.Equal(x1, x2) || s1.Evals() != s2.Evals() || s1.Stop() != s2.Stop() {
				t.Errorf("best %v at %v and %v at %v, evaluations %d and %d", f1, x1, f2, x2, s1.Evals(), s2.Evals())
			}
		})
	}
}

// compatObjective is the objective the old states were written with: a
// shifted ellipsoid, sum_i (i+1) (x_i - 0.3)^2.
func compatObjective(x []float64) float64 {
	var s float64
	for i, v := range x {
		s += float64(float64(i+1) * float64((v-0.3)*(v-0.3)))
	}
	return s
}
