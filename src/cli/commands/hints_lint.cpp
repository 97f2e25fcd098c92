// ptune hints-lint LOG|DIR...: perf_hints.log as compiler diagnostics (gcc, json, sarif,
// github), with catalogue advice, inline suppressions and a baseline. See docs/HINTS-LINT.md.

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/io.hpp"
#include "ptune/hints/lint.hpp"
#include "ptune/hints/pipeline.hpp"
#include "ptune/hints/render.hpp"

namespace ptune::cli {

namespace {

namespace fs = std::filesystem;

class HintsLintCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("inputs", inputs_,
                       "perf_hints.log files, build directories or build_output/ ('-' is stdin)")
            ->required();
        app.add_option("--baseline", baseline_path_,
                       "Report only hints not in this baseline; baseline entries gone are "
                       "reported as fixed");
        app.add_option("--write-baseline", write_baseline_path_,
                       "Write every current hint (not suppressed inline) to FILE as the baseline");
        app.add_option("--fail-on", fail_on_,
                       "Exit 1 when a reported hint is at least this severe: info, warning "
                       "(default), error")
            ->check(CLI::IsMember({"info", "note", "warning", "error"}));
        app.add_flag("--exit-zero", exit_zero_, "Exit 0 even when hints are reported");
        app.add_option("--root", root_,
                       "Kernel repository root: paths are printed relative to it and relative "
                       "source paths are read under it");
        app.add_flag("--absolute-paths", absolute_paths_,
                     "Cite every source file by its absolute path (default: paths openable from "
                     "the working directory, or relative to --root)");
        app.add_option("--column-base", column_base_,
                       "Column base of the logs: auto (dating markers), 0 or 1")
            ->check(CLI::IsMember({"auto", "0", "1"}));
        app.add_flag("--no-inline-suppressions", no_inline_,
                     "Ignore '# ptune: ignore[CODE]' comments in kernel sources");
        app.add_option("--max-annotations", max_annotations_,
                       "github format: annotations per level (GitHub shows 10 per step)")
            ->check(CLI::Range(1, 1000));
    }

    int run(Context& context) override {
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());

        hints::LogPaths found = hints::find_logs(inputs_, context.diagnostics);
        context.add_inputs(found.logs);
        hints::ReadOptions read_options;
        if (column_base_ != "auto") read_options.column_base = column_base_ == "0" ? 0 : 1;
        std::vector<hints::ParsedLog> parsed =
            hints::read_logs(found.logs, read_options, context.diagnostics);
        if (parsed.empty() && !found.clean_directory) {
            return context.fail(
                Error{"nothing to lint: no readable perf_hints.log", "", 0, ExitCode::InputError});
        }

        hints::LintOptions options;
        if (!root_.empty()) options.root = fs::absolute(root_).lexically_normal();
        options.inline_suppressions = !no_inline_;
        options.absolute_paths = absolute_paths_;
        hints::LintResult result =
            hints::lint(std::move(parsed), **catalogue, options, context.diagnostics);
        rules::MetricStore store;
        hints::publish(result, store);

        if (!baseline_path_.empty()) {
            auto text = io::read_file(baseline_path_);
            if (!text) return context.fail(text.error());
            auto baseline = hints::parse_baseline(*text, baseline_path_);
            if (!baseline) return context.fail(baseline.error());
            hints::apply_baseline(result, *baseline);
        }
        if (!write_baseline_path_.empty()) {
            if (int code = write_baseline(context, result); code != 0) return code;
        }
        hints::report_side_notes(result, baseline_path_, context.diagnostics);

        render::Report report;
        report.command = "hints-lint";
        report.include_findings_in_json = false;
        // The JSON view holds every hint again: written one hint at a time (make_json_renderer).
        std::map<std::string, std::shared_ptr<render::Renderer>> renderers = {
            {"json", hints::make_json_renderer(result)},
            {"gcc", hints::make_gcc_renderer(result)},
            {"sarif", hints::make_sarif_renderer(result, **catalogue, !baseline_path_.empty())},
            {"github", hints::make_github_renderer(result, max_annotations_)}};
        if (int code = context.emit(report, renderers); code != 0) return code;
        return exit_code(context, result);
    }

  private:
    int write_baseline(Context& context, hints::LintResult& result) {
        auto output = context.open_output(write_baseline_path_);
        if (!output) return context.fail(output.error());
        (*output)->stream() << hints::baseline_json(result);
        if (auto status = (*output)->commit(); !status) return context.fail(status.error());
        context.diagnostics.note(
            write_baseline_path_, 0,
            fmt::format("baseline written with {} hint(s)", hints::adopt_as_baseline(result)));
        return 0;
    }

    // The table's fail-on severity, changed by --fail-on and --exit-zero, over reported hints.
    int exit_code(Context& context, const hints::LintResult& result) const {
        if (!fail_on_.empty()) context.options.fail_on = rules::parse_severity(fail_on_);
        if (exit_zero_) context.options.fail_on.reset();
        std::optional<rules::RuleSeverity> worst;
        for (const auto& d : result.diagnostics) {
            if (d.disposition == hints::Disposition::Reported && (!worst || d.severity > *worst))
                worst = d.severity;
        }
        return context.findings_exit(worst);
    }

    std::vector<std::string> inputs_;
    std::string baseline_path_;
    std::string write_baseline_path_;
    std::string fail_on_;  // empty: the command table's severity (warning)
    bool exit_zero_ = false;
    std::string root_;
    bool absolute_paths_ = false;
    std::string column_base_ = "auto";
    bool no_inline_ = false;
    std::size_t max_annotations_ = 10;
};

}  // namespace

std::unique_ptr<Command> make_hints_lint() {
    return std::make_unique<HintsLintCommand>();
}

}  // namespace ptune::cli
