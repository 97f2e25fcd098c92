#!/usr/bin/env bash
# What the schedule-graph analyses (upstream-2026-12.md §8: transitive reduction, early dispatch,
# chains, setup, critical-path gaps) cost swimlane-analyze (docs/PERFORMANCE.md).
#
#   tools/swimlane_graph_bench.sh BUILD_DIR [BASE_BUILD_DIR] [TASKS...]   (default TASKS: 20000)
#
# BUILD_DIR (and BASE_BUILD_DIR, a Release build from before the analyses, for the ratio) hold
# `ptune` and `swimlane_gen`. For each task count the script generates an a2a3 level-4 capture
# with deps.json (fixed seed), then runs `ptune swimlane-analyze DIR --format json -o /dev/null`
# RUNS times (default 5) with each build and prints the best and median wall time, the CPU time
# and the peak RSS of the best run.
set -euo pipefail
build=${1:?usage: swimlane_graph_bench.sh BUILD_DIR [BASE_BUILD_DIR] [TASKS...]}
shift
base=""
if [ $# -gt 0 ] && [ -d "$1" ]; then base=$1; shift; fi
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(20000)
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen=$build/tools/swimlane_gen
[ -x "$gen" ] || gen=$build/swimlane_gen

time_runs() {  # time_runs PTUNE DIR → "best_ms median_ms cpu_s rss_mb"
  local ptune=$1 dir=$2 i
  : >"$work/runs.txt"
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$ptune" swimlane-analyze "$dir" \
      --format json -o /dev/null 2>/dev/null || [ $? -eq 1 ]
    tail -n 1 "$work/time.txt" >>"$work/runs.txt"  # after "Command exited with …" on exit 1
  done
  sort -n "$work/runs.txt" | awk -v n="$runs" '
    NR == 1 { best = $1 * 1000; cpu = $2 + $3; rss = $4 / 1024 }
    NR == int((n + 1) / 2) { median = $1 * 1000 }
    END { printf "%d %d %.2f %.0f\n", best, median, cpu, rss }'
}

printf '%-8s %-6s %9s %11s %7s %7s\n' tasks build best_ms median_ms cpu_s rss_MB
for tasks in "${counts[@]}"; do
  dir="$work/capture-$tasks"
  "$gen" --tasks "$tasks" --out "$dir" --seed 7 >/dev/null
  for which in base new; do
    ptune=$build/ptune
    if [ "$which" = base ]; then
      [ -n "$base" ] || continue
      ptune=$base/ptune
    fi
    read -r best median cpu rss < <(time_runs "$ptune" "$dir")
    printf '%-8s %-6s %9s %11s %7s %7s\n' "$tasks" "$which" "$best" "$median" "$cpu" "$rss"
  done
done
