#!/usr/bin/env bash
# The gate under load, shown rather than claimed (issue 52): runs `npm test` N times in a row
# (default 3) with four CPU-bound processes beside it (`node -e 'for(;;){}'`), and prints for
# each run its closing lines (slowest files, gate time and CPU seconds, `tests: N passed, N
# failed`) and its wall time. It ends with the three lines the issue notes take, one figure per
# run in each: the closing lines, the wall times and the gates' CPU seconds. The busy processes
# are killed at the end whatever happens (a run that fails, Ctrl-C). Exit 0 only when every run
# passed. Full logs: .tmp/gate-under-load-K.log.
#
#   scripts/gate-under-load.sh        three runs
#   scripts/gate-under-load.sh 1      one
#
# It takes the machine for an hour or more on 2 cores: not for a machine others are using.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
hogs="${GATE_LOAD_PROCESSES:-4}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/gate-under-load.sh [RUNS]  (RUNS a whole number, default 3)" >&2
  exit 2
fi

pids=()
stop_hogs() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null; done
  pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for _ in $(seq "$hogs"); do
  node -e 'for(;;){}' &
  pids+=("$!")
done
echo "== $hogs CPU-bound processes beside the gate: ${pids[*]}; load average $(cut -d' ' -f1-3 /proc/loadavg)"

mkdir -p .tmp
failed_runs=0
closing=()
walls=()
cpus=()
for run in $(seq "$runs"); do
  log=".tmp/gate-under-load-$run.log"
  started=$(date +%s)
  npm test > "$log" 2>&1
  code=$?
  took=$(($(date +%s) - started))
  echo
  echo "== run $run of $runs: exit $code, ${took} s wall, load average $(cut -d' ' -f1-3 /proc/loadavg) (log: $log)"
  # The closing lines: from the slowest-files table on (scripts/test.mjs prints them last).
  sed -n '/^slowest test files/,$p' "$log"
  grep -q '^tests: [0-9]* passed, 0 failed$' "$log" || failed_runs=$((failed_runs + 1))
  # What scripts/test.mjs prints last: `tests: ...`, and `== gate took ... CPU N s, ...` before it.
  line=$(grep '^tests: ' "$log" | tail -n 1)
  cpu=$(sed -n 's/^== gate took .*; CPU \([0-9]*\) s.*/\1 s/p' "$log" | tail -n 1)
  closing+=("${line:-no closing line (exit $code)}")
  walls+=("${took} s")
  cpus+=("${cpu:-not printed}")
done
echo
echo "== $((runs - failed_runs)) of $runs runs passed beside $hogs CPU-bound processes"
joined() {
  local IFS=';'
  local text="$*"
  echo "${text//;/ | }"
}
echo "closing lines: $(joined "${closing[@]}")"
echo "wall times: $(joined "${walls[@]}")"
echo "gate CPU seconds: $(joined "${cpus[@]}")"
[ "$failed_runs" -eq 0 ]
