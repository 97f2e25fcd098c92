#!/usr/bin/env bash
# scope-stats and the host logs it finds beside scope_stats.jsonl (issue 36 items 1 and 2):
# a FIFO or a /dev/zero link named host.<pid>.log is skipped at once with a warning naming it
# (it used to hang), and `-o` over a host log it read is refused (exit 2, the log intact).
# Usage: scope_special_files.sh PTUNE BUILD_DIR
set -u
ptune=$1
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/run/scope_stats"
cp "$here/data/scope/wedged_run/scope_stats/scope_stats.jsonl" "$tmp/run/scope_stats/"

# A FIFO and a /dev/zero link beside the file: no hang, each named in a warning.
mkfifo "$tmp/run/host.111.log"
ln -s /dev/zero "$tmp/run/host.222.log"
timeout 20 "$ptune" scope-stats "$tmp/run" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 124 ] && bad "scope-stats hung on a FIFO / /dev/zero named host.<pid>.log"
[ "$code" = 3 ] && bad "scope-stats crashed: $(cat "$tmp/err")"
# Each named by its kind, as every found side file is (found_files.hpp).
grep -q "host.111.log: warning: is a FIFO (named pipe).*not searched for an orch_error_code" "$tmp/err" ||
    bad "FIFO not named: $(cat "$tmp/err")"
grep -q "host.222.log: warning: is a character device.*not searched" "$tmp/err" || bad "/dev/zero link not named"
# A dangling link is not a special file: named as one.
ln -s "$tmp/nowhere" "$tmp/run/host.333.log"
timeout 20 "$ptune" scope-stats "$tmp/run" >"$tmp/out" 2>"$tmp/err"
grep -q "host.333.log: warning: not a regular file (a dangling link" "$tmp/err" ||
    bad "dangling host log not named: $(cat "$tmp/err")"
rm -f "$tmp/run/host.333.log"
rm -f "$tmp/run/host.111.log" "$tmp/run/host.222.log"

# -o over the host log it found and read beside the file: refused, the log kept.
mkdir "$tmp/beside"
cp "$here/data/scope/wedged_run/scope_stats/scope_stats.jsonl" "$here/data/scope/wedged_run/host.4242.log" \
    "$tmp/beside/"
before=$(cksum <"$tmp/beside/host.4242.log")
timeout 20 "$ptune" scope-stats "$tmp/beside/scope_stats.jsonl" -o "$tmp/beside/host.4242.log" \
    >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 2 ] || bad "-o over the host log it read: exit $code, expected 2: $(cat "$tmp/err")"
[ "$(cksum <"$tmp/beside/host.4242.log")" = "$before" ] || bad "-o replaced the host log it read"

exit $fail
