package points

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/boundedfile"
)

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want []float64
		err  string
	}{
		{"1 2.5 -3", []float64{1, 2.5, -3}, ""},
		{"1,2.5,\t-3", []float64{1, 2.5, -3}, ""},
		{"1, 2.5 , -3", []float64{1, 2.5, -3}, ""},
		{"1,,2 3", nil, "empty field between commas"},
		{"1 2", nil, "got 2 numbers, want 3"},
		{"1 2 3 4", nil, "got 4 numbers, want 3"},
		{"1 x 3", nil, `"x" is not a number`},
		{"1 1e999 3", nil, `"1e999" is out of the float64 range`},
	} {
		x := make([]float64, 3)
		err := ParseLine(c.line, x)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("ParseLine(%q): %v", c.line, err)
		case c.err == "" && !slices.Equal(x, c.want):
			t.Errorf("ParseLine(%q) = %v, want %v", c.line, x, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseLine(%q): error %v, want %q", c.line, err, c.err)
		}
	}
	if err := ParseLine("7", make([]float64, 2)); err == nil || err.Error() != "got 1 number, want 2" {
		t.Errorf("ParseLine of one number: %v", err)
	}
}

func TestScan(t *testing.T) {
	var good [][]float64
	var bad []int
	err := Scan(strings.NewReader("1 2\n\n  \n3\n4,5\n"), 2,
		func(x []float64) { good = append(good, slices.Clone(x)) },
		func(line int, err error) { bad = append(bad, line) })
	if err != nil {
		t.Fatal(err)
	}
	if len(good) != 2 || !slices.Equal(good[0], []float64{1, 2}) || !slices.Equal(good[1], []float64{4, 5}) || !slices.Equal(bad, []int{4}) {
		t.Errorf("Scan: points %v, bad lines %v; want [[1 2] [4 5]] and [4]", good, bad)
	}

	long := "1 2\n" + strings.Repeat("1", MaxLineBytes+1) + "\n"
	err = Scan(strings.NewReader(long), 2, func([]float64) {}, func(int, error) {})
	if tooLong := (*LineTooLongError)(nil); !errors.As(err, &tooLong) || tooLong.Line != 2 {
		t.Errorf("Scan of a long line 2: %v, want a *LineTooLongError of line 2", err)
	}
}

// writeFile writes data to the file name in dir and returns its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	x, err := ReadFile(write("good", "1, 2\t3\r\n4\n"))
	if err != nil || !slices.Equal(x, []float64{1, 2, 3, 4}) {
		t.Errorf("ReadFile = %v, %v; want [1 2 3 4]", x, err)
	}
	path := write("nan", "1\n2 NaN\n")
	if _, err := ReadFile(path); err == nil || err.Error() != "@"+path+` line 2: "NaN" is not a finite number` {
		t.Errorf("ReadFile with NaN: %v", err)
	}
	path = write("empty", " \n")
	if _, err := ReadFile(path); err == nil || err.Error() != "@"+path+" holds no number" {
		t.Errorf("ReadFile of an empty file: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

func TestReadList(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	xs, err := ReadList(write("good", "# two points\n1, 2\n\n 3\t4 \n"), 2)
	if err != nil || len(xs) != 2 || !slices.Equal(xs[0], []float64{1, 2}) || !slices.Equal(xs[1], []float64{3, 4}) {
		t.Errorf("ReadList = %v, %v; want [[1 2] [3 4]]", xs, err)
	}
	path := write("short", "1 2\n3\n")
	if _, err := ReadList(path, 2); err == nil || err.Error() != path+":2: 1 numbers, want d = 2" {
		t.Errorf("ReadList with a short line: %v", err)
	}
	path = write("inf", "1 Inf\n")
	if _, err := ReadList(path, 2); err == nil || err.Error() != path+`:1: "Inf" is not a finite number` {
		t.Errorf("ReadList with Inf: %v", err)
	}
	if _, err := ReadList(filepath.Join(dir, "missing"), 2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadList of a missing file: %v", err)
	}
	// A device is refused before it is read (/dev/zero would never end).
	if _, err := ReadList(os.DevNull, 2); !errors.Is(err, boundedfile.ErrNotRegular) || !strings.HasPrefix(err.Error(), os.DevNull+": ") {
		t.Errorf("ReadList of %s: %v", os.DevNull, err)
	}
}

func TestParseFinite(t *testing.T) {
	for _, c := range []struct {
		word string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true},
		{"-2e-3", -2e-3, true},
		{"0x1p-2", 0.25, true},
		{"inf", 0, false},
		{"-Inf", 0, false},
		{"NaN", 0, false},
		{"1e400", 0, false},
		{"", 0, false},
		{"1,5", 0, false},
	} {
		v, ok := ParseFinite(c.word)
		if ok != c.ok || (ok && v != c.want) {
			t.Errorf("ParseFinite(%q) = %v, %v; want %v, %v", c.word, v, ok, c.want, c.ok)
		}
	}
}

// TestFormat checks that Format writes what hees hands out, numbers
// separated by single spaces, and that ParseLine reads it back to the same
// bits, -0 and the extremes of float64 included.
func TestFormat(t *testing.T) {
	x := []float64{1, -0.5, 1e-300, math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, 2.5e21}
	got := Format(x)
	if want := "1 -0.5 1e-300 -0 1.7976931348623157e+308 5e-324 0.1 2.5e+21"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	y := make([]float64, len(x))
	if err := ParseLine(got, y); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Errorf("coordinate %d: %v read back as %v", i, x[i], y[i])
		}
	}
	if got := string(Append([]byte("g1-0 "), x[:2])); got != "g1-0 1 -0.5" {
		t.Errorf("Append = %q", got)
	}
}
