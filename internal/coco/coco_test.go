package coco

import (
	"math"
	"math/big"
	"slices"
	"testing"
)

// TestTargetDecades checks that the levels that are multiples of 5 give the
// float64 nearest to the power of ten, which the summaries' targets 1e1 …
// 1e-8 and the final target rely on.
func TestTargetDecades(t *testing.T) {
	for k := -110; k <= 110; k += TargetsPerDecade {
		want := math.Pow10(k / TargetsPerDecade)
		if got := Target(k); got != want {
			t.Errorf("Target(%d) = %v, want %v", k, got, want)
		}
	}
	if Target(MinTargetLevel) != FinalTarget {
		t.Errorf("Target(MinTargetLevel) = %v, want FinalTarget %v", Target(MinTargetLevel), FinalTarget)
	}
}

// TestTargetAccuracy checks Target(k) against 10^(k/5) computed with 200-bit
// arithmetic (as the fifth root by bisection), to within 1.5 ulp (0.5 ulp
// for the constants of the first decade), and that the grid increases
// strictly.
func TestTargetAccuracy(t *testing.T) {
	for k := -45; k <= 15; k++ {
		got := Target(k)
		// Reference: the x with x^5 = 10^k, by bisection on [10^floor, 10^ceil].
		want := fifthRootOfPow10(k)
		ulp := math.Nextafter(got, math.Inf(1)) - got
		diff, _ := new(big.Float).Sub(new(big.Float).SetPrec(200).SetFloat64(got), want).Float64()
		if math.Abs(diff) > 1.5*ulp {
			t.Errorf("Target(%d) = %v, off by %g (ulp %g)", k, got, diff, ulp)
		}
		// The constants of the first decade are correctly rounded.
		if 0 <= k && k < TargetsPerDecade && math.Abs(diff) > ulp/2 {
			t.Errorf("Target(%d) = %v is not the nearest float64: off by %g (ulp %g)", k, got, diff, ulp)
		}
		if k > -45 && !(Target(k-1) < got) {
			t.Errorf("Target(%d) = %v is not above Target(%d) = %v", k, got, k-1, Target(k-1))
		}
	}
}

// fifthRootOfPow10 returns 10^(k/5) to 200 bits.
func fifthRootOfPow10(k int) *big.Float {
	const prec = 200
	target := new(big.Float).SetPrec(prec).SetInt64(1)
	ten := new(big.Float).SetPrec(prec).SetInt64(10)
	for range abs(k) {
		if k > 0 {
			target.Mul(target, ten)
		} else {
			target.Quo(target, ten)
		}
	}
	lo := new(big.Float).SetPrec(prec).SetFloat64(math.Pow10(int(math.Floor(float64(k) / 5))))
	hi := new(big.Float).SetPrec(prec).Mul(lo, ten)
	for range prec {
		mid := new(big.Float).SetPrec(prec).Add(lo, hi)
		mid.Quo(mid, big.NewFloat(2))
		p := new(big.Float).SetPrec(prec).Set(mid)
		for range 4 {
			p.Mul(p, mid)
		}
		if p.Cmp(target) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// TestLevel checks the level of Δ: the smallest k with Δ ≤ 10^(k/5), with
// COCO's treatment of Δ below the precision and of Δ = 0.
func TestLevel(t *testing.T) {
	cases := []struct {
		delta float64
		want  int
	}{
		{500, 14}, // 10^2.6 = 398 < 500 ≤ 10^2.8 = 631
		{100, 10},
		{math.Nextafter(100, 200), 11},
		{50, 9}, // 10^1.6 = 39.8 < 50 ≤ 10^1.8 = 63.1
		{1, 0},
		{0.5, -1}, // 10^-0.4 = 0.398 < 0.5 ≤ 10^-0.2 = 0.631
		{1e-8, MinTargetLevel},
		{math.Nextafter(1e-8, 1), MinTargetLevel + 1},
		{9.99e-9, MinTargetLevel},
		{1e-300, MinTargetLevel},
		{math.SmallestNonzeroFloat64, MinTargetLevel},
		{0, MinTargetLevel - TargetsPerDecade},
		{3e21, 108},             // 10^21.4 = 2.51e21 < 3e21 ≤ 10^21.6 = 3.98e21
		{math.MaxFloat64, 1542}, // 10^308.2 = 1.58e308 < MaxFloat64 < 10^308.4 = +Inf
		{math.Inf(1), 1542},     // the first target that overflows
	}
	for _, c := range cases {
		if got := level(c.delta); got != c.want {
			t.Errorf("level(%g) = %d, want %d", c.delta, got, c.want)
		}
	}
	// Every grid point belongs to its own level, the next float above it to
	// the next level.
	for k := MinTargetLevel; k <= 60; k++ {
		if got := level(Target(k)); got != k {
			t.Errorf("level(Target(%d)) = %d", k, got)
		}
		if got := level(math.Nextafter(Target(k), math.Inf(1))); got != k+1 {
			t.Errorf("level(just above Target(%d)) = %d, want %d", k, got, k+1)
		}
	}
}

// TestEvalTrigger checks the .tdat evaluation counts against the values
// ⌊10^(i/20)⌋ computed by hand and d·{1, 2, 5}·10^i.
func TestEvalTrigger(t *testing.T) {
	powers := []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 15, 17, 19, 22, 25, 28, 31, 35, 39, 44, 50,
		56, 63, 70, 79, 89, 100, 112, 125, 141, 158, 177, 199, 223, 251, 281, 316, 354, 398, 446, 501,
		562, 630, 707, 794, 891, 1000, 1122, 1258, 1412, 1584, 1778, 1995, 2238, 2511, 2818, 3162}
	for _, dim := range []int{2, 3, 40} {
		want := slices.Clone(powers)
		for p := 1; p <= 1000; p *= 10 {
			for _, b := range []int{1, 2, 5} {
				if n := dim * b * p; n <= 3162 {
					want = append(want, n)
				}
			}
		}
		slices.Sort(want)
		want = slices.Compact(want)
		var got []int
		var tr evalTrigger
		tr.reset(dim)
		for n := 1; n <= 3162; n++ {
			if tr.fire(n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("d=%d: triggers\n%v\nwant\n%v", dim, got, want)
		}
	}
}

// TestSuccessThreshold checks that the threshold is a success and the next
// float64 above it is not, for fopt values of the bbob suite and others.
func TestSuccessThreshold(t *testing.T) {
	for _, fopt := range []float64{79.48, -209.88, -462.09, 1000, -1000, 0, 6.87, 1e-9, -1e-9, 123456.78, 0.1} {
		th := SuccessThreshold(fopt)
		above := math.Nextafter(th, math.Inf(1))
		if !(max(th, fopt)-fopt <= FinalTarget) || max(above, fopt)-fopt <= FinalTarget {
			t.Errorf("fopt %v: threshold %v (Δ %g), next %v (Δ %g)", fopt, th, th-fopt, above, above-fopt)
		}
		if math.Abs(th-(fopt+FinalTarget)) > 2*(math.Nextafter(th, math.Inf(1))-th) {
			t.Errorf("fopt %v: threshold %v is more than 2 ulp from fopt + 1e-8", fopt, th)
		}
	}
}
