#!/usr/bin/env python3
"""Writes the composed ciresult test data from upstream-2026-12.md §1.9 and §2.11 (see README.md).
Run from this folder; the output is committed, this script documents how it was made."""
import copy, hashlib, json, os

def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

def dump(obj):
    return json.dumps(obj, indent=2, allow_nan=False) + "\n"

# §1.9 manifest and results
manifest = {"platform": "a2a3", "sampling": {"rounds": 3, "warmup": 2}, "cases": [
    {"case_id": "tp2-demo", "entrypoint": "models/demo.py", "device_count": 2, "arguments": []},
    {"case_id": "l2-demo", "entrypoint": "models/demo2.py", "device_count": 1, "arguments": []}]}
def bench(samples, **flags):
    b = {"rounds": 3, "warmup": 2, "fallback_flattened": False, "unstable_dispatch_slots": False,
         "all_zero_device": False, "samples": samples}
    b.update(flags)
    return {"passed": True, "error": None, "benchmark": b}
tp2 = [{"3229451": [100.0, 7.0], "3229452": [110.0, 6.0]},
       {"3229451": [102.0, 7.0], "3229452": [111.0, 6.0]},
       {"3229451": [98.0, 8.0], "3229452": [109.0, 6.0]}]
l2 = [{"4100": [505.1]}, {"4100": [512.3]}, {"4100": [501.2]}]
report = "| Case | Effective (us) |\n| --- | --- |\n| tp2-demo | {} |\n| l2-demo | {} |\n"

# daily/: the §1.9 example as ci_perf.py's <OUT> (perf_cases.json copied next to published/)
write("daily/perf_cases.json", dump(manifest))
write("daily/published/report.md", report.format("107.33", "505.10"))
write("daily/published/tp2-demo/raw-result.json", dump(bench(tp2)))
write("daily/published/l2-demo/raw-result.json", dump(bench(l2)))
# daily-fail/: the FAIL variant (unstable_dispatch_slots true)
write("daily-fail/perf_cases.json", dump(manifest))
write("daily-fail/published/report.md", report.format("FAIL", "505.10"))
write("daily-fail/published/tp2-demo/raw-result.json", dump(bench(tp2, unstable_dispatch_slots=True)))
write("daily-fail/published/l2-demo/raw-result.json", dump(bench(l2)))
# daily-slow/: the next day, tp2-demo 30 % slower on both ranks in every round
slow = [{k: [round(v * 1.3, 6) for v in vals] for k, vals in r.items()} for r in tp2]
write("daily-slow/perf_cases.json", dump(manifest))
write("daily-slow/published/report.md", report.format("139.53", "505.10"))
write("daily-slow/published/tp2-demo/raw-result.json", dump(bench(slow)))
write("daily-slow/published/l2-demo/raw-result.json", dump(bench(l2)))
# daily-bad/: a report.md that disagrees, a bad row, a killed job's '-' row and a broken raw-result
write("daily-bad/perf_cases.json", dump(manifest))
write("daily-bad/published/report.md",
      "| Case | Effective (us) |\n| --- | --- |\n| tp2-demo | 107.99 |\n| l2-demo | - |\n| extra | 1,5 |\n")
write("daily-bad/published/tp2-demo/raw-result.json", dump(bench(tp2)))
write("daily-bad/published/l2-demo/raw-result.json", '{"passed": true, "error": null, "benchmark": {"rounds": 3,\n')

# §2.11 operator suite
case = {"case_id": "demo-attention-8k", "model": "mtp", "entrypoint": "models/x/decode.py", "device_count": 1,
        "arguments": ["--start-pos", "8192"], "workload": {"scenario_context": 8192},
        "required_specs": {"x_out": {"shape": [8, 4, 4096], "dtype": "torch.float32"}},
        "required_outputs": ["x_out"],
        "run_config": {"ring_task_window": 16384, "ring_dep_pool": 16384, "ring_heap": 1073741824}}
metric = {"unit": "us", "aggregation": "minimum_rank_median", "dispatch_policy": "sum_all_stable_dispatches",
          "includes_signal_cleanup": True}
sampling = {"seed": 1807, "rounds": 100, "warmup": 5, "raw": True}
contract = hashlib.sha256(json.dumps([case, metric, sampling, "dsv4-operators-whole-dispatch-v2"],
                                     sort_keys=True, allow_nan=False).encode()).hexdigest()
