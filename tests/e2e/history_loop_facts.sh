#!/usr/bin/env bash
# history add takes the loop facts a [STRACE] log does not print, as bench-summary does (issue 34
# item 6): the composed capture is warmup 2 + 6 rounds and prints no report; without the flags the default warmup 5
# leaves 3 rounds and stores the wrong mean.
# Usage: history_loop_facts.sh PTUNE BUILD_DIR
set -u
ptune=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
log=$here/data/bench/composed/l2_strace_w2_r6.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$ptune" history --db "$tmp/h.db" add "$log" --commit flags --warmup 2 --rounds 6 \
    >/dev/null 2>"$tmp/err" || bad "history add --warmup 2 --rounds 6 failed: $(cat "$tmp/err")"
grep -q "warmup 2 (flag), rounds 6 (flag)" "$tmp/err" || bad "the loop facts are not the flags: $(cat "$tmp/err")"
"$ptune" history --db "$tmp/h.db" add "$log" --commit assumed --run-id assumed >/dev/null 2>&1 ||
    bad "history add without loop flags failed"
"$ptune" history --db "$tmp/h.db" export --format csv >"$tmp/csv" || bad "export failed"
# run,time,commit,...,case,value_us,rounds,...
row() { awk -F, -v c="$1" '$3 == c {print $8 "," $9}' "$tmp/csv"; }
[ "$(row flags)" = "661.9,6" ] || bad "with the flags: $(row flags), expected mean 661.9 over 6 rounds (the expected report)"
[ "$(row assumed | cut -d, -f2)" = 3 ] || bad "without the flags: $(row assumed), expected the assumed 3 rounds"
"$ptune" history add --help | grep -q -- "--warmup" || bad "history add --help lacks --warmup"
exit $fail
