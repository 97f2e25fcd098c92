#!/usr/bin/env bash
# Special files where an output, a history database or a named side file goes (issue 36 items
# 1, 2 and 6): each is exit 2 at once (they used to hang, or to warn and exit 0), a FIFO with a
# reader is written, and an output over a history database's journal files is refused.
# Usage: special_outputs_and_sides.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/special_files.sh" "$1"
log=$here/data/bench/ci_sweep_excerpts.log
records=$here/data/swimlane/chip_swimlane_records.json
mkfifo fifo

expect 2 "-o at a FIFO nobody reads" "$ptune" bench-summary "$log" -o fifo
grep -q "fifo: is a FIFO (named pipe) nobody reads" err || bad "-o FIFO not named: $(cat err)"
GITHUB_STEP_SUMMARY=$tmp/fifo expect 2 "GITHUB_STEP_SUMMARY at a FIFO" \
    "$ptune" bench-gate -b "$log" -c "$log" --format github
expect 2 "history --db FIFO list" "$ptune" history --db fifo list
expect 2 "history --db FIFO add" "$ptune" history --db fifo add "$log" --commit abc
expect 2 "bench-gate --history FIFO" "$ptune" bench-gate -c "$log" --history fifo
for option in --names --deps -k; do
    expect 2 "swimlane-merge $option FIFO" "$ptune" swimlane-merge "$records" "$option" fifo -o m.json
    grep -q "fifo: error: is a FIFO" err || bad "swimlane-merge $option FIFO not named: $(cat err)"
done

# A FIFO with a reader (a process substitution's pipe) is written, all of it.
timeout 30 cat fifo >got &
reader=$!
expect 0 "-o at a FIFO with a reader" "$ptune" bench-summary "$log" -o fifo
wait "$reader"
"$ptune" bench-summary "$log" >want 2>/dev/null
cmp -s got want || bad "the FIFO with a reader did not get the whole output"

# An output over the database's journal (SQLite removes it at close): refused, exit 2.
expect 0 "history add" "$ptune" history --db h.db add "$log" --commit abc
for side in h.db-wal h.db-journal h.db-shm; do
    expect 2 "history export -o $side" "$ptune" history --db h.db export -o "$side"
done
expect 2 "bench-gate --history h.db -o h.db-wal" \
    "$ptune" bench-gate -c "$log" --history h.db -o h.db-wal

# A FIFO named like a CI result file (classified by peeking at its start: it hung), and a FIFO
# in the place of the database's journal files (SQLite blocked on it, or deleted it).
mkdir ci
mkfifo ci/x.md ci/raw-result.json
for f in ci/x.md ci/raw-result.json; do
    expect 2 "bench-summary on a FIFO $f" "$ptune" bench-summary "$f"
    expect 2 "bench-gate -b FIFO $f" "$ptune" bench-gate -b "$f" -c "$log"
    expect 2 "history add FIFO $f" "$ptune" history --db ci.db add "$f" --commit abc
done
for side in -journal -wal; do
    mkfifo "h.db$side"
    expect 2 "history with a FIFO at h.db$side" "$ptune" history --db h.db add "$log" --commit abc
    [ -p "h.db$side" ] || bad "the FIFO at h.db$side was removed"
    rm -f "h.db$side"
done

# A FIFO as the deps.json beside the records: named, not "missing"; hints-lint -o over the
# compiled_meta.json whose presence set the column base: refused, the file intact.
mkdir sw
cp "$records" sw/
mkfifo sw/deps.json
expect 0 "swimlane-merge with a FIFO deps.json beside" "$ptune" swimlane-merge sw/chip_swimlane_records.json -o sw/m.json
grep -q "sw/deps.json: warning: no usable deps.json (is a FIFO" err || bad "FIFO deps.json not named: $(cat err)"
cp -r "$here/../examples/build_output_2608/PagedAttn_20260820_091500" hl
echo '{"schema": 1, "backend_type": "Ascend910B"}' >hl/compiled_meta.json
meta_before=$(cksum <hl/compiled_meta.json)
expect 2 "hints-lint -o over compiled_meta.json" "$ptune" hints-lint hl -o hl/compiled_meta.json
[ "$(cksum <hl/compiled_meta.json)" = "$meta_before" ] || bad "hints-lint replaced compiled_meta.json"

# A FIFO as a directory's records file: named, exit 2 (it was "no swimlane records here").
mkdir fr
mkfifo fr/chip_swimlane_records.json
expect 2 "swimlane-analyze on a directory with FIFO records" "$ptune" swimlane-analyze fr
grep -q "fr/chip_swimlane_records.json: is a FIFO" err || bad "FIFO records not named: $(cat err)"

# An L3 tree with a FIFO in a capture's and a sidecar's place: named as what it is.
cp -r "$here/data/l3/l3_two_rank" l3
rm l3/dfx_outputs/rank1/d0/chip_swimlane_records.json
mkfifo l3/dfx_outputs/rank1/d0/chip_swimlane_records.json
rm -f l3/dfx_outputs/rank0/d0/dispatch_identity.json
mkfifo l3/dfx_outputs/rank0/d0/dispatch_identity.json
timeout 20 "$ptune" swimlane-analyze l3/dfx_outputs >out 2>err
[ $? = 124 ] && bad "swimlane-analyze hung on a FIFO in an L3 tree"
grep -q "rank1/d0/chip_swimlane_records.json: error: is a FIFO" err ||
    bad "FIFO records in an L3 tree reported as missing: $(cat err)"
grep -q "rank0/d0/dispatch_identity.json: is a FIFO" err ||
    bad "FIFO sidecar in an L3 tree not named: $(cat err)"

# A FIFO in an L3 rank's pmu.csv place (pmu-analyze): named, never "no pmu.csv".
cp -r "$here/data/pmu/l3_ranks" pmu
rm pmu/rank1/d0/pmu.csv
mkfifo pmu/rank1/d0/pmu.csv
timeout 20 "$ptune" pmu-analyze pmu >out 2>err
[ $? = 124 ] && bad "pmu-analyze hung on a FIFO pmu.csv"
grep -q "rank1/d0/pmu.csv: error: is a FIFO" err || bad "FIFO pmu.csv in an L3 tree not named: $(cat err)"

exit $fail
