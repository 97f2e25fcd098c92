#!/usr/bin/env bash
# examples/build_output is ONE program described alike by every artifact (examples/compose.py):
# the same kernels in the name map, kernel_config.py, pmu.csv, the memory report and the hint
# sites (through the readable kernel source), and `ptune advise` fires every cross-artifact rule
# on it (X1, X2, X3, X5, X6 on the a2a3 run, X4 on the a5 run of the same program).
set -eu
ptune=$1
cd "$(dirname "$0")/../.."
examples=examples/build_output
run=$examples/PagedAttn_20260715_103000
run_a5=$examples/PagedAttn_20260714_160000
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The composer reproduces what is committed (nothing edited by hand afterwards).
cp -r examples "$scratch/examples"
python3 "$scratch/examples/compose.py"
diff -r examples/build_output "$scratch/examples/build_output"

"$ptune" advise "$examples" --format json >"$scratch/advise.json" || [ $? -eq 1 ]
"$ptune" advise "$run_a5" --format json >"$scratch/advise_a5.json" || [ $? -eq 1 ]
"$ptune" pmu-analyze "$run/dfx_outputs/pmu.csv" --format json >"$scratch/pmu.json" || [ $? -eq 1 ]

python3 - "$scratch" "$run" <<'PY'
import json, os, re, sys
scratch, run = sys.argv[1], sys.argv[2]
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
for line in open(os.path.join(run, "report", "perf_hints.log")):
    m = re.search(r" at (\S+):(\d+):(\d+)$", line.strip())
    assert m and m.group(1) == "models/paged_attn.py", line
    number = int(m.group(2))
    defs = [l for l in source[:number] if l.startswith("def ")]
    assert defs, line
    assert re.match(r"def (\w+)\(", defs[-1]).group(1) in names, line

def fired(path):
    data = json.load(open(path))
    return {f.get("catalogue") for f in data["findings"]} - {None, ""}
main, a5 = fired(os.path.join(scratch, "advise.json")), fired(os.path.join(scratch, "advise_a5.json"))
missing = {"X1", "X2", "X3", "X5", "X6"} - main
assert not missing, ("cross rules not firing on the a2a3 run", missing, sorted(main))
assert "X4" in a5, ("X4 not firing on the a5 run", sorted(a5))
# Every tier of the guide shows: schedule (swimlane) and pipeline findings, and the memory,
# hints and PMU sections.
print("ok: a2a3 run fires", sorted(c for c in main if c.startswith("X")), "; a5 run fires", sorted(c for c in a5 if c.startswith("X")))
PY
