package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hees-dev/hees/internal/golden"
	"github.com/hees-dev/hees/objectives"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// cliCase is one invocation of the command: its arguments and standard
// input. Its exit status, standard output and standard error are kept in
// testdata/<name>.golden.
type cliCase struct {
	name  string
	args  []string
	stdin string
}

var cliCases = []cliCase{
	{"no_args", nil, ""},
	{"help", []string{"help"}, ""},
	{"help_eval", []string{"help", "eval"}, ""},
	{"help_unknown", []string{"help", "nope"}, ""},
	{"help_help", []string{"help", "help"}, ""},
	{"help_asktell", []string{"help", "asktell"}, ""},
	{"version", []string{"version"}, ""},
	{"help_version", []string{"help", "version"}, ""},
	{"version_extra_argument", []string{"version", "now"}, ""},
	{"unknown_command", []string{"nope"}, ""},

	{"eval_sphere", []string{"eval", "-f", "sphere", "-d", "3"}, "1 2 3\n0,0,0\n-1.5, 2, 0.25\n\t7\t0 0 \n"},
	{"eval_blank_crlf_no_final_newline", []string{"eval", "-f", "sphere", "-d", "2"}, "1 2\r\n\r\n   \n3 4"},
	{"eval_bad_lines", []string{"eval", "-f", "sphere", "-d", "2"},
		"1 2\n1 2 3\n1 x\n\n3,4\n1,,2\n1,2,\n1e400 1\n,1 2\n5 5\n1\n"},
	{"eval_ellipsoid_cond", []string{"eval", "-f", "ellipsoid:cond=1e4", "-d", "3"}, "1 1 1\n0.1 0.1 0.1\n"},
	{"eval_rosenbrock", []string{"eval", "-d", "4", "-f", "rosenbrock"}, "1 1 1 1\n0 0 0 0\n-1.2 1 -1.2 1\n"},
	{"eval_bbob", []string{"eval", "-f", "bbob/f10/i3", "-d", "5"},
		"0 0 0 0 0\n1 -2 3 -4 5\n6 6 6 6 6\n"},
	{"eval_bbob_f21", []string{"eval", "-f", "bbob/f21/i2", "-d", "3"}, "0 0 0\n-4.9,4.9,0.5\n"},
	{"eval_special_numbers", []string{"eval", "-f", "sphere", "-d", "2"}, "NaN 0\nInf 1\n0x1p-3 1e-200\n"},
	{"opt_sphere", []string{"eval", "-f", "sphere", "-d", "3", "-opt"}, "ignored\n"},
	{"opt_rosenbrock", []string{"eval", "-opt", "-f", "rosenbrock", "-d", "2"}, ""},
	{"opt_bbob_f20", []string{"eval", "-f", "bbob/f20/i5", "-d", "4", "-opt"}, ""},
	{"opt_bbob_f9", []string{"eval", "-f", "bbob/f9/i1", "-d", "3", "-opt"}, ""},
	{"eval_bbob_largescale", []string{"eval", "-f", "bbob-largescale/f10/i3", "-d", "50"}, repeatPoint("0", 50) + repeatPoint("1.5", 50) + repeatPoint("-6", 50)},
	{"eval_bbob_mixint", []string{"eval", "-f", "bbob-mixint/f1/i1", "-d", "5"},
		"0 0 0 0 0\n1 3 7 15 5\n0.5 1.49 2.5 -0.5 0.25\n-3 9 100 -1e300 7\n1 3 7 15 inf\n"},
	{"opt_bbob_largescale", []string{"eval", "-f", "bbob-largescale/f21/i2", "-d", "41", "-opt"}, ""},
	{"opt_bbob_mixint", []string{"eval", "-f", "bbob-mixint/f20/i2", "-d", "10", "-opt"}, ""},
	{"eval_mixint_bad_dim", []string{"eval", "-f", "bbob-mixint/f1", "-d", "12"}, ""},
	{"eval_largescale_too_large", []string{"eval", "-f", "bbob-largescale/f1", "-d", "1000000000"}, ""},

	{"eval_unknown_flag", []string{"eval", "-x", "-f", "sphere", "-d", "2"}, ""},
	{"eval_bad_dim_value", []string{"eval", "-f", "sphere", "-d", "two"}, ""},
	{"eval_missing_f", []string{"eval", "-d", "2"}, ""},
	{"eval_missing_d", []string{"eval", "-f", "sphere"}, ""},
	{"eval_unknown_problem", []string{"eval", "-f", "spehre", "-d", "2"}, ""},
	{"eval_bad_param", []string{"eval", "-f", "ellipsoid:cond=0.1", "-d", "2"}, ""},
	{"eval_dim_too_small", []string{"eval", "-f", "rosenbrock", "-d", "1"}, ""},
	{"eval_extra_argument", []string{"eval", "-f", "sphere", "-d", "2", "points.txt"}, ""},
}

// repeatPoint is one line of d copies of v.
func repeatPoint(v string, d int) string {
	return strings.TrimSuffix(strings.Repeat(v+" ", d), " ") + "\n"
}

