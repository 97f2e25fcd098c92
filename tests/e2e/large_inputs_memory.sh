#!/usr/bin/env bash
# Large valid inputs in bounded memory, and refusals said once (issue #24, docs/RELIABILITY.md):
#  - mem-report on a generated report of 20,000 functions (27 MB; every format) and hints-lint on
#    50,000 perf hints (17 MB) finish under an address-space limit they exceeded before (the
#    subjects of the rules were all held at once, the tables and the JSON view built up front);
#  - advise with -o over an artifact it found says "refusing to write ..." once, not twice.
# Timings of the full-size inputs are in docs/PERFORMANCE.md (tools/bench-mem-report,
# tools/bench-hints-lint); this test only bounds memory, it times nothing.
# Usage: large_inputs_memory.sh PTUNE BUILD_DIR
set -uo pipefail
ptune=$1
build=$2
data=$(cd "$(dirname "$0")/../data" && pwd)
command -v prlimit >/dev/null || { echo "prlimit not available: skipped"; exit 77; }
for tool in gen_mem_report hints_gen_log; do
  [ -x "$build/tools/$tool" ] || { echo "$build/tools/$tool not built: skipped"; exit 77; }
done
if grep -q '^PTUNE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "sanitizer build: address-space limits do not apply"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-large-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
leftovers() { find "$work" -name '*.ptune-tmp-*' | head -n 5; }

# limited MiB ID ARGS...: ptune under an address-space limit of MiB; exit 0 or 1 is success.
limited() {
  local mib=$1 id=$2
  shift 2
  timeout -s KILL 300 prlimit --as=$((mib << 20)) "$ptune" "$@" >"$work/out" 2>"$work/err"
  local code=$?
  [ "$code" -le 1 ] || fail "$id: exit $code under ${mib} MiB: $(tail -c 300 "$work/err")"
  [ -z "$(leftovers)" ] || fail "$id: temporary file left: $(leftovers)"
}

# --- mem-report: 20,000 functions, 27 MB ------------------------------------------------------
report="$work/memory_after_AllocateMemoryAddr.txt"
"$build/tools/gen_mem_report" 20000 >"$report"
sum=$(cksum <"$report")
for format in text json csv markdown; do
  limited 400 "mem-report --format $format" mem-report -q --format "$format" -o "$work/mem.$format" \
    "$report"
  [ -s "$work/mem.$format" ] || fail "mem-report --format $format: empty output"
done
grep -q '"name": "kernel_0019999_aic"' "$work/mem.json" ||
  fail "mem-report json: the last function is missing"
[ "$(grep -c '"rule": "mem\.' "$work/mem.json")" -gt 20000 ] ||
  fail "mem-report json: fewer findings than functions"
[ "$(wc -l <"$work/mem.csv")" -eq 50001 ] || fail "mem-report csv: $(wc -l <"$work/mem.csv") lines"
[ "$(cksum <"$report")" = "$sum" ] || fail "mem-report changed its input"

# --- hints-lint: 50,000 hints -------------------------------------------------------------------
log="$work/perf_hints.log"
"$build/tools/hints_gen_log" 50000 1 >"$log"
for format in gcc json; do
  limited 400 "hints-lint --format $format" hints-lint -q --format "$format" \
    -o "$work/hints.$format" "$log"
  [ -s "$work/hints.$format" ] || fail "hints-lint --format $format: empty output"
done

# --- advise: a refused output is said once ------------------------------------------------------
cp -r "$data/hints/build_output" "$work/build"
hints_log="$work/build/Attn_20260820_101500/report/perf_hints.log"
sum=$(cksum <"$hints_log")
"$ptune" advise "$work/build" -o "$hints_log" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "advise -o over a found artifact: exit $code, expected 2"
count=$(grep -c "refusing to write the output over the input" "$work/err")
[ "$count" -eq 1 ] || fail "advise -o over a found artifact: refusal printed $count times: $(cat "$work/err")"
[ "$(cksum <"$hints_log")" = "$sum" ] || fail "advise changed the artifact"

[ "$failures" -eq 0 ] || exit 1
echo "large inputs and refusals: ok"
