// Fuzz target: the bench-gate config file (`--config`, gate::parse_config), applied as
// the CLI does (apply_config) and used: its per-case tolerances, ignore and allow_missing
// patterns (fnmatch) decide a fixed set of cases (raw samples, summaries, a history for the
// noise fence, a missing and a new case), whose result goes through every bench-gate report.
// The option byte picks the gated statistic and whether every case must have a current result.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/gate/gate.hpp"
#include "ptune/gate/pipeline.hpp"
#include "ptune/gate/report.hpp"

namespace bench_gate_config_fuzz {

namespace {

using ptune::gate::CaseInput;
using ptune::gate::Observation;

Observation summary(double min, double median, double mean, double max, std::size_t rounds) {
    Observation run;
    run.source = "fixed:1";
    run.min = min;
    run.median = median;
    run.mean = mean;
    run.max = max;
    run.rounds = rounds;
    return run;
}

Observation samples(std::vector<double> values) {
    Observation run =
        summary(values.front(), values.front(), values.front(), values.front(), values.size());
    for (double v : values) {
        run.min = std::min(*run.min, v);
        run.max = std::max(*run.max, v);
    }
    run.samples = std::move(values);
    return run;
}

/// Names a config is likely to mention (the README's examples) and shapes that reach every test.
const std::vector<CaseInput>& fixed_cases() {
    static const std::vector<CaseInput> cases = [] {
        std::vector<CaseInput> out;
        out.push_back({"models/qwen3_14b/decode_fwd.py",
                       {summary(90, 100, 100, 110, 10)},
                       summary(120, 130, 131, 140, 10)});
        out.push_back({"models/tiny_mlp.py",
                       {samples({10.0, 10.2, 9.9, 10.1, 10.0, 10.3})},
                       samples({10.9, 11.0, 11.2, 10.8, 11.1, 11.0})});
        CaseInput history{"models/attention/prefill.py", {}, summary(50, 52, 52, 54, 5)};
        for (int run = 0; run < 6; ++run)
            history.baseline.push_back(summary(48 + run * 0.1, 50, 50, 52, 5));
        out.push_back(std::move(history));
        Observation threshold_only;
        threshold_only.source = "results.tsv:2";
        threshold_only.mean = 7.5;
        Observation current_threshold = threshold_only;
        current_threshold.mean = 7.9;
        out.push_back({"examples/results_tsv_case", {threshold_only}, current_threshold});
        out.push_back({"models/gone.py", {summary(1, 1, 1, 1, 3)}, std::nullopt});
        out.push_back({"models/new.py", {}, summary(2, 2, 2, 2, 3)});
        return out;
    }();
    return cases;
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    auto config = ptune::gate::parse_config(input.text(), "gate-config.json");
    if (!config) return 0;
    ptune::gate::ReportSettings settings;
    ptune::gate::Options& options = settings.options;
    options.metric = static_cast<ptune::gate::Metric>(input.option(0) % 3);
    options.require_all = !(input.option(0) & 4);
    ptune::gate::apply_config(std::move(*config), options);
    const auto result = ptune::gate::evaluate(fixed_cases(), options);
    ptune::rules::MetricStore store;
    ptune::gate::publish_metrics(result, options, store);
    const auto report = ptune::gate::make_report(result, settings);
    std::ostringstream sink;
    for (const char* format : {"text", "markdown", "csv", "json"})
        ptune::render::make_standard_renderer(format)->render(report, sink, {});
    ptune::gate::make_github_renderer(result, settings)->render(report, sink, {});
    ptune::gate::make_gab_json_renderer(result)->render(report, sink, {});
    return 0;
}

}  // namespace bench_gate_config_fuzz
