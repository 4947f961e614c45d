package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// maxPointFile bounds the size of a point file (-x0 @FILE): a point of
// objectives.MaxMatrixDim coordinates takes far less.
const maxPointFile = 1 << 24

// readPointFile reads one point from the file at path: numbers separated by
// spaces, tabs, commas or newlines. An empty file, a word that is not a
// finite number and an unreadable file are errors that name the file (and
// the line); so is a file that is not a regular file, or one larger than
// maxPointFile bytes.
func readPointFile(path string) ([]float64, error) {
	data, err := boundedfile.Read(path, maxPointFile)
	if err != nil {
		return nil, err
	}
	var x []float64
	for n, line := range strings.Split(string(data), "\n") {
		words := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
		for _, w := range words {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("@%s line %d: %q is not a finite number", path, n+1, w)
			}
			x = append(x, v)
		}
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("@%s holds no number", path)
	}
	return x, nil
}
