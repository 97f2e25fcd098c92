#!/usr/bin/env bash
# -DPTUNE_BUILD_TESTS=OFF configures ptune and nothing for developers: no test programs, no
# synthetic-input generators or benchmark drivers (tools/), no fuzz replays.
set -eu
build_dir=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
grep -q "PTUNE_SANITIZE:BOOL=ON" "$build_dir/CMakeCache.txt" && exit 77
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake -S "$src" -B "$scratch" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTUNE_BUILD_TESTS=OFF >/dev/null
targets=$(ninja -C "$scratch" -t targets all | sed 's/:.*//')
grep -qx "ptune" <<<"$targets" || { echo "FAIL: no ptune target"; exit 1; }
developer=$(grep -E "(^|/)(ptune_tests|ptune_synth|libptune_synth\.a|swimlane_gen|pmu_gen|bench_gate_synth|hints_gen_log|gen_mem_report|ptune_fuzz(_[a-z_]+)?|ptune_agreement_tests)$" <<<"$targets" || true)
if [ -n "$developer" ]; then
  echo "FAIL: PTUNE_BUILD_TESTS=OFF still builds developer tools:"
  echo "$developer"
  exit 1
fi
echo ok
