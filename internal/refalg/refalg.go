// Package refalg holds COCO's reference algorithms, the yardstick cocopp
// prints next to every result: for the bbob suite the virtual "best 2009"
// algorithm (per function, dimension and target, the smallest expected
// running time, ERT, among the 31 algorithms of BBOB-2009) and "best
// 2009-2016"; the same two for bbob-noisy; "best 2019" for
// bbob-largescale (the best of the 11 algorithms of its 2019 workshop). The
// archives are cocopp's own (data/PROVENANCE.md), embedded in the binary,
// and read as cocopp reads them (docs/BBOB.md). There is none for
// bbob-mixint.
package refalg

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hees-dev/hees/internal/xmath"
)

//go:embed data/best2009-bbob.tar.gz
var best2009Archive []byte

//go:embed data/best09-16-bbob.tar.gz
var best0916Archive []byte

//go:embed data/best2009-bbob-noisy.tar.gz
var best2009NoisyArchive []byte

//go:embed data/best09-16-bbob-noisy.tar.gz
var best0916NoisyArchive []byte

//go:embed data/best2019-bbob-largescale.tar.gz
var best2019LargeScaleArchive []byte

// Names of the reference algorithms.
const (
	Best2009           = "best2009-bbob"
	Best0916           = "best09-16-bbob"
	Best2009Noisy      = "best2009-bbob-noisy"
	Best0916Noisy      = "best09-16-bbob-noisy"
	Best2019LargeScale = "best2019-bbob-largescale"
)

// archives are the reference algorithms: name, suite and archive, each
// parsed once, when first loaded.
var archives = []struct {
	name, suite string
	load        func() (*Algorithm, error)
}{
	{Best2009, "bbob", sync.OnceValues(func() (*Algorithm, error) { return parse(Best2009, best2009Archive) })},
	{Best0916, "bbob", sync.OnceValues(func() (*Algorithm, error) { return parse(Best0916, best0916Archive) })},
	{Best2009Noisy, "bbob-noisy", sync.OnceValues(func() (*Algorithm, error) { return parse(Best2009Noisy, best2009NoisyArchive) })},
	{Best0916Noisy, "bbob-noisy", sync.OnceValues(func() (*Algorithm, error) { return parse(Best0916Noisy, best0916NoisyArchive) })},
	{Best2019LargeScale, "bbob-largescale", sync.OnceValues(func() (*Algorithm, error) {
		return parse(Best2019LargeScale, best2019LargeScaleArchive)
	})},
}

// ForSuite returns the names of the reference algorithms of the COCO suite
// called suite, in the order cocopp lists them (none for a suite without
// one, such as bbob-mixint).
func ForSuite(suite string) []string {
	var names []string
	for _, a := range archives {
		if a.suite == suite {
			names = append(names, a.name)
		}
	}
	return names
}

// Cell is one function and dimension of the bbob suite.
type Cell struct {
	Function, Dim int
}

// step is one line of a reference .dat file: the reference reaches
// f - f_opt <= delta after evals evaluations (its ERT for that target,
// rounded by cocopp).
type step struct {
	evals float64
	delta float64
}

// Algorithm is a reference algorithm: for each cell, its ERT as a
// function of the target.
type Algorithm struct {
	name  string
	cells map[Cell][]step // steps in the order of the file: evals up, delta down
}

// Load returns the reference algorithm called name (one of the constants
// above). The archive is read once; later calls return the same
// *Algorithm.
func Load(name string) (*Algorithm, error) {
	names := make([]string, len(archives))
	for i, a := range archives {
		if a.name == name {
			return a.load()
		}
		names[i] = a.name
	}
	return nil, fmt.Errorf("refalg: unknown reference algorithm %q (have %s)", name, strings.Join(names, ", "))
}

// Name is the algorithm's name, as cocopp's algId.
func (a *Algorithm) Name() string { return a.name }

// byDimThenFunction orders cells by dimension, then function.
func byDimThenFunction(x, y Cell) int {
	if x.Dim != y.Dim {
		return x.Dim - y.Dim
	}
	return x.Function - y.Function
}

// ERT returns the reference's expected running time (evaluations) to reach
// f - f_opt <= target on the function and dimension: the evaluations of
// the first line of its .dat file whose value is at most target, as cocopp
// reads the single artificial run of a reference data set; +Inf when no
// algorithm reached the target. Targets are compared exactly, so pass the
// values of COCO's grid 10^(k/5) as they are written (1e-7, 1e-8, ...).
// It returns an error for a cell without data.
func (a *Algorithm) ERT(function, dim int, target float64) (float64, error) {
	steps, ok := a.cells[Cell{function, dim}]
	if !ok {
		return 0, fmt.Errorf("refalg: %s has no data for f%d in dimension %d", a.name, function, dim)
	}
	if math.IsNaN(target) {
		return 0, errors.New("refalg: target is NaN")
	}
	for _, s := range steps {
		if s.delta <= target {
			return s.evals, nil
		}
	}
	return math.Inf(1), nil
}

