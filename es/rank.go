package es

import (
	"math"
	"slices"
)

// worstValue reports whether v ranks last: NaN and +Inf are the worst
// objective values (ALGORITHMS.md Section 13 item 8).
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
