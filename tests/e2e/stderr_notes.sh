#!/usr/bin/env bash
# Notes on stderr read like stdout: wrapped at $COLUMNS (or the terminal's width), said once,
# and silenced by -q. advise on the shipped example with the README's mismatched log prints the
# "picked ..." note and the inputs-disagree warning on stderr.
set -u
ptune=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(advise "$here/examples/build_output" --log "$here/examples/logs/l3_two_card_report.log")

COLUMNS=60 "$ptune" "${args[@]}" >"$out/stdout" 2>"$out/stderr"
[ -s "$out/stderr" ] || fail "no note on stderr"
# A single token longer than the width (a path) stays whole, as on stdout. Columns are code points.
wide=$(python3 -c '
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if len(line) > 60 and " " in line.strip():
        print(line)
        break' "$out/stderr")
[ -z "$wide" ] || fail "a stderr line is wider than COLUMNS=60: $wide"
[ "$(grep -c 'ptune: picked' "$out/stderr")" -eq 1 ] || fail "the 'picked' note is not said once"
grep -q 'picked' "$out/stdout" && fail "the 'picked' note is on stdout too"
[ "$(grep -c "warning: the log names prefill_fwd, lm_head_test" "$out/stderr")" -eq 1 ] ||
  fail "the inputs-disagree warning is not said once on stderr"

# A pipe without COLUMNS keeps a note on one line (grep-able).
env -u COLUMNS "$ptune" "${args[@]}" 2>"$out/stderr" >/dev/null
grep -q "^ptune: picked .*not by mtime).*not read: .*PagedAttn_20260714_160000$" "$out/stderr" ||
  fail "a piped note was wrapped"

"$ptune" -q "${args[@]}" >/dev/null 2>"$out/stderr"
[ -s "$out/stderr" ] && fail "-q still prints notes: $(head -1 "$out/stderr")"

[ "$failures" -eq 0 ] || exit 1
echo ok