// Ratio compares a strategy's ERT on one cell with the reference's.
type Ratio struct {
	Cell
	ERT       float64 // the strategy's ERT (+Inf when it never reached the target)
	Reference float64 // the reference's ERT (+Inf likewise)
	// Ratio is ERT / Reference: +Inf when only the reference reached the
	// target, NaN when neither did.
	Ratio float64
}

// DimMean summarises the ratios of one dimension.
type DimMean struct {
	Dim int
	// GeoMean is the geometric mean of the finite ratios (NaN when there
	// are none).
	GeoMean float64
	// Functions counts the finite ratios in GeoMean; Unsolved counts the
	// functions that only the reference solved (ratio +Inf), Neither those
	// that neither solved.
	Functions, Unsolved, Neither int
}

// Compare returns, for each cell of erts (the strategy's ERTs to target),
// the ratio ERT / ERT_reference (sorted by dimension, then function) and
// per dimension the geometric mean of the finite ratios, the ratio
// cocopp's tables print. A cell the reference has no data for, or a
// negative or NaN ERT, is an error.
func (a *Algorithm) Compare(erts map[Cell]float64, target float64) ([]Ratio, []DimMean, error) {
	cells := make([]Cell, 0, len(erts))
	for c := range erts {
		cells = append(cells, c)
	}
	slices.SortFunc(cells, byDimThenFunction)
	ratios := make([]Ratio, 0, len(cells))
	var means []DimMean
	var logSum float64
	for _, c := range cells {
		ert := erts[c]
		if !(ert >= 0) {
			return nil, nil, fmt.Errorf("refalg: ERT %v of f%d in dimension %d", ert, c.Function, c.Dim)
		}
		ref, err := a.ERT(c.Function, c.Dim, target)
		if err != nil {
			return nil, nil, err
		}
		r := Ratio{Cell: c, ERT: ert, Reference: ref, Ratio: ert / ref}
		if math.IsInf(ref, 1) && math.IsInf(ert, 1) {
			r.Ratio = math.NaN()
		}
		ratios = append(ratios, r)
		if len(means) == 0 || means[len(means)-1].Dim != c.Dim {
			if len(means) > 0 {
				means[len(means)-1].finish(logSum)
			}
			means = append(means, DimMean{Dim: c.Dim})
			logSum = 0
		}
		m := &means[len(means)-1]
		switch {
		case math.IsNaN(r.Ratio):
			m.Neither++
		case math.IsInf(r.Ratio, 1):
			m.Unsolved++
		default:
			m.Functions++
			logSum += xmath.Log(r.Ratio)
		}
	}
	if len(means) > 0 {
		means[len(means)-1].finish(logSum)
	}
	return ratios, means, nil
}

// finish sets GeoMean from the sum of the logarithms of the finite ratios.
func (m *DimMean) finish(logSum float64) {
	m.GeoMean = math.NaN()
	if m.Functions > 0 {
		m.GeoMean = xmath.Exp(logSum / float64(m.Functions))
	}
}

// parse reads a cocopp reference archive: a tar.gz of a directory with the
// files <suite>-bestalg_fFF_dDD.dat, one per cell (the .info and .tdat
// files carry nothing else that ERT needs).
func parse(name string, archive []byte) (*Algorithm, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("refalg: %s: %v", name, err)
	}
	a := &Algorithm{name: name, cells: map[Cell][]step{}}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("refalg: %s: %v", name, err)
		}
		base := path.Base(h.Name)
		if !strings.HasSuffix(base, ".dat") {
			continue
		}
		var f, d int
		i := strings.LastIndex(base, "_f")
		if i < 0 {
			return nil, fmt.Errorf("refalg: %s: unexpected file %s", name, h.Name)
		}
		if _, err := fmt.Sscanf(base[i:], "_f%d_d%d.dat", &f, &d); err != nil {
			return nil, fmt.Errorf("refalg: %s: file %s: %v", name, h.Name, err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("refalg: %s: %v", name, err)
		}
		steps, err := parseDat(body)
		if err != nil {
			return nil, fmt.Errorf("refalg: %s: %s: %v", name, h.Name, err)
		}
		a.cells[Cell{f, d}] = steps
	}
	if len(a.cells) == 0 {
		return nil, fmt.Errorf("refalg: %s: no .dat file in the archive", name)
	}
	return a, nil
}

// parseDat reads the lines "evals delta delta algorithm successes runs" of
// a reference .dat file, skipping the comment lines that start with %.
// evals must grow and delta fall from line to line.
func parseDat(body []byte) ([]step, error) {
	var steps []step
	for n, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, fmt.Errorf("line %d: %d fields", n+1, len(fields))
		}
		evals, err1 := strconv.ParseFloat(fields[0], 64)
		delta, err2 := strconv.ParseFloat(fields[2], 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("line %d: %v", n+1, err)
		}
		if k := len(steps); k > 0 && (evals <= steps[k-1].evals || delta >= steps[k-1].delta) {
			return nil, fmt.Errorf("line %d: %v evaluations to %v after %v to %v", n+1, evals, delta, steps[k-1].evals, steps[k-1].delta)
		}
		steps = append(steps, step{evals: evals, delta: delta})
	}
	return steps, nil
}
