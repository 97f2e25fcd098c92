// pmu_gen ROWS [KERNELS] > pmu.csv: a synthetic a2a3 PIPE_UTILIZATION pmu.csv for the
// pmu-analyze benchmark (docs/PERFORMANCE.md). Rows come in collector order (shard, then per-core
// buffers of up to 512 records); even func_ids run on the 24 AIC cores, odd ones on the 48 AIV
// cores, and task ids repeat across cores (SPMD, mixed tasks). Deterministic output.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "random.hpp"

namespace {

using Random = ptune::synth::Xorshift64Star;

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pmu_gen ROWS [KERNELS] > pmu.csv\n");
        return 2;
    }
    const std::uint64_t rows = std::strtoull(argv[1], nullptr, 10);
    const std::uint64_t kernels = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 40;
    if (rows == 0 || kernels == 0) {
        std::fprintf(stderr, "pmu_gen: ROWS and KERNELS must be positive\n");
        return 2;
    }
    std::printf(
        "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,"
        "cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,"
        "icache_miss,icache_req,event_type\n");
    Random random;
    constexpr std::uint64_t kCores = 72;  // 24 AIC + 48 AIV
    constexpr std::uint64_t kBuffer = 512;
    for (std::uint64_t i = 0; i < rows; ++i) {
        std::uint64_t buffer = i / kBuffer;
        std::uint64_t core = buffer % kCores;
        bool aic = core < 24;
        std::uint64_t func = 2 * random.below((kernels + 1) / 2) + (aic ? 0 : 1);
        std::uint64_t task = (i % kBuffer) * kCores / 4 + buffer / kCores * kBuffer * kCores / 4;
        std::uint64_t ring = task % 4;
        std::uint64_t total = 20000 + random.below(80000);
        std::uint64_t main_pipe = total * (40 + random.below(60)) / 100;
        std::uint64_t mte2 = total * (10 + random.below(85)) / 100;
        std::uint64_t scalar = total * random.below(40) / 100;
        std::uint64_t mte1 = aic ? total * random.below(60) / 100 : 0;
        std::uint64_t mte3 = aic ? 0 : total * random.below(50) / 100;
        std::uint64_t req = 200 + random.below(800);
        std::printf("%llu,%llu,0x%016llx,%llu,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,2\n",
                    static_cast<unsigned long long>(core % 4),
                    static_cast<unsigned long long>(core),
                    static_cast<unsigned long long>((ring << 32) | task),
                    static_cast<unsigned long long>(func), aic ? 0 : 1,
                    static_cast<unsigned long long>(total),
                    static_cast<unsigned long long>(aic ? 0 : main_pipe),
                    static_cast<unsigned long long>(aic ? main_pipe : 0),
                    static_cast<unsigned long long>(scalar), static_cast<unsigned long long>(mte1),
                    static_cast<unsigned long long>(mte2), static_cast<unsigned long long>(mte3),
                    static_cast<unsigned long long>(random.below(req / 10 + 1)),
                    static_cast<unsigned long long>(req));
    }
    return 0;
}
