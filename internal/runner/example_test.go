package runner_test

import (
	"context"
	"fmt"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/objectives"
)

// ExampleRun runs hees on the 2-D sphere until the target, as hees run
// -f sphere -d 2 -q does, without files or checkpoints.
func ExampleRun() {
	problem, err := objectives.Parse("sphere", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := es.New("hees", es.Config{Dim: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	target := 1e-8
	rs := &checkpoint.Settings{Algo: "hees", Seed: 1, Dim: 2, MaxEvals: 20000, Target: &target, Workers: 1}
	res, failures, err := runner.Run(context.Background(), runner.Config{Settings: rs, Problem: problem, Strategy: s})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Reason, res.F <= target, len(failures))
	// Output: target reached true 0
}
