#!/usr/bin/env bash
# Hostile situations that need more than an input file (docs/RELIABILITY.md, issue "hardening,
# second pass"): outputs that are inputs (named or found in a directory), symlinks and hard
# links, FIFOs and devices as inputs, closed or directory stdin, NaN options, absurd counts,
# byte order marks, signals while writing, a full disk and a file-size limit, 250-byte output
# names, and large generated inputs under an address-space limit. Every run must end by itself
# (a timeout kills a hang and fails the case), leave its inputs byte for byte unchanged and
# leave no temporary file behind.
# Usage: scenarios.sh PTUNE [BUILD_DIR]    (run from tests/; exit 0 = all behaved)
set -uo pipefail
ptune=$1
build_dir=${2:-}
here="$(cd "$(dirname "$0")" && pwd)"
data="$(cd "$here/../data" && pwd)"
inputs="$here/inputs"
work=$(mktemp -d "${TMPDIR:-/tmp}/ptune-scenarios-XXXXXX")
trap 'rm -rf "$work"' EXIT
limit=${PTUNE_SCENARIO_TIMEOUT:-60}  # generous: the machine may be loaded; a hang is forever

sanitized=0
if [ -n "$build_dir" ] && grep -q '^PTUNE_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  sanitized=1
fi

failures=0
checks=0
fail() {
  echo "FAIL $1: $2" >&2
  failures=$((failures + 1))
}
leftovers() { find "$work" -name '*.ptune-tmp-*' 2>/dev/null | head -n 5; }

# run ID EXPECTED_EXIT NEEDLE ARGS...: runs ptune (stdin from /dev/null unless STDIN_FROM is
# set), checks the exit code, that stderr holds NEEDLE ('-' for none), that it ended before the
# timeout and that no temporary file is left. stdout is in $work/out, stderr in $work/err.
run() {
  local id=$1 expected=$2 needle=$3
  shift 3
  checks=$((checks + 1))
  local code
  timeout -s KILL "$limit" "$ptune" "$@" <"${STDIN_FROM:-/dev/null}" >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -ge 124 ]; then
    fail "$id" "killed or timed out (exit $code)"
    return 1
  fi
  if [ "$code" -ne "$expected" ]; then
    fail "$id" "exit $code, expected $expected: $(head -c 500 "$work/err")"
    return 1
  fi
  if [ "$needle" != "-" ] && ! grep -qF -- "$needle" "$work/err"; then
    fail "$id" "stderr lacks '$needle': $(head -c 500 "$work/err")"
    return 1
  fi
  [ -z "$(leftovers)" ] || { fail "$id" "temporary file left: $(leftovers)"; return 1; }
  return 0
}

# same ID FILE SUM: FILE still has checksum SUM.
same() {
  [ "$(cksum <"$2")" = "$3" ] || fail "$1" "$2 changed"
}

refusal="refusing to write the output over the input"

# --- outputs that are inputs: named, found in a directory, linked ---------------------------
cp -r "$data/hints/build_output" "$work/build"
hints_run="$work/build/Attn_20260820_101500"
hints_log="$hints_run/report/perf_hints.log"
sum=$(cksum <"$hints_log")
run advise-over-found-hints 2 "$refusal" advise "$work/build" -o "$hints_log" && same advise-over-found-hints "$hints_log" "$sum"
run hints-lint-dir-over-found 2 "$refusal" hints-lint "$work/build" -o "$hints_log" && same hints-lint-dir-over-found "$hints_log" "$sum"
ln -s "$hints_log" "$work/link-to-hints.log"
run advise-over-found-via-link 2 "$refusal" advise "$work/build" -o "$work/link-to-hints.log" && same advise-over-found-via-link "$hints_log" "$sum"
[ -L "$work/link-to-hints.log" ] || fail advise-over-found-via-link "the symlink was replaced"
ln "$hints_log" "$work/hard-hints.log"
run advise-over-found-via-hardlink 2 "$refusal" advise "$work/build" -o "$work/hard-hints.log" && same advise-over-found-via-hardlink "$hints_log" "$sum"

cp -r "$data/memreport/tree_old" "$work/mem"
mem_file=$(find "$work/mem" -name 'memory_after_*' | sort | tail -n 1)
sum=$(cksum <"$mem_file")
run mem-report-dir-over-found 2 "$refusal" mem-report "$work/mem" -o "$mem_file" && same mem-report-dir-over-found "$mem_file" "$sum"

