package objectives

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hees-dev/hees/internal/xmath"
)

// Domain is the domain of one coordinate of a problem: the interval
// [Lo, Hi] and, when Integer is true, only the integers in it.
type Domain struct {
	Lo, Hi  float64
	Integer bool
}

// Domains is implemented by the problems whose coordinates do not all
// share the box of Problem.Bounds, or that have integer coordinates: the
// bbob-mixint problems. Check for it with a type assertion, or call
// DomainsOf, which also covers every other problem.
type Domains interface {
	// Domains returns a newly allocated slice of Dim() domains, one per
	// coordinate.
	Domains() []Domain
}

// DomainsOf returns the domain of every coordinate of p: p.Domains() if p
// implements Domains, and otherwise Dim() continuous copies of the box of
// Bounds; nil for a nil p.
func DomainsOf(p Problem) []Domain {
	if p == nil {
		return nil
	}
	if d, ok := p.(Domains); ok {
		return d.Domains()
	}
	lo, hi := p.Bounds()
	d := make([]Domain, p.Dim())
	for i := range d {
		d[i] = Domain{Lo: lo, Hi: hi}
	}
	return d
}

// Constants of COCO's bbob-mixint suite (docs/BBOB.md §10).
const (
	// mixintGroups is the number of equal groups the coordinates fall in.
	mixintGroups = 5
	// mixintLargeScaleFrom is the dimension from which the suite uses the
	// bbob-largescale functions instead of the bbob ones.
	mixintLargeScaleFrom = 50
	// mixintInnerBound is the half-width of the interval [−4, 4] of the
	// inner problem that an integer coordinate's values are spread over.
	mixintInnerBound = 4
	// mixintPrecision is COCO's 1e-7 added before rounding x*.
	mixintPrecision = 1e-7
	// mixintBBOBMaxDim is the largest dimension below 50 COCO can build: its
	// bbob rotations hold fewer than 2000 = 44.7² numbers, so 45 fails.
	mixintBBOBMaxDim = 44
)

// mixintCardinality is the number of values of the coordinates of each
// group, 0 for the continuous last group.
var mixintCardinality = [mixintGroups]int{2, 4, 8, 16, 0}

// mixintScale is COCO's factor on the values of f1 … f24.
var mixintScale = [BBOBFunctions]float64{
	1, 1e-3, 1e-1, 1e-1, 1, // f1-f5
	1e-2, 1, 1e-2, 1e-2, 1e-3, // f6-f10
	1e-2, 1e-4, 1e-1, 1, 1e-1, // f11-f15
	1, 10, 1, 10, 1e-1, // f16-f20
	1, 1, 10, 1e-1, // f21-f24
}

// NewBBOBMixint returns function f1 … f24 of COCO's bbob-mixint suite,
// instance instance (1 … MaxLargeScaleInstance; COCO's are 1 … 15) in
// dimension dim, exactly as COCO defines it (docs/BBOB.md §10,
// numbbo/coco-experiment v2.8.2). The name is "bbob-mixint/fF/iI".
//
// dim must be a multiple of 5: 5 … 40 or 50 … MaxLargeScaleDim (COCO's
// suite has 5, 10, 20, 40, 80 and 160; at 45 COCO's own construction
// fails). The coordinates fall in five equal groups: the first four are
// integer with 2, 4, 8 and 16 values 0 … k−1, the last is continuous on
// [−5, 5]; the problem implements Domains, and Bounds is [−5, 15], the
// smallest box that holds every coordinate's domain.
//
// The value at x is COCO's: each integer coordinate is rounded half up,
// ⌊x_i + 0.5⌋, then clamped to 0 … k−1 (so any real number is accepted),
// and mapped to one of k points spread evenly over [−4, 4] and shifted so
// that the optimum of the continuous function lies on the grid; the
// continuous coordinates are passed on unchanged; the function is bbob's f
// below dimension 50 and bbob-largescale's from 50 on, and its value is
// multiplied by a per-function factor (1e-4 … 10). A point with an infinite
// coordinate has the value +Inf, one with a NaN the value NaN.
//
// Optimum reports COCO's optimal point (integers, then the continuous
// function's optimum) and COCO's optimal value, the factor times the
// continuous function's; f at x* is that value to within rounding.
//
// The values match COCO's own C code (testdata/bbob-mixint: d = 5 to 160,
// random, out-of-domain, half-integer and edge points) to within
// 1e-9·max(1, |f − fopt|), 1e-8 for f19 and f23; docs/BBOB.md §11 lists the
// largest differences.
func NewBBOBMixint(function, instance, dim int) (Problem, error) {
	if function < 1 || function > BBOBFunctions {
		return nil, fmt.Errorf("objectives: bbob-mixint function must be 1 … %d, got %d", BBOBFunctions, function)
	}
	if instance < 1 || instance > MaxLargeScaleInstance {
		return nil, fmt.Errorf("objectives: bbob-mixint instance must be 1 … %d, got %d", MaxLargeScaleInstance, instance)
	}
	name := suiteName(suiteMixint, function, instance)
	if err := checkDim(name, dim, mixintGroups, MaxLargeScaleDim); err != nil {
		return nil, err
	}
	if dim%mixintGroups != 0 {
		return nil, fmt.Errorf("objectives: %s needs a dimension that is a multiple of 5, got %d", name, dim)
	}
	if dim > mixintBBOBMaxDim && dim < mixintLargeScaleFrom {
		return nil, fmt.Errorf("objectives: %s does not exist in dimension %d: COCO's construction fails there (it supports 5 … 40 and 50 on)", name, dim)
	}
	m := &mixintData{dim: dim, factor: mixintScale[function-1]}
	var innerBest []float64
	var innerValue float64
	if dim < mixintLargeScaleFrom {
		b := newBBOBData(function, instance, dim)
		b.checks = true
		m.inner = b.evaluator()
		innerBest, innerValue = slices.Clone(b.best), bbobBestValue(function, dim, b.fopt)
	} else {
		b := newLargeScaleData(function, instance, dim)
		m.inner = b.evaluate
		innerBest, innerValue = slices.Clone(b.best), b.bestValue
	}
	m.init(innerBest)
	p := &mixintProblem{
		problem: problem{
			name:   name,
			dim:    dim,
			bound:  bbobBound,
			xopt:   m.best,
			fopt:   float64(innerValue * m.factor),
			hasOpt: true,
			f:      m.evaluate,
		},
		domains: m.domains,
	}
	return p, nil
}

