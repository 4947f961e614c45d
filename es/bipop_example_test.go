package es_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/hees-dev/hees/es"
)

// Minimise the Rastrigin function in 5 dimensions with the CMA-ES and
// BIPOP restarts until f <= 1e-8 or 100000 evaluations.
func ExampleNewBIPOP() {
	rastrigin := es.Func(func(x []float64) float64 {
		f := 10 * float64(len(x))
		for _, v := range x {
			f += v*v - 10*math.Cos(2*math.Pi*v)
		}
		return f
	})
	s, err := es.NewBIPOP("cmaes", es.Config{Dim: 5, Seed: 1, Box: 5}, es.BIPOPConfig{})
	if err != nil {
		log.Fatal(err)
	}
	target := 1e-8
	res, err := es.Minimize(context.Background(), rastrigin, s, es.Options{MaxEvals: 100000, Target: &target})
	if err != nil {
		log.Fatal(err)
	}
	small, large := s.Budgets()
	fmt.Println(res.Reason, res.Restarts > 0, small > 0, large > 0)
	// Output:
	// target reached true true true
}
