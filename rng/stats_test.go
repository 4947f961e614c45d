package rng

import (
	"math"
	"slices"
	"testing"
)

// The statistical tests use fixed seeds, so they are deterministic; their
// bounds are 5 standard deviations (or a p-value of 10^-3 for the
// Kolmogorov-Smirnov statistic), so a correct generator passes with any
// seed and a biased one fails.
const statN = 1_000_000

// moments returns the mean, variance, skewness and excess kurtosis of x.
func moments(x []float64) (mean, variance, skew, kurt float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var m2, m3, m4 float64
	for _, v := range x {
		d := v - mean
		d2 := d * d
		m2 += d2
		m3 += d2 * d
		m4 += d2 * d2
	}
	m2 /= n
	m3 /= n
	m4 /= n
	return mean, m2, m3 / math.Pow(m2, 1.5), m4/(m2*m2) - 3
}

// chiSquare returns the chi-square statistic of counts against a uniform
// expectation.
func chiSquare(counts []int, total int) float64 {
	want := float64(total) / float64(len(counts))
	var chi2 float64
	for _, c := range counts {
		d := float64(c) - want
		chi2 += d * d / want
	}
	return chi2
}

// checkChiSquare fails if chi2 with df degrees of freedom is more than 5
// standard deviations (sqrt(2 df)) from its mean df, on either side.
func checkChiSquare(t *testing.T, name string, chi2 float64, df int) {
	t.Helper()
	z := (chi2 - float64(df)) / math.Sqrt(2*float64(df))
	t.Logf("%s: chi-square %.1f, %d degrees of freedom (z = %.2f)", name, chi2, df, z)
	if math.Abs(z) > 5 {
		t.Errorf("%s: chi-square %.1f with %d degrees of freedom (z = %.2f)", name, chi2, df, z)
	}
}

func TestUniformStatistics(t *testing.T) {
	s := NewStream(KeyFromSeed(20240601), 1, 0, 0)
	x := make([]float64, statN)
	s.FillFloat64(x)
	mean, variance, _, _ := moments(x)
	t.Logf("mean %.6f, variance %.6f", mean, variance)
	// Uniform: mean 1/2 (sd sqrt(1/12/n)), variance 1/12 (sd
	// sqrt((1/80 - 1/144)/n)).
	if sd := math.Sqrt(1.0 / 12 / statN); math.Abs(mean-0.5) > 5*sd {
		t.Errorf("mean %v, want 0.5 ± %v", mean, 5*sd)
	}
	if sd := math.Sqrt((1.0/80 - 1.0/144) / statN); math.Abs(variance-1.0/12) > 5*sd {
		t.Errorf("variance %v, want 1/12 ± %v", variance, 5*sd)
	}
	counts := make([]int, 1000)
	for _, v := range x {
		counts[int(v*1000)]++
	}
	checkChiSquare(t, "1000 equal bins", chiSquare(counts, statN), 999)

	// Every byte of the raw words, so low bits are covered too.
	words := make([]uint64, statN/8)
	s.FillUint64(words)
	for b := range 8 {
		counts := make([]int, 256)
		for _, w := range words {
			counts[(w>>(8*b))&0xff]++
		}
		checkChiSquare(t, "byte "+string(rune('0'+b)), chiSquare(counts, len(words)), 255)
	}
}

// normalCDF is the standard normal distribution function (package math is
// fine here: these are statistics, not reproducible bits).
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func TestNormalStatistics(t *testing.T) {
	s := NewStream(KeyFromSeed(19700101), 2, 0, 0)
	x := make([]float64, statN)
	s.FillNormal(x)
	mean, variance, skew, kurt := moments(x)
	t.Logf("mean %.5f, variance %.5f, skewness %.5f, excess kurtosis %.5f", mean, variance, skew, kurt)
	// Standard errors for n normal samples: mean 1/sqrt(n), variance
	// sqrt(2/n), skewness sqrt(6/n), excess kurtosis sqrt(24/n).
	for _, c := range []struct {
		name      string
		got, want float64
		sd        float64
	}{
		{"mean", mean, 0, math.Sqrt(1.0 / statN)},
		{"variance", variance, 1, math.Sqrt(2.0 / statN)},
		{"skewness", skew, 0, math.Sqrt(6.0 / statN)},
		{"excess kurtosis", kurt, 0, math.Sqrt(24.0 / statN)},
	} {
		if math.Abs(c.got-c.want) > 5*c.sd {
			t.Errorf("%s %v, want %v ± %v", c.name, c.got, c.want, 5*c.sd)
		}
	}

	// Tail frequency: P(|z| > 4) = 6.334e-5, so 63.3 expected; Poisson
	// sd 7.96. Beyond the ziggurat's base r = 3.654 (tail algorithm):
	// P = 2.580e-4, 258 expected, sd 16.1.
	var over4, overR int
	for _, v := range x {
		if math.Abs(v) > 4 {
			over4++
		}
		if math.Abs(v) > zigR {
			overR++
		}
	}
	t.Logf("|z| > 4: %d, |z| > r: %d", over4, overR)
	for _, c := range []struct {
		name string
		got  int
		p    float64
	}{
		{"|z| > 4", over4, 2 * normalCDF(-4)},
		{"|z| > r", overR, 2 * normalCDF(-zigR)},
	} {
		want := c.p * statN
		if math.Abs(float64(c.got)-want) > 5*math.Sqrt(want) {
			t.Errorf("%s: %d samples, want %.1f ± %.1f", c.name, c.got, want, 5*math.Sqrt(want))
		}
	}

	// Chi-square on 1000 bins equiprobable under N(0,1): sensitive to the
	// layer edges of the ziggurat.
	counts := make([]int, 1000)
	for _, v := range x {
		counts[min(int(normalCDF(v)*1000), 999)]++
	}
	checkChiSquare(t, "1000 normal-quantile bins", chiSquare(counts, statN), 999)

	// Kolmogorov-Smirnov: sqrt(n)·D > 1.949 has probability 10^-3.
	slices.Sort(x)
	var d float64
	for i, v := range x {
		c := normalCDF(v)
		d = max(d, c-float64(i)/statN, float64(i+1)/statN-c)
	}
	k := math.Sqrt(statN) * d
	t.Logf("Kolmogorov-Smirnov: sqrt(n)·D = %.3f", k)
	if k > 1.949 {
		t.Errorf("Kolmogorov-Smirnov: sqrt(n)·D = %.3f > 1.949 (p < 0.001)", k)
	}
}

// TestNormalSigns checks that the sign bit is independent of magnitude:
// positives and negatives in every ziggurat layer are balanced.
func TestNormalSigns(t *testing.T) {
	s := NewStream(KeyFromSeed(31), 3, 0, 0)
	var pos int
	for range statN {
		if s.Normal() > 0 {
			pos++
		}
	}
	if sd := math.Sqrt(statN / 4.0); math.Abs(float64(pos)-statN/2) > 5*sd {
		t.Errorf("%d positive of %d", pos, statN)
	}
}
