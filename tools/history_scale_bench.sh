#!/usr/bin/env bash
# Scale benchmark of ptune history (issue #21): tools/history_scale_bench.sh BUILD_DIR
# [CASES=1000] [RUNS=2000] [DB=sqlite|postgresql://...]. Records RUNS synthetic runs of CASES
# cases, one `ptune history add` process per run as CI would (tools/history_synth writes the
# logs in slices of 100 runs; 10 % of the cases step +5 % at some run), then times the
# analysis from scratch, from the cache, after one more run (incremental), one case's show,
# bench-gate --history and the exports. Figures go to docs/PERFORMANCE.md.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
cases=${2:-1000}
runs=${3:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=${4:-$work/history.db}
ptune=$build/ptune
synth=(nice "$build/tools/history_synth" --runs "$runs" --cases "$cases" --rounds 10 --no-raw
       --noise 1 --step-fraction 0.1)
seconds() { echo "$2 - $1" | bc; }

start=$(date +%s.%N)
for ((from = 1; from <= runs; from += 100)); do
  rm -rf "$work/slice"
  "${synth[@]}" --from "$from" --to $((from + 99)) --out "$work/slice"
  for log in "$work/slice"/*.log; do
    run=$(basename "$log" .log)
    "$ptune" -q history --db "$db" add "$log" --commit "${run#run-}" --toolchain cann-8.1 \
      --time "@$((1767225600 + 10#${run#run-} * 3600))" >/dev/null
  done
done
end=$(date +%s.%N)
total=$(seconds "$start" "$end")
printf '%-52s %8.1f s  (%.1f ms per add of %d cases)\n' "add $runs runs ($((cases * runs)) results)" \
  "$total" "$(echo "$total * 1000 / $runs" | bc -l)" "$cases"
[ -f "$db" ] && echo "database: $(du -h "$db" | cut -f1)"

timed() {
  local label=$1
  shift
  local start end code=0
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$@" >"$work/out" 2>"$work/err" || code=$?
  end=$(date +%s.%N)
  [ "$code" -le 1 ] || { cat "$work/err"; exit 1; }
  printf '%-52s %8.2f s  peak RSS %6d MiB\n' "$label" "$(seconds "$start" "$end")" \
    "$(($(tail -1 "$work/rss") / 1024))"
}
timed "changes, first (analyses all, caches)" "$ptune" history --db "$db" changes --format json
echo "change points: $(jq '.changes | length' "$work/out") ($((cases / 10)) steps planted)"
timed "changes, cached" "$ptune" history --db "$db" changes
timed "changes --recompute (from scratch)" "$ptune" history --db "$db" changes --recompute
"${synth[@]}" --runs $((runs + 1)) --from $((runs + 1)) --out "$work/next"
timed "add one more run" "$ptune" -q history --db "$db" add "$work/next"/*.log --commit next
timed "changes after it (incremental)" "$ptune" history --db "$db" changes
timed "show case-0000" "$ptune" history --db "$db" show case-0000
timed "show case-0000 --format svg" "$ptune" history --db "$db" show case-0000 --format svg
timed "bench-gate --history ($cases cases)" "$ptune" bench-gate --history "$db" \
  --current "$work/next"/*.log --format json
timed "export --format csv" "$ptune" history --db "$db" export --format csv -o "$work/e.csv"
timed "export --format json" "$ptune" history --db "$db" export --format json -o "$work/e.json"
timed "export --format gab-json" "$ptune" history --db "$db" export --format gab-json -o "$work/e.gab"
timed "list" "$ptune" history --db "$db" list --format json
