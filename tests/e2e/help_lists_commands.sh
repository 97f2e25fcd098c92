#!/usr/bin/env bash
# `ptune --help` lists every command of the table and the exit codes.
set -u
ptune=$1
out=$("$ptune" --help) || { echo "--help failed"; exit 1; }
for command in bench-summary bench-gate swimlane-merge swimlane-analyze mem-report hints-lint \
               pmu-analyze advise history rules; do
  grep -q -- "$command" <<<"$out" || { echo "--help does not list $command"; exit 1; }
done
grep -q "Exit codes: 0 success, 1 findings or regression, 2 usage or input error, 3 internal error" \
  <<<"$out" || { echo "--help lacks the exit codes"; exit 1; }
for command in bench-summary bench bench-gate swimlane-merge swimlane-analyze mem-report hints-lint \
               pmu-analyze advise history rules; do
  out=$("$ptune" help "$command") || { echo "ptune help $command failed"; exit 1; }
  grep -q "Examples:" <<<"$out" || { echo "help $command has no examples"; exit 1; }
  grep -q -- "--format" <<<"$out" || { echo "help $command does not describe $command's options"; exit 1; }
done
exit 0
