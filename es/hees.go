package es

import (
	"fmt"
	"math"
	"slices"

	"github.com/hees-dev/hees/internal/xmath"
	"github.com/hees-dev/hees/linalg"
)

// HEES is the name of the full HE-ES.
const HEES = "hees"

// heesRow is the full HE-ES's row of the table of strategies: its
// population is Pairs, computeG's Kappa and EtaA and the CSA's CS and DS
// take the reference code's defaults.
var heesRow = strategyRow{
	Info: Info{
		Name:       HEES,
		Summary:    "full HE-ES with mirrored sampling, Algorithm 1 of Glasmachers & Krause",
		Population: PopulationPairs,
		Transform:  true,
		MinDim:     2, // two directions to compare curvatures
		Noise:      true,
	},
	population: defaultPairs,
	tuning:     []tuning{tuneKappa, tuneEtaA, tuneCS, tuneDS},
	tolFun:     1e-9, // the reference code's restart rule, docs/ALGORITHMS.md Sec. 4.1
	defaults: func(cfg *Config) error {
		// The reference code's maxupdate and lr (docs/ALGORITHMS.md Sec. 3).
		if err := resolveComputeG(cfg, 3, 0.5); err != nil {
			return err
		}
		return resolveCSA(cfg)
	},
	memory: func(cfg Config) float64 { return denseMemory(cfg.Dim, 2*cfg.Pairs+1) },
	zero:   func() strategy { return new(hees) },
}

// defaultPairs is lambda~ = floor(2 + 1.5 ln d) (docs/ALGORITHMS.md
// Section 4, reference code S1).
func defaultPairs(d int) int {
	return int(math.Floor(2 + float64(1.5*xmath.Log(float64(d)))))
}

// heesCS is the default c_s of Algorithm 1's step-size adaptation with
// pairs mirrored pairs in d dimensions, (mu_eff^mirr + 2) / (d +
// mu_eff^mirr + 3).
func heesCS(d, pairs int) float64 {
	_, _, muEffMirr := heesWeights(pairs)
	return (muEffMirr + 2) / (float64(d) + muEffMirr + 3)
}

// resolveCSA fills in CS and DS, the constants of Algorithm 1's
// cumulative step-size adaptation, which follow from the weights of the
// resolved Pairs (docs/ALGORITHMS.md Section 4, reference code), and
// checks them.
func resolveCSA(cfg *Config) error {
	_, muEff, _ := heesWeights(cfg.Pairs)
	if cfg.CS == 0 {
		cfg.CS = heesCS(cfg.Dim, cfg.Pairs)
	}
	if !(cfg.CS > 0 && cfg.CS <= 1) {
		return fmt.Errorf("es: Config.CS = %v: must be in (0, 1]", cfg.CS)
	}
	if cfg.DS == 0 {
		// d_s = 1 + c_s + 2 max(0, sqrt((mu_eff - 1)/(d + 1)) - 1), with
		// the plain mu_eff.
		cfg.DS = 1 + cfg.CS + 2*max(0, math.Sqrt((muEff-1)/float64(cfg.Dim+1))-1)
	}
	if !(cfg.DS > 0) || math.IsInf(cfg.DS, 1) {
		return fmt.Errorf("es: Config.DS = %v: must be positive and finite", cfg.DS)
	}
	return nil
}

