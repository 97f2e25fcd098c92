#!/usr/bin/env bash
# mem-report's side inputs (issue 36, docs/RELIABILITY.md): the files it opens beside a pass dump
# to find the backend (ptoas/*.pto, compiled_meta.json) are inputs like the dump itself:
#  - `-o` naming one of them (mem-report or advise) is refused with exit 2 and the file is left
#    byte for byte unchanged;
#  - a FIFO or a link to /dev/zero in their place gives exit 2 at once (no hang);
#  - a v3 report cut at a line boundary inside its last function is named truncated (file:line).
# Usage: memreport_side_inputs.sh PTUNE BUILD_DIR
set -uo pipefail
ptune=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-memreport-side-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
tree=data/memreport/passdump/tree_dump_ptoas/build_output
run_name=Demo_20260902_090000

fresh_run() {  # a writable copy of the run with ptoas/*.pto and compiled_meta.json
  rm -rf "$work/build_output"
  cp -R "$tree" "$work/build_output"
  chmod -R u+w "$work/build_output"
  run="$work/build_output/$run_name"
}

# --- -o over a side input it read ------------------------------------------------------------
fresh_run
for side in "$run/ptoas/attn_aiv.pto" "$run/compiled_meta.json"; do
  [ "$side" = "$run/compiled_meta.json" ] && rm -f "$run"/ptoas/*.pto  # so the meta is read
  before=$(cksum <"$side")
  timeout 20 "$ptune" mem-report "$work/build_output" -o "$side" >/dev/null 2>"$work/err"
  code=$?
  [ "$code" -eq 2 ] || fail "mem-report -o $(basename "$side"): exit $code, expected 2"
  [ "$(cksum <"$side")" = "$before" ] || fail "mem-report -o $(basename "$side"): the input changed"
  grep -q "$(basename "$side")" "$work/err" || fail "-o $(basename "$side"): not named: $(cat "$work/err")"
done

# advise reads the memory report through the same pipeline
fresh_run
rm -f "$run"/ptoas/*.pto
before=$(cksum <"$run/compiled_meta.json")
timeout 60 "$ptune" advise "$work/build_output" -o "$run/compiled_meta.json" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "advise -o compiled_meta.json: exit $code, expected 2"
[ "$(cksum <"$run/compiled_meta.json")" = "$before" ] || fail "advise -o compiled_meta.json: the input changed"

# --- special files in place of a side input --------------------------------------------------
fresh_run
rm "$run/ptoas/attn_aiv.pto"
mkfifo "$run/ptoas/attn_aiv.pto"
timeout 20 "$ptune" mem-report "$work/build_output" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "a FIFO at ptoas/*.pto: exit $code, expected 2 (124 = hang)"
grep -q "attn_aiv.pto" "$work/err" || fail "a FIFO at ptoas/*.pto: not named: $(cat "$work/err")"

fresh_run
rm "$run/ptoas/attn_aiv.pto"
ln -s /dev/zero "$run/ptoas/attn_aiv.pto"
timeout 20 "$ptune" mem-report "$work/build_output" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "/dev/zero at ptoas/*.pto: exit $code, expected 2 (124 = hang)"

fresh_run
rm -f "$run"/ptoas/*.pto "$run/compiled_meta.json"
mkfifo "$run/compiled_meta.json"
timeout 20 "$ptune" mem-report "$work/build_output" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "a FIFO at compiled_meta.json: exit $code, expected 2 (124 = hang)"

# --- a v3 report cut at a line boundary inside its last function -----------------------------
v3=data/memreport/composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt
last=$(grep -n '^--- ' "$v3" | tail -n 1 | cut -d: -f1)
head -n $((last + 4)) "$v3" >"$work/cut.txt"  # the last function's header and first table row
"$ptune" mem-report "$work/cut.txt" >/dev/null 2>"$work/err"
grep -q "cut.txt:$((last + 4)): warning: the report looks truncated" "$work/err" ||
  fail "a v3 report cut inside its last function: no truncation warning: $(cat "$work/err")"
"$ptune" mem-report "$v3" >/dev/null 2>"$work/err"
grep -q "truncated" "$work/err" && fail "the whole v3 report is called truncated: $(cat "$work/err")"

[ "$failures" -eq 0 ] || exit 1
echo "memreport side inputs: ok"
