#!/usr/bin/env bash
# Side-by-side benchmark of two `ptune` binaries on swimlane-merge (docs/PERFORMANCE.md,
# "swimlane-merge"), with the byte-identity check every speed change of the converter needs.
#
#   tools/swimlane_ab.sh OLD_PTUNE NEW_PTUNE SWIMLANE_GEN [TASKS...]   (default TASKS: 20000)
#
# For each task count it generates the default a2a3 level-4 capture with deps and names
# (SWIMLANE_GEN --tasks N --arch a2a3 --level 4, ≈1.5 rows a task), then
#   1. checks that both binaries write the same JSON trace, the same `--overhead` trace and the
#      same console summary (`cmp`; exit 1 on any difference), and that NEW's .json.gz inflates
#      to that JSON;
#   2. runs JSON and .json.gz conversions RUNS times each (default 5), old and new alternating,
#      each to a fresh file after `sync` and a PAUSE (default 1 s), and prints the minimum and
#      median wall ms, the median CPU s (user + sys) and the peak RSS MB (GNU time), with the
#      load average before and after.
# GEN_ARGS adds generator options (e.g. "--spmd-every 0 --mix-every 0": one row a task). Captures
# and outputs go to a temporary directory removed at the end.
set -euo pipefail
old=${1:?usage: swimlane_ab.sh OLD_PTUNE NEW_PTUNE SWIMLANE_GEN [TASKS...]}
new=${2:?usage: swimlane_ab.sh OLD_PTUNE NEW_PTUNE SWIMLANE_GEN [TASKS...]}
gen=${3:?usage: swimlane_ab.sh OLD_PTUNE NEW_PTUNE SWIMLANE_GEN [TASKS...]}
shift 3
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(20000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # run BIN CAPTURE OUT [ARGS...] → "wall_ms cpu_s rss_kb"
    local bin=$1 cap=$2 out=$3
    shift 3
    rm -f "$out"
    sync
    sleep "${PAUSE:-1}"
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f '%M %U %S' -o "$work/time.txt" "$bin" swimlane-merge "$cap" -o "$out" "$@" \
        >/dev/null 2>"$work/stderr.txt"
    end=$(date +%s%N)
    awk -v ms=$(((end - start) / 1000000)) '{printf "%d %.2f %d\n", ms, $2 + $3, $1}' "$work/time.txt"
}

stats() {  # stats FILE → "min_ms med_ms med_cpu rss_mb" (lines "wall cpu rss_kb")
    sort -n "$1" | awk '{w[NR]=$1} END{printf "%d %d ", w[1], w[int((NR+1)/2)]}'
    sort -k2,2n "$1" | awk '{c[NR]=$2} END{printf "%.2f ", c[int((NR+1)/2)]}'
    sort -k3,3n "$1" | awk '{r=$3} END{printf "%.1f\n", r/1024}'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-8s %-4s %8s %8s %7s %7s %10s\n' tasks format bin min_ms med_ms cpu_s rss_MB output_MB
for n in "${counts[@]}"; do
    cap=$work/cap_$n
    # shellcheck disable=SC2086  # GEN_ARGS holds several options, e.g. "--spmd-every 0"
    "$gen" --tasks "$n" --out "$cap" --arch a2a3 --level 4 ${GEN_ARGS:-} >/dev/null
    # 1. The same bytes (same output name, so the summaries name the same file).
    mkdir -p "$work/a" "$work/b"
    for variant in plain overhead; do
        extra=()
        [ $variant = overhead ] && extra=(--overhead)
        (cd "$work/a" && "$old" swimlane-merge "$cap" -o trace.json "${extra[@]}" >summary.txt 2>stderr.txt)
        (cd "$work/b" && "$new" swimlane-merge "$cap" -o trace.json "${extra[@]}" >summary.txt 2>stderr.txt)
        for f in trace.json summary.txt stderr.txt; do
            cmp "$work/a/$f" "$work/b/$f" || { echo "FAIL: $n tasks, $variant: $f differs"; exit 1; }
        done
        [ $variant = plain ] || continue
        "$new" swimlane-merge "$cap" -o "$work/b/trace.json.gz" >/dev/null
        gzip -t "$work/b/trace.json.gz"
        gzip -dc "$work/b/trace.json.gz" | cmp - "$work/a/trace.json" ||
            { echo "FAIL: $n tasks: the .json.gz does not inflate to the JSON"; exit 1; }
    done
    echo "identical: $n tasks, JSON, --overhead JSON, summary and stderr; .json.gz inflates to the JSON"
    rm -rf "$work/a" "$work/b"
    # 2. Alternating timed runs.
    for _ in $(seq "${RUNS:-5}"); do
        for fmt in json gz; do
            out=$work/trace.json
            [ $fmt = gz ] && out=$work/trace.json.gz
            for bin in old new; do
                exe=$old
                [ $bin = new ] && exe=$new
                run "$exe" "$cap" "$out" >>"$work/$n.$fmt.$bin"
                stat -c %s "$out" >"$work/$n.$fmt.$bin.size"
            done
        done
    done
    for fmt in json gz; do
        for bin in old new; do
            read -r min med cpu rss < <(stats "$work/$n.$fmt.$bin")
            printf '%-8s %-8s %-4s %8s %8s %7s %7s %10.1f\n' "$n" "$fmt" "$bin" "$min" "$med" "$cpu" \
                "$rss" "$(echo "$(cat "$work/$n.$fmt.$bin.size")/1048576" | bc -l)"
        done
    done
    rm -rf "$cap"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
