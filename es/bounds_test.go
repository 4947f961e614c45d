package es

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/rng"
)

// inf is +Inf, for the tables of open sides.
var inf = math.Inf(1)

// bdCase is one coordinate box [l, u] (±Inf for an open side).
type bdCase struct{ l, u float64 }

// bdCases are the kinds of coordinate the map handles: two-sided boxes of
// every scale and position, tiny ones, one-sided and open coordinates.
var bdCases = []bdCase{
	{-5, 5}, {0, 1}, {1, 2}, {1, 11}, {-1e6, 1}, {1000, 1001}, {0, 1e-3},
	{-1e300, 1e300}, {1e-300, 2e-300}, {0, 5e-324}, {1, math.Nextafter(1, 2)},
	{-3, inf}, {0, inf}, {1e300, inf}, {-inf, 7}, {-inf, -1e-9}, {-inf, inf},
}

// bdOne returns the Bounds of the single coordinate c.
func bdOne(c bdCase) *Bounds {
	return &Bounds{Lower: []float64{c.l}, Upper: []float64{c.u}}
}

// bdMap1 maps the scalar x with the one-coordinate bounds b.
func bdMap1(b *Bounds, x float64) float64 {
	y := []float64{x}
	b.Map(y, y)
	return y[0]
}

// bdExtremes returns inputs at every knot of the map of c, their
// neighbouring floats and the extremes of float64.
func bdExtremes(c boxCoord) []float64 {
	xs := []float64{0, -0.0, 1, -1, 1e-300, -1e-300, 1e300, -1e300, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, inf, -inf}
	for _, k := range []float64{c.l, c.u, c.lin, c.uin, c.lo, c.hi, c.lo - c.period/2, c.hi + c.period/2, c.lo - 3*c.period} {
		if math.IsInf(k, 0) || math.IsNaN(k) {
			continue
		}
		xs = append(xs, k, math.Nextafter(k, inf), math.Nextafter(k, -inf), 2*k, -k)
	}
	return xs
}

func TestBoundsCheck(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		b    *Bounds
		d    int
		want string // "" for valid
	}{
		{nil, 3, ""},
		{&Bounds{}, 3, ""},
		{&Bounds{Lower: []float64{0, -inf}}, 2, ""},
		{&Bounds{Upper: []float64{1, inf}}, 2, ""},
		{&Bounds{Lower: []float64{-1, 0}, Upper: []float64{1, inf}}, 2, ""},
		{&Bounds{Lower: []float64{-math.MaxFloat64 / 8}, Upper: []float64{math.MaxFloat64 / 8}}, 1, ""},
		{&Bounds{Lower: []float64{0, 0}}, 3, "Bounds.Lower has length 2, want Dim = 3"},
		{&Bounds{Upper: []float64{0}}, 2, "Bounds.Upper has length 1, want Dim = 2"},
		{&Bounds{Lower: []float64{nan}}, 1, "Bounds.Lower[0] = NaN"},
		{&Bounds{Upper: []float64{0, nan}}, 2, "Bounds.Upper[1] = NaN"},
		{&Bounds{Lower: []float64{inf}}, 1, "Bounds.Lower[0] = +Inf: must be a number (-Inf for no bound)"},
		{&Bounds{Upper: []float64{-inf}}, 1, "Bounds.Upper[0] = -Inf: must be a number (+Inf for no bound)"},
		{&Bounds{Lower: []float64{0, 1}, Upper: []float64{1, 1}}, 2, "Lower[1] = 1 is not below Upper[1] = 1"},
		{&Bounds{Lower: []float64{0, 2}, Upper: []float64{1, 1}}, 2, "Lower[1] = 2 is not below Upper[1] = 1"},
		{&Bounds{Lower: []float64{-math.MaxFloat64 / 2}, Upper: []float64{math.MaxFloat64 / 2}}, 1, "coordinate 0, [-8.988465674311579e+307, 8.988465674311579e+307], is too wide or too far out to map"},
		{&Bounds{Lower: []float64{-math.MaxFloat64}}, 1, "is too wide or too far out to map"},
		{&Bounds{Upper: []float64{math.MaxFloat64}}, 1, "is too wide or too far out to map"},
	} {
		err := c.b.Check(c.d)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v in d=%d: %v, want valid", c.b, c.d, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v in d=%d: error %v, want one containing %q", c.b, c.d, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%+v: error %q spans lines", c.b, err)
		}
	}
}

// TestBoundsMapPycmaValues checks the map against values that pycma's
// documentation states for its BoundTransform and
// BoxConstraintsLinQuadTransformation, in cases where pycma's margins and
// ours agree: the mirror below L - aL, the parabola, the identity, and the
// bound reached exactly at L - aL and U + aU.
func TestBoundsMapPycmaValues(t *testing.T) {
	for _, c := range []struct {
		b    *Bounds
		x    []float64
		want []float64
	}{
		{&Bounds{Lower: []float64{0, 0, 0, 0}}, []float64{-1, 0, 1, 2}, []float64{0.9, 0.0125, 1, 2}},
		{&Bounds{Lower: []float64{0, 0, 0, 0}}, []float64{-0.1, 0, 1, 1.2}, []float64{0.0125, 0.0125, 1, 1.2}},
		{
			&Bounds{Lower: []float64{1, 1, 1, 1, 1, 1}, Upper: []float64{2, 11, 11, 11, 11, 11}},
			[]float64{1.52, -2.2, -0.2, 2, 4, 10.4},
			[]float64{1.52, 4.1, 2.1, 2, 4, 10.4},
		},
		{&Bounds{Lower: []float64{1}, Upper: []float64{2}}, []float64{0.95}, []float64{1}},
		{&Bounds{Lower: []float64{1}, Upper: []float64{2}}, []float64{2.05}, []float64{2}},
	} {
		got := make([]float64, len(c.x))
		c.b.Map(got, c.x)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12*math.Max(1, math.Abs(c.want[i])) {
				t.Errorf("%+v: Map(%v)[%d] = %v, want %v", c.b, c.x, i, got[i], c.want[i])
			}
		}
	}
}

