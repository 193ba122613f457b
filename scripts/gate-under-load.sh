#!/usr/bin/env bash
# The gate under load, shown rather than claimed (issue 52): runs `npm test` N times in a row
# (default 3) with four CPU-bound processes beside it (`node -e 'for(;;){}'`), and prints for
# each run its closing lines (slowest files, gate time and CPU seconds, `tests: N passed, N
# failed`) and its wall time. It ends with the three lines the issue notes take, one figure per
# run in each: the closing lines, the wall times and the gates' CPU seconds. The busy processes
# are killed at the end whatever happens (a run that fails, Ctrl-C). Exit 0 only when every run
# passed. Full logs: .tmp/gate-under-load-K.log.
#
#   scripts/gate-under-load.sh                 three runs, one after the other
#   scripts/gate-under-load.sh 1               one
#   scripts/gate-under-load.sh --side-by-side 3
#       three runs at the same time, each in its own clone of this checkout's HEAD
#       (.tmp/gate-side-K, node_modules hard-linked from here): each gate then has the four busy
#       processes and the other gates beside it. For when the hours for runs in a row are not
#       there; the load is heavier, not lighter.
#
# It takes the machine for an hour or more on 2 cores: not for a machine others are using.
set -uo pipefail
cd "$(dirname "$0")/.."
side_by_side=false
if [ "${1:-}" = "--side-by-side" ]; then
  side_by_side=true
  shift
fi
runs="${1:-3}"
hogs="${GATE_LOAD_PROCESSES:-4}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/gate-under-load.sh [--side-by-side] [RUNS]  (RUNS a whole number, default 3)" >&2
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

# Reads run K's log into the summary: its closing lines, wall time and CPU seconds.
take_run() {
  local run=$1 log=$2 code=$3 took=$4 line cpu
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
}

if $side_by_side; then
  pids_gate=()
  for run in $(seq "$runs"); do
    clone=".tmp/gate-side-$run"
    rm -rf "$clone"
    git clone --quiet . "$clone" && cp -a -l node_modules "$clone/" || exit 1
    (
      cd "$clone" || exit 1
      started=$(date +%s)
      npm test > "../gate-under-load-$run.log" 2>&1
      echo "$? $(($(date +%s) - started))" > "../gate-under-load-$run.status"
    ) &
    pids_gate+=("$!")
  done
  echo "== $runs gates side by side in .tmp/gate-side-1..$runs (HEAD $(git rev-parse --short HEAD))"
  wait "${pids_gate[@]}"
  for run in $(seq "$runs"); do
    read -r code took < ".tmp/gate-under-load-$run.status" || { code=1; took=0; }
    take_run "$run" ".tmp/gate-under-load-$run.log" "$code" "$took"
  done
else
  for run in $(seq "$runs"); do
    log=".tmp/gate-under-load-$run.log"
    started=$(date +%s)
    npm test > "$log" 2>&1
    code=$?
    take_run "$run" "$log" "$code" "$(($(date +%s) - started))"
  done
fi
echo
echo "== $((runs - failed_runs)) of $runs runs passed beside $hogs CPU-bound processes$($side_by_side && echo ", side by side")"
joined() {
  local IFS=';'
  local text="$*"
  echo "${text//;/ | }"
}
echo "closing lines: $(joined "${closing[@]}")"
echo "wall times: $(joined "${walls[@]}")"
echo "gate CPU seconds: $(joined "${cpus[@]}")"
[ "$failed_runs" -eq 0 ]
