package es

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// plateau is the sphere cut off at level: once every offspring of a
// generation lies inside the ball |x|^2 < level, their values are equal and
// the strategy stops by its TolFun, which makes IPOP restart early.
func plateau(level float64) func(x []float64) float64 {
	return func(x []float64) float64 { return max(sphere(x), level) }
}

// askTellGeneration evaluates one generation of s with f in row order.
func askTellGeneration(t *testing.T, s Strategy, f func([]float64) float64, pop *linalg.Dense) []float64 {
	t.Helper()
	if err := s.Ask(pop); err != nil {
		t.Fatal(err)
	}
	rows, _ := pop.Dims()
	values := make([]float64, rows)
	for i := range values {
		values[i] = f(pop.RawRow(i))
	}
	if err := s.Tell(values); err != nil {
		t.Fatal(err)
	}
	return values
}

func TestIPOPMatchesPlainStrategyUntilRestart(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Dim: 5, Seed: 3}
			plain, err := New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			w, err := NewIPOP(name, cfg, IPOPConfig{})
			if err != nil {
				t.Fatal(err)
			}
			var a, b linalg.Dense
			for range 30 {
				askTellGeneration(t, plain, sphere, &a)
				askTellGeneration(t, w, sphere, &b)
				if matrixLines(&a) != matrixLines(&b) {
					t.Fatalf("generation %d: IPOP asked other candidates than %s", plain.Generation(), name)
				}
			}
			if w.Restarts() != 0 || w.Name() != "ipop-"+name || w.Evals() != plain.Evals() {
				t.Errorf("Restarts %d, Name %q, Evals %d vs %d", w.Restarts(), w.Name(), w.Evals(), plain.Evals())
			}
		})
	}
}

func TestIPOPRestarts(t *testing.T) {
	for _, name := range []string{"hees", "cmaes", "es11"} {
		t.Run(name, func(t *testing.T) {
			const d = 4
			cfg := Config{Dim: d, Seed: 11}
			w, err := NewIPOP(name, cfg, IPOPConfig{MaxRestarts: 3})
			if err != nil {
				t.Fatal(err)
			}
			lambda0 := w.PopulationSize()
			f := plateau(0.01)
			var pop linalg.Dense
			restarts, evals, gens := 0, 0, 0
			bestSoFar := math.Inf(1)
			for w.Stop() == "" {
				if w.Generation() > 20000 {
					t.Fatal("no stop after 20000 generations")
				}
				values := askTellGeneration(t, w, f, &pop)
				evals += len(values)
				gens++
				bestSoFar = min(bestSoFar, slices.Min(values))
				if w.Evals() != evals || w.Generation() != gens {
					t.Fatalf("Evals %d, Generation %d; want %d, %d (counts span the runs)", w.Evals(), w.Generation(), evals, gens)
				}
				if _, fb := w.Best(); fb != bestSoFar {
					t.Fatalf("generation %d: Best %g, want the minimum over all runs %g", gens, fb, bestSoFar)
				}
				if w.Restarts() == restarts {
					continue
				}
				// A restart: new run from a new mean with sigma0, pairs
				// doubled for hees.
				restarts++
				if w.Restarts() != restarts {
					t.Fatalf("Restarts jumped to %d", w.Restarts())
				}
				wantLambda := lambda0
				switch name {
				case "hees":
					wantLambda = 2*(defaultPairs(d)<<restarts) + 1
				case "cmaes":
					wantLambda = defaultLambda(d) << restarts
				}
				if w.PopulationSize() != wantLambda || w.Sigma() != 2 || w.Stop() != "" {
					t.Errorf("restart %d: PopulationSize %d, Sigma %g, Stop %q; want %d, 2, \"\"", restarts, w.PopulationSize(), w.Sigma(), w.Stop(), wantLambda)
				}
				for _, v := range w.Mean(nil) {
					if math.Abs(v) > 3 {
						t.Errorf("restart %d: mean %v outside [-3, 3]^d", restarts, w.Mean(nil))
						break
					}
				}
			}
			if w.Restarts() != 3 || w.Stop() != ReasonTolFun {
				t.Errorf("after the run: Restarts %d, Stop %q; want 3, %q", w.Restarts(), w.Stop(), ReasonTolFun)
			}
			if _, fb := w.Best(); fb != 0.01 {
				t.Errorf("best %g, want the plateau 0.01", fb)
			}
		})
	}
}

