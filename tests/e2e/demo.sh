#!/usr/bin/env bash
# tools/demo (issue 34 item 10) against the built binary: no root, no build, every command of
# `ptune __complete commands` run on the shipped examples/, none exiting 2 (input error) or 3
# (internal error), and a summary line per command at the end.
set -eu
ptune=$1
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

status=0
PTUNE=$ptune DEMO_OUT=$scratch/out tools/demo >"$scratch/demo.txt" 2>&1 || status=$?
summary=$(sed -n '/^Summary (/,$p' "$scratch/demo.txt")
if [ "$status" -ne 0 ] || [ -z "$summary" ]; then
  cat "$scratch/demo.txt"
  echo "FAIL: tools/demo exited $status" >&2
  exit 1
fi
# Every summary row: command, exit code 0 or 1, its meaning.
if echo "$summary" | tail -n +2 | grep -Ev '^  [a-z-]+ +[01] (ok|findings) '; then
  echo "FAIL: a command exited 2 or 3 (rows above)" >&2
  exit 1
fi
for command in $("$ptune" __complete commands); do
  case $command in help | bench) continue ;; esac  # help; bench is bench-summary's alias
  echo "$summary" | grep -q "^  $command " || {
    echo "$summary"
    echo "FAIL: tools/demo does not run $command" >&2
    exit 1
  }
done
# Nothing installed, nothing built: the run used the binary it was given.
grep -q "($ptune)" "$scratch/demo.txt"
! grep -q "building build/ptune" "$scratch/demo.txt"
echo "ok: $(echo "$summary" | tail -n +2 | wc -l) commands"