mkdir -p "$work/logs"
cp "$data/bench/pypto-lib__commit65f3477b__l3_rank_slot_report.txt" "$work/logs/a.log"
sum=$(cksum <"$work/logs/a.log")
run bench-summary-dir-over-found 2 "$refusal" bench-summary "$work/logs" -o "$work/logs/a.log" && same bench-summary-dir-over-found "$work/logs/a.log" "$sum"

cp -r "$data/pmu/work_20260101_000000" "$work/pmu"
pmu_csv="$work/pmu/dfx_outputs/pmu.csv"
sum=$(cksum <"$pmu_csv")
run pmu-dir-over-found 2 "$refusal" pmu-analyze "$work/pmu" -o "$pmu_csv" && same pmu-dir-over-found "$pmu_csv" "$sum"
sum=$(cksum <"$work/pmu/kernel_config.py")
run pmu-over-found-names 2 "$refusal" pmu-analyze "$work/pmu" -o "$work/pmu/kernel_config.py" && same pmu-over-found-names "$work/pmu/kernel_config.py" "$sum"
sum=$(cksum <"$pmu_csv")
run advise-over-found-pmu 2 "$refusal" advise "$work/pmu" -o "$pmu_csv" && same advise-over-found-pmu "$pmu_csv" "$sum"

cp -r "$data/swimlane" "$work/swl"
deps="$work/swl/deps.json"
sum=$(cksum <"$deps")
run swimlane-over-found-deps 2 "$refusal" swimlane-analyze "$work/swl/chip_swimlane_records.json" -o "$deps" && same swimlane-over-found-deps "$deps" "$sum"
run swimlane-merge-over-found-deps 2 "$refusal" swimlane-merge "$work/swl/chip_swimlane_records.json" -o "$deps" && same swimlane-merge-over-found-deps "$deps" "$sum"

hints_one="$work/one.perf_hints.log"
cp "$data/hints/composed__a2a3_v2_ph001.perf_hints.log" "$hints_one"
"$ptune" hints-lint "$hints_one" --write-baseline "$work/bl.json" >/dev/null 2>&1
sum=$(cksum <"$work/bl.json")
run hints-baseline-as-output 2 "$refusal" hints-lint "$hints_one" --baseline "$work/bl.json" -o "$work/bl.json" && same hints-baseline-as-output "$work/bl.json" "$sum"
run hints-write-baseline-as-output 2 "same file" hints-lint "$hints_one" --write-baseline "$work/bl.json" -o "$work/bl.json" && same hints-write-baseline-as-output "$work/bl.json" "$sum"
grep -q "baseline written" "$work/err" && fail hints-write-baseline-as-output "stderr says the baseline was written"
run hints-write-baseline-over-input 2 "$refusal" hints-lint "$hints_one" --write-baseline "$hints_one"

rules="$work/rules.json"
printf '{"rules": []}\n' >"$rules"
sum=$(cksum <"$rules")
run rules-as-output 2 "$refusal" mem-report "$mem_file" --rules "$rules" -o "$rules" && same rules-as-output "$rules" "$sum"

cp "$inputs/bench/gate_base.log" "$work/base.log"
sum=$(cksum <"$work/base.log")
run gate-save-baseline-over-input 2 "$refusal" bench-gate -b "$work/base.log" -c "$work/base.log" --save-baseline "$work/base.log" && same gate-save-baseline-over-input "$work/base.log" "$sum"
run gate-two-outputs-one-file 2 "same file" bench-gate -b "$work/base.log" -c "$work/base.log" --save-baseline "$work/saved.json" -o "$work/./saved.json"
[ -e "$work/saved.json" ] && fail gate-two-outputs-one-file "an output was written"
run gate-labelled-input-as-output 2 "$refusal" bench-gate -b "a=$work/base.log" -c "a=$work/base.log" -o "$work/base.log" && same gate-labelled-input-as-output "$work/base.log" "$sum"

