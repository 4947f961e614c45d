"""A long-lived `hees eval` process, shared by the scripts that run hees's
peers on hees's problems (scripts/peers, scripts/noisy, scripts/cmaes).

Points go to the process in blocks of CHUNK lines and their values come
back one line each, so an evaluation costs two lines of a pipe, not a
process, and the pipe of values never fills while points are written.
The scripts import it with scripts/ on sys.path.
"""

import os
import subprocess
import sys

CHUNK = 256  # points per pipe write


def optimum(cmd, hint=""):
    """f* of the problem of the `hees eval` command cmd (`hees eval -opt`);
    exits with hees's message, and hint after it, when it has none."""
    out = subprocess.run(cmd + ["-opt"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("hees eval -opt: %s%s" % (out.stderr.strip(), hint))
    return float(out.stdout.split("\n")[1])


class Evaluator:
    """One `hees eval` process (cmd: its command line)."""

    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1 << 20)

    def values(self, xs):
        """The values of the points xs (rows of numbers), as a list."""
        out = []
        for a in range(0, len(xs), CHUNK):
            block = xs[a:a + CHUNK]
            self.proc.stdin.write("".join(" ".join(repr(float(v)) for v in x) + "\n" for x in block))
            self.proc.stdin.flush()
            for _ in range(len(block)):
                line = self.proc.stdout.readline()
                if not line:
                    sys.exit("hees eval died (a point it could not read?)")
                out.append(float(line))
        return out

    def cpu(self):
        """CPU seconds of the process so far (Linux /proc; 0 elsewhere)."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def int_ranges(s):
    """The integers of "1-15" or "1,4,7-9", in order."""
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out
