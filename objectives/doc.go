// Package objectives provides the test problems of hees: classic functions
// of the evolution-strategy literature and the functions of four COCO
// suites with COCO-exact instances: bbob (24 noiseless functions),
// bbob-largescale, bbob-mixint, and bbob-noisy (30 noisy functions).
//
// # Problems
//
// A [Problem] has a canonical name, a dimension, an allocation-free Eval,
// and, where known, its optimum and (for quadratics) its constant Hessian.
// Problems are immutable, and Eval is safe for concurrent use; the noisy
// problems' Eval is the one exception to immutability (see BBOB noisy).
//
// The classic functions have f* = 0 and are built by NewSphere,
// NewEllipsoid, NewRotatedEllipsoid, NewCigar, NewDiscus, NewTwoAxes,
// NewDiffPowers, NewRosenbrock, NewRastrigin, NewQuadratic (from a given
// Hessian) and NewRandomQuadratic (seeded). Their box of interest is
// [−3, 3]^d. NewNoisyClassic adds Gaussian noise to any of them, additive
// (f + s·N) or multiplicative (f·(1 + s·N)); the specs write it as
// "sphere:noise=add,sigma=0.1" or "rosenbrock:noise=mul", and the result is
// a [Noisy] whose noise comes from the same two sources as bbob-noisy's
// (below).
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
// # BBOB noisy
//
// NewBBOBNoisy(f, i, d) is function f101-f130 of COCO's "bbob-noisy" suite:
// sphere, Rosenbrock, step ellipsoid, rotated ellipsoid, different powers,
// Schaffers F7, Griewank–Rosenbrock and Gallagher's 101 peaks, each with
// Gaussian, uniform and Cauchy noise (moderate for f101-f106, severe from
// f107 on), as COCO computes them (docs/BBOB.md §12). It returns a [Noisy],
// whose noise comes from one of two sources:
//
//   - Eval reproduces COCO's noise sequence. COCO draws each noise value
//     from its legacy generator seeded by a counter that every evaluation
//     advances, so a value depends on the evaluations before it. A
//     freshly built problem starts the counters where COCO starts them,
//     and evaluated sequentially it gives COCO's values point by point
//     (hees eval does this). This is the only state a problem of this
//     package changes after construction: Eval advances the counters
//     under a lock, so it is safe for concurrent use, but concurrent
//     callers get the values in an order that depends on scheduling.
//   - EvalKeyed(x, seed, key) draws the noise from the Philox sub-stream
//     addressed by the problem, seed and key (package rng), a pure
//     function of its arguments: the same key gives the same bits on any
//     number of goroutines and after a save and a resume. This is the
//     mode for optimisation runs (hees run uses its seed and the number of
//     the evaluation in the run).
//
// Noiseless is the value without noise, which COCO's targets refer to.
// Against COCO's own values (testdata/bbob-noisy, 11280 evaluations in
// sequences) the draws are COCO's exactly, every value agrees to within
// 1e-9 relative to max(1, |f − fopt|), and 89% agree to the last bit (all
// of f101-f110 and f112; elsewhere glibc's and xmath's last bits differ).
//
// # Specs
//
// [Parse] builds a problem from a spec such as "sphere",
// "ellipsoid:cond=1e4", "rotellipsoid:seed=3", "quadratic:cond=1e4,seed=3",
// "bbob/f10/i3", "bbob-largescale/f10/i3" or "bbob-mixint/f1/i1";
// [Problem.Name] returns the canonical spec.
//
// "bbob/f10/i3" or "bbob-noisy/f101/i1"; [Problem.Name] returns the
// canonical spec.
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
