#!/usr/bin/env python3
"""Writes the composed pass dumps of this folder (newer syntax, mem-report.md section 11) and,
for the build that has both, the v3 text report pypto of July 2026 would have printed for the
same tiles (mem-report.md section 2), so the two tables must agree. Run from this folder:
python3 compose.py"""

import os

KB = 1024


def size(b):
    if b >= 1048576:
        return "%.1f MB" % (b / 1048576)
    if b >= 1024:
        return "%.1f KB" % (b / 1024)
    return "%d B" % b


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write(text)


SPACES = ["Vec", "Mat", "Left", "Right", "Acc"]
LIMITS = {"Vec": 184 * KB, "Mat": 512 * KB, "Left": 64 * KB, "Right": 64 * KB, "Acc": 128 * KB}


def tile(name, shape, dtype, base, offset, nbytes, space, value):
    return "        %s: pl.Tile[[%s], pl.%s, pl.MemRef(%s, pl.const(%d, pl.INT64), %d), pl.Mem.%s] = %s" % (
        name, shape, dtype, base, offset, nbytes, space, value)


def tensor(name, shape, dtype):
    return "%s: pl.Tensor[[%s], pl.%s]" % (name, shape, dtype)


# The build: one program with a cube half, a vector half (a reserved floor below its first Vec
# buffer, a tile-typed parameter, a view), a tiny vector helper (16 B of Vec: under-fill noise),
# a DDR-only InCore function and the orchestration (both not tabled).
def demo_functions():
    f = []
    f.append(("attn_aic", "AIC",
              "    def attn_aic(self, %s, %s, %s) -> pl.Tensor[[64, 128], pl.FP32]:" % (
                  tensor("q", "64, 128", "BF16"), tensor("k", "128, 128", "BF16"),
                  tensor("s", "64, 128", "FP32")),
              [tile("q_mat", "64, 128", "BF16", "mem_mat_0", 0, 16384, "Mat",
                    "pl.tile.load(q, [0, 0], [64, 128], target_memory=pl.Mem.Mat)"),
               tile("k_mat", "128, 128", "BF16", "mem_mat_1", 16384, 32768, "Mat",
                    "pl.tile.load(k, [0, 0], [128, 128], target_memory=pl.Mem.Mat)"),
               tile("k_half", "64, 128", "BF16", "mem_mat_1", 16384, 16384, "Mat",
                    "pl.tile.slice(k_mat, [0, 0], [64, 128])"),
               tile("q_left", "64, 128", "BF16", "mem_left_0", 0, 16384, "Left",
                    "pl.tile.move(q_mat, target_memory=pl.Mem.Left)"),
               tile("k_right", "64, 128", "BF16", "mem_right_0", 0, 16384, "Right",
                    "pl.tile.move(k_half, target_memory=pl.Mem.Right)"),
               tile("s_acc", "64, 128", "FP32", "mem_acc_0", 0, 32768, "Acc",
                    "pl.tile.matmul(q_left, k_right)"),
               "        s_1: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(s_acc, [0, 0], s)",
               "        return s_1"]))
    f.append(("attn_aiv", "AIV",
              "    def attn_aiv(self, %s, bias: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(106496, pl.INT64), 16384), pl.Mem.Vec], %s) -> pl.Tensor[[64, 128], pl.BF16]:" % (
                  tensor("s", "64, 128", "FP32"), tensor("out", "64, 128", "BF16")),
              [tile("s_vec", "64, 128", "FP32", "mem_vec_0", 8192, 32768, "Vec",
                    "pl.tile.load(s, [0, 0], [64, 128], target_memory=pl.Mem.Vec)"),
               tile("t_vec", "64, 128", "FP32", "mem_vec_1", 40960, 32768, "Vec",
                    "pl.tile.add(s_vec, bias)"),
               tile("row_max", "64, 1", "FP32", "mem_vec_2", 73728, 256, "Vec",
                    "pl.tile.row_max(t_vec)"),
               tile("o_vec", "64, 128", "BF16", "mem_vec_0", 8192, 16384, "Vec",
                    "pl.tile.cast(t_vec, row_max, target_type=pl.BF16)"),
               "        out_1: pl.Tensor[[64, 128], pl.BF16] = pl.tile.store(o_vec, [0, 0], out)",
               "        return out_1"]))
    f.append(("scale_aiv", "AIV",
              "    def scale_aiv(self, %s) -> pl.Tensor[[1, 4], pl.FP32]:" % tensor("x", "1, 4", "FP32"),
              [tile("x_vec", "1, 4", "FP32", "mem_vec_0", 0, 16, "Vec",
                    "pl.tile.load(x, [0, 0], [1, 4], target_memory=pl.Mem.Vec)"),
               "        x_1: pl.Tensor[[1, 4], pl.FP32] = pl.tile.store(x_vec, [0, 0], x)",
               "        return x_1"]))
    f.append(("copy_incore", "InCore",
              "    def copy_incore(self, %s) -> pl.Tensor[[16, 16], pl.FP32]:" % tensor("x", "16, 16", "FP32"),
              ["        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.view(x, [16, 16], [0, 0])",
               "        return y"]))
    f.append(("demo", "Orchestration",
              "    def demo(self, %s) -> pl.Tensor[[64, 128], pl.BF16]:" % tensor("q", "64, 128", "BF16"),
              ["        out_1 = self.attn_aiv(q)", "        return out_1"]))
    return f


