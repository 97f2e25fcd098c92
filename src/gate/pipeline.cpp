// bench-gate's pipeline (pipeline.hpp): load digests, compare case by case, report.

#include "ptune/gate/pipeline.hpp"

#include <fmt/format.h>

#include "ptune/bench/pipeline.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/io.hpp"
#include "ptune/gate/findings.hpp"
#include "ptune/gate/input.hpp"
#include "ptune/history/pipeline.hpp"

namespace ptune::gate {

namespace {

Error with_role(Error error, std::string_view role) {
    error.message = fmt::format("{} ({})", error.message, role);
    error.code = ExitCode::InputError;
    return error;
}

struct DigestRuns {
    std::vector<GateRun> baseline;
    GateRun current;
    std::vector<history::HeldCase> held;  // --history: cases in shadow (not judged)
    std::vector<std::string> notes;       // --history: each judged case's median and MAD
};

// bench-gate --history DB: the current run, then each case's current segment of the history as
// its baseline runs (history::gate_baseline).
Result<DigestRuns> load_history_digests(const GateRequest& request,
                                        std::vector<bench::BenchCase>& kept,
                                        Diagnostics& diagnostics) {
    std::vector<bench::BenchCase> current;
    if (request.current_cases) {
        current = *request.current_cases;
    } else {
        auto status = for_each_run_case(
            {}, request.current_inputs, [](std::size_t, bench::BenchCase&&) {},
            [&](bench::BenchCase&& bench_case) { current.push_back(std::move(bench_case)); },
            diagnostics);
        if (!status) return status.error();
    }
    auto store = history::Store::open(request.history, history::OpenOptions{});
    if (!store) return store.error();
    // The current run's identity (a lane suite-result.json or journal): baselines only from
    // its own series, which stays in shadow until it has ten attempts (docs/HISTORY.md).
    auto identity = history::gate_identity(request.current_inputs, diagnostics);
    if (!identity) return identity.error();
    auto baseline =
        history::gate_baseline(**store, current, *identity, history::AnalyseOptions{}, diagnostics);
    if (!baseline) return baseline.error();
    DigestRuns runs;
    runs.held = std::move(baseline->held);
    runs.notes = std::move(baseline->notes);
    for (const auto& run : baseline->runs) {
        GateRun& digests = runs.baseline.emplace_back();
        for (const auto& bench_case : run) digests.add(bench_case);
    }
    for (const auto& bench_case : current) runs.current.add(bench_case);
    if (request.keep_current) kept = std::move(current);
    return runs;
}

// --history: a case in shadow is reported as such and never fails the gate (it has no
// baseline, so the comparison called it new).
void hold_cases(const std::vector<history::HeldCase>& held, GateOutcome& outcome) {
    for (const auto& h : held) {
        for (CaseResult& c : outcome.result.cases) {
            if (c.name != h.name || c.verdict != Verdict::New) continue;
            c.reason = h.reason;
            c.fails = false;
            outcome.held.emplace_back(h.name, h.reason);
        }
    }
}

// The runs as digests, read one case at a time.
Result<DigestRuns> load_digests(const GateRequest& request, std::vector<bench::BenchCase>& kept,
                                Diagnostics& diagnostics) {
    if (!request.history.empty()) return load_history_digests(request, kept, diagnostics);
    DigestRuns runs;
    runs.baseline.resize(request.baseline_inputs.size());
    const auto on_current = [&](bench::BenchCase&& bench_case) {
        runs.current.add(bench_case);
        if (request.keep_current) kept.push_back(std::move(bench_case));
    };
    auto status = for_each_run_case(
        request.baseline_inputs,
        request.current_cases ? std::vector<std::string>{} : request.current_inputs,
        [&](std::size_t run, bench::BenchCase&& bench_case) { runs.baseline[run].add(bench_case); },
        on_current, diagnostics);
    if (!status) return status.error();
    if (request.current_cases) {
        for (auto bench_case : *request.current_cases) on_current(std::move(bench_case));
    }
    return runs;
}

}  // namespace

Status for_each_run_case(const std::vector<std::string>& baseline_inputs,
                         const std::vector<std::string>& current_inputs,
                         const std::function<void(std::size_t, bench::BenchCase&&)>& on_baseline,
                         const bench::CaseSink& on_current, Diagnostics& diagnostics) {
    for (std::size_t run = 0; run < baseline_inputs.size(); ++run) {
        auto status = bench::for_each_bench_case(
            {baseline_inputs[run]}, bench::LoadOptions{}, diagnostics,
            [&](bench::BenchCase&& bench_case) { on_baseline(run, std::move(bench_case)); });
        if (!status) return with_role(status.error(), "baseline");
    }
    if (current_inputs.empty()) return ok_status();
    auto status =
        bench::for_each_bench_case(current_inputs, bench::LoadOptions{}, diagnostics, on_current);
    if (!status) return with_role(status.error(), "current run");
    return ok_status();
}

Result<Config> load_config(const std::string& path) {
    auto text = io::read_file(path);
    if (!text) return text.error();
    return parse_config(*text, path);
}

void apply_config(Config config, Options& options) {
    if (config.threshold_pct) options.tolerance.threshold_pct = *config.threshold_pct;
    if (config.min_delta_us) options.tolerance.min_delta_us = *config.min_delta_us;
    options.overrides = std::move(config.cases);
    options.ignore = std::move(config.ignore);
    options.allow_missing.insert(options.allow_missing.end(), config.allow_missing.begin(),
                                 config.allow_missing.end());
}

Status resolve_options(const OptionFlags& flags, Options& options) {
    options.metric = parse_metric(flags.metric).value_or(Metric::Mean);
    options.fence = flags.fence == "iqr" ? FenceMethod::Iqr : FenceMethod::Mad;
    options.geomean_threshold_pct = flags.geomean_threshold_pct;
    if (!flags.config_path.empty()) {
        auto config = load_config(flags.config_path);
        if (!config) return config.error();
        apply_config(std::move(*config), options);
    }
    if (flags.threshold_pct) options.tolerance.threshold_pct = *flags.threshold_pct;
    if (flags.min_delta_us) options.tolerance.min_delta_us = *flags.min_delta_us;
    return ok_status();
}

Result<GateOutcome> run_gate(const GateRequest& request, const Options& options,
                             const ReportSettings& settings, const rules::Catalogue* catalogue,
                             Diagnostics& diagnostics) {
    GateOutcome outcome;
    std::vector<std::string> history_notes;
    // The CI results the reader loads for the cases, kept (without their samples) for the notes
    // and upstream's comparison below: each input is read once.
    ciresult::KeptResults kept(ciresult::KeptResults::Keep::WithoutSamples);
    {
        auto runs = load_digests(request, outcome.current, diagnostics);
        if (!runs) return runs.error();
        Evaluation evaluation(options);
        for_each_pair(
            runs->baseline, runs->current, diagnostics,
            [&](CaseInput&& input) { evaluation.add(std::move(input)); },
            [&](std::size_t cases) { evaluation.reserve(cases); });
        outcome.result = evaluation.finish();
        hold_cases(runs->held, outcome);
        history_notes = std::move(runs->notes);
    }  // the runs are freed before the report is built
    // A summary refused as damaged (an implausible round count, times out of order) is said on
    // stderr too: the table's verdict alone is easy to miss in a long gate.
    for (const CaseResult& c : outcome.result.cases)
        if (c.invalid_input)
            diagnostics.warn("", 0,
                             fmt::format("{}: refused, incomparable: {}", c.name, c.reason.str()));
    outcome.report = make_report(outcome.result, settings);
    for (auto& note : history_notes) outcome.report.notes.push_back(std::move(note));
    // An identity's case over both thresholds is flagged, to be confirmed (§3.6 item 5).
    for (const CaseResult& c : outcome.result.cases) {
        if (history_notes.empty() || c.verdict != Verdict::Regressed || !c.delta_pct || !c.delta_us)
            continue;
        outcome.report.notes.push_back(fmt::format(
            "{}: flagged: {:+.2f}%, {:+.1f} µs over the baseline median, above both thresholds "
            "({}%, {} µs): run parent, candidate, candidate, parent and ptune history confirm",
            c.name, *c.delta_pct, *c.delta_us, c.tolerance.threshold_pct,
            c.tolerance.min_delta_us));
    }
    // The rules see one case at a time (findings.hpp): no metric map per case.
    if (catalogue != nullptr)
        outcome.report.findings = case_findings(outcome.result, options, *catalogue);
    // Daily-CI / suite results: rule notes, the §2.7 comparison table.
    outcome.ci_refused = ciresult::annotate_gate(request.baseline_inputs, request.current_inputs,
                                                 outcome.report, &kept);
    return outcome;
}

Status check_sides(const std::vector<std::string>& baselines, const std::string& history,
                   const std::vector<std::string>& current) {
    if ((baselines.empty() && history.empty()) || current.empty())
        return Error{"bench-gate needs --baseline and --current (see ptune help bench-gate)", "", 0,
                     ExitCode::InputError};
    if (!baselines.empty() && !history.empty())
        return Error{"--baseline and --history exclude each other", "", 0, ExitCode::InputError};
    return ok_status();
}

Status require_compared(const GateResult& result) {
    if (result.compared() > 0) return ok_status();
    // Wrong baseline, renamed cases, other rounds: the report says why, but it is no pass.
    return Error{
        "no case could be compared with the baseline; a gate that compared nothing does "
        "not pass. Cases pair by name: label each side, e.g. --baseline "
        "decode=base.log --current decode=run.log",
        "", 0, ExitCode::InputError};
}

Status save_baseline(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<bench::BenchCase>& current, bool regressed, bool force,
                     Diagnostics& diagnostics) {
    if (regressed && !force) {
        diagnostics.warn(path, 0,
                         "not written: the current run regressed (use --force-save to write it "
                         "anyway)");
        return ok_status();
    }
    auto output = io::AtomicOutput::open(path, inputs);
    if (!output) return output.error();
    render::write_json(render::to_json(bench::cases_document(current)), (*output)->stream());
    return (*output)->commit();
}

}  // namespace ptune::gate
