package objectives

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// This file holds the evaluators of bbob-largescale f1-f24 (docs/BBOB.md
// §9). Each reads x (already free of infinities and NaNs), writes only into
// work (len(work) == workLen) and returns COCO's value, fopt included.
// Transforms act in COCO's order, the outermost wrapper first, with COCO's
// check between two of them: an intermediate vector holding an infinity or a
// NaN ends the evaluation with +Inf or NaN (special), as COCO's
// coco_evaluate_function does at each level. Every product that feeds a sum
// is rounded explicitly.

// cocoMax is COCO's coco_double_max (a >= b ? a : b), whose NaN handling
// differs from the built-in max.
func cocoMax(a, b float64) float64 {
	if a >= b {
		return a
	}
	return b
}

// cocoMin is COCO's coco_double_min (a <= b ? a : b).
func cocoMin(a, b float64) float64 {
	if a <= b {
		return a
	}
	return b
}

// boxPenalty is COCO's transform_obj_penalize term for the box [−5, 5]^d:
// Σ (x_i − 5)² over x_i > 5 plus Σ (−5 − x_i)² over x_i < −5.
func boxPenalty(x []float64) float64 {
	p := 0.0
	for _, v := range x {
		if c := v - bbobBound; c > 0 {
			p += float64(c * c)
		} else if c := -bbobBound - v; c > 0 {
			p += float64(c * c)
		}
	}
	return p
}

// sumSquares is Σ v_i², summed in order from 0.
func sumSquares(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x * x)
	}
	return s
}

// scaled writes c_i·v_i into v (COCO's conditioning transform).
func scaled(v, c []float64) {
	for i, x := range v {
		v[i] = c[i] * x
	}
}

// oscillated writes Tosz(v_i) into v.
func oscillated(v []float64) {
	for i, x := range v {
		v[i] = tosz(x)
	}
}

// asymmetric writes Tasy(v_i) into v, with the coefficients c.
func asymmetric(v, c []float64) {
	for i, x := range v {
		v[i] = tasy(x, c[i])
	}
}

// shortAxes is ⌈d/40⌉, the number of special axes of f11, f12 and f13.
func shortAxes(dim int) int {
	return (dim + lsShortAxesDenom - 1) / lsShortAxesDenom
}

// f1 Sphere: f = N·Σ (x − xopt)² + fopt, N = min(1, 40/d).
func (b *lsData) f1(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		z := v - b.xopt[i]
		s += float64(z * z)
	}
	return float64(s*b.norm) + b.fopt
}

// f2 Ellipsoid: z = Tosz(x − xopt), f = N·Σ pow(1e6, t_i)·z_i² + fopt.
func (b *lsData) f2(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		z := tosz(v - b.xopt[i])
		if math.IsInf(z, 0) {
			return math.Inf(1)
		}
		s += float64(b.coef[i] * z * z)
	}
	return float64(s*b.norm) + b.fopt
}

// f3 Rastrigin: z = Λ^10·Tasy^0.2(Tosz(x − xopt)), f = N·raw + fopt.
func (b *lsData) f3(x, _ []float64) float64 {
	n := len(x)
	sumCos, sumSq := 0.0, 0.0
	for i, v := range x {
		z := tosz(v - b.xopt[i])
		if math.IsInf(z, 0) {
			return math.Inf(1)
		}
		if z = tasy(z, b.coef2[i]); math.IsInf(z, 0) {
			return math.Inf(1)
		}
		if z = b.coef[i] * z; math.IsInf(z, 0) {
			return math.Inf(1)
		}
		sumCos += xmath.Cos(2 * math.Pi * z)
		sumSq += float64(z * z)
	}
	return float64(rastriginRaw(sumCos, sumSq, n)*b.norm) + b.fopt
}

