package es

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hees-dev/hees/objectives"
)

var (
	noisyGridFlag  = flag.Bool("noisygrid", false, "TestNoisyGrid: run the noisy comparison and write its CSV")
	noisyGridAlgos = flag.String("noisygrid.algos", "hees2+noise,hees2,cmaes+noise", "TestNoisyGrid: comma-separated strategies, each NAME, NAME+noise or NAME+noise:k=N")
	noisyGridSpecs = flag.String("noisygrid.specs", "bbob-noisy", "TestNoisyGrid: problems separated by semicolons: bbob-noisy (the functions of -noisygrid.functions in the instances of -noisygrid.instances) or noisy classic specs")
	noisyGridFuncs = flag.String("noisygrid.functions", "101-130", "TestNoisyGrid: bbob-noisy functions, as 101-130 or 101,104")
	noisyGridInst  = flag.String("noisygrid.instances", "1-15", "TestNoisyGrid: bbob-noisy instances (each run's seed is its instance); the seeds of the classic specs")
	noisyGridDims  = flag.String("noisygrid.dims", "5,10", "TestNoisyGrid: comma-separated dimensions")
	noisyGridBudg  = flag.Float64("noisygrid.budget", 1e4, "TestNoisyGrid: evaluations per run, times d")
	noisyGridOut   = flag.String("noisygrid.out", "", "TestNoisyGrid: the CSV file to append to (empty: standard output)")
	noisyGridJobs  = flag.Int("noisygrid.jobs", 1, "TestNoisyGrid: runs at a time")
)

// The targets of the noisy grid: 10^(2 - k/5), k = 0 … 50, on the
// noise-free f - f*, as COCO's; a run ends at the last.
var noisyGridTargets = func() []float64 {
	t := make([]float64, 51)
	for k := range t {
		t[k] = math.Pow(10, 2-float64(k)/5)
	}
	return t
}()

// parseIntList reads "1-15" or "101,104,110-112".
func parseIntList(t *testing.T, s string) []int {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			t.Fatalf("bad list %q", s)
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil {
				t.Fatalf("bad list %q", s)
			}
		}
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
	}
	return out
}

// noisyRecord is the record of one run on a noisy problem: the noisy
// values go to the strategy, the noise-free ones to the record.
type noisyRecord struct {
	p     objectives.Noisy
	seed  uint64
	fstar float64
	mu    sync.Mutex
	n     int
	hits  []int
}

// EvalKeyed is the keyed noisy value; it records the noise-free one.
func (r *noisyRecord) EvalKeyed(x []float64, key uint64) float64 {
	v := r.p.Noiseless(x) - r.fstar
	r.mu.Lock()
	r.n++
	for k, target := range noisyGridTargets {
		if r.hits[k] < 0 && v <= target {
			r.hits[k] = r.n
		}
	}
	r.mu.Unlock()
	return r.p.EvalKeyed(x, r.seed, key)
}

func (r *noisyRecord) Eval([]float64) float64 { panic("Eval of a keyed problem") }

// noisyGridStrategy builds the strategy of a -noisygrid.algos entry: NAME
// (a strategy of New), NAME+noise (with a NoiseHandler) or NAME+noise:k=N
// (NoiseConfig.MaxEvals = N).
func noisyGridStrategy(t *testing.T, algo string, cfg Config) Strategy {
	name, opts, noise := strings.Cut(algo, "+noise")
	s, err := New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if noise {
		var nc NoiseConfig
		if opts != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(opts, ":k="))
			if err != nil || !strings.HasPrefix(opts, ":k=") {
				t.Fatalf("-noisygrid.algos: %q: want NAME+noise or NAME+noise:k=N", algo)
			}
			nc.MaxEvals = n
		}
		h, err := NewNoiseHandler(s, nc)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	return s
}

// recommendation is the point a strategy recommends: its Recommend when it
// has one, else its mean.
func recommendation(s Strategy) []float64 {
	if r, ok := s.(Recommender); ok {
		return r.Recommend().X
	}
	return s.Mean(nil)
}

