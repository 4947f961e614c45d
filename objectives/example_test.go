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

func ExampleNewBBOBNoisy() {
	p, err := objectives.NewBBOBNoisy(101, 1, 5) // COCO's bbob_noisy_f101_i01_d05
	if err != nil {
		log.Fatal(err)
	}
	x := []float64{0, 0, 0, 0, 0}
	_, fopt, _ := p.Optimum()
	fmt.Println(p.Name(), fopt, p.Noiseless(x))

	// Eval follows COCO's noise sequence: a fresh problem gives COCO's
	// values in COCO's order, a different one at each call.
	fmt.Println(p.Eval(x), p.Eval(x))

	// EvalKeyed draws the noise from (seed, key) alone, for parallel runs.
	a, b := p.EvalKeyed(x, 1, 42), p.EvalKeyed(x, 1, 42)
	fmt.Println(a == b, a != p.EvalKeyed(x, 1, 43))
	// Output:
	// bbob-noisy/f101/i1 79.48 92.30397568000001
	// 92.33833880702696 92.13266253284395
	// true true
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
	// [sphere ellipsoid rotellipsoid] bbob-noisy/f130
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

func ExampleNewBBOBLargeScale() {
	p, err := objectives.NewBBOBLargeScale(10, 3, 640) // COCO's bbob_f010_i03_d0640
	if err != nil {
		log.Fatal(err)
	}
	xopt, fopt, _ := p.Optimum()
	fmt.Println(p.Name(), fopt, p.Eval(xopt) == fopt)
	// Output:
	// bbob-largescale/f10/i3 -491.53 true
}

func ExampleNewBBOBMixint() {
	p, err := objectives.NewBBOBMixint(1, 1, 5) // COCO's bbob-mixint_f001_i01_d05
	if err != nil {
		log.Fatal(err)
	}
	xopt, fopt, _ := p.Optimum()
	fmt.Println(p.Name(), xopt[:4], fopt)
	// Integer coordinates are rounded half up and clamped to their range.
	fmt.Println(p.Eval([]float64{0.5, 1.49, 2.5, -7, 0.25}) == p.Eval([]float64{1, 1, 3, 0, 0.25}))
	// Output:
	// bbob-mixint/f1/i1 [1 1 3 12] 79.48
	// true
}

func ExampleDomainsOf() {
	p, err := objectives.Parse("bbob-mixint/f7/i2", 10)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range objectives.DomainsOf(p)[7:] {
		fmt.Printf("[%g, %g] integer %t\n", d.Lo, d.Hi, d.Integer)
	}
	q, err := objectives.Parse("bbob/f7/i2", 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(objectives.DomainsOf(q)) // one box for all, from Bounds
	// Output:
	// [0, 15] integer true
	// [-5, 5] integer false
	// [-5, 5] integer false
	// [{-5 5 false} {-5 5 false}]
}
