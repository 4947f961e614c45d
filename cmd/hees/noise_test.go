package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/objectives"
)

// The golden cases of -noise: a run's summary with the recommendation,
// and the misuses.
func init() {
	cliCases = append(cliCases,
		cliCase{"run_noise_json", []string{"run", "-f", "sphere:noise=add,sigma=0.01", "-d", "3", "-noise", "-noise-evals", "3", "-max-evals", "600", "-json"}, ""},
		cliCase{"run_noise_elitist", []string{"run", "-algo", "es11", "-noise", "-d", "3"}, ""},
		cliCase{"run_noise_evals_alone", []string{"run", "-noise-evals", "3", "-d", "3"}, ""},
		cliCase{"run_noise_evals_zero", []string{"run", "-noise", "-noise-evals", "0", "-d", "3"}, ""},
		cliCase{"init_noise_elitist", []string{"init", "-state", "testdata/never-written.hees", "-algo", "cma11", "-noise", "-d", "3"}, ""},
	)
}

// TestRunNoise checks hees run -noise: the same bytes with 1 and 3
// workers, with IPOP too; a recommendation whose estimate comes from at
// least two evaluations, nearer to the optimum than the best single value
// says; no default target; and that every resume from a checkpoint of
// the run prints what the uninterrupted run printed.
func TestRunNoise(t *testing.T) {
	args := []string{"-f", "sphere:noise=add,sigma=0.1", "-d", "4", "-noise", "-noise-evals", "4", "-max-evals", "3000", "-seed", "5"}
	rep, one := runJSON(t, append(args, "-workers", "1")...)
	if _, three := runJSON(t, append(args, "-workers", "3")...); three != one {
		t.Errorf("-workers 1 and 3 differ:\n%s%s", one, three)
	}
	rec, ok := rep["recommendation"].(map[string]any)
	if !ok || rec["evals"].(float64) < 2 || rep["target"] != nil || rep["stop_reason"] != string(es.ReasonMaxEvals) {
		t.Fatalf("summary %s", one)
	}
	var sq float64
	for _, v := range rec["x"].([]any) {
		sq += v.(float64) * v.(float64)
	}
	if !(sq < 0.1) || !(rep["f_best"].(float64) < 0) {
		t.Errorf("recommendation at |x|^2 = %v, best single value %v (luck below f* = 0 expected)", sq, rep["f_best"])
	}
	code, out, _ := runCLI("run", "-f", "bbob-noisy/f107/i2", "-d", "3", "-algo", "cmaes", "-noise", "-max-evals", "600", "-q")
	if code != exitOK || !strings.Contains(out, "\nrecommended  ") || !strings.Contains(out, ", estimated from 2 evaluations\nat x         ") {
		t.Errorf("the summary of -noise:\n%s", out)
	}
	if _, out, _ := runCLI("run", "-f", "bbob-noisy/f107/i2", "-d", "3", "-max-evals", "600", "-q"); strings.Contains(out, "recommended") {
		t.Errorf("a run without -noise recommends:\n%s", out)
	}
	ipop := append(args, "-restarts", "ipop", "-algo", "cmaes")
	if _, a := runJSON(t, append(ipop, "-workers", "1")...); !strings.Contains(a, `"recommendation"`) {
		t.Errorf("ipop-cmaes: %s", a)
	} else if _, b := runJSON(t, append(ipop, "-workers", "2")...); a != b {
		t.Errorf("ipop-cmaes: -workers 1 and 2 differ:\n%s%s", a, b)
	}

	// Resumes: the checkpoints of every generation, as in
	// TestResumeFromAnyGeneration, with the handler around the strategy.
	dir := t.TempDir()
	rs := checkpoint.Settings{Algo: "hees2", Restarts: "none", Seed: 5, Problem: "sphere:noise=add,sigma=0.1", Dim: 4, MaxEvals: 3000,
		Workers: 1, TraceEvery: 1}
	problem, err := objectives.Parse(rs.Problem, rs.Dim)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := es.New("hees2", es.Config{Dim: 4, Seed: 5, Sigma0: 2, Box: 3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := es.NewNoiseHandler(inner, es.NoiseConfig{MaxEvals: 4})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.hees")
	cp, err := checkpoint.Create(context.Background(), path, 1<<30, &rs, s, nil, runner.Metadata(&rs, problem, s))
	if err != nil {
		t.Fatal(err)
	}
	snapshots := [][]byte{readFile(t, path)}
	opt := runner.Options(&rs, problem)
	opt.Progress = func(pr es.Progress) {
		data, err := cp.Encode(pr.Strategy, pr.Stop)
		if err != nil {
			t.Fatal(err)
		}
		snapshots = append(snapshots, data)
	}
	if _, err := es.Minimize(context.Background(), runner.Objective(&rs, problem), s, opt); err != nil {
		t.Fatal(err)
	}
	cp.Close()
	for _, g := range spread(len(snapshots)) {
		st, err := checkpoint.Decode(snapshots[g])
		if err != nil {
			t.Fatalf("generation %d: %v", g, err)
		}
		st.File.Every = 100
		data, err := encodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "gen"+strconv.Itoa(g)+".hees")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI("resume", "-json", p)
		if code != exitOK || out != one {
			t.Fatalf("resume from generation %d: exit %d, printed\n%s, want\n%s, stderr:\n%s", g, code, out, one, errOut)
		}
	}
}

// TestRunNoiseStopRestart checks hees run -noise across a stop of the
// strategy, which starts a new run from its mean (docs/ALGORITHMS.md
// Section 20 item 4): on the sphere with multiplicative noise hees2
// converges, stops and starts anew, counted in doublings; the
// recommendation stays the converged point; the bytes are the same with
// 1 and 3 workers, and a checkpoint taken after the new run started
// (state version 4) resumes to the same summary.
func TestRunNoiseStopRestart(t *testing.T) {
	args := []string{"-f", "sphere:noise=mul,sigma=0.5", "-d", "4", "-noise", "-seed", "5", "-max-evals"}
	rep, want := runJSON(t, append(args, "4000")...)
	rec, ok := rep["recommendation"].(map[string]any)
	if !ok || rep["doublings"] == nil || rep["doublings"].(float64) < 1 {
		t.Fatalf("no new run in the summary %s", want)
	}
	var sq float64
	for _, v := range rec["x"].([]any) {
		sq += v.(float64) * v.(float64)
	}
	if !(sq < 1e-8) {
		t.Errorf("the recommendation is at |x|^2 = %v after a new run started: %s", sq, want)
	}
	if _, three := runJSON(t, append(args, "4000", "-workers", "3")...); three != want {
		t.Errorf("-workers 1 and 3 differ:\n%s%s", want, three)
	}
	path := filepath.Join(t.TempDir(), "run.hees")
	if part, _ := runJSON(t, append(args, "2500", "-checkpoint", path)...); part["doublings"] == nil {
		t.Fatal("the checkpoint is from before the new run: it does not test state version 4")
	}
	if code, out, errOut := runCLI("resume", path, "-json", "-max-evals", "4000"); code != exitOK || out != want {
		t.Errorf("resumed after the new run: exit %d, printed\n%s, want\n%s, stderr:\n%s", code, out, want, errOut)
	}
}

// TestWorkerNoise drives a run of hees init -noise -noise-evals with one
// hees worker on a noisy program: it ends with the bits of hees run -noise
// with the same program (the best value, the recommendation and its
// evaluations), and hees status shows the recommendation. The second run's
// noise dominates from the start, so that its handler doubles the
// population four times (the "doublings" of hees run -json; at generations
// 15, 26, 38 and 48 of 58): the worker's state crosses them, and hees
// status reports them. The first recommends an average of means, which
// status says.
func TestWorkerNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	averaged := 0
	for _, tc := range []struct {
		spec      string
		args      []string
		doublings any
	}{
		{"sphere:noise=add,sigma=0.1", []string{"-d", "3", "-noise", "-noise-evals", "3", "-max-evals", "900", "-seed", "2"}, nil},
		{"sphere:noise=add,sigma=100", []string{"-d", "3", "-noise", "-max-evals", "3000", "-seed", "2"}, 4.0},
	} {
		command := workerCommand(t, tc.spec)
		want, _ := runJSON(t, append([]string{"-cmd", command, "-box", "3"}, tc.args...)...)
		if want["doublings"] != tc.doublings {
			t.Errorf("%s: hees run doubled the population %v times, want %v", tc.spec, want["doublings"], tc.doublings)
		}
		state := filepath.Join(t.TempDir(), "run.hees")
		mustCLI(t, "", append([]string{"init", "-state", state}, tc.args...)...)
		workerToEnd(t, "worker", state, command)
		got := status(t, state)
		sameAsRun(t, "worker "+tc.spec, got, want, "evals", "f_best", "x_best", "recommendation", "stop_reason")
		if got["generation"] != want["generations"] {
			t.Errorf("%s: worker at generation %v, hees run %v", tc.spec, got["generation"], want["generations"])
		}
		if rec, ok := got["recommendation"].(map[string]any); !ok || rec["evals"].(float64) < 2 {
			t.Errorf("%s: recommendation %v", tc.spec, got["recommendation"])
		}
		if got["doublings"] != tc.doublings {
			t.Errorf("%s: status: %v doublings, want %v", tc.spec, got["doublings"], tc.doublings)
		}
		out := mustCLI(t, "", "status", "-state", state)
		if !strings.Contains(out, "\nrecommended  ") || (tc.doublings != nil) != strings.Contains(out, ", the population doubled 4 times\n") {
			t.Errorf("%s: status:\n%s", tc.spec, out)
		}
		if means := got["recommendation"].(map[string]any)["means"].(float64); means > 1 {
			averaged++
			if !strings.Contains(out, fmt.Sprintf(", the average of %v means, estimated from ", means)) {
				t.Errorf("%s: an average of %v means, status:\n%s", tc.spec, means, out)
			}
		}
	}
	if averaged == 0 {
		t.Error("no run recommended an average of means: the status line of one is not checked")
	}
}

// TestDoubledText checks what the summaries say of the doublings.
func TestDoubledText(t *testing.T) {
	for n, want := range map[int]string{0: "", 1: ", the population doubled once", 4: ", the population doubled 4 times"} {
		if got := doubledText(n); got != want {
			t.Errorf("doubledText(%d) = %q, want %q", n, got, want)
		}
	}
}
