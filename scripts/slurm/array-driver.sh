#!/usr/bin/env bash
# The array pattern, the driver: one array job per generation. It runs where
# jobs are submitted (a login node), not inside an allocation:
#
#	hees init -state run.hees -d 10 -max-evals 2000
#	HEES=$(command -v hees) STATE=$PWD/run.hees array-driver.sh ./objective.sh
#
# Each round asks for the pending candidates, writes them to a batch file
# next to the state file, submits array.sbatch (found next to this script)
# over its lines, and polls squeue every POLL seconds (default 0.2) until
# the array has left the queue (with WAIT=1, sbatch --wait waits instead:
# a pattern to avoid, kept to measure it). Tasks that failed leave their candidates
# untold: the next round lists them again. The driver stops when the run has
# stopped, and fails after MAX_FAILED_ROUNDS (default 3) rounds in a row
# that told nothing. Extra sbatch options go in SBATCH_OPTS.
#
# It prints "start NS" (nanoseconds since the epoch), one line per round (a
# generation, or what failed tasks left of one), and "end NS" once the run
# has stopped.
#
# The driver keeps the ID of the array in flight in STATE.array. A driver
# started again (after its login session ended, say) first waits for that
# array, instead of submitting its candidates a second time.
set -euo pipefail

: "${HEES:?HEES must name the hees binary}" "${STATE:?STATE must name the state file}"
[ $# -gt 0 ] || { echo "usage: array-driver.sh PROGRAM [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
poll=${POLL:-0.2}
export HEES STATE BATCH="$STATE.batch"

# wait_array JOBID: polls squeue until the array has left the queue.
wait_array() {
	while [ -n "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; do
		sleep "$poll"
	done
}

echo "start $(date +%s%N)"
if [ -s "$STATE.array" ]; then
	jid=$(cat "$STATE.array")
	if [ -n "$(squeue -h -j "$jid" -o %i 2>/dev/null)" ]; then
		echo "waiting for array $jid, submitted by an earlier driver"
		wait_array "$jid"
	fi
	rm -f "$STATE.array"
fi
round=0
stuck=0
while :; do
	t0=$(date +%s%N)
	"$HEES" ask -state "$STATE" >"$BATCH"
	n=$(wc -l <"$BATCH")
	[ "$n" -gt 0 ] || break # the run has stopped
	# SBATCH_OPTS holds several options: it is split on purpose.
	if [ "${WAIT:-0}" = 1 ]; then
		# A failed task makes sbatch --wait fail; the check below sees it.
		# shellcheck disable=SC2086
		jid=$(sbatch --parsable --wait --array="1-$n" ${SBATCH_OPTS:-} "$here/array.sbatch" "$@") || true
	else
		# shellcheck disable=SC2086
		jid=$(sbatch --parsable --array="1-$n" ${SBATCH_OPTS:-} "$here/array.sbatch" "$@")
		jid=${jid%%;*}
		echo "$jid" >"$STATE.array"
		wait_array "$jid"
		rm -f "$STATE.array"
	fi
	echo "round $round: $n candidates in $((($(date +%s%N) - t0) / 1000000)) ms"
	if [ "$("$HEES" ask -state "$STATE" 2>/dev/null)" = "$(cat "$BATCH")" ]; then
		stuck=$((stuck + 1))
		if [ "$stuck" -ge "${MAX_FAILED_ROUNDS:-3}" ]; then
			echo "array $jid told nothing, $stuck rounds in a row" >&2
			exit 1
		fi
	else
		stuck=0
	fi
	round=$((round + 1))
done
rm -f "$BATCH"
echo "end $(date +%s%N)"