assert contract == "51b619abd3e9120a0d3d86fb44ee4dbd263e9ae4497ad16da84693255ed650fb", contract
toolchain = {"pypto": "p1", "runtime": "r1", "pto_isa": "i1", "ptoas_version": "1.0", "bundle": "b1",
             "python": "3.11.9", "torch": "2.4.0", "numpy": "1.26.4", "cann_sha256": "c" * 64,
             "driver_sha256": "d" * 64}
identity = {"hostname": "npu-host-1", "device_epoch": "a2a3-even-v1", "device_id_domain": "host", "selected": [4]}
def ranks(offsets):
    out = []
    for pid, fn in offsets:
        totals = [fn(r) + 7.0 for r in range(100)]
        s = sorted(totals)
        med = (s[49] + s[50]) / 2
        comp = [fn(r) for r in range(100)]
        sc = sorted(comp)
        out.append({"trace_pid": pid, "median_us": med, "samples_us": totals, "dispatches": [
            {"slot": 0, "task": "compute", "samples_us": comp, "median_us": (sc[49] + sc[50]) / 2},
            {"slot": 1, "task": "clear", "samples_us": [7.0] * 100, "median_us": 7.0}]})
    return out
def record(run_id, date, **over):
    rec = {"case_id": "demo-attention-8k", "run_id": run_id, "status": "pass", "logical_date": date,
           "variant": "ci", "devices": [4], "case_contract": contract, "measurement_case": "demo-attention-8k",
           "measurement_id": run_id + "/demo-attention-8k", "shared_measurement": False,
           "source_sha": "a" * 40, "toolchain": toolchain, "device_identity": identity,
           "fixture_sha256": "f" * 64, "golden_sha256": "9" * 64, "wall_seconds": 312.4}
    rec.update(over)
    return rec
def suite(run_id, date, cases):
    return {"schema_version": 1, "suite_id": "dsv4-operators", "run_id": run_id, "logical_date": date,
            "variant": "ci", "status": "pass" if all(c["status"] == "pass" for c in cases) else "incomplete",
            "coverage_complete": all(c["status"] == "pass" for c in cases), "sampling": sampling,
            "cases": cases}
base_ranks = ranks([("10", lambda r: 98.0 + (r % 2)), ("11", lambda r: 108.0)])  # median 105.5 / 115.0
cur_ranks = ranks([("10", lambda r: 110.0), ("11", lambda r: 100.0 + (r % 2))])
base_ranks = ranks([("10", lambda r: 98.0), ("11", lambda r: 108.0)])           # 105.0 / 115.0
timeout_base = record("20261203T020000Z-1a2b3c4d", "2026-12-03", case_id="demo-moe-8k", metric_us=210.0,
                      max_rank_median_us=210.0, rank_spread_us=0.0, ranks=[])
baseline = suite("20261203T020000Z-1a2b3c4d", "2026-12-03", [
    record("20261203T020000Z-1a2b3c4d", "2026-12-03", metric_us=105.0, max_rank_median_us=115.0,
           rank_spread_us=10.0, ranks=base_ranks),
    timeout_base,
    dict(record("20261203T020000Z-1a2b3c4d", "2026-12-03", case_id="demo-moe-128k", metric_us=210.0,
                max_rank_median_us=210.0, rank_spread_us=0.0, ranks=[]),
         measurement_case="demo-moe-8k", shared_measurement=True)])
current_case = record("20261204T020000Z-5e6f7a8b", "2026-12-04", metric_us=107.5, max_rank_median_us=117.0,
                      rank_spread_us=9.5, ranks=cur_ranks)
timeout_cur = record("20261204T020000Z-5e6f7a8b", "2026-12-04", case_id="demo-moe-8k", status="timeout",
                     error="case wall limit 1800 s exceeded", wall_seconds=1800.0)
shared_cur = dict(timeout_cur, case_id="demo-moe-128k", measurement_case="demo-moe-8k", shared_measurement=True)
write("suite-a/suite-result.json", dump(baseline))
write("suite-b/suite-result.json", dump(suite("20261204T020000Z-5e6f7a8b", "2026-12-04",
                                              [current_case, timeout_cur, shared_cur])))
other_golden = copy.deepcopy(current_case)
other_golden["golden_sha256"] = "8" * 64
write("suite-b-golden/suite-result.json", dump(suite("20261204T020000Z-5e6f7a8b", "2026-12-04",
                                                     [other_golden])))
