package es_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/linalg"
)

// Minimise the Rosenbrock function in 4 dimensions with the recommended
// strategy (hees2), evaluating each generation with 2 goroutines, until
// f <= 1e-10.
func ExampleMinimize() {
	rosenbrock := es.Func(func(x []float64) float64 {
		var f float64
		for i := 0; i+1 < len(x); i++ {
			a, b := x[i+1]-x[i]*x[i], 1-x[i]
			f += 100*a*a + b*b
		}
		return f
	})
	s, err := es.New(es.Recommended, es.Config{Dim: 4, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	target := 1e-10
	res, err := es.Minimize(context.Background(), rosenbrock, s, es.Options{
		Workers:  2,
		MaxEvals: 100000,
		Target:   &target,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Reason)
	fmt.Printf("x = %.4f\n", res.X)
	// Output:
	// target reached
	// x = [1.0000 1.0000 1.0000 1.0000]
}

// An explicit ask/tell loop: the caller evaluates the candidates itself
// (here in row order; any order or parallel evaluation gives the same run).
func Example_askTell() {
	f := func(x []float64) float64 { // an ellipse centred at (1, -2)
		a, b := x[0]-1, x[1]+2
		return a*a + 1e4*b*b
	}
	s, err := es.New("hees14", es.Config{Dim: 2, Seed: 7})
	if err != nil {
		log.Fatal(err)
	}
	var pop linalg.Dense // reused every generation: no allocation
	var values []float64
	for s.Stop() == "" {
		if err := s.Ask(&pop); err != nil {
			log.Fatal(err)
		}
		rows, _ := pop.Dims()
		values = values[:0]
		for i := range rows {
			values = append(values, f(pop.RawRow(i)))
		}
		if err := s.Tell(values); err != nil {
			log.Fatal(err)
		}
		if _, best := s.Best(); best < 1e-12 {
			break
		}
	}
	x, _ := s.Best()
	fmt.Printf("x = %.4f\n", x)
	// Output:
	// x = [1.0000 -2.0000]
}

// IPOP restarts the full HE-ES with doubled pairs whenever it stops; the
// budget is shared across the restarts.
func ExampleNewIPOP() {
	rastrigin := es.Func(func(x []float64) float64 {
		f := 10 * float64(len(x))
		for _, v := range x {
			f += v*v - 10*math.Cos(2*math.Pi*v)
		}
		return f
	})
	s, err := es.NewIPOP("hees", es.Config{Dim: 3, Seed: 3}, es.IPOPConfig{})
	if err != nil {
		log.Fatal(err)
	}
	target := 1e-8
	res, err := es.Minimize(context.Background(), rastrigin, s, es.Options{MaxEvals: 50000, Target: &target})
	if err != nil {
		log.Fatal(err)
	}
	for i, v := range res.X {
		res.X[i] = math.Round(v*1e4)/1e4 + 0 // + 0 turns -0 into 0
	}
	fmt.Println(res.Reason)
	fmt.Printf("x = %.4f\n", res.X)
	// Output:
	// target reached
	// x = [0.0000 0.0000 0.0000]
}
