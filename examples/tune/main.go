// Tune is the example objective of the README's search space: a stand-in
// for a training job with a learning rate lr in [1e-5, 1e-1] (best near
// 1e-3, on a log scale), a whole number of units count in [1, 64] (best 24)
// and three reals a, b in [-3, 3] and c in [0, 1000] (best 1, -2 and 250).
// Its "validation loss" is
//
//	(log10(lr) + 3)^2 + ((count - 24)/8)^2 + (a - 1)^2 + (b + 2)^2 + ((c - 250)/100)^2
//
// whose minimum 0 needs count to be a whole number: a fractional count
// costs 0.25 more (a program that cannot take one would fail).
//
// It reads one point per line from its standard input, either one JSON
// object of the named values ({"lr":0.001,"count":24,"a":1,"b":-2,"c":250},
// hees run -space space.json -format json) or the five values in that
// order separated by blanks (hees run -space space.json), and writes the
// loss on one line, flushing after each, until the end of its input.
//
// Usage:
//
//	tune
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// params are the job's parameters, as hees run -format json sends them.
type params struct {
	LR    float64 `json:"lr"`
	Count float64 `json:"count"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	C     float64 `json:"c"`
}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "tune: unexpected argument %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tune:", err)
		os.Exit(1)
	}
}

// run answers every line of in on out.
func run(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	w := bufio.NewWriter(out)
	for line := 1; sc.Scan(); line++ {
		p, err := parse(sc.Text())
		if err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		fmt.Fprintf(w, "%s\n", strconv.FormatFloat(loss(p), 'g', -1, 64))
		if err := w.Flush(); err != nil { // hees waits for this line
			return err
		}
	}
	return sc.Err()
}

// parse reads a JSON object of the parameters or their five values.
func parse(text string) (params, error) {
	var p params
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		return p, dec.Decode(&p)
	}
	fields := strings.Fields(text)
	if len(fields) != 5 {
		return p, fmt.Errorf("%d values, want 5 (lr count a b c)", len(fields))
	}
	dst := []*float64{&p.LR, &p.Count, &p.A, &p.B, &p.C}
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return p, fmt.Errorf("%q is not a number", f)
		}
		*dst[i] = v
	}
	return p, nil
}

// loss is the job's validation loss.
func loss(p params) float64 {
	if !(p.LR > 0) {
		return math.Inf(1)
	}
	frac := 0.0
	if p.Count != math.Trunc(p.Count) {
		frac = 0.25
	}
	sq := func(x float64) float64 { return x * x }
	return sq(math.Log10(p.LR)+3) + sq((p.Count-24)/8) + frac + sq(p.A-1) + sq(p.B+2) + sq((p.C-250)/100)
}
