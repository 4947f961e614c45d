package objectives

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// This file holds the evaluators of BBOB f1-f24 (docs/BBOB.md §5-6). Each
// reads x, writes only into work (len(work) == workLen) and returns the full
// COCO value, fopt included. Transforms are applied in COCO's order, the
// outermost wrapper first, and every product that feeds a sum is rounded
// explicitly so that no platform fuses it.

// tosz is the oscillation transform Tosz of docs/BBOB.md §5, in COCO's scaled form
// (α = 0.1).
func tosz(x float64) float64 {
	const alpha = 0.1
	switch {
	case x > 0:
		t := xmath.Log(x) / alpha
		return xmath.Pow(xmath.Exp(t+float64(0.49*(xmath.Sin(t)+xmath.Sin(0.79*t)))), alpha)
	case x < 0:
		t := xmath.Log(-x) / alpha
		return -xmath.Pow(xmath.Exp(t+float64(0.49*(xmath.Sin(0.55*t)+xmath.Sin(0.31*t)))), alpha)
	}
	return x
}

// tasy is Tasy^β of docs/BBOB.md §5 for one coordinate: x^(1 + c·sqrt(x)) for
// x > 0, with c = β·i/(D−1) precomputed; x otherwise.
func tasy(x, c float64) float64 {
	if x > 0 {
		return xmath.Pow(x, 1+float64(c*math.Sqrt(x)))
	}
	return x
}

// bbobPenalty is fpen(x) = Σ max(0, |x_i| − 5)² (docs/BBOB.md §5).
func bbobPenalty(x []float64) float64 {
	p := 0.0
	for _, v := range x {
		if d := math.Abs(v) - bbobBound; d > 0 {
			p += float64(d * d)
		}
	}
	return p
}

// shift writes x − xopt into dst.
func shift(dst, x, xopt []float64) {
	for i, v := range x {
		dst[i] = v - xopt[i]
	}
}

// affineRow returns b + Σ_c x_c·row_c, summed in order starting from b
// (COCO's affine transform, docs/BBOB.md §4).
func affineRow(row, x []float64, b float64) float64 {
	s := b
	for c, v := range x {
		s += float64(v * row[c])
	}
	return s
}

// mulRows writes m·x into dst for a row-major len(dst)×len(x) matrix m.
func mulRows(dst, m, x []float64) {
	n := len(x)
	for r := range dst {
		dst[r] = affineRow(m[r*n:r*n+n], x, 0)
	}
}

// rastriginRaw is the Rastrigin core 10·(D − Σ cos 2πz_i) + Σ z_i², with
// sumCos = Σ cos 2πz_i and sumSq = Σ z_i² (docs/BBOB.md §6, f3). An infinite Σ z²
// is returned as it is (cos of an infinite z is NaN).
func rastriginRaw(sumCos, sumSq float64, dim int) float64 {
	if math.IsInf(sumSq, 1) {
		return sumSq
	}
	return float64(10*(float64(dim)-sumCos)) + sumSq
}

// level accumulates COCO's check of one intermediate vector, element by
// element (bbobData.checks): an infinity anywhere gives +Inf, otherwise a
// NaN anywhere gives NaN.
type level struct{ inf, nan bool }

// add checks one element.
func (l *level) add(v float64) {
	if math.IsInf(v, 0) {
		l.inf = true
	} else if v != v {
		l.nan = true
	}
}

// value returns the value COCO gives and whether the vector had a special
// element.
func (l *level) value() (float64, bool) {
	switch {
	case l.inf:
		return math.Inf(1), true
	case l.nan:
		return math.NaN(), true
	}
	return 0, false
}

// overflowed reports, for a problem with checks, whether v is infinite: an
// elementwise transformation of a finite vector gives no NaN, and an
// infinity anywhere in a level gives +Inf.
func (b *bbobData) overflowed(v float64) bool {
	return b.checks && math.IsInf(v, 0)
}