write("suite-b-golden/execution.json", dump({"phase": "complete", "errors": [], "suite_exit_code": 0,
                                             "step_outcome": "success"}))

# daily/published/tp2-demo/run.log: §1.7 task-slot lines and seed sentinels (composed; the
# numbers are illustrative, printed .1f as the runner does), among other harness lines
write("daily/published/tp2-demo/run.log", """[perf] tp2-demo: running on 2 device(s)
[PERF] deterministic_seed seed=1807 python_hash_seed=1807
[RUN] fixture seed=1807 python_hash_seed=0
[VALIDATION] mode=golden reference=torch
[RUN]   task slots: ranks=2
[RUN]     rank 3229451 task_slot 0: n=3 fin_us=100.0 dur_us=99.0
[RUN]       raw fin_us=[102.0, 100.0, 98.0]
[RUN]     rank 3229451 task_slot 1: n=3 fin_us=107.0 dur_us=7.0 dfin_us=7.0
[RUN]       raw fin_us=[109.0, 107.0, 106.0]
[RUN]     rank 3229452 task_slot 0: n=3 fin_us=110.0 dur_us=109.5
[RUN]     rank 3229452 task_slot 1: n=3 fin_us=116.0 dur_us=6.0 dfin_us=6.0
[perf] tp2-demo: 107.33 us
""")
# daily-bad/published/tp2-demo/run.log: a slot line cut short, a raw list of the wrong length,
# a raw list without its slot, ranks=3 with two ranks seen
write("daily-bad/published/tp2-demo/run.log", """[RUN]   task slots: ranks=3
[RUN]     rank 3229451 task_slot 0: n=3 fin_us=100.0 dur_us=
[RUN]       raw fin_us=[102.0, 100.0, 98.0]
[RUN]     rank 3229451 task_slot 1: n=3 fin_us=107.0 dur_us=7.0 dfin_us=7.0
[RUN]       raw fin_us=[109.0, 107.0]
[RUN]     rank 3229452 task_slot 0: n=3 fin_us=110.0 dur_us=109.5
""")

# suite-raw/: the §2.11 benchmark grid as the operator suite's raw-result.json (§2.3): pid "10"
# compute 110.0 + clear 7.0, pid "11" compute 100.0 + (r mod 2) + clear 7.0, 100 rounds
def suite_raw(extra_dispatch_round=None):
    samples = []
    for r in range(100):
        rnd = {}
        for pid, compute in (("10", 110.0), ("11", 100.0 + (r % 2))):
            rnd[pid] = [{"inv": 2 * r, "task": "compute", "effective_us": compute, "task_name": "compute"},
                        {"inv": 2 * r + 1, "task": "clear", "effective_us": 7.0, "task_name": "clear"}]
            if pid == "11" and r == extra_dispatch_round:
                rnd[pid].append({"inv": 1000, "task": "clear", "effective_us": 7.0, "task_name": "clear"})
        samples.append(rnd)
    return {"case_id": "demo-attention-8k", "sampling": sampling, "passed": True, "run_config": case["run_config"],
            "fixture_sha256": "f" * 64, "golden_sha256": "9" * 64, "error": None,
            "specs": [{"name": "x_out", "shape": [8, 4, 4096], "dtype": "torch.float32", "direction": "out",
                       "resident": False}], "work_dir": None,
            "benchmark": {"rounds": 100, "warmup": 5, "fallback_flattened": False, "unstable_dispatch_slots": False,
                          "all_zero_device": False, "distributed_grid": True, "samples": samples}}
write("suite-raw/demo-attention-8k/raw-result.json", dump(suite_raw()))
# the §2.11 FAIL variant: round 40 of pid "11" carries a third dispatch
write("suite-raw-extra-dispatch/demo-attention-8k/raw-result.json", dump(suite_raw(extra_dispatch_round=40)))

# suite-v2-published/: a published v2 operator suite folder (§2.9) rendered from suite-b against
# suite-a: suite-result.json with `previous`, its report.md, the manifest beside (as a user puts
# it; upstream keeps it in .github/scripts/), the attention case's raw-result.json and
# measurement.json. suite-v2-drift/: the same with report.md's us cell edited, a bad cell and a
# manifest whose attention case has another ring_heap (so its case_contract differs).
def contract_of(c, contract_id="dsv4-operators-whole-dispatch-v2"):
    return hashlib.sha256(json.dumps([c, metric, sampling, contract_id], sort_keys=True,
                                     allow_nan=False).encode()).hexdigest()