// TestBoundsMapInBox checks that every finite input, random or extreme,
// lands in [L, U], that ±Inf go to the bound on their side (or stay when
// that side is open) and that NaN stays NaN.
func TestBoundsMapInBox(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, bc := range bdCases {
		b := bdOne(bc)
		if err := b.Check(1); err != nil {
			t.Fatalf("%v: %v", bc, err)
		}
		c := b.coord(0)
		xs := bdExtremes(c)
		scale := math.Min(math.Max(math.Abs(bc.l), math.Abs(bc.u)), 1e300)
		if math.IsInf(bc.l, 0) && math.IsInf(bc.u, 0) {
			scale = 1
		}
		for k := 0; k < 20000; k++ {
			// Heavy-tailed around the box: normal / sqrt(uniform), at the
			// box's scale and far beyond.
			x := scale * r.NormFloat64() / math.Sqrt(r.Float64())
			if k%3 == 0 {
				x *= math.Pow(10, float64(r.IntN(40)))
			}
			xs = append(xs, x)
		}
		for _, x := range xs {
			y := bdMap1(b, x)
			switch {
			case math.IsInf(x, 1) && y != bc.u, math.IsInf(x, -1) && y != bc.l:
				t.Errorf("%v: Map(%v) = %v, want the bound on that side", bc, x, y)
			case !(y >= bc.l && y <= bc.u):
				t.Errorf("%v: Map(%v) = %v, outside the box", bc, x, y)
			}
		}
		if y := bdMap1(b, math.NaN()); !math.IsNaN(y) {
			t.Errorf("%v: Map(NaN) = %v, want NaN", bc, y)
		}
	}
}

// TestBoundsMapIdentity checks that the map is the identity, bit for bit,
// on [L + aL, U - aU], that this covers at least the middle 90% of every
// box, and that bounds no candidate reaches leave a whole vector unchanged.
func TestBoundsMapIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, bc := range bdCases {
		b := bdOne(bc)
		c := b.coord(0)
		if c.two() && c.u-c.l > 1e-200 && !(c.lin <= c.l+0.05*(c.u-c.l) && c.uin >= c.u-0.05*(c.u-c.l)) {
			t.Errorf("%v: identity on [%v, %v], less than the middle 90%%", bc, c.lin, c.uin)
		}
		lo, hi := math.Max(c.lin, -1e300), math.Min(c.uin, 1e300)
		xs := []float64{c.lin, c.uin}
		for k := 0; k < 2000; k++ {
			xs = append(xs, lo+r.Float64()*(hi-lo), lo+r.Float64()*(hi-lo)*1e-12)
		}
		for _, x := range xs {
			if x < c.lin || x > c.uin || math.IsInf(x, 0) {
				continue
			}
			if y := bdMap1(b, x); math.Float64bits(y) != math.Float64bits(x) {
				t.Errorf("%v: Map(%v) = %v, want the identity", bc, x, y)
			}
		}
	}
	// BBOB's domain: [-5, 5]^d is the identity on [-4.5, 4.5]^d.
	d := 20
	b := bdCube(d, -5, 5)
	x := make([]float64, d)
	for i := range x {
		x[i] = 9*r.Float64() - 4.5
	}
	y := make([]float64, d)
	b.Map(y, x)
	for i := range x {
		if math.Float64bits(y[i]) != math.Float64bits(x[i]) {
			t.Errorf("[-5, 5]: Map(x)[%d] = %v, want x[%d] = %v", i, y[i], i, x[i])
		}
	}
}

