#!/usr/bin/env bash
# Runs one fuzz target under ctest: first every seed and regression input once (a crasher that
# came back fails fast with its file name), then fuzzing for SECONDS from the seeds.
# Usage: run_fuzzer.sh FUZZER SECONDS RSS_LIMIT_MB WORK_CORPUS INPUT_DIR...
set -euo pipefail
fuzzer=$1 seconds=$2 rss_limit=$3 work=$4
shift 4
inputs=("$@")
mkdir -p "$work"
artifacts="$work.artifacts"
mkdir -p "$artifacts"

files=()
for dir in "${inputs[@]}"; do
  while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$dir" -type f -print0 | sort -z)
done
echo "replaying ${#files[@]} inputs"
"$fuzzer" -rss_limit_mb="$rss_limit" -timeout=10 "${files[@]}" >/dev/null 2>"$work.replay.log" || {
  cat "$work.replay.log" >&2
  exit 1
}

echo "fuzzing for ${seconds}s"
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb="$rss_limit" -timeout=10 -max_len=65536 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$work" "${inputs[@]}" 2>"$work.log" || {
  tail -n 60 "$work.log" >&2
  echo "crash inputs kept in $artifacts" >&2
  exit 1
}
grep -E "^stat::(number_of_executed_units|peak_rss_mb|new_units_added)" "$work.log" || true
