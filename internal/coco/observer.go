package coco

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hees-dev/hees/internal/xmath"
)

// Values logged in place of NaN and of ±Inf (COCO's logger does the same
// with these constants, so that every column stays a finite number).
const (
	loggedNaN = 2e21
	loggedInf = 3e21
)

// maxLoggedDim is the largest dimension whose data lines carry the point:
// COCO 2.8's logger writes x only when d < 7
// (LOGGER_BBOB_NUMBER_OF_VARIABLES_THRESHOLD in logger_bbob.c).
const maxLoggedDim = 6

// Problem identifies one BBOB problem instance of a run.
type Problem struct {
	// Function (1 … 24), Instance (1 …) and Dim (at least 1) name the
	// problem.
	Function, Instance, Dim int
	// Fopt is the optimal value f(x*) of the instance.
	Fopt float64
}

// Observer records one run on one problem as COCO's bbob observer does:
// call Observe for every evaluation in the order the algorithm made them,
// Restart when the algorithm restarts, and Finish at the end. An Observer
// is not safe for concurrent use: an algorithm that evaluates in parallel
// must still report the evaluations in a defined order (for a generation,
// row order).
type Observer struct {
	run      Run
	best     float64   // best max(f, fopt) so far
	bestX    []float64 // the point of best
	lowest   int       // lowest target level reached so far
	trigger  evalTrigger
	lastDat  bool // the last evaluation has a .dat line
	lastTdat bool // the last evaluation has a .tdat line
	restart  bool // an .rdat line is due at the next evaluation
	finished bool
	buf      []byte
}

// NewObserver returns an Observer for a run on problem p. It returns an
// error for a problem that names no BBOB instance (function, instance or
// dimension below 1) or has a non-finite Fopt.
func NewObserver(p Problem) (*Observer, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	o := &Observer{
		run:    Run{Problem: p, BestDelta: math.Inf(1)},
		best:   math.Inf(1),
		bestX:  make([]float64, p.Dim),
		lowest: math.MaxInt,
	}
	o.trigger.reset(p.Dim)
	return o, nil
}

// check reports a problem that cannot be logged.
func (p Problem) check() error {
	switch {
	case p.Function < 1 || p.Instance < 1 || p.Dim < 1:
		return fmt.Errorf("coco: problem f%d instance %d in dimension %d: function, instance and dimension must be at least 1", p.Function, p.Instance, p.Dim)
	case math.IsNaN(p.Fopt) || math.IsInf(p.Fopt, 0):
		return fmt.Errorf("coco: problem f%d instance %d: fopt %v is not finite", p.Function, p.Instance, p.Fopt)
	}
	return nil
}

// Evals returns the number of evaluations observed so far.
func (o *Observer) Evals() int { return o.run.Evals }

// BestDelta returns the best Δ = f − fopt so far (never below 0; +Inf
// before the first evaluation).
func (o *Observer) BestDelta() float64 { return o.run.BestDelta }

// Observe records the evaluation of x with value f, the next one of the run.
// It panics if len(x) is not the problem's dimension or after Finish: both
// are programming errors of the caller.
func (o *Observer) Observe(x []float64, f float64) {
	if o.finished {
		panic("coco: Observe after Finish")
	}
	if len(x) != o.run.Dim {
		panic(fmt.Sprintf("coco: Observe: len(x) = %d, want the dimension %d", len(x), o.run.Dim))
	}
	r := &o.run
	r.Evals++
	o.lastDat = false
	logged := f
	switch {
	case math.IsNaN(f):
		logged = loggedNaN
	case math.IsInf(f, 0):
		logged = loggedInf
	}
	// Δ is measured from max(f, fopt): COCO never logs a value below fopt.
	if v := max(logged, r.Fopt); r.Evals == 1 || v < o.best {
		o.best = v
		copy(o.bestX, x)
		r.BestDelta = v - r.Fopt
		// A .dat line at the first evaluation and whenever a lower target
		// level is reached; the targets passed get this evaluation count.
		if lv := level(r.BestDelta); r.Evals == 1 || lv < o.lowest {
			r.Dat = o.line(r.Dat, x, logged)
			o.lastDat = true
			for k := min(o.lowest-1, MaxTargetLevel); k >= max(lv, MinTargetLevel); k-- {
				r.Hits[MaxTargetLevel-k] = r.Evals
			}
			o.lowest = min(o.lowest, lv)
		}
	}
	o.lastTdat = o.trigger.fire(r.Evals)
	if o.lastTdat {
		r.Tdat = o.line(r.Tdat, x, logged)
	}
	if o.restart {
		r.Rdat = o.line(r.Rdat, x, logged)
		o.restart = false
	}
}

