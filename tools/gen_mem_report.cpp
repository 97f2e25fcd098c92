// Writes a large synthetic v3 memory report (mem-report.md §2) for the mem-report benchmark:
//   gen_mem_report FUNCTIONS > report.txt
// Each function alternates an AIV block (Vec with 4 buffers) and an AIC block (Mat, Left,
// Right, Acc with 2 buffers each), with sizes that vary so usages and findings vary.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "ptune/memreport/model.hpp"

namespace {

using ptune::memreport::format_percent;
using ptune::memreport::format_size;

void row(std::FILE* out, const char* space, std::uint64_t used, std::uint64_t limit,
         std::uint64_t memrefs) {
    fmt::print(out, "  {:<7}|  {:>9}  |  {:>9}  |  {:>6}  |  {}\n", space, format_size(used),
               format_size(limit),
               format_percent(100.0 * static_cast<double>(used) / static_cast<double>(limit)),
               memrefs);
}

void buffers(std::FILE* out, const char* space, const char* prefix, std::uint64_t size, int count,
             int& id) {
    fmt::print(
        out,
        "\n  Buffers ({})  -- base allocations making up Used (gaps between ranges = alignment)\n"
        "    Name              |  Size       |  Address range            |  Live range\n"
        "    ------------------+-------------+-------------------------+------------\n",
        space);
    for (int i = 0; i < count; ++i, ++id) {
        std::uint64_t begin = size * static_cast<std::uint64_t>(i);
        fmt::print(out, "    {:<18}|  {:>9}  |  {:<25}|  [{}, {}]\n",
                   fmt::format("mem_{}_{}", prefix, id), format_size(size),
                   fmt::format("[{}, {})", begin, begin + size), id + 2, id + 40);
    }
}

}  // namespace

int main(int argc, char** argv) {
    long functions = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 0;
    if (functions <= 0) {
        std::fprintf(stderr, "usage: gen_mem_report FUNCTIONS > report.txt\n");
        return 2;
    }
    std::FILE* out = stdout;
    fmt::print(out,
               "=== Memory Usage Report ===\nPass: AllocateMemoryAddr\nBackend: 910B\nFunctions: "
               "{} compute "
               "functions\n",
               functions);
    const char* thead =
        "  Space  |  Used       |  Limit      |  Usage   |  MemRefs\n"
        "  -------+-------------+-------------+----------+---------\n";
    for (long f = 0; f < functions; ++f) {
        int id = 0;
        std::uint64_t step = static_cast<std::uint64_t>(f % 40 + 1);
        if (f % 2 == 0) {
            fmt::print(out, "\n--- kernel_{:07}_aiv ---\n\n{}", f, thead);
            std::uint64_t vec = step * 1024;
            row(out, "Vec", 4 * vec, 184 * 1024, 5);
            buffers(out, "Vec", "vec", vec, 4, id);
        } else {
            fmt::print(out, "\n--- kernel_{:07}_aic ---\n\n{}", f, thead);
            std::uint64_t mat = step * 4096, left = 16384, right = 16384, acc = step * 1024;
            row(out, "Mat", 2 * mat, 512 * 1024, 4);
            row(out, "Left", 2 * left, 64 * 1024, 2);
            row(out, "Right", 2 * right, 64 * 1024, 2);
            row(out, "Acc", 2 * acc, 128 * 1024, 2);
            buffers(out, "Mat", "mat", mat, 2, id);
            buffers(out, "Left", "left", left, 2, id);
            buffers(out, "Right", "right", right, 2, id);
            buffers(out, "Acc", "acc", acc, 2, id);
        }
    }
    return 0;
}
