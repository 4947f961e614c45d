package es_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/hees-dev/hees/es"
)

// Map a few points of the unbounded space into a box: the first coordinate
// lies in [0, 1], the second has only the lower bound 2, the third is free.
// Points well inside stay as they are; the others are folded into the box.
func ExampleBounds_Map() {
	b := &es.Bounds{
		Lower: []float64{0, 2, math.Inf(-1)},
		Upper: []float64{1, math.Inf(1), math.Inf(1)},
	}
	if err := b.Check(3); err != nil {
		log.Fatal(err)
	}
	y := make([]float64, 3)
	for _, x := range [][]float64{
		{0.5, 3, -7},    // inside: unchanged
		{1.02, 2.06, 0}, // near a bound: the parabola
		{1.3, -1, 1e9},  // beyond: mirrored back
		{-40.2, 1.9, math.Inf(1)},
	} {
		b.Map(y, x)
		fmt.Printf("%v -> [%.4f %.4f %g] inside: %v\n", x, y[0], y[1], y[2], b.Contains(y))
	}
	// Inverse gives a preimage, for instance to start a strategy's mean at
	// a point of the box.
	x0 := make([]float64, 3)
	if err := b.Inverse(x0, []float64{0.999, 2, 5}); err != nil {
		log.Fatal(err)
	}
	b.Map(y, x0)
	fmt.Printf("Inverse: %.4f, mapped back: %.4f\n", x0, y)
	// Output:
	// [0.5 3 -7] -> [0.5000 3.0000 -7] inside: true
	// [1.02 2.06 0] -> [0.9955 2.0640 0] inside: true
	// [1.3 -1 1e+09] -> [0.8000 4.8000 1e+09] inside: true
	// [-40.2 1.9 +Inf] -> [0.5000 2.0000 +Inf] inside: true
	// Inverse: [1.0359 1.9000 5.0000], mapped back: [0.9990 2.0000 5.0000]
}

// Minimize a sphere whose minimum, at (2, 2, 2), lies outside the box
// [-1, 1] x [0, 10] x [-1, 1]: every point evaluated lies in the box, and
// the best point is on its boundary. A failing evaluation would be ranked
// worst (OnErrorWorst), and a known point is evaluated first (Inject).
func ExampleConfig_bounds() {
	box := &es.Bounds{Lower: []float64{-1, 0, -1}, Upper: []float64{1, 10, 1}}
	s, err := es.New("cmaes", es.Config{Dim: 3, Seed: 1, Bounds: box})
	if err != nil {
		log.Fatal(err)
	}
	outside := 0
	f := es.Func(func(x []float64) float64 {
		if !box.Contains(x) {
			outside++
		}
		var f float64
		for _, v := range x {
			f += (v - 2) * (v - 2)
		}
		return f
	})
	res, err := es.Minimize(context.Background(), f, s, es.Options{
		MaxEvals: 5000,
		OnError:  es.OnErrorWorst,
		Inject:   [][]float64{{0, 1, 0}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("best x [%.6f %.6f %.6f], f = %.6f, %d points outside the box\n", res.X[0], res.X[1], res.X[2], res.F, outside)
	// Output:
	// best x [1.000000 2.000000 1.000000], f = 2.000000, 0 points outside the box
}
