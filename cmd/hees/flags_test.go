package main

import (
	"strconv"
	"testing"
)

func TestCountFlag(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "12": 12, "2e4": 20000, "1E6": 1000000, "3.0": 3} {
		var c countFlag
		if err := c.Set(in); err != nil || c.n != want || !c.set || c.String() != strconv.Itoa(want) {
			t.Errorf("Set(%q): n %d, set %v, String %q, err %v; want %d", in, c.n, c.set, c.String(), err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "x", "NaN", "Inf", "1e300"} {
		var c countFlag
		if err := c.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, c.n)
		}
	}
	if c := (countFlag{def: "10000*d"}); c.String() != "10000*d" {
		t.Errorf("String before Set = %q", c.String())
	}
}

func TestTargetFlag(t *testing.T) {
	tf := targetFlag{def: "auto"}
	if tf.String() != "auto" {
		t.Errorf("String before Set = %q", tf.String())
	}
	if err := tf.Set("-1.5e-3"); err != nil || *tf.value != -1.5e-3 || tf.String() != "-0.0015" {
		t.Errorf("Set(-1.5e-3): %v, %q", err, tf.String())
	}
	if err := tf.Set("none"); err != nil || tf.value != nil || !tf.set || tf.String() != "none" {
		t.Errorf("Set(none): %v, %v", err, tf.value)
	}
	for _, in := range []string{"", "NaN", "-Inf", "low"} {
		if err := tf.Set(in); err == nil {
			t.Errorf("Set(%q) succeeded", in)
		}
	}
}

func TestPointFlag(t *testing.T) {
	var p pointFlag
	if err := p.Set(" 1, -2.5 ,3e-2"); err != nil || p.String() != "1,-2.5,0.03" {
		t.Errorf("Set: %v, %q", err, p.String())
	}
	for _, in := range []string{"", "1,,2", "1 2", "NaN", "1,Inf"} {
		if err := p.Set(in); err == nil {
			t.Errorf("Set(%q) succeeded: %v", in, p)
		}
	}
}
