#!/usr/bin/env bash
# Benchmark of ptune on large operator-suite CI results (docs/PERFORMANCE.md, "bench-gate", "CI
# result inputs read once"): tools/ci_suite_bench.sh BUILD_DIR [CASES=500] [RANKS=8] [ROUNDS=100].
# Generates a baseline and a 2 % slower current suite-result.json (tools/ci_suite_gen, from
# tests/data/ciresult/suite-a) and times `bench-gate --metric median` of the two and
# `bench-summary --format json` of the current one, one row each:
# "LABEL: X s wall, Y s user, max RSS Z KiB" (tools/bench-all records them per run).
set -euo pipefail
build=$(cd "${1:?usage: tools/ci_suite_bench.sh BUILD_DIR [CASES] [RANKS] [ROUNDS]}" && pwd)
cases=${2:-500}
ranks=${3:-8}
rounds=${4:-100}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
template=$repo/tests/data/ciresult/suite-a/suite-result.json
"$build/tools/ci_suite_gen" "$template" "$work/baseline" "$cases" "$ranks" "$rounds"
"$build/tools/ci_suite_gen" "$template" "$work/current" "$cases" "$ranks" "$rounds" 1.02
echo "inputs: $cases cases x $ranks ranks x $rounds rounds, $(du -sh "$work/baseline" | cut -f1) a side"
# The gate exits 1 on a regression; only a failure above that stops the benchmark.
/usr/bin/time -f "gate: %e s wall, %U s user, max RSS %M KiB" "$build/ptune" bench-gate -q \
  --baseline "$work/baseline" --current "$work/current" --metric median -o "$work/gate.txt" ||
  [ $? -eq 1 ]
/usr/bin/time -f "summary-json: %e s wall, %U s user, max RSS %M KiB" "$build/ptune" bench-summary -q \
  "$work/current" --format json -o "$work/summary.json" || [ $? -eq 1 ]
