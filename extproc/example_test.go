package extproc_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

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