// hees is the full non-elitist HE-ES with mirrored sampling (Algorithm 1,
// docs/ALGORITHMS.md Section 4). A generation asks 2 lambda~ + 1 rows: row 0 is
// the current mean m_t, whose value computeG of this generation needs
// (the reference code evaluates every new mean), and rows 2k+1, 2k+2 are
// the mirrored pair x_k^+, x_k^-. The search directions, the candidates
// and the update of A (lines 8-13) are the adaptation's, in adapt.go.
type hees struct {
	core
	dense
	ad adaptation

	// The parameters of line 2: lambda~, c_s and d_s (Config.Pairs, CS and
	// DS, whose defaults resolve derives), and the weights w with the
	// constants that follow from them (docs/ALGORITHMS.md Section 4).
	pairs int // lambda~, the number of mirrored pairs
	// weights[r] is the recombination weight of the offspring of rank r
	// (0 = best) among the 2 lambda~ offspring; they sum to 1.
	weights   []float64
	muEff     float64 // mu_eff = 1 / sum w^2
	muEffMirr float64 // mu_eff^mirrored, the CSA correction for mirrored sampling
	cs        float64 // c_s, cumulation constant of CSA
	ds        float64 // d_s, damping of CSA
	chi       float64 // chi_d, approximation of E|N(0, I_d)|

	ps []float64 // p_s, the evolution path of CSA in b-coordinates
	gs float64   // g_s, the expected |p_s|^2/d under random selection

	order []int     // offspring indices from best to worst
	rank  []int     // rank of each offspring
	dw    []float64 // w_k^+ - w_k^- per pair
	coef  []float64 // scratch, one coefficient per pair
	delta []float64 // scratch vector of length d
}

// heesWeights returns the weights w of the 2 lambda~ offspring of the full
// HE-ES, mu_eff and mu_eff^mirr (docs/ALGORITHMS.md Section 4, reference code
// S1): w'_k = ln(lambda~ + 1/2) - ln(min(k, lambda~ + 1/2)) for the ranks
// k = 1..2 lambda~, normalised to sum 1, and
// mu_eff^mirr = 1 / (1/mu_eff - (1 - 1/mu_eff) / (2 lambda~ - 1)) (S1
// symmMuEff).
func heesWeights(pairs int) (weights []float64, muEff, muEffMirr float64) {
	weights = make([]float64, 2*pairs)
	muEff = logWeights(weights, pairs, xmath.Log(float64(pairs)+0.5))
	inv := 1 / muEff
	muEffMirr = 1 / (inv - (1-inv)/float64(2*pairs-1))
	return weights, muEff, muEffMirr
}

// setup initialises a full HE-ES from a resolved configuration (lines 1-6).
func (h *hees) setup(cfg Config) { h.setupAs(HEES, cfg) }

// setupAs is setup for the strategy name, hees or a strategy that embeds
// it (hees2).
func (h *hees) setupAs(name string, cfg Config) {
	d, n := cfg.Dim, cfg.Pairs
	h.pairs = n
	h.weights, h.muEff, h.muEffMirr = heesWeights(n)
	h.cs, h.ds = cfg.CS, cfg.DS
	h.chi = chiD(d)
	h.setupCore(name, cfg, 2*n+1)
	h.setupDense(d, cfg.A0, true)
	h.ad.setup(n, d, cfg.Kappa, cfg.EtaA) // line 3: B = ceil(lambda~/d)
	h.ps = make([]float64, d)             // line 4: p_s = 0
	h.gs = 0                              // line 5: g_s = 0
	h.order = make([]int, 2*n)
	h.rank = make([]int, 2*n)
	h.dw = make([]float64, n)
	h.coef = make([]float64, n)
	h.delta = make([]float64, d)
}

// PopulationSize is 2 lambda~ + 1: the current mean and lambda~ mirrored
// pairs.
func (h *hees) PopulationSize() int { return 2*h.pairs + 1 }

// Ask writes the current mean (row 0) and the mirrored pairs (rows 2k+1 =
// x_k^+, 2k+2 = x_k^-) of the current generation into pop.
func (h *hees) Ask(pop *linalg.Dense) error {
	if err := h.checkAsk(pop); err != nil {
		return err
	}
	if !h.pending {
		// Lines 8-10: the directions b_k, and A u_k for lines 11-12.
		if err := h.ad.sample(h.key, h.gen, &h.a); err != nil {
			return err
		}
		h.pending = true
	}
	h.writePopulation(pop)
	return nil
}