# A symlink output is written through: the link stays, its target gets the report.
printf 'old\n' >"$work/target.txt"
ln -s target.txt "$work/out-link.txt"
run output-symlink 0 - bench-summary "$work/base.log" -o "$work/out-link.txt"
[ -L "$work/out-link.txt" ] || fail output-symlink "the link was replaced by a file"
grep -q "models/a.py" "$work/target.txt" || fail output-symlink "the target did not get the report"
ln -s "$work/not-yet.txt" "$work/dangling-link.txt"
run output-dangling-symlink 0 - bench-summary "$work/base.log" -o "$work/dangling-link.txt"
[ -L "$work/dangling-link.txt" ] && [ -s "$work/not-yet.txt" ] ||
  fail output-dangling-symlink "the link was not written through"

# Output names near NAME_MAX: the temporary name must fit too.
for length in 240 250 255; do
  name=$(printf 'n%.0s' $(seq 1 "$length"))
  run "output-name-$length-bytes" 0 - bench-summary "$work/base.log" -o "$work/$name"
  [ -s "$work/$name" ] || fail "output-name-$length-bytes" "no output written"
  rm -f "$work/$name"
done

# --- special files as inputs: clear error, never a block -------------------------------------
mkfifo "$work/fifo"
for spec in "pmu-analyze --names FIFO $pmu_csv" "pmu-analyze -k FIFO $pmu_csv" \
  "swimlane-analyze --deps FIFO $work/swl/chip_swimlane_records.json" \
  "hints-lint $hints_one --baseline FIFO" "mem-report $mem_file --rules FIFO" \
  "bench-gate -b FIFO -c $work/base.log" "mem-report FIFO" "hints-lint FIFO" \
  "bench-summary FIFO" "pmu-analyze FIFO" "swimlane-merge FIFO -o $work/t.json"; do
  for special in "$work/fifo" /dev/zero; do
    # shellcheck disable=SC2086  # the spec is split into arguments on purpose
    set -- ${spec//FIFO/$special}
    kind=$([ "$special" = /dev/zero ] && echo "character device" || echo "FIFO")
    run "special-input: ${spec%% *} ${special##*/}" 2 "$kind" "$@"
  done
done
STDIN_FROM=/dev/zero run stdin-dev-zero 2 "character device" hints-lint -
STDIN_FROM=/dev/zero run stdin-dev-zero-mem 2 "character device" mem-report -
STDIN_FROM="$work" run stdin-directory 2 "standard input is a directory" hints-lint -
checks=$((checks + 1))
timeout -s KILL "$limit" "$ptune" hints-lint - <&- >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] && grep -q "standard input is closed" "$work/err" ||
  fail stdin-closed "exit $code: $(head -c 300 "$work/err")"
STDIN_FROM="$hints_one" run stdin-file 1 "2 hint(s): 2 reported" hints-lint -  # 1: hints found

# A FIFO with a name discovery looks for: reported, never opened.
cp -r "$data/pmu/work_20260101_000000" "$work/pmu-fifo"
mkfifo "$work/pmu-fifo/dfx_outputs/name_map_x.json"
run pmu-discovered-fifo-names 1 "name_map_x.json: warning: is a FIFO" pmu-analyze "$work/pmu-fifo"  # 1: findings
run advise-discovered-fifo 2 "FIFO" advise "$work/pmu-fifo"
# advise still writes its report, listing the file as refused (never "missing"), then exits 2.
# refused_in_report ID KIND NAME REASON: the last run's markdown has the row, not a missing one.
refused_in_report() {
  grep -Eq "^\| $2 \| refused \| [^|]*/$3: $4" "$work/out" ||
    fail "$1" "no refused $2 row: $(grep -E "^\| $2 " "$work/out")"
  ! grep -Eq "^\| $2 \| missing " "$work/out" || fail "$1" "$2 also listed as missing"
}
# refused_in_json ID KIND NAME REASON: the last run's JSON has it in artifacts.refused.
refused_in_json() {
  python3 - "$work/out" "$2" "$3" "$4" <<'PY' || fail "$1" "not in JSON artifacts.refused"
import json, sys
artifacts = json.load(open(sys.argv[1]))["artifacts"]
_, kind, name, reason = sys.argv[1:]
assert any(e["kind"] == kind and e["path"].endswith("/" + name) and reason in e["reason"]
           for e in artifacts["refused"]), artifacts["refused"]
assert not any(e["kind"] == kind for e in artifacts["missing"]), "also missing"
PY
}
run advise-discovered-fifo-markdown 2 "FIFO" advise "$work/pmu-fifo" --format markdown &&
  refused_in_report advise-discovered-fifo-markdown name-map name_map_x.json "is a FIFO"
