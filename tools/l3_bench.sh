#!/usr/bin/env bash
# Benchmark of the multi-card (L3) analysis (docs/PERFORMANCE.md, issue #22).
# Usage: tools/l3_bench.sh BUILD_DIR [RANKS] [TASKS] [THREADS]
# Writes an L3 tree of RANKS ranks × TASKS tasks (default 32 × 5000, rank 7 slow) with
# build/tools/l3_tree_gen, then times `ptune swimlane-analyze TREE` with PTUNE_THREADS=1 and with
# PTUNE_THREADS=THREADS (default: all cores), and one rank alone (`swimlane-analyze rank0/d0`),
# each with wall time and peak RSS from /usr/bin/time -v. Prints the ratios the issue asks for:
# threads / one-thread wall time (target ≤ 0.6) and tree / one-rank peak RSS (target < 3).
set -euo pipefail
build=${1:?usage: tools/l3_bench.sh BUILD_DIR [RANKS] [TASKS] [THREADS]}
ranks=${2:-32}
tasks=${3:-5000}
threads=${4:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tools/l3_tree_gen" "$work/tree" --ranks "$ranks" --tasks "$tasks" --slow-rank 7 --no-pmu \
  2>"$work/gen.txt"
cat "$work/gen.txt"

# measure LABEL THREADS INPUT: prints "LABEL wall_s rss_MB"
measure() {
  local label=$1 n=$2 input=$3
  PTUNE_THREADS=$n /usr/bin/time -v -o "$work/time.txt" "$build/ptune" swimlane-analyze "$input" \
    --format json -o /dev/null 2>/dev/null || [ $? -eq 1 ]
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  printf '%-22s %8.2f %9.1f\n' "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
  echo "$wall $rss" >"$work/$label.txt"
}

printf '%-22s %8s %9s\n' run wall_s rss_MB
measure one-rank 1 "$work/tree/rank0/d0"
measure tree-1-thread 1 "$work/tree"
measure "tree-$threads-threads" "$threads" "$work/tree"
read -r one_wall one_rss <"$work/one-rank.txt"
read -r t1_wall _ <"$work/tree-1-thread.txt"
read -r tn_wall tn_rss <"$work/tree-$threads-threads.txt"
printf 'wall %s threads / 1 thread: %.2f (target <= 0.6)\n' "$threads" "$(echo "$tn_wall / $t1_wall" | bc -l)"
printf 'peak RSS tree (%s threads) / one rank: %.2f (target < 3)\n' "$threads" "$(echo "$tn_rss / $one_rss" | bc -l)"
