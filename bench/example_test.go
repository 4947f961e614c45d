package bench_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/hees-dev/hees/bench"
	"github.com/hees-dev/hees/es"
)

func ExampleGrid_Run() {
	out, err := os.MkdirTemp("", "bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)

	// hees and the CMA-ES with IPOP restarts on the sphere and the
	// Rastrigin function in 2-D, two instances each, 500·d evaluations.
	g := bench.Grid{
		Strategies: []string{"hees", "cmaes"},
		Restarts:   []es.Restarts{es.RestartsIPOP},
		Functions:  []int{1, 3},
		Dims:       []int{2},
		Instances:  []int{1, 2},
		Budget:     500,
		Sigma0:     2,
		Out:        out,
	}
	if err := g.Run(context.Background(), io.Discard); err != nil {
		log.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// best09-16_ratio_d2.md
	// best2009_ratio_d2.md
	// ecdf_d2.svg
	// ert_ratio_d2.md
	// ipop-cmaes
	// ipop-hees
	// runs
	// summary.csv
}
