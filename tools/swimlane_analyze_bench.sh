#!/usr/bin/env bash
# Benchmark of ptune swimlane-analyze on large synthetic captures (see docs/PERFORMANCE.md).
# Usage: tools/swimlane_analyze_bench.sh BUILD_DIR [SCALE...]
# For each scale it writes a small-kernels capture with SCALE × 2000 tasks (one row each, 2
# scheduler phases per task, no edges) and a serial-chain capture with SCALE × 400 tasks (one
# edge each), then times `ptune swimlane-analyze DIR --format json -o /dev/null` with wall
# time and peak RSS from /usr/bin/time.
set -euo pipefail
build=${1:?usage: tools/swimlane_analyze_bench.sh BUILD_DIR [SCALE...]}
shift
scales=("$@")
[ ${#scales[@]} -eq 0 ] && scales=(5 50)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-14s %8s %10s %10s %9s %9s\n' scenario tasks records_MB deps_MB wall_s rss_MB
for scale in "${scales[@]}"; do
  for scenario in small-kernels serial-chain; do
    dir="$work/$scenario-$scale"
    "$build/tools/swimlane_analyze_gen" "$scenario" "$dir" --scale "$scale" 2>"$work/gen.txt"
    tasks=$(sed -E 's/.*: ([0-9]+) tasks.*/\1/' "$work/gen.txt")
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$build/ptune" swimlane-analyze "$dir" --format json \
      -o /dev/null 2>/dev/null || [ $? -eq 1 ]
    read -r wall rss_kb < <(tail -n 1 "$work/time.txt")
    printf '%-14s %8s %10.1f %10.1f %9s %9.0f\n' "$scenario" "$tasks" \
      "$(echo "$(stat -c %s "$dir/chip_swimlane_records.json") / 1048576" | bc -l)" \
      "$(echo "$(stat -c %s "$dir/deps.json") / 1048576" | bc -l)" "$wall" "$(echo "$rss_kb / 1024" | bc -l)"
  done
done
