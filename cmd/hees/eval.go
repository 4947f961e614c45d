package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/objectives"
)

// runEval is the eval command.
func runEval(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "hees eval"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	spec := fs.String("f", "", "problem `SPEC`, such as sphere or bbob/f10/i3 (required)")
	dim := fs.Int("d", 0, "dimension `D` (required)")
	opt := fs.Bool("opt", false, "print x* and f* instead of evaluating points")
	noiseless := fs.Bool("noiseless", false, "print the noise-free values of a bbob-noisy problem")
	operands, status, done := parseFlagsOperands(fs, args, withProblems(evalHelp), stdout, stderr)
	if done {
		return status
	}
	set := given(fs)
	switch {
	case len(operands) > 0:
		return report(stderr, name, usagef("unexpected argument %q (points are read from standard input)", operands[0]))
	case !set["f"]:
		return report(stderr, name, usagef("-f SPEC is required (run 'hees help eval')"))
	case !set["d"]:
		return report(stderr, name, usagef("-d D is required (run 'hees help eval')"))
	case *opt && *noiseless:
		return report(stderr, name, usagef("-opt and -noiseless exclude each other"))
	}
	p, err := objectives.Parse(*spec, *dim)
	if err != nil {
		return report(stderr, name, &usageError{err.Error()})
	}
	if *noiseless {
		noisy, ok := p.(objectives.Noisy)
		if !ok {
			return report(stderr, name, usagef("-noiseless: %s has no noise", p.Name()))
		}
		p = noiselessProblem{noisy}
	}

	out := bufio.NewWriter(stdout)
	if *opt {
		status = printOptimum(out, stderr, p)
	} else {
		// Flush the values before every read of the input, so that a caller
		// that writes one point and waits for its value is not blocked.
		in := &flushingReader{r: stdin, w: out}
		status = evalLines(in, out, stderr, p)
	}
	if err := out.Flush(); err != nil {
		return report(stderr, name, fmt.Errorf("writing the output: %w", err))
	}
	return status
}

// printOptimum writes x* and f* of p, or reports that they are unknown.
func printOptimum(out *bufio.Writer, stderr io.Writer, p objectives.Problem) int {
	x, f, ok := p.Optimum()
	if !ok {
		return report(stderr, "hees eval", fmt.Errorf("the optimum of %s is not known", p.Name()))
	}
	fmt.Fprintf(out, "%s\n%s\n", points.Format(x), formatValue(f))
	return exitOK
}

// noiselessProblem is a noisy problem whose Eval is its Noiseless (hees
// eval -noiseless).
type noiselessProblem struct{ objectives.Noisy }

// Eval returns the noise-free value at x.
func (p noiselessProblem) Eval(x []float64) float64 { return p.Noiseless(x) }

// evalLines evaluates p at every point of in, in order, writing one value
// per good line to out and one error per bad line to stderr. It returns
// exitFailure if any line was bad or the input could not be read.
func evalLines(in io.Reader, out *bufio.Writer, stderr io.Writer, p objectives.Problem) int {
	status := exitOK
	err := points.Scan(in, p.Dim(), func(x []float64) {
		out.WriteString(formatValue(p.Eval(x)))
		out.WriteByte('\n')
	}, func(line int, err error) {
		// NaN keeps the output in line with the input: one line per
		// point, a failed point's NaN where its value would be.
		out.WriteString("NaN\n")
		fmt.Fprintf(stderr, "hees eval: line %d: %v\n", line, err)
		status = exitFailure
	})
	if err == nil {
		return status
	}
	if out.Flush() != nil {
		// The read failed because the flush before it did; the caller
		// reports the write error.
		return exitFailure
	}
	if tooLong := (*points.LineTooLongError)(nil); !errors.As(err, &tooLong) {
		err = fmt.Errorf("reading standard input: %w", err)
	}
	return report(stderr, "hees eval", err)
}

// formatValue writes v in the shortest form that parses back to v.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// flushingReader flushes w before each read of r.
type flushingReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f *flushingReader) Read(p []byte) (int, error) {
	if err := f.w.Flush(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}
