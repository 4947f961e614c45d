package es

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
)

// Trace records one row per generation of a Minimize run (Options.Trace).
// A nil *Trace in the Options records nothing and costs nothing.
//
// The cheap columns (counts, values, sigma) cost O(1) per generation, plus
// O(d) to recognise f(m). The matrix columns cost O(d^3): C = A A^T, its
// eigenvalues and an LU factorisation of A (about 4 d^3 flops), and with a
// Hessian the product A^T H A and its eigenvalues (about 6 d^3 more). They
// are computed only every Interval generations; in the other rows they are
// empty.
type Trace struct {
	// Interval is the number of generations between two rows with the
	// matrix columns; 0 means 1 (every row). A row has them when its
	// generation count is a multiple of Interval.
	Interval int
	// Rows holds the recorded rows in order.
	Rows []TraceRow

	// Workspaces reused from one row to the next.
	cov, transposed, product, whitened linalg.Dense
	eig                                linalg.EigenSym
	values                             []float64
}

// TraceRow is the state after one generation. The matrix columns use
// A = Transform() and C = A A^T (docs/ALGORITHMS.md Section 13 item 6).
type TraceRow struct {
	// Generation and Evals are the strategy's counts after the generation;
	// Restarts its restart count (IPOP), 0 otherwise.
	Generation, Evals, Restarts int
	// FMean is f(m_t) of the generation's mean when the generation
	// evaluated the mean itself as its first candidate (every generation
	// of the full HE-ES, docs/ALGORITHMS.md Section 4 step 4; generation 0 of
	// the elitist strategies, whose f(m) is otherwise FBest). MeanKnown
	// says whether it is set.
	FMean     float64
	MeanKnown bool
	// FGeneration is the smallest value of the generation, FBest the
	// smallest value so far.
	FGeneration, FBest float64
	// Sigma is the step size after the generation.
	Sigma float64
	// Matrix says whether the matrix columns below are set.
	Matrix bool
	// CondC is cond(C) = lambda_max / lambda_min of C = A A^T,
	// NormTraceC = tr(C / det(C)^(1/d)) (d for an isotropic C) and
	// LogDetA = ln |det A|.
	CondC, NormTraceC, LogDetA float64
	// Whitened says whether the two columns below are set: they need
	// Options.Hessian.
	Whitened bool
	// CondAHA and NormTraceAHA are cond and the normalised trace of the
	// whitened Hessian A^T H A, which HE-ES drives to a multiple of I.
	CondAHA, NormTraceAHA float64
}

// record appends the row of the generation s just completed. fMean is
// f(m_t) when meanKnown, genBest the generation's smallest value, best the
// smallest so far, hessian H or nil (its shape was checked by Minimize).
func (t *Trace) record(s Strategy, fMean float64, meanKnown bool, genBest, best float64, hessian *linalg.Dense) {
	row := TraceRow{
		Generation:  s.Generation(),
		Evals:       s.Evals(),
		Restarts:    restartsOf(s),
		FMean:       fMean,
		MeanKnown:   meanKnown,
		FGeneration: genBest,
		FBest:       best,
		Sigma:       s.Sigma(),
	}
	interval := max(t.Interval, 1)
	if a := TransformOf(s); a != nil && row.Generation%interval == 0 {
		row.Matrix = true
		t.cov.MulAAT(a)
		row.CondC, row.NormTraceC = t.condAndTrace(&t.cov)
		row.LogDetA, _ = linalg.LogDet(a)
		if hessian != nil {
			row.Whitened = true
			t.whitenedHessian(a, hessian)
			row.CondAHA, row.NormTraceAHA = t.condAndTrace(&t.whitened)
		}
	}
	t.Rows = append(t.Rows, row)
}

// whitenedHessian computes t.whitened = A^T H A, symmetrised so that the
// eigensolver sees an exactly symmetric matrix.
func (t *Trace) whitenedHessian(a, h *linalg.Dense) {
	t.product.Mul(h, a)       // H A
	t.transposed.Transpose(a) // A^T
	t.whitened.Mul(&t.transposed, &t.product)
	d, _ := t.whitened.Dims()
	for i := range d {
		for j := range i {
			v := 0.5 * (t.whitened.At(i, j) + t.whitened.At(j, i))
			t.whitened.Set(i, j, v)
			t.whitened.Set(j, i, v)
		}
	}
}

