#!/usr/bin/env bash
# Runs ptune on every malformed input of tests/malformed/ and checks its outcome
# (docs/RELIABILITY.md, tests/malformed/README.md):
#   - the cases of cases.tsv, each with its expected outcome;
#   - generated families (huge, deeply nested, truncated at every line, byte-flipped inputs),
#     built in a scratch directory from the fixtures and the corpus.
# Every run must end by itself (no signal, no hang past the timeout, no sanitizer report),
# leave its input byte for byte unchanged and print valid UTF-8 on stdout.
# Usage: run.sh PTUNE [BUILD_DIR]    (exit 0 = all cases behaved)
set -uo pipefail
ptune=$1
build_dir=${2:-}
here="$(cd "$(dirname "$0")" && pwd)"
inputs="$here/inputs"
timeout_seconds=${PTUNE_MALFORMED_TIMEOUT:-120}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptune-malformed-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
gen="$scratch/gen"
mkdir -p "$gen"

# A memory ceiling catches unbounded growth; sanitizer builds reserve terabytes of address
# space up front, so they run without it.
memory_limit_kb=4194304
if [ -n "$build_dir" ] && grep -q '^PTUNE_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  memory_limit_kb=unlimited
fi

failures=0
cases=0
fail() {
  echo "FAIL $1: $2" >&2
  failures=$((failures + 1))
}

# run_case ID OUTCOME NEEDLES ARGS...
#   OUTCOME ok       exit 0, no warning on stderr
#           partial  exit 0 or 1 (findings), stderr has a warning; NEEDLES must appear
#           result   exit 0 with output (gaps listed in README.md: should warn, does not yet)
#           error    exit 2; NEEDLES (file and line) must appear on stderr
#           survive  generated input: exit 0, 1 or 2 (2 must name the input on stderr)
#   NEEDLES  '|'-separated substrings of stderr, or '-'
run_case() {
  local id=$1 outcome=$2 needles=$3
  shift 3
  cases=$((cases + 1))
  local out="$scratch/out" err="$scratch/err" sums_before sums_after code
  local files=()
  for arg in "$@"; do [ -f "$arg" ] && files+=("$arg"); done
  sums_before=$( [ ${#files[@]} -gt 0 ] && cksum "${files[@]}")
  (ulimit -v "$memory_limit_kb"; exec timeout -s KILL "$timeout_seconds" "$ptune" "$@") \
    >"$out" 2>"$err"
  code=$?
  sums_after=$( [ ${#files[@]} -gt 0 ] && cksum "${files[@]}")
  if [ "$code" -ge 124 ]; then
    fail "$id" "killed or timed out (exit $code): $(tail -c 600 "$err")"
    return
  fi
  if grep -qE 'Sanitizer|runtime error:|terminate called' "$err"; then
    fail "$id" "sanitizer or terminate report: $(grep -m3 -E 'Sanitizer|runtime error:|terminate' "$err")"
    return
  fi
  [ "$sums_before" = "$sums_after" ] || fail "$id" "an input file changed"
  iconv -f UTF-8 -t UTF-8 "$out" >/dev/null 2>&1 || fail "$id" "stdout is not valid UTF-8"
  case "$outcome" in
    ok)
      [ "$code" -eq 0 ] || { fail "$id" "expected exit 0, got $code: $(head -c 400 "$err")"; return; }
      grep -q 'warning' "$err" && fail "$id" "unexpected warning: $(head -c 400 "$err")" ;;
    partial)
      [ "$code" -le 1 ] || { fail "$id" "expected a partial result, got exit $code: $(head -c 400 "$err")"; return; }
      grep -q 'warning' "$err" || fail "$id" "partial result without a warning" ;;
    result)
      [ "$code" -eq 0 ] && [ -s "$out" ] ||
        { fail "$id" "expected a result, got exit $code: $(head -c 400 "$err")"; return; } ;;
    error)
      [ "$code" -eq 2 ] || { fail "$id" "expected exit 2, got $code: $(head -c 400 "$err")"; return; } ;;
    survive)
      [ "$code" -le 2 ] || { fail "$id" "exit $code"; return; }
      if [ "$code" -eq 2 ]; then
        local named=0
        for file in "${files[@]}"; do grep -qF "$file" "$err" && named=1; done
        [ "$named" -eq 1 ] || [ ${#files[@]} -eq 0 ] ||
          fail "$id" "exit 2 without naming the input: $(head -c 400 "$err")"
      fi
      return ;;
    *) fail "$id" "unknown outcome '$outcome' in cases.tsv"; return ;;
  esac
  if [ "$needles" != "-" ]; then
    local needle
    IFS='|' read -r -a needle_list <<<"$needles"
    for needle in "${needle_list[@]}"; do
      grep -qF -- "$needle" "$err" || fail "$id" "stderr lacks '$needle': $(head -c 400 "$err")"
    done
  fi
}

# --- the listed cases ------------------------------------------------------------------------
while IFS=$'\t' read -r id outcome needles args; do
  [ -z "$id" ] || [ "${id:0:1}" = "#" ] && continue
  args=${args//\{in\}/$inputs}
  needles=${needles//\{in\}/$inputs}
  # shellcheck disable=SC2086  # arguments are whitespace-separated by design
  run_case "$id" "$outcome" "$needles" $args
done <"$here/cases.tsv"

# --- generated families ----------------------------------------------------------------------
"$here/generate.sh" "$gen" || { echo "FAIL: generate.sh" >&2; exit 1; }
while IFS=$'\t' read -r id outcome needles args; do
  [ -z "$id" ] && continue
  args=${args//\{gen\}/$gen}
  needles=${needles//\{gen\}/$gen}
  # shellcheck disable=SC2086
  run_case "$id" "$outcome" "$needles" $args
done <"$gen/cases.tsv"

echo "malformed inputs: $cases cases, $failures failed"
[ "$failures" -eq 0 ]