run advise-discovered-fifo-json 2 "FIFO" advise "$work/pmu-fifo" --format json &&
  refused_in_json advise-discovered-fifo-json name-map name_map_x.json "is a FIFO"
cp -r "$data/pmu/work_20260101_000000" "$work/pmu-zero"
ln -sf /dev/zero "$work/pmu-zero/dfx_outputs/pmu.csv"
run advise-discovered-dev-zero 2 "character device" advise "$work/pmu-zero"
run advise-discovered-dev-zero-markdown 2 "character device" advise "$work/pmu-zero" --format markdown &&
  refused_in_report advise-discovered-dev-zero-markdown pmu pmu.csv "is a character device"
run advise-discovered-dev-zero-json 2 "character device" advise "$work/pmu-zero" --format json &&
  refused_in_json advise-discovered-dev-zero-json pmu pmu.csv "is a character device"
run pmu-discovered-dev-zero 2 "character device" pmu-analyze "$work/pmu-zero"

# --- numbers ---------------------------------------------------------------------------------
for option in "--threshold nan" "--min-delta-us nan" "--alpha nan" "--fence-k nan" \
  "--threshold inf" "--geomean-threshold -inf" "--hard-threshold nan"; do
  # shellcheck disable=SC2086
  run "gate-option: $option" 2 "${option%% *}" bench-gate -b "$work/base.log" -c "$work/base.log" $option
done
run gate-threshold-nan-says-finite 2 "must be a finite number" bench-gate -b "$work/base.log" -c "$work/base.log" --threshold nan
run swimlane-freq-nan 2 "--freq" swimlane-merge "$work/swl/chip_swimlane_records.json" --freq nan -o "$work/t.json"
run pmu-mhz-inf 2 "--aicore-mhz" pmu-analyze "$pmu_csv" --aicore-mhz inf
run pmu-mhz-nan 2 "must be a finite number" pmu-analyze "$pmu_csv" --aicore-mhz nan
run summary-warmup-negative 2 "--warmup" bench-summary --warmup -1 "$work/base.log"
# 2^64-1 rounds and +10 %: incomparable, and with nothing compared the gate does not pass.
run gate-rounds-2pow64 2 "no case could be compared" bench-gate -b "$work/base.log" -c "$inputs/bench/gate_rounds_2pow64.log"
grep -q "incomparable" "$work/out" && grep -q "not a plausible count" "$work/out" ||
  fail gate-rounds-2pow64 "not incomparable: $(cat "$work/out")"
# ... and the refusal is said on stderr, not only in the table (issue 36 item 7).
grep -q "refused, incomparable: current .*gate_rounds_2pow64.log:[0-9]*: 18446744073709551615 rounds is not a plausible count" "$work/err" ||
  fail gate-rounds-2pow64-stderr "the refused round count is not said on stderr: $(cat "$work/err")"

# --- byte order marks --------------------------------------------------------------------------
run bench-bom 0 - bench-summary --format json "$inputs/bench/bom_group.log"
grep -q '"models/a.py"' "$work/out" || fail bench-bom "the case was not named from its ::group:: line"
run gate-bom 0 - bench-gate -b "$inputs/bench/bom_group.log" -c "$work/base.log"
grep -q "unchanged\|~" "$work/out" || fail gate-bom "the BOM case was not matched: $(cat "$work/out")"
run hints-bom 1 - hints-lint --format json "$inputs/hints/bom.log"  # 1: hints found
[ "$(grep -c '"code": "PH001"' "$work/out")" -eq 2 ] || fail hints-bom "not both hints read: $(head -c 400 "$work/out")"

# --- odd L3 directory names ------------------------------------------------------------------
cp -r "$data/swimlane/l3" "$work/l3"
mkdir -p "$work/l3/dfx_outputs/rank-1/d0" "$work/l3/dfx_outputs/rank99999999999999999999/d0"
run l3-odd-rank-names 0 "rank-1: not a rank<N> directory" swimlane-merge "$work/l3" -o "$work/l3.json"
grep -q "rank99999999999999999999: not a rank<N> directory" "$work/err" || fail l3-odd-rank-names "the 2^64+ rank not named"
[ "$(grep -c 'rank-1: not a rank' "$work/err")" -eq 1 ] || fail l3-odd-rank-names "not said once"

