#!/usr/bin/env bash
# Benchmark of ptune pmu-analyze on synthetic a2a3 PIPE_UTILIZATION files (docs/PERFORMANCE.md).
# Usage: tools/pmu_bench.sh BUILD_DIR [ROWS...]   (default rows: 100000 1000000)
# Prints elapsed and user seconds and peak RSS per format; the inputs go to a scratch folder.
set -euo pipefail
build=${1:?usage: tools/pmu_bench.sh BUILD_DIR [ROWS...]}
shift
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100000 1000000)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for rows in "${sizes[@]}"; do
  "$build/tools/pmu_gen" "$rows" 40 >"$scratch/pmu.csv"
  bytes=$(stat -c %s "$scratch/pmu.csv")
  for format in text json; do
    # Exit 1 means findings, which synthetic data has; anything else is a failure.
    /usr/bin/time -f "%e %U %M" -o "$scratch/time" "$build/ptune" pmu-analyze "$scratch/pmu.csv" \
      --format "$format" -o "$scratch/out" -q || [ $? -eq 1 ]
    # GNU time puts "Command exited with non-zero status 1" first when there are findings.
    read -r elapsed user rss < <(tail -n 1 "$scratch/time")
    printf '%9d rows %6.1f MB  %-4s  %6.2f s elapsed  %6.2f s user  %5d MB peak RSS  output %6.1f MB\n' \
      "$rows" "$(echo "$bytes / 1048576" | bc -l)" "$format" "$elapsed" "$user" $((rss / 1024)) \
      "$(echo "$(stat -c %s "$scratch/out") / 1048576" | bc -l)"
  done
done
