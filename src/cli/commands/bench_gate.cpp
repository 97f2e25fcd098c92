// ptune bench-gate --baseline B... --current C...: a CI gate on effective_us regressions
// (spec: conventions.md §1.8, bench-log.md §5). Baseline and current are anything
// bench-summary reads; each --baseline argument is one run, several make a history.

#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/bench/gate_pipeline.hpp"
#include "ptune/bench/perf_guard.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/ciresult/inputs.hpp"

namespace ptune::cli {

namespace {

using bench::gate::FenceMethod;

class BenchGateCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("--baseline,-b", baseline_inputs_,
                       "Baseline runs (logs, directories, results.tsv, bench-summary JSON); each "
                       "argument is one run, 5 or more form a history");
        app.add_option("--history", history_,
                       "History database (ptune history) instead of --baseline: each case's "
                       "baseline is its runs since its last change point (docs/HISTORY.md)");
        app.add_option("--current,-c", current_inputs_,
                       "The run under test (all arguments together)");
        app.add_option("--metric", metric_,
                       "Statistic compared: mean (the CI number), median or min")
            ->check(CLI::IsMember({"mean", "median", "min"}));
        app.add_option("--threshold", threshold_pct_,
                       "Relative change that counts, in percent (default 5)")
            ->check(non_negative_number());
        app.add_option("--min-delta-us", min_delta_us_,
                       "Absolute change that counts, in us (default 0.5)")
            ->check(non_negative_number());
        app.add_option("--config", config_path_,
                       "JSON file: threshold_pct, min_delta_us, per-case overrides, ignore list");
        app.add_option("--alpha", options_.alpha,
                       "Family-wise error rate for p-value tests, Holm (default 0.05)")
            ->check(CLI::Range(0.0, 1.0));
        app.add_option("--fence", fence_,
                       "History noise fence: mad (median +- k*1.4826*MAD) or iqr (Q3 + k*IQR)")
            ->check(CLI::IsMember({"mad", "iqr"}));
        app.add_option("--fence-k", options_.fence_k, "Width of the history fence (default 3)")
            ->check(non_negative_number());
        app.add_option("--min-history", options_.min_history,
                       "Baseline runs needed before the history fence decides (default 5)")
            ->check(CLI::Range(2, 1000000));
        app.add_option("--geomean-threshold", geomean_threshold_pct_,
                       "Also fail when the suite geomean rises by more than this percent")
            ->check(non_negative_number());
        app.add_option("--hard-threshold", options_.hard_threshold_pct,
                       "Slowdown in percent that fails even when the data cannot show it is "
                       "significant (verdict underpowered; default 25)")
            ->check(non_negative_number());
        app.add_flag("--require-all,!--no-require-all", options_.require_all,
                     "A baseline case without a valid current result fails (default on)");
        app.add_option("--allow-missing", options_.allow_missing,
                       "Cases (names or shell patterns) that may lack a current result");
        app.add_flag("--warn-only", warn_only_, "Report regressions but exit 0");
        app.add_option("--save-baseline", save_baseline_,
                       "Write the current run as a baseline JSON (refused after a regression)");
        app.add_flag("--force-save", force_save_, "Write --save-baseline even after a regression");
    }

    int run(Context& context) override {
        // Checked here rather than by CLI11 so that `ptune help bench-gate` still shows the help.
        if ((baseline_inputs_.empty() && history_.empty()) || current_inputs_.empty()) {
            return context.fail(
                Error{"bench-gate needs --baseline and --current (see ptune help bench-gate)", "",
                      0, ExitCode::InputError});
        }
        if (!baseline_inputs_.empty() && !history_.empty()) {
            return context.fail(
                Error{"--baseline and --history exclude each other", "", 0, ExitCode::InputError});
        }
        context.add_labelled_inputs(baseline_inputs_);
        context.add_labelled_inputs(current_inputs_);
        if (auto guard = bench::perf_guard::detect_baseline(baseline_inputs_)) {
            if (!*guard) return context.fail(guard->error());
            return run_perf_guard(context, std::move(**guard));
        }
        if (auto status = resolve_options(context); !status) return context.fail(status.error());
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());

