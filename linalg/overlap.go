package linalg

import "fmt"

// Overlap detection. Slices of one backing array share the address of the
// array's last element, and a slice's distance from that end is its
// capacity. Positions below are measured from that common end, so they are
// negative; only differences matter.

// backingEnd returns the address of the last element of the array behind s,
// or nil if s has no capacity.
func backingEnd(s []float64) *float64 {
	if cap(s) == 0 {
		return nil
	}
	return &s[:cap(s)][cap(s)-1]
}

// intervalHitsMatrix reports whether the positions [x, x+n) intersect the
// elements of m, whose first element is at position pm.
func intervalHitsMatrix(x, n, pm int, m *Dense) bool {
	if n <= 0 || m.rows == 0 || m.cols == 0 {
		return false
	}
	// Row k of m covers [pm + k*stride, pm + k*stride + cols). It meets
	// [x, x+n) iff pm + k*stride < x+n and pm + k*stride + cols > x.
	s := m.stride
	kMin := floorDiv(x-pm-m.cols, s) + 1
	kMax := floorDiv(x+n-pm-1, s)
	kMin = max(kMin, 0)
	kMax = min(kMax, m.rows-1)
	return kMin <= kMax
}

// floorDiv returns ⌊a/b⌋ for b > 0 (Go's / truncates toward zero).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// matricesOverlap reports whether a and b share at least one element.
func matricesOverlap(a, b *Dense) bool {
	if a.IsEmpty() || b.IsEmpty() {
		return false
	}
	ea := backingEnd(a.data)
	if ea == nil || ea != backingEnd(b.data) {
		return false
	}
	pa, pb := -cap(a.data), -cap(b.data)
	for i := 0; i < a.rows; i++ {
		if intervalHitsMatrix(pa+i*a.stride, a.cols, pb, b) {
			return true
		}
	}
	return false
}

// vectorOverlapsMatrix reports whether x shares an element with m.
func vectorOverlapsMatrix(x []float64, m *Dense) bool {
	if len(x) == 0 || m.IsEmpty() {
		return false
	}
	ex := backingEnd(x)
	if ex == nil || ex != backingEnd(m.data) {
		return false
	}
	return intervalHitsMatrix(-cap(x), len(x), -cap(m.data), m)
}

// vectorsOverlap reports whether x and y share an element.
func vectorsOverlap(x, y []float64) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	ex := backingEnd(x)
	if ex != backingEnd(y) {
		return false
	}
	px, py := -cap(x), -cap(y)
	return px < py+len(y) && py < px+len(x)
}

// checkNoOverlap panics if the destination dst shares storage with src.
func checkNoOverlap(op string, dst, src *Dense) {
	if matricesOverlap(dst, src) {
		panic(fmt.Sprintf("linalg: %s: destination %s shares storage with operand %s", op, shape(dst), shape(src)))
	}
}

// checkSameOrDisjoint panics unless dst and src are the same matrix (same
// storage, offset and stride) or share no element, as element-wise
// operations require.
func checkSameOrDisjoint(op string, dst, src *Dense) {
	if !matricesOverlap(dst, src) {
		return
	}
	if cap(dst.data) == cap(src.data) && dst.stride == src.stride {
		return // same first element and layout: element (i, j) maps to itself
	}
	panic(fmt.Sprintf("linalg: %s: destination %s partly overlaps operand %s", op, shape(dst), shape(src)))
}
