// Fuzz target: serving-strace-swimlane.json (upstream-2026-12.md §5): parse_serving_trace
// (SAX, streamed), analyze, publish and the report.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/serving/pipeline.hpp"

namespace serving_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 0);
    ptune::Diagnostics diagnostics;
    std::istringstream in{std::string(input.text())};
    auto trace = ptune::serving::parse_serving_trace(in, "serving.json", diagnostics);
    if (!trace) return 0;
    ptune::serving::Loaded loaded{"serving.json", std::move(*trace), {}};
    loaded.analysis = ptune::serving::analyze(loaded.trace);
    ptune::rules::MetricStore store;
    ptune::serving::publish(loaded, store);
    (void)ptune::serving::build_report(loaded, {}).data.dump();
    return 0;
}

}  // namespace serving_fuzz
