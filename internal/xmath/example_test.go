package xmath_test

import (
	"fmt"

	"github.com/hees-dev/hees/internal/xmath"
)

func ExampleExp() {
	fmt.Println(xmath.Exp(1), xmath.Exp(-745.2), xmath.Exp(710))
	// Output: 2.718281828459045 0 +Inf
}

func ExampleLog() {
	fmt.Println(xmath.Log(xmath.Exp(2)), xmath.Log1p(1e-20))
	// Output: 2 1e-20
}

// Exact powers come out exact.
func ExamplePow() {
	fmt.Println(xmath.Pow(10, 22), xmath.Pow(2, -1074), xmath.Pow(-3, 3), xmath.Pow(1e6, 0.5))
	// Output: 1e+22 5e-324 -27 1000
}

// The argument reduction is exact, so large arguments keep full accuracy.
func ExampleSin() {
	fmt.Println(xmath.Sin(1e22), xmath.Cos(6381956970095103*0x1p797))
	// Output: -0.8522008497671888 -4.687165924254628e-19
}
