#!/usr/bin/env bash
# Benchmark of ptune bench-gate on large synthetic inputs: tools/bench_gate_bench.sh BUILD_DIR
# [CASES=1000] [ROUNDS=200] [HISTORY=10]. Generates HISTORY baseline runs and one current run of CASES cases
# with ROUNDS raw samples each (tools/bench_gate_synth), then times the gate with raw samples
# (U test, one baseline) and with the history (fence), and a gate of CASES cases of 100-round
# summaries without raw samples (the bounds test: every case of the sweep has the same n and m,
# issue 36). Figures go to docs/PERFORMANCE.md. CASES=0 skips all this (with BIG_CASES, below).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
cases=${2:-1000}
rounds=${3:-200}
history=${4:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/history"
[ "$cases" -gt 0 ] && for run in $(seq 1 "$history"); do
  "$build/tools/bench_gate_synth" --cases "$cases" --rounds "$rounds" --seed "$run" >"$work/history/run$run.log"
done
if [ "$cases" -gt 0 ]; then
"$build/tools/bench_gate_synth" --cases "$cases" --rounds "$rounds" --seed 999 --shift case-0007=20 >"$work/current.log"
echo "inputs: $cases cases x $rounds rounds; history $history runs; $(du -sh "$work" | cut -f1) total"
time_gate() {
  local label=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$build/ptune" bench-gate "$@" --format json -o /dev/null -q || [ $? -eq 1 ]
  end=$(date +%s.%N)
  printf '%-40s %6.2f s\n' "$label" "$(echo "$end - $start" | bc)"
}
time_gate "raw samples, one baseline (U test)" --baseline "$work/history/run1.log" --current "$work/current.log"
time_gate "history of $history runs (fence)" --baseline "$work/history" --current "$work/current.log"
/usr/bin/time -f "peak RSS (history): %M KiB" "$build/ptune" bench-gate --baseline "$work/history" \
  --current "$work/current.log" --format json -o /dev/null -q || true
# Summaries only (no raw lines), 100 rounds a side: the exact U table for (100, 100) is built once.
"$build/tools/bench_gate_synth" --cases "$cases" --rounds 100 --seed 1 --no-raw >"$work/summary_base.log"
"$build/tools/bench_gate_synth" --cases "$cases" --rounds 100 --seed 2 --no-raw \
  --shift case-0007=20 >"$work/summary_cur.log"
time_gate "100-round summaries (bounds test)" --baseline "$work/summary_base.log" \
  --current "$work/summary_cur.log"
fi
# Peak memory against input size (issue #35): BIG_CASES=200000 gates a log of that many
# three-line cases (the densest a case can be written, tests/malformed/scenarios.sh's shape)
# against itself, as text and json, and prints peak RSS over one side's bytes and over both
# (PTUNE=path: another binary, e.g. the one before a change). The last line gates it against
# the same cases in a shuffled order (fixed seed): the pairing frees a chunk of digests once
# all its cases are compared, which in the same order is as it goes, here mostly at the end.
if [ -n "${BIG_CASES:-}" ]; then
  awk -v n="$BIG_CASES" 'BEGIN { for (i = 0; i < n; i++) {
    printf "::group::models/case_%06d.py\n", i
    printf "[RUN]   effective_us (5 rounds) min=%d.0 median=%d.5 mean=%d.5 max=%d.0\n", i + 1, i + 1, i + 1, i + 2
    printf "::endgroup::\n" } }' >"$work/big.log"
  awk 'BEGIN { srand(35) } NR % 3 == 1 { group = $0 } NR % 3 == 2 { run = $0 }
    NR % 3 == 0 { printf "%.9f\t%s\t%s\t%s\n", rand(), group, run, $0 }' "$work/big.log" |
    sort -k1,1 | awk -F '\t' '{ print $2; print $3; print $4 }' >"$work/big_shuffled.log"
  side=$(stat -c %s "$work/big.log")
  for gate in "text big.log" "json big.log" "json big_shuffled.log"; do
    read -r format current <<<"$gate"
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "${PTUNE:-$build/ptune}" bench-gate -b "$work/big.log" \
      -c "$work/$current" --format "$format" -o "$work/big.out" -q || [ $? -eq 1 ]
    read -r wall user sys rss <"$work/time"
    printf '%s cases a side, %-4s%s: wall %s s, CPU %.2f s, peak RSS %.1f MB = %.2fx one side (%.1f MB), %.2fx both\n' \
      "$BIG_CASES" "$format" "$([ "$current" = big.log ] || echo ", shuffled current")" "$wall" \
      "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)" \
      "$(echo "$rss * 1024 / $side" | bc -l)" "$(echo "$side / 1048576" | bc -l)" \
      "$(echo "$rss * 512 / $side" | bc -l)"
  done
fi
