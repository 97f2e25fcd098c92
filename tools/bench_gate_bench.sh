#!/usr/bin/env bash
# Benchmark of ptune bench-gate on large synthetic inputs: tools/bench_gate_bench.sh BUILD_DIR
# [CASES=1000] [ROUNDS=200] [HISTORY=10]. Generates HISTORY baseline runs and one current run of CASES cases
# with ROUNDS raw samples each (tools/bench_gate_synth), then times the gate with raw samples
# (U test, one baseline) and with the history (fence), and a gate of CASES cases of 100-round
# summaries without raw samples (the bounds test: every case of the sweep has the same n and m,
# issue 36). Figures go to docs/PERFORMANCE.md.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
cases=${2:-1000}
rounds=${3:-200}
history=${4:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/history"
for run in $(seq 1 "$history"); do
  "$build/tools/bench_gate_synth" --cases "$cases" --rounds "$rounds" --seed "$run" >"$work/history/run$run.log"
done
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
