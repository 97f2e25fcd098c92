// Fuzz target: pass dumps passes_dump/NN_after_AllocateMemoryAddr.py (memreport::parse_pass_dump,
// streamed, both MemRef syntaxes), then the backend's limits, the analysis (live ranges, peaks,
// overlaps), metrics, JSON view, the text-report rendering and the memory-map SVGs; the first
// byte picks the backend (a2a3 / a5).

#include <cstdint>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/memory_map.hpp"
#include "ptune/memreport/pass_dump.hpp"
#include "ptune/memreport/report.hpp"

namespace memreport_pass_dump_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    auto backend =
        input.option(0) % 2 == 1 ? ptune::memreport::Backend::A5 : ptune::memreport::Backend::A2A3;
    std::istringstream in{std::string(input.text())};
    ptune::Diagnostics diagnostics;
    auto report =
        ptune::memreport::parse_pass_dump(in, "13_after_AllocateMemoryAddr.py", diagnostics);
    ptune::memreport::apply_dump_backend(report, backend, "option", diagnostics);
    auto choice = ptune::memreport::analyze(report, backend, diagnostics);
    ptune::rules::MetricStore store;
    ptune::memreport::publish_metrics(report, choice, store);
    auto view = ptune::memreport::to_json(report, choice);
    (void)view.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)ptune::memreport::format_text_report(report, "910B", ptune::memreport::FormatVersion::V3);
    (void)ptune::memreport::memory_maps(report, 16);
    return 0;
}

}  // namespace memreport_pass_dump_fuzz
