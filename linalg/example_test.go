package linalg_test

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/linalg"
)

// A symmetric 2×2 matrix has eigenvalues 1 and 3; the eigenvectors follow
// the sign convention (largest entry positive, the first one on ties).
func ExampleSymEig() {
	a := linalg.NewDense(2, 2, []float64{
		2, 1,
		1, 2,
	})
	values, vectors, err := linalg.SymEig(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("values: %.4g\n", values)
	for i := 0; i < 2; i++ {
		fmt.Printf("% .4f\n", vectors.RawRow(i))
	}
	// Output:
	// values: [1 3]
	// [ 0.7071  0.7071]
	// [-0.7071  0.7071]
}

// EigenSym reuses its workspace across factorizations of one size.
func ExampleEigenSym() {
	var eig linalg.EigenSym
	values := make([]float64, 3)
	for _, scale := range []float64{1, 10} {
		a := linalg.NewDense(3, 3, []float64{
			4 * scale, 0, 0,
			0, 1 * scale, 0,
			0, 0, 9 * scale,
		})
		if err := eig.Factorize(a, false); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%.4g\n", eig.Values(values))
	}
	// Output:
	// [1 4 9]
	// [10 40 90]
}

// The HE-ES update adds a few weighted outer products to its transformation
// matrix; AddOuterSum does it in one pass over the matrix.
func ExampleDense_AddOuterSum() {
	m := linalg.NewIdentity(3)
	alpha := []float64{0.5, -1}
	x := linalg.NewDense(2, 3, []float64{
		1, 0, 0, // x_0
		0, 1, 1, // x_1
	})
	y := linalg.NewDense(2, 3, []float64{
		2, 2, 0, // y_0
		0, 0, 1, // y_1
	})
	m.AddOuterSum(alpha, x, y) // m += 0.5·x_0·y_0ᵀ − x_1·y_1ᵀ
	for i := 0; i < 3; i++ {
		fmt.Println(m.RawRow(i))
	}
	// Output:
	// [2 1 0]
	// [0 1 -1]
	// [0 0 0]
}

func ExampleGramSchmidt() {
	v := linalg.NewDense(2, 3, []float64{
		3, 0, 4,
		1, 1, 0,
	})
	norms := make([]float64, 2)
	if err := linalg.GramSchmidt(v, norms); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("norms: %.4g\n", norms)
	fmt.Printf("row 0: %.4f\n", v.RawRow(0))
	fmt.Println("|⟨row 0, row 1⟩| < 1e-15:", math.Abs(linalg.Dot(v.RawRow(0), v.RawRow(1))) < 1e-15)
	// Output:
	// norms: [5 1.414]
	// row 0: [0.6000 0.0000 0.8000]
	// |⟨row 0, row 1⟩| < 1e-15: true
}

func ExampleDense_Mul() {
	a := linalg.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	b := linalg.NewDense(3, 1, []float64{1, 0, -1})
	var c linalg.Dense // empty: Mul sizes it
	c.Mul(a, b)
	r, cols := c.Dims()
	fmt.Println(r, cols, c.At(0, 0), c.At(1, 0))
	// Output:
	// 2 1 -2 -2
}

func ExampleAxpy() {
	y := []float64{1, 1, 1}
	linalg.Axpy(0.5, []float64{2, 4, 6}, y)
	fmt.Println(y)
	// Output:
	// [2 3 4]
}

func ExampleMulVec() {
	a := linalg.NewDense(2, 2, []float64{
		1, 2,
		3, 4,
	})
	y := make([]float64, 2)
	linalg.MulVec(y, a, []float64{1, 1})
	fmt.Println(y)
	linalg.MulVecT(y, a, []float64{1, 1})
	fmt.Println(y)
	// Output:
	// [3 7]
	// [4 6]
}

func ExampleDense_DotRows() {
	a := linalg.NewDense(2, 2, []float64{
		1, 2,
		3, 4,
	})
	// Two vectors as the rows of x: row k of y is A·x_k.
	x := linalg.NewDense(2, 2, []float64{
		1, 1,
		1, -1,
	})
	var y linalg.Dense
	y.DotRows(x, a)
	fmt.Println(y.RawRow(0), y.RawRow(1))
	// Output:
	// [3 7] [-1 -1]
}

func ExampleCholesky() {
	a := linalg.NewDense(2, 2, []float64{
		4, 2,
		2, 5,
	})
	var c linalg.Cholesky
	if err := c.Factorize(a); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.L().RawRow(0), c.L().RawRow(1))
	x := make([]float64, 2)
	c.SolveVecTo(x, []float64{6, 7}) // A·x = b
	fmt.Printf("x = %.4g, log det = %.4g\n", x, c.LogDet())

	indefinite := linalg.NewDense(2, 2, []float64{1, 2, 2, 1})
	fmt.Println(c.Factorize(indefinite))
	// Output:
	// [2 0] [1 2]
	// x = [1 1], log det = 2.773
	// linalg: matrix is not positive definite: pivot 1 of 2×2 is -3
}

func ExampleLogDet() {
	a := linalg.NewDense(2, 2, []float64{
		0, 2,
		3, 0,
	})
	logAbs, sign := linalg.LogDet(a)
	fmt.Printf("log|det| = %.4g, sign = %g\n", logAbs, sign)
	// Output:
	// log|det| = 1.792, sign = -1
}

func ExampleLogAbsDetInPlace() {
	// The workspace is filled for each matrix; nothing is allocated.
	work := linalg.NewDense(2, 2, nil)
	for _, a := range []*linalg.Dense{
		linalg.NewDense(2, 2, []float64{0, 2, 3, 0}),
		linalg.NewDense(2, 2, []float64{1, 2, 2, 4}),
	} {
		work.CopyFrom(a)
		fmt.Printf("log|det| = %.4g\n", linalg.LogAbsDetInPlace(work))
	}
	// Output:
	// log|det| = 1.792
	// log|det| = -Inf
}

func ExampleDense_Inverse() {
	a := linalg.NewDense(2, 2, []float64{
		4, 7,
		2, 6,
	})
	var inv linalg.Dense
	if err := inv.Inverse(a); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f\n%.2f\n", inv.RawRow(0), inv.RawRow(1))
	fmt.Println(inv.Inverse(linalg.NewDense(2, 2, []float64{1, 2, 2, 4})))
	// Output:
	// [0.60 -0.70]
	// [-0.20 0.40]
	// linalg: matrix is singular: Inverse: pivot 1 of 2×2 matrix is zero
}

func ExampleDense_Reset() {
	var m linalg.Dense
	m.ReuseAs(2, 3)
	// m.ReuseAs(3, 2) would panic: m is 2×3. Reset it to reshape it; its
	// storage is reused.
	m.Reset()
	m.ReuseAs(3, 2)
	fmt.Println(m.Dims())
	// Output:
	// 3 2
}

func ExampleCondSym() {
	c := linalg.NewDense(2, 2, []float64{
		100, 0,
		0, 1,
	})
	cond, err := linalg.CondSym(c)
	fmt.Printf("%.4g %v\n", cond, err)
	nt, err := linalg.NormalizedTrace(c) // (100 + 1) / sqrt(100·1)
	fmt.Printf("%.4g %v\n", nt, err)
	// Output:
	// 100 <nil>
	// 10.1 <nil>
}

func ExampleDense_View() {
	m := linalg.NewDense(3, 3, []float64{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	})
	v := m.View(1, 1, 2, 2) // shares storage with m
	v.Scale(10, v)
	fmt.Println(m.RawRow(1), m.RawRow(2))
	// Output:
	// [4 50 60] [7 80 90]
}
