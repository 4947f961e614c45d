package rng

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/hees-dev/hees/internal/golden"
)

// goldenNormals returns the first 1000 normals of the sub-stream
// (KeyFromSeed(1), purpose 1, generation 0, index 0), one per line as the
// index, the hexadecimal float (every bit) and the %g value, and then the
// stream position in words.
func goldenNormals() []byte {
	var b bytes.Buffer
	b.WriteString("# rng: first 1000 Normal() of NewStream(KeyFromSeed(1), 1, 0, 0); regenerate with go test -run TestGoldenNormals -update\n")
	s := NewStream(KeyFromSeed(1), 1, 0, 0)
	for i := range 1000 {
		z := s.Normal()
		fmt.Fprintf(&b, "%d %s %s\n", i, strconv.FormatFloat(z, 'x', -1, 64), strconv.FormatFloat(z, 'g', -1, 64))
	}
	fmt.Fprintf(&b, "pos %d\n", s.Pos())
	return b.Bytes()
}

// TestGoldenNormals pins the bits of the first 1000 normals, on every
// platform: CI runs it with the default GOAMD64, with GOAMD64=v3 (FMA
// fusion allowed) and as an arm64 binary under qemu.
func TestGoldenNormals(t *testing.T) {
	golden.Check(t, "testdata/normals.golden", goldenNormals(), *update)
}

// signed returns x with the sign that bit 8 of the word u selects.
func signed(x float64, u uint64) float64 {
	if u&0x100 != 0 {
		return -x
	}
	return x
}

// mathNormal is Normal with math.Exp and math.Log in the wedge and tail
// instead of xmath's: the reference of TestNormalVersusMath.
func mathNormal(s *Stream) float64 {
	for {
		u := s.Uint64()
		i := u & 0xff
		j := u >> 12
		x := float64(j) * zigW[i]
		if j < zigK[i] {
			return signed(x, u)
		}
		if i == 0 {
			for {
				a := -math.Log(float64(s.Uint64()>>11+1)*0x1p-53) / zigR
				b := -math.Log(float64(s.Uint64()>>11+1) * 0x1p-53)
				if b+b > a*a {
					return signed(zigR+a, u)
				}
			}
		}
		if zigF[i]+s.Float64()*(zigF[i+1]-zigF[i]) < math.Exp(-0.5*x*x) {
			return signed(x, u)
		}
	}
}

// TestNormalVersusMath compares Normal with the same ziggurat built on
// package math (tables and slow paths) on 10^7 draws (10^6 with -short):
// the portable version differs from it by at most 1 ulp, and the two never
// disagree on acceptance (which would desynchronize the streams).
func TestNormalVersusMath(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	a := NewStream(KeyFromSeed(77), 9, 0, 0)
	b := a
	differ, inTail, maxULP := 0, 0, int64(0)
	for i := range n {
		x, y := a.Normal(), mathNormal(&b)
		if a.Pos() != b.Pos() {
			t.Fatalf("draw %d: acceptance differs (positions %d and %d)", i, a.Pos(), b.Pos())
		}
		if x != y {
			differ++
			if math.Abs(y) > zigR {
				inTail++
			}
			d := int64(math.Float64bits(x)) - int64(math.Float64bits(y))
			maxULP = max(maxULP, d, -d)
		}
	}
	t.Logf("%d draws: %d differ from the math-based ziggurat (%d in the tail), by at most %d ulp", n, differ, inTail, maxULP)
	if maxULP > 1 {
		t.Errorf("max difference %d ulp, want <= 1", maxULP)
	}
}
