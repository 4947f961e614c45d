#!/usr/bin/env python3
"""Tables of the noisy comparison from the CSV lines of
scripts/noisy/peers.py and `go test ./es -run TestNoisyGrid -noisygrid`.

    python3 scripts/noisy/summarize.py [-ref A,B] [-algos X,Y,...] [-instances I-J] [-per-function] FILE...

Standard library only (and scripts/heeseval.py). A run that appears twice
must have the same line (the runs are deterministic); it counts once.
Groups are (problem, d), where a bbob-noisy problem's instances make one
group, bbob-noisy/f101, and a classic spec's seeds another.

ERT. For a group and a target Δ (on the noise-free f - f*), ERT = (sum over
the runs of the evaluations to the first point with f - f* <= Δ, or all
the evaluations of a run that never got there) / (number of runs that got
there), COCO's expected running time; +inf when none did.

Tables:

 1. Per dimension and target (1e1, 1e-1, 1e-3, 1e-5, 1e-8): for each
    algorithm, the runs that reached the target (out of all), and the
    geometric mean of ERT(algorithm) / ERT(reference) over the groups both
    solved at least once (in parentheses, how many groups), against each
    reference algorithm of -ref (default pycma-noise,cmaes-lra) and against
    the better of them in each group ("best ref": the smaller ERT).
 2. Per dimension and budget d 10^(j/2): the geometric mean over all runs
    of the noise-free f - f* of the recommended point (values below 1e-8
    count as 1e-8, the final target, where a run stops), and the number of
    runs whose recommendation is within 1e-8 ... 1e-2 of f*.
 3. With -per-function: the ERT at 1e-1 and 1e-5 and the median
    recommendation at the last budget per group.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heeseval  # noqa: E402  (scripts/heeseval.py)

TARGETS = [10 ** (2 - k / 5) for k in range(51)]
SHOW = [(1e1, 5), (1e-1, 15), (1e-3, 25), (1e-5, 35), (1e-8, 50)]
FLOOR = 1e-8


def group_of(problem):
    if problem.startswith("bbob-noisy/"):
        return problem.rsplit("/", 1)[0]
    return problem


def load(files):
    runs = {}
    for name in files:
        with open(name) as fh:
            for row in csv.reader(line for line in fh if line.strip() and not line.startswith("#")):
                if row[0] == "algo":
                    continue
                algo, problem, d, seed, evals, stop, hits, rec = row[:8]
                key = (algo, problem, int(d), int(seed))
                val = (int(evals), stop, [int(h) for h in hits.split()],
                       [float(v) for v in rec.split()] if rec else [])
                if key in runs and runs[key][:3] != val[:3]:
                    sys.exit("%s: run %s differs from an earlier line" % (name, key))
                runs[key] = val
    return runs


def ert(rs, t):
    total, succ = 0, 0
    for evals, _, hits, _ in rs:
        if hits[t] >= 0:
            total += hits[t]
            succ += 1
        else:
            total += evals
    return (total / succ if succ else math.inf), succ


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-ref", default="pycma-noise,cmaes-lra")
    p.add_argument("-algos", default="")
    p.add_argument("-per-function", action="store_true")
    p.add_argument("-instances", default="",
                   help="only these bbob-noisy instances (the seeds of a classic spec), as 6-15 or 1,4,7-9")
    p.add_argument("files", nargs="+")
    args = p.parse_args()
    runs = load(args.files)
    if args.instances:
        try:
            keep = set(heeseval.int_ranges(args.instances))
        except ValueError:
            p.error("-instances %r: want ranges of integers, as 6-15 or 1,4,7-9" % args.instances)
        runs = {k: v for k, v in runs.items() if k[3] in keep}
        if not runs:
            p.error("-instances %s: no run of these instances in the files" % args.instances)
    cells = defaultdict(list)  # (algo, group, d) -> runs
    for (algo, problem, d, seed), v in sorted(runs.items()):
        cells[(algo, group_of(problem), d)].append(v)
    algos = args.algos.split(",") if args.algos else sorted({k[0] for k in cells})
    refs = [r for r in args.ref.split(",") if r]
    dims = sorted({k[2] for k in cells})
    for d in dims:
        groups = sorted({k[1] for k in cells if k[2] == d})
        print("\n## d = %d: %d groups" % (d, len(groups)))
        print("\nRuns that reached the target (of all), and geometric mean of the ERT ratio over the "
              "groups both solved (how many)\n")
        head = "| target | algorithm | runs | " + " | ".join("/ " + r for r in refs) + " | / best ref |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for t, ti in SHOW:
            for a in algos:
                rs_all = [cells[(a, g, d)] for g in groups if (a, g, d) in cells]
                n = sum(len(rs) for rs in rs_all)
                solved = sum(ert(rs, ti)[1] for rs in rs_all)
                cols = []
                for r in refs + ["*best*"]:
                    ratios = []
                    for g in groups:
                        if (a, g, d) not in cells:
                            continue
                        ea = ert(cells[(a, g, d)], ti)[0]
                        if r == "*best*":
                            er = min((ert(cells[(q, g, d)], ti)[0] for q in refs if (q, g, d) in cells),
                                     default=math.inf)
                        else:
                            if (r, g, d) not in cells:
                                continue
                            er = ert(cells[(r, g, d)], ti)[0]
                        if math.isfinite(ea) and math.isfinite(er):
                            ratios.append(ea / er)
                    cols.append("%.2f (%d)" % (gmean(ratios), len(ratios)) if ratios else "-")
                print("| %g | %s | %d/%d | %s |" % (t, a, solved, n, " | ".join(cols)))
        print("\nRecommended point: geometric mean of the noise-free f - f* (floor 1e-8) over the runs, "
              "and runs within 1e-8 / 1e-5 / 1e-2 of f*, per budget\n")
        nb = max(len(v[3]) for k, v in runs.items() if k[2] == d)
        budgets = ["%g" % (d * 10 ** ((j + 2) / 2)) for j in range(nb)]
        print("| algorithm | " + " | ".join(budgets) + " |")
        print("|" + "---|" * (nb + 1))
        for a in algos:
            vals = [[] for _ in range(nb)]
            for g in groups:
                for v in cells.get((a, g, d), []):
                    for j in range(nb):
                        x = v[3][j] if j < len(v[3]) else math.nan
                        vals[j].append(x)
            out = []
            for xs in vals:
                xs = [max(x, FLOOR) if not math.isnan(x) else math.inf for x in xs]
                fin = [x for x in xs if math.isfinite(x)]
                if not xs:
                    out.append("-")
                    continue
                out.append("%.2g [%d/%d/%d]" % (gmean(fin) if len(fin) == len(xs) else math.inf,
                                               sum(x <= 1e-8 for x in xs), sum(x <= 1e-5 for x in xs),
                                               sum(x <= 1e-2 for x in xs)))
            print("| %s | %s |" % (a, " | ".join(out)))
        if args.per_function:
            print("\nPer group: ERT to 1e-1 and 1e-5 (runs that reached it), median recommendation at "
                  "the last budget\n")
            print("| group | " + " | ".join(algos) + " |")
            print("|" + "---|" * (len(algos) + 1))
            for g in groups:
                cols = []
                for a in algos:
                    rs = cells.get((a, g, d))
                    if not rs:
                        cols.append("-")
                        continue
                    e1, s1 = ert(rs, 15)
                    e5, s5 = ert(rs, 35)
                    last = sorted(v[3][-1] if v[3] else math.inf for v in rs)
                    cols.append("%.3g (%d), %.3g (%d), %.2g" % (e1, s1, e5, s5, last[len(last) // 2]))
                print("| %s | %s |" % (g, " | ".join(cols)))


if __name__ == "__main__":
    main()
