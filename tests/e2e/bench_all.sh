#!/usr/bin/env bash
# tools/bench-all (issue #35, docs/PERFORMANCE.md "Our own performance history"): its result file
# is read by `ptune history add` and `bench-summary` with one case per figure and the rounds as
# raw samples, it is recorded under tools/bench-history/-style names, and the gate fails (exit 1)
# when a recorded run of this machine used 50 % less peak memory than this one, and leaves a run
# of another machine out. Runs one small benchmark
# (bench-mem-report-dump at its quick size, 500 functions x 64 tiles); it times nothing: no
# assertion reads a time.
# Usage: bench_all.sh PTUNE BUILD_DIR
set -uo pipefail
ptune=$1
build=$(cd "$2" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$build/tools/gen_pass_dump" ] || {
  echo "$build/tools/gen_pass_dump not built: skipped"
  exit 77
}
[ -x /usr/bin/time ] || { echo "/usr/bin/time not available: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not available: skipped"; exit 77; }
[ "$(cd "$(dirname "$ptune")" && pwd)" = "$build" ] || {
  echo "ptune is not in BUILD_DIR: skipped"
  exit 77
}
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-bench-all-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
bench_all() { "$repo/tools/bench-all" --build "$build" --quick --only '^mem-report-dump/' "$@"; }

# A run recorded into an empty history: nothing to gate against, exit 0, one file.
mkdir -p "$work/history"
bench_all --rounds 2 --record --history-dir "$work/history" --out "$work/run1.log" \
  >"$work/out1" 2>"$work/err1" || fail "first run: exit $? ($(tail -n 3 "$work/err1"))"
