#!/usr/bin/env bash
# Output safety through the CLI (docs/RELIABILITY.md):
#  - `-o` naming an input (same path, another spelling, a hard link) is refused with exit 2 and
#    the input is left byte for byte unchanged;
#  - an output that cannot be created fails with exit 2 and leaves nothing behind;
#  - SIGTERM / SIGINT while the output is being written leave the previous file intact and no
#    temporary file behind; an uninterrupted run replaces it whole.
# Usage: harden_output_safety.sh PTUNE BUILD_DIR
set -uo pipefail
ptune=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-output-safety-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
report=data/bench/pypto-lib__commit65f3477b__l3_rank_slot_report.txt
leftovers() { find "$work" -name '*.ptune-tmp-*' | head -n 5; }

# --- never through an input ------------------------------------------------------------------
cp "$report" "$work/run.log"
before=$(cksum <"$work/run.log")
ln "$work/run.log" "$work/hardlink.log"
for target in "$work/run.log" "$work/./run.log" "$work/hardlink.log"; do
  "$ptune" bench-summary "$work/run.log" -o "$target" >/dev/null 2>"$work/err"
  code=$?
  [ "$code" -eq 2 ] || fail "-o $target over the input: exit $code, expected 2"
  grep -q "refusing to write the output over the input" "$work/err" ||
    fail "-o $target: no refusal message: $(cat "$work/err")"
  [ "$(cksum <"$work/run.log")" = "$before" ] || fail "-o $target: the input changed"
done
rm "$work/hardlink.log"

# --- an output that cannot be created --------------------------------------------------------
"$ptune" bench-summary "$work/run.log" -o "$work/missing-dir/out.txt" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] || fail "output in a missing directory: exit $code, expected 2"
grep -q "missing-dir" "$work/err" || fail "output in a missing directory: path not named"
[ -e "$work/missing-dir" ] && fail "output in a missing directory: something was created"

# --- interrupted while writing ---------------------------------------------------------------
# A log of many cases makes a JSON output of tens of megabytes, so that the temporary file
# lives long enough to be caught: the script waits for it to appear, then sends the signal.
cases=${PTUNE_OUTPUT_SAFETY_CASES:-15000}
awk -v n="$cases" 'BEGIN { for (i = 0; i < n; i++) {
  printf "::group::models/case_%06d.py\n", i
  printf "[RUN]   effective_us (5 rounds) min=%d.0 median=%d.5 mean=%d.5 max=%d.0\n", i, i + 1, i + 1, i + 2
  printf "::endgroup::\n" } }' >"$work/many.log"

"$ptune" bench-summary --format json "$work/many.log" -o "$work/reference.json" 2>/dev/null ||
  fail "reference run failed"

interrupt_while_writing() {  # SIGNAL
  local signal=$1 out="$work/summary.json"
  printf 'previous content\n' >"$out"
  "$ptune" bench-summary --format json "$work/many.log" -o "$out" 2>"$work/err" &
  local pid=$! caught=0
  for _ in $(seq 1 20000); do
    if [ -n "$(leftovers)" ]; then
      kill -s "$signal" "$pid" 2>/dev/null && caught=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
  done
  wait "$pid"
  local code=$?
  if [ "$caught" -eq 0 ]; then
    echo "note: SIG$signal: the run ended before its temporary file was seen (exit $code)" >&2
    return
  fi
  if [ "$code" -eq 0 ]; then
    # The file was seen, but the run committed and ended before the signal landed.
    echo "note: SIG$signal: the run finished before the signal arrived" >&2
    return
  fi
  [ "$code" -ge 128 ] || fail "SIG$signal: expected death by signal, got exit $code"
  [ -z "$(leftovers)" ] || fail "SIG$signal: temporary file left: $(leftovers)"
  # Atomic: the output is the previous one, or (signal after the rename) the whole new one.
  if [ "$(cat "$out")" = "previous content" ]; then
    echo "SIG$signal while writing: previous output intact, no temporary file"
  else
    cmp -s "$out" "$work/reference.json" ||
      fail "SIG$signal: the output is neither the previous one nor the whole new one"
    echo "note: SIG$signal: arrived after the output was committed (whole new output)" >&2
  fi
}
# Job control on: without it a script starts background jobs with SIGINT ignored, and ptune
# keeps an ignored signal ignored (nohup), so SIGINT would never land.
set -m
interrupt_while_writing TERM
interrupt_while_writing INT
set +m

# An uninterrupted run replaces the previous output whole and leaves no temporary file.
printf 'previous content\n' >"$work/summary.json"
"$ptune" bench-summary --format json "$work/many.log" -o "$work/summary.json" 2>/dev/null ||
  fail "full run failed"
[ -z "$(leftovers)" ] || fail "full run: temporary file left"
tail -c 3 "$work/summary.json" | grep -q '}' || fail "full run: output not complete"

echo "output safety: $failures failures"
[ "$failures" -eq 0 ]
