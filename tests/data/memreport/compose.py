#!/usr/bin/env python3
"""Writes the composed_* memory reports of this folder, following the writer's grammar
(mem-report.md section 2) so each file is what pypto would have printed for the model data
below. Run from this folder: python3 compose.py"""


def size(b):
    if b >= 1048576:
        return "%.1f MB" % (b / 1048576)
    if b >= 1024:
        return "%.1f KB" % (b / 1024)
    return "%d B" % b


def table(name, rows, buffers=None):
    out = ["", "--- %s ---" % name, "",
           "  Space  |  Used       |  Limit      |  Usage   |  MemRefs",
           "  -------+-------------+-------------+----------+---------"]
    for space, used, limit, memrefs in rows:
        lim = size(limit) if limit else "N/A"
        pct = "%.1f%%" % (used * 100 / limit) if limit else "N/A"
        out.append("  %-7s|  %9s  |  %9s  |  %6s  |  %d" % (space, size(used), lim, pct, memrefs))
    for space, brows in (buffers or {}).items():
        out += ["", "  Buffers (%s)  -- base allocations making up Used (gaps between ranges = alignment)" % space,
                "    Name              |  Size       |  Address range            |  Live range",
                "    ------------------+-------------+-------------------------+------------"]
        for bname, bsize, addr, live in brows:
            a = "[%d, %d)" % addr if addr else "(unallocated)"
            out.append("    %-18s|  %9s  |  %-25s|  [%d, %d]" % (bname, size(bsize), a, live[0], live[1]))
    return out


def header(backend, count, suffix="compute functions"):
    return ["=== Memory Usage Report ===", "Pass: AllocateMemoryAddr", "Backend: " + backend,
            "Functions: %d %s" % (count, suffix)]


def write(path, lines, newline="\n"):
    with open(path, "w", newline="") as f:
        f.write(newline.join(lines) + newline)


KB = 1024

# a5, over the limits: a 1 MiB reserved Mat floor (the docs' qk_pv_aic example, 1 064 960 B,
# printed in MB), Acc over 256 KB, an (unallocated) view row, a Vec usage >= 1000 %.
write("composed_over__a5_overlimit_unallocated.memory_after_AllocateMemoryAddr.txt",
      header("950", 2)
      + table("qk_pv_aic", [("Mat", 1064960, 512 * KB, 3), ("Left", 64 * KB, 64 * KB, 1),
                            ("Right", 32 * KB, 64 * KB, 1), ("Acc", 320 * KB, 256 * KB, 1)],
              {"Mat": [("mem_mat_0", 8 * KB, (1048576, 1048576 + 8 * KB), (4, 40)),
                       ("mem_mat_1", 8 * KB, (1048576 + 8 * KB, 1064960), (5, 41)),
                       ("mem_mat_view_2", 4 * KB, None, (7, 12))],
               "Acc": [("mem_acc_3", 320 * KB, (0, 320 * KB), (3, 50))]})
      + table("qk_pv_aiv", [("Vec", 2457600, 240 * KB, 2)],
              {"Vec": [("mem_vec_0", 1228800, (0, 1228800), (2, 20)),
                       ("mem_vec_1", 1228800, (1228800, 2457600), (3, 21))]}))

# v2 (before Buffers blocks, before the safe cap), CRLF line endings: Vec above 184 KB under the
# old 192 KB limit, a Mat fill that leaves room to double K.
write("composed_legacy__a2a3_v2_crlf.memory_after_AllocateMemoryAddr.txt",
      header("910B", 2)
      + table("norm_aiv", [("Vec", 190 * KB, 192 * KB, 6)])
      + table("proj_aic", [("Mat", 160 * KB, 512 * KB, 4), ("Left", 62 * KB, 64 * KB, 2),
                           ("Right", 64 * KB, 64 * KB, 2), ("Acc", 64 * KB, 128 * KB, 1)]),
      newline="\r\n")

# Damage: an unknown backend token, a garbled row, a row with a broken number, and a file cut in
# the middle of a Buffers block (the last function's Used cannot be confirmed from its buffers).
damaged = (header("910C_X", 3)
           + table("attn_aic", [("Mat", 96 * KB, 512 * KB, 4), ("Acc", 32 * KB, 128 * KB, 1)])
           + table("attn_aiv", [("Vec", 64 * KB, 184 * KB, 2)],
                   {"Vec": [("mem_vec_0", 32 * KB, (0, 32 * KB), (2, 9)),
                            ("mem_vec_1", 32 * KB, (32 * KB, 64 * KB), (3, 10))]}))
acc_row = next(i for i, line in enumerate(damaged) if line.startswith("  Acc "))
damaged[acc_row] = damaged[acc_row].replace("128.0 KB", "12#.0 KB")
damaged.insert(damaged.index("--- attn_aiv ---") - 1, "  Left   |  garbage")
damaged = damaged[:-1]  # the last buffer row is lost
write("composed_bad__damaged.memory_after_AllocateMemoryAddr.txt", damaged)
