#!/usr/bin/env bash
# The man pages (`ptune __man`, built into BUILD/man): ptune.1 and one ptune-CMD.1 per command
# of the table, rendered by man without warnings, with the command's own options and formats and
# one example per line (not filled into one paragraph).
set -u
ptune=$1
build_dir=$2
man_dir=$build_dir/man
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ -f "$man_dir/ptune.1" ] || { echo "FAIL: no $man_dir/ptune.1 (target ptune_man)"; exit 1; }

render() { LC_ALL=C MANWIDTH=100 man -l "$1" 2>"$1.warnings" | col -bx; }

commands=$("$ptune" __complete commands | grep -vx help)
for command in $commands; do
  # Aliases have no page of their own: `bench` is bench-summary.
  [ "$command" = bench ] && continue
  page=$man_dir/ptune-$command.1
  [ -f "$page" ] || { fail "no man page for $command"; continue; }
  text=$(render "$page")
  [ -s "$page.warnings" ] && fail "man warns on ptune-$command.1: $(cat "$page.warnings")"
  grep -Eq "ptune-$command +- " <<<"$text" || fail "ptune-$command.1 has no NAME line"
  # Every format of the command is named in its page, and the help text's examples are there,
  # each on a line of its own.
  for format in $("$ptune" __complete formats "$command"); do
    grep -q -- "$format" <<<"$text" || fail "ptune-$command.1 does not name format $format"
  done
  examples=$("$ptune" help "$command" | sed -n '/^Examples:/,/^Exit codes/p' | grep '^ *ptune ' | sed 's/^ *//')
  [ -n "$examples" ] || fail "no examples in ptune help $command"
  while IFS= read -r example; do
    grep -qxF -- "       $example" <<<"$text" || fail "ptune-$command.1: example not on its own line: $example"
  done <<<"$examples"
  for flag in $("$ptune" __complete options "$command" | grep -- '^--' | grep -v -- '--help'); do
    grep -q -- "$flag" <<<"$text" || fail "ptune-$command.1 does not document $flag"
  done
done
text=$(render "$man_dir/ptune.1")
[ -s "$man_dir/ptune.1.warnings" ] && fail "man warns on ptune.1"
for command in $commands; do
  [ "$command" = bench ] && continue
  grep -q "ptune-$command(1)" <<<"$text" || fail "ptune.1 does not point to ptune-$command(1)"
done
grep -qx "       ptune advise build_output/" <<<"$text" || fail "ptune.1 examples run together"
# A command with actions has a page per action (ptune-history-add.1), naming its required options.
for action in add list show changes export; do
  page=$man_dir/ptune-history-$action.1
  [ -f "$page" ] || { fail "no man page for history $action"; continue; }
  text=$(render "$page")
  [ -s "$page.warnings" ] && fail "man warns on ptune-history-$action.1: $(cat "$page.warnings")"
  grep -q "ptune-history(1)" <<<"$text" || fail "ptune-history-$action.1 does not point back"
done
grep -q -- "--commit TEXT" <<<"$(render "$man_dir/ptune-history-add.1")" ||
  fail "ptune-history-add.1 does not name the required --commit in its synopsis"
grep -q "ptune-history-add(1)" <<<"$(render "$man_dir/ptune-history.1")" ||
  fail "ptune-history.1 does not point to ptune-history-add(1)"
rm -f "$man_dir"/*.warnings
[ "$failures" -eq 0 ] || exit 1
echo ok
