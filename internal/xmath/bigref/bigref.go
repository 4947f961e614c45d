// Package bigref provides slow, high-precision references for elementary
// functions, built on math/big's exactly rounded +, -, ×, ÷ and square root
// at Prec bits. The tests of internal/xmath measure true errors in ulps
// against it, and the table generators of xmath and rng use it, so that
// committed constant tables are the correctly rounded values of their
// definitions and regenerate to the same bits on every platform.
//
// Every function returns a new value and keeps no state; the results are
// accurate to about 2^-175 relative (bigref_test.go checks identities and
// published constants), far beyond the 2^-60 needed to measure errors in
// hundredths of an ulp.
package bigref

import (
	"math"
	"math/big"
)

// Prec is the working precision in bits.
const Prec = 200

// New returns x as a Prec-bit big.Float (exactly).
func New(x float64) *big.Float { return new(big.Float).SetPrec(Prec).SetFloat64(x) }

// Int returns n as a Prec-bit big.Float (exactly).
func Int(n int64) *big.Float { return new(big.Float).SetPrec(Prec).SetInt64(n) }

// Add returns a+b rounded to Prec bits.
func Add(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(Prec).Add(a, b) }

// Sub returns a-b rounded to Prec bits.
func Sub(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(Prec).Sub(a, b) }

// Mul returns a·b rounded to Prec bits.
func Mul(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(Prec).Mul(a, b) }

// Quo returns a/b rounded to Prec bits.
func Quo(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(Prec).Quo(a, b) }

// Sqrt returns √a rounded to Prec bits.
func Sqrt(a *big.Float) *big.Float { return new(big.Float).SetPrec(Prec).Sqrt(a) }

// negligible reports whether |term| is below 2^-(Prec+8)·|scale|.
func negligible(term, scale *big.Float) bool {
	if term.Sign() == 0 {
		return true
	}
	return term.MantExp(nil) < scale.MantExp(nil)-Prec-8
}

// atanh returns atanh(t) = t + t³/3 + t⁵/5 + ... for 0 < |t| <= 1/2.
func atanh(t *big.Float) *big.Float {
	t2 := Mul(t, t)
	sum, pow := Add(t, Int(0)), Add(t, Int(0))
	for k := int64(3); ; k += 2 {
		pow = Mul(pow, t2)
		term := Quo(pow, Int(k))
		sum = Add(sum, term)
		if negligible(term, sum) {
			return sum
		}
	}
}

// atanInv returns atan(1/n) = Σ (-1)^k / ((2k+1)·n^(2k+1)) for n >= 2, at
// prec bits.
func atanInv(n int64, prec uint) *big.Float {
	f := func(v int64) *big.Float { return new(big.Float).SetPrec(prec).SetInt64(v) }
	nn := f(n * n)
	pow := new(big.Float).SetPrec(prec).Quo(f(1), f(n))
	sum := new(big.Float).SetPrec(prec).Set(pow)
	for k := int64(1); ; k++ {
		pow.Quo(pow, nn)
		term := new(big.Float).SetPrec(prec).Quo(pow, f(2*k+1))
		if k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
		if term.MantExp(nil) < sum.MantExp(nil)-int(prec)-8 {
			return sum
		}
	}
}

// piPrec returns π at prec bits by Machin's formula 16·atan(1/5) -
// 4·atan(1/239).
func piPrec(prec uint) *big.Float {
	a := new(big.Float).SetPrec(prec).Mul(atanInv(5, prec), new(big.Float).SetInt64(16))
	b := new(big.Float).SetPrec(prec).Mul(atanInv(239, prec), new(big.Float).SetInt64(4))
	return a.Sub(a, b)
}

// TwoOverPiBits returns the first 64·n bits of the binary fraction of 2/π
// (which is below 1) as n words, most significant first: word k holds bits
// 64k+1 .. 64k+64 after the binary point.
func TwoOverPiBits(n int) []uint64 {
	prec := uint(64*n + 128)
	v := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetInt64(2), piPrec(prec))
	words := make([]uint64, n)
	for k := range words {
		v.SetMantExp(v, 64) // v in [0, 2^64)
		w, _ := v.Uint64()  // truncates
		words[k] = w
		v.Sub(v, new(big.Float).SetUint64(w))
	}
	return words
}

// Ln2 returns ln 2 = 2·atanh(1/3).
func Ln2() *big.Float { return Mul(Int(2), atanh(Quo(Int(1), Int(3)))) }

// Pi returns π by Machin's formula 16·atan(1/5) - 4·atan(1/239).
func Pi() *big.Float { return piPrec(Prec) }

