package objectives

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// classicFunction is one entry of the spec table: its name, the parameters
// it accepts ("cond", "seed") and its constructor.
type classicFunction struct {
	name   string
	params []string
	build  func(dim int, cond float64, seed uint64) (Problem, error)
}

// classicFunctions lists the classic functions in the order Names reports.
var classicFunctions = []classicFunction{
	{"sphere", nil, func(dim int, _ float64, _ uint64) (Problem, error) { return NewSphere(dim) }},
	{"ellipsoid", []string{"cond"}, func(dim int, cond float64, _ uint64) (Problem, error) { return NewEllipsoid(dim, cond) }},
	{"rotellipsoid", []string{"cond", "seed"}, NewRotatedEllipsoid},
	{"cigar", []string{"cond"}, func(dim int, cond float64, _ uint64) (Problem, error) { return NewCigar(dim, cond) }},
	{"discus", []string{"cond"}, func(dim int, cond float64, _ uint64) (Problem, error) { return NewDiscus(dim, cond) }},
	{"twoaxes", []string{"cond"}, func(dim int, cond float64, _ uint64) (Problem, error) { return NewTwoAxes(dim, cond) }},
	{"diffpowers", nil, func(dim int, _ float64, _ uint64) (Problem, error) { return NewDiffPowers(dim) }},
	{"rosenbrock", nil, func(dim int, _ float64, _ uint64) (Problem, error) { return NewRosenbrock(dim) }},
	{"rastrigin", nil, func(dim int, _ float64, _ uint64) (Problem, error) { return NewRastrigin(dim) }},
	{"quadratic", []string{"cond", "seed"}, NewRandomQuadratic},
}

// Names returns the problem names Parse accepts: the classic functions, then
// the functions of each COCO suite: "bbob/f1" … "bbob/f24",
// "bbob-largescale/f1" … "bbob-largescale/f24", "bbob-mixint/f1" …
// "bbob-mixint/f24" and "bbob-noisy/f101" … "bbob-noisy/f130" (each also as
// "S/fN/iI" for instance I).
func Names() []string {
	names := slices.Clone(classicNames())
	for _, s := range suites {
		for f := s.first; f <= s.last; f++ {
			names = append(names, fmt.Sprintf("%s/f%d", s.name, f))
		}
	}
	return names
}