// f4 Büche–Rastrigin: y = Tosz(x − xopt), z_i = sqrt(10)^(t_i)·y_i, times
// 10 where y_i > 0 and i is even; f = (N·raw + fopt) + 100·fpen(x). COCO's
// raw part has no special case for an infinite Σ z².
func (b *lsData) f4(x, _ []float64) float64 {
	n := len(x)
	sumCos, sumSq := 0.0, 0.0
	for i, v := range x {
		y := tosz(v - b.xopt[i])
		if math.IsInf(y, 0) {
			return math.Inf(1)
		}
		factor := b.coef[i]
		if y > 0 && i%2 == 0 {
			factor *= 10
		}
		z := factor * y
		if math.IsInf(z, 0) {
			return math.Inf(1)
		}
		sumCos += xmath.Cos(2 * math.Pi * z)
		sumSq += float64(z * z)
	}
	raw := float64(10*(float64(n)-sumCos)) + sumSq
	return float64(raw*b.norm) + b.fopt + float64(100*boxPenalty(x))
}

// f5 Linear slope: Σ 5|s_i| − s_i·x_i (the corner's value outside the box
// on the optimum's side); f = N·raw + fopt.
func (b *lsData) f5(x, _ []float64) float64 {
	s := 0.0
	for i, v := range x {
		si, opt := b.coef[i], b.best[i]
		if float64(v*opt) < 25 {
			s += float64(5*math.Abs(si)) - float64(si*v)
		} else {
			s += float64(5*math.Abs(si)) - float64(si*opt)
		}
	}
	return float64(s*b.norm) + b.fopt
}

// f6 Attractive sector: z = S2·Λ^10·S1·(x − xopt) with S1, S2 the permuted
// block rotations; f = Tosz(N·Σ (s_i z_i)²)^0.9 + fopt, s_i = 100 where
// z_i·xopt_i > 0. COCO applies the objective transforms inside the
// rotations, so an infinite intermediate vector gives +Inf itself.
func (b *lsData) f6(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	scaled(z, b.coef)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	s := 0.0
	for i, v := range y {
		if float64(b.xopt[i]*v) > 0 {
			s += float64(sectorFactor * sectorFactor * v * v)
		} else {
			s += float64(v * v)
		}
	}
	return xmath.Pow(tosz(float64(s*b.norm)), 0.9) + b.fopt
}

// f7 Step ellipsoid: ẑ = Λ^10·S1·(x − xopt), rounded to z̃ (COCO's
// round_step, which records |ẑ_0|·d), z = S2·z̃;
// f = (N·0.1·max(|ẑ_0|·d·1e−4, Σ 100^(t_i) z_i²) + fpen(x)) + fopt.
func (b *lsData) f7(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	scaled(z, b.coef)
	if v, bad := special(z); bad {
		return v
	}
	zhat := float64(math.Abs(z[0]) * float64(n))
	for i, v := range z {
		if math.Abs(v) > 0.5 {
			z[i] = math.Floor(v + 0.5)
		} else {
			z[i] = math.Floor(float64(10*v)+0.5) / 10
		}
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	s := 0.0
	for i, v := range y {
		s += float64(b.coef2[i] * v * v)
	}
	core := float64(0.1 * cocoMax(float64(zhat*1e-4), s))
	return float64(core*b.norm) + boxPenalty(x) + b.fopt
}

// rosenbrockSums is COCO's Rosenbrock core 100·Σ (z_i² − z_{i+1})² +
// Σ (z_i − 1)².
func rosenbrockSums(z []float64) float64 {
	s1, s2 := 0.0, 0.0
	for i := 0; i+1 < len(z); i++ {
		c1 := float64(z[i]*z[i]) - z[i+1]
		c2 := z[i] - 1
		s1 += float64(c1 * c1)
		s2 += float64(c2 * c2)
	}
	return float64(100*s1) + s2
}

// f8 Rosenbrock: z = (x − xopt) + 1 (COCO's factor max(1, sqrt(40)/8) is
// 1), f = N·raw + fopt.
func (b *lsData) f8(x, _ []float64) float64 {
	s1, s2 := 0.0, 0.0
	z := (x[0] - b.xopt[0]) + 1
	for i := 1; i < len(x); i++ {
		next := (x[i] - b.xopt[i]) + 1
		c1 := float64(z*z) - next
		c2 := z - 1
		s1 += float64(c1 * c1)
		s2 += float64(c2 * c2)
		z = next
	}
	return float64((float64(100*s1)+s2)*b.norm) + b.fopt
}

// f9 Rosenbrock rotated: z = S·(x − xopt) + 1, f = N·raw + fopt.
func (b *lsData) f9(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	for i, v := range z {
		z[i] = v + 1
	}
	return float64(rosenbrockSums(z)*b.norm) + b.fopt
}

// rotatedTosz writes Tosz(S·(x − xopt)) into z; it reports the special
// value of the first level that has one.
func (b *lsData) rotatedTosz(x, work []float64) (z []float64, v float64, bad bool) {
	n := b.dim
	y, t := work[:n], work[2*n:]
	z = work[n : 2*n]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return nil, v, true
	}
	oscillated(z)
	if v, bad := special(z); bad {
		return nil, v, true
	}
	return z, 0, false
}

