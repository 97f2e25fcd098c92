#!/usr/bin/env bash
# Daily-use behaviour of issue #23 that golden files cannot state (absence of output, stdin,
# colour): every file-reading command reads '-' as stdin, swimlane-merge -o - writes the trace
# to stdout, hints-lint and bench-gate colour with --color always and never under NO_COLOR,
# an error prints once, `#` lines of a results.tsv draw no warning, and no finding cites a
# document the repository does not have.
set -u
ptune=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root/tests" || exit 2
export COLUMNS=100 CI=true
unset GITHUB_STEP_SUMMARY NO_COLOR CLICOLOR_FORCE FORCE_COLOR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# --- stdin: the same result as the file ---------------------------------------------------
stdin_case() {  # stdin_case FILE ARGS...: `ARGS FILE` and `ARGS - < FILE` agree on exit and data
  local file=$1
  shift
  "$ptune" "$@" "$file" >"$tmp/file.out" 2>"$tmp/file.err"
  local code_file=$?
  "$ptune" "$@" - <"$file" >"$tmp/stdin.out" 2>"$tmp/stdin.err"
  local code_stdin=$?
  [ "$code_file" = "$code_stdin" ] || { bad "$* - : exit $code_stdin, from the file $code_file"; cat "$tmp/stdin.err"; }
  [ "$code_stdin" -le 1 ] || { bad "$* - : exit $code_stdin"; cat "$tmp/stdin.err"; return; }
  [ -s "$tmp/stdin.out" ] || bad "$* - printed nothing"
}
stdin_case data/bench/ci_sweep_excerpts.log bench-summary --format json
stdin_case data/swimlane/chip_swimlane_records.json swimlane-analyze --format json
stdin_case data/swimlane/chip_swimlane_records.json swimlane-merge --format json
stdin_case data/memreport/composed__a2a3_v3__seed_completion.memory_after_AllocateMemoryAddr.txt mem-report --format json
stdin_case data/hints/composed__a2a3_v2_ph001.perf_hints.log hints-lint --format json
stdin_case data/pmu/composed__a2a3_event2_pipe_utilization.pmu.csv pmu-analyze --format json
"$ptune" bench-gate --baseline data/bench-gate/synth/base.log --current - --format json \
  <data/bench-gate/synth/current-fresh.log >"$tmp/gate.json" 2>"$tmp/gate.err"
[ $? -le 1 ] && grep -q '"cases"' "$tmp/gate.json" || { bad "bench-gate --current - "; cat "$tmp/gate.err"; }

# --- swimlane-merge -o -: the trace on stdout, the same bytes as -o FILE ---------------------
records=data/swimlane/chip_swimlane_records.json
"$ptune" swimlane-merge "$records" -o "$tmp/trace.json" >/dev/null 2>&1 || bad "swimlane-merge -o FILE"
"$ptune" swimlane-merge "$records" -o - >"$tmp/stdout.json" 2>"$tmp/merge.err" || bad "swimlane-merge -o -"
cmp -s "$tmp/trace.json" "$tmp/stdout.json" || bad "swimlane-merge -o - differs from -o FILE"
grep -q "Task Statistics by Function" "$tmp/merge.err" || bad "swimlane-merge -o -: summary not on stderr"
"$ptune" swimlane-merge - -o - <"$records" >"$tmp/stdin.json" 2>/dev/null || bad "swimlane-merge - -o -"
grep -q '"traceEvents"' "$tmp/stdin.json" || bad "swimlane-merge - -o - wrote no trace"

# --- colour ---------------------------------------------------------------------------------
esc=$'\x1b['
log=data/hints/composed__a2a3_v2_ph001.perf_hints.log
"$ptune" --color always hints-lint "$log" >"$tmp/c.out" 2>/dev/null
grep -qF "$esc" "$tmp/c.out" || bad "hints-lint --color always has no colour"
"$ptune" --color never hints-lint "$log" >"$tmp/c.out" 2>/dev/null
grep -qF "$esc" "$tmp/c.out" && bad "hints-lint --color never has colour"
NO_COLOR=1 "$ptune" hints-lint "$log" >"$tmp/c.out" 2>/dev/null
grep -qF "$esc" "$tmp/c.out" && bad "hints-lint under NO_COLOR has colour"
gate=(bench-gate --baseline data/bench-gate/synth/base.log --current data/bench-gate/synth/current-shift20.log)
"$ptune" --color always "${gate[@]}" >"$tmp/c.out" 2>/dev/null
grep -qF "${esc}1;31mregressed" "$tmp/c.out" || bad "bench-gate --color always does not paint a regression"
NO_COLOR=1 "$ptune" "${gate[@]}" >"$tmp/c.out" 2>/dev/null
grep -qF "$esc" "$tmp/c.out" && bad "bench-gate under NO_COLOR has colour"
# auto on a terminal: colour (script(1) gives the command a pseudo-terminal)
if command -v script >/dev/null; then
  script -qec "$ptune ${gate[*]}" /dev/null >"$tmp/tty.out" 2>&1 </dev/null
  grep -qF "$esc" "$tmp/tty.out" || bad "bench-gate on a terminal has no colour"
  NO_COLOR=1 script -qec "$ptune ${gate[*]}" /dev/null >"$tmp/tty.out" 2>&1 </dev/null
  grep -qF "${esc}1;31m" "$tmp/tty.out" && bad "bench-gate on a terminal under NO_COLOR has colour"
fi

# --- an error prints once -------------------------------------------------------------------
"$ptune" bench-gate --baseline data/hints/not_a_log.txt --current data/bench-gate/synth/current-fresh.log \
  >/dev/null 2>"$tmp/err"
[ "$(grep -c "no benchmark" "$tmp/err")" = 1 ] || { bad "bench-gate error not printed exactly once:"; cat "$tmp/err"; }

# --- `#` comment lines of a results.tsv -----------------------------------------------------
"$ptune" bench-summary data/bench/results_commented.tsv >/dev/null 2>"$tmp/err"
grep -q "not a results.tsv row" "$tmp/err" && { bad "comment lines of results.tsv warn:"; cat "$tmp/err"; }

# --- guide references exist -----------------------------------------------------------------
"$ptune" rules list --format json >"$tmp/rules.json"
grep -q 'bench-log.md' "$tmp/rules.json" && bad "a rule cites bench-log.md, not in the repository"
exit "$fail"
