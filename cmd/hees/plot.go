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
	"github.com/hees-dev/hees/internal/traceplot"
)

// runPlot is the plot command.
func runPlot(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hees plot", flag.ContinueOnError)
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
		fmt.Fprintln(stderr, "hees plot: name the trace file: hees plot TRACE.csv (run 'hees help plot')")
		return exitUsage
	case len(positional) > 1:
		fmt.Fprintf(stderr, "hees plot: unexpected argument %q (one trace file at a time)\n", positional[1])
		return exitUsage
	case *width < 200 || *height < 150:
		fmt.Fprintf(stderr, "hees plot: -width %d -height %d is too small, want at least 200 by 150\n", *width, *height)
		return exitUsage
	}
	shift := 0.0
	if *fopt != "" {
		v, ok := points.ParseFinite(*fopt)
		if !ok {
			fmt.Fprintf(stderr, "hees plot: -fopt %q is not a finite number\n", *fopt)
			return exitUsage
		}
		shift = v
	}
	in := positional[0]
	if *out == "" {
		*out = strings.TrimSuffix(in, filepath.Ext(in)) + ".svg"
	}
	if *title == "" {
		*title = filepath.Base(in)
	}

	tr, err := traceplot.ReadFile(in)
	if err != nil {
		fmt.Fprintf(stderr, "hees plot: %v\n", err)
		// A missing input file is a usage error, as a missing state file is.
		if errors.Is(err, os.ErrNotExist) {
			return exitUsage
		}
		return exitFailure
	}
	if n := tr.Hidden(*fopt != "", shift); n > 0 {
		fmt.Fprintf(stderr, "hees plot: warning: %s: %d values are at or below -fopt %s and are not drawn on the logarithmic axis of f - F*\n",
			in, n, formatValue(shift))
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
		fmt.Fprintf(stderr, "hees plot: %s: %v\n", in, err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return exitOK
}
