// Fuzz target: memory_after_AllocateMemoryAddr.txt reports (memreport::parse_report, streamed),
// then the analysis, metrics and JSON view mem-report builds; the first byte forces a backend
// or lets the report decide.

#include <cstdint>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"

namespace memreport_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    std::optional<ptune::memreport::Backend> forced;
    if (input.option(0) % 3 == 1) forced = ptune::memreport::Backend::A2A3;
    if (input.option(0) % 3 == 2) forced = ptune::memreport::Backend::A5;
    std::istringstream in{std::string(input.text())};
    ptune::Diagnostics diagnostics;
    auto report =
        ptune::memreport::parse_report(in, "memory_after_AllocateMemoryAddr.txt", diagnostics);
    auto choice = ptune::memreport::analyze(report, forced, diagnostics);
    ptune::rules::MetricStore store;
    ptune::memreport::publish_metrics(report, choice, store);
    auto view = ptune::memreport::to_json(report, choice);
    (void)view.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}

}  // namespace memreport_fuzz
