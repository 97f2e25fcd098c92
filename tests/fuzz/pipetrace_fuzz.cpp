// Fuzz target: core swimlane traces (upstream-2026-12.md §4): parse_trace (SAX, streamed),
// analyze with the option byte as n_blocks, publish and the report.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/pipetrace/pipeline.hpp"

namespace pipetrace_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::Diagnostics diagnostics;
    std::istringstream in{std::string(input.text())};
    auto trace = ptune::pipetrace::parse_trace(in, "x_trace.json", diagnostics);
    if (!trace) return 0;
    std::optional<std::size_t> n_blocks;
    if (input.option(0) != 0) n_blocks = input.option(0);
    ptune::pipetrace::Loaded loaded{"x_trace.json", std::move(*trace), {}};
    loaded.analysis = ptune::pipetrace::analyze(loaded.trace, {n_blocks, "T_c_a2a3sim_k_mix0"});
    ptune::rules::MetricStore store;
    ptune::pipetrace::publish(loaded, store);
    (void)ptune::pipetrace::build_report(loaded, {}).data.dump();
    return 0;
}

}  // namespace pipetrace_fuzz
