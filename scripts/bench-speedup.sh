#!/usr/bin/env bash
# The speed-up of hees worker over one worker, with an objective that takes
# SLEEP per evaluation (examples/sphere -sleep), against the ideal that the
# population allows: with lambda candidates per generation and K workers, a
# generation takes ceil(lambda / K) waves of evaluations, so the ideal
# speed-up is lambda / ceil(lambda / K). Usage:
#
#	scripts/bench-speedup.sh K SLEEP [init flags...]
#
# runs the same run (hees, d = 10, seed 1, 1892 evaluations in 172
# generations of 11 unless the flags say otherwise) with 1 worker, with K
# worker processes, and with one process of -workers K, and prints the wall
# times, the speed-ups and their ratio to the ideal. Run it on an otherwise
# idle machine.
set -euo pipefail
k=$1 sleep=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/hees" "$root/cmd/hees"
go build -o "$dir/sphere" "$root/examples/sphere"
cmd="$dir/sphere -shift 100 -sleep $sleep"
init() {
	rm -f "$dir"/run.hees*
	"$dir/hees" init -state "$dir/run.hees" -algo hees -d 10 -seed 1 -target none -x0 0,0,0,0,0,0,0,0,0,0 -sigma0 1 "$@"
}
timed() { # timed COMMAND...: wall seconds of COMMAND
	local s e
	s=$(date +%s.%N)
	"$@"
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'
}
procs() { # procs N: N worker processes at once
	local i
	for ((i = 0; i < $1; i++)); do "$dir/hees" worker -state "$dir/run.hees" -cmd "$cmd" 2>/dev/null & done
	wait
}
init "$@"
t1=$(timed procs 1)
evals=$("$dir/hees" status -json -state "$dir/run.hees" | sed 's/.*"evals":\([0-9]*\).*/\1/')
gens=$("$dir/hees" status -json -state "$dir/run.hees" | sed 's/.*"generation":\([0-9]*\).*/\1/')
init "$@"
tk=$(timed procs "$k")
init "$@"
tl=$(timed "$dir/hees" worker -state "$dir/run.hees" -workers "$k" -cmd "$cmd" 2>/dev/null)
awk -v t1="$t1" -v tk="$tk" -v tl="$tl" -v k="$k" -v n="$evals" -v g="$gens" -v s="$sleep" 'BEGIN {
	lambda = n / g
	waves = int(lambda / k); if (waves * k < lambda) waves++
	ideal = lambda / waves
	printf "%d evaluations, %d generations (lambda %.0f), %s per evaluation, %d workers: ideal speed-up %.2f (%d waves a generation)\n", n, g, lambda, s, k, ideal, waves
	printf "1 worker %.2f s; %d processes %.2f s: speed-up %.2f = %.2f of ideal; -workers %d %.2f s: speed-up %.2f = %.2f of ideal\n",
		t1, k, tk, t1 / tk, t1 / tk / ideal, k, tl, t1 / tl, t1 / tl / ideal
}'
