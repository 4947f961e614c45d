#!/usr/bin/python3
"""Run one peer optimizer on one problem; one CSV line per run (seed).

    PYTHONPATH=/path/to/pycma-4.4.0:/path/to/cmaes-0.13.1 \
        python3 scripts/peers/peer.py PEER PROBLEM -d D [-seeds 1-15] ...

Columns (no header unless -header):

    peer,problem,d,seed,evals,best_f,total_evals,cpu_s,stop

    evals        evaluations up to and including the first f - f* <= target
                 in candidate order (earlier generations + index in the
                 generation + 1), as scripts/pycma/classic_grid.py and
                 es/grid_test.go count; -1 if never reached
    best_f       the best f seen (raw, not f - f*)
    total_evals  all evaluations the run did (the run stops at the end of
                 the generation that hit the target, or at the peer's own
                 stop, or when the budget is used up)
    cpu_s        CPU seconds of this process for the run (user + sys), plus
                 those of the hees eval subprocess for hees:SPEC problems
    stop         why the run ended: target, budget, or the peer's reason

Peers (all with their default parameters unless stated):

    pycma        cma.CMAEvolutionStrategy, ask/tell
    pycma-diag   the same with CMA_diagonal=True (diagonal C for the whole
                 run, sep-CMA learning rates c1_sep/cmu_sep/cc_sep; NB for
                 d > 299 pycma then switches step-size adaptation from CSA
                 to TPA, in pycma 4.4.0)
    pycma-noise  cma.fmin(f, x0, sigma0, noise_handler=cma.NoiseHandler(d))
                 (one f call per point; re-evaluations count as evaluations)
    cmaes        cmaes.CMA
    cmaes-lra    cmaes.CMA(lr_adapt=True)
    cmaes-sep    cmaes.SepCMA
    cmawm        cmaes.CMAwM (bounds -bounds, steps -steps; steps 0 =
                 continuous, so by default it is CMA with box resampling)

Problems:

    sphere                    sum x_i^2                  (numpy, f* = 0)
    ellipsoid[:cond=C]        sum C^((i-1)/(d-1)) x_i^2  (numpy, C = 1e6)
    hees:SPEC                 any `hees eval` SPEC (sphere, rotellipsoid,
                              bbob/f10/i3, ...), through one long-lived
                              `hees eval -f SPEC -d D` per run; f* from
                              `hees eval -opt` (or -fstar)

x0: -x0 auto (default) is 3*1 except for bbob specs, which start at a
uniform point of [-4,4]^d from numpy default_rng(seed); -x0 uniform forces
that; -x0 NUMBER is NUMBER*1. sigma0: -sigma0 (default 2). Budget: -budget
(default max(1e5, 5000 d), as es/grid_test.go). Seeds: -seeds 1-15 or 1,4,7.
More pycma options: -popt "{'CMA_active': False}" (evaluated with cma, np).
"""

import argparse
import math
import os
import re
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heeseval  # noqa: E402  (scripts/heeseval.py)

warnings.filterwarnings("ignore")  # pycma warns that matplotlib is missing

PEERS = ["pycma", "pycma-diag", "pycma-noise", "cmaes", "cmaes-lra", "cmaes-sep", "cmawm"]


class Budget(Exception):
    pass


