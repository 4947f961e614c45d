// Package xmath provides elementary functions (Exp, Expm1, Log, Log1p, Pow,
// Sin, Cos) that return the same bits on every GOARCH and GOAMD64 level.
//
// # Why it exists
//
// The Go specification lets the compiler fuse x*y + z into one fused
// multiply-add, and it does so on arm64, ppc64, s390x, riscv64, loong64 and
// on amd64 with GOAMD64=v3 or higher. The standard library's math.Exp is
// assembly on amd64 and arm64 whose amd64 version picks an FMA path at run
// time by CPU feature; math.Sin, Cos and Pow are pure Go whose polynomials
// are fused differently per target. Their results therefore differ in the
// last bit between machines and build flags (see the project's
// docs/REPRODUCIBILITY.md, Section 4). Everything that feeds golden files in
// this project (the Gaussian sampler, the strategies' updates, the BBOB
// objectives) calls this package instead.
//
// # How the bits are pinned
//
// Every function is pure Go without assembly. Every product that feeds a sum,
// and every product a function returns (callers may inline it into a sum),
// is written float64(x*y), which the specification forbids fusing. The only
// other operations are correctly rounded IEEE 754 ones whose result is the
// same everywhere: + - * /, math.Sqrt, math.FMA (used on purpose for exact
// error terms: it is one correctly rounded operation, in hardware or in
// software), math.Floor, math.Trunc, math.RoundToEven and bit manipulation.
// The constant tables (2^(j/128) and log c as double-doubles, the bits of
// 2/π) are generated with math/big by TestTables. The golden test
// (testdata/xmath.golden, about 3700 values) passes with GOAMD64=v1 and v3
// and on arm64 (under qemu), and on arm64 and amd64/v3 the only fused
// multiply-adds in the compiled package are the explicit math.FMA calls.
//
// # Accuracy
//
// Exp, Expm1, Log, Log1p and Pow use table-driven reductions (Tang's method
// with 2^(j/128); log through 92 cells c ≈ 1/m) with double-double
// intermediate results; Pow forms y·log|x| as a double-double. Sin and Cos
// reduce the argument by π/2 exactly (an extended Cody-Waite reduction below
// 2^28, Payne-Hanek above) and use Taylor kernels on a double-double
// argument. Largest errors measured against a 200-bit math/big reference
// (internal/xmath/bigref) on 10^5 random points per input class
// (go test -run TestAccuracy -accuracy 100000 -v), and the bounds
// TestAccuracy asserts:
//
//	function  measured max error (ulp)                    bound
//	Exp       0.506 (subnormal results 0.500)              0.51
//	Expm1     0.501                                        0.51
//	Log       0.500 (near 1: 0.500)                        0.51
//	Log1p     0.500                                        0.51
//	Pow       0.506 (|y·log x| up to 745, x near 1, x < 0)  0.52
//	Sin, Cos  0.548 (any x up to 2^1024, near kπ/2: 0.500)  0.6
//
// Against package math the results differ by at most 1 ulp for Expm1, Log
// and Log1p and 2 ulp for Exp, Sin and Cos (math.Exp's amd64 assembly,
// math.Sin and math.Cos are themselves off by up to 1.7 ulp); math.Pow is off
// by up to 19 ulp on ordinary arguments (TestAgainstMath).
package xmath
