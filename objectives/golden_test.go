package objectives

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGoldenBits pins the exact bits of every BBOB function (two instances,
// three dimensions, three points each), of every classic problem and of
// every bbob-noisy function (its three evaluations). The COCO reference
// tests allow 1e-9; this one allows nothing, so that CI can check that the
// values do not depend on the CPU (GOAMD64=v3, arm64 under qemu): all must
// match the same file.
func TestGoldenBits(t *testing.T) {
	var buf bytes.Buffer
	for f := 1; f <= BBOBFunctions; f++ {
		for _, inst := range []int{1, 7} {
			for _, d := range []int{2, 10, 40} {
				p, err := NewBBOB(f, inst, d)
				if err != nil {
					t.Fatal(err)
				}
				for k := 1; k <= 3; k++ {
					v := p.Eval(referencePoint(f, inst, d, k))
					fmt.Fprintf(&buf, "%s d=%d r%d %s\n", p.Name(), d, k, strconv.FormatFloat(v, 'x', -1, 64))
				}
			}
		}
	}
	for _, name := range Names() {
		if strings.Contains(name, "/") {
			continue // the COCO suites: above, and in TestGoldenSuites
		}
		for _, d := range []int{2, 10} {
			p, err := Parse(name, d)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= 3; k++ {
				v := p.Eval(referencePoint(0, 0, d, k))
				fmt.Fprintf(&buf, "%s d=%d r%d %s\n", p.Name(), d, k, strconv.FormatFloat(v, 'x', -1, 64))
			}
		}
	}
	// bbob-noisy: per point, the value of COCO's sequence (a fresh problem
	// evaluated at r1, r2, r3 in order), the keyed value (seed 1, key K)
	// and the noiseless value.
	for f := BBOBNoisyFirst; f <= BBOBNoisyLast; f++ {
		for _, inst := range []int{1, 7} {
			for _, d := range []int{2, 10, 40} {
				p, err := NewBBOBNoisy(f, inst, d)
				if err != nil {
					t.Fatal(err)
				}
				for k := 1; k <= 3; k++ {
					x := referencePoint(f, inst, d, k)
					fmt.Fprintf(&buf, "%s d=%d r%d %s %s %s\n", p.Name(), d, k,
						strconv.FormatFloat(p.Eval(x), 'x', -1, 64),
						strconv.FormatFloat(p.EvalKeyed(x, 1, uint64(k)), 'x', -1, 64),
						strconv.FormatFloat(p.Noiseless(x), 'x', -1, 64))
				}
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "values.golden"), buf.Bytes(), *update)
}

// TestGoldenSuites pins the exact bits of every function of the COCO suites
// bbob-largescale and bbob-mixint (two instances; dimensions with one block,
// a partial block and permutations; three points each, and f* with f(x*)),
// so that CI can check on GOAMD64=v3 and arm64 that they do not depend on
// the CPU.
func TestGoldenSuites(t *testing.T) {
	var buf bytes.Buffer
	hex := func(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }
	for _, c := range []struct {
		suite string
		dims  []int
	}{
		{suiteLargeScale, []int{2, 50, 97}},
		{suiteMixint, []int{10, 55}},
	} {
		for f := 1; f <= BBOBFunctions; f++ {
			for _, inst := range []int{1, 7} {
				for _, d := range c.dims {
					p, err := Parse(suiteName(c.suite, f, inst), d)
					if err != nil {
						t.Fatal(err)
					}
					dom := DomainsOf(p)
					for k := 1; k <= 3; k++ {
						x := referencePoint(f, inst, d, k)
						for i, v := range x {
							// Spread over each domain and a little beyond.
							x[i] = (dom[i].Lo+dom[i].Hi)/2 + float64(0.22*(dom[i].Hi-dom[i].Lo)*v/2)
						}
						fmt.Fprintf(&buf, "%s d=%d r%d %s\n", p.Name(), d, k, hex(p.Eval(x)))
					}
					xopt, fopt, _ := p.Optimum()
					fmt.Fprintf(&buf, "%s d=%d opt %s %s\n", p.Name(), d, hex(fopt), hex(p.Eval(xopt)))
				}
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "suites.golden"), buf.Bytes(), *update)
}
