// ptune pmu-analyze PMU.csv|DIR [--names FILE | -k kernel_config.py]: each kernel's bottleneck
// pipe from simpler's pmu.csv, classified by the pmu.* rules. Locating the csv and its names is
// the pmu domain's pipeline (pmu/pipeline.hpp).

#include "cli/commands/commands.hpp"
#include "cli/commands/l3_tree.hpp"
#include "cli/safety.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/pipeline.hpp"
#include "ptune/pmu/report.hpp"

namespace ptune::cli {

namespace {

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
            ->check(positive_number());
        app.add_flag("--rows", rows_, "Also list every row (CSV: the rows instead of the kernels)");
        l3_.add_to(app);
    }

    int run(Context& context) override {
        // An L3 tree (rank*/d*/pmu.csv): every rank, then across ranks (docs/L3.md).
        if (l3_.selected() || (input_ != "-" && is_l3_tree(input_))) {
            if (!names_file_.empty() || !kernel_config_.empty() || rows_)
                return context.fail(
                    Error{"--names, -k and --rows apply to one pmu.csv; an L3 "
                          "tree uses the names next to each rank*/d*/pmu.csv",
                          input_, 0, ExitCode::InputError});
            std::optional<double> mhz;
            if (aicore_mhz_ > 0) mhz = aicore_mhz_;
            return run_l3_analysis(context, input_, l3_, l3::Source::Pmu,
                                   {l3::thread_count(), mhz});
        }
        auto csv_path = pmu::resolve_csv(input_, context.diagnostics);
        if (!csv_path) return context.fail(csv_path.error());
        auto loaded = pmu::load_pmu(*csv_path, !names_file_.empty() ? names_file_ : kernel_config_,
                                    context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        context.add_inputs(loaded->inputs);
        const pmu::PmuTable& table = loaded->table;
        const KernelNames& names = loaded->names;
        if (table.rows.empty()) {
            return context.fail(Error{"no usable rows (a header only, or every row was bad)",
                                      *csv_path, 0, ExitCode::InputError});
        }

        pmu::AnalyzeOptions options;
        if (aicore_mhz_ > 0) options.aicore_mhz = aicore_mhz_;
        pmu::Analysis analysis = pmu::analyze(table, names, options, context.diagnostics);
        rules::MetricStore store;
        pmu::publish_metrics(table, analysis, store);
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        std::vector<rules::Finding> findings = rules::evaluate(**catalogue, store, {"pmu."});

        pmu::ReportOptions report_options;
        report_options.row_table = rows_;
        report_options.machine_cells = context.options.format == "csv";
        report_options.names_source = names.empty() ? "" : names.source;
        render::Report report =
            pmu::build_report(table, analysis, std::move(findings), report_options);
        int code = context.emit(report, {{"json", pmu::make_json_renderer(table, analysis)}});
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
    std::string names_file_;
    std::string kernel_config_;
    double aicore_mhz_ = 0;
    bool rows_ = false;
    L3Options l3_;
};

}  // namespace

std::unique_ptr<Command> make_pmu_analyze() {
    return std::make_unique<PmuAnalyzeCommand>();
}

}  // namespace ptune::cli