// TestGolden runs every case and compares exit status, standard output and
// standard error with testdata/<name>.golden (go test -update rewrites
// them).
func TestGolden(t *testing.T) {
	for _, tc := range cliCases {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc.name, tc.args, tc.stdin) })
	}
}

// checkGolden runs hees with args and stdin and compares exit status,
// standard output and standard error with testdata/<name>.golden (go test
// -update rewrites the file).
func checkGolden(t *testing.T, name string, args []string, stdin string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	got := fmt.Sprintf("# hees %s\n-- stdin --\n%s\n-- exit --\n%d\n-- stdout --\n%s-- stderr --\n%s",
		strings.Join(args, " "), stdin, code, stdout.String(), stderr.String())
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got), *update)
}

// TestExitStatuses pins the documented exit statuses, independently of the
// golden files.
func TestExitStatuses(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		want  int
	}{
		{[]string{"eval", "-f", "sphere", "-d", "2"}, "1 2\n", exitOK},
		{[]string{"eval", "-f", "sphere", "-d", "2"}, "1 2\n1\n3 4\n", exitFailure},
		{[]string{"eval", "-f", "sphere", "-d", "2", "-opt"}, "", exitOK},
		{[]string{"eval", "-h"}, "", exitOK},
		{[]string{"eval", "-f", "nope", "-d", "2"}, "", exitUsage},
		{[]string{"eval", "-f", "sphere", "-d", "2", "-q"}, "", exitUsage},
		{[]string{"nope"}, "", exitUsage},
		{nil, "", exitUsage},
	} {
		if got := run(tc.args, strings.NewReader(tc.stdin), io.Discard, io.Discard); got != tc.want {
			t.Errorf("hees %q: exit %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestEvalMatchesLibrary checks that every printed value reads back to the
// library's value, bit for bit, and that x* printed by -opt evaluates to f*.
func TestEvalMatchesLibrary(t *testing.T) {
	const dim = 6
	for _, spec := range []string{"rastrigin", "quadratic:seed=5", "bbob/f6/i2", "bbob/f16/i4", "bbob/f24/i101"} {
		p, err := objectives.Parse(spec, dim)
		if err != nil {
			t.Fatal(err)
		}
		var in strings.Builder
		var points [][]float64
		for k := range 10 {
			x := make([]float64, dim)
			for i := range x {
				x[i] = float64((k*7+i*3)%11)/2 - 2.5 + 1e-3*float64(k)
			}
			points = append(points, x)
			for i, v := range x {
				if i > 0 {
					in.WriteString(", ")
				}
				in.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			in.WriteByte('\n')
		}
		var out bytes.Buffer
		if code := run([]string{"eval", "-f", spec, "-d", strconv.Itoa(dim)}, strings.NewReader(in.String()), &out, io.Discard); code != exitOK {
			t.Fatalf("%s: exit %d", spec, code)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != len(points) {
			t.Fatalf("%s: %d output lines for %d points", spec, len(lines), len(points))
		}
		for k, line := range lines {
			got, err := strconv.ParseFloat(line, 64)
			if err != nil {
				t.Fatal(err)
			}
			if want := p.Eval(points[k]); got != want {
				t.Errorf("%s point %d: printed %v, library %v", spec, k, got, want)
			}
		}

		var opt bytes.Buffer
		if code := run([]string{"eval", "-f", spec, "-d", strconv.Itoa(dim), "-opt"}, nil, &opt, io.Discard); code != exitOK {
			t.Fatalf("%s -opt: exit %d", spec, code)
		}
		xLine, fLine, _ := strings.Cut(opt.String(), "\n")
		var back bytes.Buffer
		if code := run([]string{"eval", "-f", spec, "-d", strconv.Itoa(dim)}, strings.NewReader(xLine), &back, io.Discard); code != exitOK {
			t.Fatalf("%s: x* does not read back: exit %d", spec, code)
		}
		if back.String() != fLine {
			t.Errorf("%s: f(x*) printed %q, -opt printed f* %q", spec, back.String(), fLine)
		}
	}
}

// TestEvalInteractive checks that a value is printed before the next line
// is read, so that a caller can write a point and wait for its value.
func TestEvalInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run([]string{"eval", "-f", "sphere", "-d", "2"}, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewReader(outR)
	for _, tc := range []struct{ point, value string }{{"1 2\n", "5\n"}, {"3 4\n", "25\n"}} {
		if _, err := io.WriteString(inW, tc.point); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			s, _ := lines.ReadString('\n')
			got <- s
		}()
		select {
		case s := <-got:
			if s != tc.value {
				t.Fatalf("value %q, want %q", s, tc.value)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no value for %q while the input stays open", tc.point)
		}
	}
	inW.Close()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestEvalWriteError checks that an output that cannot be written is an
// error with exit status 1.
func TestEvalWriteError(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"eval", "-f", "sphere", "-d", "1"}, strings.NewReader("1\n2\n"), failingWriter{}, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "hees eval: writing the output: io: read/write on closed pipe") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
