package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/samefile"
	"github.com/hees-dev/hees/internal/traceplot"
)

// runPlot is the plot command.
func runPlot(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	const name = "hees plot"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out := fs.String("o", "", "output `FILE`; empty means TRACE with the extension .svg")
	fopt := fs.String("fopt", "", "optimal value `F*`: plot f - F* instead of f")
	title := fs.String("title", "", "figure `TITLE`; empty means the trace's file name")
	width := fs.Int("width", 800, "width `W` in pixels")
	height := fs.Int("height", 500, "height `H` in pixels")
	positional, status, done := parseFlagsOperands(fs, args, plotHelp, stdout, stderr)
	if done {
		return status
	}
	switch {
	case len(positional) == 0:
		return report(stderr, name, usagef("name the trace file: hees plot TRACE.csv (run 'hees help plot')"))
	case len(positional) > 1:
		return report(stderr, name, usagef("unexpected argument %q (one trace file at a time)", positional[1]))
	case *width < 200 || *height < 150:
		return report(stderr, name, usagef("-width %d -height %d is too small, want at least 200 by 150", *width, *height))
	}
	shift := 0.0
	if *fopt != "" {
		v, ok := points.ParseFinite(*fopt)
		if !ok {
			return report(stderr, name, usagef("-fopt %q is not a finite number", *fopt))
		}
		shift = v
	}
	in := positional[0]
	if *out == "" {
		*out = strings.TrimSuffix(in, filepath.Ext(in)) + ".svg"
	}
	if samefile.Same(in, *out) {
		// The figure would replace the trace it is drawn from.
		return report(stderr, name, usagef("the output %s is the trace file itself: give another -o FILE", *out))
	}
	if *title == "" {
		*title = filepath.Base(in)
	}

	tr, err := traceplot.ReadFile(in)
	if errors.Is(err, os.ErrNotExist) {
		// A missing input file is a usage error, as a missing state file is.
		return report(stderr, name, &usageError{err.Error()})
	}
	if err != nil {
		return report(stderr, name, err)
	}
	if n := tr.Hidden(*fopt != "", shift); n > 0 {
		fmt.Fprintf(stderr, "%s: warning: %s: %d values are at or below -fopt %s and are not drawn on the logarithmic axis of f - F*\n",
			name, in, n, formatValue(shift))
	}
	fig, err := tr.Figure(*title, *fopt != "", shift)
	if err == nil {
		fig.Width, fig.Height = *width, *height
		var b bytes.Buffer
		if err = fig.WriteSVG(&b); err == nil {
			err = atomicfile.WriteFile(*out, b.Bytes(), 0o644)
		}
	}
	if err != nil {
		return report(stderr, name, fmt.Errorf("%s: %w", in, err))
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return exitOK
}
