#!/usr/bin/env python3
"""pycma on the classic grid, counted the way es/grid_test.go counts hees.

The classic grid: sphere, ellipsoid, rotated ellipsoid, cigar and discus
(condition 1e6) and Rosenbrock, in d = 2, 5, 10, 20, 40; x0 = (3, ..., 3),
sigma0 = 2, target f <= 1e-8, seeds 1..15, one run per seed, no restarts.
pycma runs with its default options except for these:

    seed       the run's seed (1..15)
    ftarget    1e-8
    maxfevals  max(1e5, 5000*d), the budget of es/grid_test.go
    verbose -9, verb_log 0, verb_disp 0: no output, no log files

A run's result is the number of evaluations up to and including the first
value <= 1e-8 in candidate order: the evaluations of the earlier
generations plus the candidate's index in its generation plus 1, as
gridRun in es/grid_test.go counts. A run that pycma stops (or whose budget
runs out) before that is a failure, -1. The column evals_gen is the count
at the end of that generation (pycma's countevals after tell), which is
what pycma itself reports with ftarget.

The functions are those of the objectives package (objectives/classic.go):

    sphere        sum x_i^2
    ellipsoid     sum c_i x_i^2, c_i = cond^(i/(d-1)), i = 0..d-1
    rotellipsoid  sum c_i (R x)_i^2, the same c_i
    cigar         x_0^2 + cond * sum_{i>=1} x_i^2
    discus        cond * x_0^2 + sum_{i>=1} x_i^2
    rosenbrock    sum_{i<d-1} 100 (x_i^2 - x_{i+1})^2 + (1 - x_i)^2

with cond = 1e6. The rotation R is hees's own (objectives.RandomRotation
with seed 1): the script asks `hees eval` for f at the unit vectors and at
their pairwise sums, which gives the matrix M = R^T diag(c) R, and takes R
from the eigenvectors of M (sorted like c; the sign of a row does not
change f). It then checks its f against `hees eval` at random points. With
-numpy-rotation it uses instead a rotation from the QR factorisation of a
normal matrix (numpy seed 1), for when Go is not at hand. CMA-ES is
invariant under rotations, but the start is not: on f(x) = g(R x) a run
from x0 is a run on g from R x0, so another R moves the start across the
axes of the ellipsoid. The effect on the median is small against the
spread between seeds, but with hees's R both programs solve the same
problem.

Needs: python3, numpy, and pycma 4.4.0 on PYTHONPATH (the script refuses
another version): `pip install cma==4.4.0`, or the directory cma of the
tag r4.4.0 of github.com/CMA-ES/pycma (PYTHONPATH is the directory that
holds cma). Go and this repository for the rotation, unless
-numpy-rotation. Run from anywhere:

    PYTHONPATH=/path/to/pycma python3 scripts/pycma/classic_grid.py \
        -out docs/bench/pycma-classic.csv

Flags: -dims 2,5,10,20,40; -functions sphere,...; -seeds 15; -hees CMD
(how to run hees, default "go run ./cmd/hees" in the repository root);
-out FILE (the per-run CSV; - for standard output). The medians and the
success counts per cell go to standard error. A failed run counts as
+infinity in the median, as in es/grid_test.go.
"""

import argparse
import datetime
import os
import shlex
import subprocess
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")  # pycma warns that matplotlib is missing
import cma  # noqa: E402

PYCMA_VERSION = "4.4.0"
TARGET = 1e-8
X0 = 3.0
SIGMA0 = 2.0
COND = 1e6
FUNCTIONS = ["sphere", "ellipsoid", "rotellipsoid", "cigar", "discus", "rosenbrock"]
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def ellipsoid_coefficients(d):
    """cond^(i/(d-1)) for i = 0..d-1."""
    return np.array([COND ** (i / (d - 1)) for i in range(d)])


def hees_eval(hees, spec, d, points):
    """f at each row of points by `hees eval`."""
    text = "\n".join(" ".join(repr(float(v)) for v in p) for p in points) + "\n"
    cmd = shlex.split(hees) + ["eval", "-f", spec, "-d", str(d)]
    out = subprocess.run(cmd, input=text, capture_output=True, text=True, cwd=REPO, check=True)
    return np.array([float(v) for v in out.stdout.split()])


