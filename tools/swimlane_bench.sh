#!/usr/bin/env bash
# Benchmark of `ptune swimlane-merge` on synthetic captures (see docs/PERFORMANCE.md).
#
#   tools/swimlane_bench.sh BUILD_DIR [TASKS...]      (default TASKS: 20000 200000)
#
# BUILD_DIR holds a Release build of `ptune` and `swimlane_gen`. For each task count the script
# generates an a2a3 level-4 capture with deps (tools/swimlane_gen.cpp), then runs swimlane-merge
# three times to a JSON trace and once each to .json.gz, JSON with --overhead counters and
# protobuf, and prints the best wall time, the peak RSS (GNU time) and the input and output
# sizes. Captures go to a temporary directory that is removed at the end.
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

measure() {  # measure OUTFILE ARGS... → "wall_s max_rss_kb cpu_s" (cpu = user + sys)
  local out=$1
  shift
  # Each run starts without the previous output and with the page cache written back: freeing
  # a replaced 100 MB-1 GB file, or waiting for the last run's write-back, is the kernel's work
  # (+0.03 s at 20K tasks when a trace is overwritten), not ptune's.
  rm -f "$out"
  sync
  /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$ptune" swimlane-merge "$@" -o "$out" >/dev/null 2>"$work/stderr.txt"
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$work/time.txt"
}

printf '%-8s %-6s %8s %8s %8s %10s %11s %9s\n' tasks format wall_s cpu_s rss_MB input_MB output_MB events
for n in "${counts[@]}"; do
  dir=$work/cap_$n
  # GEN_ARGS adds generator options, e.g. "--spmd-every 0 --mix-every 0" (one row per task).
  "$gen" --tasks "$n" --out "$dir" --arch a2a3 --level 4 ${GEN_ARGS:-}
  input=$(du -cb "$dir"/chip_swimlane_records.json "$dir"/deps.json | tail -1 | cut -f1)
  best=""
  rss=""
  cpu=""
  for _ in 1 2 3; do
    read -r secs kb c < <(measure "$work/trace.json" "$dir")
    if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; rss=$kb; cpu=$c; fi
  done
  events=$(grep -c '^{"name"' "$work/trace.json" || true)
  printf '%-8s %-6s %8s %8s %8.1f %10.1f %11.1f %9s\n' "$n" json "$best" "$cpu" "$(echo "$rss/1024" | bc -l)" \
    "$(echo "$input/1048576" | bc -l)" "$(echo "$(stat -c %s "$work/trace.json")/1048576" | bc -l)" "$events"
  read -r secs kb c < <(measure "$work/trace.json.gz" "$dir")
  printf '%-8s %-6s %8s %8s %8.1f %10.1f %11.1f %9s\n' "$n" gzip "$secs" "$c" "$(echo "$kb/1024" | bc -l)" \
    "$(echo "$input/1048576" | bc -l)" "$(echo "$(stat -c %s "$work/trace.json.gz")/1048576" | bc -l)" "-"
  read -r secs kb c < <(measure "$work/trace.json" "$dir" --overhead)
  printf '%-8s %-6s %8s %8s %8.1f %10.1f %11.1f %9s\n' "$n" json+oh "$secs" "$c" "$(echo "$kb/1024" | bc -l)" \
    "$(echo "$input/1048576" | bc -l)" "$(echo "$(stat -c %s "$work/trace.json")/1048576" | bc -l)" \
    "$(grep -c '^{"name"' "$work/trace.json" || true)"
  read -r secs kb c < <(measure "$work/trace.pftrace" "$dir" --format proto)
  printf '%-8s %-6s %8s %8s %8.1f %10.1f %11.1f %9s\n' "$n" proto "$secs" "$c" "$(echo "$kb/1024" | bc -l)" \
    "$(echo "$input/1048576" | bc -l)" "$(echo "$(stat -c %s "$work/trace.pftrace")/1048576" | bc -l)" "-"
done