moe_case = {"case_id": "demo-moe-8k", "model": "mtp", "entrypoint": "models/x/moe.py", "device_count": 1,
            "arguments": ["--balanced-routing"], "workload": {"scenario_context": 8192, "routing": "balanced"},
            "required_specs": {"x_next": {"shape": [8, 4096], "dtype": "torch.bfloat16"}},
            "required_outputs": ["x_next"], "run_config": {}}
moe128_case = dict(moe_case, case_id="demo-moe-128k", workload={"scenario_context": 131072, "routing": "balanced"},
                   measurement_case="demo-moe-8k")
def op_manifest(cases):
    return {"platform": "a2a3", "sampling": sampling, "schema_version": 1, "suite_id": "dsv4-operators",
            "contract_id": "dsv4-operators-whole-dispatch-v2", "metric": metric,
            "device_profile": {"schema_version": 1, "device_epoch": "a2a3-even-v1", "device_id_domain": "host",
                               "sequences": {"1": [4], "8": [0, 2, 4, 6, 8, 10, 12, 14]}},
            "cases": cases}
prev_ok = {"delta_pct": (107.5 / 105.0 - 1) * 100, "baseline_run_id": "20261203T020000Z-1a2b3c4d",
           "baseline_date": "2026-12-03", "scope": "ci_stack", "changed_components": []}
prev_na = {"delta_pct": None, "reason": "no passing baseline/current result"}
week_na = {"delta_pct": None, "reason": "no passing baseline/current result"}
pub_att = dict(current_case, previous=prev_ok, week=week_na)
pub_moe = dict(timeout_cur, case_contract=contract_of(moe_case), previous=prev_na, week=week_na)
pub_128 = dict(shared_cur, case_contract=contract_of(moe128_case), previous=prev_na, week=week_na)
pub_suite = suite("20261204T020000Z-5e6f7a8b", "2026-12-04", [pub_att, pub_moe, pub_128])
pub_suite.update({"execution_count": 2, "golden_replayed": False})
def op_report(rows, us_override=None):
    def f2(v): return "N/A" if v is None else "%.2f" % v
    def chg(c): return "N/A" if c["delta_pct"] is None else "%+.2f%%" % c["delta_pct"]
    lines = ["Operator performance: 2026-12-04 (CI)",
             "Run: `20261204T020000Z-5e6f7a8b`; status: **incomplete**.", "",
             "Metric: minimum rank median of summed operator dispatch Effective times (us).",
             "Communication and signal cleanup are included; this is not model step latency.", "",
             "Sampling: warmup=5, rounds=100; golden replayed=False. 2 measurements, 3 report rows.",
             "Shared rows reference one measurement, not independent samples. Wall time excludes queue wait.", "",
             "| Case | Devices | Status | us | Rank spread us | Wall s | Measurement | Previous change | Week change |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        passed = r["status"] == "pass"
        us = f2(r.get("metric_us") if passed else None)
        if us_override and r["case_id"] in us_override: us = us_override[r["case_id"]]
        meas = "shared: " + r["measurement_case"] if r["shared_measurement"] else r["case_id"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case_id"], ",".join(str(d) for d in r["devices"]), r["status"], us,
            f2(r.get("rank_spread_us") if passed else None), "%.1f" % r["wall_seconds"], meas,
            chg(r["previous"]), chg(r["week"])))
    lines += ["", "Changes describe the complete CI software stack, not an isolated kernel edit.",
              "Positive changes mean slower. N/A means missing or incompatible evidence.", ""]
    for r in rows:
        if r.get("error"): lines.append("- %s: %s" % (r["case_id"], r["error"]))
    for r in rows:
        p = r["previous"]
        lines.append("- %s previous: %s" % (r["case_id"], p.get("reason") or
                     "baseline run %s; changed components: none" % p["baseline_run_id"]))
    lines += ["Provisional limits (seconds): {'case': 1800, 'queue': 3600, 'suite': 10800}. "
              "Calibrate using measured wall times.",
              "CI execution: suite exit=1; wrapper step=failure.",
              "- suite: demo-moe-8k timed out"]
    return "\n".join(lines) + "\n"