// f10 Ellipsoid: z = Tosz(S·(x − xopt)), f = N·Σ pow(1e6, t_i)·z_i² + fopt.
func (b *lsData) f10(x, work []float64) float64 {
	z, v, bad := b.rotatedTosz(x, work)
	if bad {
		return v
	}
	s := 0.0
	for i, v := range z {
		s += float64(b.coef[i] * v * v)
	}
	return float64(s*b.norm) + b.fopt
}

// f11 Discus: z = Tosz(S·(x − xopt)); the first k = ⌈d/40⌉ squares are
// summed and scaled by 1e6 together: f = N·(1e6·Σ_{i<k} z_i² +
// Σ_{i≥k} z_i²) + fopt.
func (b *lsData) f11(x, work []float64) float64 {
	z, v, bad := b.rotatedTosz(x, work)
	if bad {
		return v
	}
	k := shortAxes(b.dim)
	s := float64(sumSquares(z[:k]) * condDiscus)
	for _, v := range z[k:] {
		s += float64(v * v)
	}
	return float64(s*b.norm) + b.fopt
}

// f12 Bent cigar: z = S·Tasy^0.5(S·(x − xopt)), the same S twice;
// f = N·(Σ_{i<k} z_i² + Σ_{i≥k} 1e6·z_i²) + fopt, k = ⌈d/40⌉.
func (b *lsData) f12(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	asymmetric(z, b.coef2)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	k := shortAxes(n)
	s := sumSquares(y[:k])
	for _, v := range y[k:] {
		s += float64(condBentCigar * v * v)
	}
	return float64(s*b.norm) + b.fopt
}

// f13 Sharp ridge: z = S2·Λ^10·S1·(x − xopt);
// f = N·(100·sqrt(Σ_{i≥k} z_i²) + Σ_{i<k} z_i²) + fopt, k = ⌈d/40⌉.
func (b *lsData) f13(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	scaled(z, b.coef)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	k := shortAxes(n)
	s := float64(ridgeFactor * math.Sqrt(sumSquares(y[k:])))
	for _, v := range y[:k] {
		s += float64(v * v)
	}
	return float64(s*b.norm) + b.fopt
}

// f14 Different powers: z = S·(x − xopt), f = N·sqrt(Σ |z_i|^(2 + 4·t_i))
// + fopt.
func (b *lsData) f14(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	s := 0.0
	for i, v := range z {
		s += xmath.Pow(math.Abs(v), b.coef[i])
	}
	return float64(math.Sqrt(s)*b.norm) + b.fopt
}

// f15 Rastrigin rotated: z = S1·Λ^10·S2·Tasy^0.2(Tosz(S1·(x − xopt)));
// f = N·raw + fopt.
func (b *lsData) f15(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	oscillated(z)
	if v, bad := special(z); bad {
		return v
	}
	asymmetric(z, b.coef2)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	scaled(y, b.coef)
	if v, bad := special(y); bad {
		return v
	}
	b.stages[2].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	sumCos, sumSq := 0.0, 0.0
	for _, v := range z {
		sumCos += xmath.Cos(2 * math.Pi * v)
		sumSq += float64(v * v)
	}
	return float64(rastriginRaw(sumCos, sumSq, n)*b.norm) + b.fopt
}