// bbobBestValue is COCO's optimal value of bbob function f in dimension dim
// with fopt: fopt itself, except for f16 and f20, where COCO adds the raw
// function's value at its optimum (about 1e-15 for f20, usually 0 for f16).
func bbobBestValue(f, dim int, fopt float64) float64 {
	switch f {
	case 16:
		s, f0 := 0.0, 0.0
		a, bk := 1.0, 1.0
		for range weierstrassK {
			f0 += float64(a * xmath.Cos(2*math.Pi*bk*0.5))
			a, bk = a*0.5, bk*3
		}
		for range dim {
			a, bk = 1.0, 1.0
			for range weierstrassK {
				s += float64(xmath.Cos(2*math.Pi*0.5*bk) * a)
				a, bk = a*0.5, bk*3
			}
		}
		return float64(10*xmath.Pow(s/float64(dim)-f0, 3)) + fopt
	case 20:
		sum := 0.0
		for range dim {
			z := schwefelCOCOopt
			sum += float64(z * xmath.Sin(math.Sqrt(z)))
		}
		return float64(0.01*(schwefelOffset-sum/float64(dim))) + fopt
	}
	return fopt
}

// mixintProblem is a bbob-mixint problem: a problem with per-coordinate
// domains.
type mixintProblem struct {
	problem
	domains []Domain
}

// Bounds is the smallest box that holds every coordinate's domain.
func (p *mixintProblem) Bounds() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range p.domains {
		lo, hi = min(lo, d.Lo), max(hi, d.Hi)
	}
	return lo, hi
}

// Domains returns the domain of each coordinate.
func (p *mixintProblem) Domains() []Domain { return slices.Clone(p.domains) }

// mixintData is COCO's transform_vars_discretize and transform_obj_scale
// around a continuous problem.
type mixintData struct {
	dim    int
	nInt   int     // the integer coordinates are 0 … nInt−1
	factor float64 // transform_obj_scale's factor
	inner  func(x []float64) float64
	// Per integer coordinate: the inner interval [innerLo, innerHi] the k
	// values are spread over, the outer upper bound k−1 and the shift that
	// puts the inner optimum on a grid point.
	innerLo, innerHi, outerHi, offset []float64
	domains                           []Domain
	best                              []float64 // COCO's optimal point
	pool                              sync.Pool // of *[]float64 of length dim
}

// init sets the domains, the grid of each integer coordinate and its shift
// from the continuous problem's optimal point innerBest, which it keeps as
// the continuous part of best.
func (m *mixintData) init(innerBest []float64) {
	dim := m.dim
	group := dim / mixintGroups
	m.nInt = (mixintGroups - 1) * group
	m.domains = make([]Domain, dim)
	m.best = innerBest
	m.innerLo = make([]float64, m.nInt)
	m.innerHi = make([]float64, m.nInt)
	m.outerHi = make([]float64, m.nInt)
	m.offset = make([]float64, m.nInt)
	for i := range dim {
		k := mixintCardinality[i/group]
		if k == 0 {
			m.domains[i] = Domain{Lo: -bbobBound, Hi: bbobBound}
			continue
		}
		outerHi := float64(k - 1)
		m.domains[i] = Domain{Lo: 0, Hi: outerHi, Integer: true}
		const l, u = -mixintInnerBound, mixintInnerBound
		gap := (u - l) / float64(k+1)
		lo, hi := l+gap, u-gap
		// The grid point nearest the inner optimum, as COCO rounds it.
		xo := innerBest[i]
		outer := float64(outerHi*(xo-lo)) / (hi - lo)
		outer = math.Floor(outer + mixintPrecision + 0.5)
		outer = min(max(outer, 0), outerHi)
		m.best[i] = outer
		approx := lo + float64((hi-lo)*outer)/outerHi
		m.innerLo[i], m.innerHi[i], m.outerHi[i] = lo, hi, outerHi
		m.offset[i] = approx - xo
	}
	m.pool.New = func() any {
		w := make([]float64, dim)
		return &w
	}
}

// evaluate is COCO's value of the mixed-integer problem at x.
func (m *mixintData) evaluate(x []float64) float64 {
	if v, bad := special(x); bad {
		return v
	}
	wp := m.pool.Get().(*[]float64)
	xd := *wp
	copy(xd, x)
	for i := range m.nInt {
		v := math.Floor(x[i] + 0.5)
		if v < 0 {
			v = 0
		}
		if v > m.outerHi[i] {
			v = m.outerHi[i]
		}
		lo, hi := m.innerLo[i], m.innerHi[i]
		xd[i] = lo + float64((hi-lo)*v)/m.outerHi[i] - m.offset[i]
	}
	y := m.inner(xd)
	m.pool.Put(wp)
	return float64(y * m.factor)
}