// TestBoundsMapSmooth checks, at every knot of the map (the ends of the
// identity, the bounds' preimages L - aL and U + aU, and those points
// shifted by periods and mirrored), that the map is continuous and that its
// one-sided difference quotients agree (C¹), that it rises on [L - aL,
// U + aU] and falls on the mirrored half-period after it, that it is
// periodic and symmetric about L - aL and U + aU, and that its slope is 1 in
// the identity and 0 at L - aL and U + aU.
func TestBoundsMapSmooth(t *testing.T) {
	for _, bc := range []bdCase{{-5, 5}, {0, 1}, {1, 11}, {-1e6, 1}, {1000, 1001}, {0, 1e-3}, {-3, inf}, {-inf, 7}} {
		b := bdOne(bc)
		c := b.coord(0)
		f := func(x float64) float64 { return bdMap1(b, x) }
		width := math.Min(c.hi-c.lo, 100)
		knots := []float64{}
		for _, k := range []float64{c.lin, c.uin, c.lo, c.hi} {
			if !math.IsInf(k, 0) {
				knots = append(knots, k)
			}
		}
		if c.two() {
			n := len(knots)
			for _, s := range []float64{-c.period, c.period, 7 * c.period} {
				for _, k := range knots[:n] {
					knots = append(knots, k+s)
				}
			}
			// The mirror images of the identity's ends in the next half-period.
			knots = append(knots, 2*c.hi-c.lin, 2*c.hi-c.uin)
		} else if !math.IsInf(c.lo, 0) {
			knots = append(knots, 2*c.lo-c.lin)
		} else {
			knots = append(knots, 2*c.hi-c.uin)
		}
		h := 1e-6 * width
		for _, k := range knots {
			fl, f0, fr := f(k-h), f(k), f(k+h)
			if math.Abs(fr-f0) > 1.01*h || math.Abs(f0-fl) > 1.01*h {
				t.Errorf("%v: jump at %v: f(k-h), f(k), f(k+h) = %v, %v, %v", bc, k, fl, f0, fr)
			}
			// One-sided slopes from steps h and 2h (second-order accurate).
			left := (3*f0 - 4*fl + f(k-2*h)) / (2 * h)
			right := (-3*f0 + 4*fr - f(k+2*h)) / (2 * h)
			if math.Abs(left-right) > 1e-3 {
				t.Errorf("%v: slope jumps at %v: %v from the left, %v from the right", bc, k, left, right)
			}
		}
		if c.two() {
			check := func(name string, lo, hi float64, sign float64) {
				prev := f(lo)
				for j := 1; j <= 1000; j++ {
					y := f(lo + (hi-lo)*float64(j)/1000)
					if sign*(y-prev) < -1e-15*math.Max(1, math.Abs(y)) {
						t.Errorf("%v: not %s on [%v, %v] at step %d: %v then %v", bc, name, lo, hi, j, prev, y)
						return
					}
					prev = y
				}
			}
			check("rising", c.lo, c.hi, 1)
			check("falling", c.hi, c.hi+(c.hi-c.lo), -1)
			for _, x := range []float64{c.lo + 0.3*(c.hi-c.lo), c.lin, c.uin + 0.1*c.au} {
				tol := 1e-12 * math.Max(math.Abs(c.l), math.Abs(c.u))
				if y, yp := f(x), f(x+3*c.period); math.Abs(y-yp) > tol {
					t.Errorf("%v: f(%v) = %v but f(x + 3 period) = %v", bc, x, y, yp)
				}
				if y, ym := f(x), f(2*c.hi-x); math.Abs(y-ym) > tol {
					t.Errorf("%v: f(%v) = %v but its mirror at U + aU gives %v", bc, x, y, ym)
				}
			}
		}
		if m := (c.lin + c.uin) / 2; !math.IsInf(m, 0) {
			if s := (f(m+h) - f(m-h)) / (2 * h); math.Abs(s-1) > 1e-6 {
				t.Errorf("%v: slope %v inside, want 1", bc, s)
			}
		}
		for _, k := range []float64{c.lo, c.hi} {
			if math.IsInf(k, 0) {
				continue
			}
			if s := (f(k+h) - f(k-h)) / (2 * h); math.Abs(s) > 1e-6 {
				t.Errorf("%v: slope %v at the bound's preimage %v, want 0", bc, s, k)
			}
		}
	}
}

// TestBoundsOneSided checks the rule for a coordinate with one open side:
// the mirror at L - aL (or U + aU) sends the far side back into the
// half-line without repeating, and the open side is the identity out to
// infinity.
func TestBoundsOneSided(t *testing.T) {
	lower := bdOne(bdCase{2, inf})
	c := lower.coord(0)
	if c.al != 0.1 {
		t.Errorf("margin of the lower bound 2 = %v, want max(1, 2)/20 = 0.1", c.al)
	}
	for _, x := range []float64{-1e6, -5, 0, 1.9, 1.95} {
		if y, want := bdMap1(lower, x), bdMap1(lower, 2*c.lo-x); y != want {
			t.Errorf("L = 2: Map(%v) = %v, want the mirror image Map(%v) = %v", x, y, 2*c.lo-x, want)
		}
	}
	if y := bdMap1(lower, -1e6); y != 2*c.lo+1e6 {
		t.Errorf("L = 2: Map(-1e6) = %v, want %v (mirrored, no period)", y, 2*c.lo+1e6)
	}
	for _, x := range []float64{2.1, 3, 1e300, math.MaxFloat64, inf} {
		if y := bdMap1(lower, x); y != x {
			t.Errorf("L = 2: Map(%v) = %v, want the identity", x, y)
		}
	}
	upper := bdOne(bdCase{-inf, -40})
	cu := upper.coord(0)
	if cu.au != 2 {
		t.Errorf("margin of the upper bound -40 = %v, want 40/20 = 2", cu.au)
	}
	if y := bdMap1(upper, cu.hi); y != -40 {
		t.Errorf("U = -40: Map(U + aU) = %v, want -40", y)
	}
	if y, want := bdMap1(upper, 0), 2*cu.hi; y != want {
		t.Errorf("U = -40: Map(0) = %v, want the mirror image %v", y, want)
	}
	if y := bdMap1(upper, -inf); y != -inf {
		t.Errorf("U = -40: Map(-Inf) = %v, want -Inf (the open side)", y)
	}
}

