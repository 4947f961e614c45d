package es

import (
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
)

// worstValue reports whether v ranks last: NaN and +Inf are the worst
// objective values (docs/ALGORITHMS.md Section 13 item 8).
func worstValue(v float64) bool { return v != v || math.IsInf(v, 1) }

// compareValues is the total order of objective values used for ranking
// (minimisation): smaller is better, -Inf is the best value, and NaN and +Inf
// are the worst and equal to each other. Unlike cmp.Compare, it puts NaN
// last. It returns -1, 0 or +1.
func compareValues(a, b float64) int {
	aw, bw := worstValue(a), worstValue(b)
	switch {
	case aw && bw:
		return 0
	case aw:
		return 1
	case bw:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rankOrder fills order with the indices 0..len(order)-1 of f sorted from
// best to worst by compareValues, ties broken by the smaller index. The
// comparison is a strict total order on indices, so the result does not
// depend on the sorting algorithm. len(order) must not exceed len(f).
// rankOrder does not allocate.
func rankOrder(order []int, f []float64) {
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		if c := compareValues(f[i], f[j]); c != 0 {
			return c
		}
		return i - j
	})
}

// bestIndex returns the index of the best value of f by compareValues,
// the smaller index on a tie: the first index of rankOrder.
func bestIndex(f []float64) int {
	b := 0
	for i := 1; i < len(f); i++ {
		if compareValues(f[i], f[b]) < 0 {
			b = i
		}
	}
	return b
}

// worstIndex returns the index of the worst value of f by compareValues,
// the larger index on a tie: the last index of rankOrder.
func worstIndex(f []float64) int {
	w := 0
	for i := 1; i < len(f); i++ {
		if compareValues(f[i], f[w]) >= 0 {
			w = i
		}
	}
	return w
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// logWeights sets the CMA-style log weights: w[k-1] = top - ln k for the
// ranks k = 1..n and 0 for the rest of w, normalised to sum 1, and returns
// mu_eff = 1 / sum w_k^2 (docs/ALGORITHMS.md Sections 4 and 8; top is
// ln(lambda~ + 1/2) for HE-ES and ln((lambda + 1)/2) for CMA-ES).
func logWeights(w []float64, n int, top float64) float64 {
	var sum float64
	for k := 1; k <= n; k++ {
		v := top - xmath.Log(float64(k))
		w[k-1] = v
		sum += v
	}
	var sumSq float64
	for k := range w {
		w[k] /= sum
		sumSq += float64(w[k] * w[k])
	}
	return 1 / sumSq
}

// chiD is chi_d = sqrt(d) (1 - 1/(4d) + 1/(21 d^2)), the usual approximation
// of E|N(0, I_d)| (docs/ALGORITHMS.md Section 4).
func chiD(d int) float64 {
	n := float64(d)
	return float64(math.Sqrt(n) * (1 - 1/(4*n) + 1/float64(21*n*n)))
}
