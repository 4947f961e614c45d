#!/usr/bin/env python3
"""pycma's NoiseHandler and CyberAgent's LRA-CMA-ES on noisy problems,
recorded the way `go test ./es -run TestNoisyGrid -noisygrid` records hees.

    PYTHONPATH=/path/to/pycma:/path/to/cmaes python3 scripts/noisy/peers.py \\
        PEER SPEC -d D [-seeds 1-15] [-budget N] [-hees CMD] [-header]

PEER is one of

    pycma-noise  cma.fmin(f, x0, sigma0, options, noise_handler=cma.NoiseHandler(d))
                 (pycma 4.4.0; fmin calls f one point at a time, and the
                 re-evaluations of the noise handler count as evaluations)
    cmaes-lra    cmaes.CMA(mean=x0, sigma=sigma0, seed=seed, lr_adapt=True)
                 (CyberAgent cmaes 0.13.1), ask/tell one generation at a time
    pycma        cma.CMAEvolutionStrategy(x0, sigma0, options), ask/tell
    cmaes        cmaes.CMA(mean=x0, sigma=sigma0, seed=seed)

each with its defaults otherwise; pycma gets the options seed, maxfevals =
budget, verbose -9, verb_log 0, verb_disp 0. No run restarts.

SPEC is a noisy problem of `hees eval` (bbob-noisy/f101/i3,
sphere:noise=add,sigma=0.01, ...). Each run starts one `hees eval -f SPEC
-d D`, whose values the optimizer sees (a bbob-noisy problem draws COCO's
noise sequence from its start, so every run of a problem sees the same
sequence, as in a COCO experiment that resets its seeds; the classic noisy
problems draw theirs from the key 0, 1, 2, ... of seed 0), and one
`hees eval -noiseless`, which gives the noise-free value of every evaluated
point and of the optimizer's mean; the noise-free values are never shown to
the optimizer. x0 is uniform in [-4, 4]^d (numpy default_rng(seed)) for a
bbob-noisy SPEC, 3 1 otherwise; sigma0 2.

A run ends when an evaluated point has a noise-free value f - f* <= 1e-8
(f* from `hees eval -opt`), when the next generation would exceed the
budget (fmin: at the first evaluation beyond it), or when the optimizer
stops. One CSV line per run:

    algo,problem,d,seed,evals,stop,hits,rec,cpu_s   (problem in double quotes)

    evals   evaluations done, re-evaluations included
    stop    target, budget, or the optimizer's reason
    hits    51 numbers separated by spaces: for each target 10^(2 - k/5),
            k = 0..50, the number of the first evaluation (from 1, in
            call order) whose noise-free f - f* is at most it, -1 for none
    rec     the noise-free f - f* of the recommended point, the mean of the
            search distribution (pycma's xfavorite, cmaes' mean), after the
            last generation that ended within d 10^(j/2) evaluations,
            j = 2, 3, ... up to the budget, separated by spaces; after the
            run ended, its last mean; "nan" before the first generation ends
    cpu_s   CPU seconds of this process and of its two hees eval processes

`go test ./es -run TestNoisyGrid -noisygrid` writes the same columns for
hees's strategies, and scripts/noisy/summarize.py reads both.
"""

import argparse
import math
import os
import shlex
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heeseval  # noqa: E402  (scripts/heeseval.py)

warnings.filterwarnings("ignore")  # pycma warns that matplotlib is missing

PEERS = ["pycma-noise", "cmaes-lra", "pycma", "cmaes"]
TARGETS = [10 ** (2 - k / 5) for k in range(51)]
FINAL = 1e-8


class Stop(Exception):
    def __init__(self, why):
        self.why = why


def budgets(d, budget):
    out, j = [], 2
    while d * 10 ** (j / 2) <= budget * (1 + 1e-12):
        out.append(d * 10 ** (j / 2))
        j += 1
    return out