        bench::gate::ReportSettings settings{options_, warn_only_, false};
        // JSON, gab-json and annotations read no table; the step summary is Markdown.
        const char* step_summary = std::getenv("GITHUB_STEP_SUMMARY");
        settings.tables = context.options.format == "text" ||
                          context.options.format == "markdown" ||
                          (step_summary != nullptr && *step_summary != '\0');
        auto outcome = bench::gate::run_gate(
            {baseline_inputs_, history_, current_inputs_, !save_baseline_.empty()}, options_,
            settings, **catalogue, context.diagnostics);
        if (!outcome) return context.fail(outcome.error());
        const auto& result = outcome->result;
        const std::size_t ci_refused =  // daily-CI / suite results: rule notes, §2.7 table
            ciresult::annotate_gate(baseline_inputs_, current_inputs_, outcome->report);

        context.flush_diagnostics();
        std::map<std::string, std::shared_ptr<render::Renderer>> custom = {
            {"github", bench::gate::make_github_renderer(result, settings)},
            {"gab-json", bench::gate::make_gab_json_renderer(result)},
            {"json", bench::gate::make_json_renderer(result)}};
        if (int code = context.emit(outcome->report, custom); code != 0) return code;
        if (int code = context.append_step_summary("bench-gate", outcome->report); code != 0)
            return code;
        if (result.compared() == 0) {
            // Wrong baseline, renamed cases, other rounds: the report says why, but it is no pass.
            return context.fail(Error{
                "no case could be compared with the baseline; a gate that compared nothing does "
                "not pass. Cases pair by name: label each side, e.g. --baseline "
                "decode=base.log --current decode=run.log",
                "", 0, ExitCode::InputError});
        }
        if (!save_baseline_.empty()) {
            auto saved =
                bench::gate::save_baseline(save_baseline_, context.inputs(), outcome->current,
                                           result.failed(), force_save_, context.diagnostics);
            context.flush_diagnostics();
            if (!saved) return context.fail(saved.error());
        }
        return (result.failed() || ci_refused > 0) && !warn_only_
                   ? static_cast<int>(ExitCode::Findings)
                   : 0;
    }

  private:
    // pypto's .github/perf_baselines/*.json: perf_guard.py's contract (perf_guard.hpp).
    int run_perf_guard(Context& context, bench::perf_guard::Baseline baseline) const {
        bench::perf_guard::Measurement measurement;
        for (const auto& input : current_inputs_) {
            auto status = bench::perf_guard::measure(input, measurement, context.diagnostics);
            if (!status) return context.fail(status.error());
        }
        const auto outcome = bench::perf_guard::judge(std::move(baseline), std::move(measurement));
        const auto report = bench::perf_guard::make_report(outcome);
        if (int code = context.emit(
                report, {{"github", bench::perf_guard::make_github_renderer(outcome, warn_only_)}});
            code != 0) {
            return code;
        }
        if (int code = context.append_step_summary("perf_guard", report); code != 0) return code;
        return outcome.regressed && !warn_only_ ? static_cast<int>(ExitCode::Findings) : 0;
    }

    // Precedence: built-in defaults < config file < command-line flags; per-case overrides from
    // the config file win for their case.
    Status resolve_options(Context& context) {
        options_.metric = *bench::gate::parse_metric(metric_);
        options_.fence = fence_ == "iqr" ? FenceMethod::Iqr : FenceMethod::Mad;
        options_.geomean_threshold_pct = geomean_threshold_pct_;
        if (!config_path_.empty()) {
            context.add_inputs({config_path_});
            auto config = bench::gate::load_config(config_path_);
            if (!config) return config.error();
            bench::gate::apply_config(std::move(*config), options_);
        }
        if (threshold_pct_) options_.tolerance.threshold_pct = *threshold_pct_;
        if (min_delta_us_) options_.tolerance.min_delta_us = *min_delta_us_;
        return ok_status();
    }

    std::vector<std::string> baseline_inputs_;
    std::string history_;
    std::vector<std::string> current_inputs_;
    std::string metric_ = "mean";
    std::string fence_ = "mad";
    std::optional<double> threshold_pct_;
    std::optional<double> min_delta_us_;
    std::optional<double> geomean_threshold_pct_;
    std::string config_path_;
    bool warn_only_ = false;
    std::string save_baseline_;
    bool force_save_ = false;
    bench::gate::Options options_;
};

}  // namespace

std::unique_ptr<Command> make_bench_gate() {
    return std::make_unique<BenchGateCommand>();
}

}  // namespace ptune::cli