// condAndTrace returns cond(m) = lambda_max/lambda_min and the normalised
// trace tr(m / det(m)^(1/d)) = sum lambda_i / (prod lambda_i)^(1/d) of a
// symmetric m from one eigendecomposition (values only), NaN for both when
// it fails or m is not positive definite.
func (t *Trace) condAndTrace(m *linalg.Dense) (cond, normTrace float64) {
	d, _ := m.Dims()
	if err := t.eig.Factorize(m, false); err != nil {
		return math.NaN(), math.NaN()
	}
	if len(t.values) != d {
		t.values = make([]float64, d)
	}
	values := t.eig.Values(t.values)
	lo, hi := values[0], values[d-1]
	if !(lo > 0) || math.IsInf(hi, 1) {
		return math.NaN(), math.NaN()
	}
	// With lambda_i / lambda_max in (0, 1] neither the sum nor the
	// logarithms overflow; the scale cancels in the ratio.
	var sum, logSum float64
	for _, v := range values {
		r := v / hi
		sum += r
		logSum += xmath.Log(r)
	}
	return hi / lo, sum / xmath.Exp(logSum/float64(d))
}

// traceHeader lists the CSV columns in order.
const traceHeader = "generation,evals,restarts,f_mean,f_generation,f_best,sigma," +
	"cond_C,normtrace_C,logdet_A,cond_AHA,normtrace_AHA\n"

// WriteCSV writes the rows as CSV with a header line. The columns are, in
// order: generation, evals, restarts, f_mean, f_generation, f_best, sigma,
// cond_C, normtrace_C, logdet_A, cond_AHA, normtrace_AHA (the TraceRow
// fields of the same meaning). Floats are written with the shortest decimal
// that reads back to the same bits ("NaN", "+Inf", "-Inf" for those values);
// a column that was not computed for a row (f_mean unknown, matrix columns
// between intervals, the A^T H A columns without a Hessian) is empty.
func (t *Trace) WriteCSV(w io.Writer) error {
	if _, err := io.WriteString(w, traceHeader); err != nil {
		return err
	}
	return t.WriteCSVRows(w, 0)
}

// WriteCSVRows writes the rows from index from on, as WriteCSV does but
// without the header: a caller that appends to a trace file as the run
// goes writes the rows recorded since its last call. A from at or past
// the last row writes nothing; a negative one is an error.
func (t *Trace) WriteCSVRows(w io.Writer, from int) error {
	if from < 0 {
		return fmt.Errorf("es: Trace.WriteCSVRows: from = %d is negative", from)
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := from; i < len(t.Rows); i++ {
		r := &t.Rows[i]
		buf = buf[:0]
		buf = strconv.AppendInt(buf, int64(r.Generation), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(r.Evals), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(r.Restarts), 10)
		buf = appendCell(buf, r.FMean, r.MeanKnown)
		buf = appendCell(buf, r.FGeneration, true)
		buf = appendCell(buf, r.FBest, true)
		buf = appendCell(buf, r.Sigma, true)
		buf = appendCell(buf, r.CondC, r.Matrix)
		buf = appendCell(buf, r.NormTraceC, r.Matrix)
		buf = appendCell(buf, r.LogDetA, r.Matrix)
		buf = appendCell(buf, r.CondAHA, r.Whitened)
		buf = appendCell(buf, r.NormTraceAHA, r.Whitened)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// appendCell appends a comma and v (nothing after the comma when not set).
func appendCell(buf []byte, v float64, set bool) []byte {
	buf = append(buf, ',')
	if !set {
		return buf
	}
	return strconv.AppendFloat(buf, v, 'g', -1, 64)
}

// DefaultTraceInterval is the Trace.Interval that keeps the matrix columns
// of a trace at about a tenth of the run's time or less, at any dimension
// d, for a strategy whose generations have lambda candidates (its
// PopulationSize); hessian says that the trace has Options.Hessian. A row
// with the matrix columns costs O(d^3) (C = A A^T, its eigenvalues and
// det A; with a Hessian also A^T H A and its eigenvalues, 2.5 times as
// much), a generation at least O(lambda d^2), one product A z per
// candidate. Their ratio grows like d/lambda, so the interval is
//
//	max(1, ceil(k d / lambda)) generations
//
// with k = 40, and k = 100 with a Hessian: BenchmarkTrace measured a row
// with the matrix columns at 3 to 8 generations of hees times d/lambda on
// the Rosenbrock function and 7 to 17 on the ellipsoid with its Hessian
// (d = 10 to 300). The interval depends on d and lambda only, so the trace
// does not depend on timing; IPOP's larger populations only lower the
// share. A d or lambda below 1 counts as 1.
func DefaultTraceInterval(d, lambda int, hessian bool) int {
	k := traceCost
	if hessian {
		k = traceCostHessian
	}
	d, lambda = max(d, 1), max(lambda, 1)
	return max(1, (k*d+lambda-1)/lambda)
}

// The constants k of DefaultTraceInterval.
const (
	traceCost        = 40
	traceCostHessian = 100
)
