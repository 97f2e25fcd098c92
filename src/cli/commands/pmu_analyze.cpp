// ptune pmu-analyze PMU.csv|DIR [--names FILE | -k kernel_config.py]: each kernel's bottleneck
// pipe from simpler's pmu.csv, classified by the pmu.* rules.

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/discover.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/kernel_names.hpp"
#include "ptune/pmu/parser.hpp"
#include "ptune/pmu/report.hpp"

namespace ptune::cli {

namespace {

namespace fs = std::filesystem;

Error input_error(std::string message, std::string file = "") {
    return Error{std::move(message), std::move(file), 0, ExitCode::InputError};
}

// A directory names a run (or build_output/, whose newest run is taken), its dfx_outputs/ or a
// folder above; exactly one pmu.csv must be under it, because func_id numbering (and so the
// names) is per program.
Result<std::string> resolve_csv(const std::string& input, Diagnostics& diagnostics) {
    std::error_code error;
    if (input == io::kStdinName || !fs::is_directory(input, error)) return input;
    std::string chosen;
    auto run = discover::resolve_run(input, "", 1, &chosen);
    if (!run) return run.error();
    if (!chosen.empty()) diagnostics.note(input, 0, chosen);
    auto found = discover::find_files(*run, {"pmu.csv"});
    if (found.size() == 1) return found.front().string();
    if (found.empty()) {
        auto shards = discover::find_files(*run, {"pmu.csv.shard*"});
        if (!shards.empty()) {
            return input_error(
                fmt::format("no pmu.csv, but {} is left: the collector's shard merge "
                            "failed",
                            shards.front().string()),
                run->string());
        }
        return input_error("no pmu.csv here (run with --enable-pmu 2)", run->string());
    }
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < found.size() && i < 4; ++i) listed.push_back(found[i].string());
    return input_error(fmt::format("{} pmu.csv files (L3 ranks or devices, each with its own "
                                   "func_id names): name one, e.g. {}",
                                   found.size(), fmt::join(listed, ", ")),
                       run->string());
}

class PmuAnalyzeCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("input", input_,
                       "pmu.csv, a directory holding one (dfx_outputs/), or - for stdin")
            ->required();
        auto names = app.add_option("--names", names_file_,
                                    "func_id -> kernel names: name_map_*.json or kernel_config.py "
                                    "(default: found next to pmu.csv or one folder up)");
        app.add_option("-k,--kernel-config", kernel_config_,
                       "kernel_config.py whose KERNELS name the funcs")
            ->excludes(names);
        app.add_option(
               "--aicore-mhz", aicore_mhz_,
               "AICore clock in MHz (pmu.csv has none): adds microseconds per task and rule P9")
            ->check(CLI::PositiveNumber);
        app.add_flag("--rows", rows_, "Also list every row (CSV: the rows instead of the kernels)");
    }

    int run(Context& context) override {
        auto csv_path = resolve_csv(input_, context.diagnostics);
        if (!csv_path) return context.fail(csv_path.error());
        context.add_inputs({*csv_path});

        pmu::KernelNames names;
        std::string names_path = !names_file_.empty() ? names_file_ : kernel_config_;
        if (!names_path.empty()) {
            context.add_inputs({names_path});
            auto loaded = pmu::load_kernel_names(names_path, context.diagnostics);
            if (!loaded) return context.fail(loaded.error());
            names = std::move(*loaded);
        } else if (*csv_path != io::kStdinName) {
            if (auto found = pmu::find_kernel_names(*csv_path)) {
                auto loaded = pmu::load_kernel_names(*found, context.diagnostics);
                if (loaded) {
                    names = std::move(*loaded);
                    context.add_inputs({found->string()});
                } else {
                    context.diagnostics.warn(loaded.error().file, loaded.error().line,
                                             loaded.error().message + "; kernels stay unnamed");
                }
            }
        }

        auto input = io::open_input(*csv_path);
        if (!input) return context.fail(input.error());
        auto table = pmu::parse_pmu_csv(input->stream(), *csv_path, context.diagnostics);
        if (!table) return context.fail(table.error());
        if (table->rows.empty()) {
            return context.fail(
                input_error("no usable rows (a header only, or every row was bad)", *csv_path));
        }

        pmu::AnalyzeOptions options;
        if (aicore_mhz_ > 0) options.aicore_mhz = aicore_mhz_;
        pmu::Analysis analysis = pmu::analyze(*table, names, options, context.diagnostics);
        rules::MetricStore store;
        pmu::publish_metrics(*table, analysis, store);
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        std::vector<rules::Finding> findings = rules::evaluate(**catalogue, store, {"pmu."});
        bool has_problems = std::any_of(
            findings.begin(), findings.end(),
            [](const rules::Finding& f) { return f.severity != rules::RuleSeverity::Info; });

        pmu::ReportOptions report_options;
        report_options.row_table = rows_;
        report_options.machine_cells = context.options.format == "csv";
        report_options.names_source = names.empty() ? "" : names.source;
        render::Report report =
            pmu::build_report(*table, analysis, std::move(findings), report_options);
        if (int code = context.emit(report, {{"json", pmu::make_json_renderer(*table, analysis)}});
            code != 0) {
            return code;
        }
        return static_cast<int>(has_problems ? ExitCode::Findings : ExitCode::Ok);
    }

  private:
    std::string input_;
    std::string names_file_;
    std::string kernel_config_;
    double aicore_mhz_ = 0;
    bool rows_ = false;
};

}  // namespace

std::unique_ptr<Command> make_pmu_analyze() {
    return std::make_unique<PmuAnalyzeCommand>();
}

}  // namespace ptune::cli
