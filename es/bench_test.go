package es

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/objectives"
	"github.com/hees-dev/hees/rng"
)

// benchDims are the dimensions of the per-generation benchmarks.
var benchDims = []int{10, 100, 1000}

// BenchmarkGeneration measures one Ask/Tell round of each strategy with a
// trivial objective (the sphere, O(d)) and reports the time per evaluation,
// to compare with BenchmarkMulVec at the same d: the goal is at most 1.5
// matrix-vector products per evaluation at d >= 100. A strategy that stops
// (it converges on the sphere) is replaced by a new one outside the timing.
//
// On a shared machine the two benchmarks may see different loads, so for
// d >= 100 each round is followed by as many y = A x products as it had
// evaluations, timed apart, and "MulVec/eval" reports the ratio of the two
// times, measured under the same load; ns/eval counts the rounds only.
func BenchmarkGeneration(b *testing.B) {
	for _, name := range Names() {
		for _, d := range benchDims {
			b.Run(fmt.Sprintf("%s/d=%d", name, d), func(b *testing.B) {
				seed := uint64(1)
				fresh := func() Strategy {
					s, err := New(name, Config{Dim: d, Seed: seed})
					if err != nil {
						b.Fatal(err)
					}
					seed++
					return s
				}
				s := fresh()
				var pop linalg.Dense
				values := make([]float64, s.PopulationSize())
				mv := newMulVecBench(d)
				compare := d >= 100
				evals := 0
				var rounds, products time.Duration
				for b.Loop() {
					if s.Stop() != "" {
						b.StopTimer()
						s = fresh()
						b.StartTimer()
					}
					start := time.Now()
					if err := s.Ask(&pop); err != nil {
						b.Fatal(err)
					}
					rows, _ := pop.Dims()
					for i := range rows {
						values[i] = sphere(pop.RawRow(i))
					}
					if err := s.Tell(values[:rows]); err != nil {
						b.Fatal(err)
					}
					evals += rows
					if !compare {
						continue
					}
					mid := time.Now()
					for range rows {
						mv.run()
					}
					rounds += mid.Sub(start)
					products += time.Since(mid)
				}
				if !compare {
					rounds = b.Elapsed()
				} else {
					b.ReportMetric(float64(rounds)/float64(products), "MulVec/eval")
				}
				b.ReportMetric(float64(rounds.Nanoseconds())/float64(evals), "ns/eval")
			})
		}
	}
}

// mulVecBench is a d x d product y = A x with a random A and x.
type mulVecBench struct {
	a    *linalg.Dense
	x, y []float64
}

func newMulVecBench(d int) *mulVecBench {
	m := &mulVecBench{a: linalg.NewDense(d, d, nil), x: make([]float64, d), y: make([]float64, d)}
	st := rng.NewStream(rng.KeyFromSeed(1), 1, 0, 0)
	for i := range d {
		st.FillNormal(m.a.RawRow(i))
	}
	st.FillNormal(m.x)
	return m
}

func (m *mulVecBench) run() { linalg.MulVec(m.y, m.a, m.x) }

// BenchmarkMulVec is linalg's y = A x at the dimensions of
// BenchmarkGeneration, the unit of its goal.
func BenchmarkMulVec(b *testing.B) {
	for _, d := range benchDims {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			mv := newMulVecBench(d)
			for b.Loop() {
				mv.run()
			}
		})
	}
}

