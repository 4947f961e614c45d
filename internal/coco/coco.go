// Package coco records benchmark runs on the BBOB suite in the data format
// of COCO's bbob observer, so that COCO's post-processing (cocopp) can read
// them, and computes the usual summaries from the same records: the expected
// running time (ERT) to a target and the empirical cumulative distribution
// (ECDF) of runtimes over (problem, target) pairs.
//
// The facts below come from COCO's documentation and its C logger
// (code-experiments/src/logger_bbob.c and coco_observer.c, COCO 2.x, data
// format "bbob-new2"); the code is this package's own.
//
// # Targets
//
// Targets are differences Δ = f − fopt. The target grid is 10^(k/5) for
// integer k (TargetsPerDecade = 5 per decade, the grid cocopp aligns on);
// Target(k) computes it. A run succeeds when Δ ≤ FinalTarget = 1e-8, the
// suite's precision. Δ below 1e-8 counts as the 1e-8 target, and Δ = 0 as
// one target further (10^-9), as in COCO's trigger.
//
// # Files
//
// FilesWithHeader lays out one algorithm's runs as COCO does, under the
// algorithm's folder:
//
//	bbobexp_f<F>.info                    one per function
//	data_f<F>/bbobexp_f<F>_DIM<D>.dat    target-triggered lines
//	data_f<F>/bbobexp_f<F>_DIM<D>.tdat   evaluation-triggered lines
//	data_f<F>/bbobexp_f<F>_DIM<D>.rdat   a line after each restart
//
// An .info file holds, per dimension, three lines: a header of
// "key = value" pairs separated by ", "
//
//	suite = 'bbob', funcId = 1, DIM = 2, Precision = 1.000e-08, algId = 'hees', coco_version = '0.9', logger = 'bbob', data_format = 'bbob-new2', settings = ''
//
// a comment line that starts with "%", and a data line that names the .dat
// file and lists each run as "instance:evaluations|final Δ" (the final Δ
// with %.1e):
//
//	data_f1/bbobexp_f1_DIM2.dat, 1:245|5.7e-09, 2:251|8.1e-09
//
// coco_version and settings (the Header) are the writer's version and
// the settings for the post-processing, as COCO 2.8's observer options.
// Each run in a .dat, .tdat or .rdat file starts with the header line
//
//	% f evaluations | g evaluations | best noise-free fitness - Fopt (7.948000000000e+01) + sum g_i+ | measured fitness | best measured fitness or single-digit g-values | x1 | x2...
//
// (fopt with %13.12e) followed by data lines of 5 + d columns (5 when d ≥ 7):
// the evaluation count, the constraint evaluation count (always 0 here),
// the best Δ so far, the value just measured, the best value so far (both
// with fopt added back, and never below fopt), each with %+10.9e, then the
// evaluated point with %+5.4e per coordinate. NaN and ±Inf values are
// logged as 2e21 and 3e21.
//
// # Triggers
//
// A .dat line is written at the first evaluation and at every evaluation
// whose best Δ reaches a target 10^(k/5) below every target reached before
// (one line even when several targets are passed at once). A .tdat line is
// written at evaluation counts ⌊10^(i/20)⌋ (i = 0, 1, ...) and d·{1, 2, 5}·10^i,
// and after the last evaluation unless it had a line, with the best point
// and value; the .dat file gets such a last line too (COCO 2.8). An .rdat
// line is written at the first evaluation after a restart of the algorithm
// (Observer.Restart).
//
// # Summaries
//
// ERT (Hansen et al., COCO's performance assessment): the evaluations of all
// runs, each counted until it reached the target or until it ended, divided
// by the number of runs that reached the target; +Inf when none did.
// ECDF: the fraction of (run, target) pairs, over the NumTargets targets
// 10^2 … 10^-8 (k = 10 … −40), whose target was reached within a given
// number of evaluations divided by the dimension. With the same number of
// instances for every function, this is COCO's fraction of (function,
// target) pairs averaged over instances; COCO's plots add simulated restarts
// of unsuccessful runs, which this package does not.
package coco

import "math"

// Target grid and precision (see the package documentation).
const (
	// TargetsPerDecade is the number of targets per decade of Δ = f − fopt.
	TargetsPerDecade = 5
	// FinalTarget is the precision of the bbob suite: a run is successful
	// once Δ ≤ FinalTarget.
	FinalTarget = 1e-8
	// MaxTargetLevel and MinTargetLevel bound the levels k of the targets
	// 10^(k/5) that the runs record and the ECDF uses: 10^2 down to 10^-8.
	MaxTargetLevel = 2 * TargetsPerDecade
	MinTargetLevel = -8 * TargetsPerDecade
	// NumTargets is the number of recorded targets, 51.
	NumTargets = MaxTargetLevel - MinTargetLevel + 1
)

// SummaryLevels are the levels of the targets 1e1, 1e0, ..., 1e-8 at which
// summaries report the ERT.
var SummaryLevels = []int{5, 0, -5, -10, -15, -20, -25, -30, -35, -40}

// decadeSteps holds 10^(r/5) for r = 0 … 4, the float64 nearest to each
// (TestTargetAccuracy checks them).
var decadeSteps = [TargetsPerDecade]float64{1, 1.5848931924611134, 2.51188643150958, 3.9810717055349727, 6.3095734448019325}

// Target returns the target 10^(k/5) of level k, for |k| ≤ 110: the
// float64 nearest to it for multiples of 5 (Target(-40) == 1e-8) and within
// 1.5 ulp otherwise. It is the nearest float64 to 10^(r/5), r = k mod 5,
// times or divided by an exact power of ten: one correctly rounded
// operation, so the bits are the same on every platform.
func Target(k int) float64 {
	q, r := k/TargetsPerDecade, k%TargetsPerDecade
	if r < 0 {
		q, r = q-1, r+TargetsPerDecade
	}
	if q >= 0 {
		return decadeSteps[r] * math.Pow10(q)
	}
	return decadeSteps[r] / math.Pow10(-q)
}

// level returns the level of Δ: the smallest k with Δ ≤ Target(k), where a
// Δ below FinalTarget counts as FinalTarget and Δ = 0 as one decade below
// it (COCO's coco_observer_log_targets_trigger). Δ must not be negative or
// NaN.
func level(delta float64) int {
	switch {
	case delta == 0:
		return MinTargetLevel - TargetsPerDecade
	case delta < FinalTarget:
		return MinTargetLevel
	}
	// The logarithm only gives a first guess; the comparisons with Target
	// decide, so the result does not depend on how Log10 rounds. The guess
	// is capped at 10^310, above the float64 range, so that Δ = +Inf (f
	// huge, fopt very negative) gets the first level whose target
	// overflows rather than converting +Inf to an int.
	k := int(math.Ceil(min(math.Log10(delta), 310) * TargetsPerDecade))
	for delta > Target(k) {
		k++
	}
	for delta <= Target(k-1) {
		k--
	}
	return k
}

// SuccessThreshold returns the largest float64 f counted as reaching the
// final target, that is with max(f, fopt) − fopt ≤ FinalTarget in floating
// point: a run reaches the target exactly when it evaluates a value at or
// below it. fopt must be finite. (fopt + 1e-8 itself may be off by one ulp
// either way, as the sum and the difference round.)
func SuccessThreshold(fopt float64) float64 {
	t := fopt + FinalTarget
	for t-fopt > FinalTarget {
		t = math.Nextafter(t, math.Inf(-1))
	}
	for next := math.Nextafter(t, math.Inf(1)); next-fopt <= FinalTarget; next = math.Nextafter(next, math.Inf(1)) {
		t = next
	}
	return t
}
