#!/usr/bin/env bash
# history add on today's CI result files (docs/ci-results.md): the number recorded per case is
# upstream's headline — a several-card daily-CI case's smallest rank mean (107.33), a one-card
# case's median (505.10, not the mean 506.2), the operator suite's metric_us (107.5) — and a
# daily-CI FAIL is left out with its reason; bench-gate --history then compares the next day.
# Usage: history_ci_results.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/common.sh" "$1"
data=$here/data/ciresult
db=$tmp/h.db

"$ptune" history --db "$db" add "$data/daily/published" --commit aaa --time 2026-12-01T02:00:00Z >"$tmp/out" 2>"$tmp/err" ||
    bad "add daily: $(cat "$tmp/err")"
"$ptune" history --db "$db" add "$data/suite-b" --commit aaa --time 2026-12-01T03:00:00Z >"$tmp/out" 2>"$tmp/err" ||
    bad "add suite: $(cat "$tmp/err")"
value() {  # value CASE: the recorded value of the case's first run
    "$ptune" history --db "$db" show "$1" --format json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.4f" % d["series"][0]["points"][0]["value_us"])' 2>/dev/null
}
[ "$(value tp2-demo)" = "107.3333" ] || bad "tp2-demo recorded $(value tp2-demo), expected the smallest rank mean 107.3333"
[ "$(value l2-demo)" = "505.1000" ] || bad "l2-demo recorded $(value l2-demo), expected the one-card median 505.1"
[ "$(value demo-attention-8k)" = "107.5000" ] || bad "demo-attention-8k recorded $(value demo-attention-8k), expected metric_us 107.5"

# A FAIL case is not recorded, with its reason.
"$ptune" history --db "$db" add "$data/daily-fail/published" --commit bbb --time 2026-12-02T02:00:00Z >"$tmp/out" 2>"$tmp/err" ||
    bad "add daily-fail: $(cat "$tmp/err")"
grep -q "tp2-demo: not recorded: FAIL: unstable_dispatch_slots" "$tmp/err" || bad "FAIL case not said: $(cat "$tmp/err")"
exit $fail
