// Fuzz target: `ptune bench-summary --format json` outputs read back by load_bench_inputs
// (the baselines of bench-gate).

#include <cstdint>

#include "bench_cases.hpp"
#include "fuzz_support.hpp"
#include "ptune/bench/model.hpp"

namespace bench_summary_json_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string& path = ptune::fuzz::write_scratch_file("summary.json", text);
    ptune::Diagnostics diagnostics;
    auto cases = ptune::bench::load_bench_inputs({path}, {}, diagnostics);
    if (cases) ptune::fuzz::exercise_bench_outputs(*cases);
    return 0;
}

}  // namespace bench_summary_json_fuzz