// BenchmarkMinimize measures the driver: 100 generations of a new hees in
// d = 10 with a trivial objective, by Minimize with 1 and 2 workers and by
// a plain ask/tell loop; the difference in ns/eval is the driver's
// overhead.
func BenchmarkMinimize(b *testing.B) {
	const gens = 100
	fresh := func(b *testing.B) Strategy {
		s, err := New("hees", Config{Dim: 10, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("asktell", func(b *testing.B) {
		var pop linalg.Dense
		evals := 0
		for b.Loop() {
			s := fresh(b)
			values := make([]float64, s.PopulationSize())
			for range gens {
				if err := s.Ask(&pop); err != nil {
					b.Fatal(err)
				}
				for i := range values {
					values[i] = sphere(pop.RawRow(i))
				}
				if err := s.Tell(values); err != nil {
					b.Fatal(err)
				}
			}
			evals += s.Evals()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			evals := 0
			for b.Loop() {
				s := fresh(b)
				res, err := Minimize(context.Background(), Func(sphere), s, Options{Workers: workers, MaxEvals: gens * s.PopulationSize()})
				if err != nil || res.Generations != gens {
					b.Fatalf("err %v after %d generations", err, res.Generations)
				}
				evals += res.Evals
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
		})
	}
}

// BenchmarkCovarianceCheck measures the O(d^3) stop criteria on C = A A^T
// that the strategies run every few generations (es/stop.go: C = A A^T and
// its eigenvalues every eigenEvery-th check, with eigenvectors every
// axisEvery-th of those), and reports their cost per evaluation of hees,
// amortised over the generations between them, in ns and in units of
// y = A x (timed after each round, as in BenchmarkGeneration).
// BenchmarkGeneration at d = 1000 runs too few generations to include one.
func BenchmarkCovarianceCheck(b *testing.B) {
	for _, d := range benchDims {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			mv := newMulVecBench(d)
			a := linalg.NewDense(d, d, nil)
			a.CopyFrom(mv.a)
			lambda := 2*defaultPairs(d) + 1
			var k dense
			k.setupDense(d, nil, true)
			var sched checker
			sched.setup(d, lambda)
			const productsPerCheck = 20
			var checks, products time.Duration
			// One round is the O(d^3) work of eigenEvery·axisEvery checks:
			// axisEvery decompositions of C, one of them with vectors.
			for b.Loop() {
				start := time.Now()
				for i := range axisEvery {
					k.cov.MulAAT(a)
					if err := k.eig.Factorize(&k.cov, i == 0); err != nil {
						b.Fatal(err)
					}
				}
				mid := time.Now()
				for range productsPerCheck {
					mv.run()
				}
				checks += mid.Sub(start)
				products += time.Since(mid)
			}
			evalsPerCheck := float64(sched.every * lambda * eigenEvery * axisEvery)
			b.ReportMetric(float64(checks.Nanoseconds())/float64(b.N)/evalsPerCheck, "ns/eval")
			perProduct := float64(products) / float64(b.N*productsPerCheck)
			b.ReportMetric(float64(checks)/float64(b.N)/perProduct/evalsPerCheck, "MulVec/eval")
		})
	}
}

// BenchmarkTrace measures what a Trace at its default interval
// (DefaultTraceInterval) costs a run: hees at d = 300 on the Rosenbrock
// function and on the ellipsoid (whose Hessian adds the A^T H A columns),
// four intervals' worth of generations. On a shared machine two runs see
// different loads, so one ask/tell loop times its generations (Ask, the
// evaluations, Tell) and the trace's rows apart, under the same load, and
// "trace_%" reports the rows' time as a percentage of the generations'.
func BenchmarkTrace(b *testing.B) {
	const d = 300
	for _, spec := range []string{"rosenbrock", "ellipsoid"} {
		p, err := objectives.Parse(spec, d)
		if err != nil {
			b.Fatal(err)
		}
		h, _ := p.Hessian()
		b.Run(spec, func(b *testing.B) {
			var genTime, traceTime time.Duration
			var pop linalg.Dense
			for b.Loop() {
				s, err := New("hees", Config{Dim: d, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				trace := &Trace{Interval: DefaultTraceInterval(d, s.PopulationSize(), h != nil)}
				f := make([]float64, s.PopulationSize())
				for range 4 * trace.Interval {
					start := time.Now()
					if err := s.Ask(&pop); err != nil {
						b.Fatal(err)
					}
					for i := range f {
						f[i] = p.Eval(pop.RawRow(i))
					}
					if err := s.Tell(f); err != nil {
						b.Fatal(err)
					}
					traced := time.Now()
					trace.record(s, f[0], true, f[0], f[0], h)
					genTime += traced.Sub(start)
					traceTime += time.Since(traced)
				}
			}
			b.ReportMetric(100*traceTime.Seconds()/genTime.Seconds(), "trace_%")
		})
	}
}
