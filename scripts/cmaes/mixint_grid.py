#!/usr/bin/env python3
"""CMA-ES with Margin (CyberAgent cmaes 0.13.1, CMAwM) on COCO's bbob-mixint.

Runs CMAwM with IPOP restarts on bbob-mixint functions through
`hees eval`, in the setup of `hees bench -suite bbob-mixint -restarts ipop`
(BENCHMARKS.md, section "bbob-mixint"), and writes one CSV row per run;
`-summary` turns such rows into a summary.csv like the one hees bench
writes (ERT to 1e1 ... 1e-8), and `-compare` prints the comparison tables
of BENCHMARKS.md from summary files.

The runs:

    problem    bbob-mixint/f<F>/i<I> in dimension D, evaluated by one
               long-lived `hees eval -f SPEC -d D` per run (COCO-exact);
               f* from `hees eval -opt`
    domains    COCO's: the coordinates fall in five equal groups, integer
               with 2, 4, 8 and 16 values 0 ... k-1, then continuous on
               [-5, 5]; CMAwM gets bounds [0, k-1] with step 1 and
               [-5, 5] with step 0 (continuous)
    start      m0 uniform in the domains (numpy default_rng(seed)), sigma0 =
               2 and the initial covariance diag(s_i^2) with s_i = w_i/g,
               w_i the width of coordinate i's domain and g the geometric
               mean of the widths: the initial distribution of hees bench
               (es.Config with these Bounds: default Stds); -cov identity
               gives CMAwM its own default, the identity
    CMAwM      its defaults otherwise: population 4 + floor(3 ln D),
               margin 1/(D lambda), n_max_resampling 100, seed = the run's
               seed, then seed + 1000 r for restart r
    IPOP       when should_stop() fires: a new CMAwM with twice the
               population, a new m0 drawn uniformly in the domains, the
               same sigma0 and covariance
    end        at the first evaluated f - f* <= 1e-8, or when the next
               generation would exceed the budget of B*D evaluations
    counting   a target is hit at the evaluation number (in candidate
               order, from 1) of the first value with f - f* <= target

Output columns: algorithm,function,dim,instance,seed,evals,restarts,
hit_1e1,...,hit_1e-8 (-1: never), best_delta, cpu_s, stop. Runs already in
the output file are skipped, so an interrupted grid continues; lines that
start with '#' are comments.

Needs python3, numpy, and cmaes 0.13.1 on PYTHONPATH (the script refuses
another version): `pip install cmaes==0.13.1`, or the directory cmaes of
the tag v0.13.1 of github.com/CyberAgentAILab/cmaes. scipy is not needed.

    PYTHONPATH=/path/to/cmaes python3 scripts/cmaes/mixint_grid.py \\
        -hees /tmp/hees -dims 5,10,20 -functions 1-24 -instances 1-15 \\
        -budget 1e4 -out /tmp/cmawm-mixint.csv
    python3 scripts/cmaes/mixint_grid.py -summary /tmp/cmawm-mixint.csv \\
        > /tmp/cmawm-summary.csv
    python3 scripts/cmaes/mixint_grid.py -compare ipop-hees2-margin \\
        /tmp/mixint-margin/summary.csv /tmp/mixint-round/summary.csv \\
        /tmp/cmawm-summary.csv
"""

import argparse
import csv
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heeseval  # noqa: E402  (scripts/heeseval.py)

CMAES_VERSION = "0.13.1"
SIGMA0 = 2.0
LEVELS = [1, 0, -1, -2, -3, -4, -5, -6, -7, -8]  # targets 10^k, as hees bench's summary
CARDINALITY = [2, 4, 8, 16, 0]  # per group of D/5 coordinates; 0: continuous [-5, 5]
ALGORITHM = "ipop-cmawm"


