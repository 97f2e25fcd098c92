// ptune bench-gate --baseline B... --current C...: a CI gate on effective_us regressions
// (spec: conventions.md §1.8, bench-log.md §5). Baseline and current are anything
// bench-summary reads; each --baseline argument is one run, several make a history.

#include <cstdlib>

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/gate/perf_guard.hpp"
#include "ptune/gate/pipeline.hpp"

namespace ptune::cli {

namespace {

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
        app.add_option("--metric", flags_.metric,
                       "Statistic compared: mean (the CI number), median or min")
            ->check(CLI::IsMember({"mean", "median", "min"}));
        app.add_option("--threshold", flags_.threshold_pct,
                       "Relative change that counts, in percent (default 5)")
            ->check(non_negative_number());
        app.add_option("--min-delta-us", flags_.min_delta_us,
                       "Absolute change that counts, in us (default 0.5)")
            ->check(non_negative_number());
        app.add_option("--config", flags_.config_path,
                       "JSON file: threshold_pct, min_delta_us, per-case overrides, ignore list");
        app.add_option("--alpha", options_.alpha,
                       "Family-wise error rate for p-value tests, Holm (default 0.05)")
            ->check(CLI::Range(0.0, 1.0));
        app.add_option("--fence", flags_.fence,
                       "History noise fence: mad (median +- k*1.4826*MAD) or iqr (Q3 + k*IQR)")
            ->check(CLI::IsMember({"mad", "iqr"}));
        app.add_option("--fence-k", options_.fence_k, "Width of the history fence (default 3)")
            ->check(non_negative_number());
        app.add_option("--min-history", options_.min_history,
                       "Baseline runs needed before the history fence decides (default 5)")
            ->check(CLI::Range(2, 1000000));
        app.add_option("--geomean-threshold", flags_.geomean_threshold_pct,
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
        if (auto sides = gate::check_sides(baseline_inputs_, history_, current_inputs_); !sides)
            return context.fail(sides.error());
        context.add_labelled_inputs(baseline_inputs_);
        context.add_labelled_inputs(current_inputs_);
        if (auto guard = gate::perf_guard::detect_baseline(baseline_inputs_)) {
            if (!*guard) return context.fail(guard->error());
            return run_perf_guard(context, std::move(**guard));
        }
        if (!flags_.config_path.empty()) context.add_inputs({flags_.config_path});
        if (auto status = gate::resolve_options(flags_, options_); !status)
            return context.fail(status.error());
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());

        gate::ReportSettings settings{options_, warn_only_, false};
        settings.rows_on_demand = true;  // written below, while `outcome` holds the cases
        // JSON, gab-json and annotations read no table; the step summary is Markdown.
        const char* step_summary = std::getenv("GITHUB_STEP_SUMMARY");
        settings.tables = context.options.format == "text" ||
                          context.options.format == "markdown" ||
                          (step_summary != nullptr && *step_summary != '\0');
        auto outcome =
            gate::run_gate({baseline_inputs_, history_, current_inputs_, !save_baseline_.empty()},
                           options_, settings, &**catalogue, context.diagnostics);
        if (!outcome) return context.fail(outcome.error());
        const auto& result = outcome->result;

        context.flush_diagnostics();
        std::map<std::string, std::shared_ptr<render::Renderer>> custom = {
            {"github", gate::make_github_renderer(result, settings)},
            {"gab-json", gate::make_gab_json_renderer(result)},
            {"json", gate::make_json_renderer(result)}};
        if (int code = context.emit(outcome->report, custom); code != 0) return code;
        if (int code = context.append_step_summary("bench-gate", outcome->report); code != 0)
            return code;
        if (auto compared = gate::require_compared(result); !compared && outcome->held.empty())
            return context.fail(compared.error());
        if (!save_baseline_.empty()) {
            auto saved = gate::save_baseline(save_baseline_, context.inputs(), outcome->current,
                                             result.failed(), force_save_, context.diagnostics);
            context.flush_diagnostics();
            if (!saved) return context.fail(saved.error());
        }
        return (result.failed() || outcome->ci_refused > 0) && !warn_only_
                   ? static_cast<int>(ExitCode::Findings)
                   : 0;
    }

  private:
    // pypto's .github/perf_baselines/*.json: perf_guard.py's contract (perf_guard.hpp).
    int run_perf_guard(Context& context, gate::perf_guard::Baseline baseline) const {
        auto outcome =
            gate::perf_guard::run(std::move(baseline), current_inputs_, context.diagnostics);
        if (!outcome) return context.fail(outcome.error());
        const auto report = gate::perf_guard::make_report(*outcome);
        std::shared_ptr<render::Renderer> github =
            gate::perf_guard::make_github_renderer(*outcome, warn_only_);
        if (int code = context.emit(report, {{"github", github}}); code != 0) return code;
        if (int code = context.append_step_summary("perf_guard", report); code != 0) return code;
        return outcome->failed() && !warn_only_ ? static_cast<int>(ExitCode::Findings) : 0;
    }

    std::vector<std::string> baseline_inputs_;
    std::string history_;
    std::vector<std::string> current_inputs_;
    gate::OptionFlags flags_;
    bool warn_only_ = false;
    std::string save_baseline_;
    bool force_save_ = false;
    gate::Options options_;
};
}  // namespace

std::unique_ptr<Command> make_bench_gate() {
    return std::make_unique<BenchGateCommand>();
}

}  // namespace ptune::cli
