package main

import (
	"testing"

	"github.com/hees-dev/hees/es"
)

// The golden cases of the bbob-noisy problems: hees eval prints COCO's
// noise sequence (testdata/eval_bbob_noisy.golden holds the values COCO's C
// code prints for these points, in this order, to the last digit), the
// noise-free values, the optimum, and a one-line error for each misuse.
func init() {
	cliCases = append(cliCases,
		cliCase{"eval_bbob_noisy", []string{"eval", "-f", "bbob-noisy/f101/i1", "-d", "5"},
			"0 0 0 0 0\n0 0 0 0 0\n1 2 3 4 5\n6 1 1 1 1\n0.2528 -1.1568 -0.724 1.9264 -2.6808\n"},
		cliCase{"eval_bbob_noisy_cauchy", []string{"eval", "-f", "bbob-noisy/f109/i3", "-d", "2"},
			"1 1\n1 1\n1 1\n1 1\n1 1\n1 1\n1 1\n1 1\nInf 1\nNaN 1\n1 1\n"},
		cliCase{"eval_bbob_noisy_noiseless", []string{"eval", "-f", "bbob-noisy/f101/i1", "-d", "5", "-noiseless"},
			"0 0 0 0 0\n0 0 0 0 0\n1 2 3 4 5\n6 1 1 1 1\n"},
		cliCase{"opt_bbob_noisy", []string{"eval", "-f", "bbob-noisy/f128/i2", "-d", "3", "-opt"}, ""},
		cliCase{"eval_noiseless_not_noisy", []string{"eval", "-f", "sphere", "-d", "2", "-noiseless"}, "1 2\n"},
		cliCase{"eval_opt_and_noiseless", []string{"eval", "-f", "bbob-noisy/f101", "-d", "2", "-noiseless", "-opt"}, ""},
		cliCase{"eval_bbob_noisy_bad_function", []string{"eval", "-f", "bbob-noisy/f131", "-d", "2"}, ""},
		cliCase{"eval_bbob_noisy_bad_dim", []string{"eval", "-f", "bbob-noisy/f101/i2", "-d", "1"}, ""},
	)
}

// TestRunNoisyWorkers checks that a run on a noisy problem does not depend
// on -workers: the noise of each evaluation is keyed by its number in the
// run, not drawn in the order of the calls.
func TestRunNoisyWorkers(t *testing.T) {
	for _, spec := range []string{"bbob-noisy/f102/i1", "bbob-noisy/f124/i2", "bbob-noisy/f130/i3"} {
		args := []string{"-f", spec, "-d", "4", "-restarts", "ipop", "-algo", "cmaes", "-max-evals", "3000"}
		_, one := runJSON(t, append(args, "-workers", "1")...)
		_, four := runJSON(t, append(args, "-workers", "4")...)
		if one != four {
			t.Errorf("%s: -workers 1 and 4 differ:\n%s%s", spec, one, four)
		}
		_, other := runJSON(t, append(args, "-workers", "1", "-seed", "2")...)
		if other == one {
			t.Errorf("%s: seeds 1 and 2 give the same run", spec)
		}
	}
}

// TestRunNoisyNoDefaultTarget: a noisy problem has no default target,
// with or without -noise (before: sphere:noise=add,sigma=1 stopped with
// "target reached" after 20 evaluations at a point 0.14 above f*, its
// noisy value below f* + 1e-8 by luck); a target given is kept.
func TestRunNoisyNoDefaultTarget(t *testing.T) {
	for _, spec := range []string{"sphere:noise=add,sigma=1", "bbob-noisy/f101/i1"} {
		rep, out := runJSON(t, "-f", spec, "-d", "2", "-max-evals", "400")
		if rep["target"] != nil || rep["stop_reason"] == string(es.ReasonTarget) {
			t.Errorf("%s: %s", spec, out)
		}
	}
	rep, out := runJSON(t, "-f", "sphere:noise=add,sigma=1", "-d", "2", "-max-evals", "400", "-target", "0.5")
	if rep["target"] != 0.5 {
		t.Errorf("a target given: %s", out)
	}
	if rep, out := runJSON(t, "-f", "sphere", "-d", "2", "-max-evals", "400"); rep["target"] != 1e-8 {
		t.Errorf("a noise-free problem lost its default target: %s", out)
	}
}