def domains(d):
    """Per coordinate (lo, hi, step) of bbob-mixint in dimension d."""
    group = d // 5
    out = []
    for i in range(d):
        k = CARDINALITY[i // group]
        out.append((0.0, float(k - 1), 1.0) if k else (-5.0, 5.0, 0.0))
    return out


class Problem:
    """One `hees eval` process for the points of one run, and f*."""

    def __init__(self, hees, spec, d):
        cmd = [hees, "eval", "-f", spec, "-d", str(d)]
        self.fstar = heeseval.optimum(cmd)
        self.eval = heeseval.Evaluator(cmd)


def run(args, function, d, instance):
    """One IPOP run of CMAwM; returns the CSV row."""
    import numpy as np
    from cmaes import CMAwM

    seed = 100000 * d + 100 * function + instance
    dom = domains(d)
    lo = np.array([v[0] for v in dom])
    hi = np.array([v[1] for v in dom])
    steps = np.array([v[2] for v in dom])
    bounds = np.stack([lo, hi], axis=1)
    widths = hi - lo
    g = math.exp(np.mean(np.log(widths)))
    cov = np.diag((widths / g) ** 2) if args.cov == "box" else None
    budget = int(args.budget * d)
    prob = Problem(args.hees, "bbob-mixint/f%d/i%d" % (function, instance), d)
    draw = np.random.default_rng(seed)
    t0 = time.process_time()
    n, restarts, best = 0, 0, math.inf
    hits = [-1] * len(LEVELS)
    popsize, stop = None, ""
    while not stop:
        x0 = lo + draw.random(d) * widths
        opt = CMAwM(mean=x0, sigma=SIGMA0, bounds=bounds, steps=steps, cov=cov,
                    seed=seed + 1000 * restarts, population_size=popsize)
        while True:
            lam = opt.population_size
            if n + lam > budget:
                stop = "budget"
                break
            pairs = [opt.ask() for _ in range(lam)]
            fs = prob.eval.values([p[0] for p in pairs])
            for k, f in enumerate(fs):
                delta = f - prob.fstar
                best = min(best, delta)
                for j, level in enumerate(LEVELS):
                    if hits[j] < 0 and delta <= 10.0 ** level:
                        hits[j] = n + k + 1
            n += lam
            if hits[-1] >= 0:
                stop = "target"
                break
            opt.tell([(p[1], f) for p, f in zip(pairs, fs)])
            if opt.should_stop():
                break
        if not stop:
            restarts += 1
            popsize = 2 * opt.population_size
    cpu = time.process_time() - t0 + prob.eval.cpu()
    prob.eval.close()
    return [args.name, function, d, instance, seed, n, restarts] + hits + [repr(best), "%.2f" % cpu, stop]


def header():
    return (["algorithm", "function", "dim", "instance", "seed", "evals", "restarts"]
            + ["hit_1e%d" % k for k in LEVELS] + ["best_delta", "cpu_s", "stop"])


def rows(fh):
    """The CSV rows of fh, without the comment lines that start with '#'."""
    return csv.DictReader(line for line in fh if not line.startswith("#"))


def grid(args):
    import cmaes
    if cmaes.__version__ != CMAES_VERSION:
        sys.exit("cmaes %s found, this script is for %s" % (cmaes.__version__, CMAES_VERSION))
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as fh:
            for row in rows(fh):
                done.add((int(row["function"]), int(row["dim"]), int(row["instance"])))
    new = not os.path.exists(args.out) or os.path.getsize(args.out) == 0
    with open(args.out, "a", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        if new:
            w.writerow(header())
        for d in heeseval.int_ranges(args.dims):
            for f in heeseval.int_ranges(args.functions):
                for i in heeseval.int_ranges(args.instances):
                    if (f, d, i) in done:
                        continue
                    w.writerow(run(args, f, d, i))
                    fh.flush()


def summary(path):
    """summary.csv rows (hees bench's format) from a file of runs."""
    runs = {}
    with open(path) as fh:
        for row in rows(fh):
            runs.setdefault((int(row["function"]), int(row["dim"])), []).append(row)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["algorithm", "function", "dim", "runs", "successes"] + ["ert_1e%d" % k for k in LEVELS])
    for (f, d) in sorted(runs, key=lambda k: (k[0], k[1])):
        rs = runs[(f, d)]
        erts = []
        for k in LEVELS:
            hits = [int(r["hit_1e%d" % k]) for r in rs]
            ok = sum(h >= 0 for h in hits)
            total = sum(h if h >= 0 else int(r["evals"]) for h, r in zip(hits, rs))
            erts.append(repr(total / ok) if ok else "Inf")
        ok8 = sum(int(r["hit_1e-8"]) >= 0 for r in rs)
        w.writerow([rs[0]["algorithm"], f, d, len(rs), ok8] + erts)


def read_summary(path):
    """{algorithm: {(function, dim): (ert_1e-8, successes, runs)}}."""
    out = {}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            ert = float(row["ert_1e-8"])
            out.setdefault(row["algorithm"], {})[(int(row["function"]), int(row["dim"]))] = (
                ert, int(row["successes"]), int(row["runs"]))
    return out


def compare(base, paths):
    """Markdown tables: ERT to 1e-8 per function, and each algorithm's
    geometric mean of ERT / ERT(base) over the functions both solved."""
    algs = {}
    for p in paths:
        algs.update(read_summary(p))
    names = list(algs)
    if base not in algs:
        sys.exit("no algorithm %r in %s" % (base, ", ".join(names)))
    dims = sorted({d for a in algs.values() for (_, d) in a})
    funcs = sorted({f for a in algs.values() for (f, _) in a})
    for d in dims:
        print("\nd = %d: ERT to 1e-8, in parentheses the runs that reached it\n" % d)
        print("| f | " + " | ".join(names) + " |")
        print("| ---: |" + " ---: |" * len(names))
        for f in funcs:
            cells = []
            for n in names:
                e, s, r = algs[n].get((f, d), (math.inf, 0, 0))
                cells.append("— (0/%d)" % r if s == 0 else "%.4g (%d/%d)" % (e, s, r))
            print("| %d | %s |" % (f, " | ".join(cells)))
        print("\n| algorithm | runs that reached 1e-8 | geometric mean of ERT / ERT(%s) | functions both solved | ratio < 1 on |" % base)
        print("| --- | ---: | ---: | ---: | ---: |")
        for n in names:
            solved = sum(v[1] for (f, dd), v in algs[n].items() if dd == d)
            runs = sum(v[2] for (f, dd), v in algs[n].items() if dd == d)
            logs, wins = [], 0
            for f in funcs:
                e, s, _ = algs[n].get((f, d), (math.inf, 0, 0))
                eb, sb, _ = algs[base].get((f, d), (math.inf, 0, 0))
                if s and sb:
                    logs.append(math.log(e / eb))
                    wins += e < eb
            gm = math.exp(sum(logs) / len(logs)) if logs else math.nan
            print("| %s | %d of %d | %.3f | %d | %d |" % (n, solved, runs, gm, len(logs), wins))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("-hees", default="hees", help="the hees binary")
    p.add_argument("-dims", default="5,10,20")
    p.add_argument("-functions", default="1-24")
    p.add_argument("-instances", default="1-15")
    p.add_argument("-budget", type=float, default=1e4, help="evaluations per run, times D")
    p.add_argument("-cov", default="box", choices=["box", "identity"],
                   help="the initial covariance: box, diag((w/g)^2) as hees bench's; identity, CMAwM's default")
    p.add_argument("-name", default=ALGORITHM, help="the algorithm column of the rows")
    p.add_argument("-out", default="cmawm-mixint.csv", help="the CSV of runs, appended to")
    p.add_argument("-summary", metavar="RUNS", help="print summary.csv rows of the runs in RUNS")
    p.add_argument("-compare", metavar="BASE", help="compare the summary files given as arguments with BASE")
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    if args.summary:
        summary(args.summary)
    elif args.compare:
        compare(args.compare, args.files)
    else:
        grid(args)


if __name__ == "__main__":
    main()
