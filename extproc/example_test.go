package extproc_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/extproc"
)

func ExampleStart() {
	// The external program reads one two-dimensional point per line and
	// answers its squared norm (in integer arithmetic, which is all the
	// shell has). Two processes evaluate points in parallel.
	const command = `sh -c 'while read x y; do echo $((x*x + y*y)); done'`
	pool, err := extproc.Start(context.Background(), command, 2, extproc.Options{EvalTimeout: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range [][]float64{{1, 2}, {3, -4}} {
		v, err := pool.Eval(x)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(x, "->", v)
	}
	if err := pool.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [1 2] -> 5
	// [3 -4] -> 25
}

func ExampleEvalError() {
	// This program fails on its first point.
	const command = `sh -c 'read x; echo "no model for $x" >&2; exit 3'`
	pool, err := extproc.Start(context.Background(), command, 1, extproc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	_, err = pool.Eval([]float64{1.5, -2})
	var evalErr *extproc.EvalError
	if errors.As(err, &evalErr) {
		fmt.Println(evalErr.Point)
		fmt.Println(evalErr.Err)
		fmt.Print(evalErr.Stderr)
	}
	fmt.Println(errors.Is(err, extproc.ErrNoAnswer))
	// Output:
	// [1.5 -2]
	// no answer: the process exited (exit status 3)
	// no model for 1.5 -2
	// true
}

func Example_minimize() {
	// The external program answers the squared norm of each 2-D point
	// (awk computes it; the shell loop reads one line at a time).
	const command = `sh -c 'while read x y; do awk "BEGIN { print ($x)^2 + ($y)^2 }"; done'`
	const workers = 2
	ctx := context.Background()
	pool, err := extproc.Start(ctx, command, workers, extproc.Options{EvalTimeout: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	s, err := es.New("hees", es.Config{Dim: 2, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	target := 1e-4
	// A failed evaluation would stop the run with an *es.ObjectiveError
	// wrapping the *extproc.EvalError; the run stopping kills the programs
	// still evaluating.
	res, err := es.Minimize(ctx, es.FuncContext(pool.EvalContext), s,
		es.Options{Workers: workers, MaxEvals: 2000, Target: &target})
	if cerr := pool.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Reason, res.F <= target)
	// Output:
	// target reached true
}
