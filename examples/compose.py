#!/usr/bin/env python3
"""Composes examples/build_output: one PyPTO program (PagedAttn, five kernels) described alike by
every artifact ptune reads. Nothing here comes from a device run; see examples/README.md.

    python3 examples/compose.py        (rewrites the files it owns; deterministic)

Kernels (func_id, name, core type) are those of the swimlane capture's name map:
    0 QK (AIC), 1 SF (AIV), 2 PV_cube (AIC), 3 PV_vec (AIV), 4 UP (AIV)
The swimlane capture, deps.json and the name map are the composed fixture
swimlane/composed/ (kept as they are); everything else is written here, following
/work/shared/spec (pmu.md, mem-report.md, perf-hints.md) so that the kernels line up:

  QK       MTE2-bound cube kernel (mte2 0.78 of total cycles) whose Right operand lost its
           second pipeline buffer (PH-MR-001); Mat and Acc under-filled  -> X2, X3
           After pypto's August changes its narrow b_trans K-tile Mat load is flagged too
           (PH001 v3, 128 rows)  -> X1, X5 in build_output_2608/
  SF       softmax: Vec over its limit and PH-MR-001 on its depth-4 pipeline  -> X6
  UP       MTE2-bound vector kernel with 256 B row loads (PH001)  -> X1
  PV_cube  on A5 (the older run): Acc over its 256 KB limit and FIXPIPE busy  -> X4

The runs respect the dating facts of perf-hints.md section 7: a memory report means pypto <=
2026-07-28, so the July runs have PH001 v2 (no `; moves` clause, Mat/Left/Right/Acc tiles
skipped) with 0-based columns; PH001 v3 (`; moves`, GM->Mat loads flagged, 1-based columns) needs
pypto >= 2026-08-13, which no longer writes the memory report: build_output_2608/ holds that run.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "build_output", "PagedAttn_20260715_103000")
RUN_A5 = os.path.join(HERE, "build_output", "PagedAttn_20260714_160000")
RUN_AUG = os.path.join(HERE, "build_output_2608", "PagedAttn_20260820_091500")
SOURCE = "models/paged_attn.py"

KERNELS = [  # func_id, name, core type
    (0, "QK", "aic"),
    (1, "SF", "aiv"),
    (2, "PV_cube", "aic"),
    (3, "PV_vec", "aiv"),
    (4, "UP", "aiv"),
]

COMPOSED = "# COMPOSED for ptune's examples by examples/compose.py (not a captured file)."

# A readable kernel source: the hints point at its lines (the `def` for PH-MR-001, the load or
# store for PH001). PyPTO-style, not executed by anything.
KERNEL_SOURCE = '''# COMPOSED for ptune's examples by examples/compose.py (not a captured file).
# Paged attention decode, one query block against the paged KV cache, written in the style of
# the pypto-lib models. perf_hints.log and the memory report of the example run describe it.
import pypto.language as pl

BLOCK = 64
HEAD_DIM = 128
K_TILE = 64  # PH001: a b_trans Mat load of 128 B rows; 256 (512 B rows) would fill the line


@pl.function(core="aic")
def QK(q: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16], k_cache: pl.Tensor[[HEAD_DIM, HEAD_DIM], pl.BF16],
       scores: pl.Out[pl.Tensor[[BLOCK, HEAD_DIM], pl.FP32]]):
    q_tile = pl.load(q, [0, 0], [BLOCK, HEAD_DIM], target_memory=pl.Mat)
    for k0 in pl.pipeline(0, HEAD_DIM, K_TILE, stage=2):
        k_tile = pl.load(k_cache, [0, k0], [HEAD_DIM, K_TILE], target_memory=pl.Mat, b_trans=True)  # @QK.k_load
        acc = pl.matmul(q_tile, k_tile)
        pl.store(scores, [0, k0], acc)


@pl.function(core="aiv")
def SF(scores: pl.Tensor[[BLOCK, HEAD_DIM], pl.FP32], probs: pl.Out[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16]]):
    for r0 in pl.pipeline(0, BLOCK, 16, stage=4):
        row = pl.load(scores, [r0, 0], [16, HEAD_DIM])  # @SF.row_load
        m = pl.row_max(row)
        e = pl.exp(row - m)
        pl.store(probs, [r0, 0], pl.cast(e / pl.row_sum(e), pl.BF16))


@pl.function(core="aic")
def PV_cube(probs: pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16], v_cache: pl.Tensor[[2 * HEAD_DIM, HEAD_DIM], pl.BF16],
            out: pl.InOut[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.FP32]]):
    p = pl.load(probs, [0, 0], [BLOCK, 2 * HEAD_DIM], target_memory=pl.Mat)
    v = pl.load(v_cache, [0, 0], [2 * HEAD_DIM, HEAD_DIM], target_memory=pl.Mat)
    pl.store(out, [0, 0], pl.matmul(p, v))


@pl.function(core="aiv")
def PV_vec(out: pl.InOut[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.FP32]]):
    pl.store(out, [0, 0], pl.load(out, [0, 0], [BLOCK, 32]) * 0.5)  # @PV_vec.rescale


@pl.function(core="aiv")
def UP(x: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16], cache: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16],
       out: pl.Out[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16]]):
    pl.store(out, [0, 0], pl.load(x, [0, 0], [BLOCK, HEAD_DIM]))  # @UP.x
    pl.store(out, [0, HEAD_DIM], pl.load(cache, [0, 0], [BLOCK, HEAD_DIM]))  # @UP.cache
'''


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def source_position(marker, op="load", base=1):
    """Line and column (0- or 1-based) of the pl.load / pl.store call on the line a `# @marker`
    comment ends (the PH001 anchor)."""
    for number, line in enumerate(KERNEL_SOURCE.splitlines(), 1):
        if line.rstrip().endswith("# @" + marker):
            return number, line.index("pl.%s(" % op) + base
    raise SystemExit("no marker " + marker)


def def_position(name, base=1):
    """Line and column (0- or 1-based) of `def NAME` (PH-MR-001 points at the function span)."""
    for number, line in enumerate(KERNEL_SOURCE.splitlines(), 1):
        if line.startswith("def " + name + "("):
            return number, base
    raise SystemExit("no def " + name)


# ---------------------------------------------------------------------------------------------
# kernel_config.py (pto_backend.py _generate_config_file shape; read as text).

def kernel_config():
    lines = [COMPOSED,
             "# Shape of build_output/<Program>_<ts>/kernel_config.py as pypto's pto_backend.py writes it:",
             "# one tab-indented dict per kernel, sorted by func_id.",
             "KERNELS = ["]
    for func_id, name, core in KERNELS:
        lines.append('\t{"func_id": %d, "name": "%s", "source": str(_ROOT_DIR / "kernels" / "%s" / "%s.cpp"), '
                     '"core_type": "%s"},' % (func_id, name, core, name, core))
    lines.append("]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# pmu.csv: one row per (core, task) of the swimlane capture, PIPE_UTILIZATION (event 2).

A2A3_HEADER = ("thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_cycles,"
               "scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_req,event_type")
A5_HEADER = ("thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,pmu_idc_aic_vec_busy_o,cube_instr_busy,"
             "scalar_instr_busy,mte1_instr_busy,mte2_instr_busy,mte3_instr_busy,icache_req,icache_miss,"
             "pmu_fix_instr_busy,event_type")

# Busy fractions per kernel: vec, cube, scalar, mte1, mte2, mte3 (and fixpipe on a5).
PROFILE = {
    "QK": (0.00, 0.55, 0.05, 0.30, 0.78, 0.00),
    "SF": (0.80, 0.00, 0.10, 0.00, 0.40, 0.20),
    "PV_cube": (0.00, 0.85, 0.05, 0.45, 0.42, 0.00),
    "PV_vec": (0.45, 0.00, 0.08, 0.00, 0.30, 0.50),
    "UP": (0.30, 0.00, 0.15, 0.00, 0.75, 0.35),
}

# (thread, swimlane core, task id, func_id, duration in µs) of every AICore task of the capture
# (chip_swimlane_records.json, 50 MHz): the same tasks, cores and kernels.
TASK_ROWS = [
    (0, 0, 0x100000001, 0, 10.0),
    (1, 1, 0x100000002, 0, 10.0),
    (0, 3, 0x100000003, 1, 5.0),
    (0, 4, 0x100000003, 1, 5.4),
    (1, 5, 0x100000003, 1, 5.0),
    (1, 6, 0x100000003, 1, 6.0),
    (2, 2, 0x100000005, 2, 8.0),
    (2, 7, 0x100000005, 3, 7.5),
    (2, 8, 0x100000005, 3, 7.5),
    (0, 3, 0x100000006, 4, 30.0),
]
AICORE_MHZ = 1800


def pmu_rows(a5):
    rows = [A5_HEADER if a5 else A2A3_HEADER]
    for i, (thread, core, task, func_id, micros) in enumerate(TASK_ROWS):
        name, core_type = KERNELS[func_id][1], KERNELS[func_id][2]
        total = int(micros * AICORE_MHZ)
        # A little spread between rows of one kernel, as real cores show.
        jitter = 1.0 - 0.01 * (i % 3)
        busy = [int(total * f * jitter) for f in PROFILE[name]]
        vec, cube, scalar, mte1, mte2, mte3 = busy
        req = 200 + total // 50
        miss = 1 + req // 300
        if a5:
            fixpipe = int(total * (0.38 if name == "PV_cube" else 0.12 if core_type == "aic" else 0))
            counters = [vec, cube, scalar, mte1, mte2, mte3, req, miss, fixpipe]
        else:
            counters = [vec, cube, scalar, mte1, mte2, mte3, miss, req]
        fields = [thread, core, "0x%016x" % task, func_id, 0 if core_type == "aic" else 1, total] + counters + [2]
        rows.append(",".join(str(f) for f in fields))
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------------------------------
# memory_after_AllocateMemoryAddr.txt, v3 (mem-report.md §2), a2a3 or a5 limits.

LIMITS = {
    "a2a3": {"Vec": 184 * 1024, "Mat": 512 * 1024, "Left": 64 * 1024, "Right": 64 * 1024, "Acc": 128 * 1024},
    "a5": {"Vec": 240 * 1024, "Mat": 512 * 1024, "Left": 64 * 1024, "Right": 64 * 1024, "Acc": 256 * 1024},
}

# Buffers per kernel and space (bytes), in allocation order.
BUFFERS = {
    "a2a3": {
        # Mat 37.5 %, Acc 25 %: under-filled cube tiles (X2); Right holds one 48 KB stage of two (PH-MR-001).
        "QK": {"Mat": [65536, 65536, 65536], "Left": [16384], "Right": [49152], "Acc": [32768]},
        # Vec over its limit: three 48 KB stages of the row tile and a 44 KB co-resident (X6 with PH-MR-001).
        "SF": {"Vec": [49152, 49152, 49152, 45056]},
        "PV_cube": {"Mat": [131072, 131072], "Left": [32768], "Right": [32768], "Acc": [65536]},
        "PV_vec": {"Vec": [32768, 32768, 8192]},
        "UP": {"Vec": [16384, 16384, 16384, 16384]},
    },
    "a5": {
        "QK": {"Mat": [65536, 65536, 65536], "Left": [16384], "Right": [49152], "Acc": [32768]},
        "SF": {"Vec": [49152, 49152, 49152, 45056]},
        # Acc over 256 KB: the compiler sub-tiles the output and FIXPIPE drains show (X4).
        "PV_cube": {"Mat": [131072, 131072], "Left": [32768], "Right": [32768], "Acc": [147456, 147456]},
        "PV_vec": {"Vec": [32768, 32768, 8192]},
        "UP": {"Vec": [16384, 16384, 16384, 16384]},
    },
}


def size_text(n):
    if n < 1024:
        return "%d B" % n
    if n < 1024 * 1024:
        return "%.1f KB" % (n / 1024)
    return "%.1f MB" % (n / 1024 / 1024)


def memory_report(arch):
    backend = "910B" if arch == "a2a3" else "950"
    out = ["=== Memory Usage Report ===", "Pass: AllocateMemoryAddr", "Backend: " + backend,
           "Functions: %d compute functions" % len(KERNELS)]
    alignment = {"Vec": 128, "Mat": 128, "Left": 64, "Right": 64, "Acc": 128}
    live = 3
    for _, name, _ in KERNELS:
        spaces = BUFFERS[arch][name]
        out += ["", "--- %s ---" % name, "",
                "  Space  |  Used       |  Limit      |  Usage   |  MemRefs",
                "  -------+-------------+-------------+----------+---------"]
        layout = {}
        for space in ["Vec", "Mat", "Left", "Right", "Acc"]:
            if space not in spaces:
                continue
            address, rows = 0, []
            for i, size in enumerate(spaces[space]):
                address = (address + alignment[space] - 1) // alignment[space] * alignment[space]
                rows.append((size, address, address + size))
                address += size
            layout[space] = rows
            limit = LIMITS[arch][space]
            out.append("  %-7s|  %9s  |  %9s  |  %6s  |  %d" % (
                space, size_text(address), size_text(limit), "%.1f%%" % (address / limit * 100), len(rows)))
        prefix = {"Vec": "vec", "Mat": "mat", "Left": "left", "Right": "right", "Acc": "acc"}
        index = 0
        for space, rows in layout.items():
            out += ["", "  Buffers (%s)  -- base allocations making up Used (gaps between ranges = alignment)" % space,
                    "    Name              |  Size       |  Address range            |  Live range",
                    "    ------------------+-------------+-------------------------+------------"]
            for size, begin, end in rows:
                out.append("    %-18s|  %9s  |  %-25s|  [%d, %d]" % (
                    "mem_%s_%d" % (prefix[space], index), size_text(size), "[%d, %d)" % (begin, end),
                    live, live + 40))
                index += 1
                live += 2
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# perf_hints.log (perf-hints.md; PH001 v3 template, PH-MR-001 template since #1949).

def ph001(op, inner_bytes, dtype, elems, memory, rows, location, occurrences=0, v3=True):
    moves = "; moves %dB as %d x %dB rows" % (rows * inner_bytes, rows, inner_bytes) if v3 else ""
    text = ("[perf_hint PH001] TileInnermostDimGranularity: %s has innermost dim = %dB (tile %s[%d], "
            "target_memory=%s)%s; recommended >= 512B for backend a2a3 (L2 cache line = 512B). "
            "Consider increasing tile shape on the innermost axis." % (op, inner_bytes, dtype, elems, memory, moves))
    if occurrences:
        text += " (%d occurrences at this source location)" % occurrences
    return text + " at %s:%d:%d" % (SOURCE, location[0], location[1])


def perf_hints(v3):
    """One compile, in emission order (perf-hints.md section 1): the pass-emitted PH-MR-001 batches
    first (one per function), then PH001 sites sorted by (file, line, col, ...). July (v2):
    0-based columns, tiles targeting Mat skipped. August (v3): 1-based, `; moves`, Mat loads."""
    base = 1 if v3 else 0
    qk_def, sf_def = def_position("QK", base), def_position("SF", base)
    entries = [
        "[perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 2 for pipeline group 0 in Right, "
        "but only 1 of 2 buffers fit (49152 B per stage, 65536 B free) \u2014 stages 1 apart share storage and "
        "serialize. This operand alone needs 98304 B for depth 2; shrink the per-stage tile to <= 32768 B, or "
        "reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 1. at %s:%d:%d" % (SOURCE, qk_def[0], qk_def[1]),
        # SF's row load is 512 B wide (fp32[128]): no PH001 for it.
        "[perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 4 for pipeline group 1 in Vec, "
        "but only 3 of 4 buffers fit (49152 B per stage, 188416 B free) \u2014 stages 3 apart share storage and "
        "serialize. This operand alone needs 196608 B for depth 4; shrink the per-stage tile to <= 47104 B, or "
        "reduce the pipeline depth (e.g. `pl.pipeline(stage=)`) to 3. at %s:%d:%d" % (SOURCE, sf_def[0], sf_def[1]),
    ]
    if v3:
        entries.append(ph001("tile.load", 128, "bfloat16", 64, "Mat", 128, source_position("QK.k_load", base=base),
                             occurrences=2, v3=v3))
    entries += [
        ph001("tile.store", 128, "fp32", 32, "Vec", 64, source_position("PV_vec.rescale", "store", base), v3=v3),
        ph001("tile.load", 128, "fp32", 32, "Vec", 64, source_position("PV_vec.rescale", "load", base), v3=v3),
        ph001("tile.load", 256, "bfloat16", 128, "Vec", 64, source_position("UP.x", base=base), v3=v3),
        ph001("tile.load", 256, "bfloat16", 128, "Vec", 64, source_position("UP.cache", base=base), v3=v3),
    ]
    return "\n".join(entries) + "\n"


# ---------------------------------------------------------------------------------------------
# logs/paged_attn_strace.log: the composed [STRACE] fixture (warmup 2, 6 rounds), its times scaled
# so that a run's device time matches the program's swimlane capture (~60 us of orchestration and
# scheduling, not the fixture's ~700 us). Its span names (chip.run...) date it to simpler >=
# 2026-08-18 (bench-log.md 1.13.4): a run of the August rebuild.

STRACE_FIXTURE = os.path.join(HERE, "..", "tests", "data", "bench", "composed", "l2_strace_w2_r6.log")
STRACE_SCALE = 0.09


def scaled_strace():
    text = open(STRACE_FIXTURE, encoding="utf-8").read()
    origin = int(re.search(r"\[CLOCK_ANCHOR\][^\n]* mono_ns=(\d+)", text).group(1))

    def host(value):  # absolute monotonic ns: keep the anchor, scale the distance from it
        return origin + round((int(value) - origin) * STRACE_SCALE)

    out = []
    for line in text.splitlines():
        if "[CLOCK_ANCHOR]" in line:
            out.append(line)
            continue
        device = " clk=dev" in line
        line = re.sub(r"^\[mono_ns=(\d+)\]", lambda m: "[mono_ns=%d]" % host(m.group(1)), line)
        line = re.sub(r" dur=(\d+)", lambda m: " dur=%d" % round(int(m.group(1)) * STRACE_SCALE), line)
        # Device spans count from the device wall's start; host spans are monotonic time.
        line = re.sub(r" ts=(\d+)", lambda m: " ts=%d" % (round(int(m.group(1)) * STRACE_SCALE) if device
                                                         else host(m.group(1))), line)
        out.append(line)
    # After the loop pypto prints its report ([RUN] effective_us, and with PYPTO_BENCH_RAW=1 the
    # raw samples with the loop's warmup and rounds): the fixture's expected report, its times
    # scaled like the spans. The log then states its own loop facts (warmup 2, 6 rounds).
    for line in open(STRACE_FIXTURE.replace(".log", ".expected.txt"), encoding="utf-8"):
        if line.startswith("[RUN]"):
            out.append(re.sub(r"\d+\.\d+", lambda m: "%.1f" % (float(m.group(0)) * STRACE_SCALE),
                              line.rstrip("\n")))
    return "\n".join(out) + "\n"


def name_map():
    return ('{\n  "level": 2,\n  "orchestrator_name": "PagedAttn",\n  "callable_id_to_name": {\n' +
            ",\n".join('    "%d": "%s"' % (i, n) for i, n, _ in KERNELS) + "\n  }\n}\n")


def main():
    write(os.path.join(RUN, SOURCE), KERNEL_SOURCE)
    write(os.path.join(RUN, "kernel_config.py"), kernel_config())
    write(os.path.join(RUN, "dfx_outputs", "pmu.csv"), pmu_rows(a5=False))
    write(os.path.join(RUN, "report", "memory_after_AllocateMemoryAddr.txt"), memory_report("a2a3"))
    write(os.path.join(RUN, "report", "perf_hints.log"), perf_hints(v3=False))
    # The same program compiled and profiled on A5 the day before: memory report and PMU only.
    write(os.path.join(RUN_A5, "kernel_config.py"), kernel_config())
    write(os.path.join(RUN_A5, "dfx_outputs", "pmu.csv"), pmu_rows(a5=True))
    write(os.path.join(RUN_A5, "dfx_outputs", "name_map_PagedAttn.json"), name_map())
    write(os.path.join(RUN_A5, "report", "memory_after_AllocateMemoryAddr.txt"), memory_report("a5"))
    write(os.path.join(HERE, "logs", "paged_attn_strace.log"), scaled_strace())
    # The same program rebuilt after pypto's August changes: PH001 v3, no memory report any more.
    write(os.path.join(RUN_AUG, SOURCE), KERNEL_SOURCE)
    write(os.path.join(RUN_AUG, "kernel_config.py"), kernel_config())
    write(os.path.join(RUN_AUG, "dfx_outputs", "pmu.csv"), pmu_rows(a5=False))
    write(os.path.join(RUN_AUG, "dfx_outputs", "name_map_PagedAttn.json"), name_map())
    write(os.path.join(RUN_AUG, "report", "perf_hints.log"), perf_hints(v3=True))


if __name__ == "__main__":
    main()
