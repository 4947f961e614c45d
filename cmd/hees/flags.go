package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/points"
)

// usageError is a bad command line (an unknown flag, a bad value, an
// unknown algorithm or problem): its message goes on one line of standard
// error and the exit status is exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// report writes err on one line of stderr prefixed by the command name and
// returns the exit status it calls for: exitUsage for a usageError,
// exitFailure otherwise.
func report(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// parseFlags parses args with fs, whose name is the command ("hees run").
// It returns done = true when the command must end with the returned status:
// after -h (the help text, then every flag with its default, on stdout) and
// after a bad flag or an unexpected argument (one line on stderr).
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) (status int, done bool) {
	operands, status, done := parseFlagsOperands(fs, args, help, stdout, stderr)
	if !done && len(operands) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (run 'hees help %s')\n", fs.Name(), operands[0], strings.TrimPrefix(fs.Name(), "hees "))
		return exitUsage, true
	}
	return status, done
}

// parseFlagsOperands is parseFlags for a command that takes operands (hees
// resume FILE, hees plot TRACE.csv): flags may come before and after them
// (parseInterleaved), and it returns the operands in order.
func parseFlagsOperands(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) (operands []string, status int, done bool) {
	fs.SetOutput(io.Discard)
	operands, err := parseInterleaved(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, help)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil, exitOK, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v (run 'hees help %s')\n", fs.Name(), err, strings.TrimPrefix(fs.Name(), "hees "))
		return nil, exitUsage, true
	}
	return operands, exitOK, false
}