# --- signals while writing -------------------------------------------------------------------
# A log of many cases makes a large JSON output, written to a temporary file. The run is
# stopped (SIGSTOP) once that file exists, then gets the signal and SIGCONT: the signal lands
# while the temporary file exists, however loaded the machine.
cases=${PTUNE_SCENARIO_SIGNAL_CASES:-15000}
awk -v n="$cases" 'BEGIN { for (i = 0; i < n; i++) {
  printf "::group::models/case_%06d.py\n", i
  printf "[RUN]   effective_us (5 rounds) min=%d.0 median=%d.5 mean=%d.5 max=%d.0\n", i + 1, i + 1, i + 1, i + 2
  printf "::endgroup::\n" } }' >"$work/many.log"
# Job control on: a non-interactive shell starts background jobs with SIGINT and SIGQUIT
# ignored (and ptune keeps an ignored signal ignored).
set -m
for signal in INT TERM HUP QUIT USR1 USR2 PIPE ALRM; do
  checks=$((checks + 1))
  out="$work/sig.json"
  printf 'previous\n' >"$out"
  "$ptune" bench-summary --format json "$work/many.log" -o "$out" 2>/dev/null &
  pid=$!
  seen=0
  for _ in $(seq 1 6000); do
    if [ -n "$(leftovers)" ]; then
      kill -STOP "$pid" 2>/dev/null
      [ -n "$(leftovers)" ] && seen=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  if [ "$seen" -eq 1 ]; then
    kill -s "$signal" "$pid"
    kill -CONT "$pid"
  else
    kill -CONT "$pid" 2>/dev/null
  fi
  wait "$pid"
  code=$?
  # With job control, wait also returns when the job stops or continues: wait for its end.
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.05
    wait "$pid"
    code=$?
  done
  if [ "$seen" -eq 0 ]; then
    echo "note: SIG$signal: the temporary file was not caught (exit $code)" >&2
    continue
  fi
  [ "$code" -ge 128 ] || fail "signal $signal" "expected death by the signal, got exit $code"
  [ -z "$(leftovers)" ] || fail "signal $signal" "temporary file left: $(leftovers)"
  [ "$(cat "$out")" = "previous" ] || fail "signal $signal" "the previous output changed"
  rm -f "$work"/.sig.json.ptune-tmp-*
done
set +m

# --- a full disk, a file-size limit ----------------------------------------------------------
run enospc-dev-full 2 "/dev/full: write failed: no space left on device" bench-summary --format json "$work/many.log" -o /dev/full
ln -s /dev/full "$work/full.json.gz"
run enospc-gzip 2 "$work/full.json.gz" swimlane-merge "$work/swl/chip_swimlane_records.json" -o "$work/full.json.gz"
grep -q "internal" "$work/err" && fail enospc-gzip "reported as an internal error"
printf 'previous\n' >"$work/limited.json"
checks=$((checks + 1))
timeout -s KILL "$limit" prlimit --fsize=65536 "$ptune" bench-summary --format json "$work/many.log" \
  -o "$work/limited.json" >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 2 ] && grep -qF "$work/limited.json: write failed: file size limit exceeded" "$work/err" ||
  fail fsize-limit "exit $code: $(head -c 300 "$work/err")"
[ -z "$(leftovers)" ] || fail fsize-limit "temporary file left: $(leftovers)"
[ "$(cat "$work/limited.json")" = "previous" ] || fail fsize-limit "the previous output changed"
# A small tmpfs, when this machine lets us mount one (root in a mount namespace).
if unshare -m true 2>/dev/null; then
  checks=$((checks + 1))
  mkdir -p "$work/small"
  unshare -m bash -c "mount -t tmpfs -o size=64k tmpfs '$work/small' &&
    timeout -s KILL $limit '$ptune' bench-summary --format json '$work/many.log' -o '$work/small/out.json' 2>'$work/err';
    echo \$? >'$work/code'; ls -a '$work/small' >'$work/listing'" 2>/dev/null
  if [ -s "$work/code" ]; then
    [ "$(cat "$work/code")" -eq 2 ] && grep -q "out.json: write failed" "$work/err" ||
      fail enospc-tmpfs "exit $(cat "$work/code"): $(head -c 300 "$work/err")"
    grep -q "ptune-tmp" "$work/listing" && fail enospc-tmpfs "temporary file left on the full tmpfs"
  fi
