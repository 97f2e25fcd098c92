// Fuzz target: scope_stats.jsonl (upstream-2026-09.md §3): parse_scope_stats (streamed),
// publish and the report; the first option byte's low bit instead searches the text as a
// host log for an orch_error_code.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/scope/pipeline.hpp"

namespace scope_stats_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::Diagnostics diagnostics;
    std::istringstream in{std::string(input.text())};
    if (input.option(0) & 1) {
        (void)ptune::scope::find_orch_error(in, "host.1.log");
        return 0;
    }
    auto stats = ptune::scope::parse_scope_stats(in, "scope_stats.jsonl", diagnostics);
    if (!stats) return 0;
    ptune::scope::Loaded loaded;
    loaded.files.push_back(std::move(*stats));
    ptune::rules::MetricStore store;
    ptune::scope::publish(loaded, store);
    auto report = ptune::scope::build_report(loaded, {});
    (void)report.data.dump();
    return 0;
}

}  // namespace scope_stats_fuzz
