#!/usr/bin/env python3
"""Writes the composed two-run capture (README.md here) from the composed single-run sample.

    make_two_runs.py COMPOSED_DIR OUT_DIR

COMPOSED_DIR is fixtures/swimlane/composed (the same files as tests/data/swimlane/). The
capture is rewritten in the September 2026 shape (upstream-2026-09.md §1.1-§1.5: runtime named,
7-column aicore rows, scheduler_tasks, scheduler_records streams, run_epoch on every row and
record) twice: run_epoch 11 as composed, run_epoch 12 the same records SHIFT cycles later, with
reg_task_id starting over as a re-run does. `one_run/` holds run 11 alone.
"""
import json
import os
import sys

SHIFT = 4000  # cycles at 50 MHz = 80 us; run 11 ends 62.8 us after its first record
EPOCHS = (11, 12)


def rows(doc, epochs):
    aicore, sched = [], []
    for k, epoch in enumerate(epochs):
        d = k * SHIFT
        aicore += [[c, t, reg, s + d, e + d, r, epoch] for c, t, reg, s, e, r in doc["aicore_tasks"]]
        sched += [[c, reg, s + d, f + d, epoch] for c, reg, s, f in doc["aicpu_tasks"]]
    aicore.sort(key=lambda row: (row[0], row[6], row[3]))  # grouped by core, as the writer does
    sched.sort(key=lambda row: (row[0], row[4], row[2]))
    return aicore, sched


METRIC_KEYS = ("pop_hit", "pop_miss", "shared_at_start", "shared_at_end")


def streams(doc, epochs):
    out = []
    for thread, phases in enumerate(doc["aicpu_scheduler_phases"]):
        records, metrics = [], []
        for k, epoch in enumerate(epochs):
            for p in phases:
                metric = {key: p[key] for key in METRIC_KEYS if key in p}
                if metric:
                    metrics.append(dict(record_index=len(records), **metric))
                records.append({"start_cycles": p["start_cycles"] + k * SHIFT,
                                "end_cycles": p["end_cycles"] + k * SHIFT, "run_epoch": epoch,
                                "loop_iter": p["loop_iter"], "kind": p["kind"],
                                "tasks_processed": p["tasks_processed"],
                                "task_id": p.get("task_id")})
        out.append((thread, records, metrics))
    return out


def write(doc, epochs, path):
    aicore, sched = rows(doc, epochs)
    meta = dict(runtime="tensormap_and_ringbuffer", **doc["metadata"])
    lines = ["{", '  "chip_swimlane_level": 4,', '  "metadata": {']
    lines.append(",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in meta.items()))
    lines += ["  },", '  "aicore_tasks": [']
    lines.append(",\n".join("    " + json.dumps(r) for r in aicore))
    lines += ["  ],", '  "scheduler_tasks": {"producer": "aicpu", "records": [']
    lines.append(",\n".join("    " + json.dumps(r) for r in sched))
    lines += ["    ]},", '  "scheduler_records": {"streams": [']
    blocks = []
    for thread, records, metrics in streams(doc, epochs):
        head = (f'    {{"platform": "a2a3", "producer": "aicpu", "scheduler_id": {thread}, '
                f'"worker_id": {thread}, "core_type": "aicpu", "physical_core_id": null, '
                f'"capture": {{"committed": {len(records)}, "dropped": 0, "truncated": false}}, '
                '"records": [')
        body = ",\n".join("        " + json.dumps(r) for r in records)
        mbody = ",\n".join("        " + json.dumps(m, separators=(", ", ": ")).replace(", 0, ", ",0,")
                           for m in metrics)
        blocks.append(head + ("\n" + body + "\n    " if records else "") + '], "metrics": [' +
                      ("\n" + mbody + "\n    " if metrics else "") + "]}")
    lines.append(",\n".join(blocks))
    lines += ["  ]},", '  "aicpu_orchestrator_phases": [', "    ["]
    orch = []
    for k, epoch in enumerate(epochs):
        for p in doc["aicpu_orchestrator_phases"][0]:
            orch.append({"submit_idx": p["submit_idx"], "task_id": p["task_id"],
                         "start_cycles": p["start_cycles"] + k * SHIFT,
                         "end_cycles": p["end_cycles"] + k * SHIFT, "run_epoch": epoch})
    lines.append(",\n".join("      " + json.dumps(o) for o in orch))
    lines += ["    ]", "  ]", "}"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(src, "chip_swimlane_records.json")) as f:
        doc = json.load(f)
    write(doc, EPOCHS, os.path.join(out, "chip_swimlane_records.json"))
    write(doc, EPOCHS[:1], os.path.join(out, "one_run", "chip_swimlane_records.json"))


if __name__ == "__main__":
    main()
