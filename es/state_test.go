package es

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hees-dev/hees/linalg"
)

// stTrajectory runs s for gens generations on f and returns every candidate
// asked, in hex, one line per generation, followed by the final state.
// At generation resumeAt (if positive) it saves the state, before the Ask
// or, with pending, between Ask and Tell, and continues on restore(state).
func stTrajectory(t *testing.T, s Strategy, f func([]float64) float64, gens, resumeAt int, pending bool, restore func([]byte) Strategy) []string {
	t.Helper()
	var lines []string
	var pop linalg.Dense
	var vals []float64
	save := func() {
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s = restore(data)
	}
	for g := 0; g < gens && s.Stop() == ""; g++ {
		if g == resumeAt && !pending {
			save()
		}
		if err := s.Ask(&pop); err != nil {
			t.Fatal(err)
		}
		if g == resumeAt && pending {
			save()
		}
		r, _ := pop.Dims()
		vals = vals[:0]
		var b strings.Builder
		for i := 0; i < r; i++ {
			for _, v := range pop.RawRow(i) {
				fmt.Fprintf(&b, "%x ", v)
			}
			vals = append(vals, f(pop.RawRow(i)))
		}
		if err := s.Tell(vals); err != nil {
			t.Fatal(err)
		}
		x, fb := s.Best()
		fmt.Fprintf(&b, "| %x %x %x %d %d", s.Sigma(), x, fb, s.Evals(), s.Generation())
		lines = append(lines, b.String())
	}
	final, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return append(lines, fmt.Sprintf("%x", final), string(s.Stop()))
}