func TestIPOPWithMinimize(t *testing.T) {
	w, err := NewIPOP("hees", Config{Dim: 3, Seed: 2}, IPOPConfig{MaxRestarts: 2})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	res, err := Minimize(context.Background(), Func(plateau(0.04)), w, Options{Progress: func(p Progress) {
		seen = append(seen, p.Restarts)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 2 || res.Reason != ReasonTolFun || res.F != 0.04 || res.Evals != w.Evals() {
		t.Errorf("Restarts %d, Reason %q, F %g, Evals %d (IPOP %d)", res.Restarts, res.Reason, res.F, res.Evals, w.Evals())
	}
	if !slices.IsSorted(seen) || seen[len(seen)-1] != 2 {
		t.Errorf("restart counts seen by Progress: %v", seen)
	}

	// The budget is shared across the restarts.
	w, err = NewIPOP("hees", Config{Dim: 3, Seed: 2}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = Minimize(context.Background(), Func(plateau(0.04)), w, Options{MaxEvals: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonMaxEvals || res.Evals > 3000 || res.Evals+w.PopulationSize() <= 3000 || res.Restarts == 0 {
		t.Errorf("Reason %q, Evals %d, Restarts %d; want the budget of 3000 spent across restarts", res.Reason, res.Evals, res.Restarts)
	}
}

func TestIPOPMinusInfStopsWithoutRestart(t *testing.T) {
	w, err := NewIPOP("hees", Config{Dim: 2, Seed: 1}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Minimize(context.Background(), Func(func(x []float64) float64 {
		if x[0] > 1 {
			return math.Inf(-1)
		}
		return sphere(x)
	}), w, Options{MaxEvals: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonMinusInf || w.Restarts() != 0 || !math.IsInf(res.F, -1) {
		t.Errorf("Reason %q, Restarts %d, F %g; want %q, 0, -Inf", res.Reason, w.Restarts(), res.F, ReasonMinusInf)
	}
}

func TestNewIPOPErrors(t *testing.T) {
	if _, err := NewIPOP("hees", Config{Dim: 3}, IPOPConfig{MaxRestarts: -1}); err == nil || !strings.Contains(err.Error(), "MaxRestarts = -1") {
		t.Errorf("negative MaxRestarts: err %v", err)
	}
	if _, err := NewIPOP("hees", Config{Dim: 1}, IPOPConfig{}); err == nil || !strings.Contains(err.Error(), "Dim") {
		t.Errorf("Dim 1: err %v", err)
	}
	if _, err := NewIPOP("nope", Config{Dim: 3}, IPOPConfig{}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown strategy: err %v", err)
	}
}

func TestIPOPUnmarshalErrors(t *testing.T) {
	w, err := NewIPOP("hees", Config{Dim: 3, Seed: 1}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	state, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New("hees", Config{Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	plainState, err := plain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Version 9, with a valid checksum.
	otherVersion := []byte("hees-es/ipop/v9\n")
	otherVersion = append(otherVersion, state[len("hees-es/ipop/v1\n"):len(state)-4]...)
	otherVersion = binary.LittleEndian.AppendUint32(otherVersion, crc32.ChecksumIEEE(otherVersion))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a saved strategy state"},
		{"other strategy", plainState, `"hees"`},
		{"truncated", state[:len(state)/2], "truncated"},
		{"corrupt", append(slices.Clone(state[:40]), append([]byte{state[40] ^ 1}, state[41:]...)...), "corrupt"},
		{"version", otherVersion, "v9"},
	} {
		var v IPOP
		err := v.UnmarshalBinary(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one containing %q", tc.name, err, tc.want)
		}
		if v.inner != nil {
			t.Errorf("%s: the value changed on error", tc.name)
		}
	}
	var v IPOP
	if err := v.UnmarshalBinary(state); err != nil {
		t.Fatalf("the state itself: %v", err)
	}
}

func TestZeroIPOP(t *testing.T) {
	var w IPOP
	var pop linalg.Dense
	if err := w.Ask(&pop); err != errZeroIPOP {
		t.Errorf("Ask: %v", err)
	}
	if err := w.Tell([]float64{1}); err != errZeroIPOP {
		t.Errorf("Tell: %v", err)
	}
	if _, err := w.MarshalBinary(); err != errZeroIPOP {
		t.Errorf("MarshalBinary: %v", err)
	}
	// The other methods answer without a panic.
	if x, f := w.Best(); w.Name() != "ipop-" || w.Dim() != 0 || w.PopulationSize() != 0 || w.Sigma() != 0 ||
		w.Evals() != 0 || w.Generation() != 0 || w.Stop() != "" || len(w.Mean(nil)) != 0 ||
		x != nil || f != math.Inf(1) {
		t.Error("a zero IPOP reports a state")
	}
	if a := w.Transform(); a != nil {
		t.Errorf("Transform of a zero IPOP is %v, want nil", a)
	}
	for _, s := range []Strategy{&w, (*IPOP)(nil)} {
		_, err := Minimize(context.Background(), Func(sphere), s, Options{MaxEvals: 10})
		if !errors.Is(err, errZeroIPOP) {
			t.Errorf("Minimize with %#v: got %v, want the error of a zero IPOP", s, err)
		}
	}
}

// TestIPOPUnmarshalRejectsForgedBest: a state whose best value of the
// finished runs does not go with its best point is corrupt.
func TestIPOPUnmarshalRejectsForgedBest(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		f    float64
		want string
	}{
		{"-Inf without a point", nil, math.Inf(-1), "best value -Inf of the finished runs without a best point"},
		{"finite without a point", nil, 1, "without a best point"},
		{"NaN with a point", []float64{1, 2, 3}, math.NaN(), "with the value NaN"},
		{"+Inf with a point", []float64{1, 2, 3}, math.Inf(1), "with the value +Inf"},
		{"short point", []float64{1}, 1, "best point of length 1, want Dim = 3"},
	} {
		w, err := NewIPOP("hees", Config{Dim: 3, Seed: 1}, IPOPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		w.pastBestX, w.pastBestF = c.x, c.f
		state, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(state); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// The same hole in a strategy's own state.
	h := rowOf("hees").zero()
	h.setup(mustResolve(t, "hees", Config{Dim: 3}))
	h.(*hees).hasBest, h.(*hees).bestF = true, math.NaN()
	state, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(state); err == nil || !strings.Contains(err.Error(), "best point with the value NaN") {
		t.Errorf("hees state with a NaN best value: Load: %v", err)
	}
}

func mustResolve(t *testing.T, name string, cfg Config) Config {
	t.Helper()
	rc, err := resolve(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// TestIPOPConfigRoundTrip sets every field of Config to a value other than
// its zero value, so that a field added to Config but not saved by IPOP
// fails here.
func TestIPOPConfigRoundTrip(t *testing.T) {
	var cfg Config
	v := reflect.ValueOf(&cfg).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int:
			f.SetInt(int64(3 + i))
		case reflect.Uint64:
			f.SetUint(uint64(1e18) + uint64(i))
		case reflect.Float64:
			f.SetFloat(0.1 * float64(i+1))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]float64{1, -2, math.Inf(1)}))
		case reflect.Pointer:
			switch f.Type() {
			case reflect.TypeFor[*Bounds]():
				f.Set(reflect.ValueOf(&Bounds{Lower: []float64{-1, math.Inf(-1)}, Upper: nil}))
			default:
				f.Set(reflect.ValueOf(linalg.NewDense(2, 2, []float64{1, 2, 3, math.NaN()})))
			}
		default:
			t.Fatalf("Config.%s has kind %v: teach writeConfig and this test about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	for _, c := range []Config{cfg, {}} {
		w := newStateWriter("test")
		writeConfig(w, &c)
		r, err := openState(w.finish(), "test")
		if err != nil {
			t.Fatal(err)
		}
		got := readUserConfig(r)
		if err := r.done(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fmtConfig(got), fmtConfig(c)) {
			t.Errorf("round trip gave %s, want %s", fmtConfig(got), fmtConfig(c))
		}
	}
}

// fmtConfig renders every field of a Config, floats by their bits (so NaN
// compares equal to itself), X0 and the elements of A0 included.
func fmtConfig(c Config) string {
	v := reflect.ValueOf(c)
	var parts []string
	for i := range v.NumField() {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		switch x := f.Interface().(type) {
		case float64:
			parts = append(parts, name+"="+hexFloat(x))
		case []float64:
			parts = append(parts, fmt.Sprintf("%s=%v:%s", name, x == nil, hexFloats(x)))
		case *linalg.Dense:
			if x == nil {
				parts = append(parts, name+"=nil")
			} else {
				parts = append(parts, name+"="+matrixLines(x))
			}
		case *Bounds:
			if x == nil {
				parts = append(parts, name+"=nil")
			} else {
				parts = append(parts, fmt.Sprintf("%s=%v:%s,%v:%s", name, x.Lower == nil, hexFloats(x.Lower), x.Upper == nil, hexFloats(x.Upper)))
			}
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", name, x))
		}
	}
	return strings.Join(parts, " ")
}

// TestLoadIPOP restores an IPOP state through Load, which must recognise it
// and continue exactly as the saved wrapper.
func TestLoadIPOP(t *testing.T) {
	w, err := NewIPOP("hees", Config{Dim: 3, Seed: 5}, IPOPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var pop linalg.Dense
	for range 5 {
		askTellGeneration(t, w, sphere, &pop)
	}
	s := stReload(t, w)
	if _, ok := s.(*IPOP); !ok || s.Name() != w.Name() || s.Generation() != w.Generation() {
		t.Fatalf("Load gave %T %q at generation %d, want *IPOP %q at %d", s, s.Name(), s.Generation(), w.Name(), w.Generation())
	}
	want := askTellGeneration(t, w, sphere, &pop)
	got := askTellGeneration(t, s, sphere, &pop)
	if !slices.Equal(got, want) {
		t.Errorf("restored wrapper's next generation %v, want %v", got, want)
	}
}