fi

# --- large generated inputs under an address-space limit -------------------------------------
# (not in sanitizer builds: they reserve terabytes of address space up front)
if [ "$sanitized" -eq 0 ]; then
  # 100,000 cases each side, JSON report: the per-case JSON is streamed, never a DOM.
  awk -v n=100000 'BEGIN { for (i = 0; i < n; i++) {
    printf "::group::models/case_%06d.py\n", i
    printf "[RUN]   effective_us (5 rounds) min=%d.0 median=%d.5 mean=%d.5 max=%d.0\n", i + 1, i + 1, i + 1, i + 2
    printf "::endgroup::\n" } }' >"$work/big.log"
  checks=$((checks + 1))
  timeout -s KILL 300 prlimit --as=$((768 << 20)) "$ptune" bench-gate --format json -b "$work/big.log" \
    -c "$work/big.log" -o "$work/gate.json" 2>"$work/err"
  code=$?
  [ "$code" -eq 0 ] || fail gate-100k-cases-768mb "exit $code: $(tail -c 300 "$work/err")"
  # Far too little memory for it: a clear error (exit 2), not an abort, and no leftovers.
  # (48 MB: the gate keeps ~90 MB of digests and results for these 2 x 100,000 cases, and a
  # one-case gate runs in it.)
  checks=$((checks + 1))
  timeout -s KILL 300 prlimit --as=$((48 << 20)) "$ptune" bench-gate -b "$work/big.log" \
    -c "$work/big.log" -o "$work/gate.txt" 2>"$work/err"
  code=$?
  [ "$code" -eq 2 ] && grep -q "out of memory" "$work/err" ||
    fail gate-out-of-memory "exit $code: $(tail -c 300 "$work/err")"
  [ -z "$(leftovers)" ] || fail gate-out-of-memory "temporary file left: $(leftovers)"
  rm -f "$work/big.log" "$work/gate.json" "$work/gate.txt"
  # 2,000,000 bad pmu rows: diagnostics are counted, only the first ones kept.
  { head -n 1 "$pmu_csv"; awk 'BEGIN { for (i = 0; i < 2000000; i++) print "x,y" }'; head -n 3 "$pmu_csv" | tail -n 2; } >"$work/bad.pmu.csv"
  checks=$((checks + 1))
  timeout -s KILL 300 prlimit --as=$((512 << 20)) "$ptune" pmu-analyze "$work/bad.pmu.csv" >/dev/null 2>"$work/err"
  code=$?
  [ "$code" -le 1 ] || fail pmu-2m-bad-rows-512mb "exit $code: $(tail -c 300 "$work/err")"
  grep -q "more diagnostic(s) not shown" "$work/err" || fail pmu-2m-bad-rows-512mb "no count of hidden diagnostics"
  rm -f "$work/bad.pmu.csv"
  # A sparse core id (2^31): per-core tables are keyed by the cores present (was bad_alloc).
  mkdir -p "$work/sparse"
  sed '0,/\[0, 4294967297/s//[2147483648, 4294967297/' "$data/swimlane/chip_swimlane_records.json" \
    >"$work/sparse/chip_swimlane_records.json"
  grep -q '\[2147483648, ' "$work/sparse/chip_swimlane_records.json" || fail sparse-core-id "input not made"
  for command in swimlane-merge swimlane-analyze; do
    checks=$((checks + 1))
    timeout -s KILL 300 prlimit --as=$((512 << 20)) "$ptune" "$command" \
      "$work/sparse/chip_swimlane_records.json" --deps "$data/swimlane/deps.json" \
      -o "$work/sparse/out" >/dev/null 2>"$work/err"
    code=$?
    [ "$code" -le 1 ] || fail "sparse-core-id $command" "exit $code: $(tail -c 300 "$work/err")"
  done
fi

echo "scenarios: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