// parseInterleaved parses args with fs, letting flags and operands come in
// any order ("hees plot t.csv -o t.svg"), and returns the operands. After
// "--" everything is an operand.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(operands, rest...), nil
		}
		if len(rest) == 0 {
			return operands, nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// given reports the names of the flags set on the command line.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// pointFlag is a point given as comma-separated numbers, or as @FILE: the
// numbers in FILE (-x0).
type pointFlag []float64

func (p *pointFlag) String() string {
	words := make([]string, len(*p))
	for i, v := range *p {
		words[i] = formatValue(v)
	}
	return strings.Join(words, ",")
}

func (p *pointFlag) Set(s string) error {
	if path, ok := strings.CutPrefix(s, "@"); ok {
		x, err := points.ReadFile(path)
		if err != nil {
			return err
		}
		*p = x
		return nil
	}
	var x []float64
	for w := range strings.SplitSeq(s, ",") {
		v, ok := points.ParseFinite(strings.TrimSpace(w))
		if !ok {
			return fmt.Errorf("%q is not a finite number", strings.TrimSpace(w))
		}
		x = append(x, v)
	}
	*p = x
	return nil
}

// countFlag is a non-negative count that may be written as an integer or
// in exponent form (1e5). Before Set it shows def as its default: the
// command derives the actual default (-max-evals: 10000*d).
type countFlag struct {
	n   int
	set bool
	def string
}

func (c *countFlag) String() string {
	if !c.set {
		return c.def
	}
	return strconv.Itoa(c.n)
}

func (c *countFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != math.Floor(v) || v > 1<<53 {
		return errors.New("want a non-negative integer such as 20000 or 2e4")
	}
	c.n, c.set = int(v), true
	return nil
}

// targetFlag is a target value, or "none". Before Set it shows def as its
// default: the command derives the actual default (run: f* + 1e-8 when f*
// is known).
type targetFlag struct {
	value *float64 // nil: none
	set   bool
	def   string
}

func (t *targetFlag) String() string {
	switch {
	case !t.set:
		return t.def
	case t.value == nil:
		return "none"
	}
	return formatValue(*t.value)
}

func (t *targetFlag) Set(s string) error {
	if s == "none" {
		t.value, t.set = nil, true
		return nil
	}
	v, ok := points.ParseFinite(s)
	if !ok {
		return errors.New(`want a finite number or "none"`)
	}
	t.value, t.set = &v, true
	return nil
}

// strategyFlags are the flags that build a strategy, shared by run and init.
type strategyFlags struct {
	algo        string
	seed        uint64
	sigma0      float64
	sigma0Given bool // -sigma0 was given: it overrides the default of a box
	x0          pointFlag
	box         float64
	restarts    string
	maxRestarts int
	// lower, upper and stds are -lower, -upper and -stds as given: one
	// number or d numbers, read once d is known (see coordList).
	lower, upper, stds string
	pairs              int
	lambda             int
	// noise and noiseEvals are -noise and -noise-evals: uncertainty
	// handling around the strategy (es.NewNoiseHandler).
	noise      bool
	noiseEvals int
}

// register defines the flags on fs. boxDefault describes the default box
// half-width (0 on the command line), which differs between run and init.
func (sf *strategyFlags) register(fs *flag.FlagSet, boxDefault string) {
	fs.StringVar(&sf.algo, "algo", es.Recommended, "strategy `NAME`: "+strings.Join(es.Names(), ", ")+" (hees: the paper's HE-ES exactly)")
	fs.Uint64Var(&sf.seed, "seed", 1, "master `SEED` of every random draw")
	fs.Float64Var(&sf.sigma0, "sigma0", 2, "initial step size `S` (with -lower and -upper the default is 0.3 × the box width)")
	fs.Var(&sf.x0, "x0", "initial mean `X1,X2,...`, or @FILE: the d numbers in FILE, separated by spaces, commas or newlines (default: uniform in [-B, B]^d, drawn from the seed)")
	fs.Float64Var(&sf.box, "box", 0, "half-width `B` of the box of a drawn x0 (default "+boxDefault+")")
	fs.StringVar(&sf.restarts, "restarts", "none", "restart `MODE`: none; ipop (restart with a doubled population when the strategy stops); bipop ("+strategiesWith(hasPopulation, "and")+": alternate doubled populations with small ones, Hansen's BIPOP)")
	fs.IntVar(&sf.maxRestarts, "max-restarts", 0, "with -restarts ipop or bipop, at most `N` restarts with a doubled population (0: no limit)")
	fs.StringVar(&sf.lower, "lower", "", "lower bounds `L`: one number for every coordinate or d numbers L1,...,Ld (-inf: none); every point evaluated lies in the box")
	fs.StringVar(&sf.upper, "upper", "", "upper bounds `U`: one number for every coordinate or d numbers U1,...,Ud (inf: none)")
	fs.IntVar(&sf.pairs, "pairs", 0, "with -algo "+strategiesWith(populationIs(es.PopulationPairs), "or")+", `N` mirrored pairs: a generation evaluates 2N+1 points (0: floor(2 + 1.5 ln d), for hees2 at most d; for lmhees floor(4 + 1.5 ln d), at most d)")
	fs.IntVar(&sf.lambda, "lambda", 0, "with -algo "+strategiesWith(populationIs(es.PopulationLambda), "or")+", the population size `N`, at least 2 (0: 4 + floor(3 ln d))")
	fs.StringVar(&sf.stds, "stds", "", "per-coordinate scales `S1,...,Sd` (or one number): the initial step of coordinate i is sigma0*Si")
}

// impliedDim returns the dimension that -x0, or a list of d numbers given
// to -lower, -upper or -stds, implies (0 when none does), or an error when
// two of them disagree: the dimension of a run of an external program that
// gives no -d. (One number for -lower, -upper or -stds means every
// coordinate, so it implies no dimension.)
func (sf *strategyFlags) impliedDim() (int, error) {
	dim, from := len(sf.x0), "-x0"
	for _, f := range []struct{ flag, value string }{{"-lower", sf.lower}, {"-upper", sf.upper}, {"-stds", sf.stds}} {
		n := strings.Count(f.value, ",") + 1
		switch {
		case f.value == "" || n == 1 || n == dim:
		case dim != 0:
			return 0, usagef("%s has %d numbers and %s %d: give each the same d numbers (or one number)", f.flag, n, from, dim)
		default:
			dim, from = n, f.flag
		}
	}
	return dim, nil
}

// coordList reads the value of flag name for dimension dim: one number,
// which every coordinate gets, or dim numbers separated by commas. "inf"
// and "-inf" are read; NaN is refused (the library checks the rest). An
// empty value gives nil.
func coordList(name, value string, dim int) ([]float64, error) {
	if value == "" {
		return nil, nil
	}
	words := strings.Split(value, ",")
	if len(words) != 1 && len(words) != dim {
		return nil, usagef("-%s has %d numbers, want 1 or d = %d", name, len(words), dim)
	}
	x := make([]float64, dim)
	for i := range x {
		w := strings.TrimSpace(words[min(i, len(words)-1)])
		v, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsNaN(v) {
			return nil, usagef("-%s: %q is not a number", name, w)
		}
		x[i] = v
	}
	return x, nil
}

// bounds returns the box and scales of -lower, -upper and -stds for
// dimension dim (nil when not given).
func (sf *strategyFlags) bounds(dim int) (*es.Bounds, []float64, error) {
	lower, err := coordList("lower", sf.lower, dim)
	if err != nil {
		return nil, nil, err
	}
	upper, err := coordList("upper", sf.upper, dim)
	if err != nil {
		return nil, nil, err
	}
	stds, err := coordList("stds", sf.stds, dim)
	if err != nil {
		return nil, nil, err
	}
	var b *es.Bounds
	if lower != nil || upper != nil {
		b = &es.Bounds{Lower: lower, Upper: upper}
		if err := b.Check(dim); err != nil {
			return nil, nil, usagef("-lower/-upper: %s", strings.TrimPrefix(err.Error(), "es: "))
		}
	}
	return b, stds, nil
}

// config checks the flags for dimension dim and returns the strategy's
// configuration. box is the half-width used when -box is not given.
func (sf *strategyFlags) config(dim int, box float64) (es.Config, error) {
	info, err := es.Lookup(sf.algo)
	if err != nil {
		return es.Config{}, usagef("unknown algorithm %q (want one of %s)", sf.algo, strings.Join(es.Names(), ", "))
	}
	restarts, err := es.ParseRestarts(sf.restarts)
	if err != nil {
		return es.Config{}, usagef("-%v", err)
	}
	if !restarts.Supports(sf.algo) {
		return es.Config{}, usagef("-restarts %s: %s has no population to vary (use %s)", restarts, sf.algo, strategiesWith(hasPopulation, "or"))
	}
	if sf.maxRestarts < 0 || (sf.maxRestarts > 0 && restarts == es.RestartsNone) {
		return es.Config{}, usagef("-max-restarts %d: want a non-negative count, with -restarts ipop or bipop", sf.maxRestarts)
	}
	if !(sf.sigma0 > 0) || math.IsInf(sf.sigma0, 1) {
		return es.Config{}, usagef("-sigma0 %v: want a positive finite number", sf.sigma0)
	}
	if sf.box != 0 {
		box = sf.box
	}
	if !(box > 0) || math.IsInf(box, 1) {
		return es.Config{}, usagef("-box %v: want a positive finite number", box)
	}
	if sf.x0 != nil && len(sf.x0) != dim {
		return es.Config{}, usagef("-x0 has %d numbers, want d = %d", len(sf.x0), dim)
	}
	if err := checkPopulation(info, sf.pairs, sf.lambda); err != nil {
		return es.Config{}, err
	}
	b, stds, err := sf.bounds(dim)
	if err != nil {
		return es.Config{}, err
	}
	sigma0 := sf.sigma0
	if b != nil && !sf.sigma0Given {
		sigma0 = 0 // the library's default for a box: 0.3 × its width
	}
	return es.Config{Dim: dim, Seed: sf.seed, Sigma0: sigma0, X0: sf.x0, Box: box, Bounds: b, Stds: stds, Pairs: sf.pairs, Lambda: sf.lambda}, nil
}

// checkPopulation checks -pairs and -lambda for the strategy of info:
// each may be given only to the strategies whose population it sets, as
// es.Info.Population says; run, init and bench check them alike.
func checkPopulation(info es.Info, pairs, lambda int) error {
	switch {
	case pairs < 0 || (pairs > 0 && info.Population != es.PopulationPairs):
		return usagef("-pairs %d: want a positive count, with -algo %s (%s -lambda; the other strategies have a fixed population)",
			pairs, strategiesWith(populationIs(es.PopulationPairs), "or"), takes(populationIs(es.PopulationLambda)))
	case lambda < 0 || lambda == 1 || (lambda > 0 && info.Population != es.PopulationLambda):
		return usagef("-lambda %d: want a population size of at least 2, with -algo %s (%s -pairs; the other strategies have a fixed population)",
			lambda, strategiesWith(populationIs(es.PopulationLambda), "or"), takes(populationIs(es.PopulationPairs)))
	}
	return nil
}

// hasPopulation selects the strategies with a population to vary.
func hasPopulation(i es.Info) bool { return i.Population != es.PopulationFixed }

// populationIs selects the strategies whose population is set by p.
func populationIs(p es.Population) func(es.Info) bool {
	return func(i es.Info) bool { return i.Population == p }
}

// strategiesWith lists the strategies that keep selects, as "a, b or c"
// (conj "or") or "a, b and c" (conj "and"), for messages and help texts
// that the table of strategies keeps up to date.
func strategiesWith(keep func(es.Info) bool, conj string) string {
	var names []string
	for _, info := range es.Strategies() {
		if keep(info) {
			names = append(names, info.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// takes is "a takes" or "a and b take" for the strategies keep selects.
func takes(keep func(es.Info) bool) string {
	list := strategiesWith(keep, "and")
	if strings.Contains(list, " and ") {
		return list + " take"
	}
	return list + " takes"
}

// strategy returns the strategy the flags name, configured by cfg: the plain
// strategy, or an IPOP or BIPOP wrapper around it with -restarts ipop or
// bipop.
func (sf *strategyFlags) strategy(cfg es.Config) (es.Strategy, error) {
	s, err := es.NewRestarting(sf.algo, es.Restarts(sf.restarts), cfg, sf.maxRestarts)
	if err != nil || !sf.noise {
		return s, err
	}
	return es.NewNoiseHandler(s, es.NoiseConfig{MaxEvals: sf.noiseEvals})
}

// checkBudget reports a budget maxEvals (0: none) smaller than the first
// generation of s when no known points come first (known: their number):
// the run would evaluate nothing (es.Run refuses it too, but only after
// the run's files are made). The first generation of a NoiseHandler
// evaluates each point once (GenerationSize), not MaxEvals times.
func (sf *strategyFlags) checkBudget(s es.Strategy, maxEvals, known int) error {
	rows := s.PopulationSize()
	if h, ok := s.(*es.NoiseHandler); ok {
		rows = h.GenerationSize()
	}
	if maxEvals > 0 && known == 0 && rows > maxEvals {
		return usagef("-max-evals %d is smaller than the first generation of %s (%d evaluations): nothing would be evaluated; raise -max-evals or lower the population", maxEvals, s.Name(), rows)
	}
	return nil
}

// registerNoise defines -noise and -noise-evals on fs.
func (sf *strategyFlags) registerNoise(fs *flag.FlagSet) {
	fs.BoolVar(&sf.noise, "noise", false, "uncertainty handling for a noisy objective ("+strategiesWith(func(i es.Info) bool { return i.Noise }, "and")+"): measure the noise; while it dominates raise sigma (up to -sigma0), then double the population (up to 8 times without -restarts) or the evaluations per point; report the recommended point (the mean, or an average of recent means) apart from the best value")
	fs.IntVar(&sf.noiseEvals, "noise-evals", es.DefaultNoiseEvals, "with -noise, evaluate each point up to `N` times while noise dominates and sigma is above -sigma0 (the strategy is told the median; 1: raise sigma only)")
}

// checkNoise reports -noise-evals without -noise or out of range, and
// -noise with a strategy that has no noise handling (set: the flags
// given).
func (sf *strategyFlags) checkNoise(set map[string]bool) error {
	switch {
	case set["noise-evals"] && !sf.noise:
		return usagef("-noise-evals needs -noise")
	case sf.noiseEvals < 1 || sf.noiseEvals > es.MaxNoiseEvals:
		return usagef("-noise-evals %d: want 1 to %d", sf.noiseEvals, es.MaxNoiseEvals)
	}
	if info, err := es.Lookup(sf.algo); sf.noise && err == nil && !info.Noise {
		return usagef("-noise: %s has no noise handling (use %s)", sf.algo, strategiesWith(func(i es.Info) bool { return i.Noise }, "or"))
	}
	return nil
}

// checkDim reports a dimension below 1 as a usage error.
func checkDim(dim int) error {
	if dim < 1 {
		return usagef("-d %d: the dimension must be at least 1", dim)
	}
	return nil
}

// signalContext returns a context canceled by Ctrl-C, SIGTERM or SIGHUP (a
// closed terminal or ssh session): it stops a run, or the wait for a lock.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// runContext is signalContext for hees run and hees resume: after the
// first signal, which stops the run, a second one ends hees the default
// way.
func runContext() (context.Context, context.CancelFunc) {
	ctx, stop := signalContext()
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// lazyPoint is -x0 of hees run, which holds numbers, or with -space the
// values of the space's parameters: Set keeps the text and reads it as
// numbers into into, keeping the error, and the command reports the error
// (as the flag package would have) only when there is no space
// (numbers).
type lazyPoint struct {
	into *pointFlag
	raw  string
	set  bool
	err  error
}

func (p *lazyPoint) String() string {
	if p.into == nil {
		return ""
	}
	return p.into.String()
}

func (p *lazyPoint) Set(s string) error {
	p.raw, p.set = s, true
	*p.into = nil
	p.err = p.into.Set(s)
	return nil
}

// numbersErr is the error of -x0 read as numbers, in the flag package's
// words, or nil.
func (p *lazyPoint) numbersErr(cmd string) error {
	if p.err == nil {
		return nil
	}
	return usagef("invalid value %q for flag -x0: %v (run 'hees help %s')", p.raw, p.err, cmd)
}
