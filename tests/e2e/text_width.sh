#!/usr/bin/env bash
# Text output fits 100 columns (issue #23): at COLUMNS=100, no stdout line of any command in its
# text format, on every golden CLI case's inputs and on the shipped examples, is wider than 100
# columns unless it is a single unbreakable token (a path or id longer than the line). Each
# golden case runs with its own arguments and --format text (dropping -o and any other format);
# `ptune --help` and `ptune help CMD` are checked too.
# Not covered, by design: formats that tools parse line by line (gcc, github, json, sarif, csv,
# gab-json, html, markdown), bench-summary --format run and swimlane-merge's converter console
# (off a terminal both are upstream's output byte for byte; swimlane-merge folds on a terminal
# only); see docs/DEVELOPING.md.
set -u
ptune=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
export COLUMNS=100 NO_COLOR=1 CI=true
unset GITHUB_STEP_SUMMARY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
runs=0

# check LABEL FILE: every line of FILE fits, or is one token.
check() {
  local label=$1 file=$2
  runs=$((runs + 1))
  awk -v label="$label" -v limit=100 '
    {
      gsub(/\033\[[0-9;]*m/, "")  # colour takes no columns
      line = $0
      sub(/^ +/, "", line)
      # Columns, not bytes: count UTF-8 lead bytes only.
      width = 0
      n = split($0, chars, "")
      for (i = 1; i <= n; i++) if (chars[i] !~ /[\200-\277]/) width++
      if (width > limit && line ~ / /) {
        printf "%s: line %d is %d columns:\n  %s\n", label, NR, width, $0
        bad = 1
      }
    }
    END { exit bad }' "$file" || fail=1
}

text_commands=" bench-summary bench bench-gate swimlane-analyze mem-report pmu-analyze "
text_commands+="advise rules pipe-trace serving-trace "
cd "$root/tests" || exit 2
for args_file in cli/*/*.args; do
  case_path=${args_file%.args}
  args_text=$(cat "$args_file")
  eval "set -- $args_text"
  command=${1:-}
  [[ "$text_commands" == *" $command "* ]] || continue
  # Cases that write files or only exercise help/flag errors say nothing about layout.
  [[ "$args_text" == *--write-baseline* || "$args_text" == *--save-baseline* ]] && continue
  kept=()
  while [ $# -gt 0 ]; do
    case $1 in
      --format) shift 2 ;;
      -o | --output)
        [ "$command" = swimlane-merge ] && kept+=(-o /dev/null)
        shift 2
        ;;
      --format=* | --output=*) shift ;;
      *) kept+=("$1"); shift ;;
    esac
  done
  stdin=/dev/null
  [ -f "$case_path.stdin" ] && stdin=$case_path.stdin
  "$ptune" "${kept[@]}" --format text <"$stdin" >"$tmp/out" 2>/dev/null
  check "$case_path" "$tmp/out"
done

cd "$root" || exit 2
run=examples/build_output/PagedAttn_20260715_103000
while IFS= read -r line; do
  eval "set -- $line"
  "$ptune" "$@" >"$tmp/out" 2>/dev/null
  check "ptune $line" "$tmp/out"
done <<EOF_COMMANDS
advise examples/build_output --log examples/logs/l3_two_card_report.log
bench --warmup 2 --rounds 6 examples/logs/
swimlane-analyze $run
mem-report $run
pmu-analyze $run/dfx_outputs/pmu.csv
pmu-analyze --rows $run/dfx_outputs/pmu.csv
rules list
rules explain PH001
rules explain M6
--help
EOF_COMMANDS
for command in bench-summary bench-gate swimlane-merge swimlane-analyze mem-report hints-lint \
               pmu-analyze advise rules; do
  "$ptune" help "$command" >"$tmp/out" 2>/dev/null
  check "ptune help $command" "$tmp/out"
done
[ "$runs" -gt 100 ] || { echo "only $runs outputs checked"; exit 1; }
[ "$fail" = 0 ] && echo "$runs text outputs fit 100 columns"
exit "$fail"