// noisyGridRun performs one run and returns its CSV line, in the columns
// of scripts/noisy/peers.py.
func noisyGridRun(t *testing.T, algo, spec string, d int, seed uint64, budget int) string {
	p, err := objectives.Parse(spec, d)
	if err != nil {
		t.Fatal(err)
	}
	noisy, ok := p.(objectives.Noisy)
	if !ok {
		t.Fatalf("%s is not noisy", spec)
	}
	_, fstar, _ := p.Optimum()
	cfg := Config{Dim: d, Seed: seed, Sigma0: 2, Box: 4}
	if !strings.HasPrefix(spec, "bbob") {
		cfg.X0 = make([]float64, d)
		for i := range cfg.X0 {
			cfg.X0[i] = 3
		}
	}
	s := noisyGridStrategy(t, algo, cfg)
	rec := &noisyRecord{p: noisy, seed: seed, fstar: fstar, hits: make([]int, len(noisyGridTargets))}
	for i := range rec.hits {
		rec.hits[i] = -1
	}
	var marks []float64
	for j := 2; float64(d)*math.Pow(10, float64(j)/2) <= float64(budget)*(1+1e-12); j++ {
		marks = append(marks, float64(d)*math.Pow(10, float64(j)/2))
	}
	recAt := make([]float64, len(marks))
	for i := range recAt {
		recAt[i] = math.NaN()
	}
	last := math.NaN()
	res, err := Minimize(context.Background(), rec, s, Options{MaxEvals: budget,
		Progress: func(pr Progress) {
			last = noisy.Noiseless(recommendation(pr.Strategy)) - fstar
			for j, b := range marks {
				if float64(pr.Evals) <= b {
					recAt[j] = last
				}
			}
		},
		Stop: func(Progress) Reason {
			if rec.hits[len(rec.hits)-1] >= 0 {
				return ReasonTarget
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	for j, b := range marks {
		if float64(res.Evals) <= b && !math.IsNaN(last) {
			recAt[j] = last
		}
	}
	stop := string(res.Reason)
	switch res.Reason {
	case ReasonTarget:
		stop = "target"
	case ReasonMaxEvals:
		stop = "budget"
	}
	hits := make([]string, len(rec.hits))
	for i, h := range rec.hits {
		hits[i] = strconv.Itoa(h)
	}
	recs := make([]string, len(recAt))
	for i, v := range recAt {
		recs[i] = strconv.FormatFloat(v, 'g', 6, 64)
	}
	return fmt.Sprintf("%s,\"%s\",%d,%d,%d,%s,%s,%s,%.2f", algo, spec, d, seed, res.Evals, stop,
		strings.Join(hits, " "), strings.Join(recs, " "), res.Elapsed.Seconds())
}

// TestNoisyGrid runs the strategies of -noisygrid.algos on noisy problems
// and writes one CSV line per run, in the columns of
// scripts/noisy/peers.py (which runs pycma's NoiseHandler and
// CyberAgent's LRA-CMA-ES the same way); scripts/noisy/summarize.py makes
// the tables of BENCHMARKS.md from both. A run starts at a uniform point of
// [-4, 4]^d (bbob-noisy) or at (3, …, 3), with sigma0 = 2 and the seed of
// its instance, sees the noise keyed by that seed, and ends when an
// evaluated point's noise-free f - f* is at most 1e-8, at the budget or
// when the strategy stops (no restarts). The cpu_s column is the wall time
// of the run. It runs only with -noisygrid:
//
//	go test ./es -run TestNoisyGrid -noisygrid -timeout 0 -noisygrid.out runs.csv
func TestNoisyGrid(t *testing.T) {
	if !*noisyGridFlag {
		t.Skip("measurement; run with -noisygrid")
	}
	type job struct {
		algo, spec string
		d          int
		seed       uint64
	}
	var jobs []job
	dims := parseIntList(t, *noisyGridDims)
	insts := parseIntList(t, *noisyGridInst)
	for _, d := range dims {
		for _, spec := range strings.Split(*noisyGridSpecs, ";") {
			var specs []string
			if spec == "bbob-noisy" {
				for _, f := range parseIntList(t, *noisyGridFuncs) {
					for _, i := range insts {
						specs = append(specs, fmt.Sprintf("bbob-noisy/f%d/i%d", f, i))
					}
				}
			} else {
				specs = append(specs, spec)
			}
			for _, sp := range specs {
				for _, algo := range strings.Split(*noisyGridAlgos, ",") {
					if strings.HasPrefix(sp, "bbob") {
						_, inst, _ := strings.Cut(sp[strings.LastIndex(sp, "/")+1:], "i")
						n, _ := strconv.Atoi(inst)
						jobs = append(jobs, job{algo, sp, d, uint64(n)})
						continue
					}
					for _, i := range insts {
						jobs = append(jobs, job{algo, sp, d, uint64(i)})
					}
				}
			}
		}
	}
	out := os.Stdout
	if *noisyGridOut != "" {
		f, err := os.OpenFile(*noisyGridOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out = f
	}
	var mu sync.Mutex
	next := make(chan job)
	var wg sync.WaitGroup
	for range max(1, *noisyGridJobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				line := noisyGridRun(t, j.algo, j.spec, j.d, j.seed, int(*noisyGridBudg*float64(j.d)))
				mu.Lock()
				fmt.Fprintln(out, line)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}
