package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hees-dev/hees/internal/coco"
	"github.com/hees-dev/hees/internal/refalg"
)

// refLevel and refTarget are the target of the comparison with the
// reference algorithms, 1e-7 (the target of cocopp's tables), as a level
// of COCO's grid and as the value the reference files hold.
const (
	refLevel  = -7 * coco.TargetsPerDecade
	refTarget = 1e-7
)

// A reference is one of COCO's reference algorithms as the output names
// it.
type reference struct {
	name  string // refalg.Best2009, refalg.Best0916, ...
	title string // in the tables, the console and the prefix of the file names
}

// referenceTitles name each reference algorithm in the output.
var referenceTitles = map[string]string{
	refalg.Best2009:           "best2009",
	refalg.Best0916:           "best09-16",
	refalg.Best2009Noisy:      "best2009",
	refalg.Best0916Noisy:      "best09-16",
	refalg.Best2019LargeScale: "best2019",
}

// references returns the reference algorithms of the Grid's suite, which
// the bench compares with (none for bbob-mixint).
func (g *Grid) references() []reference {
	var refs []reference
	for _, name := range refalg.ForSuite(g.suite()) {
		refs = append(refs, reference{name, referenceTitles[name]})
	}
	return refs
}

// refComparison holds one strategy's ratios to one reference in one
// dimension.
type refComparison struct {
	label  string
	ratios map[int]refalg.Ratio // by function
	// runs and solved count, by function, the runs and those that
	// reached 1e-7.
	runs, solved map[int]int
	mean         refalg.DimMean
}

// compareWithReference compares the runs of each label in dimension d
// (byLabel) with the reference algorithm ref at 1e-7.
func compareWithReference(ref *refalg.Algorithm, d int, labels []string, byLabel map[string][]*coco.Run) ([]refComparison, error) {
	var out []refComparison
	for _, label := range labels {
		erts := map[refalg.Cell]float64{}
		groups := map[int][]*coco.Run{}
		for _, r := range byLabel[label] {
			groups[r.Function] = append(groups[r.Function], r)
		}
		c := refComparison{label: label, ratios: map[int]refalg.Ratio{}, runs: map[int]int{}, solved: map[int]int{}}
		for f, runs := range groups {
			cell := refalg.Cell{Function: f, Dim: d}
			erts[cell], c.solved[f] = coco.ERT(runs, refLevel)
			c.runs[f] = len(runs)
		}
		ratios, means, err := ref.Compare(erts, refTarget)
		if err != nil {
			return nil, err
		}
		for _, r := range ratios {
			c.ratios[r.Function] = r
		}
		if len(means) == 1 {
			c.mean = means[0]
		}
		out = append(out, c)
	}
	return out, nil
}

// refTable writes the markdown table of ERT / ERT_ref at 1e-7 per function
// (rows) and strategy (columns) in dimension d, with the geometric mean of
// each column, headed by the bench's settings and hees's version v.
func (g *Grid) refTable(ref reference, d int, v string, comps []refComparison) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# ERT / ERT_%s at 1e-7, d = %d\n\n", ref.title, d)
	fmt.Fprintf(&buf, "hees %s bench, %s %s, budget %g·d evaluations. Each cell is ERT(strategy) / ERT(%s) "+
		"to reach f − fopt ≤ 1e-7, the ratio cocopp's tables show (%s: COCO's reference algorithm %s, "+
		"per function, dimension and target the smallest ERT of its algorithms). "+
		"Below 1, the strategy needed fewer evaluations. ∞: only %s reached the target; —: neither. "+
		"In parentheses, the runs that reached 1e-7 when not all did.\n\n",
		v, g.suiteTitle(), g.gridText(), g.Budget, ref.title, ref.title, ref.name, ref.title)
	heads := make([]string, len(comps))
	for i, c := range comps {
		heads[i] = c.label
	}
	writeTableHead(&buf, heads)
	for _, f := range g.Functions {
		fmt.Fprintf(&buf, "| %d |", f)
		for _, c := range comps {
			r, ok := c.ratios[f]
			cell := "—"
			switch {
			case !ok:
			case math.IsInf(r.Ratio, 1):
				cell = "∞"
			case !math.IsNaN(r.Ratio):
				cell = strconv.FormatFloat(r.Ratio, 'g', 3, 64)
			}
			if solved := c.solved[f]; solved > 0 && solved < c.runs[f] {
				cell += fmt.Sprintf(" (%d/%d)", solved, c.runs[f])
			}
			fmt.Fprintf(&buf, " %s |", cell)
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("| geometric mean |")
	for _, c := range comps {
		fmt.Fprintf(&buf, " %s |", formatMean(c.mean.GeoMean))
	}
	buf.WriteString("\n| functions in the mean |")
	for _, c := range comps {
		fmt.Fprintf(&buf, " %d |", c.mean.Functions)
	}
	fmt.Fprintf(&buf, "\n| solved only by %s |", ref.title)
	for _, c := range comps {
		fmt.Fprintf(&buf, " %d |", c.mean.Unsolved)
	}
	buf.WriteString("\n\nThe geometric mean is over the functions the strategy solved at least once; " +
		"the functions only the reference solved are counted apart.\n")
	return buf.Bytes()
}

// formatMean writes a geometric mean with 3 significant digits, "—" for
// NaN (no function in the mean).
func formatMean(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// printRefMeans writes, per reference, strategy and dimension, the
// geometric mean of ERT / ERT_ref at 1e-7.
func printRefMeans(w io.Writer, ref reference, d int, comps []refComparison) {
	for _, c := range comps {
		fmt.Fprintf(w, "%-12s d=%-3d ERT/ERT_%s at 1e-7: geometric mean %s over %d functions, %d solved only by %s\n",
			c.label, d, ref.title, formatMean(c.mean.GeoMean), c.mean.Functions, c.mean.Unsolved, ref.title)
	}
}
