package objectives

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// The noise models of the classic functions (NewNoisyClassic, the spec
// parameter noise=).
const (
	// NoiseAdditive is f(x) + s·N: Gaussian noise of standard deviation s,
	// whatever f(x).
	NoiseAdditive = "add"
	// NoiseMultiplicative is f(x)·(1 + s·N): Gaussian noise of standard
	// deviation s·|f(x)|, which vanishes at f* = 0.
	NoiseMultiplicative = "mul"
)

// DefaultNoiseSigma is the noise level s of a classic spec that gives
// noise= without sigma=.
const DefaultNoiseSigma = 0.1

// MaxNoiseSigma bounds the noise level: beyond it f + s·N or f·(1 + s·N)
// overflows to ±Inf for some draws (with s = 1e308, 13 values in 200),
// and a -Inf reads as a function unbounded below.
const MaxNoiseSigma = 1e100

// NewNoisyClassic returns p, a noise-free classic problem of this package
// (not one of a suite), with Gaussian noise of the model noise
// (NoiseAdditive or NoiseMultiplicative) and level sigma (positive, at
// most MaxNoiseSigma): the value at x is
//
//	add  f(x) + sigma·N
//	mul  f(x)·(1 + sigma·N)
//
// with N standard normal, f the value of p. It is a Noisy: Eval draws N
// from the sequence of the problem (the sub-streams of seed 0 and the keys
// 0, 1, 2, … in the order of the calls, under a lock), EvalKeyed(x, seed,
// key) from the sub-stream of (seed, key) alone, as bbob-noisy's does
// (docs/BBOB.md §12 item 6, with the generation word of the problem a hash
// of its name and dimension), and Noiseless is p's value. A point that is
// not finite gets p's value without noise. Name is p's canonical spec with
// noise=, then sigma= when it is not DefaultNoiseSigma, appended (Parse
// reads it back); Optimum, Hessian and Bounds are p's, those of the
// noise-free function.
func NewNoisyClassic(p Problem, noise string, sigma float64) (Noisy, error) {
	if p == nil {
		return nil, fmt.Errorf("objectives: NewNoisyClassic: nil problem")
	}
	if _, ok := p.(Noisy); ok {
		return nil, fmt.Errorf("objectives: %s is already noisy", p.Name())
	}
	if noise != NoiseAdditive && noise != NoiseMultiplicative {
		return nil, fmt.Errorf("objectives: noise %q: want %s (additive) or %s (multiplicative)", noise, NoiseAdditive, NoiseMultiplicative)
	}
	if !(sigma > 0) || sigma > MaxNoiseSigma {
		return nil, fmt.Errorf("objectives: noise sigma %v: want a positive finite number, at most %g", sigma, float64(MaxNoiseSigma))
	}
	name := p.Name()
	if strings.Contains(name, "/") {
		// A suite's problem takes no parameters: its name with noise=
		// would not read back (bbob-noisy has COCO's own noise).
		return nil, fmt.Errorf("objectives: %s: noise is for the classic functions (bbob-noisy has COCO's)", name)
	}
	sep := ":"
	if _, _, ok := cutArgs(name); ok {
		sep = ","
	}
	name += sep + "noise=" + noise
	if sigma != DefaultNoiseSigma {
		name += ",sigma=" + formatNumber(sigma)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", name, p.Dim())
	return &noisyClassic{base: p, name: name, additive: noise == NoiseAdditive, sigma: sigma, stream: h.Sum64()}, nil
}

// cutArgs splits a spec at its first colon.
func cutArgs(spec string) (name, args string, ok bool) {
	for i := range len(spec) {
		if spec[i] == ':' {
			return spec[:i], spec[i+1:], true
		}
	}
	return spec, "", false
}

// noisyClassic is a classic function with Gaussian noise (NewNoisyClassic).
type noisyClassic struct {
	base     Problem
	name     string
	additive bool
	sigma    float64
	stream   uint64 // the generation word of the keyed sub-streams

	mu   sync.Mutex
	next uint64 // the key of Eval's next draw
}

func (p *noisyClassic) Name() string                        { return p.name }
func (p *noisyClassic) Dim() int                            { return p.base.Dim() }
func (p *noisyClassic) Optimum() ([]float64, float64, bool) { return p.base.Optimum() }
func (p *noisyClassic) Hessian() (*linalg.Dense, bool)      { return p.base.Hessian() }

// hasHessian reports whether Hessian returns ok, without building it.
func (p *noisyClassic) hasHessian() bool                                { return HasHessian(p.base) }
func (p *noisyClassic) Bounds() (lo, hi float64)                        { return p.base.Bounds() }
func (p *noisyClassic) Noiseless(x []float64) float64                   { return p.base.Eval(x) }
func (p *noisyClassic) EvalKeyed(x []float64, seed, key uint64) float64 { return p.value(x, seed, key) }

// Eval returns the noisy value at x with the next draw of the problem's
// sequence.
func (p *noisyClassic) Eval(x []float64) float64 {
	p.mu.Lock()
	key := p.next
	p.next++
	p.mu.Unlock()
	return p.value(x, 0, key)
}

// value is the value at x with the noise of the sub-stream (seed, key).
func (p *noisyClassic) value(x []float64, seed, key uint64) float64 {
	f := p.base.Eval(x)
	for _, xi := range x {
		if !finite(xi) {
			return f
		}
	}
	s := rng.NewStream(rng.KeyFromSeed(seed), purposeNoise, p.stream, key)
	n := s.Normal()
	e := float64(p.sigma * n)
	if p.additive {
		return f + e
	}
	return f + float64(f*e)
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
