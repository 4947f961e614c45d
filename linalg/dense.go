package linalg

import (
	"fmt"
	"math"
)

// Dense is a dense r×c matrix of float64 stored row by row with a stride:
// element (i, j) is data[i*stride+j]. The zero value is an empty matrix that
// methods writing into it size as needed. See the package documentation for
// the aliasing rule.
type Dense struct {
	rows, cols, stride int
	// data holds the elements. For a matrix that owns its storage, len(data)
	// is rows*cols. For a view, data starts at the view's first element and
	// keeps the parent's capacity, so overlap between views can be detected.
	data []float64
	// view marks a matrix that shares storage with another one; ReuseAs and
	// Reset never grow a view into memory outside it.
	view bool
}

// NewDense returns an r×c matrix that uses data as its storage, row by row.
// A nil data allocates a zero matrix. NewDense panics if r or c is negative
// or if data is not nil and len(data) != r*c.
func NewDense(r, c int, data []float64) *Dense {
	if r < 0 || c < 0 {
		panic(fmt.Sprintf("linalg: NewDense with negative shape %d×%d", r, c))
	}
	if data == nil {
		data = make([]float64, r*c)
	} else if len(data) != r*c {
		panic(fmt.Sprintf("linalg: NewDense %d×%d needs %d elements, data has %d", r, c, r*c, len(data)))
	}
	return &Dense{rows: r, cols: c, stride: c, data: data}
}

// NewIdentity returns the n×n identity matrix. It panics if n is negative.
func NewIdentity(n int) *Dense {
	m := NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.data[i*n+i] = 1
	}
	return m
}

// Dims returns the number of rows and columns of m.
func (m *Dense) Dims() (r, c int) { return m.rows, m.cols }

// At returns element (i, j) of m. It panics if (i, j) is out of range.
func (m *Dense) At(i, j int) float64 {
	m.checkIndex(i, j)
	return m.data[i*m.stride+j]
}

// Set sets element (i, j) of m to v. It panics if (i, j) is out of range.
func (m *Dense) Set(i, j int, v float64) {
	m.checkIndex(i, j)
	m.data[i*m.stride+j] = v
}

func (m *Dense) checkIndex(i, j int) {
	if uint(i) >= uint(m.rows) || uint(j) >= uint(m.cols) {
		panic(fmt.Sprintf("linalg: index (%d, %d) out of range for %s matrix", i, j, shape(m)))
	}
}

// RawRow returns row i of m as a slice of length c that aliases m's storage.
// Its capacity reaches to the end of the storage (so that overlap with m can
// be detected): do not append to it. It panics if i is out of range.
func (m *Dense) RawRow(i int) []float64 {
	if uint(i) >= uint(m.rows) {
		panic(fmt.Sprintf("linalg: row %d out of range for %s matrix", i, shape(m)))
	}
	off := i * m.stride
	return m.data[off : off+m.cols]
}

// View returns the r×c sub-matrix of m whose top-left element is (i, j).
// The view shares storage with m. It panics if the block does not fit in m
// or if r or c is negative. A view with no elements is empty.
func (m *Dense) View(i, j, r, c int) *Dense {
	if i < 0 || j < 0 || r < 0 || c < 0 || i+r > m.rows || j+c > m.cols {
		panic(fmt.Sprintf("linalg: View(%d, %d, %d, %d) out of range for %s matrix", i, j, r, c, shape(m)))
	}
	if r == 0 || c == 0 {
		// No storage, and the stride of an owned r×c matrix, so that every
		// row of an r×0 view is the empty slice data[0:0].
		return &Dense{rows: r, cols: c, stride: c, view: true}
	}
	return &Dense{rows: r, cols: c, stride: m.stride, data: m.data[i*m.stride+j:], view: true}
}

// ReuseAs makes the empty matrix m an r×c zero matrix, keeping m's storage
// when its capacity suffices (no allocation) and allocating otherwise. A
// non-empty m must already be r×c, and is then zeroed in place (a view
// keeps sharing its parent's storage): ReuseAs panics, as gonum's does, if
// a non-empty m has another shape, so that a matrix is never reshaped by
// accident; call Reset first to reshape it. ReuseAs panics if r or c is
// negative.
func (m *Dense) ReuseAs(r, c int) {
	if r < 0 || c < 0 {
		panic(fmt.Sprintf("linalg: ReuseAs with negative shape %d×%d", r, c))
	}
	switch {
	case r == m.rows && c == m.cols:
		m.zero()
		return
	case !m.IsEmpty():
		panic(fmt.Sprintf("linalg: ReuseAs(%d, %d) on a non-empty %s matrix (Reset it first)", r, c, shape(m)))
	case !m.view && cap(m.data) >= r*c:
		m.data = m.data[:r*c]
		clear(m.data)
	default:
		m.data = make([]float64, r*c)
		m.view = false
	}
	m.rows, m.cols, m.stride = r, c, c
}

// Reset makes m an empty 0×0 matrix that ReuseAs, or any method writing
// into it, sizes again. A matrix that owns its storage keeps it for that
// reuse; a view lets go of its parent's storage, so that it can never write
// into it again.
func (m *Dense) Reset() {
	if m.view {
		m.data, m.view = nil, false
	} else {
		m.data = m.data[:0]
	}
	m.rows, m.cols, m.stride = 0, 0, 0
}

