#!/usr/bin/env bash
# bench-summary speed benchmark (docs/PERFORMANCE.md "bench-summary").
#   tools/bench_summary_benchmark.sh BUILD_DIR [REPORT_MB] [STRACE_MB] [WORK_DIR] [CI_MB]
# Generates a synthetic sweep log, a [STRACE] capture and a daily-CI log of many small cases
# (issue #35: `ci` with host-span [STRACE] chatter at CI_MB, `ci --no-strace` at CI_MB/5) with
# bench_gen_sweep_log, then compares wall time and peak memory of `ptune bench-summary` (the
# default text table, and --format json) with `grep -c` on the same file (both run once to warm
# the page cache first; ptune's output goes to a file too).
# SECTIONS="report strace ci" (the default; commas work too) picks what runs; PTUNE=path overrides BUILD_DIR/ptune
# (e.g. the binary before a change, run in the same session for a side-by-side figure).
# Targets: report and ci <= 2x grep -c effective_us, strace <= 3x grep -c STRACE, memory flat as
# the log grows.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [REPORT_MB] [STRACE_MB] [WORK_DIR]}
report_mb=${2:-500}
strace_mb=${3:-200}
work=${4:-${TMPDIR:-/tmp}/ptune-bench-summary}
ci_mb=${5:-500}
sections=${SECTIONS:-report strace ci}
sections=${sections//,/ }  # "report,strace" as well (one env word for tools/bench-all)
mkdir -p "$work"
ptune=${PTUNE:-$build/ptune}
gen=${GEN:-$build/tools/bench_gen_sweep_log}

seconds() {  # best of 5 wall-clock seconds of "$@", stdout discarded
  local best=
  for _ in 1 2 3 4 5; do
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/stdout" 2>/dev/null  # not /dev/null: GNU grep stops at the first match on it
    end=$(date +%s.%N)
    best=$(echo "$start $end ${best:-999999}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
  done
  echo "$best"
}

peak_rss_mb() {  # peak resident memory of "$@" in MB
  /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1/1024}'
}

cpu_seconds() {  # best of 3 CPU seconds (user + sys) of "$@": the steadier figure on a shared machine
  local best=999999
  for _ in 1 2 3; do
    /usr/bin/time -o "$work/time" -f '%U %S' "$@" >"$work/stdout" 2>/dev/null || true
    best=$(tail -1 "$work/time" | awk -v best="$best" '{s=$1+$2; print (s<best)?s:best}')
  done
  echo "$best"
}

measure() {  # label file grep-pattern format ptune-args...
  local label=$1 file=$2 pattern=$3 format=$4
  shift 4
  cat "$file" >/dev/null  # page cache
  local grep_s ptune_s
  grep_s=$(seconds grep -c "$pattern" "$file")
  ptune_s=$(seconds "$ptune" bench-summary --format "$format" "$@" "$file")
  local grep_cpu ptune_cpu
  grep_cpu=$(cpu_seconds grep -c "$pattern" "$file")
  ptune_cpu=$(cpu_seconds "$ptune" bench-summary --format "$format" "$@" "$file")
  printf '%-9s %-5s %6s MB  grep -c %-12s %6.3f s  ptune %6.3f s  ratio %5.2f  CPU %5.2f / %5.2f s = %5.2f  peak RSS %s MB\n' \
    "$label" "$format" "$(( $(stat -c %s "$file") >> 20 ))" "$pattern" "$grep_s" "$ptune_s" \
    "$(echo "$ptune_s $grep_s" | awk '{print $1/$2}')" "$ptune_cpu" "$grep_cpu" \
    "$(echo "$ptune_cpu $grep_cpu" | awk '{print ($2>0)?$1/$2:0}')" \
    "$(peak_rss_mb "$ptune" bench-summary --format "$format" "$@" "$file")"
}

want() { [[ " $sections " == *" $1 "* ]]; }
want report && for mb in $(( report_mb / 10 )) "$report_mb"; do
  "$gen" report "$mb" "$work/sweep_$mb.log"
  measure report "$work/sweep_$mb.log" effective_us text
  measure report "$work/sweep_$mb.log" effective_us json
  rm -f "$work/sweep_$mb.log"
done
want strace && for mb in $(( strace_mb / 10 )) "$strace_mb"; do
  "$gen" strace "$mb" "$work/strace_$mb.log"
  measure strace "$work/strace_$mb.log" STRACE text --warmup 5 --rounds 100 --raw
  measure strace "$work/strace_$mb.log" STRACE json --warmup 5 --rounds 100 --raw
  rm -f "$work/strace_$mb.log"
done
if want ci; then
  # Many small cases (~5 KB each): the per-case cost shows, not the per-byte one.
  "$gen" ci "$(( ci_mb / 5 ))" "$work/ci_plain_$(( ci_mb / 5 )).log" --no-strace
  measure ci-plain "$work/ci_plain_$(( ci_mb / 5 )).log" effective_us text
  measure ci-plain "$work/ci_plain_$(( ci_mb / 5 )).log" effective_us json
  rm -f "$work/ci_plain_$(( ci_mb / 5 )).log"
  "$gen" ci "$ci_mb" "$work/ci_strace_$ci_mb.log"
  measure ci-strace "$work/ci_strace_$ci_mb.log" effective_us text
  measure ci-strace "$work/ci_strace_$ci_mb.log" effective_us json
  rm -f "$work/ci_strace_$ci_mb.log"
fi
