package objectives

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// customQuadraticName is the Name of a quadratic built from a given matrix;
// no spec rebuilds it, so Parse rejects it.
const customQuadraticName = "quadratic(given H)"

// symmetryTolerance is how far H may be from symmetric, relative to its
// largest element, in NewQuadratic.
const symmetryTolerance = 1e-12

// NewQuadratic returns the convex quadratic f(x) = 1/2 (x−x*)ᵀ H (x−x*) + f*
// for a symmetric positive definite n×n matrix h (n >= 1), the
// optimum xopt (length n; nil means the origin) and the optimal value fopt.
// Every entry must be finite. h must be symmetric to within 1e-12 of its
// largest element; its symmetric part (H + Hᵀ)/2 is used and returned by
// Hessian. h is copied.
//
// f is evaluated as f* + 1/2 |Lᵀ(x − x*)|² with the Cholesky factor
// H = L·Lᵀ, so f(x) >= f* holds for every x in floating point as well. The
// problem's Name is "quadratic(given H)", which Parse does not accept.
func NewQuadratic(h *linalg.Dense, xopt []float64, fopt float64) (Problem, error) {
	const name = "quadratic"
	if h == nil {
		return nil, fmt.Errorf("objectives: %s: H is nil", name)
	}
	n, c := h.Dims()
	if n != c {
		return nil, fmt.Errorf("objectives: %s: H is %d×%d, not square", name, n, c)
	}
	if err := checkDim(name, n, 1, math.MaxInt); err != nil {
		return nil, err
	}
	if xopt == nil {
		xopt = make([]float64, n)
	} else if len(xopt) != n {
		return nil, fmt.Errorf("objectives: %s: H is %d×%d but xopt has length %d", name, n, n, len(xopt))
	}
	for i, v := range xopt {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("objectives: %s: xopt[%d] is %v", name, i, v)
		}
	}
	if math.IsNaN(fopt) || math.IsInf(fopt, 0) {
		return nil, fmt.Errorf("objectives: %s: fopt is %v", name, fopt)
	}
	largest := 0.0
	for i := range n {
		for j, v := range h.RawRow(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("objectives: %s: H[%d][%d] is %v", name, i, j, v)
			}
			largest = max(largest, math.Abs(v))
		}
	}
	sym := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a, b := h.At(i, j), h.At(j, i)
			if math.Abs(a-b) > symmetryTolerance*largest {
				return nil, fmt.Errorf("objectives: %s: H is not symmetric: H[%d][%d] = %v, H[%d][%d] = %v", name, i, j, a, j, i, b)
			}
			sym[i*n+j] = a/2 + b/2 // (a + b)/2 overflows near the float64 limit; halving is exact
		}
	}
	var chol linalg.Cholesky
	if err := chol.Factorize(linalg.NewDense(n, n, slices.Clone(sym))); err != nil {
		return nil, fmt.Errorf("objectives: %s: H must be positive definite: %w", name, err)
	}
	l := chol.L()
	// Row k of Lᵀ is column k of L, zero before column k.
	upper := make([]float64, n*n)
	half := make([]float64, n)
	for k := range n {
		half[k] = 0.5
		for j := k; j < n; j++ {
			upper[k*n+j] = l.At(j, k)
		}
	}
	q := &factoredQuadratic{rows: upper, weight: half, xopt: slices.Clone(xopt), fopt: fopt, triangular: true}
	return &problem{
		name: customQuadraticName, dim: n, bound: classicBound,
		xopt: q.xopt, fopt: fopt, hasOpt: true,
		hess: sym,
		f:    q.eval,
	}, nil
}

// NewRandomQuadratic returns the seeded convex quadratic
// f(x) = 1/2 xᵀ H x with H = Rᵀ·diag(h)·R, dim >= 1, cond >= 1: R is
// RandomRotation(dim, seed), and the eigenvalues are h_1 = 1, h_d = cond and,
// in between, cond^u_i for uniforms u_i in [0, 1) drawn in order from
// rng.NewStream(rng.KeyFromSeed(seed), 2, 0, 0) (h = (1) when dim = 1). So
// the condition number of H is cond. x* = 0, f* = 0. It is the spec
// "quadratic:cond=C,seed=S" (DefaultCond, DefaultSeed).
func NewRandomQuadratic(dim int, cond float64, seed uint64) (Problem, error) {
	// f = Σ (h_i/2)·(R·x)_i²; the Hessian 2·(h_i/2) = h_i is exact.
	return newRotatedQuadratic("quadratic", dim, cond, seed, func() []float64 {
		half := make([]float64, dim)
		half[0] = 0.5
		if dim > 1 {
			stream := rng.NewStream(rng.KeyFromSeed(seed), purposeSpectrum, 0, 0)
			for i := 1; i < dim-1; i++ {
				half[i] = 0.5 * xmath.Pow(cond, stream.Float64())
			}
			half[dim-1] = 0.5 * cond
		}
		return half
	})
}

// factoredQuadratic evaluates f(x) = Σ_k w_k·(F_k·(x − x*))² + f* for a
// row-major n×n matrix F (rows) and weights w_k >= 0. With triangular, row
// k of F is zero before column k and those zeros are skipped. A nil xopt is
// the origin.
type factoredQuadratic struct {
	rows, weight, xopt []float64
	fopt               float64
	triangular         bool
}

func (q *factoredQuadratic) eval(x []float64) float64 {
	n := len(x)
	s := 0.0
	for k, w := range q.weight {
		start := 0
		if q.triangular {
			start = k
		}
		row := q.rows[k*n+start : k*n+n]
		z := 0.0
		if q.xopt == nil {
			for j, v := range x[start:] {
				z += float64(row[j] * v)
			}
		} else {
			for j, v := range x[start:] {
				z += float64(row[j] * (v - q.xopt[start+j]))
			}
		}
		s += float64(w * z * z)
	}
	return s + q.fopt
}