// TestBoundsInverse checks that Inverse is a right inverse of Map on the
// box, the identity on the inner part, and refuses points outside the box.
func TestBoundsInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, bc := range bdCases {
		b := bdOne(bc)
		c := b.coord(0)
		lo, hi := math.Max(bc.l, -1e6), math.Min(bc.u, 1e6)
		ys := []float64{lo, hi, c.lin, c.uin}
		for k := 0; k < 500; k++ {
			ys = append(ys, lo+r.Float64()*(hi-lo), math.Min(lo+r.Float64()*(c.lin-lo), hi), math.Max(hi-r.Float64()*(hi-c.uin), lo))
		}
		for _, y := range ys {
			if math.IsInf(y, 0) || y < bc.l || y > bc.u {
				continue
			}
			x := []float64{0}
			if err := b.Inverse(x, []float64{y}); err != nil {
				t.Fatalf("%v: Inverse(%v): %v", bc, y, err)
			}
			if x[0] < c.lo || x[0] > c.hi {
				t.Errorf("%v: Inverse(%v) = %v, outside [L - aL, U + aU] = [%v, %v]", bc, y, x[0], c.lo, c.hi)
			}
			if y >= c.lin && y <= c.uin && x[0] != y {
				t.Errorf("%v: Inverse(%v) = %v, want the identity", bc, y, x[0])
			}
			// The parabola's inverse is a square root: near the bound a
			// rounding of x is magnified, so compare at the map's scale.
			tol := 1e-12*math.Max(math.Abs(y), 1e-300) + 4e-16*math.Max(c.al, c.au)
			if back := bdMap1(b, x[0]); math.Abs(back-y) > tol {
				t.Errorf("%v: Map(Inverse(%v)) = %v", bc, y, back)
			}
		}
	}
	b := &Bounds{Lower: []float64{0, 0}, Upper: []float64{1, inf}}
	for _, y := range [][]float64{{-0.1, 0}, {0.5, -1}, {math.NaN(), 1}, {2, 1}} {
		err := b.Inverse(make([]float64, 2), y)
		if err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("Inverse(%v) = %v, want an error saying the point is outside the box", y, err)
		}
	}
}

// TestBoundsTinyBoxes checks boxes one float wide and narrower than the
// smallest normal number: every image lies in the box, and the box's ends
// come back from Inverse.
func TestBoundsTinyBoxes(t *testing.T) {
	for _, bc := range []bdCase{{1, math.Nextafter(1, 2)}, {0, 5e-324}, {-5e-324, 5e-324}, {1e300, math.Nextafter(1e300, inf)}, {1e-310, 3e-310}} {
		b := bdOne(bc)
		if err := b.Check(1); err != nil {
			t.Fatalf("%v: %v", bc, err)
		}
		for _, x := range append(bdExtremes(b.coord(0)), 0.5, -7, 3e-310) {
			if y := bdMap1(b, x); !(y >= bc.l && y <= bc.u) {
				t.Errorf("%v: Map(%v) = %v, outside the box", bc, x, y)
			}
		}
		for _, y := range []float64{bc.l, bc.u} {
			x := []float64{0}
			if err := b.Inverse(x, []float64{y}); err != nil {
				t.Errorf("%v: Inverse(%v): %v", bc, y, err)
			} else if back := bdMap1(b, x[0]); back != y {
				t.Errorf("%v: Map(Inverse(%v)) = %v", bc, y, back)
			}
		}
	}
}

// TestBoundsNilAndInPlace checks the nil Bounds (the unbounded space), Map
// and Inverse with dst the same slice as their input, Contains, and the
// panic on mismatched lengths.
func TestBoundsNilAndInPlace(t *testing.T) {
	var none *Bounds
	x := []float64{-1e300, math.NaN(), inf}
	y := make([]float64, 3)
	none.Map(y, x)
	if err := none.Inverse(y, y); err != nil || y[0] != x[0] || !math.IsNaN(y[1]) || y[2] != x[2] {
		t.Errorf("nil Bounds: Map, Inverse gave %v, %v, want a copy of %v", y, err, x)
	}
	if !none.Contains(x) || none.Check(5) != nil {
		t.Error("nil Bounds: want every point inside and a valid box")
	}
	b := &Bounds{Lower: []float64{0, -inf, 2}, Upper: []float64{1, 0, inf}}
	v := []float64{-3, 5, 1}
	want := make([]float64, 3)
	b.Map(want, v)
	b.Map(v, v)
	if fmt.Sprint(v) != fmt.Sprint(want) || !b.Contains(v) {
		t.Errorf("in place: %v, want %v inside the box", v, want)
	}
	for _, p := range [][]float64{{0.5, -1, 1.99}, {0.5, -1}, {0.5, math.NaN(), 3}} {
		if b.Contains(p) {
			t.Errorf("Contains(%v) = true", p)
		}
	}
	for _, call := range []func(){
		func() { b.Map(make([]float64, 3), make([]float64, 2)) },
		func() { b.Map(make([]float64, 2), make([]float64, 2)) },
		func() { _ = b.Inverse(make([]float64, 4), make([]float64, 4)) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "lengths") {
					t.Errorf("mismatched lengths: recovered %v, want a panic about the lengths", r)
				}
			}()
			call()
		}()
	}
}

// bdCube returns the box [l, u]^d.
func bdCube(d int, l, u float64) *Bounds {
	b := &Bounds{Lower: make([]float64, d), Upper: make([]float64, d)}
	for i := range b.Lower {
		b.Lower[i], b.Upper[i] = l, u
	}
	return b
}

// bdFolding returns the box [-5, 5]^d and a point with about half of its
// coordinates inside the identity part and half folded back by the map.
func bdFolding(d int) (*Bounds, []float64) {
	x := make([]float64, d)
	for i := range x {
		x[i] = float64(i%20) - 9.5 // -9.5 .. 9.5
	}
	return bdCube(d, -5, 5), x
}

func TestBoundsMapAllocs(t *testing.T) {
	b, x := bdFolding(50)
	y := make([]float64, len(x))
	if a := testing.AllocsPerRun(100, func() { b.Map(y, x) }); a != 0 {
		t.Errorf("Map: %v allocations, want 0", a)
	}
}

