#!/usr/bin/env bash
# examples/build_output is ONE program described alike by every artifact (examples/compose.py):
# the same kernels in the name map, kernel_config.py, pmu.csv, the memory report and the hint
# sites (through the readable kernel source), and `ptune advise` fires every cross-artifact rule
# on it: X1, X2, X3, X6 on the July a2a3 run, X4 on the July a5 run, X5 (and X1, X3) on the
# August rebuild in build_output_2608/ (PH001 v3 flags Mat loads; pypto then writes no memory
# report, so the runs follow perf-hints.md's dating facts).
set -eu
ptune=$1
cd "$(dirname "$0")/../.."
examples=examples/build_output
run=$examples/PagedAttn_20260715_103000
run_a5=$examples/PagedAttn_20260714_160000
run_aug=examples/build_output_2608/PagedAttn_20260820_091500
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The composer reproduces what is committed (nothing edited by hand afterwards).
mkdir -p "$scratch/tests/data/bench"
cp -r examples "$scratch/examples"
cp -r tests/data/bench/composed "$scratch/tests/data/bench/"
python3 "$scratch/examples/compose.py"
diff -r examples/build_output "$scratch/examples/build_output"
diff -r examples/build_output_2608 "$scratch/examples/build_output_2608"
diff -r examples/logs "$scratch/examples/logs"

"$ptune" advise "$examples" --format json >"$scratch/advise.json" || [ $? -eq 1 ]
"$ptune" advise "$run_a5" --format json >"$scratch/advise_a5.json" || [ $? -eq 1 ]
"$ptune" advise "$run_aug" --format json >"$scratch/advise_aug.json" || [ $? -eq 1 ]
# The log's effective_us matches the capture's window (59.7 us) within 5 %, with no flags: the
# log states its loop (pypto's report after the [STRACE] markers, issue 34 item 6), and the
# markers recomputed with that loop give the same figures.
"$ptune" bench examples/logs/paged_attn_strace.log --format json >"$scratch/bench.json" 2>/dev/null
"$ptune" bench examples/logs/paged_attn_strace.log --format run 2>/dev/null >"$scratch/report.txt"
grep -v '^\[mono_ns=' examples/logs/paged_attn_strace.log >"$scratch/printed.txt"
cmp -s "$scratch/report.txt" "$scratch/printed.txt" || {
  echo "FAIL: the log's report and ptune's reading of it differ"; exit 1; }
sed '/^\[RUN\]/d' examples/logs/paged_attn_strace.log >"$scratch/markers.log"
"$ptune" bench --warmup 2 --rounds 6 --raw "$scratch/markers.log" --format run 2>/dev/null >"$scratch/recomputed.txt"
cmp -s "$scratch/recomputed.txt" "$scratch/printed.txt" || {
  echo "FAIL: the markers recomputed with warmup 2, 6 rounds differ from the log's report"; exit 1; }
"$ptune" pmu-analyze "$run/dfx_outputs/pmu.csv" --format json >"$scratch/pmu.json" || [ $? -eq 1 ]

python3 - "$scratch" "$run" "$run_aug" <<'PY'
import json, os, re, sys
scratch, run, run_aug = sys.argv[1], sys.argv[2], sys.argv[3]
names = set(json.load(open(os.path.join(run, "dfx_outputs", "name_map_TestPA_composed.json")))["callable_id_to_name"].values())
config = set(re.findall(r'"name": "([^"]+)"', open(os.path.join(run, "kernel_config.py")).read()))
assert config == names, (config, names)

pmu = json.load(open(os.path.join(scratch, "pmu.json")))
pmu_kernels = {k.get("name", k.get("kernel")) for k in pmu["kernels"]}
assert pmu_kernels == names, ("pmu.csv kernels", pmu_kernels, names)
mem_functions = set(re.findall(r"^--- (\S+) ---$", open(os.path.join(run, "report", "memory_after_AllocateMemoryAddr.txt")).read(), re.M))
assert mem_functions == names, ("memory report", mem_functions, names)
# Each hint site lies inside a kernel's def in the readable source.
source = open(os.path.join(run, "models", "paged_attn.py")).read().splitlines()
# July: PH001 v2 (no moves clause) and 0-based columns; August: v3 and 1-based (perf-hints.md 7).
for directory, base, v3 in ((run, 0, False), (run_aug, 1, True)):
    for line in open(os.path.join(directory, "report", "perf_hints.log")):
        m = re.search(r" at (\S+):(\d+):(\d+)$", line.strip())
        assert m and m.group(1) == "models/paged_attn.py", line
        number, column = int(m.group(2)), int(m.group(3)) - base
        defs = [l for l in source[:number] if l.startswith("def ")]
        assert defs, line
        assert re.match(r"def (\w+)\(", defs[-1]).group(1) in names, line
        text = source[number - 1]
        if "PH-MR-001" in line:
            assert column == 0 and text.startswith("def "), line
        else:
            op = re.search(r"tile\.(load|store) has", line).group(1)
            assert text[column:].startswith("pl.%s(" % op), (line, text[column:])
            assert ("; moves " in line) == v3, line
            assert v3 or "target_memory=Mat" not in line, line

def fired(path):
    data = json.load(open(path))
    # advise folds the findings that repeat an order of a kernel's plan into it ("merged").
    found = data["findings"] + [m for f in data["findings"] for m in f.get("merged", [])]
    return {f.get("catalogue") for f in found} - {None, ""}
main, a5 = fired(os.path.join(scratch, "advise.json")), fired(os.path.join(scratch, "advise_a5.json"))
aug = fired(os.path.join(scratch, "advise_aug.json"))
missing = {"X1", "X2", "X3", "X6"} - main
assert not missing, ("cross rules not firing on the a2a3 run", missing, sorted(main))
assert "X4" in a5, ("X4 not firing on the a5 run", sorted(a5))
assert {"X1", "X3", "X5"} <= aug, ("X5 not firing on the August run", sorted(aug))
# Every tier of the guide shows: schedule (swimlane) and pipeline findings, and the memory,
# hints and PMU sections.
bench = json.load(open(os.path.join(scratch, "bench.json")))
median = bench["cases"][0]["blocks"][0]["effective_us"]["median"]
assert abs(median - 59.7) <= 0.05 * 59.7, ("[STRACE] effective_us median", median, "capture window 59.7 us")
xs = lambda found: sorted(c for c in found if c.startswith("X"))
print("ok: July a2a3 run fires", xs(main), "; a5 run", xs(a5), "; August run", xs(aug))
PY