// f16 Weierstrass: z = S1·Λ^(1/100)·S2·Tosz(S1·(x − xopt));
// f = (10·((1/d)·Σ_i Σ_k a_k cos(2π b_k (z_i + 0.5)) − f0)³ + (10/d)·fpen(x))
// + fopt. There is no normalisation by dimension.
func (b *lsData) f16(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	oscillated(z)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	scaled(y, b.coef)
	if v, bad := special(y); bad {
		return v
	}
	b.stages[2].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	s := 0.0
	for _, v := range z {
		for k, a := range b.wa {
			s += float64(xmath.Cos(2*math.Pi*(v+0.5)*b.wb[k]) * a)
		}
	}
	raw := float64(10 * xmath.Pow(s/float64(n)-b.scalar, 3))
	return raw + float64(10/float64(n)*boxPenalty(x)) + b.fopt
}

// f17 and f18 Schaffers F7: z = Λ^c·S2·Tasy^0.5(S1·(x − xopt)), c = 10 or
// 1000; f = (raw + 10·fpen(x)) + fopt, raw as in bbob's f17.
func (b *lsData) f17(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	asymmetric(z, b.coef2)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	scaled(y, b.coef)
	if v, bad := special(y); bad {
		return v
	}
	s := 0.0
	for i := 0; i+1 < n; i++ {
		u := float64(y[i]*y[i]) + float64(y[i+1]*y[i+1])
		if math.IsInf(u, 1) {
			return u // COCO returns the infinite s_i itself (sin(∞) is NaN)
		}
		sn := xmath.Sin(50 * xmath.Pow(u, 0.1))
		s += float64(xmath.Pow(u, 0.25) * (1 + float64(sn*sn)))
	}
	m := s / float64(n-1)
	return float64(m*m) + float64(10*boxPenalty(x)) + b.fopt
}

// f19 Griewank–Rosenbrock: z = S·x + 0.5 (no shift of x);
// f = 10 + 10·Σ (s_i/4000 − cos s_i)/(d−1) + fopt.
func (b *lsData) f19(x, work []float64) float64 {
	n := b.dim
	z, t := work[n:2*n], work[2*n:]
	b.stages[0].apply(z, x, t)
	if v, bad := special(z); bad {
		return v
	}
	for i, v := range z {
		z[i] = v + 0.5
	}
	s := 0.0
	for i := 0; i+1 < n; i++ {
		c1 := float64(z[i]*z[i]) - z[i+1]
		c2 := 1 - z[i]
		u := float64(100*c1*c1) + float64(c2*c2)
		s += u/4000 - xmath.Cos(u)
	}
	return 10 + float64(10*s)/float64(n-1) + b.fopt
}

// f20 Schwefel: bbob's f20 (docs/BBOB.md §6) with COCO's generalized
// constant 4.189828872724339·100 (scalar). An intermediate value that
// overflows gives +Inf, as at COCO's levels (no NaN can arise before).
func (b *lsData) f20(x, _ []float64) float64 {
	pen, sum := 0.0, 0.0
	prev := 0.0 // x̂_{i−1} − 2|xopt_{i−1}|
	for i, v := range x {
		xh := float64(2 * v)
		if b.sign[i] < 0 {
			xh = -xh
		}
		zh := xh
		if i > 0 {
			zh = xh + float64(0.25*prev)
		}
		twice := 2 * math.Abs(b.xopt[i])
		prev = xh - twice
		c := zh - twice
		t := float64(b.coef[i] * c)
		u := t + twice
		z := 100 * u
		if math.IsInf(xh, 0) || math.IsInf(zh, 0) || math.IsInf(c, 0) || math.IsInf(t, 0) || math.IsInf(u, 0) || math.IsInf(z, 0) {
			return math.Inf(1)
		}
		if d := math.Abs(z) - 500; d > 0 {
			pen += float64(d * d)
		}
		sum += float64(z * xmath.Sin(math.Sqrt(math.Abs(z))))
	}
	return float64(0.01*(pen+b.scalar-sum/float64(len(x)))) + b.fopt
}