// Parse builds the problem named by spec in dimension dim. A spec is
//
//	name[:key=value,key=value]   a classic function, e.g. "ellipsoid:cond=1e4"
//	bbob/fN[/iI]                 BBOB function N, instance I (default 1), e.g. "bbob/f10/i3"
//	bbob-largescale/fN[/iI]      the same in COCO's bbob-largescale suite (NewBBOBLargeScale)
//	bbob-mixint/fN[/iI]          the same in COCO's bbob-mixint suite (NewBBOBMixint)
//	bbob-noisy/fN[/iI]           bbob-noisy function N (101 … 130), e.g. "bbob-noisy/f101/i1" (NewBBOBNoisy)
//
// The classic names are sphere, ellipsoid (cond), rotellipsoid (cond, seed),
// cigar (cond), discus (cond), twoaxes (cond), diffpowers, rosenbrock,
// rastrigin and quadratic (cond, seed); see their constructors (NewSphere,
// NewEllipsoid, NewRotatedEllipsoid, NewCigar, NewDiscus, NewTwoAxes,
// NewDiffPowers, NewRosenbrock, NewRastrigin, NewRandomQuadratic) for the
// definitions. cond is a number >= 1 (default 1e6) and seed an unsigned
// integer (default 1). Every classic function also takes noise (add or
// mul) and sigma (a positive number, default 0.1, only with noise): the
// function with Gaussian noise, f + sigma·N or f·(1 + sigma·N)
// (NewNoisyClassic), as in "sphere:noise=add,sigma=0.01". Leading zeros in
// N and I are allowed; the COCO suites take no parameters.
//
// An unknown name, an unknown or repeated parameter, a malformed value or a
// dimension the function does not support is an error that says which (an
// unknown name lists the valid ones). For every problem p that Parse
// builds, Parse(p.Name(), p.Dim()) builds the same problem again. The
// bbob-noisy problems are Noisy (NewBBOBNoisy), each with COCO's noise
// sequence at its start, and so are the classic functions with noise.
func Parse(spec string, dim int) (Problem, error) {
	name, args, hasArgs := strings.Cut(strings.TrimSpace(spec), ":")
	for _, s := range suites {
		if name == s.name || strings.HasPrefix(name, s.name+"/") {
			if hasArgs {
				return nil, fmt.Errorf("objectives: %q: %s problems take no parameters (use %s/fN/iI)", spec, s.title, s.name)
			}
			return parseSuite(s, name, dim)
		}
	}
	i := slices.IndexFunc(classicFunctions, func(c classicFunction) bool { return c.name == name })
	if i < 0 {
		return nil, fmt.Errorf("objectives: unknown problem %q; valid names: %s", name, validNames())
	}
	c := classicFunctions[i]
	cond, seed := float64(DefaultCond), uint64(DefaultSeed)
	noise, noiseSigma := "", float64(DefaultNoiseSigma)
	seen := map[string]bool{}
	if hasArgs {
		for _, arg := range strings.Split(args, ",") {
			key, value, ok := strings.Cut(arg, "=")
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			if !ok || key == "" || value == "" {
				return nil, fmt.Errorf("objectives: %s: parameter %q is not key=value", name, arg)
			}
			if !slices.Contains(c.params, key) && !slices.Contains(noiseParams, key) {
				return nil, fmt.Errorf("objectives: %s: unknown parameter %q; %s", name, key, acceptedParams(c))
			}
			if seen[key] {
				return nil, fmt.Errorf("objectives: %s: parameter %q given twice", name, key)
			}
			seen[key] = true
			var err error
			switch key {
			case "cond":
				cond, err = strconv.ParseFloat(value, 64)
			case "seed":
				seed, err = strconv.ParseUint(value, 10, 64)
			case "noise":
				noise = value
			case "sigma":
				noiseSigma, err = strconv.ParseFloat(value, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("objectives: %s: %s=%q is not a valid %s", name, key, value, paramKind[key])
			}
		}
	}
	if noise == "" {
		if seen["sigma"] {
			return nil, fmt.Errorf("objectives: %s: sigma= needs noise=%s or noise=%s", name, NoiseAdditive, NoiseMultiplicative)
		}
		return c.build(dim, cond, seed)
	}
	p, err := c.build(dim, cond, seed)
	if err != nil {
		return nil, err
	}
	return NewNoisyClassic(p, noise, noiseSigma)
}

// noiseParams are the parameters every classic function takes: the noise
// model and its level (NewNoisyClassic).
var noiseParams = []string{"noise", "sigma"}

// paramKind says what each parameter's value must be.
var paramKind = map[string]string{
	"cond":  "number",
	"seed":  "unsigned integer",
	"sigma": "number",
}

// acceptedParams describes the parameters of c for an error message.
func acceptedParams(c classicFunction) string {
	return "it takes " + strings.Join(append(slices.Clone(c.params), noiseParams...), ", ")
}

// validNames is the list of names for the unknown-name error.
func validNames() string {
	list := strings.Join(classicNames(), ", ")
	for _, s := range suites {
		list += fmt.Sprintf(", %s/f%d … %s/f%d", s.name, s.first, s.name, s.last)
	}
	return list + " (suite/fN/iI for instance I)"
}

// classicNames returns the names of the classic functions.
func classicNames() []string {
	names := make([]string, len(classicFunctions))
	for i, c := range classicFunctions {
		names[i] = c.name
	}
	return names
}

// suite is one COCO suite of the specs: its name (the first part of a
// spec), how errors call it, its function numbers and its constructor.
type suite struct {
	name, title string
	first, last int
	build       func(function, instance, dim int) (Problem, error)
}

// suites lists the COCO suites Parse accepts, in the order Names reports.
var suites = []suite{
	{suiteBBOB, "BBOB", 1, BBOBFunctions, NewBBOB},
	{suiteLargeScale, "bbob-largescale", 1, BBOBFunctions, NewBBOBLargeScale},
	{suiteMixint, "bbob-mixint", 1, BBOBFunctions, NewBBOBMixint},
	{suiteNoisy, "bbob-noisy", BBOBNoisyFirst, BBOBNoisyLast, func(function, instance, dim int) (Problem, error) {
		p, err := NewBBOBNoisy(function, instance, dim)
		if err != nil {
			return nil, err // not a nil Noisy in a Problem
		}
		return p, nil
	}},
}

// Suite describes one of COCO's suites that the package implements.
type Suite struct {
	// Name is the suite's name, the first part of its specs, such as
	// "bbob-noisy".
	Name string
	// First and Last are its function numbers (1 and 24, or 101 and 130).
	First, Last int
}

// Suites returns the COCO suites of the package: bbob, bbob-largescale,
// bbob-mixint and bbob-noisy, in the order of Names.
func Suites() []Suite {
	out := make([]Suite, len(suites))
	for i, s := range suites {
		out[i] = Suite{Name: s.name, First: s.first, Last: s.last}
	}
	return out
}

// NewSuiteProblem returns function f, instance i of the COCO suite called
// name (one of Suites) in dimension dim, as its constructor (NewBBOB,
// NewBBOBLargeScale, NewBBOBMixint, NewBBOBNoisy) builds it, or an error for
// an unknown suite or what the constructor refuses.
func NewSuiteProblem(name string, function, instance, dim int) (Problem, error) {
	i := slices.IndexFunc(suites, func(s suite) bool { return s.name == name })
	if i < 0 {
		names := make([]string, len(suites))
		for k, s := range suites {
			names[k] = s.name
		}
		return nil, fmt.Errorf("objectives: unknown suite %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return suites[i].build(function, instance, dim)
}

// parseSuite parses "S/fN" or "S/fN/iI" for the suite S.
func parseSuite(s suite, name string, dim int) (Problem, error) {
	parts := strings.Split(name, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("objectives: %q is not of the form %s/fN or %s/fN/iI", name, s.name, s.name)
	}
	function, err := parseNumbered(parts[1], "f")
	if err != nil {
		return nil, fmt.Errorf("objectives: %q: function %v", name, err)
	}
	instance := 1
	if len(parts) == 3 {
		if instance, err = parseNumbered(parts[2], "i"); err != nil {
			return nil, fmt.Errorf("objectives: %q: instance %v", name, err)
		}
	}
	return s.build(function, instance, dim)
}

// parseNumbered parses prefix followed by decimal digits, such as "f10".
func parseNumbered(s, prefix string) (int, error) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not %s followed by digits", s, prefix)
	}
	v, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return v, nil
}

// canonical returns the spec of a classic function: name, then those of the
// listed parameters (in that order) that differ from their defaults.
func canonical(name string, cond float64, seed uint64, keys ...string) string {
	var args []string
	for _, key := range keys {
		switch {
		case key == "cond" && cond != DefaultCond:
			args = append(args, "cond="+formatNumber(cond))
		case key == "seed" && seed != DefaultSeed:
			args = append(args, "seed="+strconv.FormatUint(seed, 10))
		}
	}
	if len(args) == 0 {
		return name
	}
	return name + ":" + strings.Join(args, ",")
}

// formatNumber writes v in the shortest form that parses back to v, with a
// plain exponent: 1e+06 becomes 1e6.
func formatNumber(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	mantissa, exponent, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign := ""
	if exponent[0] == '-' {
		sign = "-"
	}
	return mantissa + "e" + sign + strings.TrimLeft(exponent[1:], "0")
}