def hees_rotation(hees, d, c):
    """R with sum c_i (R x)_i^2 = hees's rotellipsoid:cond=1e6 in dimension d."""
    spec = "rotellipsoid:cond=%g" % COND
    eye = np.eye(d)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    points = [eye[i] for i in range(d)] + [eye[i] + eye[j] for i, j in pairs]
    f = hees_eval(hees, spec, d, points)
    m = np.diag(f[:d])
    for k, (i, j) in enumerate(pairs):
        m[i, j] = m[j, i] = (f[d + k] - f[i] - f[j]) / 2
    w, v = np.linalg.eigh(m)  # ascending, like c
    if np.max(np.abs(w / c - 1)) > 1e-6:
        sys.exit("rotation: eigenvalues of M are not the ellipsoid's coefficients")
    r = v.T
    # Check against hees at random points, not only at the ones M came from.
    x = np.random.default_rng(7).standard_normal((20, d)) * 3
    want = hees_eval(hees, spec, d, x)
    got = np.array([np.dot(c, (r @ p) ** 2) for p in x])
    if np.max(np.abs(got / want - 1)) > 1e-9:
        sys.exit("rotation: f differs from hees eval by %g relative" % np.max(np.abs(got / want - 1)))
    return r


def numpy_rotation(d):
    """A rotation from the QR factorisation of a normal matrix (seed 1)."""
    q, r = np.linalg.qr(np.random.default_rng(1).standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def make_function(name, d, args):
    """The objective name in dimension d, a function of one point."""
    if name == "sphere":
        return lambda x: float(np.dot(x, x))
    if name == "ellipsoid":
        c = ellipsoid_coefficients(d)
        return lambda x: float(np.dot(c, x * x))
    if name == "rotellipsoid":
        c = ellipsoid_coefficients(d)
        r = numpy_rotation(d) if args.numpy_rotation else hees_rotation(args.hees, d, c)
        return lambda x: float(np.dot(c, (r @ x) ** 2))
    if name in ("cigar", "discus"):
        c = np.full(d, COND if name == "cigar" else 1.0)
        c[0] = 1.0 if name == "cigar" else COND
        return lambda x: float(np.dot(c, x * x))
    if name == "rosenbrock":
        return lambda x: float(100 * np.sum((x[:-1] ** 2 - x[1:]) ** 2) + np.sum((1 - x[:-1]) ** 2))
    sys.exit("unknown function %r" % name)


def run(f, d, seed):
    """Evaluations to the target in candidate order and at the end of that
    generation, or (-1, -1), and pycma's stop reason."""
    opts = {
        "seed": seed,
        "ftarget": TARGET,
        "maxfevals": max(100000, 5000 * d),
        "verbose": -9,
        "verb_log": 0,
        "verb_disp": 0,
    }
    es = cma.CMAEvolutionStrategy(d * [X0], SIGMA0, opts)
    evals = 0
    while not es.stop():
        xs = es.ask()
        fs = []
        for i, x in enumerate(xs):
            v = f(np.asarray(x))
            fs.append(v)
            if v <= TARGET:
                return evals + i + 1, evals + len(xs), ""
        es.tell(xs, fs)
        evals += len(xs)
    return -1, -1, ";".join(sorted(es.stop()))


def median(values):
    """The median of an odd number of runs, a failure (-1) counting as +inf."""
    v = sorted(float("inf") if e < 0 else e for e in values)
    return v[len(v) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-dims", default="2,5,10,20,40")
    p.add_argument("-functions", default=",".join(FUNCTIONS))
    p.add_argument("-seeds", type=int, default=15)
    p.add_argument("-hees", default="go run ./cmd/hees")
    p.add_argument("-numpy-rotation", dest="numpy_rotation", action="store_true")
    p.add_argument("-out", default="-")
    args = p.parse_args()
    if cma.__version__ != PYCMA_VERSION:
        sys.exit("pycma %s on PYTHONPATH, want %s" % (cma.__version__, PYCMA_VERSION))
    dims = [int(s) for s in args.dims.split(",")]
    names = args.functions.split(",")
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    command = "python3 scripts/pycma/classic_grid.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out.write("# pycma %s (numpy %s, python %s), default options except seed, ftarget 1e-8, maxfevals "
              "max(1e5, 5000 d), no output; x0 = (3, ..., 3), sigma0 = 2, no restarts; evals = evaluations "
              "to the first f <= 1e-8 in candidate order, -1 = not reached\n"
              % (cma.__version__, np.__version__, sys.version.split()[0]))
    out.write("# rotation of rotellipsoid: %s\n" % (
        "numpy QR, seed 1" if args.numpy_rotation else "hees's objectives.RandomRotation(d, 1)"))
    out.write("# made by: %s, %s\n" % (command, stamp))
    out.write("function,d,seed,evals,evals_gen,stop,pycma\n")
    out.flush()
    start = time.time()
    for d in dims:
        for name in names:
            f = make_function(name, d, args)
            evals = []
            for seed in range(1, args.seeds + 1):
                e, g, stop = run(f, d, seed)
                evals.append(e)
                out.write("%s,%d,%d,%d,%d,%s,%s\n" % (name, d, seed, e, g, stop, cma.__version__))
                out.flush()
            solved = sum(e >= 0 for e in evals)
            print("%-13s %3d  median %8.0f  solved %2d/%d  (%.0f s)"
                  % (name, d, median(evals), solved, len(evals), time.time() - start),
                  file=sys.stderr, flush=True)
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