// fGallagher is the large-scale f21 and f22: x̃ = B·x, peak j's value
// y_j = Σ_m (s_j·(c_jm·(x̃ − ỹ_j)[π_j⁻¹(m)]))², G = max_j w_j·exp(−y_j/(2d)),
// f = (Tosz(10 − G)² + fpen(x)) + fopt.
func (b *lsData) fGallagher(x, work []float64) float64 {
	n := b.dim
	xt := work[:n]
	b.stages[0].apply(xt, x, nil)
	if _, bad := special(xt); bad {
		return math.NaN() // Tosz(+Inf) and Tosz(NaN) are NaN
	}
	fac := -1.0 / (2.0 * float64(n))
	maxf := 0.0
	for j, w := range b.peakHeight {
		loc := b.peakLoc[j*n : (j+1)*n]
		inv := b.peakPerm[j*n : (j+1)*n]
		c := b.peakCond[j*n : (j+1)*n]
		sc := b.peakScale[j]
		s := 0.0
		for m, k := range inv {
			v := float64(sc * float64(c[m]*(xt[k]-loc[k])))
			s += float64(v * v)
		}
		y := w * xmath.Exp(float64(fac*s))
		if j == 0 || maxf < y {
			maxf = y
		}
	}
	t := tosz(10 - maxf)
	return float64(t*t) + boxPenalty(x) + b.fopt
}

// f23 Katsuura: z = S2·Λ^100·S1·(x − xopt);
// f = ((10/d²)·(Π_i (1 + (i+1)·T_i)^(10/d^1.2) − 1) + fpen(x)) + fopt.
func (b *lsData) f23(x, work []float64) float64 {
	n := b.dim
	y, z, t := work[:n], work[n:2*n], work[2*n:]
	shift(y, x, b.xopt)
	b.stages[0].apply(z, y, t)
	if v, bad := special(z); bad {
		return v
	}
	scaled(z, b.coef)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(y, z, t)
	if v, bad := special(y); bad {
		return v
	}
	prod := 1.0
	for r, v := range y {
		s := 0.0
		scale := 1.0
		for range katsuuraTerms {
			scale *= 2
			u := float64(scale * v)
			s += math.Abs(u-math.Floor(u+0.5)) / scale
		}
		prod *= xmath.Pow(1+float64(float64(r+1)*s), b.scalar)
	}
	d := float64(n)
	return float64(10/d/d*(prod-1)) + boxPenalty(x) + b.fopt
}

// f24 Lunacek bi-Rastrigin: x̂ = 2·sign ⊙ x, z = S2·Λ^100·S1·(x̂ − μ0);
// core = 10·(d − Σ cos 2πz_i) + min(Σ(x̂_i − μ0)², s·Σ(x̂_i − μ1)² + d)
// (the cosines subtracted one by one from d); f = (N·core + 1e4·fpen(x))
// + fopt, with s = scalar and μ1 = scalar2.
func (b *lsData) f24(x, work []float64) float64 {
	n := b.dim
	xh, u, z, t := work[:n], work[n:2*n], work[2*n:3*n], work[3*n:]
	for i, v := range x {
		xh[i] = float64(2*b.sign[i]) * v
	}
	if v, bad := special(xh); bad {
		return v
	}
	for i, h := range xh {
		u[i] = h - lunacekMu0
	}
	if v, bad := special(u); bad {
		return v
	}
	b.stages[0].apply(z, u, t)
	if v, bad := special(z); bad {
		return v
	}
	scaled(z, b.coef)
	if v, bad := special(z); bad {
		return v
	}
	b.stages[1].apply(u, z, t)
	if v, bad := special(u); bad {
		return v
	}
	z = u
	y0, y1 := 0.0, 0.0
	for _, h := range xh {
		d0, d1 := h-lunacekMu0, h-b.scalar2
		y0 += float64(d0 * d0)
		y1 += float64(d1 * d1)
	}
	y1 = float64(y1*b.scalar) + float64(n)
	core := float64(n)
	for _, v := range z {
		core -= xmath.Cos(2 * math.Pi * v)
	}
	core = float64(core*10) + cocoMin(y0, y1)
	return float64(core*b.norm) + float64(1e4*boxPenalty(x)) + b.fopt
}
