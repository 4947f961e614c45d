#!/usr/bin/env bash
# Runs hees through a real Slurm on this machine, end to end:
#
#	bash scripts/slurm/run-local.sh
#
# It installs Slurm and MUNGE from the OS packages when they are missing
# (Debian's slurm-wlm and munge, with apt-get, as root), starts a private
# single-node cluster by hand (munged, slurmctld, slurmd: no systemd, no
# cgroups, every file in one temporary directory, the ports below), builds
# hees and optimises objective.sh through the state file of hees init/ask/
# tell, in these patterns (and two more on request, below):
#
#   workers       one allocation (workers.sbatch): one hees worker per task,
#                 as many as the node has CPUs;
#   worker-array  the same pool as a job array of one-worker jobs
#                 (worker-array.sbatch, with --requeue, --open-mode=append
#                 and --signal);
#   workers-kill  the worker pool with one worker SIGKILLed mid-run and
#                 replaced: two one-task jobs of workers.sbatch; once a
#                 quarter of the budget is told, the worker of the first
#                 job is killed while it holds a lease (scancel -s KILL
#                 JOB.0) and a third job takes its place;
#   steps         one allocation (steps.sbatch): per generation, one srun
#                 --exact step per candidate, as many at once as the node
#                 has CPUs;
#   array         one array job per generation (array-driver.sh,
#                 array.sbatch).
#
# Each run must end bit-identical to hees run with the same settings: the
# best value, the best point, the evaluation count, the restart count and
# the stop reason of "hees status -json" and "hees run -json" are compared
# as text. The script prints each run's overhead per generation: (wall time
# - evaluation time / CPUs) / generations, where the wall time runs from the
# first ask to the run's stop (the start and end lines of the job or
# driver) and the evaluation time is the sum of the times the objective
# took, measured inside the jobs.
#
# Exit status: 0 when every run is right; 1 when a run is wrong or fails,
# and when Slurm cannot be installed or started here (a line "FAIL: slurm
# could not be ...: why" says so), unless HEES_SLURM_OPTIONAL=1 asks for a
# SKIP line and status 0 then. apt-get waits up to 10 minutes for the dpkg
# lock that another process holds (DPkg::Lock::Timeout), instead of failing
# at once. The daemons it started are stopped and the
# temporary directory is removed on every exit (HEES_SLURM_KEEP=1 keeps the
# directory). Settings, from the environment:
#
#   HEES_SLURM_D          dimension (default 4)
#   HEES_SLURM_EVALS      budget of the workers and steps runs (default 300)
#   HEES_SLURM_KILL_EVALS   budget of the workers-kill run (default 600; 0
#                           skips it); its workers lease for 5 s
#   HEES_SLURM_ARRAY_EVALS  budget of the array run (default 27; 0 skips it)
#   HEES_SLURM_WAIT_EVALS   budget of a run of the array pattern with
#                           sbatch --wait instead of polling (default 0: none)
#   HEES_SLURM_IPOP_EVALS   budget of two runs with IPOP restarts in d = 2,
#                           one of the worker pool and one of the step
#                           pattern (default 0: none; 1000 sees one restart,
#                           about 130 generations)
#   HEES_SLURM_PORT       slurmctld's port; slurmd takes the next (default 16817)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
here=$repo/scripts/slurm

d=${HEES_SLURM_D:-4}
evals=${HEES_SLURM_EVALS:-300}
kill_evals=${HEES_SLURM_KILL_EVALS:-600}
array_evals=${HEES_SLURM_ARRAY_EVALS:-27}
wait_evals=${HEES_SLURM_WAIT_EVALS:-0}
ipop_evals=${HEES_SLURM_IPOP_EVALS:-0}
port=${HEES_SLURM_PORT:-16817}
seed=1
# Every run uses hees, the paper's HE-ES, not the default strategy (hees2):
# the measurements in docs/cluster.md were made with it.
algo=hees

