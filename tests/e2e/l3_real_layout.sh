#!/usr/bin/env bash
# The real L3 layout (upstream-2026-12.md §7.1-§7.4): host logs in each rank's dispatch directory
# are found (the ranks are placed on the host clock), distributed_meta.json maps ranks to devices,
# and advise lists what the build says of itself (Build section, Artifacts "read:" notes); a
# damaged binary_context.json is said and marked unusable, never a stop.
# Usage: l3_real_layout.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/common.sh" "$1"
run=$tmp/_jit_l3_demo_20260903_010617
cp -r "$here/data/l3/build_meta/_jit_l3_demo_20260903_010617" "$run"

timeout 60 "$ptune" swimlane-analyze "$run/dfx_outputs" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || bad "swimlane-analyze: $(cat "$tmp/err")"
grep -Eq 'rank0/d0 +bounded .* 2091377:1 ' "$tmp/out" || bad "rank0's host log in rank0/d0 not used: $(cat "$tmp/out")"
grep -Eq 'rank1/d0 +bounded .* 2091389:1 ' "$tmp/out" || bad "rank1's host log in rank1/d0 not used"
grep -q "note: rank ↔ device (distributed_meta.json device_ids in rank order): rank0 = device 1, rank1 = device 3" "$tmp/err" ||
    bad "rank ↔ device not said: $(cat "$tmp/err")"

timeout 60 "$ptune" advise -v "$run" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || bad "advise: $(cat "$tmp/err")"
grep -q "^Build: devices, programs and binaries (L3)" "$tmp/out" || bad "no Build section"
grep -Eq '^rank ↔ device +rank0 = device 1, rank1 = device 3 +distributed_meta.json' "$tmp/out" || bad "no rank ↔ device row"
grep -Eq '^program demo_test +rank0/d0, rank1/d0 ' "$tmp/out" || bad "no program row"
grep -Eq '^binaries of demo_test +runtime tensormap_and_ringbuffer @ 1a2b3c4d5e6f,' "$tmp/out" || bad "no binary row"
tr -s ' \n' ' ' <"$tmp/out" >"$tmp/flat"
grep -q 'binary-context found [^ ]*/next_levels/demo_test/cache/binary_context.json; read: runtime tensormap_and_ringbuffer @ 1a2b3c4d5e6f, PTO-ISA @ 9f8e7d6c5b4a, a2a3' "$tmp/flat" ||
    bad "binary_context.json not listed as read"
grep -q 'dispatch-program found [^ ]*/rank1/d0/dispatch_program.json \[rank1/d0\]; read: program demo_test' "$tmp/flat" ||
    bad "dispatch_program.json not listed as read"
grep -q 'host-log found [^ ]*/rank0/d0/host.2091377.log \[rank0/d0\]; read:' "$tmp/flat" || bad "the nested host log not read by advise"
timeout 60 "$ptune" advise --format json "$run" 2>/dev/null | grep -q '"kind":"distributed-meta"' ||
    timeout 60 "$ptune" advise --format json "$run" 2>/dev/null | grep -q '"kind": "distributed-meta"' ||
    bad "the JSON report does not list distributed-meta"

# A damaged binary_context.json: a warning naming it, "unusable" in the table, the run still read.
printf '{"schema": 1, "runtime_revision": "abc"}' >"$run/next_levels/demo_test/cache/binary_context.json"
timeout 60 "$ptune" advise -v "$run" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || bad "a damaged binary_context.json stopped advise: $(cat "$tmp/err")"
grep -q "binary_context.json: warning: binary_context.json: runtime_revision is not 40 hex digits" "$tmp/err" ||
    bad "damage not said: $(cat "$tmp/err")"
tr -s ' \n' ' ' <"$tmp/out" | grep -q 'read: unusable: binary_context.json: runtime_revision is not 40 hex digits' ||
    bad "damage not in the Artifacts table"
grep -q "^Build: devices" "$tmp/out" || bad "Build section lost with one damaged file"
exit $fail