// TestBoundsDrawX0 checks the initial draw: without bounds it is New's draw
// bit for bit, with bounds it lies in the box, and the one-sided rule moves
// the default box only as far as needed.
func TestBoundsDrawX0(t *testing.T) {
	d := 6
	for seed := uint64(0); seed < 20; seed++ {
		s, err := New("hees", Config{Dim: d, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, d)
		var none *Bounds
		none.drawX0(got, rng.KeyFromSeed(seed), 3)
		if want := s.Mean(nil); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: drawX0 without bounds = %v, New's mean = %v", seed, got, want)
		}
		open := &Bounds{Lower: []float64{-inf, -10, -inf, -inf, -3, -inf}, Upper: []float64{inf, inf, 10, inf, inf, 3}}
		got2 := make([]float64, d)
		open.drawX0(got2, rng.KeyFromSeed(seed), 3)
		if fmt.Sprint(got2) != fmt.Sprint(got) {
			t.Errorf("seed %d: bounds outside [-3, 3] changed the draw: %v, want %v", seed, got2, got)
		}
		b := &Bounds{Lower: []float64{0, 100, -inf, 2, -1e-3, 1e300}, Upper: []float64{1e-6, 200, -50, inf, 1e-3, inf}}
		b.drawX0(got2, rng.KeyFromSeed(seed), 3)
		if !b.Contains(got2) {
			t.Errorf("seed %d: x0 = %v outside the box", seed, got2)
		}
		if got2[2] < -56 || got2[3] > 8 {
			t.Errorf("seed %d: one-sided coordinates %v, %v, want in [-56, -50] and [2, 8]", seed, got2[2], got2[3])
		}
	}
}

// TestBoundsDefaultScale checks the default sigma0 = 0.3 × width with the
// per-coordinate scales that carry unequal widths.
func TestBoundsDefaultScale(t *testing.T) {
	d := 4
	sigma, stds := bdCube(d, -5, 5).defaultScale(d)
	if sigma != 3 || stds != nil {
		t.Errorf("[-5, 5]^4: sigma0 = %v, stds = %v; want 3 and nil", sigma, stds)
	}
	sigma, stds = (&Bounds{Lower: []float64{0, -inf, 0, -inf}, Upper: []float64{2, inf, 2, 1}}).defaultScale(d)
	if sigma != float64(0.3*2) || stds != nil {
		t.Errorf("equal widths with open sides: sigma0 = %v, stds = %v; want 0.6 and nil", sigma, stds)
	}
	if sigma, stds = (&Bounds{Lower: []float64{0, 0, 0, 0}}).defaultScale(d); sigma != 0 || stds != nil {
		t.Errorf("no two-sided coordinate: sigma0 = %v, stds = %v; want 0 and nil", sigma, stds)
	}
	if sigma, stds = (*Bounds)(nil).defaultScale(d); sigma != 0 || stds != nil {
		t.Errorf("nil Bounds: sigma0 = %v, stds = %v; want 0 and nil", sigma, stds)
	}
	b := &Bounds{Lower: []float64{0, -1, 1e3, 5}, Upper: []float64{1e-3, 1, 2e3, inf}}
	sigma, stds = b.defaultScale(d)
	widths := []float64{1e-3, 2, 1e3}
	logDet := 0.0
	for i, w := range widths {
		if got := sigma * stds[i]; math.Abs(got-0.3*w) > 1e-14*w {
			t.Errorf("coordinate %d: sigma0·stds = %v, want 0.3 × %v", i, got, w)
		}
		logDet += math.Log(stds[i])
	}
	if stds[3] != 1 || math.Abs(logDet) > 1e-14 {
		t.Errorf("stds = %v: want 1 for the open coordinate and det 1 (log det %v)", stds, logDet)
	}
	if want := 0.3 * math.Cbrt(1e-3*2*1e3); math.Abs(sigma-want) > 1e-15 {
		t.Errorf("sigma0 = %v, want 0.3 × geometric mean of the widths = %v", sigma, want)
	}
}

