package coco

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/hees-dev/hees/internal/xmath"
)

// ERT returns the expected running time to the target of level k
// (MinTargetLevel ≤ k ≤ MaxTargetLevel) over runs: the evaluations of every
// run until it reached the target, or all its evaluations if it did not,
// summed and divided by the number of runs that reached it (the
// successes). It is +Inf when no run succeeded (and for no runs).
func ERT(runs []*Run, k int) (ert float64, successes int) {
	var total int64
	for _, r := range runs {
		if e, ok := r.Hit(k); ok {
			total += int64(e)
			successes++
		} else {
			total += int64(r.Evals)
		}
	}
	if successes == 0 {
		return math.Inf(1), 0
	}
	return float64(total) / float64(successes), successes
}

// Summary is the performance of one algorithm on one function in one
// dimension, over its runs (instances).
type Summary struct {
	Algorithm     string
	Function, Dim int
	// Runs is the number of runs and Successes the number that reached
	// the final target 1e-8.
	Runs, Successes int
	// ERT holds the ERT to the targets of SummaryLevels (1e1 … 1e-8), in
	// that order.
	ERT []float64
}

// Summarize groups the runs of one algorithm by function and dimension
// (in increasing order) and returns their summaries.
func Summarize(algorithm string, runs []*Run) []Summary {
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b *Run) int {
		return cmp.Or(cmp.Compare(a.Function, b.Function), cmp.Compare(a.Dim, b.Dim))
	})
	var out []Summary
	for g := range groups(sorted, sameDim) {
		s := Summary{Algorithm: algorithm, Function: g[0].Function, Dim: g[0].Dim, Runs: len(g)}
		for _, k := range SummaryLevels {
			ert, _ := ERT(g, k)
			s.ERT = append(s.ERT, ert)
		}
		_, s.Successes = ERT(g, MinTargetLevel)
		out = append(out, s)
	}
	return out
}

// WriteSummaryCSV writes the summaries as CSV with a header line:
// algorithm, function, dim, runs, successes, then ert_1e1 … ert_1e-8.
// ERTs are written in the shortest form that reads back to the same
// float64, and "Inf" when no run reached the target.
func WriteSummaryCSV(w io.Writer, rows []Summary) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("algorithm,function,dim,runs,successes")
	for _, k := range SummaryLevels {
		fmt.Fprintf(bw, ",ert_1e%d", k/TargetsPerDecade)
	}
	bw.WriteByte('\n')
	for _, s := range rows {
		if len(s.ERT) != len(SummaryLevels) {
			return fmt.Errorf("coco: summary of %s f%d d=%d has %d ERTs, want %d", s.Algorithm, s.Function, s.Dim, len(s.ERT), len(SummaryLevels))
		}
		fmt.Fprintf(bw, "%s,%d,%d,%d,%d", s.Algorithm, s.Function, s.Dim, s.Runs, s.Successes)
		for _, v := range s.ERT {
			bw.WriteByte(',')
			bw.WriteString(FormatERT(v))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// FormatERT writes an ERT in the shortest form that reads back to the same
// float64, or "Inf".
func FormatERT(v float64) string {
	if math.IsInf(v, 1) {
		return "Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ECDF returns the empirical cumulative distribution of the runtimes of all
// (run, target) pairs of runs, over the NumTargets targets 10^2 … 10^-8, as
// the corner points of a step function: x is log10(evaluations / d) (d of
// each run) and y the fraction of pairs whose target was reached within
// that many evaluations. The first point is (x of the earliest hit, 0), so
// a step plot rises from zero, and the last one is at the largest
// evaluations / d of any run, so the plot extends over the budget. With no
// runs ECDF returns nil slices; with no hit, the two points
// (log10(1/d), 0) and (log10(largest evaluations / d), 0).
func ECDF(runs []*Run) (x, y []float64) {
	if len(runs) == 0 {
		return nil, nil
	}
	var times []float64
	longest, shortest := 0.0, math.Inf(1)
	for _, r := range runs {
		d := float64(r.Dim)
		longest = max(longest, float64(r.Evals)/d)
		shortest = min(shortest, 1/d)
		for _, h := range r.Hits {
			if h > 0 {
				times = append(times, float64(h)/d)
			}
		}
	}
	slices.Sort(times)
	pairs := float64(len(runs) * NumTargets)
	if len(times) == 0 {
		return []float64{log10(shortest), log10(longest)}, []float64{0, 0}
	}
	x = append(x, log10(times[0]))
	y = append(y, 0)
	for i, t := range times {
		if i+1 < len(times) && times[i+1] == t {
			continue
		}
		x = append(x, log10(t))
		y = append(y, float64(i+1)/pairs)
	}
	if last := log10(longest); last > x[len(x)-1] {
		x = append(x, last)
		y = append(y, y[len(y)-1])
	}
	return x, y
}

// log10 is the base-10 logarithm with the portable internal/xmath.Log, so
// plots come out the same on every platform.
func log10(v float64) float64 {
	return xmath.Log(v) / math.Ln10
}