class Run:
    """The evaluations of one run: noisy values for the optimizer, the
    noise-free record, the budget and the final target."""

    def __init__(self, hees, spec, d, fstar, budget):
        cmd = hees + ["eval", "-f", spec, "-d", str(d)]
        self.noisy, self.clean = heeseval.Evaluator(cmd), heeseval.Evaluator(cmd + ["-noiseless"])
        self.d, self.fstar, self.budget = d, fstar, budget
        self.n = 0
        self.hits = [-1] * len(TARGETS)
        self.marks = budgets(d, budget)
        self.rec = [math.nan] * len(self.marks)
        self.last = math.nan

    def _record(self, deltas):
        for k, v in enumerate(deltas):
            n = self.n + k + 1
            for t, target in enumerate(TARGETS):
                if self.hits[t] < 0 and v <= target:
                    self.hits[t] = n

    def many(self, xs):
        """The noisy values of a generation; raises Stop at the target."""
        xs = np.asarray(xs, dtype=float)
        fs = np.array(self.noisy.values(xs))
        self._record(np.array(self.clean.values(xs)) - self.fstar)
        self.n += len(xs)
        if self.hits[-1] >= 0:
            raise Stop("target")
        return fs

    def one(self, x, *args):
        if self.n >= self.budget:
            raise Stop("budget")
        return float(self.many(np.asarray(x, dtype=float)[None, :])[0])

    def generation_done(self, mean):
        """Records the recommendation (the mean) after a generation."""
        self.last = self.clean.values([mean])[0] - self.fstar
        for j, b in enumerate(self.marks):
            if self.n <= b:
                self.rec[j] = self.last

    def finish(self):
        for j, b in enumerate(self.marks):
            if self.n > b:
                continue
            if not math.isnan(self.last):
                self.rec[j] = self.last
        cpu = self.noisy.cpu() + self.clean.cpu()
        self.noisy.close()
        self.clean.close()
        return cpu


def run_pycma_noise(run, x0, sigma0, seed):
    import cma
    opts = {"seed": seed, "maxfevals": run.budget, "verbose": -9, "verb_log": 0, "verb_disp": 0}
    try:
        res = cma.fmin(run.one, x0, sigma0, opts, noise_handler=cma.NoiseHandler(len(x0)),
                       callback=lambda es: run.generation_done(es.mean))
    except Stop as s:
        return s.why
    return ";".join(sorted(res[-3])) if res[-3] else "?"


def run_pycma(run, x0, sigma0, seed):
    import cma
    opts = {"seed": seed, "maxfevals": run.budget, "verbose": -9, "verb_log": 0, "verb_disp": 0}
    es = cma.CMAEvolutionStrategy(x0, sigma0, opts)
    try:
        while True:
            stop = es.stop()
            if stop:
                return ";".join(sorted(stop))
            if run.n + es.popsize > run.budget:
                return "budget"
            xs = es.ask()
            fs = run.many(np.array(xs))
            es.tell(xs, list(fs))
            run.generation_done(es.mean)
    except Stop as s:
        return s.why


def run_cmaes(run, x0, sigma0, seed, lra):
    import cmaes
    opt = cmaes.CMA(mean=x0.copy(), sigma=sigma0, seed=seed, lr_adapt=lra)
    try:
        while True:
            if run.n + opt.population_size > run.budget:
                return "budget"
            xs = [opt.ask() for _ in range(opt.population_size)]
            fs = run.many(np.array(xs))
            opt.tell(list(zip(xs, fs)))
            run.generation_done(opt.mean)
            if opt.should_stop():
                return "should_stop"
    except Stop as s:
        return s.why


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("peer", choices=PEERS)
    p.add_argument("spec")
    p.add_argument("-d", type=int, required=True)
    p.add_argument("-seeds", default="1-15")
    p.add_argument("-budget", type=float, default=None, help="evaluations per run (default 1e4 d)")
    p.add_argument("-sigma0", type=float, default=2.0)
    p.add_argument("-hees", default="hees", help="how to run hees, e.g. \"go run ./cmd/hees\"")
    p.add_argument("-header", action="store_true")
    args = p.parse_args()
    d = args.d
    budget = int(args.budget) if args.budget else 10000 * d
    hees = shlex.split(args.hees)
    fstar = heeseval.optimum(hees + ["eval", "-f", args.spec, "-d", str(d)])
    if args.header:
        print("algo,problem,d,seed,evals,stop,hits,rec,cpu_s", flush=True)
    for seed in heeseval.int_ranges(args.seeds):
        if args.spec.startswith("bbob"):
            x0 = np.random.default_rng(seed).uniform(-4, 4, d)
        else:
            x0 = np.full(d, 3.0)
        run = Run(hees, args.spec, d, fstar, budget)
        t0 = time.process_time()
        if args.peer == "pycma-noise":
            stop = run_pycma_noise(run, x0, args.sigma0, seed)
        elif args.peer == "pycma":
            stop = run_pycma(run, x0, args.sigma0, seed)
        else:
            stop = run_cmaes(run, x0, args.sigma0, seed, args.peer == "cmaes-lra")
        cpu = time.process_time() - t0 + run.finish()
        print("%s,\"%s\",%d,%d,%d,%s,%s,%s,%.2f" % (
            args.peer, args.spec, d, seed, run.n, stop, " ".join(map(str, run.hits)),
            " ".join("%.6g" % v for v in run.rec), cpu), flush=True)


if __name__ == "__main__":
    main()
