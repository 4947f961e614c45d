package refalg_test

import (
	"fmt"

	"github.com/hees-dev/hees/internal/refalg"
)

// Example compares a strategy's ERTs to 1e-7 with the best 2009 algorithm.
func Example() {
	best, err := refalg.Load(refalg.Best2009)
	if err != nil {
		fmt.Println(err)
		return
	}
	ert, _ := best.ERT(10, 20, 1e-7)
	fmt.Println("best 2009, f10 in 20-D:", ert)

	ratios, means, err := best.Compare(map[refalg.Cell]float64{
		{Function: 1, Dim: 10}:  46,
		{Function: 10, Dim: 10}: 8000,
	}, 1e-7)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range ratios {
		fmt.Printf("f%d d%d: %g / %g = %.2f\n", r.Function, r.Dim, r.ERT, r.Reference, r.Ratio)
	}
	for _, m := range means {
		fmt.Printf("d%d: geometric mean %.2f over %d functions\n", m.Dim, m.GeoMean, m.Functions)
	}
	// Output:
	// best 2009, f10 in 20-D: 17476
	// f1 d10: 46 / 23 = 2.00
	// f10 d10: 8000 / 4739 = 1.69
	// d10: geometric mean 1.84 over 2 functions
}
