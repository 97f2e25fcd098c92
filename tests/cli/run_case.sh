#!/usr/bin/env bash
# Runs one golden CLI case: run_case.sh PTUNE CASE_PATH_WITHOUT_EXTENSION
# The case's arguments are read from CASE.args (shell words, paths relative to tests/).
# Set PTUNE_UPDATE_GOLDEN=1 to rewrite CASE.stdout and CASE.exit from the current binary
# (then review the diff: a golden file is a claim about correct output).
set -u
ptune=$1
case_path=$2
tests_dir=$(cd "$(dirname "$0")/.." && pwd)
cd "$tests_dir" || exit 2
args_text=$(cat "$case_path.args")
eval "set -- $args_text"
stdout_file=$(mktemp)
stderr_file=$(mktemp)
trap 'rm -f "$stdout_file" "$stderr_file"' EXIT
stdin_source=/dev/null
[ -f "$case_path.stdin" ] && stdin_source="$case_path.stdin"
NO_COLOR=1 CI=true COLUMNS=100 "$ptune" "$@" <"$stdin_source" >"$stdout_file" 2>"$stderr_file"
code=$?
expected_code=0
[ -f "$case_path.exit" ] && expected_code=$(tr -d '[:space:]' <"$case_path.exit")

if [ "${PTUNE_UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$stdout_file" "$case_path.stdout"
  echo "$code" >"$case_path.exit"
  exit 0
fi

status=0
if [ "$code" != "$expected_code" ]; then
  echo "exit code $code, expected $expected_code"
  status=1
fi
if [ -f "$case_path.stdout" ]; then
  if ! diff -u "$case_path.stdout" "$stdout_file"; then
    echo "stdout differs from $case_path.stdout"
    status=1
  fi
fi
if [ -f "$case_path.stderr" ]; then
  # Notes on stderr wrap at COLUMNS with continuation lines indented by 4: a needle is matched
  # against the notes with those lines joined again.
  joined_file=$(mktemp)
  trap 'rm -f "$stdout_file" "$stderr_file" "$joined_file"' EXIT
  sed ':a;N;$!ba;s/\n    / /g' "$stderr_file" >"$joined_file"
  while IFS= read -r needle; do
    [ -z "$needle" ] && continue
    if ! grep -qF -- "$needle" "$joined_file"; then
      echo "stderr lacks: $needle"
      status=1
    fi
  done <"$case_path.stderr"
fi
if [ $status -ne 0 ]; then
  echo "--- stderr ---"
  head -c 4000 "$stderr_file"
fi
exit $status