// checked reports COCO's value for the intermediate vector v of a problem
// with checks.
func (b *bbobData) checked(v []float64) (float64, bool) {
	if !b.checks {
		return 0, false
	}
	return special(v)
}

// f1 Sphere: z = x − xopt, f = Σ z² + fopt.
func (b *bbobData) f1(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		z := v - b.xopt[i]
		s += float64(z * z)
	}
	return s + b.fopt
}

// f2 Ellipsoid: z = Tosz(x − xopt), f = Σ pow(1e6, t_i)·z_i² + fopt.
func (b *bbobData) f2(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		z := tosz(v - b.xopt[i])
		if b.overflowed(z) {
			return math.Inf(1)
		}
		s += float64(b.coef[i] * z * z)
	}
	return s + b.fopt
}

// f3 Rastrigin: z = Λ^10·Tasy^0.2(Tosz(x − xopt)).
func (b *bbobData) f3(x, _ []float64) float64 {
	sumCos, sumSq := 0.0, 0.0
	for i, v := range x {
		y := tosz(v - b.xopt[i])
		u := tasy(y, b.coef2[i])
		z := b.coef[i] * u
		if b.overflowed(y) || b.overflowed(u) || b.overflowed(z) {
			return math.Inf(1)
		}
		sumCos += xmath.Cos(2 * math.Pi * z)
		sumSq += float64(z * z)
	}
	return rastriginRaw(sumCos, sumSq, b.dim) + b.fopt
}

// f4 Büche–Rastrigin: y = Tosz(x − xopt), z_i = sqrt(10)^(t_i)·y_i, times
// 10 more where y_i > 0 and i is even; f = raw + fopt + 100·fpen(x).
func (b *bbobData) f4(x, _ []float64) float64 {
	sumCos, sumSq := 0.0, 0.0
	for i, v := range x {
		y := tosz(v - b.xopt[i])
		factor := b.coef[i]
		if y > 0 && i%2 == 0 {
			factor *= 10
		}
		z := factor * y
		if b.overflowed(y) || b.overflowed(z) {
			return math.Inf(1)
		}
		sumCos += xmath.Cos(2 * math.Pi * z)
		sumSq += float64(z * z)
	}
	return rastriginRaw(sumCos, sumSq, b.dim) + b.fopt + float64(100*bbobPenalty(x))
}

// f5 Linear slope: Σ 5|s_i| − s_i·x_i, with x_i replaced by the corner
// xopt_i outside the box on the optimum's side.
func (b *bbobData) f5(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		si, opt := b.coef[i], b.best[i]
		if float64(v*opt) < 25 {
			s += float64(5*math.Abs(si)) - float64(si*v)
		} else {
			s += float64(5*math.Abs(si)) - float64(si*opt)
		}
	}
	return s + b.fopt
}

