package objectives_test

import (
	"fmt"
	"log"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
)

func ExampleParse() {
	p, err := objectives.Parse("ellipsoid:cond=1e4", 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name(), p.Dim())
	fmt.Println(p.Eval([]float64{1, 1, 1})) // 1 + 100 + 10000

	_, err = objectives.Parse("elipsoid", 3)
	fmt.Println(err != nil)
	// Output:
	// ellipsoid:cond=10000 3
	// 10101
	// true
}

func ExampleNewBBOB() {
	p, err := objectives.NewBBOB(10, 3, 20) // COCO's bbob_f010_i03_d20
	if err != nil {
		log.Fatal(err)
	}
	xopt, fopt, _ := p.Optimum()
	lo, hi := p.Bounds()
	fmt.Println(p.Name(), fopt, p.Eval(xopt) == fopt, lo, hi)
	// Output:
	// bbob/f10/i3 -491.53 true -5 5
}

func ExampleNewQuadratic() {
	h := linalg.NewDense(2, 2, []float64{
		2, 1,
		1, 2,
	})
	p, err := objectives.NewQuadratic(h, []float64{1, -1}, 3)
	if err != nil {
		log.Fatal(err)
	}
	// f(x) = 1/2 (x − x*)ᵀ H (x − x*) + f*.
	fmt.Println(p.Eval([]float64{1, -1}), p.Eval([]float64{2, 0}))
	// Output:
	// 3 6
}

func ExampleProblem_Hessian() {
	p, err := objectives.NewSphere(2)
	if err != nil {
		log.Fatal(err)
	}
	// The sphere Σ x_i² is 1/2 xᵀ (2I) x.
	h, ok := p.Hessian()
	fmt.Println(ok, h.At(0, 0), h.At(0, 1), h.At(1, 1))

	r, err := objectives.NewRosenbrock(2)
	if err != nil {
		log.Fatal(err)
	}
	_, ok = r.Hessian() // not a quadratic
	fmt.Println(ok)
	// Output:
	// true 2 0 2
	// false
}

func ExampleNames() {
	names := objectives.Names()
	fmt.Println(names[:3], names[len(names)-1])
	// Output:
	// [sphere ellipsoid rotellipsoid] bbob-mixint/f24
}

func ExampleNewEllipsoid() {
	p, err := objectives.NewEllipsoid(3, 100) // coefficients 1, 10, 100
	if err != nil {
		log.Fatal(err)
	}
	h, _ := p.Hessian()
	fmt.Println(p.Name(), p.Eval([]float64{1, 1, 1}), h.At(2, 2))
	// Output:
	// ellipsoid:cond=100 111 200
}

func ExampleNewRandomQuadratic() {
	p, err := objectives.NewRandomQuadratic(5, 1e4, 3) // the spec quadratic:cond=1e4,seed=3
	if err != nil {
		log.Fatal(err)
	}
	h, _ := p.Hessian()
	cond, err := linalg.CondSym(h)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s cond(H) = %.6g\n", p.Name(), cond)
	// Output:
	// quadratic:cond=10000,seed=3 cond(H) = 10000
}
