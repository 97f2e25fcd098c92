#!/usr/bin/env bash
# A real L3 build's own description (upstream-2026-12.md §7.1-§7.3): distributed_meta.json beside
# dfx_outputs/ and dispatch_program.json in each rank<N>/d<K>/ are read and said once by the
# commands that read the tree (swimlane-analyze, advise); a damaged one is a gap, never a stop.
# Usage: l3_build_meta.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/common.sh" "$1"
run=$tmp/_jit_l3_demo_20260903_010617
mkdir -p "$run"
cp -r "$here/data/l3/l3_two_rank/dfx_outputs" "$run/"
printf '{"program": "demo_test"}' >"$run/dfx_outputs/rank0/d0/dispatch_program.json"
printf '{"program": "demo_test"}' >"$run/dfx_outputs/rank1/d0/dispatch_program.json"
printf '{\n  "schema": 2,\n  "params": [{"name": "x__ssa_v0", "direction": "In", "shape": [2, 8], "dtype": "fp32"}],\n  "num_return_types": 0,\n  "platform": "a2a3",\n  "backend_type": "Ascend910B",\n  "distributed_config": {"device_ids": [1, 3], "num_sub_workers": 2, "runtime": "tensormap_and_ringbuffer", "aicpu_thread_num": 4}\n}' >"$run/distributed_meta.json"

for command in swimlane-analyze advise; do
    timeout 60 "$ptune" "$command" "$run/dfx_outputs" >/dev/null 2>"$tmp/err"
    [ $? -le 1 ] || bad "$command: $(cat "$tmp/err")"
    grep -q "note: L3 build: 2 device(s) \[1, 3\], a2a3 (Ascend910B), runtime tensormap_and_ringbuffer" "$tmp/err" ||
        bad "$command does not describe the build: $(cat "$tmp/err")"
    grep -q "note: dispatch program: demo_test (every capture)" "$tmp/err" ||
        bad "$command does not name the dispatch program: $(cat "$tmp/err")"
done

# Another schema and a broken program file: said, and the run is still read.
printf '{"schema": 3}' >"$run/distributed_meta.json"
printf '{"program": ' >"$run/dfx_outputs/rank1/d0/dispatch_program.json"
timeout 60 "$ptune" swimlane-analyze "$run/dfx_outputs" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || bad "a damaged meta stopped the analysis: $(cat "$tmp/err")"
grep -q "unknown schema (3; ptune reads 2); the run is read without it" "$tmp/err" || bad "unknown schema not said: $(cat "$tmp/err")"
grep -q "rank1/d0/dispatch_program.json:1: not valid JSON: .*; labels stay anonymous" "$tmp/err" ||
    bad "broken program file not said: $(cat "$tmp/err")"
grep -q "dispatch program demo_test: rank0/d0" "$tmp/err" || bad "rank0's program lost: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || bad "no analysis printed"

# Cut mid-write: the meta's line is named; a program file without a name is said as such.
printf '{\n  "schema": 2,\n  "platform": ' >"$run/distributed_meta.json"
printf '{"program": ""}' >"$run/dfx_outputs/rank1/d0/dispatch_program.json"
timeout 60 "$ptune" swimlane-analyze "$run/dfx_outputs" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || bad "a cut meta stopped the analysis: $(cat "$tmp/err")"
grep -q "distributed_meta.json:3: not valid JSON: syntax error .*unexpected end of input" "$tmp/err" ||
    bad "cut meta not said at its line: $(cat "$tmp/err")"
grep -q "rank1/d0/dispatch_program.json: dispatch_program.json has no program name; labels stay anonymous" "$tmp/err" ||
    bad "nameless program file not said: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || bad "no analysis printed"
exit $fail
