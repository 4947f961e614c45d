package es

import (
	"errors"
	"fmt"
)

// Known points (docs/ALGORITHMS.md Section 16): a run can be given points
// to evaluate besides the strategy's candidates, such as good points from
// an earlier study (pycma's inject, Optuna's enqueue_trial). Run.Inject
// queues them; the next Run.Ask hands them out as a batch of their own,
// and Run.Tell gives each with its value to the strategy's inject. The
// rule per strategy: every strategy counts the evaluation and takes the
// point as its best point when it is better; an elitist strategy (es11,
// hees14, cma11) also takes a point at least as good as its parent as the
// new parent (its mean, with sigma and A unchanged), as it would an
// offspring; hees, hees2 and cmaes, whose updates are built from the steps
// they sampled themselves, are not moved.

// injector is a strategy that takes known points: the strategies of New
// through core, and IPOP and BIPOP through their current run.
type injector interface {
	// checkPoint reports whether x can be injected: a point of the
	// objective's space (the right length, finite, in the box).
	checkPoint(x []float64) error
	// inject records the evaluated point x (in the objective's space) with
	// its value f.
	inject(x []float64, f float64)
}

// checkPoint reports whether x is a point of the objective's space.
func (c *core) checkPoint(x []float64) error {
	if len(x) != c.cfg.Dim {
		return fmt.Errorf("length %d, want Dim = %d", len(x), c.cfg.Dim)
	}
	if err := checkCoords(x, c.cfg.Bounds, "x"); err != nil {
		return err
	}
	if g := c.disc; g != nil {
		for j, i := range g.idx {
			if !g.onGrid(j, x[i]) {
				return fmt.Errorf("x[%d] = %v is not one of the values of the discrete coordinate (%v + k·%v up to %v)",
					i, x[i], g.lo[j], g.step[j], g.hi[j])
			}
		}
	}
	return nil
}

// checkCoords reports the first coordinate of x that is not finite, then
// the first that lies outside b, naming it name[i] in the error.
func checkCoords(x []float64, b *Bounds, name string) error {
	for i, v := range x {
		if !finite(v) {
			return fmt.Errorf("%s[%d] = %v: must be finite", name, i, v)
		}
	}
	if i := b.outside(x); i >= 0 {
		c := b.coord(i)
		return fmt.Errorf("%s[%d] = %v lies outside the bounds [%v, %v]", name, i, x[i], c.l, c.u)
	}
	return nil
}

// inject records the known point x with value f (see the rule above). The
// strategy keeps its preimage under the search map, which Best maps back
// to x (up to the rounding of the scales).
func (c *core) inject(x []float64, f float64) {
	c.evals++
	improves := c.improves(f)
	takes := c.row.Elitist && accepts(f, c.fMean)
	if !improves && !takes {
		return
	}
	y := make([]float64, len(x))
	if err := c.out.invert(y, x); err != nil {
		panic(err) // checkPoint accepted x
	}
	if improves {
		c.setBest(y, f)
	}
	if takes {
		copy(c.mean, y)
		c.fMean = f
	}
}

// checkPoint checks x against the current run's strategy.
func (w *IPOP) checkPoint(x []float64) error {
	if w.unset() {
		return errZeroIPOP
	}
	return w.inner.(injector).checkPoint(x)
}

// inject gives the point to the current run.
func (w *IPOP) inject(x []float64, f float64) { w.inner.(injector).inject(x, f) }

// Inject queues known points to be evaluated (copies of the rows of
// points): the next Ask returns them as a batch of their own, before the
// strategy's next generation, and Tell then gives each value with its
// point to the strategy (see docs/ALGORITHMS.md Section 16 for what each
// strategy does with them); the batch counts against the budget, for the
// best point and the target, like a generation, but is no generation of
// the strategy. A point must have the strategy's dimension, be finite and
// lie in the box of Config.Bounds. Inject returns an error, and queues
// nothing, for a bad point, for more points than the run's budget
// (Limits.MaxEvals) leaves, for a strategy that takes no known points, and
// while a generation is asked and not told.
func (r *Run) Inject(points [][]float64) error {
	if r.unset() {
		return errZeroRun
	}
	inj, ok := r.s.(injector)
	switch {
	case !ok:
		return fmt.Errorf("es: Run.Inject: strategy %s takes no known points", r.s.Name())
	case r.rows > 0:
		return errors.New("es: Run.Inject while a generation is asked and not told")
	}
	if m := r.limits.MaxEvals; m > 0 && r.s.Evals()+len(r.queue)+len(points) > m {
		return fmt.Errorf("es: Run.Inject: %d known points, but the budget of %d evaluations leaves room for %d",
			len(points), m, max(0, m-r.s.Evals()-len(r.queue)))
	}
	for k, x := range points {
		if err := inj.checkPoint(x); err != nil {
			return fmt.Errorf("es: Run.Inject: point %d: %w", k, err)
		}
	}
	for _, x := range points {
		r.queue = append(r.queue, append([]float64(nil), x...))
	}
	return nil
}

// Injecting reports whether the batch asked and not yet told is the known
// points queued by Inject rather than a generation of the strategy.
func (r *Run) Injecting() bool { return r.injecting }

// askInjected makes the queued points the batch asked.
func (r *Run) askInjected() {
	resize(&r.pop, len(r.queue), r.s.Dim())
	for i, x := range r.queue {
		copy(r.pop.RawRow(i), x)
	}
	r.injecting = true
}

// tellInjected gives the values of the batch of known points to the
// strategy.
func (r *Run) tellInjected(f []float64) {
	inj := r.s.(injector)
	for i, v := range f {
		inj.inject(r.pop.RawRow(i), v)
	}
	r.queue = r.queue[:0]
	r.injecting = false
}
