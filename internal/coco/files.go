package coco

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// File is one output file: its path relative to the algorithm's folder
// (with forward slashes) and its content.
type File struct {
	Path string
	Data []byte
}

// dataHeader is the header line of each run in a .dat, .tdat or .rdat file
// (COCO's logger_bbob_header, data format "bbob-new2").
const dataHeader = "%% f evaluations | g evaluations | best noise-free fitness - Fopt (%13.12e) + sum g_i+ | measured fitness | best measured fitness or single-digit g-values | x1 | x2...\n"

// Header holds the fields of the .info header lines that describe the
// experiment rather than a run (COCO 2.8's observer options).
type Header struct {
	// Version goes into the coco_version field: the version of the
	// software that wrote the files (hees's, as COCO writes its own).
	Version string
	// Settings goes into the settings field, "a string with settings to
	// be used by the post-processing" (COCO's observer option settings);
	// empty by default.
	Settings string
	// Suite is the suite field: the name of the COCO suite of the runs,
	// such as "bbob-noisy"; "" means "bbob".
	Suite string
}

// FilesWithHeader lays out the runs of one algorithm in COCO's bbob format
// (see the package documentation): an .info file per function and a .dat,
// .tdat and .rdat file per function and dimension, with the runs ordered
// by function, dimension and instance whatever their order in runs. algID
// is the algorithm's name (letters, digits and ._+- only, as it is quoted
// in the .info files); comment goes on the comment line of each entry and
// must be one line; h fills the coco_version and settings fields, which
// must be one line without a single quote. It reports an error for a bad
// name, comment or header field, a run without evaluations, and two runs
// of the same problem instance.
func FilesWithHeader(algID, comment string, h Header, runs []*Run) ([]File, error) {
	if algID == "" || strings.IndexFunc(algID, badIDRune) >= 0 {
		return nil, fmt.Errorf("coco: algorithm name %q: want letters, digits and ._+- only", algID)
	}
	if strings.ContainsAny(comment, "\r\n") {
		return nil, fmt.Errorf("coco: the comment %q is not one line", comment)
	}
	suite := h.Suite
	if suite == "" {
		suite = "bbob"
	}
	for _, field := range []struct{ name, v string }{{"version", h.Version}, {"settings", h.Settings}, {"suite", suite}} {
		if strings.ContainsAny(field.v, "\r\n'") {
			return nil, fmt.Errorf("coco: the %s %q is not one line without a quote", field.name, field.v)
		}
	}
	header := fmt.Sprintf("coco_version = '%s', logger = 'bbob', data_format = 'bbob-new2', settings = '%s'", h.Version, h.Settings)
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b *Run) int {
		return cmp.Or(cmp.Compare(a.Function, b.Function), cmp.Compare(a.Dim, b.Dim), cmp.Compare(a.Instance, b.Instance))
	})
	for i, r := range sorted {
		if err := r.Problem.check(); err != nil {
			return nil, err
		}
		if r.Evals < 1 {
			return nil, fmt.Errorf("coco: run f%d instance %d d=%d has no evaluations", r.Function, r.Instance, r.Dim)
		}
		if p := sorted[max(i-1, 0)]; i > 0 && p.Function == r.Function && p.Dim == r.Dim && p.Instance == r.Instance {
			return nil, fmt.Errorf("coco: two runs of f%d instance %d in dimension %d", r.Function, r.Instance, r.Dim)
		}
	}

	var files []File
	for fn := range groups(sorted, sameFunction) {
		var info bytes.Buffer
		for dimRuns := range groups(fn, sameDim) {
			f, d := dimRuns[0].Function, dimRuns[0].Dim
			base := fmt.Sprintf("data_f%d/bbobexp_f%d_DIM%d", f, f, d)
			fmt.Fprintf(&info, "suite = '%s', funcId = %d, DIM = %d, Precision = %.3e, algId = '%s', %s\n",
				suite, f, d, FinalTarget, algID, header)
			fmt.Fprintf(&info, "%% %s\n%s.dat", comment, base)
			var dat, tdat, rdat bytes.Buffer
			for _, r := range dimRuns {
				fmt.Fprintf(&info, ", %d:%d|%.1e", r.Instance, r.Evals, r.BestDelta)
				for _, out := range []struct {
					w     *bytes.Buffer
					lines []byte
				}{{&dat, r.Dat}, {&tdat, r.Tdat}, {&rdat, r.Rdat}} {
					fmt.Fprintf(out.w, dataHeader, r.Fopt)
					out.w.Write(out.lines)
				}
			}
			info.WriteByte('\n')
			files = append(files,
				File{base + ".dat", dat.Bytes()},
				File{base + ".tdat", tdat.Bytes()},
				File{base + ".rdat", rdat.Bytes()})
		}
		files = append(files, File{fmt.Sprintf("bbobexp_f%d.info", fn[0].Function), info.Bytes()})
	}
	return files, nil
}

// sameFunction and sameDim tell runs of the same function, and of the same
// function and dimension.
func sameFunction(a, b *Run) bool { return a.Function == b.Function }
func sameDim(a, b *Run) bool      { return a.Function == b.Function && a.Dim == b.Dim }

// badIDRune reports a rune that may not appear in an algorithm name.
func badIDRune(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._+-", r))
}

// groups yields the maximal runs of consecutive elements of s that are
// the same by same.
func groups[T any](s []T, same func(a, b T) bool) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for start := 0; start < len(s); {
			end := start + 1
			for end < len(s) && same(s[start], s[end]) {
				end++
			}
			if !yield(s[start:end]) {
				return
			}
			start = end
		}
	}
}
