package objectives

import (
	"fmt"
	"math"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// Defaults of the classic functions' parameters.
const (
	// DefaultCond is the condition parameter of ellipsoid, rotellipsoid,
	// cigar, discus, twoaxes and quadratic.
	DefaultCond = 1e6
	// DefaultSeed is the seed of rotellipsoid and quadratic.
	DefaultSeed = 1
)

// Purposes of the rng sub-streams of the seeded problems. The stream key is
// rng.KeyFromSeed(seed) of the problem's own seed; generation and index are 0.
const (
	purposeRotation rng.Purpose = 1 // d×d normals of the rotation, row by row
	purposeSpectrum rng.Purpose = 2 // uniforms of quadratic's eigenvalues
)

// NewSphere returns the sphere f(x) = Σ x_i², dim >= 1; x* = 0, f* = 0,
// H = 2I.
func NewSphere(dim int) (Problem, error) {
	if err := checkDim("sphere", dim, 1, MaxDim); err != nil {
		return nil, err
	}
	c := make([]float64, dim)
	for i := range c {
		c[i] = 1
	}
	return newDiagonal("sphere", c), nil
}

// NewEllipsoid returns the ellipsoid f(x) = Σ cond^((i−1)/(d−1))·x_i² for
// i = 1 … d (coefficient 1 when d = 1), dim >= 1 and cond >= 1 (DefaultCond
// is 1e6); x* = 0, f* = 0, H = diag(2·cond^((i−1)/(d−1))).
func NewEllipsoid(dim int, cond float64) (Problem, error) {
	const name = "ellipsoid"
	if err := checkDim(name, dim, 1, MaxDim); err != nil {
		return nil, err
	}
	if err := checkCond(name, cond); err != nil {
		return nil, err
	}
	return newDiagonal(canonical(name, cond, DefaultSeed, "cond"), ellipsoidCoefficients(dim, cond)), nil
}

// NewCigar returns the cigar f(x) = x_1² + cond·Σ_{i≥2} x_i², dim >= 2,
// cond >= 1; x* = 0, f* = 0, H = diag(2, 2·cond, …, 2·cond).
func NewCigar(dim int, cond float64) (Problem, error) {
	return newAxisScaled("cigar", dim, cond, func(i int) bool { return i > 0 })
}

// NewDiscus returns the discus (tablet) f(x) = cond·x_1² + Σ_{i≥2} x_i²,
// dim >= 2, cond >= 1; x* = 0, f* = 0, H = diag(2·cond, 2, …, 2).
func NewDiscus(dim int, cond float64) (Problem, error) {
	return newAxisScaled("discus", dim, cond, func(i int) bool { return i == 0 })
}

// NewTwoAxes returns the two-axes function
// f(x) = cond·Σ_{i≤⌊d/2⌋} x_i² + Σ_{i>⌊d/2⌋} x_i², dim >= 2, cond >= 1: the
// first ⌊d/2⌋ coordinates are the steep ones. x* = 0, f* = 0, H is the
// diagonal of 2·cond and 2.
func NewTwoAxes(dim int, cond float64) (Problem, error) {
	return newAxisScaled("twoaxes", dim, cond, func(i int) bool { return i < dim/2 })
}

// NewRotatedEllipsoid returns the ellipsoid of NewEllipsoid in rotated
// coordinates, f(x) = Σ_i c_i·(R·x)_i² with c_i = cond^((i−1)/(d−1)),
// dim >= 1, cond >= 1; x* = 0, f* = 0, H = 2·Rᵀ·diag(c)·R.
//
// R = RandomRotation(dim, seed); it depends on both seed and dim
// (DefaultSeed is 1).
func NewRotatedEllipsoid(dim int, cond float64, seed uint64) (Problem, error) {
	return newRotatedQuadratic("rotellipsoid", dim, cond, seed, func() []float64 {
		return ellipsoidCoefficients(dim, cond)
	})
}

// newRotatedQuadratic checks dim (1 … MaxMatrixDim) and cond and returns
// f(x) = Σ_i w_i·(R·x)_i² with R = RandomRotation(dim, seed) and the weights
// w from weights (called once the parameters are valid); x* = 0, f* = 0,
// H = 2·Rᵀ·diag(w)·R. rotellipsoid and quadratic are built by it.
func newRotatedQuadratic(name string, dim int, cond float64, seed uint64, weights func() []float64) (Problem, error) {
	if err := checkDim(name, dim, 1, MaxMatrixDim); err != nil {
		return nil, err
	}
	if err := checkCond(name, cond); err != nil {
		return nil, err
	}
	r, err := RandomRotation(dim, seed)
	if err != nil {
		return nil, err
	}
	w := weights()
	two := make([]float64, dim)
	for i, v := range w {
		two[i] = 2 * v
	}
	q := &factoredQuadratic{rows: rawMatrix(r), weight: w}
	return &problem{
		name:   canonical(name, cond, seed, "cond", "seed"),
		dim:    dim,
		bound:  classicBound,
		xopt:   make([]float64, dim),
		hasOpt: true,
		hess:   congruence(q.rows, two),
		f:      q.eval,
	}, nil
}

// RandomRotation returns the dim×dim rotation (orthogonal matrix) of seed
// used by rotellipsoid and quadratic: a matrix of standard normal numbers
// drawn row by row from rng.NewStream(rng.KeyFromSeed(seed), 1, 0, 0),
// whose rows are then orthonormalised in order by linalg.GramSchmidt. The
// result is uniformly distributed on the orthogonal group (up to the
// generator) and reproducible bit for bit.
func RandomRotation(dim int, seed uint64) (*linalg.Dense, error) {
	if err := checkDim("rotation", dim, 1, MaxMatrixDim); err != nil {
		return nil, err
	}
	stream := rng.NewStream(rng.KeyFromSeed(seed), purposeRotation, 0, 0)
	data := make([]float64, dim*dim)
	stream.FillNormal(data)
	r := linalg.NewDense(dim, dim, data)
	if err := linalg.GramSchmidt(r, make([]float64, dim)); err != nil {
		return nil, fmt.Errorf("objectives: rotation of seed %d in dimension %d: %w", seed, dim, err)
	}
	return r, nil
}

// NewDiffPowers returns the sum of different powers
// f(x) = Σ |x_i|^(2 + 10·(i−1)/(d−1)) (exponent 2 when d = 1), dim >= 1;
// x* = 0, f* = 0. It is not a quadratic.
func NewDiffPowers(dim int) (Problem, error) {
	const name = "diffpowers"
	if err := checkDim(name, dim, 1, MaxDim); err != nil {
		return nil, err
	}
	exponent := make([]float64, dim)
	for i := range exponent {
		exponent[i] = 2
		if dim > 1 {
			exponent[i] = 2 + 10*float64(i)/float64(dim-1)
		}
	}
	return &problem{
		name: name, dim: dim, bound: classicBound,
		xopt: make([]float64, dim), hasOpt: true,
		f: func(x []float64) float64 {
			s := 0.0
			for i, v := range x {
				s += xmath.Pow(math.Abs(v), exponent[i])
			}
			return s
		},
	}, nil
}

// NewRosenbrock returns Rosenbrock's function
// f(x) = Σ_{i<d} 100·(x_i² − x_{i+1})² + (x_i − 1)², dim >= 2;
// x* = (1, …, 1), f* = 0. It is not a quadratic.
func NewRosenbrock(dim int) (Problem, error) {
	const name = "rosenbrock"
	if err := checkDim(name, dim, 2, MaxDim); err != nil {
		return nil, err
	}
	ones := make([]float64, dim)
	for i := range ones {
		ones[i] = 1
	}
	return &problem{
		name: name, dim: dim, bound: classicBound,
		xopt: ones, hasOpt: true,
		f: rosenbrockRaw,
	}, nil
}

// NewRastrigin returns Rastrigin's function
// f(x) = 10·d + Σ (x_i² − 10·cos(2π·x_i)), computed as
// 10·(d − Σ cos 2πx_i) + Σ x_i², dim >= 1; x* = 0, f* = 0. It is not a
// quadratic.
func NewRastrigin(dim int) (Problem, error) {
	const name = "rastrigin"
	if err := checkDim(name, dim, 1, MaxDim); err != nil {
		return nil, err
	}
	return &problem{
		name: name, dim: dim, bound: classicBound,
		xopt: make([]float64, dim), hasOpt: true,
		f: func(x []float64) float64 {
			sumCos, sumSq := 0.0, 0.0
			for _, v := range x {
				sumCos += xmath.Cos(2 * math.Pi * v)
				sumSq += float64(v * v)
			}
			return rastriginRaw(sumCos, sumSq, len(x))
		},
	}, nil
}

// ellipsoidCoefficients returns cond^(i/(d−1)) for i = 0 … d−1 (1 when
// d = 1): 1 for the first coordinate and cond for the last. BBOB's f2 and
// f10 use it with cond = 1e6 (docs/BBOB.md §6: pow(1e6, t_i), 1 for i = 0).
func ellipsoidCoefficients(dim int, cond float64) []float64 {
	c := make([]float64, dim)
	c[0] = 1
	for i := 1; i < dim; i++ {
		c[i] = xmath.Pow(cond, float64(i)/float64(dim-1))
	}
	return c
}

// newAxisScaled builds a diagonal quadratic with coefficient cond where
// steep(i) and 1 elsewhere (cigar, discus, twoaxes); dim >= 2.
func newAxisScaled(name string, dim int, cond float64, steep func(i int) bool) (Problem, error) {
	if err := checkDim(name, dim, 2, MaxDim); err != nil {
		return nil, err
	}
	if err := checkCond(name, cond); err != nil {
		return nil, err
	}
	c := make([]float64, dim)
	for i := range c {
		c[i] = 1
		if steep(i) {
			c[i] = cond
		}
	}
	return newDiagonal(canonical(name, cond, DefaultSeed, "cond"), c), nil
}

// newDiagonal returns f(x) = Σ c_i·x_i² with x* = 0, f* = 0 and
// H = diag(2c).
func newDiagonal(name string, c []float64) *problem {
	dim := len(c)
	two := make([]float64, dim)
	for i, v := range c {
		two[i] = 2 * v
	}
	return &problem{
		name: name, dim: dim, bound: classicBound,
		xopt: make([]float64, dim), hasOpt: true,
		hessDiag: two,
		f: func(x []float64) float64 {
			s := 0.0
			for i, v := range x {
				s += float64(c[i] * v * v)
			}
			return s
		},
	}
}

// checkCond returns an error unless cond is a finite number >= 1.
func checkCond(name string, cond float64) error {
	if !(cond >= 1) || math.IsInf(cond, 1) {
		return fmt.Errorf("objectives: %s: cond must be a finite number >= 1, got %v", name, cond)
	}
	return nil
}

// rawMatrix returns the elements of the square matrix m row by row.
func rawMatrix(m *linalg.Dense) []float64 {
	n, _ := m.Dims()
	out := make([]float64, 0, n*n)
	for i := range n {
		out = append(out, m.RawRow(i)...)
	}
	return out
}

// congruence returns Rᵀ·diag(w)·R for a row-major n×n matrix r, element
// (j, k) summed over i in order as Σ_i (w_i·R_ij)·R_ik; it is exactly
// symmetric.
func congruence(r, w []float64) []float64 {
	n := len(w)
	h := make([]float64, n*n)
	for j := range n {
		for k := j; k < n; k++ {
			s := 0.0
			for i, wi := range w {
				s += float64(float64(wi*r[i*n+j]) * r[i*n+k])
			}
			h[j*n+k], h[k*n+j] = s, s
		}
	}
	return h
}