class Problem:
    """f of one point (1-D) or of many (rows of a 2-D array); f* and a name."""

    def __init__(self, spec, d, hees, fstar=None):
        self.spec, self.d, self.proc = spec, d, None
        m = re.fullmatch(r"(sphere|ellipsoid)(?::cond=([^,]+))?", spec)
        if m:
            if m.group(1) == "sphere":
                if m.group(2):
                    sys.exit("sphere takes no cond")
                self.c = np.ones(d)
            else:
                cond = float(m.group(2) or 1e6)
                # objectives.ellipsoidCoefficients: 1, then cond^(i/(d-1))
                self.c = np.array([1.0] + [cond ** (i / (d - 1)) for i in range(1, d)])
            self.fstar = 0.0 if fstar is None else fstar
            self.bbob = False
            return
        if not spec.startswith("hees:"):
            sys.exit("unknown problem %r (sphere, ellipsoid[:cond=C], hees:SPEC)" % spec)
        self.hspec = spec[5:]
        self.cmd = [hees, "eval", "-f", self.hspec, "-d", str(d)]
        self.bbob = self.hspec.startswith("bbob")
        self.fstar = heeseval.optimum(self.cmd, " (give -fstar)") if fstar is None else fstar

    def start(self):
        if hasattr(self, "cmd"):
            self.proc = heeseval.Evaluator(self.cmd)

    def child_cpu(self):
        """CPU seconds of the hees subprocess so far."""
        return 0.0 if self.proc is None else self.proc.cpu()

    def stop(self):
        if self.proc is not None:
            self.proc.close()
            self.proc = None

    def many(self, xs):
        xs = np.asarray(xs, dtype=float)
        if self.proc is None:
            return (xs * xs) @ self.c
        return np.array(self.proc.values(xs))

    def one(self, x):
        return float(self.many(np.asarray(x, dtype=float)[None, :])[0])


class Counter:
    """Counts evaluations in candidate order and notes the first hit."""

    def __init__(self, prob, target, budget):
        self.prob, self.target, self.budget = prob, target, budget
        self.n, self.hit, self.best = 0, -1, math.inf

    def many(self, xs):
        """Values of a whole generation (it may end past the budget)."""
        fs = self.prob.many(xs)
        for k, f in enumerate(fs):
            self._note(self.n + k + 1, f)
        self.n += len(fs)
        return fs

    def one(self, x, *args):
        if self.n >= self.budget:
            raise Budget()
        f = self.prob.one(x)
        self.n += 1
        self._note(self.n, f)
        return f

    def _note(self, n, f):
        if f < self.best:
            self.best = f
        if self.hit < 0 and f - self.prob.fstar <= self.target:
            self.hit = n


def pycma_extra(popt):
    """-popt: a Python dict literal of more pycma options (names cma, np known)."""
    import cma
    return eval(popt, {"cma": cma, "np": np}) if popt else {}


def run_pycma(cnt, x0, sigma0, seed, diag, budget, popt):
    import cma
    opts = {"seed": seed, "maxfevals": budget, "ftarget": cnt.prob.fstar + cnt.target,
            "verbose": -9, "verb_log": 0, "verb_disp": 0}
    opts.update(pycma_extra(popt))
    if diag:
        opts["CMA_diagonal"] = True
    es = cma.CMAEvolutionStrategy(x0, sigma0, opts)
    while True:
        stop = es.stop()
        if stop:
            return ";".join(sorted(stop))
        if cnt.n >= budget:
            return "budget"
        xs = es.ask()
        fs = cnt.many(np.array(xs))
        if cnt.hit >= 0:
            return "target"
        es.tell(xs, list(fs))


def run_pycma_noise(cnt, x0, sigma0, seed, budget, popt):
    import cma
    opts = {"seed": seed, "maxfevals": budget, "ftarget": cnt.prob.fstar + cnt.target,
            "verbose": -9, "verb_log": 0, "verb_disp": 0}
    opts.update(pycma_extra(popt))
    try:
        res = cma.fmin(cnt.one, x0, sigma0, opts, noise_handler=cma.NoiseHandler(len(x0)))
    except Budget:
        return "budget"
    return ";".join(sorted(res[-3])) if res[-3] else "?"


