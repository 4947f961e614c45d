#!/usr/bin/env bash
# Claims and tells per second of hees worker processes on one machine,
# with an instant objective (examples/sphere): the throughput of the ask/tell
# storage itself. Usage:
#
#	scripts/bench-workers.sh PROCS LOOPS D EVALS [init flags...]
#
# starts PROCS hees worker processes of -workers LOOPS each on a new run of
# dimension D with budget EVALS, and prints the wall time, the evaluations
# and (claims + tells) per second, one claim and one tell per evaluation,
# and the journal's bytes per record. Run it on an otherwise idle machine,
# one at a time.
set -euo pipefail
procs=$1 loops=$2 d=$3 evals=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/hees" "$root/cmd/hees"
go build -o "$dir/sphere" "$root/examples/sphere"
"$dir/hees" init -state "$dir/run.hees" -d "$d" -seed 1 -target none -max-evals "$evals" "$@"
start=$(date +%s.%N)
for _ in $(seq "$procs"); do
	"$dir/hees" worker -state "$dir/run.hees" -workers "$loops" -cmd "$dir/sphere" 2>>"$dir/err" &
done
wait
end=$(date +%s.%N)
grep -v 'the run has stopped' "$dir/err" >&2 || true
done_evals=$("$dir/hees" status -json -state "$dir/run.hees" | sed 's/.*"evals":\([0-9]*\).*/\1/')
gens=$("$dir/hees" status -json -state "$dir/run.hees" | sed 's/.*"generation":\([0-9]*\).*/\1/')
awk -v s="$start" -v e="$end" -v n="$done_evals" -v g="$gens" -v p="$procs" -v k="$loops" -v d="$d" 'BEGIN {
	t = e - s
	printf "procs %d x loops %d, d = %d: %d evaluations, %d generations in %.2f s: %.0f claims+tells/s\n", p, k, d, n, g, t, 2 * n / t
}'
# Bytes per record of the last journal: its records (not the header line).
tail -n +2 "$dir/run.hees.journal" | awk '{ n++; b += length($0) + 1 } END { if (n) printf "journal: %d records, %.1f bytes each\n", n, b / n }'
