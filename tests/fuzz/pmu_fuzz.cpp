// Fuzz target: pmu.csv (pmu::parse_pmu_csv, streamed), the analysis, metrics, report and the
// streamed JSON renderer of pmu-analyze; the first byte sets the AICore clock option. With the
// second byte's low bit set the text is read as a kernel-name source instead (name map JSON or
// kernel_config.py, as parse_kernel_names chooses by content).

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/parser.hpp"
#include "ptune/pmu/report.hpp"

namespace pmu_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 2);
    ptune::Diagnostics diagnostics;
    if (input.option(1) & 1) {
        auto names = ptune::parse_kernel_names(input.text(), "names", diagnostics);
        (void)names;
        return 0;
    }
    std::istringstream in{std::string(input.text())};
    auto table = ptune::pmu::parse_pmu_csv(in, "pmu.csv", diagnostics);
    if (!table) return 0;
    ptune::pmu::AnalyzeOptions options;
    if (input.option(0) % 3 == 1) options.aicore_mhz = 1850.0;
    if (input.option(0) % 3 == 2) options.aicore_mhz = 1e-300;
    ptune::KernelNames names;
    auto analysis = ptune::pmu::analyze(*table, names, options, diagnostics);
    ptune::rules::MetricStore store;
    ptune::pmu::publish_metrics(*table, analysis, store);
    auto report = ptune::pmu::build_report(*table, analysis, {}, {});
    std::ostringstream sink;
    ptune::pmu::make_json_renderer(*table, analysis)->render(report, sink, {});
    return 0;
}

}  // namespace pmu_fuzz
