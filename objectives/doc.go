// Package objectives provides the test problems of hees: classic functions
// of the evolution-strategy literature and the 24 functions of three COCO
// suites, bbob, bbob-largescale and bbob-mixint, with COCO-exact instances.
//
// # Problems
//
// A [Problem] has a canonical name, a dimension, an allocation-free Eval,
// and, where known, its optimum and (for quadratics) its constant Hessian.
// Problems are immutable, and Eval is safe for concurrent use.
//
// The classic functions have f* = 0 and are built by NewSphere,
// NewEllipsoid, NewRotatedEllipsoid, NewCigar, NewDiscus, NewTwoAxes,
// NewDiffPowers, NewRosenbrock, NewRastrigin, NewQuadratic (from a given
// Hessian) and NewRandomQuadratic (seeded). Their box of interest is
// [−3, 3]^d.
//
// # BBOB
//
// NewBBOB(f, i, d) is function f of COCO's "bbob" suite, instance i, in
// dimension d, generated from the suite's definition (docs/BBOB.md: the
// legacy generators, xopt, fopt, rotations, Tosz/Tasy/Λ, penalties and each
// function's quirks) for any instance and dimension, not read from a table.
// Values include fopt, as COCO's do, and agree with COCO's reference values
// (testdata/bbob) to within 1e-11 relative to max(1, |f − fopt|), much closer
// for most functions.
//
// # bbob-largescale
//
// NewBBOBLargeScale(f, i, d) is function f of COCO's bbob-largescale suite:
// the bbob functions with each full rotation replaced by a permuted
// block-diagonal one (blocks of 40 coordinates), so that building and
// evaluating a problem take O(40·d) memory and time, for d up to
// MaxLargeScaleDim (docs/BBOB.md §9).
//
// # bbob-mixint and per-coordinate domains
//
// NewBBOBMixint(f, i, d) is function f of COCO's mixed-integer suite
// bbob-mixint (d a multiple of 5): four fifths of the coordinates are
// integers with 2, 4, 8 or 16 values, rounded and clamped as COCO does, the
// rest continuous (docs/BBOB.md §10). Its problems implement [Domains],
// which gives each coordinate's interval and whether it is integer; a
// program that needs the domains of any problem calls [DomainsOf], which
// falls back to the box of Bounds for the problems without per-coordinate
// domains.
//
// Both suites agree with COCO's reference values (testdata/bbob-largescale,
// testdata/bbob-mixint) to within 1e-9 relative to max(1, |f − fopt|)
// (1e-8 for f19 and f23), bit for bit for half or more of the values of
// each function (docs/BBOB.md §11).
//
// # Specs
//
// [Parse] builds a problem from a spec such as "sphere",
// "ellipsoid:cond=1e4", "rotellipsoid:seed=3", "quadratic:cond=1e4,seed=3",
// "bbob/f10/i3", "bbob-largescale/f10/i3" or "bbob-mixint/f1/i1";
// [Problem.Name] returns the canonical spec.
//
// # Conventions
//
// The Hessian of a quadratic is H in f(x) = 1/2 (x−x*)ᵀ H (x−x*) + f*, so
// the sphere Σ x_i² has H = 2I. Indices in the formulas of the constructors'
// documentation are 1-based (x_1 … x_d) unless they say otherwise.
//
// # Reproducibility
//
// Values do not depend on the CPU, the build flags or the number of
// goroutines: every product that feeds a sum is rounded explicitly (no fused
// multiply-add), sums run in a fixed order, and logarithms, exponentials,
// powers, sines and cosines come from the portable internal/xmath. The
// seeded problems (rotellipsoid, quadratic) draw from package rng.
package objectives
