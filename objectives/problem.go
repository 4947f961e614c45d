package objectives

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/linalg"
)

// Problem is an objective function to minimise on R^Dim.
//
// Every Problem built by this package is immutable after construction, and
// Eval is safe for concurrent use by any number of goroutines, with one
// exception: the Eval of a bbob-noisy problem ([Noisy]) follows COCO's
// noise sequence, which every call advances, so its values depend on the
// calls before (it is still safe for concurrent use). Eval does not
// allocate in steady state: the BBOB functions that need work vectors take
// them from a per-problem sync.Pool (the first calls, and the first calls
// after a garbage collection cleared the pool, allocate them).
type Problem interface {
	// Name is the canonical spec of the problem, such as "bbob/f10/i3" or
	// "ellipsoid:cond=10000": Parse(p.Name(), p.Dim()) builds the same
	// problem (except for a quadratic built from a given matrix, see
	// NewQuadratic). Only parameters that differ from their defaults are
	// written.
	Name() string
	// Dim is the dimension of the search space.
	Dim() int
	// Eval returns the objective value at x (for a Noisy problem, the next
	// noisy value of COCO's sequence). It panics with a message that
	// starts with "objectives: " if len(x) != Dim(): that is a programmer
	// error, not a property of the point.
	Eval(x []float64) float64
	// Optimum returns a newly allocated copy of the optimal point x* and the
	// optimal value f*, with ok = true when they are known (for a Noisy
	// problem, those of its noise-free function).
	Optimum() (x []float64, f float64, ok bool)
	// Hessian returns a newly allocated copy of the constant Hessian H of a
	// quadratic problem, written as f(x) = 1/2 (x−x*)ᵀ H (x−x*) + f*; so the
	// sphere Σ x_i² has H = 2I. ok is false (and H nil) for a problem that is
	// not a quadratic.
	Hessian() (h *linalg.Dense, ok bool)
	// Bounds is the box [lo, hi]^Dim of interest: [−5, 5] for BBOB and
	// bbob-largescale (their region of interest) and [−3, 3] for the
	// classic functions. The functions are defined on all of R^Dim; the box
	// is where runs start. A problem whose coordinates have different
	// domains (bbob-mixint) returns the smallest box that holds them all
	// and implements Domains, which gives each coordinate's.
	Bounds() (lo, hi float64)
}

// Largest dimensions accepted by the constructors (and so by Parse).
const (
	// MaxDim bounds the functions that store O(dim) numbers.
	MaxDim = 1 << 20
	// MaxMatrixDim bounds the problems that store dim×dim matrices:
	// rotellipsoid, quadratic and every BBOB function. Building one takes
	// O(dim²) memory and, for BBOB's combined matrices, O(dim³) time.
	MaxMatrixDim = 2000
)

// Boxes of interest returned by Problem.Bounds.
const (
	classicBound = 3
	bbobBound    = 5
)

// problem implements Problem for every function of the package: the
// function-specific part is the closure f, which must not modify x.
type problem struct {
	name  string
	dim   int
	bound float64   // Bounds is [−bound, bound]
	xopt  []float64 // nil when the optimum is not known
	fopt  float64
	hess  []float64 // row-major dim×dim Hessian of a non-diagonal quadratic, or nil
	// hessDiag is the diagonal of the Hessian of a diagonal quadratic, or
	// nil: a diagonal problem of a large dimension does not hold dim²
	// numbers, only Hessian builds them.
	hessDiag []float64
	f        func(x []float64) float64
	hasOpt   bool
}

func (p *problem) Name() string { return p.name }

func (p *problem) Dim() int { return p.dim }

func (p *problem) Eval(x []float64) float64 {
	if len(x) != p.dim {
		panicDim(p.name, len(x), p.dim)
	}
	return p.f(x)
}

func (p *problem) Optimum() (x []float64, f float64, ok bool) {
	if !p.hasOpt {
		return nil, math.NaN(), false
	}
	return slices.Clone(p.xopt), p.fopt, true
}

func (p *problem) Hessian() (*linalg.Dense, bool) {
	switch {
	case p.hessDiag != nil:
		return linalg.NewDense(p.dim, p.dim, diagonal(p.hessDiag)), true
	case p.hess != nil:
		return linalg.NewDense(p.dim, p.dim, slices.Clone(p.hess)), true
	}
	return nil, false
}

// hasHessian reports whether Hessian returns ok, without building it.
func (p *problem) hasHessian() bool { return p.hessDiag != nil || p.hess != nil }

// HasHessian reports whether p.Hessian returns ok. For the problems of
// this package it does not build the d×d matrix (8 d^2 bytes, 80 GB in d
// = 10^5); for others it calls Hessian. A nil p has none.
func HasHessian(p Problem) bool {
	if p == nil {
		return false
	}
	if q, ok := p.(interface{ hasHessian() bool }); ok {
		return q.hasHessian()
	}
	_, ok := p.Hessian()
	return ok
}

func (p *problem) Bounds() (lo, hi float64) { return -p.bound, p.bound }

// panicDim reports an Eval call with a point of the wrong length. It is kept
// out of Eval so that Eval stays small.
//
//go:noinline
func panicDim(name string, got, want int) {
	panic(fmt.Sprintf("objectives: %s: Eval got a point of length %d, the problem has dimension %d", name, got, want))
}

// checkDim returns an error unless minDim <= dim <= maxDim.
func checkDim(name string, dim, minDim, maxDim int) error {
	if dim < minDim {
		return fmt.Errorf("objectives: %s needs dimension >= %d, got %d", name, minDim, dim)
	}
	if dim > maxDim {
		return fmt.Errorf("objectives: %s supports dimensions up to %d, got %d", name, maxDim, dim)
	}
	return nil
}

// diagonal returns the row-major dim×dim matrix with d on its diagonal.
func diagonal(d []float64) []float64 {
	n := len(d)
	m := make([]float64, n*n)
	for i, v := range d {
		m[i*n+i] = v
	}
	return m
}
