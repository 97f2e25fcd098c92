#!/usr/bin/env bash
# Issue #22's promise: on a generated 16-rank tree with one slow rank (rank 5, expert_gemm 4×
# longer in d0), swimlane-analyze, pmu-analyze and advise each name that rank, the dispatch and
# the kernel, in text and JSON, with one thread and with several; swimlane-merge --dispatch keeps
# that dispatch of every rank. Usage: l3_sixteen_ranks.sh PTUNE BUILD_DIR
set -u
ptune=$1
build=$2
gen="$build/tools/l3_tree_gen"
[ -x "$gen" ] || { echo "skip: $gen not built"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" "$work/dfx_outputs" --ranks 16 --tasks 90 --slow-rank 5 2>/dev/null || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# expect_names NAME FILE: the slow rank, the dispatch and the kernel are all in FILE.
expect_names() {
  for needle in "rank5/d0" "d0 (run1:0)" "expert_gemm"; do
    grep -qF -- "$needle" "$2" || fail "$1 does not name '$needle'"
  done
}

for threads in 1 2; do
  PTUNE_THREADS=$threads "$ptune" swimlane-analyze "$work" >"$work/sa.txt" 2>"$work/sa.err"
  [ $? -eq 1 ] || fail "swimlane-analyze ($threads threads): exit $? (want 1, findings)"
  expect_names "swimlane-analyze" "$work/sa.txt"
  grep -q 'L3.rank-imbalance' "$work/sa.txt" || fail "swimlane-analyze: no L3.rank-imbalance"
  grep -q 'L3.kernel-slower-on-rank' "$work/sa.txt" || fail "swimlane-analyze: no L3.kernel-slower-on-rank"
  cp "$work/sa.txt" "$work/sa.$threads.txt"
done
cmp -s "$work/sa.1.txt" "$work/sa.2.txt" || fail "swimlane-analyze: 1 and 2 threads differ"

"$ptune" swimlane-analyze "$work" --format json >"$work/sa.json" 2>/dev/null
grep -q '"straggler": "rank5/d0"' "$work/sa.json" || fail "swimlane-analyze json: no straggler rank5/d0"
expect_names "swimlane-analyze json" "$work/sa.json"

"$ptune" pmu-analyze "$work/dfx_outputs" >"$work/pmu.txt" 2>"$work/pmu.err"
[ $? -eq 1 ] || fail "pmu-analyze: exit code (want 1)"
expect_names "pmu-analyze" "$work/pmu.txt"

"$ptune" advise "$work" >"$work/advise.txt" 2>"$work/advise.err"
[ $? -eq 0 ] || fail "advise: exit code (want 0)"
expect_names "advise" "$work/advise.txt"
# The same P10 advice for the kernel of every rank is one order naming them (issue 34).
[ "$(grep -c ' P10 ' "$work/advise.txt")" -eq 1 ] || fail "advise: P10 not one order across the ranks"
grep -q '^kernels rank5/d0 expert_gemm, .* and 13 more' "$work/advise.txt" ||
  fail "advise: the merged P10 order does not name its 16 kernels"

"$ptune" swimlane-merge "$work/dfx_outputs" --dispatch d0 -o "$work/trace.json" >"$work/merge.txt" \
  2>"$work/merge.err" || fail "swimlane-merge --dispatch d0: exit $?"
[ "$(grep -c '^Capture rank[0-9]*/d0' "$work/merge.txt")" = 16 ] || fail "swimlane-merge: not 16 captures of d0"

if [ $status -ne 0 ]; then
  for f in sa.txt sa.err pmu.txt advise.txt merge.txt merge.err; do echo "--- $f"; head -c 3000 "$work/$f"; done
fi
exit $status