// f6 Attractive sector: z = M·(x − xopt), M = R·Λ^10·Q;
// f = Tosz(Σ (s_i z_i)²)^0.9 + fopt with s_i = 100 where z_i·xopt_i > 0.
func (b *bbobData) f6(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	s := 0.0
	var l level
	for r := range n {
		z := affineRow(b.mat[r*n:r*n+n], y, 0)
		l.add(z)
		if float64(z*b.xopt[r]) > 0 {
			s += float64(sectorFactor * sectorFactor * z * z)
		} else {
			s += float64(z * z)
		}
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	return xmath.Pow(tosz(s), 0.9) + b.fopt
}

// f7 Step ellipsoid: ẑ = Λ^10·Q·(x − xopt), rounded to z̃, z = R·z̃;
// f = 0.1·max(|ẑ_0|/10^4, Σ 100^(t_i) z_i²) + penalty·fpen(x) + fopt
// (penalty 1; 0 in f113-f115).
func (b *bbobData) f7(x, work []float64) float64 {
	n := b.dim
	zt := work[:n]
	for r := range n {
		row := b.rotQ[r*n : r*n+n]
		s := 0.0
		for c, v := range x {
			s += float64(row[c] * (v - b.xopt[c]))
		}
		zt[r] = s
	}
	first := zt[0]
	for i, v := range zt {
		if math.Abs(v) > 0.5 {
			zt[i] = math.Floor(v + 0.5)
		} else {
			zt[i] = math.Floor(float64(10*v)+0.5) / 10
		}
	}
	s := 0.0
	for r := range n {
		z := affineRow(b.rot[r*n:r*n+n], zt, 0)
		s += float64(b.coef[r] * z * z)
	}
	return float64(0.1*max(math.Abs(first)/1e4, s)) + float64(b.penalty*bbobPenalty(x)) + b.fopt
}

// rosenbrockRaw is Σ_{i<D−1} 100(z_i² − z_{i+1})² + (1 − z_i)², summed as
// 100·s1 + s2 as COCO does.
func rosenbrockRaw(z []float64) float64 {
	s1, s2 := 0.0, 0.0
	for i := 0; i+1 < len(z); i++ {
		c1 := float64(z[i]*z[i]) - z[i+1]
		c2 := 1 - z[i]
		s1 += float64(c1 * c1)
		s2 += float64(c2 * c2)
	}
	return float64(100*s1) + s2
}

// f8 Rosenbrock: z = c·(x − xopt) + 1, c = max(1, sqrt(D)/8).
func (b *bbobData) f8(x, _ []float64) float64 {
	c := b.scalar
	s1, s2 := 0.0, 0.0
	z := float64(c*(x[0]-b.xopt[0])) + 1
	for i := 1; i < len(x); i++ {
		next := float64(c*(x[i]-b.xopt[i])) + 1
		c1 := float64(z*z) - next
		c2 := 1 - z
		s1 += float64(c1 * c1)
		s2 += float64(c2 * c2)
		z = next
	}
	return float64(100*s1) + s2 + b.fopt
}

// f9 Rosenbrock rotated: z = c·Q·x + 0.5.
func (b *bbobData) f9(x, work []float64) float64 {
	n := b.dim
	z := work[:n]
	for r := range n {
		z[r] = affineRow(b.mat[r*n:r*n+n], x, 0.5)
	}
	if v, bad := b.checked(z); bad {
		return v
	}
	return rosenbrockRaw(z) + b.fopt
}

// f10 Ellipsoid rotated: z = Tosz(R·(x − xopt)).
func (b *bbobData) f10(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	s := 0.0
	var rotated, oscillated level
	for r := range n {
		u := affineRow(b.rot[r*n:r*n+n], y, 0)
		z := tosz(u)
		rotated.add(u)
		oscillated.add(z)
		s += float64(b.coef[r] * z * z)
	}
	if b.checks {
		if v, bad := rotated.value(); bad {
			return v
		}
		if v, bad := oscillated.value(); bad {
			return v
		}
	}
	return s + b.fopt
}

// f11 Discus: z = Tosz(R·(x − xopt)), f = 10^6 z_0² + Σ_{i≥1} z_i².
func (b *bbobData) f11(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	var rotated, oscillated level
	u0 := affineRow(b.rot[:n], y, 0)
	z0 := tosz(u0)
	rotated.add(u0)
	oscillated.add(z0)
	s := float64(condDiscus * z0 * z0)
	for r := 1; r < n; r++ {
		u := affineRow(b.rot[r*n:r*n+n], y, 0)
		z := tosz(u)
		rotated.add(u)
		oscillated.add(z)
		s += float64(z * z)
	}
	if b.checks {
		if v, bad := rotated.value(); bad {
			return v
		}
		if v, bad := oscillated.value(); bad {
			return v
		}
	}
	return s + b.fopt
}

// f12 Bent cigar: z = R·Tasy^0.5(R·(x − xopt)),
// f = z_0² + Σ_{i≥1} 10^6 z_i².
func (b *bbobData) f12(x, work []float64) float64 {
	n := b.dim
	y, u := work[:n], work[n:2*n]
	shift(y, x, b.xopt)
	mulRows(u, b.rot, y)
	if v, bad := b.checked(u); bad {
		return v
	}
	for i, v := range u {
		u[i] = tasy(v, b.coef2[i])
	}
	if v, bad := b.checked(u); bad {
		return v
	}
	var l level
	z0 := affineRow(b.rot[:n], u, 0)
	l.add(z0)
	s := float64(z0 * z0)
	for r := 1; r < n; r++ {
		z := affineRow(b.rot[r*n:r*n+n], u, 0)
		l.add(z)
		s += float64(condBentCigar * z * z)
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	return s + b.fopt
}

// f13 Sharp ridge: z = M·(x − xopt), M = R·Λ^10·Q;
// f = z_0² + 100·sqrt(Σ_{i≥1} z_i²).
func (b *bbobData) f13(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	var l level
	z0 := affineRow(b.mat[:n], y, 0)
	l.add(z0)
	s := 0.0
	for r := 1; r < n; r++ {
		z := affineRow(b.mat[r*n:r*n+n], y, 0)
		l.add(z)
		s += float64(z * z)
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	return float64(z0*z0) + float64(ridgeFactor*math.Sqrt(s)) + b.fopt
}

// f14 Different powers: z = R·(x − xopt), f = sqrt(Σ |z_i|^(2 + 4·t_i)).
func (b *bbobData) f14(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	s := 0.0
	var l level
	for r := range n {
		z := affineRow(b.rot[r*n:r*n+n], y, 0)
		l.add(z)
		s += xmath.Pow(math.Abs(z), b.coef[r])
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	return math.Sqrt(s) + b.fopt
}

// f15 Rastrigin rotated: z = M·Tasy^0.2(Tosz(R·(x − xopt))), M = R·Λ^10·Q.
func (b *bbobData) f15(x, work []float64) float64 {
	n := b.dim
	y, u := work[:n], work[n:2*n]
	shift(y, x, b.xopt)
	mulRows(u, b.rot, y)
	if v, bad := b.checked(u); bad {
		return v
	}
	for i, v := range u {
		z := tosz(v)
		u[i] = tasy(z, b.coef2[i])
		if b.overflowed(z) {
			return math.Inf(1)
		}
	}
	if v, bad := b.checked(u); bad {
		return v
	}
	sumCos, sumSq := 0.0, 0.0
	var l level
	for r := range n {
		z := affineRow(b.mat[r*n:r*n+n], u, 0)
		l.add(z)
		sumCos += xmath.Cos(2 * math.Pi * z)
		sumSq += float64(z * z)
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	return rastriginRaw(sumCos, sumSq, n) + b.fopt
}

// f16 Weierstrass: z = M·Tosz(R·(x − xopt)), M = R·Λ^(1/100)·Q;
// f = 10·((1/D)·Σ_i Σ_k a_k cos(2π b_k (z_i + 0.5)) − f0)³ + fopt
// + (10/D)·fpen(x), with a_k = coef[k], b_k = coef2[k], f0 = scalar.
func (b *bbobData) f16(x, work []float64) float64 {
	n := b.dim
	y, u := work[:n], work[n:2*n]
	shift(y, x, b.xopt)
	mulRows(u, b.rot, y)
	if v, bad := b.checked(u); bad {
		return v
	}
	for i, v := range u {
		u[i] = tosz(v)
	}
	if v, bad := b.checked(u); bad {
		return v
	}
	s := 0.0
	var l level
	for r := range n {
		z := affineRow(b.mat[r*n:r*n+n], u, 0)
		l.add(z)
		for k, a := range b.coef {
			s += float64(xmath.Cos(2*math.Pi*(z+0.5)*b.coef2[k]) * a)
		}
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	raw := float64(10 * xmath.Pow(s/float64(n)-b.scalar, 3))
	return raw + b.fopt + float64(10/float64(n)*bbobPenalty(x))
}

// f17 and f18 Schaffers F7: z = Λ^c·Q·Tasy^0.5(R·(x − xopt)), s_i = z_i² +
// z_{i+1}², f = ((1/(D−1)) Σ s_i^0.25·(1 + sin²(50·s_i^0.1)))² + fopt
// + penalty·fpen(x) (penalty 10; 0 in f122-f124). mat holds Λ^c·Q.
func (b *bbobData) f17(x, work []float64) float64 {
	n := b.dim
	y, u := work[:n], work[n:2*n]
	shift(y, x, b.xopt)
	mulRows(u, b.rot, y)
	if v, bad := b.checked(u); bad {
		return v
	}
	for i, v := range u {
		u[i] = tasy(v, b.coef2[i])
	}
	if v, bad := b.checked(u); bad {
		return v
	}
	zs := y // x − xopt is no longer needed
	mulRows(zs, b.mat, u)
	if v, bad := b.checked(zs); bad {
		return v
	}
	s := 0.0
	z := zs[0]
	for r := 1; r < n; r++ {
		next := zs[r]
		t := float64(z*z) + float64(next*next)
		if math.IsInf(t, 1) {
			// COCO returns the infinite s_i itself (sin(∞) is NaN).
			return t
		}
		sn := xmath.Sin(50 * xmath.Pow(t, 0.1))
		s += float64(xmath.Pow(t, 0.25) * (1 + float64(sn*sn)))
		z = next
	}
	m := s / float64(n-1)
	return float64(m*m) + b.fopt + float64(b.penalty*bbobPenalty(x))
}

// f19 Griewank–Rosenbrock: z = c·Q·x + 0.5, s_i = 100(z_i² − z_{i+1})² +
// (z_i − 1)², f = a + a·Σ (s_i/4000 − cos s_i)/(D−1) + fopt with a =
// scalar (10; 1 in f125-f127).
func (b *bbobData) f19(x, work []float64) float64 {
	n := b.dim
	z := work[:n]
	for r := range n {
		z[r] = affineRow(b.mat[r*n:r*n+n], x, 0) + 0.5
	}
	if v, bad := b.checked(z); bad {
		return v
	}
	s := 0.0
	for i := 0; i+1 < n; i++ {
		c1 := float64(z[i]*z[i]) - z[i+1]
		c2 := 1 - z[i]
		t := float64(100*c1*c1) + float64(c2*c2)
		s += t/4000 - xmath.Cos(t)
	}
	return b.scalar + float64(b.scalar*s)/float64(n-1) + b.fopt
}

// f20 Schwefel: x̂ = 2·sign ⊙ x, ẑ_i = x̂_i + 0.25·(x̂_{i−1} − 2|xopt_{i−1}|),
// z = 100·(Λ^10(ẑ − 2|xopt|) + 2|xopt|);
// f = 0.01·(Σ max(0, |z_i| − 500)² + 418.98… − (1/D) Σ z_i sin sqrt|z_i|) + fopt.
func (b *bbobData) f20(x, _ []float64) float64 {
	pen, sum := 0.0, 0.0
	prev := 0.0 // x̂_{i−1} − 2|xopt_{i−1}|
	for i, v := range x {
		xo := b.xopt[i]
		xh := float64(2 * v)
		if xo < 0 {
			xh = -xh
		}
		zh := xh
		if i > 0 {
			zh = xh + float64(0.25*prev)
		}
		twice := 2 * math.Abs(xo)
		prev = xh - twice
		c := zh - twice
		t := float64(b.coef[i] * c)
		u := t + twice
		z := 100 * u
		if b.overflowed(xh) || b.overflowed(zh) || b.overflowed(c) || b.overflowed(t) || b.overflowed(u) || b.overflowed(z) {
			return math.Inf(1)
		}
		if d := math.Abs(z) - 500; d > 0 {
			pen += float64(d * d)
		}
		sum += float64(z * xmath.Sin(math.Sqrt(math.Abs(z))))
	}
	return float64(0.01*(pen+schwefelOffset-sum/float64(len(x)))) + b.fopt
}

// fGallagher is f21 and f22: x̃ = Q·x,
// G = max_i w_i·exp(−(0.5/D)·Σ_j c_ij (x̃_j − ỹ_ij)²),
// f = Tosz(10 − G)² + penalty·fpen(x) + fopt (penalty 1; 0 in f128-f130).
func (b *bbobData) fGallagher(x, work []float64) float64 {
	n := b.dim
	xt := work[:n]
	mulRows(xt, b.rotQ, x)
	fac := -0.5 / float64(n)
	g := 0.0
	for i, w := range b.peakHeight {
		scale, loc := b.peakScale[i*n:i*n+n], b.peakLoc[i*n:i*n+n]
		s := 0.0
		for j, v := range xt {
			d := v - loc[j]
			s += float64(scale[j] * d * d)
		}
		g = max(g, w*xmath.Exp(fac*s))
	}
	t := tosz(10 - g)
	return float64(t*t) + float64(b.penalty*bbobPenalty(x)) + b.fopt
}

// f23 Katsuura: z = M·(x − xopt), M = R·Λ^100·Q;
// f = (10/D²)·(Π_i (1 + (i+1)·T_i)^(10/D^1.2) − 1) + fopt + fpen(x) with
// T_i = Σ_{j=1..32} |2^j z_i − round(2^j z_i)|/2^j. The power is taken per
// factor, as COCO does.
func (b *bbobData) f23(x, work []float64) float64 {
	n := b.dim
	y := work[:n]
	shift(y, x, b.xopt)
	prod := 1.0
	var l level
	for r := range n {
		z := affineRow(b.mat[r*n:r*n+n], y, 0)
		l.add(z)
		t := 0.0
		scale := 1.0
		for range katsuuraTerms {
			scale *= 2
			v := float64(scale * z)
			t += math.Abs(v-math.Floor(v+0.5)) / scale
		}
		prod *= xmath.Pow(1+float64(float64(r+1)*t), b.scalar)
	}
	if v, bad := l.value(); bad && b.checks {
		return v
	}
	d := float64(n)
	return float64(10/d/d*(prod-1)) + b.fopt + bbobPenalty(x)
}

// f24 Lunacek bi-Rastrigin: x̂ = 2·sign(xopt) ⊙ x, z = R·Λ^100·Q·(x̂ − μ0);
// f = min(Σ(x̂_i − μ0)², D + s·Σ(x̂_i − μ1)²) + 10·(D − Σ cos 2πz_i)
// + 10^4·fpen(x) + fopt, with s = scalar and μ1 = scalar2.
func (b *bbobData) f24(x, work []float64) float64 {
	n := b.dim
	xh, t := work[:n], work[n:2*n]
	sum1, sum2 := 0.0, 0.0
	for i, v := range x {
		h := float64(2 * v)
		if b.xopt[i] < 0 {
			h = -h
		}
		xh[i] = h
		d0, d1 := h-lunacekMu0, h-b.scalar2
		sum1 += float64(d0 * d0)
		sum2 += float64(d1 * d1)
	}
	for r := range n {
		row := b.mat[r*n : r*n+n]
		s := 0.0
		for c, h := range xh {
			s += float64(row[c] * (h - lunacekMu0))
		}
		t[r] = s
	}
	sumCos := 0.0
	for r := range n {
		z := affineRow(b.rot[r*n:r*n+n], t, 0)
		sumCos += xmath.Cos(2 * math.Pi * z)
	}
	d := float64(n)
	raw := min(sum1, float64(lunacekD*d)+float64(b.scalar*sum2)) + float64(10*(d-sumCos)) + float64(1e4*bbobPenalty(x))
	return raw + b.fopt
}
