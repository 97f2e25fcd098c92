// Generates a large synthetic perf_hints.log for the hints-lint benchmark (docs/PERFORMANCE.md):
// `hints_gen_log SITES COMPILES > perf_hints.log` writes COMPILES appended compiles of one
// program, each with SITES PH001 sites (v3 template, sorted as upstream emits them) after a few
// pass hints, including a two-line PH-AT-005 entry per 1000 sites.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace {

constexpr const char* kTail =
    "; recommended >= 512B for backend a2a3 (L2 cache line = 512B). Consider increasing tile "
    "shape on the innermost axis.";

void write_compile(std::FILE* out, long sites) {
    for (long i = 0; i < sites / 1000 + 1; ++i) {
        fmt::print(out,
                   "[perf_hint PH-AT-005] AutoTileMatmulL0: tile.matmul_acc: ChooseL0Tile rejected "
                   "configuration — left untouched. ChooseL0Tile: no legal (m, n, k) tile found "
                   "for M=16, N=65536, K=16.\nCheck failed: best at /src/l0_tile_chooser.cpp:600 "
                   "at /repo/models/kernel_{:04}.py:{}:21\n",
                   i, 10 + i);
    }
    fmt::print(
        out,
        "[perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 2 for "
        "pipeline group 0 in Right, but only 1 of 2 buffers fit (49152 B per stage, 65536 B "
        "free) — stages 1 apart share storage and serialize. This operand alone needs "
        "98304 B for depth 2; shrink the per-stage tile to <= 32768 B, or reduce the "
        "pipeline depth (e.g. `pl.pipeline(stage=)`) to 1. at /repo/models/kernel_0000.py:5:1\n");
    for (long i = 0; i < sites; ++i) {
        long file = i / 500, line = 20 + (i % 500);
        int rows = 16 << (i % 4);
        fmt::print(
            out,
            "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = "
            "128B (tile bfloat16[64], target_memory=Vec); moves {}B as {} x 128B rows{} "
            "({} occurrences at this source location) at /repo/models/kernel_{:04}.py:{}:9\n",
            rows * 128, rows, kTail, 2 + i % 7, file, line);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fputs("usage: hints_gen_log SITES COMPILES > perf_hints.log\n", stderr);
        return 2;
    }
    long sites = std::atol(argv[1]);
    long compiles = std::atol(argv[2]);
    if (sites <= 0 || compiles <= 0) {
        std::fputs("hints_gen_log: SITES and COMPILES must be positive\n", stderr);
        return 2;
    }
    for (long c = 0; c < compiles; ++c) write_compile(stdout, sites);
    return 0;
}