// writePopulation writes the current mean into row 0 of pop and the
// mirrored pairs x_k^± = m ± sigma A b_k (lines 11-12) into rows 2k+1 and
// 2k+2, mapped into the box (toBox).
func (h *hees) writePopulation(pop *linalg.Dense) {
	resize(pop, h.PopulationSize(), h.cfg.Dim)
	copy(pop.RawRow(0), h.mean)
	for k := 0; k < h.pairs; k++ {
		h.ad.candidate(pop.RawRow(2*k+1), h.mean, h.sigma, k, false)
		h.ad.candidate(pop.RawRow(2*k+2), h.mean, h.sigma, k, true)
	}
	h.toBox(pop)
}

// searchPoint writes the search point of row k of the last Ask into dst:
// the mean for row 0, x_k^± for the others (writePopulation).
func (h *hees) searchPoint(dst []float64, k int) {
	if k == 0 {
		copy(dst, h.mean)
		return
	}
	h.ad.candidate(dst, h.mean, h.sigma, (k-1)/2, k%2 == 0)
}

// Tell takes the values of the rows of the last Ask and performs one
// generation of Algorithm 1: lines 14-18, then line 13 (none of them reads
// what another one writes, and the determinant normalisation after line 13
// rescales sigma), then the stop criteria of line 20.
func (h *hees) Tell(f []float64) error {
	if err := h.checkTell(f, h.PopulationSize()); err != nil {
		return err
	}
	off := f[1:]
	// Line 14: the ranks of the offspring (a generation without a finite
	// offspring value is rejected, Section 13 item 8), by the values v,
	// which are f unless a bounded run's penalty applies (Section 14.5).
	v := h.penalized(f, h.searchPoint, h.stds)
	if h.observe(f, v) {
		h.recombine()        // lines 14-15: the weights by rank, m
		norm := h.cumulate() // lines 16-17: g_s, p_s
		// Line 18: sigma <- sigma exp((c_s/d_s) (|p_s|/chi_d - sqrt(g_s))).
		h.sigma *= xmath.Exp(float64((h.cs / h.ds) * (norm/h.chi - math.Sqrt(h.gs))))

		// Line 13: A <- A computeG(...), with f(m_t), and |det A| = 1.
		h.ad.adapt(&h.core, &h.dense, v[0], v[1:])
	}

	h.gen++ // line 19
	h.pending = false
	// Line 20, with the reference code's restart rule std(f) < TolFun
	// (docs/ALGORITHMS.md Section 4.1).
	h.stop = h.stopReason(f, h.cfg.TolFun > 0 && stdDev(off) < h.cfg.TolFun)
	return nil
}

// observe takes the values f of a generation (observePairs): it counts
// them, ranks the offspring by the values v[1:] into h.order (line 14; v
// is f, or f with the penalty of a bounded run, Section 14.5) and updates
// the best so far from f. A generation without a finite offspring value
// is rejected (Section 13 item 8): m and A stay and sigma is halved.
// observe reports whether the generation is accepted.
func (h *hees) observe(f, v []float64) bool {
	return h.observePairs(f, v, h.order, func(dst []float64, k int, minus bool) {
		h.ad.candidate(dst, h.mean, h.sigma, k, minus)
	})
}

// recombine gives each offspring the weight of its rank (line 14) and
// moves the mean (line 15): m <- sum w x = m + sigma sum_k (w_k^+ - w_k^-)
// |b_k| A u_k (the weights sum to 1 and the pairs are mirrored).
func (h *hees) recombine() {
	n := h.pairs
	w := h.weights
	for r, i := range h.order {
		h.rank[i] = r
	}
	for k := 0; k < n; k++ {
		h.dw[k] = w[h.rank[2*k]] - w[h.rank[2*k+1]]
	}
	for k := 0; k < n; k++ {
		h.coef[k] = float64(h.sigma*h.dw[k]) * h.ad.norms[k]
	}
	linalg.MulVecT(h.delta, &h.ad.au, h.coef) // sum_k coef_k A u_k in increasing k
	for j := range h.mean {
		h.mean[j] += h.delta[j]
	}
	h.fMean = math.NaN() // f(m_{t+1}) is asked in the next generation
}

