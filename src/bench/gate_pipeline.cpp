// bench-gate's pipeline (gate_pipeline.hpp): load digests, compare case by case, report.

#include "ptune/bench/gate_pipeline.hpp"

#include <fmt/format.h>

#include "ptune/bench/gate_findings.hpp"
#include "ptune/bench/gate_input.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/core/io.hpp"
#include "ptune/history/pipeline.hpp"

namespace ptune::bench::gate {

namespace {

struct DigestRuns {
    std::vector<GateRun> baseline;
    GateRun current;
};

// The runs as digests, read one case at a time (load_runs() reads the same, as BenchCases).
Result<DigestRuns> load_digests(const GateRequest& request, std::vector<BenchCase>& kept,
                                Diagnostics& diagnostics) {
    DigestRuns runs;
    if (!request.history.empty()) {
        auto loaded = history::load_gate_runs(request.history, request.current_inputs, diagnostics);
        if (!loaded) return loaded.error();
        for (const auto& run : loaded->baseline) {
            GateRun& digests = runs.baseline.emplace_back();
            for (const auto& bench_case : run) digests.add(bench_case);
        }
        for (const auto& bench_case : loaded->current) runs.current.add(bench_case);
        if (request.keep_current) kept = std::move(loaded->current);
        return runs;
    }
    runs.baseline.resize(request.baseline_inputs.size());
    auto status = for_each_run_case(
        request.baseline_inputs, request.current_inputs,
        [&](std::size_t run, BenchCase&& bench_case) { runs.baseline[run].add(bench_case); },
        [&](BenchCase&& bench_case) {
            runs.current.add(bench_case);
            if (request.keep_current) kept.push_back(std::move(bench_case));
        },
        diagnostics);
    if (!status) return status.error();
    return runs;
}

}  // namespace

Result<GateOutcome> run_gate(const GateRequest& request, const Options& options,
                             const ReportSettings& settings, const rules::Catalogue& catalogue,
                             Diagnostics& diagnostics) {
    GateOutcome outcome;
    {
        auto runs = load_digests(request, outcome.current, diagnostics);
        if (!runs) return runs.error();
        Evaluation evaluation(options);
        for_each_pair(
            runs->baseline, runs->current, diagnostics,
            [&](CaseInput&& input) { evaluation.add(std::move(input)); },
            [&](std::size_t cases) { evaluation.reserve(cases); });
        outcome.result = evaluation.finish();
    }  // the runs are freed before the report is built
    outcome.report = make_report(outcome.result, settings);
    // The rules see one case at a time (gate_findings.hpp): no metric map per case.
    outcome.report.findings = case_findings(outcome.result, options, catalogue);
    return outcome;
}

Status save_baseline(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<BenchCase>& current, bool regressed, bool force,
                     Diagnostics& diagnostics) {
    if (regressed && !force) {
        diagnostics.warn(path, 0,
                         "not written: the current run regressed (use --force-save to write it "
                         "anyway)");
        return ok_status();
    }
    auto output = io::AtomicOutput::open(path, inputs, false);
    if (!output) return output.error();
    render::write_json(render::to_json(cases_document(current)), (*output)->stream());
    return (*output)->commit();
}

}  // namespace ptune::bench::gate
