package es

import (
	"math"

	"github.com/hees-dev/hees/linalg"
)

// Transformer is implemented by the strategies whose sampling covariance
// is sigma^2 A A^T for a d×d transformation A they can hand out: those
// that keep one (Info.Transform) and es11, whose A is the identity. IPOP
// and BIPOP forward it. A strategy of O(d) memory has no such matrix and
// does not implement it.
type Transformer interface {
	// Transform returns the current transformation A, in the strategy's
	// own space like Sigma, or nil when there is none (an IPOP or BIPOP
	// whose current run has none). The matrix is owned by the strategy:
	// read it, do not keep or change it across calls to Tell.
	Transform() *linalg.Dense
}

// TransformOf returns the transformation A of s, or nil when s keeps none.
func TransformOf(s Strategy) *linalg.Dense {
	if t, ok := s.(Transformer); ok {
		return t.Transform()
	}
	return nil
}

// dense is the full transformation A of the strategies that keep one
// (their rows have Info.Transform), with log|det A| and the workspace of
// the covariance checks. A strategy embeds it beside core.
type dense struct {
	a       linalg.Dense // the transformation A
	logDetA float64      // log|det A|, tracked incrementally (Sec. 13 item 5)

	// The workspace of checkCovariance.
	cov    linalg.Dense
	eig    linalg.EigenSym
	values []float64
	axes   linalg.Dense // eigenvectors of C in the columns
}

// setupDense sets A = A0 (or I) in dimension d and, with checks, sizes
// the workspace of the covariance checks.
func (m *dense) setupDense(d int, a0 *linalg.Dense, checks bool) {
	if a0 != nil {
		m.a.CopyFrom(a0)
		var work linalg.Dense
		work.CopyFrom(a0)
		m.logDetA = linalg.LogAbsDetInPlace(&work)
	} else {
		m.a.ReuseAs(d, d)
		m.a.SetIdentity()
		m.logDetA = 0
	}
	if checks {
		m.cov.ReuseAs(d, d)
		m.values = make([]float64, d)
		m.axes.ReuseAs(d, d)
	}
}

// Transform returns the current transformation A, owned by the strategy.
func (m *dense) Transform() *linalg.Dense { return &m.a }

// coordStds writes sigma·sqrt((A A^T)_ii), the standard deviation of the
// sampling distribution along each coordinate, into dst. O(d^2).
func (m *dense) coordStds(dst []float64, sigma float64) {
	for i := range dst {
		var s2 float64
		for _, v := range m.a.RawRow(i) {
			s2 += float64(v * v)
		}
		dst[i] = sigma * math.Sqrt(s2)
	}
}

// checkCovariance runs, every checker.every generations of c (counted by
// the completed generation c.gen), the criteria that need A:
//
//   - sigma too small: m + 0.1 sigma A e_i == m for every column i of A;
//   - condition of C (every eigenEvery-th check): cond(C) > 1e14, or C not
//     positive definite;
//   - no effect axis (every axisEvery-th decomposition, the j-th such one):
//     m + 0.1 sigma sqrt(lambda_i) v_i == m for the eigenpair
//     (lambda_i, v_i) of C with i = j mod d, as pycma's noeffectaxis.
//
// A check costs O(d^2); every eigenEvery-th adds a d×d product and a
// symmetric eigenvalue decomposition (about 150 times the cost of one
// matrix-vector product at d = 100), and every axisEvery-th of those the
// eigenvectors as well (about 350 times). Spread over the evaluations
// between them, this adds well under 0.1 matrix-vector products per
// evaluation at d = 100 and d = 1000.
func (m *dense) checkCovariance(c *core) Reason {
	n, due := c.checkDue()
	if !due {
		return ""
	}
	d := c.cfg.Dim
	step := float64(noEffectStep * c.sigma)
	if noEffect(c.mean, step, &m.a) {
		return ReasonSigmaTooSmall
	}
	if n%eigenEvery != 0 {
		return ""
	}
	withAxis := n%(eigenEvery*axisEvery) == 0
	axis := (n / (eigenEvery * axisEvery)) % d
	m.cov.MulAAT(&m.a)
	if err := m.eig.Factorize(&m.cov, withAxis); err != nil {
		return ReasonConditionCov
	}
	vals := m.eig.Values(m.values)
	if !(vals[0] > 0) || vals[d-1] > condMax*vals[0] {
		return ReasonConditionCov
	}
	if !withAxis {
		return ""
	}
	m.eig.VectorsTo(&m.axes)
	t := step * math.Sqrt(vals[axis])
	for j := 0; j < d; j++ {
		mj := c.mean[j]
		if mj+float64(t*m.axes.At(j, axis)) != mj {
			return ""
		}
	}
	return ReasonNoEffectAxis
}

// writeShape writes A and log|det A|, the part of the state that
// marshalCore places after sigma.
func (m *dense) writeShape(w *stateWriter, _ int) {
	w.matrix(&m.a)
	w.float(m.logDetA)
}

// readShape reads what writeShape wrote, for dimension d.
func (m *dense) readShape(r *stateReader, d int) {
	r.matrix(&m.a)
	m.logDetA = r.float()
	if rows, cols := m.a.Dims(); r.err == nil && (rows != d || cols != d) {
		r.fail("A is %d×%d, want %d×%d", rows, cols, d, d)
	}
}

// shape is the part of a strategy's saved state that describes the shape
// of its search distribution, which marshalCore places after sigma: A and
// log|det A| for the strategies with a transformation, the identity for
// es11 (in the format's slot for A), nothing for a strategy of O(d)
// memory, which saves its own shape after the core.
type shape interface {
	writeShape(w *stateWriter, d int)
	readShape(r *stateReader, d int)
}

// identityShape is the shape of es11, which samples with A = I and keeps
// no matrix: its state holds the identity where the others hold A, so
// that the format of every strategy's state stays the one it was when
// every strategy kept A. Written and read one number at a time.
type identityShape struct{}

func (identityShape) writeShape(w *stateWriter, d int) {
	w.int(d)
	w.int(d)
	for i := range d {
		for j := range d {
			v := 0.0
			if i == j {
				v = 1
			}
			w.float(v)
		}
	}
	w.float(0) // log|det I|
}

func (identityShape) readShape(r *stateReader, d int) {
	rows, cols := r.int(), r.int()
	if r.err == nil && (rows != d || cols != d) {
		r.fail("A is %d×%d, want %d×%d", rows, cols, d, d)
		return
	}
	for i := range d {
		for j := range d {
			v := r.float()
			if r.err == nil && v != boolFloat(i == j) {
				r.fail("A[%d][%d] = %v: es11 samples with A = I", i, j, v)
			}
			if r.err != nil {
				return
			}
		}
	}
	if v := r.float(); r.err == nil && v != 0 {
		r.fail("log|det A| = %v: es11 samples with A = I", v)
	}
}

// boolFloat is 1 for true and 0 for false.
func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
