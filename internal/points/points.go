// Package points reads the points that hees takes as text: one point per
// line of a stream (hees eval), one point from a file (hees run -x0
// @FILE), and a list of points from a file (hees run -inject FILE); and it
// writes a point as the text that hees hands out (hees ask, the lines an
// external program reads).
package points

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// MaxLineBytes bounds one line that Scan reads (64 MiB holds millions of
// coordinates).
const MaxLineBytes = 64 << 20

// MaxFileBytes bounds the size of a file that ReadFile reads: a point of
// objectives.MaxMatrixDim coordinates takes far less.
const MaxFileBytes = 1 << 24

// Append appends the coordinates of x to dst as text that ParseLine reads
// back exactly: each the shortest decimal of its float64
// (strconv.FormatFloat(v, 'g', -1, 64)), separated by single spaces.
func Append(dst []byte, x []float64) []byte {
	for i, v := range x {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return dst
}

// Format returns the text Append writes for x.
func Format(x []float64) string { return string(Append(nil, x)) }

// ParseLine reads the numbers of line into x. Numbers are separated by
// commas, white space, or both; a comma with nothing but space on one side
// (an empty field) is an error, as are a count other than len(x) and
// anything strconv.ParseFloat rejects or finds out of range.
func ParseLine(line string, x []float64) error {
	n := 0
	for _, field := range strings.Split(line, ",") {
		words := strings.Fields(field)
		if len(words) == 0 {
			return errors.New("empty field between commas")
		}
		for _, w := range words {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return fmt.Errorf("%q is out of the float64 range", w)
				}
				return fmt.Errorf("%q is not a number", w)
			}
			if n < len(x) {
				x[n] = v
			}
			n++
		}
	}
	if n != len(x) {
		s := "s"
		if n == 1 {
			s = ""
		}
		return fmt.Errorf("got %d number%s, want %d", n, s, len(x))
	}
	return nil
}

// ParseFinite reads word as a float64 and reports whether it is a finite
// number (strconv.ParseFloat accepts it, and it is neither NaN nor an
// infinity).
func ParseFinite(word string) (float64, bool) {
	v, err := strconv.ParseFloat(word, 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// A LineTooLongError is a line longer than MaxLineBytes, at which Scan
// stopped reading.
type LineTooLongError struct {
	Line int // the line's number, from 1
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d: longer than %d MiB; stopped reading", e.Line, MaxLineBytes>>20)
}

// Scan reads one point of dim coordinates per line of r, as ParseLine
// reads it, skipping blank lines. It calls point with each good point (x is
// reused by the next call) and bad with the number (from 1) and the error
// of each bad line, and goes on to the next line. It returns the error of
// r, or a *LineTooLongError.
func Scan(r io.Reader, dim int, point func(x []float64), bad func(line int, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	x := make([]float64, dim)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if err := ParseLine(text, x); err != nil {
			bad(line, err)
			continue
		}
		point(x)
	}
	err := sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		return &LineTooLongError{Line: line + 1}
	}
	return err
}

// ReadFile reads one point from the file at path: numbers separated by
// spaces, tabs, commas or newlines. An empty file, a word that is not a
// finite number and an unreadable file are errors that name the file (and
// the line); so is a file that is not a regular file, or one larger than
// MaxFileBytes bytes.
func ReadFile(path string) ([]float64, error) {
	data, err := boundedfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var x []float64
	for n, line := range strings.Split(string(data), "\n") {
		words := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
		for _, w := range words {
			v, ok := ParseFinite(w)
			if !ok {
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

// MaxListBytes bounds the size of a file that ReadList reads.
const MaxListBytes = 1 << 28

// ReadList reads the points of the file at path: one point per line, dim
// numbers separated by blanks or commas; blank lines and lines starting
// with # are skipped. A missing or unreadable file is a *fs.PathError; a
// file that is not a regular file, or is larger than MaxListBytes bytes,
// and a bad line are errors that start with the file's name (a bad line's
// with "path:line: ").
func ReadList(path string, dim int) ([][]float64, error) {
	data, err := boundedfile.Read(path, MaxListBytes)
	if err != nil {
		return nil, err
	}
	var points [][]float64
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		if len(words) != dim {
			return nil, fmt.Errorf("%s:%d: %d numbers, want d = %d", path, n+1, len(words), dim)
		}
		x := make([]float64, dim)
		for i, w := range words {
			v, ok := ParseFinite(w)
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q is not a finite number", path, n+1, w)
			}
			x[i] = v
		}
		points = append(points, x)
	}
	return points, nil
}