// TestMarshalResume saves every strategy at generation 37 (with and without
// a pending Ask), restores it into a fresh value and continues: the run is
// bit-identical to the uninterrupted one.
func TestMarshalResume(t *testing.T) {
	const d, gens = 5, 90
	f := stEllipsoid(d, 1e4)
	restores := map[string]func(t *testing.T, data []byte) Strategy{
		"Load": func(t *testing.T, data []byte) Strategy {
			s, err := Load(data)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"UnmarshalBinary into another run": func(t *testing.T, data []byte) Strategy {
			name, _, err := parseStateHeader(data)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Dim: 3, Seed: 99}
			if name == "hees" {
				cfg.Pairs = 9
			}
			s := stNew(t, name, cfg)
			if err := s.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for _, name := range Names() {
		cfg := Config{Dim: d, Seed: 3, TolFun: -1}
		if rowOf(name).Transform {
			cfg.A0 = randomUnitDetMatrix(d, 5)
		}
		want := stTrajectory(t, stNew(t, name, cfg), f, gens, -1, false, nil)
		if len(want) != gens+2 {
			t.Fatalf("%s: stopped early (%s)", name, want[len(want)-1])
		}
		for how, restore := range restores {
			for _, pending := range []bool{false, true} {
				got := stTrajectory(t, stNew(t, name, cfg), f, gens, 37, pending,
					func(data []byte) Strategy { return restore(t, data) })
				if i := slices.Compare(want, got); i != 0 {
					for g := range want {
						if g >= len(got) || want[g] != got[g] {
							t.Errorf("%s, %s, pending %v: generation %d differs", name, how, pending, g)
							break
						}
					}
				}
			}
		}
	}
}

// TestUnmarshalErrors feeds foreign, truncated, corrupt and other-version
// states: each is an error that says what is wrong, and the receiver does
// not change.
func TestUnmarshalErrors(t *testing.T) {
	states := map[string][]byte{}
	for _, name := range Names() {
		s := stNew(t, name, Config{Dim: 4, Seed: 1})
		var pop linalg.Dense
		var vals []float64
		for g := 0; g < 5; g++ {
			vals = stGeneration(t, s, stSphere, &pop, vals)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("hees-es/"+name+plainVersion(name))) {
			t.Errorf("%s: state starts with %q", name, data[:20])
		}
		states[name] = data
	}
	for _, name := range Names() {
		data := states[name]
		other := states["hees"]
		if name == "hees" {
			other = states["cma11"]
		}
		corrupt := slices.Clone(data)
		corrupt[len(corrupt)/2] ^= 0x10
		version := bytes.Replace(data, []byte(plainVersion(name)), []byte("/v9\n"), 1)
		cases := []struct {
			what string
			data []byte
			want string
		}{
			{"empty", nil, "not a saved strategy state"},
			{"foreign", []byte("PNG\x00 something else entirely"), "not a saved strategy state"},
			{"other strategy", other, "cannot restore it into \"" + name + "\""},
			{"other version", version, "version v9"},
			{"corrupt", corrupt, "corrupt"},
			{"trailing bytes", append(slices.Clone(data), 0), "corrupt"},
			{"header only", data[:len("hees-es/"+name+plainVersion(name))], "truncated"},
		}
		for _, n := range []int{len(data) - 1, len(data) / 2, len(data) - 9, 12} {
			cases = append(cases, struct {
				what string
				data []byte
				want string
			}{fmt.Sprintf("truncated to %d bytes", n), data[:n], "truncated"})
		}
		s := stNew(t, name, Config{Dim: 3, Seed: 8})
		before, _ := s.MarshalBinary()
		for _, c := range cases {
			err := s.UnmarshalBinary(c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: err %v, want one containing %q", name, c.what, err, c.want)
			}
			if after, _ := s.MarshalBinary(); !bytes.Equal(before, after) {
				t.Errorf("%s, %s: the receiver changed", name, c.what)
			}
		}
	}
	if _, err := Load([]byte("hees-es/nope/v1\n1234")); err == nil || !strings.Contains(err.Error(), `unknown strategy "nope"`) {
		t.Errorf("Load of an unknown strategy: %v", err)
	}
}

// TestMarshalStoppedAndBest checks that the stop reason, the best point and
// the counters survive a round trip.
func TestMarshalStoppedAndBest(t *testing.T) {
	s := stNew(t, "hees", Config{Dim: 3, Seed: 2})
	var pop linalg.Dense
	var vals []float64
	for s.Stop() == "" {
		vals = stGeneration(t, s, func([]float64) float64 { return 1 }, &pop, vals)
	}
	data, _ := s.MarshalBinary()
	r, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	x1, f1 := s.Best()
	x2, f2 := r.Best()
	if r.Stop() != ReasonTolFun || r.Evals() != s.Evals() || r.Generation() != s.Generation() ||
		!slices.Equal(x1, x2) || f1 != f2 || r.Sigma() != s.Sigma() {
		t.Errorf("restored: stop %q evals %d gen %d best %v %v", r.Stop(), r.Evals(), r.Generation(), x2, f2)
	}
	if err := r.Ask(&pop); err == nil {
		t.Error("Ask on a restored stopped strategy: no error")
	}
}

// A strategy saved with MarshalBinary and restored with Load continues
// exactly where it stopped.
func ExampleLoad() {
	f := func(x []float64) float64 { return x[0]*x[0] + 100*x[1]*x[1] }
	s, _ := New("hees14", Config{Dim: 2, Seed: 1})
	var pop linalg.Dense
	for range 10 {
		s.Ask(&pop)
		rows, _ := pop.Dims()
		values := make([]float64, rows)
		for i := range values {
			values[i] = f(pop.RawRow(i))
		}
		s.Tell(values)
	}
	data, _ := s.MarshalBinary()
	restored, err := Load(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	var a, b linalg.Dense
	s.Ask(&a)
	restored.Ask(&b)
	fmt.Println(restored.Name(), restored.Generation(), restored.Evals(), slices.Equal(a.RawRow(0), b.RawRow(0)))
	// Output:
	// hees14 10 37 true
}

// plainVersion is the version part of the header of a state of strategy
// name without bounds: "/v1\n", or "/v3\n" for a strategy without the slot
// for A (es/state.go).
func plainVersion(name string) string {
	if !rowOf(name).Transform {
		return "/v3\n"
	}
	return "/v1\n"
}
