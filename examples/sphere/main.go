// Sphere is the example objective of the README: a stand-in for a simulator
// that hees drives from outside, with hees run -cmd or with the ask/tell
// commands.
//
// It reads points from its standard input, one per line (numbers separated
// by blanks), and writes one value per line to its standard output,
// flushing after each, until the end of its input. The value is the shifted
// sphere f(x) = sum_i (x_i - shift)^2, whose minimum 0 is at
// (shift, ..., shift).
//
// Usage:
//
//	sphere [-shift S] [-id]
//
// With -id, the first field of each line is an ID that is written before
// the value, so that the output of hees ask becomes the input of hees tell:
//
//	hees ask -state run.hees | sphere -id | hees tell -state run.hees
//
// A line that is not a point is an error: sphere names it on its standard
// error and exits with status 1.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	shift := flag.Float64("shift", 0, "the minimum is at (S, ..., S)")
	withID := flag.Bool("id", false, "the first field of each line is an ID, echoed before the value")
	sleep := flag.Duration("sleep", 0, "wait `DURATION` before each answer, as a slower objective would (for measurements)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "sphere: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := run(os.Stdin, os.Stdout, *shift, *withID, *sleep); err != nil {
		fmt.Fprintln(os.Stderr, "sphere:", err)
		os.Exit(1)
	}
}

// run answers every line of in on out.
func run(in io.Reader, out io.Writer, shift float64, withID bool, sleep time.Duration) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	w := bufio.NewWriter(out)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		prefix := ""
		if withID {
			if len(fields) == 0 {
				return fmt.Errorf("line %d: no ID", line)
			}
			prefix, fields = fields[0]+" ", fields[1:]
		}
		if len(fields) == 0 {
			return fmt.Errorf("line %d: no coordinates", line)
		}
		var f float64
		for _, s := range fields {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("line %d: %q is not a number", line, s)
			}
			d := x - shift
			f += float64(d * d) // rounded: the same bits on every platform
		}
		time.Sleep(sleep)
		fmt.Fprintf(w, "%s%s\n", prefix, strconv.FormatFloat(f, 'g', -1, 64))
		// Answer before reading the next point: hees waits for this line.
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}
