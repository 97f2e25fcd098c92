#!/usr/bin/env bash
# From 4,096 task rows on, the builder makes the task slices' labels and fan hints on a second
# thread while it makes the slices (trace/builder_tasks.cpp, kLabelsBesideFrom). On a generated
# capture above that: every task slice is named by its kernel from the name map (`_spmd` added
# for an SPMD task) and by the task its own event-hint names, and every arrow a fan hint lists
# is listed the other way round by the task at its other end.
set -e
source "$(dirname "$0")/lib/common.sh"
gen=$2/tools/swimlane_gen
[ -x "$gen" ] || exit 77
"$gen" --tasks 5000 --spmd-every 3 --out "$tmp/capture" >/dev/null
"$ptune" swimlane-merge "$tmp/capture" -o "$tmp/trace.json" >/dev/null
python3 - "$tmp/trace.json" "$tmp/capture/name_map_Synthetic.json" <<'PY'
import json, re, sys
trace = json.load(open(sys.argv[1]))
kernels = json.load(open(sys.argv[2]))["callable_id_to_name"]
name_re = re.compile(r"^(.+?)(_spmd)?\((r\d+t\d+)\)$")
hint_re = re.compile(r"^Task:(r\d+t\d+), FuncId:(\d+), CoreId:\d+$")
fan_re = re.compile(r"^(\d+): \[(.*)\]$")
rows = spmd = 0
fanout, fanin = {}, {}
for e in trace["traceEvents"]:
    args = e.get("args", {})
    if e.get("ph") != "X" or "event-hint" not in args or "fanout-hint" not in args:
        continue
    rows += 1
    name = name_re.match(e["name"])
    hint = hint_re.match(args["event-hint"])
    assert name and hint, (e["name"], args["event-hint"])
    task = hint.group(1)
    assert name.group(3) == task, (e["name"], args["event-hint"])
    assert name.group(1) == kernels[hint.group(2)], (e["name"], args["event-hint"])
    spmd += name.group(2) is not None
    for table, key in ((fanout, "fanout-hint"), (fanin, "fanin-hint")):
        m = fan_re.match(args[key])
        assert m, args[key]
        listed = [t for t in m.group(2).split(", ") if t]
        assert table.setdefault(task, listed) == listed, (task, key)
assert rows >= 4096, f"{rows} task slices: below the second thread's threshold"
assert 0 < spmd < rows, f"{spmd} SPMD slices of {rows}"
pairs_out = {(a, b) for a, succ in fanout.items() for b in succ}
pairs_in = {(a, b) for b, pred in fanin.items() for a in pred}
assert pairs_out and pairs_out == pairs_in, "fan-out and fan-in hints disagree"
print(f"ok: {rows} task slices ({spmd} SPMD), {len(pairs_out)} arrows in the fan hints")
PY