// reuseAsNonZeroed is ReuseAs without clearing the contents, for callers
// that overwrite every element.
func (m *Dense) reuseAsNonZeroed(r, c int) {
	switch {
	case r == m.rows && c == m.cols:
		return
	case !m.view && cap(m.data) >= r*c:
		m.data = m.data[:r*c]
	default:
		m.data = make([]float64, r*c)
		m.view = false
	}
	m.rows, m.cols, m.stride = r, c, c
}

func (m *Dense) zero() {
	for i := 0; i < m.rows; i++ {
		clear(m.data[i*m.stride : i*m.stride+m.cols])
	}
}

// IsEmpty reports whether m has no elements (zero rows or zero columns).
// The zero value of Dense is empty.
func (m *Dense) IsEmpty() bool { return m.rows == 0 || m.cols == 0 }

// sizeFor prepares m as the r×c destination of op: an empty m is sized
// (without clearing) and a non-empty m must already be r×c.
func (m *Dense) sizeFor(op string, r, c int) {
	if m.IsEmpty() {
		m.reuseAsNonZeroed(r, c)
		return
	}
	if m.rows != r || m.cols != c {
		panic(fmt.Sprintf("linalg: %s: receiver is %s, result is %d×%d", op, shape(m), r, c))
	}
}

// CopyFrom copies the elements of a into m. An empty m is sized to a's shape;
// otherwise the shapes must match or CopyFrom panics. m may be a itself but
// must not overlap it otherwise.
func (m *Dense) CopyFrom(a *Dense) {
	m.sizeFor("CopyFrom", a.rows, a.cols)
	checkSameOrDisjoint("CopyFrom", m, a)
	for i := 0; i < a.rows; i++ {
		copy(m.data[i*m.stride:i*m.stride+m.cols], a.data[i*a.stride:i*a.stride+a.cols])
	}
}

// SetIdentity sets the square matrix m to the identity. It panics if m is
// not square.
func (m *Dense) SetIdentity() {
	if m.rows != m.cols {
		panic(fmt.Sprintf("linalg: SetIdentity on non-square %s matrix", shape(m)))
	}
	m.zero()
	for i := 0; i < m.rows; i++ {
		m.data[i*m.stride+i] = 1
	}
}

// Scale sets m = alpha·a. An empty m is sized; otherwise the shapes must
// match. m may be a but must not overlap it otherwise.
func (m *Dense) Scale(alpha float64, a *Dense) {
	m.sizeFor("Scale", a.rows, a.cols)
	checkSameOrDisjoint("Scale", m, a)
	for i := 0; i < a.rows; i++ {
		dst := m.data[i*m.stride : i*m.stride+m.cols]
		src := a.data[i*a.stride : i*a.stride+a.cols]
		for j, v := range src {
			dst[j] = alpha * v
		}
	}
}

// Add sets m = a + b. The shapes of a and b must match (and m's, unless m is
// empty), or Add panics. m may be a or b but must not overlap them
// otherwise.
func (m *Dense) Add(a, b *Dense) {
	if a.rows != b.rows || a.cols != b.cols {
		panic(fmt.Sprintf("linalg: Add: shapes %s and %s differ", shape(a), shape(b)))
	}
	m.sizeFor("Add", a.rows, a.cols)
	checkSameOrDisjoint("Add", m, a)
	checkSameOrDisjoint("Add", m, b)
	for i := 0; i < a.rows; i++ {
		dst := m.data[i*m.stride : i*m.stride+m.cols]
		x := a.data[i*a.stride : i*a.stride+a.cols]
		y := b.data[i*b.stride : i*b.stride+b.cols]
		for j := range dst {
			dst[j] = x[j] + y[j]
		}
	}
}

// Transpose sets m = aᵀ. An empty m is sized to c×r; otherwise m must be c×r.
// m must not share storage with a, or Transpose panics.
func (m *Dense) Transpose(a *Dense) {
	m.sizeFor("Transpose", a.cols, a.rows)
	checkNoOverlap("Transpose", m, a)
	// Blocks of 32×32 keep both the rows read and the rows written in cache.
	const block = 32
	for ib := 0; ib < a.rows; ib += block {
		ie := min(ib+block, a.rows)
		for jb := 0; jb < a.cols; jb += block {
			je := min(jb+block, a.cols)
			for i := ib; i < ie; i++ {
				row := a.data[i*a.stride : i*a.stride+a.cols]
				for j := jb; j < je; j++ {
					m.data[j*m.stride+i] = row[j]
				}
			}
		}
	}
}

// Trace returns the sum of the diagonal elements of the square matrix m,
// added in index order. It panics if m is not square.
func (m *Dense) Trace() float64 {
	if m.rows != m.cols {
		panic(fmt.Sprintf("linalg: Trace of non-square %s matrix", shape(m)))
	}
	var s float64
	for i := 0; i < m.rows; i++ {
		s += m.data[i*m.stride+i]
	}
	return s
}

// FrobeniusNorm returns sqrt(Σ m_ij²). It scales by the largest magnitude so
// that neither overflow nor underflow of the squares spoils the result.
func (m *Dense) FrobeniusNorm() float64 {
	var scale float64
	for i := 0; i < m.rows; i++ {
		for _, v := range m.data[i*m.stride : i*m.stride+m.cols] {
			scale = max(scale, math.Abs(v))
		}
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	var s float64
	for i := 0; i < m.rows; i++ {
		for _, v := range m.data[i*m.stride : i*m.stride+m.cols] {
			t := v / scale
			s += float64(t * t)
		}
	}
	return scale * math.Sqrt(s)
}

// shape formats m's dimensions for panic messages.
func shape(m *Dense) string { return fmt.Sprintf("%d×%d", m.rows, m.cols) }