def run_cmaes(cnt, x0, sigma0, seed, kind, budget, bounds, steps):
    import cmaes
    d = len(x0)
    if kind == "cmaes-sep":
        opt = cmaes.SepCMA(mean=x0.copy(), sigma=sigma0, seed=seed)
    elif kind == "cmawm":
        b = np.tile(bounds, (d, 1))
        opt = cmaes.CMAwM(mean=x0.copy(), sigma=sigma0, bounds=b, steps=steps, seed=seed)
    else:
        opt = cmaes.CMA(mean=x0.copy(), sigma=sigma0, seed=seed, lr_adapt=(kind == "cmaes-lra"))
    while True:
        if cnt.n >= budget:
            return "budget"
        if kind == "cmawm":
            pairs = [opt.ask() for _ in range(opt.population_size)]
            fs = cnt.many(np.array([p[0] for p in pairs]))
            tell = [(p[1], f) for p, f in zip(pairs, fs)]
        else:
            xs = [opt.ask() for _ in range(opt.population_size)]
            fs = cnt.many(np.array(xs))
            tell = list(zip(xs, fs))
        if cnt.hit >= 0:
            return "target"
        opt.tell(tell)
        if opt.should_stop():
            return "should_stop"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], usage=None,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("peer", choices=PEERS)
    p.add_argument("problem")
    p.add_argument("-d", type=int, required=True)
    p.add_argument("-seeds", default="1-15")
    p.add_argument("-budget", type=float, default=None)
    p.add_argument("-target", type=float, default=1e-8, help="stop at f - f* <= target")
    p.add_argument("-x0", default="auto", help="auto, uniform, or a number")
    p.add_argument("-sigma0", type=float, default=2.0)
    p.add_argument("-fstar", type=float, default=None, help="override f*")
    p.add_argument("-hees", default="hees", help="the hees command (for hees:SPEC problems)")
    p.add_argument("-bounds", default="-inf,inf", help="cmawm: LO,HI for every coordinate")
    p.add_argument("-steps", default="0", help="cmawm: one step, or d comma-separated (0 = continuous)")
    p.add_argument("-popt", default="", help="pycma peers: more options, a Python dict literal, "
                   "e.g. \"{'AdaptSigma': cma.sigma_adaptation.CMAAdaptSigmaCSA}\"")
    p.add_argument("-header", action="store_true")
    args = p.parse_args()
    d = args.d
    budget = int(args.budget) if args.budget else max(100000, 5000 * d)
    prob = Problem(args.problem, d, args.hees, args.fstar)
    bounds = np.array([float(v) for v in args.bounds.split(",")])
    steps = np.array([float(v) for v in args.steps.split(",")])
    steps = np.full(d, steps[0]) if len(steps) == 1 else steps
    if args.header:
        print("peer,problem,d,seed,evals,best_f,total_evals,cpu_s,stop", flush=True)
    for seed in heeseval.int_ranges(args.seeds):
        if args.x0 == "uniform" or (args.x0 == "auto" and prob.bbob):
            x0 = np.random.default_rng(seed).uniform(-4, 4, d)
        elif args.x0 == "auto":
            x0 = np.full(d, 3.0)
        else:
            x0 = np.full(d, float(args.x0))
        cnt = Counter(prob, args.target, budget)
        prob.start()
        t0 = time.process_time()
        if args.peer in ("pycma", "pycma-diag"):
            stop = run_pycma(cnt, x0, args.sigma0, seed, args.peer == "pycma-diag", budget, args.popt)
        elif args.peer == "pycma-noise":
            stop = run_pycma_noise(cnt, x0, args.sigma0, seed, budget, args.popt)
        else:
            stop = run_cmaes(cnt, x0, args.sigma0, seed, args.peer, budget, bounds, steps)
        cpu = time.process_time() - t0 + prob.child_cpu()
        prob.stop()
        if cnt.hit >= 0:
            stop = "target"
        print("%s,%s,%d,%d,%d,%.17g,%d,%.3f,%s" % (args.peer, args.problem, d, seed, cnt.hit,
              cnt.best, cnt.n, cpu, stop), flush=True)


if __name__ == "__main__":
    main()
