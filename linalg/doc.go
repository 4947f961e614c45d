// Package linalg is the dense linear algebra that hees is built on: a
// row-major matrix type, the products the evolution strategies need in their
// hot loop, Gram-Schmidt orthonormalisation, the Cholesky factorization, the
// log-determinant and the inverse by elimination with partial pivoting, and a
// symmetric eigensolver.
//
// # Storage and the empty matrix
//
// A [Dense] stores an r×c matrix row by row: element (i, j) lives at
// data[i*stride+j], with stride ≥ c. [Dense.View] returns a sub-matrix that
// shares storage with its parent, so writes through either are seen by both.
// The zero value of Dense is an empty matrix; methods that write into an
// empty receiver size it first (var c linalg.Dense; c.Mul(a, b) works).
// A non-empty receiver must already have the result's shape.
//
// # Aliasing
//
// Element-wise methods ([Dense.Scale], [Dense.Add], [Dense.CopyFrom]) allow
// the receiver to be one of the inputs (the same matrix, or a view of the
// same elements). Methods that read an input element after writing an
// output element ([Dense.Mul], [Dense.Transpose], [Dense.MulTA],
// [Dense.MulAAT], [MulVec], [MulVecT]) require the output not to share any
// element with an input. [Dense.AddOuter] and [Dense.AddOuterSum] require
// their vectors not to lie in the receiver, and [Axpy] its two vectors not
// to share elements. Every overlap that breaks these
// rules is detected (exactly, for views of any shape) and panics.
//
// # Panics and errors
//
// Programmer errors (shapes that do not match, indices out of range,
// overlapping operands) panic with a message that starts with "linalg: " and
// names the shapes involved. Conditions that come from the numbers (a matrix
// that is not positive definite, singular or numerically dependent vectors,
// NaN or Inf input, an iteration that did not converge) are returned as
// error values.
//
// # Reproducibility
//
// Every operation has a fixed summation order that does not depend on the
// CPU, on the run, or on the number of cores. Every product that feeds a sum
// is rounded explicitly, as in s += float64(a*b), so that the compiler cannot
// fuse it into a fused multiply-add: results are bit-identical on amd64 (any
// GOAMD64 level) and arm64. No routine calls math functions that are
// implemented in assembly or differently per architecture: math.Hypot is
// replaced by a portable version, and the few logarithms and exponentials
// ([LogDet], [LogAbsDetInPlace], [Cholesky.LogDet], [NormalizedTrace]) use
// the project's portable internal/xmath. math.Sqrt, math.Abs, math.Frexp and math.Ldexp are exact
// everywhere.
//
// # Assembly kernels
//
// On amd64 CPUs with AVX2 the inner loops run as assembly: the dot products
// of [Dot], [Norm], [MulVec], [GramSchmidt], [Cholesky] and [SymEig], the
// row updates of [Dense.AddOuterSum], [Dense.AddOuter], [MulVecT], [Axpy],
// [LogDet], [LogAbsDetInPlace] and [Dense.Inverse], the register tile of
// [Dense.Mul], [Dense.MulTA] and [Dense.MulAAT], and the Householder
// reduction and plane rotations of [SymEig]. They perform the Go code's
// operations in the Go code's order: a dot product keeps its four partial
// sums in the four lanes of one vector register, every element of a
// product of matrices sums its own terms in increasing k, and no multiply
// is fused with an add. Both paths therefore give the same bits, which the
// tests check kernel by kernel (all lengths up to 70, four alignments,
// special values) and routine by routine. Other CPUs and architectures run
// the Go code; the build tag purego selects it everywhere
// (go test -tags purego ./linalg). The CPU check is the package's own, so
// GODEBUG=cpu.avx2=off does not switch the assembly off; the tag does.
package linalg