def dump(program, functions):
    lines = ["# pypto.program: %s" % program, "import pypto.language as pl", "", "@pl.program",
             "class %s:" % program]
    for name, ftype, sig, body in functions:
        lines.append("    @pl.function(type=pl.FunctionType.%s)" % ftype)
        lines.append(sig)
        lines += body
    return "\n".join(lines) + "\n"


# The v3 report of the same tiles: per space Used = max(offset + size), MemRefs = distinct MemRef
# objects (here one per tile binding), buffers per base with [min offset, max end).
def report(functions):
    import re
    memref = re.compile(r"(\w+): pl\.Tile\[.*?pl\.MemRef\((\w+), pl\.const\((\d+), pl\.INT64\), (\d+)\), pl\.Mem\.(\w+)\]")
    kept = []
    for name, ftype, sig, body in functions:
        if ftype not in ("AIC", "AIV", "InCore"):
            continue
        spaces = {}
        for stmt_no, text in enumerate([sig] + body, start=1):
            for m in memref.finditer(text):
                tname, base, off, nbytes, space = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), m.group(5)
                s = spaces.setdefault(space, {"tiles": 0, "bases": {}})
                s["tiles"] += 1
                b = s["bases"].setdefault(base, [off, off + nbytes, nbytes, stmt_no, stmt_no])
                b[0], b[1], b[2] = min(b[0], off), max(b[1], off + nbytes), max(b[2], nbytes)
                b[4] = stmt_no
        if spaces:
            kept.append((name, spaces))
    kept.sort()
    out = ["=== Memory Usage Report ===", "Pass: AllocateMemoryAddr", "Backend: 910B",
           "Functions: %d compute functions" % len(kept)]
    for name, spaces in kept:
        out += ["", "--- %s ---" % name, "",
                "  Space  |  Used       |  Limit      |  Usage   |  MemRefs",
                "  -------+-------------+-------------+----------+---------"]
        order = [sp for sp in SPACES if sp in spaces]
        for sp in order:
            used = max(b[1] for b in spaces[sp]["bases"].values())
            out.append("  %-7s|  %9s  |  %9s  |  %6s  |  %d" % (
                sp, size(used), size(LIMITS[sp]), "%.1f%%" % (used * 100 / LIMITS[sp]), spaces[sp]["tiles"]))
        for sp in order:
            out += ["", "  Buffers (%s)  -- base allocations making up Used (gaps between ranges = alignment)" % sp,
                    "    Name              |  Size       |  Address range            |  Live range",
                    "    ------------------+-------------+-------------------------+------------"]
            for base, (lo, hi, nbytes, first, last) in sorted(spaces[sp]["bases"].items(), key=lambda kv: (kv[1][0], kv[0])):
                out.append("    %-18s|  %9s  |  %-25s|  [%d, %d]" % (base, size(nbytes), "[%d, %d)" % (lo, hi), first, last))
    return "\n".join(out) + "\n"


demo = demo_functions()
run = "tree_both/build_output/Demo_20260720_100000/"
write(run + "passes_dump/14_after_AllocateMemoryAddr.py", dump("Demo", demo))
write(run + "report/memory_after_AllocateMemoryAddr.txt", report(demo))
# An earlier pass of the same build: same name pattern, lower NN, no addresses yet.
write(run + "passes_dump/09_after_InitMemRef.py", "# an earlier pass, before addresses: never read\n")

only = "tree_dump_only/build_output/Demo_20260901_090000/"
write(only + "passes_dump/14_after_AllocateMemoryAddr.py", dump("Demo", demo))
write(only + "passes_dump/07_after_AllocateMemoryAddr.py", "# an older dump of the same run: never read\n")
write(only + "compiled_meta.json", '{"backend_type": "Ascend910B", "platform": "a2a3"}\n')

ptoas = "tree_dump_ptoas/build_output/Demo_20260902_090000/"
write(ptoas + "passes_dump/14_after_AllocateMemoryAddr.py", dump("Demo", demo))
write(ptoas + "ptoas/attn_aiv.pto", 'module attributes {pto.target_arch = "a5"} {\n}\n')
write(ptoas + "compiled_meta.json", '{"backend_type": "Ascend910B"}\n')

# Three Vec buffers live together (lines 8-10) at disjoint addresses, a fourth that reuses the
# first one's bytes after it died: the peak (40960 B at line 10: mem_vec_0, _1, _2) is exact by hand.
live3 = [("peak_aiv", "AIV",
          "    def peak_aiv(self, %s, %s) -> pl.Tensor[[32, 128], pl.FP32]:" % (
              tensor("a", "32, 128", "FP32"), tensor("out", "32, 128", "FP32")),
          [tile("a_vec", "32, 128", "FP32", "mem_vec_0", 0, 16384, "Vec",
                "pl.tile.load(a, [0, 0], [32, 128], target_memory=pl.Mem.Vec)"),
           tile("b_vec", "32, 128", "FP32", "mem_vec_1", 16384, 16384, "Vec",
                "pl.tile.exp(a_vec)"),
           tile("c_vec", "32, 64", "FP32", "mem_vec_2", 32768, 8192, "Vec",
                "pl.tile.add(a_vec, b_vec)"),
           tile("d_vec", "32, 128", "FP32", "mem_vec_3", 0, 12288, "Vec",
                "pl.tile.mul(b_vec, c_vec)"),
           "        out_1: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(d_vec, [0, 0], out)",
           "        return out_1"])]
write("overlap3/passes_dump/11_after_AllocateMemoryAddr.py", dump("Peak", live3))