// TestConfigBoundsErrors checks that New rejects bad Stds and an X0
// outside the box with one-line errors naming the field.
func TestConfigBoundsErrors(t *testing.T) {
	box := &Bounds{Lower: []float64{-1, 0, -inf}, Upper: []float64{1, inf, 2}}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Dim: 3, Stds: []float64{1, 2}}, "Config.Stds has length 2, want Dim = 3"},
		{Config{Dim: 3, Stds: []float64{1, 0, 1}}, "Config.Stds[1] = 0: must be positive and finite"},
		{Config{Dim: 3, Stds: []float64{1, 1, -2}}, "Config.Stds[2] = -2"},
		{Config{Dim: 3, Stds: []float64{math.NaN(), 1, 1}}, "Config.Stds[0] = NaN"},
		{Config{Dim: 3, Stds: []float64{1, inf, 1}}, "Config.Stds[1] = +Inf"},
		{Config{Dim: 3, Stds: []float64{1, 1e160, 1}}, "largest entries of Config.A0 and Config.Stds"},
		{Config{Dim: 3, Bounds: box, X0: []float64{0, -1, 0}}, "Config.X0[1] = -1 lies outside the bounds [0, +Inf]"},
		{Config{Dim: 3, Bounds: box, X0: []float64{0, 0, 3}}, "Config.X0[2] = 3 lies outside the bounds [-Inf, 2]"},
		{Config{Dim: 2, Bounds: box}, "Bounds.Lower has length 3, want Dim = 2"},
	} {
		for _, name := range []string{ES11, HEES, CMAES} {
			if _, err := New(name, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %+v: %v, want one line containing %q", name, c.cfg, err, c.want)
			}
		}
	}
	s, err := New(CMAES, Config{Dim: 3, Bounds: bdCube(3, -5, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Sigma() != 3 {
		t.Errorf("[-5, 5]^3: sigma0 = %v, want 0.3 × 10", s.Sigma())
	}
}

// bdProblem evaluates f, counts the evaluated points outside the box and
// keeps the smallest value (Minimize with one worker calls it from one
// goroutine).
type bdProblem struct {
	b       *Bounds
	f       func([]float64) float64
	evals   int
	outside int
	min     float64 // the smallest value so far (0 before the first)
}

func (p *bdProblem) Eval(x []float64) float64 {
	p.evals++
	if !p.b.Contains(x) {
		p.outside++
	}
	v := p.f(x)
	if p.evals == 1 || v < p.min {
		p.min = v
	}
	return v
}

// bdShiftedSphere returns sum (x_i - c_i)².
func bdShiftedSphere(c []float64) func([]float64) float64 {
	return bdScaledSphere(c, nil)
}

// bdScaledSphere returns sum ((x_i - c_i)/s_i)², with s_i = 1 when s is nil.
func bdScaledSphere(c, s []float64) func([]float64) float64 {
	return func(x []float64) float64 {
		var f float64
		for i, v := range x {
			r := v - c[i]
			if s != nil {
				r /= s[i]
			}
			f += float64(r * r)
		}
		return f
	}
}

// TestBoundsMinimizeEndsOnBoundary runs every strategy, plain and with
// IPOP restarts, on a sphere centred outside a box given as Config.Bounds,
// with the defaults that come with bounds: x0 drawn in the box, sigma0 and,
// for a box of unequal widths (in units 1e6 apart, the sphere scaled to
// match), the scales. No evaluated point leaves the box (the objective
// checks every one), and the best point ends on the boundary, at the
// projection of the centre (to 1e-8 of the width in the bounded
// coordinates), with the value of that point.
func TestBoundsMinimizeEndsOnBoundary(t *testing.T) {
	for _, c := range []struct {
		name          string
		b             *Bounds
		centre, scale []float64
		want          []float64
		interior      int // the coordinate whose optimum is inside the box
	}{
		{
			"equal widths", &Bounds{Lower: []float64{-1, -1, -1, -1, 0}, Upper: []float64{2, 2, 2, 2, inf}},
			[]float64{3, -4, 0.5, 2.5, -1}, nil, []float64{2, -1, 0.5, 2, 0}, 2,
		},
		{
			"unequal widths", &Bounds{Lower: []float64{0, -1000, 5, 0}, Upper: []float64{1e-3, 1000, 6, 1}},
			[]float64{-1e-3, 3000, 5.5, 2}, []float64{1e-3, 2000, 1, 1}, []float64{0, 1000, 5.5, 1}, 2,
		},
	} {
		d := len(c.centre)
		f := bdScaledSphere(c.centre, c.scale)
		fWant := f(c.want)
		for _, name := range Names() {
			for seed := uint64(1); seed <= 3; seed++ {
				cfg := Config{Dim: d, Seed: seed, Bounds: c.b}
				if name == HEES14 && c.scale != nil {
					// The analysed setting (no trust region) ends short of
					// the corner on 4 of 30 seeds here (cond(C) or tolfun);
					// the robust computeG reaches it on all 30.
					cfg.Kappa, cfg.EtaA = 3, 0.5
				}
				for _, ipop := range []bool{false, true} {
					var s Strategy = stNew(t, name, cfg)
					if ipop {
						w, err := NewIPOP(name, cfg, IPOPConfig{MaxRestarts: 2})
						if err != nil {
							t.Fatal(err)
						}
						s = w
					}
					if x0 := s.Mean(nil); !c.b.Contains(x0) {
						t.Errorf("%s, %s seed %d: x0 = %v outside the box", c.name, name, seed, x0)
					}
					p := &bdProblem{b: c.b, f: f}
					res, err := Minimize(context.Background(), p, s, Options{MaxEvals: 20000})
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s, %s (IPOP %v) seed %d (%s after %d evaluations)", c.name, name, ipop, seed, res.Reason, res.Evals)
					if p.outside != 0 || p.evals != res.Evals {
						t.Errorf("%s: %d of %d points outside the box", what, p.outside, p.evals)
					}
					if got := f(res.X); got != res.F || res.F != p.min {
						t.Errorf("%s: value of the best point %v, reported %v, smallest value evaluated %v", what, got, res.F, p.min)
					}
					if x, fx := s.Best(); fmt.Sprint(x, fx) != fmt.Sprint(res.X, res.F) {
						t.Errorf("%s: strategy's best %v %v, Minimize's %v %v", what, x, fx, res.X, res.F)
					}
					for i := range c.want {
						// The interior coordinate is only as exact as the
						// strategy's f-tolerance allows (1e-9 for hees: ~1e-5).
						tol := 1e-8
						if i == c.interior {
							tol = 1e-4
						}
						if w := c.b.Upper[i] - c.b.Lower[i]; !math.IsInf(w, 1) {
							tol *= w
						}
						if math.Abs(res.X[i]-c.want[i]) > tol {
							t.Errorf("%s: best point %v, want %v", what, res.X, c.want)
							break
						}
					}
					if res.F-fWant > 1e-9 {
						t.Errorf("%s: f = %v, want %v", what, res.F, fWant)
					}
				}
			}
		}
	}
}

// TestBoundsNeverActive checks that bounds no candidate reaches change
// nothing: a run with a box far beyond every candidate gives the same
// result, bit for bit, as the run without it, for every strategy, plain and
// with IPOP restarts. The IPOP runs draw their x0 (each restart's too):
// there the box is open on one side of each coordinate, since a box with
// both sides draws x0 in itself, a change by design (docs/ALGORITHMS.md
// Section 14.4).
func TestBoundsNeverActive(t *testing.T) {
	d := 4
	huge := bdCube(d, -1e6, 1e6)
	half := &Bounds{Lower: []float64{-1e6, -inf, -1e3, -inf}, Upper: []float64{inf, 1e6, inf, 50}}
	centre := []float64{1, -1, 0.5, 0}
	for _, name := range Names() {
		for _, ipop := range []bool{false, true} {
			var res [2]Result
			box := huge
			if ipop {
				box = half
			}
			for i, b := range []*Bounds{nil, box} {
				cfg := Config{Dim: d, Seed: 7, X0: []float64{1.5, -1.5, 1, 0.5}, Sigma0: 0.3, Bounds: b}
				var s Strategy
				if ipop {
					cfg.X0 = nil
					w, err := NewIPOP(name, cfg, IPOPConfig{MaxRestarts: 3})
					if err != nil {
						t.Fatal(err)
					}
					s = w
				} else {
					s = stNew(t, name, cfg)
				}
				var err error
				res[i], err = Minimize(context.Background(), Func(bdShiftedSphere(centre)), s, Options{MaxEvals: 3000})
				if err != nil {
					t.Fatal(err)
				}
				res[i].Elapsed = 0
			}
			if fmt.Sprint(res[0]) != fmt.Sprint(res[1]) {
				t.Errorf("%s (IPOP %v): with inactive bounds %+v, without %+v", name, ipop, res[1], res[0])
			}
		}
	}
}

// TestBoundsResume checks that a bounded run with scales, saved and
// restored every few generations (plain and under IPOP), equals the
// uninterrupted run bit for bit, that its state carries the box (version
// 2), and that the candidates of ask/tell lie in the box.
func TestBoundsResume(t *testing.T) {
	d := 3
	b := &Bounds{Lower: []float64{-1, 0, -inf}, Upper: []float64{1, 10, 0.5}}
	cfg := Config{Dim: d, Seed: 11, Bounds: b, Stds: []float64{1, 5, 0.5}}
	f := bdShiftedSphere([]float64{3, 3, 3})
	for _, name := range Names() {
		newS := func() Strategy {
			w, err := NewIPOP(name, cfg, IPOPConfig{MaxRestarts: 2})
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		for _, mk := range []func() Strategy{func() Strategy { return stNew(t, name, cfg) }, newS} {
			whole := mk()
			resumed := mk()
			var pop linalg.Dense
			for g := 0; g < 60 && whole.Stop() == ""; g++ {
				askTellGeneration(t, whole, f, &pop)
				if rows, _ := pop.Dims(); true {
					for i := range rows {
						if !b.Contains(pop.RawRow(i)) {
							t.Fatalf("%s: candidate %v outside the box", whole.Name(), pop.RawRow(i))
						}
					}
				}
				askTellGeneration(t, resumed, f, &pop)
				if g%7 == 3 {
					data, err := resumed.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(string(data[:40]), "/v2\n") && !strings.Contains(string(data[:40]), "/v3\n") {
						t.Fatalf("%s: state header %q, want version 2 (3 without A)", resumed.Name(), data[:20])
					}
					if resumed, err = Load(data); err != nil {
						t.Fatal(err)
					}
				}
			}
			x1, f1 := whole.Best()
			x2, f2 := resumed.Best()
			if fmt.Sprint(x1, f1, whole.Evals(), whole.Mean(nil)) != fmt.Sprint(x2, f2, resumed.Evals(), resumed.Mean(nil)) {
				t.Errorf("%s: resumed run %v %v, uninterrupted %v %v", whole.Name(), x2, f2, x1, f1)
			}
		}
	}
}

// FuzzBoundsMap checks for any box and any input: the image lies in the
// box (NaN exactly for NaN, the side's bound or infinity for ±Inf), the
// inner part is the identity bit for bit, and Inverse accepts the image.
// Run it with
//
//	go test -run '^$' -fuzz '^FuzzBoundsMap$' -fuzztime 60s ./es/
func FuzzBoundsMap(f *testing.F) {
	for _, bc := range bdCases {
		f.Add(bc.l, bc.u, 0.5)
		f.Add(bc.l, bc.u, -1e300)
		f.Add(bc.l, bc.u, bc.u+1)
	}
	f.Add(0.0, 1.0, math.NaN())
	f.Add(0.0, 1.0, inf)
	f.Fuzz(func(t *testing.T, l, u, x float64) {
		b := bdOne(bdCase{l, u})
		if b.Check(1) != nil {
			return
		}
		c := b.coord(0)
		y := bdMap1(b, x)
		switch {
		case math.IsNaN(x):
			if !math.IsNaN(y) {
				t.Fatalf("[%v, %v]: Map(NaN) = %v", l, u, y)
			}
			return
		case !(y >= l && y <= u):
			t.Fatalf("[%v, %v]: Map(%v) = %v, outside the box", l, u, x, y)
		case x >= c.lin && x <= c.uin && math.Float64bits(x) != math.Float64bits(y):
			t.Fatalf("[%v, %v]: Map(%v) = %v, want the identity", l, u, x, y)
		}
		if math.IsInf(y, 0) {
			return
		}
		if err := b.Inverse([]float64{0}, []float64{y}); err != nil {
			t.Fatalf("[%v, %v]: Inverse(Map(%v) = %v): %v", l, u, x, y, err)
		}
	})
}

// BenchmarkBoundsMap measures Map on a 100-dimensional box with half of the
// coordinates inside the identity part and half folded back.
func BenchmarkBoundsMap(b *testing.B) {
	bd, x := bdFolding(100)
	y := make([]float64, len(x))
	for b.Loop() {
		bd.Map(y, x)
	}
}

// TestSearchMap checks the map with per-coordinate scales: y_i =
// T_i(s_i x_i), invert is its right inverse on the box, and without scales
// it is Bounds.Map bit for bit.
func TestSearchMap(t *testing.T) {
	b := &Bounds{Lower: []float64{0, -1000, 5}, Upper: []float64{1e-3, 1000, inf}}
	stds := []float64{1e-3, 500, 2}
	m := newSearchMap(3, b, stds, nil)
	x := []float64{0.4, 1.5, 3}
	y := make([]float64, 3)
	m.apply(y, x)
	want := []float64{4e-4, 750, 6}
	for i := range want {
		if math.Abs(y[i]-want[i]) > 1e-15*math.Abs(want[i]) {
			t.Errorf("apply(%v)[%d] = %v, want %v", x, i, y[i], want[i])
		}
	}
	for _, p := range [][]float64{{2, -3, 1}, {0.5, 1.99, 2.6}, {-7, 0, 100}} {
		m.apply(y, p)
		if !b.Contains(y) {
			t.Errorf("apply(%v) = %v, outside the box", p, y)
		}
		back := make([]float64, 3)
		if err := m.invert(back, y); err != nil {
			t.Fatal(err)
		}
		y2 := make([]float64, 3)
		m.apply(y2, back)
		for i := range y {
			if math.Abs(y2[i]-y[i]) > 1e-12*math.Max(math.Abs(y[i]), b.Upper[i]-b.Lower[i]) {
				t.Errorf("apply(invert(%v)) = %v", y, y2)
				break
			}
		}
	}
	if err := m.invert(y, []float64{-1, 0, 6}); err == nil {
		t.Error("invert of a point outside the box: no error")
	}
	plain := newSearchMap(3, b, nil, nil)
	z := []float64{-3e-4, 1200, 4.9}
	m1, m2 := make([]float64, 3), make([]float64, 3)
	plain.apply(m1, z)
	b.Map(m2, z)
	if fmt.Sprint(m1) != fmt.Sprint(m2) {
		t.Errorf("without scales: %v, Bounds.Map gives %v", m1, m2)
	}
	if err := checkStds([]float64{1, 2}, 3); err == nil || !strings.Contains(err.Error(), "Config.Stds has length 2") {
		t.Errorf("checkStds with the wrong length: %v", err)
	}
	if a := testing.AllocsPerRun(100, func() { m.apply(y, x) }); a != 0 {
		t.Errorf("apply: %v allocations, want 0", a)
	}
}

// TestBoundsBIPOP runs BIPOP (small and large regimes, restarts drawn in
// the box) on a sphere centred outside the box, where every run converges
// to the boundary and stops, so that BIPOP restarts: no evaluated point
// leaves the box, the best point is the projection of the centre, and a
// run saved and restored through Load every few generations equals the
// uninterrupted one. (On Rastrigin in this box, hees's mean random-walked
// through the periodic fold of the map before the ranking penalty of
// docs/ALGORITHMS.md Section 14.5, TestBoundsPenaltyKeepsMean.)
func TestBoundsBIPOP(t *testing.T) {
	d := 3
	b := &Bounds{Lower: []float64{0.5, -3, -3}, Upper: []float64{3, 3, 0.25}}
	f := bdShiftedSphere([]float64{0, 1, 1})
	want := []float64{0.5, 1, 0.25}
	for _, name := range []string{HEES, CMAES} {
		cfg := Config{Dim: d, Seed: 5, Bounds: b}
		mk := func() Strategy {
			w, err := NewBIPOP(name, cfg, BIPOPConfig{MaxRestarts: 2})
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		p := &bdProblem{b: b, f: f}
		res, err := Minimize(context.Background(), p, mk(), Options{MaxEvals: 6000})
		if err != nil {
			t.Fatal(err)
		}
		if p.outside != 0 || !sameFloatsTol(res.X, want, 1e-6) || res.Restarts == 0 {
			t.Errorf("%s: %d of %d points outside the box, best %v, %d restarts", name, p.outside, p.evals, res.X, res.Restarts)
		}
		whole, resumed := mk(), mk()
		var pop linalg.Dense
		for g := 0; g < 3000 && whole.Stop() == "" && restartsOf(whole) < 3; g++ {
			askTellGeneration(t, whole, f, &pop)
			askTellGeneration(t, resumed, f, &pop)
			if g%13 == 5 {
				resumed = stReload(t, resumed)
			}
		}
		x1, f1 := whole.Best()
		x2, f2 := resumed.Best()
		if fmt.Sprint(x1, f1, whole.Evals()) != fmt.Sprint(x2, f2, resumed.Evals()) || restartsOf(whole) == 0 {
			t.Errorf("%s: resumed %v %v, uninterrupted %v %v (%d restarts)", name, x2, f2, x1, f1, restartsOf(whole))
		}
	}
}

// BenchmarkSearchMap measures the map of a strategy's search points on the
// box of BenchmarkBoundsMap, the map every bounded Ask applies to each row.
func BenchmarkSearchMap(b *testing.B) {
	bd, x := bdFolding(100)
	s, err := New(HEES, Config{Dim: len(x), Seed: 1, Bounds: bd})
	if err != nil {
		b.Fatal(err)
	}
	m := penaltyCore(s).out
	y := make([]float64, len(x))
	for b.Loop() {
		m.apply(y, x)
	}
}