grep -q 'nothing to compare with' "$work/err1" || fail "first run: no 'nothing to compare with' note"
recorded=("$work"/history/*-quick.log)
if [ ${#recorded[@]} -ne 1 ] || [ ! -f "${recorded[0]}" ]; then
  fail "not one recorded *-quick.log: ${recorded[*]}"
fi
head -n 1 "$work/run1.log" | grep -q '^# ptune bench-all: commit=.* mode=quick rounds=2 .* machine=[^ ]*-[0-9]*cores ' ||
  fail "header: $(head -n 1 "$work/run1.log")"
for case in mem-report-dump/500x64/wall_us mem-report-dump/500x64/user_us \
  mem-report-dump/500x64/sys_us mem-report-dump/500x64/peak_rss_kb \
  mem-report-dump/500x64/json/user_us mem-report-dump/500x64/html/peak_rss_kb; do
  grep -qx "::group::$case" "$work/run1.log" || fail "case $case missing"
done
grep -q '^\[RUN\]     rank 1 raw n=2 eff_us=\[' "$work/run1.log" || fail "no raw samples"
"$ptune" history add --db "$work/h.db" "$work/run1.log" --commit c1 >"$work/add" 2>&1 ||
  fail "history add: $(cat "$work/add")"
grep -q 'recorded run 1: 16 case(s)' "$work/add" || fail "history add: $(cat "$work/add")"

# A recorded run whose peak RSS was half of today's: the gate fails, after a re-run.
awk '/^::group::/ { rss = ($0 ~ /\/peak_rss_kb$/) }
     rss && /^\[RUN\]  / { out = ""
       while (match($0, /[0-9]+\.[0-9]/)) {
         out = out substr($0, 1, RSTART - 1) sprintf("%.1f", substr($0, RSTART, RLENGTH) / 2)
         $0 = substr($0, RSTART + RLENGTH) }
       $0 = out $0 }
     { print }' "${recorded[0]}" >"$work/lean.log"
rm -f "$work"/history/*.log
mv "$work/lean.log" "$work/history/2026-01-01-lean-quick.log"
bench_all --rounds 2 --history-dir "$work/history" --out "$work/run2.log" >"$work/out2" 2>"$work/err2"
status=$?
[ "$status" -eq 1 ] ||
  fail "gate against a leaner run: exit $status, expected 1 ($(tail -n 3 "$work/err2"))"
grep -q 'measuring them again' "$work/err2" || fail "no confirmation re-run"
grep -q 'peak_rss_kb .*regressed\|peak_rss_kb .*underpowered' "$work/out2" ||
  fail "no failing peak_rss_kb row"
grep -q '^bench-gate: FAIL' "$work/out2" || fail "no FAIL summary"

# The same leaner run, recorded on another machine: left out of the gate (its CPU times are not
# comparable), so nothing to compare with, exit 0; and --commit labels a build of another commit.
sed -i '1s/ machine=[^ ]* / machine=OtherVendor-1-2-3-L3_1K-2cores /' "$work/history/2026-01-01-lean-quick.log"
bench_all --rounds 2 --history-dir "$work/history" --commit 0123abc --out "$work/run3.log" \
  >"$work/out3" 2>"$work/err3" || fail "gate against another machine's run: exit $?, expected 0"
grep -q 'no recorded quick run of this machine .*1 run(s) of other machines are not comparable' "$work/err3" ||
  fail "no 'not comparable' note: $(tail -n 3 "$work/err3")"
grep -q '^bench-gate:' "$work/out3" && fail "gated against another machine's run: $(cat "$work/out3")"
head -n 1 "$work/run3.log" | grep -q '^# ptune bench-all: commit=0123abc time=' ||
  fail "--commit: $(head -n 1 "$work/run3.log")"

# tools/bench-goals: a row is met or not by its figure against the goal, and the exit code says
# whether every measured row was met. PTUNE= stands in for ptune so that the peak memory is
# known (no timing is asserted): `true` is far under 3x the 25 MB side of the bench-gate row,
# a process holding 200 MB is above it.
goals() { PTUNE=$1 "$repo/tools/bench-goals" --build "$build" --runs 1 --only '^bench-gate-200k$'; }
if [ -x "$build/tools/swimlane_gen" ] && [ -x "$build/tools/hints_gen_log" ] &&
  [ -x "$build/tools/gen_mem_report" ] && [ -x "$build/tools/bench_gen_sweep_log" ]; then
  goals "$(type -P true)" >"$work/goals1" 2>"$work/goals1.err"
  status=$?
  [ "$status" -eq 0 ] || fail "bench-goals, a lean gate: exit $status ($(cat "$work/goals1.err"))"
  grep -q '^| bench-gate-200k | [0-9]\.[0-9] MB = 0\.[0-9]*x one side.s 25 MB | <= 3x | yes |$' "$work/goals1" ||
    fail "bench-goals, a lean gate: $(cat "$work/goals1")"
  printf '#!/bin/sh\nexec python3 -c "b = bytearray(200 << 20)"\n' >"$work/fat"
  chmod +x "$work/fat"
  goals "$work/fat" >"$work/goals2" 2>"$work/goals2.err"
  status=$?
  [ "$status" -eq 1 ] || fail "bench-goals, a 200 MB gate: exit $status, expected 1"
  grep -q '^| bench-gate-200k | 2[0-9][0-9]\.[0-9] MB = [0-9.]*x .* | <= 3x | NO |$' "$work/goals2" ||
    fail "bench-goals, a 200 MB gate: $(cat "$work/goals2")"
  # A ratio row alternates its two sides run for run (both see the same minutes of a shared
  # host): a grep and a ptune stand-in that log their calls must come out interleaved.
  mkdir -p "$work/pair-bin"
  printf '#!/bin/sh\necho grep >>"%s"\nexec %s "$@"\n' "$work/pair-calls" "$(type -P grep)" >"$work/pair-bin/grep"
  printf '#!/bin/sh\necho ptune >>"%s"\n' "$work/pair-calls" >"$work/pair-bin/ptune"
  chmod +x "$work/pair-bin/grep" "$work/pair-bin/ptune"
  PATH="$work/pair-bin:$PATH" PTUNE="$work/pair-bin/ptune" "$repo/tools/bench-goals" --build "$build" \
    --runs 3 --only '^bench-summary-plain$' >"$work/goals3" 2>"$work/goals3.err" ||
    fail "bench-goals, a ratio row: exit $? ($(cat "$work/goals3.err"))"
  [ "$(tr '\n' ' ' <"$work/pair-calls")" = "grep ptune grep ptune grep ptune " ] ||
    fail "bench-goals, a ratio row: calls not interleaved: $(tr '\n' ' ' <"$work/pair-calls")"
  grep -q '^| bench-summary-plain | [0-9]* ms = [0-9.]*x grep.s [0-9]* ms (10[0-9] MB) | <= 2x | yes |$' "$work/goals3" ||
    fail "bench-goals, a ratio row: $(cat "$work/goals3")"
  "$repo/tools/bench-goals" --bogus >/dev/null 2>&1
  [ $? -eq 2 ] || fail "bench-goals --bogus: not exit 2"
fi

# tools/ci_suite_bench.sh: its generated suites are read (the gate compares every case) and it
# prints the two rows bench-all records.
if [ -x "$build/tools/ci_suite_gen" ]; then
  "$repo/tools/ci_suite_bench.sh" "$build" 20 2 10 >"$work/suite.out" 2>&1 ||
    fail "ci_suite_bench.sh: exit $? ($(tail -n 3 "$work/suite.out"))"
  grep -q '^gate: [0-9.]* s wall, [0-9.]* s user, max RSS [0-9]* KiB$' "$work/suite.out" &&
    grep -q '^summary-json: [0-9.]* s wall, [0-9.]* s user, max RSS [0-9]* KiB$' "$work/suite.out" ||
    fail "ci_suite_bench.sh rows: $(cat "$work/suite.out")"
  "$build/tools/ci_suite_gen" "$repo/tests/data/ciresult/suite-a/suite-result.json" "$work/suite" 30 2 5
  cases=$("$ptune" bench-summary "$work/suite" --format json -q | python3 -c \
    'import json, sys; print(len(json.load(sys.stdin)["cases"]))')
  [ "$cases" = 30 ] || fail "ci_suite_gen: bench-summary read $cases cases, expected 30"
fi

[ "$failures" -eq 0 ] && echo "bench-all: ok"
exit $((failures > 0))