def measurement(rec, **over):
    keys = ("case_id", "status", "wall_seconds", "error", "metric_us", "max_rank_median_us", "rank_spread_us",
            "ranks", "fixture_sha256", "golden_sha256")
    out = {"safe_to_continue": True, "golden_replayed": False, "task_id": None, "process_rc": 0, "timed_out": False}
    out.update({k: rec[k] for k in keys if k in rec})
    out.update(over)
    return out
write("suite-v2-published/suite-result.json", dump(pub_suite))
write("suite-v2-published/report.md", op_report([pub_att, pub_moe, pub_128]))
write("suite-v2-published/operator_perf_cases.json", dump(op_manifest([case, moe_case, moe128_case])))
write("suite-v2-published/demo-attention-8k/raw-result.json", dump(suite_raw()))
write("suite-v2-published/demo-attention-8k/measurement.json", dump(measurement(pub_att)))
# §2.9's submission.json and history-selection.json (values composed): the run's identity, the
# previous baseline loaded (suite-a's run), the week's not found.
write("suite-v2-published/submission.json", dump({
    "command": ["python3", ".github/scripts/operator_perf.py", "run", "--variant", "ci"],
    "ci": {"repository": "example/pypto-lib", "workflow_run_id": 20261204001, "run_attempt": 2,
           "head_sha": "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f", "head_branch": "main",
           "workflow_path": ".github/workflows/operator-perf.yml"},
    "logical_date": "2026-12-04"}))
write("suite-v2-published/history-selection.json", dump({
    "previous": {"run_id": "20261203T020000Z-1a2b3c4d", "path": "history/2026-12-03/attempt-1",
                 "date": "2026-12-03", "attempt": 1},
    "week": {"run_id": "20261127T020000Z-0f1e2d3c", "path": "history/2026-11-27/attempt-1",
             "date": "2026-11-27", "attempt": 1, "reason": "artifact expired"}}))
drift_case = copy.deepcopy(case)
drift_case["run_config"]["ring_heap"] = 2147483648
write("suite-v2-drift/suite-result.json", dump(pub_suite))
write("suite-v2-drift/report.md", op_report([pub_att, pub_moe, pub_128],
                                             us_override={"demo-attention-8k": "107.99", "demo-moe-8k": "1,5"}))
# §2.10-style bad side files: submission.json cut off (a warning, the suite stands), a failed
# history lookup.
write("suite-v2-drift/submission.json", dump({"command": ["python3"], "logical_date": "2026-12-04"})[:30])
write("suite-v2-drift/history-selection.json", dump({"lookup": {"reason": "no successful run on main"}}))
write("suite-v2-drift/operator_perf_cases.json", dump(op_manifest([drift_case, moe_case, moe128_case])))
# suite-work/work/: a suite that died before publishing: one measurement passed, one device
# fault (its run.log matched the fault pattern), one left `running`
write("suite-work/work/demo-attention-8k/measurement.json", dump(measurement(pub_att)))
write("suite-work/work/demo-moe-8k/measurement.json", dump(measurement(
    {"case_id": "demo-moe-8k", "status": "device_fault", "wall_seconds": 95.2,
     "error": "run.log: rtStreamSynchronize failed: 507035"}, safe_to_continue=False, process_rc=1,
    recovery_verified=False)))
write("suite-work/work/demo-lm-8k/measurement.json", dump(measurement(
    {"case_id": "demo-lm-8k", "status": "running"}, process_rc=None, timed_out=None)))
# suite-raw-request/: the §2.11 raw-result.json with ring_heap other than the manifest's request
raw_other = suite_raw()
raw_other["run_config"] = dict(case["run_config"], ring_heap=536870912)
write("suite-raw-request/operator_perf_cases.json", dump(op_manifest([case])))
write("suite-raw-request/demo-attention-8k/raw-result.json", dump(raw_other))
# suite-v2-report/: the published report.md alone (values only); suite-v2-report-slow/: the same
# with the attention case at 140.00 (+30.2 %, above the gate's hard threshold)
write("suite-v2-report/report.md", op_report([pub_att, pub_moe, pub_128]))
write("suite-v2-report-slow/report.md", op_report([pub_att, pub_moe, pub_128],
                                                   us_override={"demo-attention-8k": "140.00"}))
# daily-moderate/: report.md alone with tp2-demo at 118.00 (+9.9 %: beyond the 5 % tolerance,
# below the 25 % hard threshold)
write("daily-moderate/published/report.md", report.format("118.00", "505.10"))
