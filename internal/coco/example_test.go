package coco_test

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/coco"
)

// An Observer follows a run evaluation by evaluation; Finish returns the
// record from which the COCO files and the ERT are built.
func ExampleObserver() {
	o, err := coco.NewObserver(coco.Problem{Function: 1, Instance: 1, Dim: 2, Fopt: 79.48})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A made-up run whose distance to fopt halves at every evaluation.
	for i := range 40 {
		x := []float64{float64(i), 0}
		o.Observe(x, 79.48+math.Pow(0.5, float64(i)))
	}
	run := o.Finish()
	hit, _ := run.Hit(coco.MinTargetLevel)
	fmt.Printf("%d evaluations, solved: %v, 1e-8 reached at evaluation %d\n", run.Evals, run.Solved(), hit)

	files, err := coco.FilesWithHeader("halving", "an example", coco.Header{}, []*coco.Run{run})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Path)
	}
	fmt.Printf("%s", files[3].Data)
	// Output:
	// 40 evaluations, solved: true, 1e-8 reached at evaluation 28
	// data_f1/bbobexp_f1_DIM2.dat
	// data_f1/bbobexp_f1_DIM2.tdat
	// data_f1/bbobexp_f1_DIM2.rdat
	// bbobexp_f1.info
	// suite = 'bbob', funcId = 1, DIM = 2, Precision = 1.000e-08, algId = 'halving', coco_version = '', logger = 'bbob', data_format = 'bbob-new2', settings = ''
	// % an example
	// data_f1/bbobexp_f1_DIM2.dat, 1:40|1.8e-12
}

// ERT divides the evaluations of all runs, each until it reached the target
// or ended, by the number of runs that reached it.
func ExampleERT() {
	var runs []*coco.Run
	// Two made-up runs of 100 evaluations: f = 100·0.5^i reaches 1 at
	// evaluation 8 and 1e-8 at 35; f = 100·0.9^i reaches 1 at 45, never 1e-8.
	for inst, ratio := range []float64{0.5, 0.9} {
		o, _ := coco.NewObserver(coco.Problem{Function: 1, Instance: inst + 1, Dim: 2})
		for i := range 100 {
			o.Observe([]float64{0, 0}, 100*math.Pow(ratio, float64(i)))
		}
		runs = append(runs, o.Finish())
	}
	for _, k := range []int{0, -40} { // targets 1 and 1e-8
		ert, successes := coco.ERT(runs, k)
		fmt.Printf("target %g: ERT %.4g over %d successes\n", coco.Target(k), ert, successes)
	}
	// Output:
	// target 1: ERT 26.5 over 2 successes
	// target 1e-08: ERT 135 over 1 successes
}
