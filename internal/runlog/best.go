package runlog

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/space"
)

// ErrNotLog is wrapped by the error of BestRows for a file whose first
// line after the comments is not the header of an evaluation log.
var ErrNotLog = errors.New("not an evaluation log")

// logColumns is the start of the header of an evaluation log, before the
// coordinates' columns (LogHeader).
const logColumns = "evaluation,generation,row,status,f,"

// A Row is one evaluation of a log that BestRows kept.
type Row struct {
	// Evaluation is the row's evaluation number, F its value, X its point.
	Evaluation int
	F          float64
	X          []float64
}

// BestRows reads the evaluation log at path (as hees run -log writes it,
// in d dimensions, possibly of several runs) and returns its k best rows:
// those with status ok and a finite value, in increasing order of the
// value, ties in file order. It reads the file line by line and keeps k
// rows, so a long log costs O(k d) memory. A file that is not a regular
// file, whose header is not a log's (the error wraps ErrNotLog), or whose
// header has another number of coordinates, and a row it cannot read are
// errors that name the file (and the line).
func BestRows(path string, d, k int) ([]Row, error) {
	return bestRows(path, d, k, strings.Split(LogHeader(d), ",")[5:], func(cells []string) ([]float64, error) {
		x := make([]float64, len(cells))
		for i, w := range cells {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("coordinate %d: %q is not a finite number", i+1, w)
			}
			x[i] = v
		}
		return x, nil
	})
}

// BestRowsSpace is BestRows for a log of a run in the space sp (hees run
// -space -log): its header names sp's parameters in order, and its cells
// are their values, which sp reads back to the points of es (Row.X) that
// the run evaluated.
func BestRowsSpace(path string, sp *space.Space, k int) ([]Row, error) {
	return bestRows(path, sp.Len(), k, sp.Names(), func(cells []string) ([]float64, error) {
		return sp.ParseText(strings.Join(cells, ","))
	})
}

// bestRows is BestRows for a log whose point columns are named names and
// whose cells point reads.
func bestRows(path string, d, k int, names []string, point func(cells []string) ([]float64, error)) ([]Row, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (it is %s)", path, boundedfile.ErrNotRegular, boundedfile.Kind(info.Mode()))
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var best []Row // sorted, at most k
	n, header := 0, false
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, ",")
		if !header {
			if !strings.HasPrefix(line, logColumns) {
				return nil, fmt.Errorf("%s:%d: %w: its header is not %q", path, n, ErrNotLog, logColumns+"x1,...")
			}
			if got := len(fields) - 5; got != d {
				return nil, fmt.Errorf("%s: a log of points of %d coordinates, want d = %d", path, got, d)
			}
			if !slices.Equal(fields[5:], names) {
				return nil, fmt.Errorf("%s: the log's columns are %s, this run's %s (a log of a run in the same space, or in none)", path, strings.Join(fields[5:], ", "), strings.Join(names, ", "))
			}
			header = true
			continue
		}
		if strings.HasPrefix(line, logColumns) {
			continue // the header again: another run appended to the file
		}
		row, ok, err := parseRow(fields, d, point)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if !ok || k == 0 {
			continue
		}
		// After the rows of a smaller or equal value: ties in file order.
		i, _ := slices.BinarySearchFunc(best, row.F, func(r Row, f float64) int {
			if r.F <= f {
				return -1
			}
			return 1
		})
		if i >= k {
			continue
		}
		if len(best) == k {
			best = best[:k-1]
		}
		best = slices.Insert(best, i, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: %w: no header line", path, ErrNotLog)
	}
	return best, nil
}

// parseRow reads the fields of a log row of d coordinates, whose cells
// point reads; ok is false for a row that is not a candidate for BestRows
// (a failed evaluation, a value that is not finite).
func parseRow(fields []string, d int, point func(cells []string) ([]float64, error)) (row Row, ok bool, err error) {
	if len(fields) != 5+d {
		return row, false, fmt.Errorf("%d fields, want %d", len(fields), 5+d)
	}
	if row.Evaluation, err = strconv.Atoi(fields[0]); err != nil {
		return row, false, fmt.Errorf("evaluation %q is not a number", fields[0])
	}
	if row.F, err = strconv.ParseFloat(fields[4], 64); err != nil {
		return row, false, fmt.Errorf("value %q is not a number", fields[4])
	}
	if row.X, err = point(fields[5:]); err != nil {
		return row, false, err
	}
	return row, Status(fields[3]) == StatusOK && !math.IsNaN(row.F) && !math.IsInf(row.F, 0), nil
}
