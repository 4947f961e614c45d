package es_test

import (
	"fmt"
	"log"

	"github.com/hees-dev/hees/es"
)

func ExampleRun() {
	// A Run applies Minimize's stop rules to a loop that evaluates the
	// candidates itself (here in place; it could hand them to a job system
	// and keep the strategy's state and the reason between processes).
	s, err := es.New("hees", es.Config{Dim: 3, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	target := 1e-6
	run, err := es.NewRun(s, es.Limits{MaxEvals: 5000, Target: &target})
	if err != nil {
		log.Fatal(err)
	}
	var f []float64
	for {
		pop, err := run.Ask()
		if err != nil {
			log.Fatal(err)
		}
		if pop == nil {
			break // run.Reason() says why
		}
		rows, _ := pop.Dims()
		f = f[:0]
		for i := range rows {
			var sum float64
			for _, v := range pop.RawRow(i) {
				sum += v * v
			}
			f = append(f, sum)
		}
		if err := run.Tell(f); err != nil {
			log.Fatal(err)
		}
	}
	res := run.Result()
	fmt.Println(res.Reason, res.F <= target, res.Evals <= 5000)
	// Output:
	// target reached true true
}
