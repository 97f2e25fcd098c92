#!/usr/bin/env python3
"""Composes the lane fixtures of upstream-2026-12.md §3.5/§3.7 (synthetic; see README.md).

Writes one lane suite-result.json per attempt (shadow/NN/, candidate/, abba-*/), journals and
the epoch-change run. Re-run from this folder: python3 make_lane.py"""
import hashlib, json, os

CONTRACT = "dsv4-main-attention-v1"
CASE = "attention-csa"
SPEC_HASH = hashlib.sha256(b"composed manifest of the ptune lane fixtures").hexdigest()


def case_result(metric_us, status="pass", error=None, case=CASE):
    if status != "pass" or metric_us is None:
        return {"case_id": case, "contract_id": f"{CONTRACT}:{case}",
                "entrypoint": "models/deepseek_v4_flash_mtp/decode_csa.py", "metric": None,
                "metric_us": None, "process_rc": 1 if status == "fail" else 0,
                "rank_diagnostics": [], "status": status,
                "validation": {"error": error or "process failed", "outputs": [], "status": "fail"}}
    m = round(metric_us, 1)
    metric = {"aggregation": "median", "maximum": round(m + 4.0, 1), "mean": round(m + 0.3, 1),
              "median": m, "minimum": round(m - 1.5, 1), "name": "effective_us",
              "sample_count": 100, "unit": "us"}
    return {"case_id": case, "contract_id": f"{CONTRACT}:{case}",
            "entrypoint": "models/deepseek_v4_flash_mtp/decode_csa.py", "metric": metric,
            "metric_us": m, "process_rc": 0,
            "rank_diagnostics": [{"device_id": 3, "logical_rank": 0, "maximum": metric["maximum"],
                                  "mean": metric["mean"], "median": m,
                                  "minimum": metric["minimum"], "pid": 4242,
                                  "sample_count": 100, "samples_us": []}],
            "status": "pass",
            "validation": {"outputs": [{"dtype": "bfloat16", "name": "kv_cache", "shape": [1, 8],
                                        "status": "pass"},
                                       {"dtype": "bfloat16", "name": "x_out", "shape": [1, 8],
                                        "status": "pass"}], "status": "pass"}}


def suite(cases, toolchain="cann-8.1", device="dev-e1", tree="4b825dc6", commit="c0ffee01"):
    return {"schema_version": 1, "suite_id": "dsv4-main-attention", "lane_id": "lib-main-attention",
            "contract_id": CONTRACT, "contract": {"id": CONTRACT, "spec_hash": SPEC_HASH},
            "status": "pass" if all(c["status"] == "pass" for c in cases) else "fail",
            "coverage": {"complete": True, "required_case_ids": [CASE],
                         "selected_case_ids": [CASE]},
            "source": {"commit": commit, "tree": tree, "branch": "main", "clean": True,
                       "status_sha256": "0" * 64, "status_porcelain": []},
            "toolchain": {"epoch": toolchain, "python": "3.11.9", "pypto_sha": "1685067f",
                          "cann": "8.1.RC1", "driver": "25.0", "firmware": "7.5",
                          "host": {"hostname": "npu-07", "kernel": "5.10", "architecture": "aarch64"}},
            "device": {"epoch": device, "platform": "a2a3", "ordered_devices": [3],
                       "mapping_basis": "ordered_logical_rank_to_ordered_device_set",
                       "task_device": 3, "physical_mapping_available": False},
            "sampling": {"warmup": 5, "rounds": 100, "python_hash_seed": 1807},
            "started_at_utc": "2026-11-30T01:00:00Z", "finished_at_utc": "2026-11-30T01:20:00Z",
            "cases": cases}


def write(path, document):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as out:
        out.write(json.dumps(document, indent=2, sort_keys=True) + "\n")


def line(document):
    return json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"


for i in range(10):  # §3.7: ten shadow attempts, medians 540.0 ... 549.0
    write(f"shadow/{i + 1:02d}/suite-result.json", suite([case_result(540.0 + i)]))
write("candidate/suite-result.json", suite([case_result(560.0)], commit="c0ffee02"))
write("steady/suite-result.json", suite([case_result(545.0)], commit="c0ffee02"))
write("toolchain-8.2/suite-result.json", suite([case_result(530.0)], toolchain="cann-8.2"))
write("invalid/suite-result.json",
      suite([case_result(None, "invalid_metric", "expected exactly one effective_us headline, found 0")]))
for name, values in {"abba-confirmed": [545.1, 559.8, 561.2, 544.7],
                     "abba-not-confirmed": [545.1, 559.8, 549.0, 544.7]}.items():
    for role, value in zip(["1-parent", "2-candidate", "3-candidate", "4-parent"], values):
        write(f"{name}/{role}/suite-result.json", suite([case_result(value)]))
write("abba-mixed-epoch/4-parent/suite-result.json",
      suite([case_result(544.7)], device="dev-e2"))
# Journals: retries (a failure, then a success that is kept over a later retry), the composed
# invalid_metric line of §3.7, junk lines and a truncated tail.
with open("journal.jsonl", "w") as out:
    out.write(line(case_result(None, "fail", "process_rc 1")))
    out.write(line(case_result(546.0)))
    out.write(line(case_result(551.0)))  # a retry after a success: never replaces it
    out.write(line(case_result(None, "invalid_metric",
                               "expected exactly one effective_us headline, found 0",
                               case="attention-hca")))
with open("journal-bad.jsonl", "w") as out:
    out.write(line(case_result(546.0)))
    out.write("not json at all\n")
    out.write("[1, 2, 3]\n")
    out.write('{"status":"pass","metric_us":1.0}\n')
    out.write(line(case_result(547.0, case="attention-swa")))
    out.write(line(case_result(548.0, case="attention-hca"))[:60])  # still being appended
# The composed journal line of §3.7, exact bytes.
with open("composed-invalid.jsonl", "w") as out:
    out.write('{"case_id":"attention-csa","contract_id":"dsv4-main-attention-v1:attention-csa",'
              '"entrypoint":"models/deepseek_v4_flash_mtp/decode_csa.py","metric":null,'
              '"metric_us":null,"process_rc":0,"rank_diagnostics":[],"status":"invalid_metric",'
              '"validation":{"error":"expected exactly one effective_us headline, found 0",'
              '"outputs":[],"status":"fail"}}\n')
