// Fuzz target: daily-CI results.tsv files (bench-log.md §5.1) through load_bench_inputs.

#include <cstdint>

#include "bench_cases.hpp"
#include "fuzz_support.hpp"
#include "ptune/bench/model.hpp"

namespace bench_results_tsv_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string& path = ptune::fuzz::write_scratch_file("results.tsv", text);
    ptune::Diagnostics diagnostics;
    auto cases = ptune::bench::load_bench_inputs({path}, {}, diagnostics);
    if (cases) ptune::fuzz::exercise_bench_outputs(*cases);
    return 0;
}

}  // namespace bench_results_tsv_fuzz
