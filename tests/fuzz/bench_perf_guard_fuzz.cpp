// Fuzz target: pypto's perf_guard as bench-gate reads it (bench::perf_guard): with the option
// byte's low bits 0 the text is a baseline (read_baseline); 1, a converter stdout or CI log
// (`Total Test Time` / `TOTAL` lines, measure on a `.log`); 2, a `.json` input, which is
// ptune's swimlane statistics JSON or, failing that, a swimlane records file (measure). The
// outcome against a fixed counterpart goes through the report and every renderer.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/gate/perf_guard.hpp"

namespace bench_perf_guard_fuzz {

namespace {

namespace guard = ptune::gate::perf_guard;

void report(guard::Baseline baseline, guard::Measurement measurement, bool warn_only) {
    const auto outcome = guard::judge(std::move(baseline), std::move(measurement));
    const auto report = guard::make_report(outcome);
    std::ostringstream sink;
    for (const char* format : {"text", "markdown", "csv", "json"})
        ptune::render::make_standard_renderer(format)->render(report, sink, {});
    guard::make_github_renderer(outcome, warn_only)->render(report, sink, {});
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    const std::uint8_t option = input.option(0);
    const bool warn_only = option & 4;
    if (option % 4 == 0 || option % 4 == 3) {
        auto baseline = guard::read_baseline(input.text(), "perf_baseline.json");
        if (!baseline || !*baseline) return 0;
        guard::Measurement measurement;
        measurement.makespans_us = {60.9, 61.2};
        measurement.total_exec_us = {4120.0};
        measurement.sources = {"fixed.log", "fixed.log"};
        report(std::move(**baseline), std::move(measurement), warn_only);
        return 0;
    }
    const std::string& path = ptune::fuzz::write_scratch_file(
        option % 4 == 1 ? "current.log" : "current.json", input.text());
    guard::Measurement measurement;
    ptune::Diagnostics diagnostics;
    if (!guard::measure(path, measurement, diagnostics)) return 0;
    guard::Baseline baseline;
    baseline.metric = "makespan_us";
    baseline.value = option & 8 ? std::optional<double>() : std::optional<double>(53.42);
    baseline.source = "perf_baseline.json";
    report(std::move(baseline), std::move(measurement), warn_only);
    return 0;
}

}  // namespace bench_perf_guard_fuzz