log() { printf '%s\n' "$*"; }
skip() {
	if [ "${HEES_SLURM_OPTIONAL:-0}" = 1 ]; then
		log "SKIP: slurm could not be $1: $2 (HEES_SLURM_OPTIONAL=1)"
		exit 0
	fi
	log "FAIL: slurm could not be $1: $2 (HEES_SLURM_OPTIONAL=1 makes this a skip)" >&2
	exit 1
}
fail() {
	log "FAIL: $*" >&2
	show_logs >&2
	exit 1
}
show_logs() {
	local f
	for f in "$tmp"/log/*.log "$tmp"/out/*; do
		[ -s "$f" ] || continue
		printf -- '--- %s (last lines)\n' "${f#"$tmp"/}"
		tail -n 10 "$f"
	done
}

# --- Install -----------------------------------------------------------------

tools=(munged mungekey slurmctld slurmd sbatch srun sinfo squeue scancel)
missing() {
	local t
	for t in "${tools[@]}"; do
		command -v "$t" >/dev/null 2>&1 || { echo "$t"; return 0; }
	done
	return 1
}
if tool=$(missing); then
	[ "$(id -u)" = 0 ] || skip installed "$tool is missing and this is not root"
	command -v apt-get >/dev/null 2>&1 || skip installed "$tool is missing and there is no apt-get"
	log "installing slurm-wlm and munge with apt-get"
	apt=(apt-get -o DPkg::Lock::Timeout=600)
	if ! out=$( ("${apt[@]}" update -qq && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends slurm-wlm munge) 2>&1); then
		skip installed "apt-get install slurm-wlm munge failed: $(tail -n 1 <<<"$out")"
	fi
	tool=$(missing) && skip installed "$tool is still missing after apt-get install slurm-wlm munge"
fi
[ "$(id -u)" = 0 ] || skip started "the daemons need root here"

# --- Start a private cluster -------------------------------------------------

tmp=$(mktemp -d /tmp/hees-slurm.XXXXXX)
pids=()
cleanup() {
	local status=$? pid i
	trap - EXIT INT TERM
	if [ "${#pids[@]}" -gt 1 ]; then # slurmctld was started
		# Cancel what is left, so that no job step outlives its slurmd.
		scancel --quiet --user="$(id -un)" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.2
		done
	fi
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		pid=${pids[i]}
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	done
	if [ "${HEES_SLURM_KEEP:-0}" = 1 ]; then
		log "kept $tmp"
	else
		rm -rf "$tmp"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$tmp"/{munge,munge-key,state,spool,log,out,bin}
chmod 700 "$tmp" "$tmp/munge-key"
chmod 755 "$tmp/munge"

for p in "$port" "$((port + 1))"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		skip started "port $p is in use (set HEES_SLURM_PORT)"
	fi
done

sock=$tmp/munge/munge.socket
mungekey -c -k "$tmp/munge-key/munge.key" >"$tmp/log/mungekey.log" 2>&1 ||
	skip started "mungekey failed: $(tail -n 1 "$tmp/log/mungekey.log")"
munged -F -f --socket="$sock" --key-file="$tmp/munge-key/munge.key" \
	--pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
	--log-file="$tmp/log/munged.log" >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
for ((i = 0; ; i++)); do
	munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
	[ "$i" -lt 50 ] || skip started "munged does not answer: $(tail -n 1 "$tmp/log/munged.log")"
	sleep 0.2
done

node=$(slurmd -C | head -n 1) || skip started "slurmd -C failed"
host=${node#NodeName=}
host=${host%% *}
cpus=$(grep -o 'CPUs=[0-9]*' <<<"$node")
cpus=${cpus#CPUs=}
node=${node% RealMemory=*} # no memory limits: jobs ask for none
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=hees
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=hees Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for ((i = 0; ; i++)); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
	[ "$state" = idle ] && break
	if [ "$i" -ge 150 ]; then
		why=$(cat "$tmp"/log/slurm*.out "$tmp"/log/slurm*.log 2>/dev/null | grep -i -m 1 -E 'error|fatal' || true)
		skip started "node $host is not idle after 30 s (state '${state:-none}')${why:+: $why}"
	fi
	sleep 0.2
done
log "slurm $(sinfo -V | cut -d ' ' -f 2) is up: node $host, $cpus CPUs, ports $port and $((port + 1))"

# --- Run hees through it -----------------------------------------------------

go build -o "$tmp/bin/hees" ./cmd/hees || fail "go build ./cmd/hees"
export HEES=$tmp/bin/hees
# The objective, timed: each evaluation appends its duration (ns) and the
# Slurm job that ran it to EVAL_LOG. One point per line, as objective.sh: a
# single point from a job step, or many from a long-lived hees worker.
timed=$tmp/bin/timed-objective
cat >"$timed" <<EOF
#!/usr/bin/env bash
set -euo pipefail
while IFS= read -r line; do
	start=\$(date +%s%N)
	value=\$(printf '%s\\n' "\$line" | "$here/objective.sh")
	end=\$(date +%s%N)
	echo "\$((end - start)) \${SLURM_JOB_ID:-none}" >>"\$EVAL_LOG"
	echo "\$value"
done
EOF
chmod +x "$timed"

# field KEY JSON: the "KEY":value member of the one-line JSON object.
field() {
	grep -oE "\"$1\":(\[[^]]*\]|\"[^\"]*\"|[^,}]*)" <<<"$2"
}

# compare PATTERN EVALS: the state file's result against hees run's.
compare() {
	local want got key w g
	# shellcheck disable=SC2086 # FLAGS holds several flags
	want=$("$HEES" run -cmd "$here/objective.sh" -algo "$algo" -d "${D:-$d}" -seed "$seed" -max-evals "$2" ${FLAGS:-} -json -q) ||
		fail "$1: hees run failed: $want"
	got=$("$HEES" status -state "$STATE" -json) || fail "$1: hees status failed"
	for key in f_best x_best evals restarts stop_reason; do
		w=$(field "$key" "$want")
		g=$(field "$key" "$got")
		[ -n "$w" ] && [ "$w" = "$g" ] || fail "$1: $key differs: hees run has $w, the state file $g"
	done
	log "$1: identical to hees run -max-evals $2: $(field evals "$got"), $(field f_best "$got")"
}

# report NAME START END: the overhead per generation, from the start and
# end lines of out/NAME.out, the evaluation log and the generation count.
report() {
	local gens n_eval sum_eval
	gens=$(field generation "$("$HEES" status -state "$STATE" -json)")
	gens=${gens#*:}
	n_eval=$(wc -l <"$EVAL_LOG")
	sum_eval=$(awk '{ s += $1 } END { printf "%.3f", s / 1e9 }' "$EVAL_LOG")
	awk -v p="$1" -v g="$gens" -v n="$n_eval" -v e="$sum_eval" -v c="$cpus" '
		$1 == "start" && (start == "" || $2 < start) { start = $2 }
		$1 == "end" && $2 > end { end = $2 }
		END {
			wall = (end - start) / 1e9
			printf "%s: %d generations, %d evaluations in %.1f s (evaluations %.2f s on %d CPUs): overhead %.3f s per generation\n",
				p, g, n, wall, e, c, (wall - e / c) / g
		}' "$tmp/out/$1.out"
	log "$1: $(($3 - $2)) s from submission to the end"
}

# pattern NAME EVALS COMMAND...: a run of EVALS evaluations in the new state
# file NAME.hees (in dimension D, default $d, with the extra flags FLAGS of
# hees init and hees run), driven by COMMAND, then compared with hees run and
# measured. COMMAND's output goes to out/NAME.out (a job writes there
# itself), which must hold the lines "start NS" and "end NS" (nanoseconds
# since the epoch) around the run.
pattern() {
	local name=$1 budget=$2 t0 t1
	shift 2
	export STATE=$tmp/$name.hees EVAL_LOG=$tmp/$name.evals
	: >"$EVAL_LOG"
	# shellcheck disable=SC2086
	"$HEES" init -state "$STATE" -algo "$algo" -d "${D:-$d}" -seed "$seed" -max-evals "$budget" ${FLAGS:-}
	log "$name: hees init -algo $algo -d ${D:-$d} -seed $seed -max-evals $budget${FLAGS:+ $FLAGS}"
	t0=$(date +%s)
	"$@" >>"$tmp/out/$name.out" 2>&1 || fail "$name: the run failed"
	t1=$(date +%s)
	grep -q '^end ' "$tmp/out/$name.out" || fail "$name: the run did not end"
	compare "$name" "$budget"
	report "$name" "$t0" "$t1"
}

# job SBATCH-ARGS...: submits a batch job and waits for its end, polling
# squeue (sbatch --wait polls at growing intervals, up to 10 s apart); fails
# unless the job completed.
job() {
	local jid state
	jid=$(sbatch --parsable "$@") || return 1
	while [ -n "$(squeue -h -j "$jid" -o %i 2>/dev/null)" ]; do
		sleep 0.2
	done
	# An array has a state per task: all must be COMPLETED.
	state=$(scontrol show job "$jid" | grep -oE 'JobState=[A-Z_]+' | sort -u)
	[ "$state" = JobState=COMPLETED ] || { echo "job $jid: $state" >&2; return 1; }
}

# evals_of JOB: how many evaluations JOB ran (from EVAL_LOG).
evals_of() {
	awk -v j="$1" '$2 == j { n++ } END { print n + 0 }' "$EVAL_LOG"
}

# kill_replace PROGRAM...: the worker pool with one worker killed and
# replaced. Jobs A and B run one hees worker each; once a quarter of the
# budget is told and A's worker has evaluated, A's worker step is SIGKILLed
# (scancel -s KILL A.0, which signals the tasks at once; scancel -s KILL A
# would cancel the job, and its worker would get SIGTERM first and give its
# lease back) and job C replaces it. The candidate A held waits for its
# lease (LEASE) to expire. B and C must complete. It prints "start NS" and
# "end NS" around it all.
kill_replace() {
	local a b c status evals leased jid state i
	echo "start $(date +%s%N)"
	a=$(sbatch --parsable -n1 -o "$tmp/out/workers-kill-a.out" "$here/workers.sbatch" "$@") || return 1
	b=$(sbatch --parsable -n1 -o "$tmp/out/workers-kill-b.out" "$here/workers.sbatch" "$@") || return 1
	# Each worker holds one lease while it evaluates, and claims the next
	# candidate in the write that tells the last one: with both leases
	# taken, A holds one.
	for ((i = 0; ; i++)); do
		status=$("$HEES" status -state "$STATE" -json)
		evals=$(field evals "$status")
		leased=$(field leased "$status")
		state=$(squeue -h -j "$a" -o %T 2>/dev/null || true)
		case $state in
		RUNNING)
			[ "${evals#*:}" -lt "$((kill_evals / 4))" ] || [ "${leased#*:}" -lt 2 ] ||
				[ "$(evals_of "$a")" = 0 ] || break
			;;
		PENDING | CONFIGURING) ;;
		*) echo "job $a ended before it could be killed (${state:-gone})" >&2; return 1 ;;
		esac
		[ "$i" -lt 1200 ] || { echo "job $a: no moment to kill its worker within 2 minutes" >&2; return 1; }
		sleep 0.1
	done
	scancel -s KILL "$a.0"
	echo "killed the worker of job $a after ${evals#*:} evaluations, holding a lease (${leased#*:} candidates leased)"
	c=$(sbatch --parsable -n1 -o "$tmp/out/workers-kill-c.out" "$here/workers.sbatch" "$@") || return 1
	for jid in "$b" "$c"; do
		while [ -n "$(squeue -h -j "$jid" -o %i 2>/dev/null)" ]; do
			sleep 0.2
		done
		state=$(scontrol show job "$jid" | grep -oE 'JobState=[A-Z_]+')
		[ "$state" = JobState=COMPLETED ] || { echo "job $jid: $state" >&2; return 1; }
	done
	echo "evaluations: $(evals_of "$a") by the killed job $a, $(evals_of "$b") by $b, $(evals_of "$c") by its replacement $c"
	if grep -q 'given back' "$tmp/out/workers-kill-a.out"; then
		echo "the worker of job $a was not SIGKILLed: it gave its lease back" >&2
		return 1
	fi
	echo "end $(date +%s%N)"
}

cd "$tmp"
# One line per pattern; a job script writes its output to out/NAME.out.
pattern workers "$evals" job --open-mode=append -n "$cpus" -o "$tmp/out/workers.out" "$here/workers.sbatch" "$timed"
# The same pool as an array of one-worker jobs (worker-array.sbatch); the
# first task's start and the last task's end bound the run.
pattern worker-array "$evals" job --array="1-$cpus" -o "$tmp/out/worker-array.out" "$here/worker-array.sbatch" "$timed"
if [ "$kill_evals" -gt 0 ]; then
	LEASE=5s pattern workers-kill "$kill_evals" kill_replace "$timed"
	grep -h -e '^killed' -e '^evaluations' "$tmp/out/workers-kill.out"
fi
pattern steps "$evals" job --open-mode=append -n "$cpus" -o "$tmp/out/steps.out" "$here/steps.sbatch" "$timed"
if [ "$array_evals" -gt 0 ]; then
	SBATCH_OPTS="-o $tmp/out/array-%A_%a.out" pattern array "$array_evals" "$here/array-driver.sh" "$timed"
fi
if [ "$wait_evals" -gt 0 ]; then
	WAIT=1 SBATCH_OPTS="-o $tmp/out/array-wait-%A_%a.out" pattern array-wait "$wait_evals" "$here/array-driver.sh" "$timed"
fi
if [ "$ipop_evals" -gt 0 ]; then
	for p in workers steps; do
		D=2 FLAGS="-restarts ipop" pattern "ipop-$p" "$ipop_evals" \
			job --open-mode=append -n "$cpus" -o "$tmp/out/ipop-$p.out" "$here/$p.sbatch" "$timed"
		[ "$(field restarts "$("$HEES" status -state "$STATE" -json)")" != '"restarts":0' ] ||
			log "ipop-$p: no restart happened within $ipop_evals evaluations"
	done
fi
log "slurm recipe: all runs identical to hees run"