// Log returns the natural logarithm of x > 0: x = 2^e·m with m in
// [1/√2, √2), log x = e·ln2 + 2·atanh((m-1)/(m+1)).
func Log(x *big.Float) *big.Float {
	if x.Sign() <= 0 {
		panic("bigref: Log of a non-positive number")
	}
	m := new(big.Float).SetPrec(Prec)
	e := x.MantExp(m) // x = m·2^e, m in [0.5, 1)
	if m.Cmp(New(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	one := Int(1)
	var lm *big.Float
	if m.Cmp(one) == 0 {
		lm = Int(0)
	} else {
		lm = Mul(Int(2), atanh(Quo(Sub(m, one), Add(m, one))))
	}
	if e == 0 {
		return lm
	}
	return Add(Mul(Int(int64(e)), Ln2()), lm)
}

// Exp returns e**x for |x| < 2^20: x = k·ln2 + r with |r| <= ln2/2, then
// exp(r) = (Taylor series of exp(r/2^16))^(2^16), scaled by 2^k.
func Exp(x *big.Float) *big.Float {
	ln2 := Ln2()
	kf, _ := Quo(x, ln2).Float64()
	k := math.RoundToEven(kf)
	r := Sub(x, Mul(New(k), ln2))
	const halvings = 16
	r.SetMantExp(r, -halvings)
	sum, term := Int(1), Int(1)
	for n := int64(1); ; n++ {
		term = Quo(Mul(term, r), Int(n))
		sum = Add(sum, term)
		if negligible(term, sum) {
			break
		}
	}
	for range halvings {
		sum = Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// SinCos returns sin x and cos x for any finite x: x = k·π/2 + r with
// |r| <= π/4 (π carried to Prec bits more than the exponent of x), Taylor
// series of sin r and cos r, then the quadrant k mod 4.
func SinCos(x *big.Float) (sin, cos *big.Float) {
	prec := uint(Prec + max(0, x.MantExp(nil)))
	halfPi := piPrec(prec)
	halfPi.SetMantExp(halfPi, -1)
	kf := new(big.Float).SetPrec(prec).Quo(x, halfPi)
	ki, _ := kf.Int(nil) // truncation toward zero
	// Round to nearest.
	k := new(big.Float).SetPrec(prec).SetInt(ki)
	if d := new(big.Float).SetPrec(prec).Sub(kf, k); d.Cmp(New(0.5)) > 0 {
		k.Add(k, Int(1))
	} else if d.Cmp(New(-0.5)) < 0 {
		k.Sub(k, Int(1))
	}
	r := new(big.Float).SetPrec(prec).Mul(k, halfPi)
	r.Sub(x, r)
	r.SetPrec(Prec)
	r2 := Mul(r, r)
	s, c := Add(r, Int(0)), Int(1)
	ts, tc := Add(r, Int(0)), Int(1)
	for n := int64(1); ; n++ {
		ts = Quo(Mul(ts, r2), Int(-(2*n)*(2*n+1)))
		tc = Quo(Mul(tc, r2), Int(-(2*n-1)*(2*n)))
		s, c = Add(s, ts), Add(c, tc)
		if negligible(tc, c) && (r.Sign() == 0 || negligible(ts, s)) {
			break
		}
	}
	kInt, _ := k.Int(nil)
	q := new(big.Int).And(kInt, big.NewInt(3)).Int64() // two's complement mod 4
	neg := func(v *big.Float) *big.Float { return new(big.Float).Neg(v) }
	switch q {
	case 0:
		return s, c
	case 1:
		return c, neg(s)
	case 2:
		return neg(s), neg(c)
	default:
		return neg(c), s
	}
}

// HiLo splits v into the double nearest to it and the double nearest to the
// remainder.
func HiLo(v *big.Float) (hi, lo float64) {
	hi, _ = v.Float64()
	lo, _ = Sub(v, New(hi)).Float64()
	return hi, lo
}

// ULPError returns (got - want) in units of the spacing of doubles at the
// exact value want: subnormal spacing 2^-1074 below 2^-1022 and, at a power
// of two, the spacing on want's side. It returns +Inf for got != 0 when want
// is 0 and for got infinite.
func ULPError(got float64, want *big.Float) float64 {
	if want.Sign() == 0 {
		if got == 0 {
			return 0
		}
		return math.Inf(1)
	}
	if math.IsInf(got, 0) || math.IsNaN(got) {
		return math.Inf(1)
	}
	aw := new(big.Float).Abs(want)
	e := aw.MantExp(nil) // |want| in [2^(e-1), 2^e)
	ulpExp := max(e-53, -1074)
	d := Sub(New(got), want)
	d.SetMantExp(d, -ulpExp)
	v, _ := d.Float64()
	return v
}
