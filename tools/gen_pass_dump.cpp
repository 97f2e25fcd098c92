// Writes a large synthetic pass dump in the newer syntax (mem-report.md §11) for the mem-report
// benchmark:   gen_pass_dump FUNCTIONS [TILES] > 14_after_AllocateMemoryAddr.py
// Each function is an AIV function with TILES Vec tiles (default 64) over 8 rotating bases, each
// tile read by the next two lines, so live ranges, peaks and the overlap sweep all have work.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: gen_pass_dump FUNCTIONS [TILES]\n");
        return 2;
    }
    long functions = std::strtol(argv[1], nullptr, 10);
    long tiles = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 64;
    std::FILE* out = stdout;
    fmt::print(out,
               "# pypto.program: Synth\nimport pypto.language as pl\n\n@pl.program\n"
               "class Synth:\n");
    for (long f = 0; f < functions; ++f) {
        fmt::print(out,
                   "    @pl.function(type=pl.FunctionType.AIV)\n"
                   "    def kernel_{}_aiv(self, x: pl.Tensor[[64, 128], pl.FP32]) -> "
                   "pl.Tensor[[64, 128], pl.FP32]:\n",
                   f);
        std::uint64_t size = 4096 + static_cast<std::uint64_t>(f % 7) * 1024;
        for (long t = 0; t < tiles; ++t) {
            long base = t % 8;
            std::string reads =
                t == 0 ? "x" : (t == 1 ? "t_0" : fmt::format("t_{}, t_{}", t - 1, t - 2));
            fmt::print(out,
                       "        t_{}: pl.Tile[[64, 16], pl.FP32, pl.MemRef(mem_vec_{}, "
                       "pl.const({}, pl.INT64), {}), pl.Mem.Vec] = pl.tile.add({})\n",
                       t, base, static_cast<std::uint64_t>(base) * size, size, reads);
        }
        fmt::print(out, "        return t_{}\n", tiles - 1);
    }
    return 0;
}
