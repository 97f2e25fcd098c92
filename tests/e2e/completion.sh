#!/usr/bin/env bash
# bash completion (completions/ptune.bash) offers, per command, only that command's formats and
# flags, the subcommands, and for `rules explain` every rule id and catalogue number; the data
# comes from the binary (`ptune __complete`), so it matches the command table.
set -u
ptune=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=/dev/null
source "$src/completions/ptune.bash"
failures=0

# complete WORD... : the candidates for the last word (the cursor is at its end).
complete_words() {
  COMP_WORDS=("$ptune" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _ptune
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect_exact() {  # expect_exact "WANTED (space separated)" WORD...
  local wanted=$1
  shift
  local got
  got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
  wanted=$(tr ' ' '\n' <<<"$wanted" | sort | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" != "$wanted" ]; then
    echo "FAIL: ptune $* <TAB> gave [$got], expected [$wanted]"
    failures=$((failures + 1))
  fi
}
expect_has() {  # expect_has CANDIDATE WORD...
  local wanted=$1
  shift
  if ! complete_words "$@" | grep -qxF -- "$wanted"; then
    echo "FAIL: ptune $* <TAB> lacks $wanted"
    failures=$((failures + 1))
  fi
}
expect_lacks() {
  local unwanted=$1
  shift
  if complete_words "$@" | grep -qxF -- "$unwanted"; then
    echo "FAIL: ptune $* <TAB> offers $unwanted"
    failures=$((failures + 1))
  fi
}

# Formats: each command's own list.
expect_exact "gcc json sarif github" hints-lint --format ""
expect_exact "text json markdown github gab-json" bench-gate --format ""
expect_exact "perfetto proto json text" swimlane-merge --format ""
expect_exact "text json csv markdown run" bench --format ""
expect_exact "sarif" --color always hints-lint --format s
expect_lacks "sarif" pmu-analyze --format ""
expect_lacks "proto" mem-report --format ""

# Flags: the command's own and the global ones, not another command's.
expect_has "--aicore-mhz" pmu-analyze --
expect_lacks "--baseline" pmu-analyze --
expect_has "--baseline" bench-gate --
expect_lacks "--aicore-mhz" bench-gate --
expect_has "--color" mem-report --
expect_has "--output" mem-report --
expect_lacks "--output" swimlane-merge --rules
expect_exact "--overhead" swimlane-merge --overh

# Commands and help topics.
for command in bench-summary bench bench-gate swimlane-merge swimlane-analyze mem-report \
  hints-lint pmu-analyze advise rules help; do
  expect_has "$command" ""
done
expect_has "hints-lint" help ""
expect_lacks "__complete" ""

# rules: actions, then ids that `rules explain` takes.
expect_exact "explain list" rules ""
for id in X1 X6 M1 cross.mte2-bound-with-ph001 mem.over-limit; do
  expect_has "$id" rules explain ""
done
expect_exact "X1 X2 X3 X4 X5 X6 X7" rules explain X
expect_lacks "list" rules explain ""

[ "$failures" -eq 0 ] || exit 1
echo ok