// cumulate updates g_s (line 16) and the path p_s (line 17) with the
// weights of recombine, and returns |p_s|.
func (h *hees) cumulate() float64 {
	// Line 16: g_s <- (1 - c_s)^2 g_s + c_s (2 - c_s).
	cs := h.cs
	om := 1 - cs
	h.gs = float64(float64(om*om)*h.gs) + float64(cs*(2-cs))
	// Line 17: p_s <- (1 - c_s) p_s + sqrt(c_s (2 - c_s) mu_eff^mirr)
	// sum_k (w_k^+ - w_k^-) b_k, in b-coordinates.
	for k := 0; k < h.pairs; k++ {
		h.coef[k] = h.dw[k] * h.ad.norms[k]
	}
	linalg.MulVecT(h.delta, &h.ad.u, h.coef) // sum_k coef_k u_k in increasing k
	coef := h.pathCoef()
	var norm2 float64
	for j, v := range h.delta {
		p := float64(om*h.ps[j]) + float64(coef*v)
		h.ps[j] = p
		norm2 += float64(p * p)
	}
	return math.Sqrt(norm2)
}

// pathCoef is the factor sqrt(c_s (2 - c_s) mu_eff^mirr) of a generation's
// step in the path p_s (line 17).
func (h *hees) pathCoef() float64 {
	return math.Sqrt(float64(h.cs*(2-h.cs)) * h.muEffMirr)
}

// stopReason returns the stop criterion of line 20 that fires after a
// generation with the values f, or "": a value -Inf, too many rejected
// generations in a row, the strategy's own f-spread criterion (tolFun, the
// caller's test), then the limits on sigma and A every strategy shares.
func (h *hees) stopReason(f []float64, tolFun bool) Reason {
	switch {
	case slices.ContainsFunc(f, func(v float64) bool { return math.IsInf(v, -1) }):
		return ReasonMinusInf
	case h.nonFinite >= nonFiniteMax:
		return ReasonNotFinite
	case tolFun:
		return ReasonTolFun
	}
	if r := h.checkSigma(); r != "" {
		return r
	}
	return h.checkCovariance(&h.core)
}

// stds writes the standard deviation of the sampling distribution along
// each coordinate into dst (for the ranking penalty of a bounded run).
func (h *hees) stds(dst []float64) { h.coordStds(dst, h.sigma) }

// stdDev is the population standard deviation of v (NaN if a value is not
// finite).
func stdDev(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	var ss float64
	for _, x := range v {
		dx := x - mean
		ss += float64(dx * dx)
	}
	return math.Sqrt(ss / float64(len(v)))
}

// MarshalBinary saves the complete state under the tag "hees-es/hees/v1".
func (h *hees) MarshalBinary() ([]byte, error) {
	w := newStateWriter(HEES)
	h.writeState(w)
	return w.finish(), nil
}

// writeState writes the state of a full HE-ES: the core's and the CSA's,
// p_s and g_s.
func (h *hees) writeState(w *stateWriter) {
	h.marshalCore(w, &h.dense)
	w.floats(h.ps)
	w.float(h.gs)
}

// UnmarshalBinary restores a state saved by MarshalBinary of a hees
// strategy, replacing the receiver's state entirely.
func (h *hees) UnmarshalBinary(data []byte) error {
	r, cfg, err := openStrategyState(data, HEES)
	if err != nil {
		return err
	}
	var fresh hees
	fresh.setup(cfg)
	fresh.readState(r)
	if err := r.done(); err != nil {
		return err
	}
	if fresh.pending {
		// The directions are a function of (seed, generation): redraw them.
		if err := fresh.ad.sample(fresh.key, fresh.gen, &fresh.a); err != nil {
			return err
		}
	}
	*h = fresh
	return nil
}

// readState reads what writeState wrote into a full HE-ES set up with the
// saved configuration.
func (h *hees) readState(r *stateReader) {
	h.unmarshalCore(r, &h.dense)
	h.ps = r.floats(h.ps)
	h.gs = r.float()
	if len(h.ps) != h.cfg.Dim {
		r.fail("p_s has length %d, want %d", len(h.ps), h.cfg.Dim)
	}
}
