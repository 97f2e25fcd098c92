#!/usr/bin/env bash
# Benchmark of gzip trace output (`swimlane-merge -o x.json.gz`, src/core/gzip_writer.cpp) against
# plain JSON, and of its size against zlib level 6 (see docs/PERFORMANCE.md, "gzip traces").
#
#   tools/gzip_bench.sh BUILD_DIR [TASKS...]      (default TASKS: 20000 200000)
#
# BUILD_DIR holds a Release build of `ptune` and `swimlane_gen`. For each task count: an a2a3
# capture with one row per task (the shape of the figures in PERFORMANCE.md), then RUNS (default
# 5) alternating runs of swimlane-merge to .json and to .json.gz, each to a fresh file after
# `sync` and a pause. Prints min / median wall ms of each, the ratio of the minima, the .gz size,
# zlib level 6's size of the same JSON (Python's zlib, the library's own level 6) and the ratio.
# CPUS (default 0,1) pins the runs with taskset: the target is "within 2x on 2 cores".
set -euo pipefail
build=${1:?usage: gzip_bench.sh BUILD_DIR [TASKS...]}
shift
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(20000 200000)
ptune=$build/ptune
gen=$build/tools/swimlane_gen
runs=${RUNS:-5}
cpus=${CPUS:-0,1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

wall_ms() {  # wall_ms OUT ARGS... : one run, fresh output, ms on stdout
  local out=$1
  shift
  rm -f "$out"
  sync
  sleep "${PAUSE:-1}"
  local start end
  start=$(date +%s%N)
  taskset -c "$cpus" "$ptune" swimlane-merge "$@" -o "$out" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
stats() { sort -n | awk '{v[NR]=$1} END {printf "%d / %d", v[1], v[int((NR+1)/2)]}'; }

printf '| Tasks | JSON ms (min / median) | .json.gz ms (min / median) | gz / JSON (min) | JSON MB | .gz MB | zlib -6 MB | .gz / zlib -6 |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for tasks in "${counts[@]}"; do
  capture=$work/capture_$tasks
  "$gen" --tasks "$tasks" --spmd-every 0 --mix-every 0 --out "$capture" >/dev/null
  : >"$work/json.ms"
  : >"$work/gz.ms"
  for ((i = 0; i < runs; i++)); do
    wall_ms "$work/trace.json" "$capture" >>"$work/json.ms"
    wall_ms "$work/trace.json.gz" "$capture" >>"$work/gz.ms"
  done
  json=$(stats <"$work/json.ms")
  gz=$(stats <"$work/gz.ms")
  ratio=$(echo "$(sort -n "$work/gz.ms" | head -1) / $(sort -n "$work/json.ms" | head -1)" | bc -l)
  sizes=$(python3 - "$work/trace.json" "$work/trace.json.gz" <<'PY'
import os, sys, zlib
plain = open(sys.argv[1], "rb").read()
level6 = len(zlib.compress(plain, 6))
packed = os.path.getsize(sys.argv[2])
print("%.1f %.2f %.2f %.3f" % (len(plain) / 2**20, packed / 2**20, level6 / 2**20, packed / level6))
PY
)
  read -r json_mb gz_mb zlib_mb size_ratio <<<"$sizes"
  printf '| %s | %s | %s | %.2f× | %s | %s | %s | %s |\n' "$tasks" "$json" "$gz" "$ratio" \
    "$json_mb" "$gz_mb" "$zlib_mb" "$size_ratio"
done
