#!/usr/bin/env bash
# An unreadable dfx_outputs/ or rank directory is said, never skipped as if empty (issue #24):
# swimlane-analyze on a run whose dfx_outputs/ has mode 000 exits 2 naming it ("cannot read the
# directory"), not "no swimlane records here"; in an L3 tree an unreadable rank is a warning
# saying so, also in the JSON gaps; advise warns about a directory of the run it cannot list
# (its artifacts would otherwise read as merely "missing") and lists it in the report (text
# Artifacts table, JSON artifacts.unreadable). We run as root, where permissions do not bite:
# the runs are made as nobody (setpriv, else runuser); skipped when neither works.
# Usage: unreadable_dirs.sh PTUNE BUILD_DIR
set -uo pipefail
ptune=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=$(cd "$(dirname "$0")/../data" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-unreadable-XXXXXX")
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
chmod 755 "$work"
as_nobody() {
  if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  elif runuser -u nobody -- true 2>/dev/null; then
    runuser -u nobody -- "$@"
  else
    return 77
  fi
}
as_nobody true || { echo "neither setpriv nor runuser can run as nobody: skipped"; exit 77; }
[ -x "$ptune" ] && as_nobody test -x "$ptune" || { echo "ptune not executable as nobody: skipped"; exit 77; }
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# --- a run whose dfx_outputs/ cannot be listed ----------------------------------------------
mkdir -p "$work/run/dfx_outputs"
cp "$data/swimlane/chip_swimlane_records.json" "$work/run/dfx_outputs/"
chmod -R a+rX "$work/run"
chmod 000 "$work/run/dfx_outputs"
as_nobody "$ptune" swimlane-analyze "$work/run" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "swimlane-analyze, unreadable dfx_outputs: exit $code, expected 2"
grep -q "cannot read the directory .*dfx_outputs" "$work/err" ||
  fail "swimlane-analyze, unreadable dfx_outputs: not named: $(cat "$work/err")"

# --- an L3 tree with one unreadable rank --------------------------------------------------------
cp -r "$data/swimlane/l3" "$work/l3"
chmod -R a+rX "$work/l3"
chmod 000 "$work/l3/dfx_outputs/rank0"
as_nobody "$ptune" swimlane-analyze "$work/l3" --format json -o - >"$work/out" 2>"$work/err"
code=$?
[ "$code" -le 1 ] || fail "swimlane-analyze, unreadable rank: exit $code: $(cat "$work/err")"
grep -q "rank0: cannot read the directory" "$work/err" ||
  fail "swimlane-analyze, unreadable rank: no warning: $(cat "$work/err")"
grep -q "rank0: cannot read the directory" "$work/out" ||
  fail "swimlane-analyze, unreadable rank: not in the JSON"

# --- advise: a run whose report/ cannot be listed ------------------------------------------------
cp -r "$data/hints/build_output" "$work/build"
chmod -R a+rX "$work/build"
chmod 000 "$work/build/Attn_20260820_101500/report"
# Wide enough that the Artifacts row is one line.
as_nobody env COLUMNS=400 "$ptune" advise "$work/build" -o - >"$work/out" 2>"$work/err"
code=$?
# The report is written, and exit 2 says part of the run was not read.
[ "$code" -eq 2 ] || fail "advise, unreadable report/: exit $code: $(cat "$work/err")"
grep -q "report: warning: cannot read the directory" "$work/err" ||
  fail "advise, unreadable report/: not said: $(cat "$work/err")"
# ... and said in the report itself: the Artifacts table (text) and artifacts.unreadable (JSON).
grep -Eq "^directory +unreadable +/.*/Attn_20260820_101500/report: Permission denied; artifacts in it were not looked for" "$work/out" ||
  fail "advise, unreadable report/: not in the text Artifacts table: $(grep -n directory "$work/out")"
as_nobody "$ptune" advise "$work/build" --format json -o - >"$work/out" 2>"$work/err"
python3 - "$work/out" <<'PY' || fail "advise, unreadable report/: not in JSON artifacts.unreadable"
import json, sys
entries = json.load(open(sys.argv[1]))["artifacts"]["unreadable"]
assert any(e["path"].endswith("Attn_20260820_101500/report") and e["reason"] == "Permission denied"
           for e in entries), entries
PY

[ "$failures" -eq 0 ] || exit 1
echo "unreadable directories: ok"
