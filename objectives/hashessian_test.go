package objectives

import "testing"

// TestHasHessian checks that HasHessian says what Hessian's ok says, for
// quadratics, non-quadratics and a noisy classic function (and nil), and
// that it answers in d = 10^5 without the 80 GB matrix.
func TestHasHessian(t *testing.T) {
	// A nil problem has neither a Hessian nor domains (before: a nil
	// dereference in both).
	if HasHessian(nil) || DomainsOf(nil) != nil {
		t.Error("a nil problem has a Hessian or domains")
	}
	for _, spec := range []string{"sphere", "ellipsoid", "rotellipsoid", "rosenbrock", "rastrigin", "sphere:noise=add,sigma=0.1", "bbob/f1/i1", "bbob/f8/i1"} {
		p, err := Parse(spec, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.Hessian(); HasHessian(p) != ok {
			t.Errorf("%s: HasHessian %v, Hessian's ok %v", spec, HasHessian(p), ok)
		}
	}
	p, err := Parse("ellipsoid", 100000)
	if err != nil {
		t.Fatal(err)
	}
	if !HasHessian(p) {
		t.Error("ellipsoid in d = 10^5: HasHessian false")
	}
}