// Restart signals that the algorithm restarted: the next evaluation gets an
// .rdat line. A restart before the first evaluation is not one.
func (o *Observer) Restart() {
	if o.run.Evals > 0 {
		o.restart = true
	}
}

// Finish ends the run and returns its record. After the last evaluation,
// unless it had a .dat line, a .dat line with the best point and value (as
// the measured value too) is added, and likewise a .tdat line, as COCO
// 2.8's logger does when the problem is freed. Finish may be called more
// than once; the Observer takes no more evaluations.
func (o *Observer) Finish() *Run {
	if !o.finished {
		o.finished = true
		if o.run.Evals > 0 && !o.lastDat {
			o.run.Dat = o.line(o.run.Dat, o.bestX, o.best)
		}
		if o.run.Evals > 0 && !o.lastTdat {
			o.run.Tdat = o.line(o.run.Tdat, o.bestX, o.best)
		}
	}
	r := o.run
	r.Dat = append([]byte(nil), o.run.Dat...)
	r.Tdat = append([]byte(nil), o.run.Tdat...)
	r.Rdat = append([]byte(nil), o.run.Rdat...)
	return &r
}

// line appends one data line to dst: evaluations, constraint evaluations
// (0), best Δ, the measured value f, the best value and, for d < 7, x.
func (o *Observer) line(dst []byte, x []float64, f float64) []byte {
	r := &o.run
	dst = strconv.AppendInt(dst, int64(r.Evals), 10)
	dst = append(dst, " 0 "...)
	dst = appendE(dst, r.BestDelta, 9)
	dst = append(dst, ' ')
	dst = appendE(dst, f, 9)
	dst = append(dst, ' ')
	dst = appendE(dst, o.best, 9)
	if r.Dim <= maxLoggedDim {
		for _, v := range x {
			dst = append(dst, ' ')
			dst = appendE(dst, v, 4)
		}
	}
	return append(dst, '\n')
}

// appendE appends v as C's printf("%+.{prec}e") writes it: an explicit sign
// and at least two exponent digits (Go's 'e' format has both).
func appendE(dst []byte, v float64, prec int) []byte {
	if !math.Signbit(v) || math.IsNaN(v) {
		dst = append(dst, '+')
	}
	return strconv.AppendFloat(dst, v, 'e', prec, 64)
}

// evalTrigger tells the evaluation counts that get a .tdat line: the
// distinct values ⌊10^(i/20)⌋ for i = 0, 1, ... and d·b·10^i for b in
// {1, 2, 5} and i = 0, 1, ... (COCO's defaults number_evaluation_triggers =
// 20 and base_evaluation_triggers = "1,2,5").
type evalTrigger struct {
	dim         int
	next1, exp1 int // next ⌊10^(exp1/20)⌋
	next2       int // next d·bases[base]·10^exp2
	base, exp2  int
}

// evalTriggersPerDecade is COCO's number_evaluation_triggers.
const evalTriggersPerDecade = 20

// evalTriggerBases is COCO's base_evaluation_triggers.
var evalTriggerBases = [...]int{1, 2, 5}

// reset starts the triggers of a run in dimension dim.
func (t *evalTrigger) reset(dim int) {
	*t = evalTrigger{dim: dim, next1: 1, next2: dim * evalTriggerBases[0]}
}

// floorPow10 returns ⌊10^(e/20)⌋.
func floorPow10(e int) int {
	return int(math.Floor(xmath.Pow(10, float64(e)/evalTriggersPerDecade)))
}

// fire reports whether evaluation n (counted from 1, each n once and in
// increasing order) gets a .tdat line, and advances the triggers past n.
func (t *evalTrigger) fire(n int) bool {
	first := n >= t.next1
	if first {
		for floorPow10(t.exp1) <= t.next1 {
			t.exp1++
		}
		t.next1 = floorPow10(t.exp1)
	}
	second := n >= t.next2
	if second {
		t.base++
		if t.base == len(evalTriggerBases) {
			t.base = 0
			t.exp2++
		}
		t.next2 = t.dim * evalTriggerBases[t.base]
		for range t.exp2 {
			t.next2 *= 10
		}
	}
	return first || second
}
