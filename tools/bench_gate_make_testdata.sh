#!/usr/bin/env bash
# Regenerates the synthetic inputs of tests/data/bench-gate/ (the issue's "done when" scenarios)
# with fixed seeds: tools/bench_gate_make_testdata.sh BUILD_DIR
# Same binary, same bytes; the README in that folder says what each file is.
set -euo pipefail
synth="$(cd "${1:-build}" && pwd)/tools/bench_gate_synth"
out="$(cd "$(dirname "$0")/.." && pwd)/tests/data/bench-gate"
mkdir -p "$out/synth/history"
cd "$out/synth"
suite=(--case models/demo/shifted.py --case models/demo/steady.py --case models/demo/small_shift.py
       --case models/demo/outliers.py --sigma 0.02)
"$synth" "${suite[@]}" --seed 100 >base.log
"$synth" "${suite[@]}" --seed 200 --shift models/demo/shifted.py=20 >current-shift20.log
"$synth" "${suite[@]}" --seed 300 >current-fresh.log
"$synth" "${suite[@]}" --seed 400 --shift models/demo/small_shift.py=2 >current-shift2.log
"$synth" "${suite[@]}" --seed 500 --outliers models/demo/outliers.py=5 >current-outliers.log
"$synth" "${suite[@]}" --seed 100 --no-raw >base-summary.log
"$synth" "${suite[@]}" --seed 200 --no-raw --shift models/demo/shifted.py=20 >current-shift20-summary.log
"$synth" "${suite[@]}" --seed 600 --rounds 50 >current-50-rounds.log
# History: six baseline runs; models/demo/drifting.py moves +-8% from run to run.
history=(--case models/demo/drifting.py --case models/demo/stable.py --sigma 0.005)
drift=(0 8 -8 8 -8 0)
for run in 1 2 3 4 5 6; do
  "$synth" "${history[@]}" --seed $((1000 + run)) --shift "models/demo/drifting.py=${drift[run - 1]}" \
    >"history/run$run.log"
done
"$synth" "${history[@]}" --seed 2001 --shift models/demo/drifting.py=6 >current-drift6.log
"$synth" "${history[@]}" --seed 2002 --shift models/demo/stable.py=20 >current-stable20.log
# A baseline written by bench-gate itself (bench-summary JSON with raw samples), read back by
# the saved-baseline golden case.
"$(dirname "$synth")/../ptune" bench-gate --baseline base.log --current base.log \
  --save-baseline saved-baseline.json -q >/dev/null
