package es_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/objectives"
)

// keyedNoise evaluates a noisy problem of package objectives with the
// noise of evaluation key from seed 1, so that a run gives the same bits
// for any number of workers. Eval, which Minimize does not call on an
// es.KeyedProblem, draws the noise of key 0.
type keyedNoise struct{ p objectives.Noisy }

func (k keyedNoise) Eval(x []float64) float64                  { return k.p.EvalKeyed(x, 1, 0) }
func (k keyedNoise) EvalKeyed(x []float64, key uint64) float64 { return k.p.EvalKeyed(x, 1, key) }

// Minimise the sphere with additive Gaussian noise (sigma 0.01) in 5
// dimensions with hees2 and noise handling. The best single value is the
// luckiest draw, below f* = 0; the recommendation, here an average of the
// run's recent means, is the point to use.
func ExampleNewNoiseHandler() {
	p, err := objectives.Parse("sphere:noise=add,sigma=0.01", 5)
	if err != nil {
		log.Fatal(err)
	}
	noisy := p.(objectives.Noisy)
	s, err := es.New(es.HEES2, es.Config{Dim: 5, Seed: 1, X0: []float64{3, 3, 3, 3, 3}, Sigma0: 2})
	if err != nil {
		log.Fatal(err)
	}
	h, err := es.NewNoiseHandler(s, es.NoiseConfig{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := es.Minimize(context.Background(), keyedNoise{noisy}, h, es.Options{MaxEvals: 30000})
	if err != nil {
		log.Fatal(err)
	}
	r := res.Recommendation
	fmt.Println(res.Reason)
	fmt.Printf("best single value %.1e, its noise-free value %.1e\n", res.F, noisy.Noiseless(res.X))
	fmt.Printf("recommended: noise-free value %.1e, the average of %d means\n", noisy.Noiseless(r.X), r.Means)
	// Output:
	// max evaluations
	// best single value -3.6e-02, its noise-free value 4.6e-03
	// recommended: noise-free value 2.2e-05, the average of 1976 means
}
