package es

import (
	"math"

	"github.com/hees-dev/hees/internal/xmath"
)

// The standard normal distribution function and its upper quantile, for
// the margin of the discrete coordinates (margin.go), with the same bits on
// every platform: every product that feeds a sum is written float64(x*y),
// which the compiler may not fuse into a multiply-add (internal/xmath's
// rule), and exp and log are xmath's.
//
// erfc is the rational approximation of Sun's fdlibm s_erf.c (the
// coefficients of Go's math.Erfc), whose error is below 1 ulp;
// upperQuantile is Wichura's algorithm AS 241 (the coefficients of Go's
// math.Erfinv), about 1e-16 relative. TestNormal checks both against
// package math.

// normCDF returns Φ(x) = P(Z <= x) for a standard normal Z.
func normCDF(x float64) float64 { return 0.5 * erfc(-x/math.Sqrt2) }

// horner returns c[0] + x (c[1] + x (c[2] + ...)), each product rounded.
func horner(x float64, c ...float64) float64 {
	v := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		v = c[i] + float64(x*v)
	}
	return v
}

// The coefficients of erfc (fdlibm s_erf.c).
var (
	erfcPP = []float64{1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
		-5.77027029648944159157e-03, -2.37630166566501626084e-05}
	erfcQQ = []float64{1, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
		1.32494738004321644526e-04, -3.96022827877536812320e-06}
	erfcPA = []float64{-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
		3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02, -2.16637559486879084300e-03}
	erfcQA = []float64{1, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
		1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02}
	erfcRA = []float64{-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
		-6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
		-8.12874355063065934246e+01, -9.81432934416914548592e+00}
	erfcSA = []float64{1, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
		6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
		6.57024977031928170135e+00, -6.04244152148580987438e-02}
	erfcRB = []float64{-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
		-1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
		-4.83519191608651397019e+02}
	erfcSB = []float64{1, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
		3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
		-2.24409524465858183362e+01}
)

// erx is erf(1) rounded to single precision, the split of fdlibm.
const erx = 8.45062911510467529297e-01

// erfc returns the complementary error function 1 - erf(x).
func erfc(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsInf(x, 1):
		return 0
	case math.IsInf(x, -1):
		return 2
	}
	neg := x < 0
	x = math.Abs(x)
	if x < 0.84375 {
		var t float64 // erf(|x|)
		if x < 0x1p-56 {
			t = x
		} else {
			z := float64(x * x)
			y := horner(z, erfcPP...) / horner(z, erfcQQ...)
			if x < 0.25 {
				t = x + float64(x*y)
			} else {
				t = 0.5 + (float64(x*y) + (x - 0.5))
			}
		}
		if neg {
			return 1 + t
		}
		return 1 - t
	}
	if x < 1.25 {
		s := x - 1
		pq := horner(s, erfcPA...) / horner(s, erfcQA...)
		if neg {
			return 1 + erx + pq
		}
		return 1 - erx - pq
	}
	if x >= 28 || (neg && x > 6) {
		if neg {
			return 2
		}
		return 0
	}
	s := 1 / float64(x*x)
	var rs float64
	if x < 1/0.35 {
		rs = horner(s, erfcRA...) / horner(s, erfcSA...)
	} else {
		rs = horner(s, erfcRB...) / horner(s, erfcSB...)
	}
	// x = z + (x - z) with z of 20 significant bits, so that z² is exact.
	z := math.Float64frombits(math.Float64bits(x) & 0xffffffff00000000)
	r := float64(xmath.Exp(-float64(z*z)-0.5625) * xmath.Exp(float64((z-x)*(z+x))+rs))
	if neg {
		return 2 - r/x
	}
	return r / x
}

// The coefficients of AS 241 in the form of erfinv.
var (
	asA = []float64{1.1975323115670912564578e0, 4.7072688112383978012285e1, 6.9706266534389598238465e2,
		4.8548868893843886794648e3, 1.6235862515167575384252e4, 2.3782041382114385731252e4,
		1.1819493347062294404278e4, 8.8709406962545514830200e2}
	asB = []float64{1, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
		2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3}
	asC = []float64{1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
		3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
		2.27238449892691845833e-2, 7.74545014278341407640e-4}
	asD = []float64{1.4142135623730950488016887e0, 2.9036514445419946173133295e0, 2.3707661626024532365971225e0,
		9.7547832001787427186894837e-1, 2.0945065210512749128288442e-1, 2.1494160384252876777097297e-2,
		7.7441459065157709165577218e-4, 1.4859850019840355905497876e-9}
	asE = []float64{6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
		2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
		2.71155556874348757815e-5, 2.01033439929228813265e-7}
	asF = []float64{1.414213562373095048801689e0, 8.482908416595164588112026e-1, 1.936480946950659106176712e-1,
		2.103693768272068968719679e-2, 1.112800997078859844711555e-3, 2.611088405080593625138020e-5,
		2.010321207683943062279931e-7, 2.891024605872965461538222e-15}
)

// upperQuantile returns z with P(Z > z) = p for a standard normal Z and
// 0 < p <= 1/2 (so z >= 0): √2 erfinv(1 - 2p), with 1 - 2p never formed in
// the tail, where log(1 - x) = log(2p) keeps p's precision.
func upperQuantile(p float64) float64 {
	x := 1 - 2*p
	var v float64 // erfinv(x)
	if x <= 0.85 {
		r := 0.180625 - float64(0.25*float64(x*x))
		v = float64(x*horner(r, asA...)) / horner(r, asB...)
	} else {
		r := math.Sqrt(-xmath.Log(p)) // sqrt(ln 2 - ln(1 - x))
		if r <= 5 {
			r -= 1.6
			v = horner(r, asC...) / horner(r, asD...)
		} else {
			r -= 5
			v = horner(r, asE...) / horner(r, asF...)
		}
	}
	return float64(math.Sqrt2 * v)
}
