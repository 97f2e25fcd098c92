#!/usr/bin/env bash
# bench-summary on large host logs (docs/PERFORMANCE.md "bench-summary: large host logs").
#   tools/host_log_bench.sh BUILD_DIR [MB] [WORK_DIR]
# Generates host.<pid>.log files of MB/10 and MB megabytes with host_log_gen (every line
# family of upstream-2026-09.md §2.7, cut `~` records, torn spans, [HOSTLOG_DROPS]) and
# measures `ptune bench-summary` on each (text and --format json): best-of-3 wall time, peak
# RSS, and `grep -c STRACE` on the same file for scale. Target: the log is streamed, so peak
# RSS stays flat when the file grows tenfold.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [MB] [WORK_DIR]}
mb=${2:-400}
work=${3:-${TMPDIR:-/tmp}/ptune-host-log-bench}
mkdir -p "$work"
ptune=$build/ptune
gen=$build/tools/host_log_gen

seconds() {  # best of 3 wall-clock seconds of "$@", stdout discarded
  local best=
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/stdout" 2>/dev/null || true  # exit 1: the drops finding
    end=$(date +%s.%N)
    best=$(echo "$start $end ${best:-999999}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
  done
  echo "$best"
}

cpu_and_rss() {  # "user+sys seconds  peak RSS MB" of one run of "$@" (CPU time is the fairer
  # figure on a shared machine: wall time there includes waiting for a core)
  # stdout to a file, not /dev/null: GNU grep stops at the first match when it sees /dev/null
  /usr/bin/time -f '%U %S %M' -o "$work/rss" "$@" >"$work/stdout" 2>/dev/null || true
  awk '{printf "cpu %.3f s  peak RSS %.0f MB", $1 + $2, $3 / 1024}' "$work/rss"
}

for size in $(( mb / 10 )) "$mb"; do
  dir=$work/run_$size
  mkdir -p "$dir"
  log=$dir/host.3810442.log
  "$gen" "$size" "$log"
  cat "$log" >/dev/null  # page cache
  grep_s=$(seconds grep -c STRACE "$log")
  for format in text json; do
    ptune_s=$(seconds "$ptune" bench-summary --format "$format" "$log")
    printf '%6s MB  %-4s  grep -c STRACE %6.3f s (%s)  ptune %6.3f s (%s)\n' \
      "$(( $(stat -c %s "$log") >> 20 ))" "$format" "$grep_s" \
      "$(cpu_and_rss grep -c STRACE "$log")" "$ptune_s" \
      "$(cpu_and_rss "$ptune" bench-summary --format "$format" "$log")"
  done
  rm -rf "$dir"
done
