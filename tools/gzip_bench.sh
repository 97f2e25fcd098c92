#!/usr/bin/env bash
# Benchmark of gzip trace output (`swimlane-merge -o x.json.gz`, src/core/gzip_writer.cpp) against
# plain JSON, and of its size against zlib level 6 (see docs/PERFORMANCE.md, "gzip traces").
#
#   tools/gzip_bench.sh BUILD_DIR [TASKS...]      (default TASKS: 20000 200000)
#
# BUILD_DIR holds a Release build of `ptune` and `swimlane_gen`. For each task count: an a2a3
# capture with one row per task (the shape of the figures in PERFORMANCE.md), then RUNS (default
# 15) interleaved runs of swimlane-merge to .json and to .json.gz, each to a fresh file after
# `sync` and a pause. Prints min / median wall ms of each, the ratio of the medians (and of the
# minima), the median CPU ms (user + sys, all threads), the .gz size, zlib level 6's size of the
# same JSON (Python's zlib, the library's own level 6) and the ratio, and the load average
# before and after: on a shared machine the medians of many interleaved runs are the figure.
# CPUS (default 0,1) pins the runs with taskset: the target is "within 2x on 2 cores".
set -euo pipefail
build=${1:?usage: gzip_bench.sh BUILD_DIR [TASKS...]}
shift
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(20000 200000)
ptune=$build/ptune
gen=$build/tools/swimlane_gen
runs=${RUNS:-15}
cpus=${CPUS:-0,1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

wall_ms() {  # wall_ms OUT ARGS... : one run, fresh output; "wall_ms cpu_ms" on stdout
  local out=$1
  shift
  rm -f "$out"
  sync
  sleep "${PAUSE:-1}"
  local start end cpu
  start=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$work/cpu" taskset -c "$cpus" "$ptune" swimlane-merge "$@" -o "$out" \
    >/dev/null
  end=$(date +%s%N)
  cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$work/cpu")
  echo "$(((end - start) / 1000000)) $cpu"
}
# stats COLUMN < runs: "min / median" of that column.
stats() { awk -v c="$1" '{print $c}' | sort -n | awk '{v[NR]=$1} END {printf "%d / %d", v[1], v[int((NR+1)/2)]}'; }
median() { awk -v c="$1" '{print $c}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
minimum() { awk -v c="$1" '{print $c}' | sort -n | head -1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| Tasks | JSON ms (min / median) | .json.gz ms (min / median) | gz / JSON (median) | gz / JSON (min) | CPU ms JSON / gz (median) | JSON MB | .gz MB | zlib -6 MB | .gz / zlib -6 |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for tasks in "${counts[@]}"; do
  capture=$work/capture_$tasks
  "$gen" --tasks "$tasks" --spmd-every 0 --mix-every 0 --out "$capture" >/dev/null
  : >"$work/json.ms"
  : >"$work/gz.ms"
  for ((i = 0; i < runs; i++)); do
    wall_ms "$work/trace.json" "$capture" >>"$work/json.ms"
    wall_ms "$work/trace.json.gz" "$capture" >>"$work/gz.ms"
  done
  json=$(stats 1 <"$work/json.ms")
  gz=$(stats 1 <"$work/gz.ms")
  ratio_median=$(echo "$(median 1 <"$work/gz.ms") / $(median 1 <"$work/json.ms")" | bc -l)
  ratio_min=$(echo "$(minimum 1 <"$work/gz.ms") / $(minimum 1 <"$work/json.ms")" | bc -l)
  cpu="$(median 2 <"$work/json.ms") / $(median 2 <"$work/gz.ms")"
  sizes=$(python3 - "$work/trace.json" "$work/trace.json.gz" <<'PY'
import os, sys, zlib
plain = open(sys.argv[1], "rb").read()
level6 = len(zlib.compress(plain, 6))
packed = os.path.getsize(sys.argv[2])
print("%.1f %.2f %.2f %.3f" % (len(plain) / 2**20, packed / 2**20, level6 / 2**20, packed / level6))
PY
)
  read -r json_mb gz_mb zlib_mb size_ratio <<<"$sizes"
  printf '| %s | %s | %s | %.2f× | %.2f× | %s | %s | %s | %s | %s |\n' "$tasks" "$json" "$gz" \
    "$ratio_median" "$ratio_min" "$cpu" "$json_mb" "$gz_mb" "$zlib_mb" "$size_ratio"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
