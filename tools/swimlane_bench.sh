#!/usr/bin/env bash
# Benchmark of `ptune swimlane-merge` on synthetic captures (see docs/PERFORMANCE.md).
#
#   tools/swimlane_bench.sh BUILD_DIR [TASKS...]      (default TASKS: 20000 200000)
#
# BUILD_DIR holds a Release build of `ptune` and `swimlane_gen`. For each task count the script
# generates an a2a3 level-4 capture with deps (tools/swimlane_gen.cpp), then runs swimlane-merge
# RUNS times (default 5) to a JSON trace, RUNS times to /dev/null (its own work, without the
# kernel writing the file) and once each to .json.gz, JSON with --overhead counters
# and protobuf. It prints the minimum and median wall time in ms (of the JSON runs), the CPU time
# and peak RSS (GNU time) and the input and output sizes. Captures go to a temporary directory
# that is removed at the end.
set -euo pipefail
build=${1:?usage: swimlane_bench.sh BUILD_DIR [TASKS...]}
shift
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(20000 200000)
ptune=$build/ptune
gen=$build/tools/swimlane_gen
[ -x "$gen" ] || gen=$build/swimlane_gen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # measure OUTFILE ARGS... → "wall_ms max_rss_kb cpu_s" (cpu = user + sys)
  local out=$1
  shift
  # Each run starts without the previous output, with the page cache written back and after a
  # pause: freeing a replaced 100 MB-1 GB file, the last run's write-back or its blocks being
  # discarded is the kernel's work, not ptune's, and would land in whichever run comes next.
  if [ -f "$out" ]; then rm -f "$out"; fi # never /dev/null
  sync
  sleep "${PAUSE:-1}"
  local start end
  start=$(date +%s%N)
  /usr/bin/time -f '%M %U %S' -o "$work/time.txt" "$ptune" swimlane-merge "$@" -o "$out" >/dev/null 2>"$work/stderr.txt"
  end=$(date +%s%N)
  awk -v ms=$(((end - start) / 1000000)) '{printf "%d %s %.2f\n", ms, $1, $2 + $3}' "$work/time.txt"
}

mb() { echo "$1/1048576" | bc -l; }

printf '%-8s %-9s %8s %8s %6s %8s %10s %11s %9s\n' tasks format min_ms med_ms cpu_s rss_MB input_MB output_MB events
for n in "${counts[@]}"; do
  dir=$work/cap_$n
  # GEN_ARGS adds generator options, e.g. "--spmd-every 0 --mix-every 0" (one row per task).
  "$gen" --tasks "$n" --out "$dir" --arch a2a3 --level 4 ${GEN_ARGS:-}
  input=$(du -cb "$dir"/chip_swimlane_records.json "$dir"/deps.json | tail -1 | cut -f1)
  # JSON to a file, then to /dev/null: ptune's own work without the kernel's page-cache writes.
  for out in "$work/trace.json" /dev/null; do
    walls=()
    for _ in $(seq "${RUNS:-5}"); do
      read -r ms kb cpu < <(measure "$out" "$dir")
      walls+=("$ms")
    done
    read -r min med < <(printf '%s\n' "${walls[@]}" | sort -n | awk '{v[NR]=$1} END{print v[1], v[int((NR+1)/2)]}')
    if [ "$out" = /dev/null ]; then
      printf '%-8s %-9s %8s %8s %6s %8.1f %10.1f %11s %9s\n' "$n" json-null "$min" "$med" "$cpu" \
        "$(mb "$kb*1024")" "$(mb "$input")" - -
    else
      printf '%-8s %-9s %8s %8s %6s %8.1f %10.1f %11.1f %9s\n' "$n" json "$min" "$med" "$cpu" \
        "$(mb "$kb*1024")" "$(mb "$input")" "$(mb "$(stat -c %s "$out")")" \
        "$(grep -c '^{"name"' "$out" || true)"
    fi
  done
  for variant in gzip json+oh proto; do
    case $variant in
      gzip) out=$work/trace.json.gz extra=() ;;
      json+oh) out=$work/trace.json extra=(--overhead) ;;
      proto) out=$work/trace.pftrace extra=(--format proto) ;;
    esac
    read -r ms kb cpu < <(measure "$out" "$dir" "${extra[@]}")
    printf '%-8s %-9s %8s %8s %6s %8.1f %10.1f %11.1f %9s\n' "$n" "$variant" "$ms" "-" "$cpu" "$(mb "$kb*1024")" \
      "$(mb "$input")" "$(mb "$(stat -c %s "$out")")" "-"
  done
done
