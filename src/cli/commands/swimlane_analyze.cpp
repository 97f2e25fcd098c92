// ptune swimlane-analyze RECORDS|DIR [--deps F] [--names F]: the schedule problems of the tuning
// guide's Part 1, measured on one chip swimlane capture (swimlane.md §10) and judged by the
// L2.* rules. The pipeline and the report are the swimlane domain's (swimlane/pipeline.hpp).

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "cli/commands/l3_tree.hpp"
#include "ptune/swimlane/cpm.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/report.hpp"

namespace ptune::cli {

namespace {

class SwimlaneAnalyzeCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option(
               "input", input_,
               "chip_swimlane_records.json ('-' is stdin), or a dfx_outputs/ or build_output/ "
               "directory")
            ->required();
        app.add_option("--deps", deps_, "deps.json (default: the records file's sibling)");
        app.add_option("--names", names_,
                       "name_map_*.json or kernel_config.py (default: the sibling name map)");
        l3_.add_to(app);
        app.add_option("--host-log", host_logs_,
                       "Host log(s) placing a host_build_graph level-3/4 capture on the host clock "
                       "(default: the sibling host_clock_alignment.*.log, else host.*.log); forces "
                       "a fresh alignment. ptune never writes the result into the records file");
    }

    int run(Context& context) override {
        // An L3 tree (rank*/d*/): every rank, then across ranks (docs/L3.md).
        if (l3_.selected() || is_l3_tree(input_)) {
            if (!deps_.empty() || !names_.empty())
                return context.fail(
                    Error{"--deps and --names apply to a single capture; an L3 "
                          "tree uses the files next to each rank*/d*/ records",
                          input_, 0, ExitCode::InputError});
            return run_l3_analysis(context, input_, l3_, l3::Source::Swimlane,
                                   {l3::thread_count(), std::nullopt});
        }
        swimlane::LoadRequest request;
        request.input = input_;
        request.deps = deps_;
        request.names = names_;
        request.host_logs.assign(host_logs_.begin(), host_logs_.end());
        auto found = swimlane::find_captures(request);
        if (!found) return context.fail(found.error());
        for (const auto& note : found->notes) context.diagnostics.note(input_, 0, note);
        auto files = swimlane::only_capture(*found, input_);
        if (!files) return context.fail(files.error());
        add_capture_folder_inputs(context, {*files}, input_);
        auto loaded = swimlane::load_capture(*files, request, context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        context.add_inputs(loaded->inputs);
        if (loaded->capture.tasks.empty()) {
            return context.fail(Error{"no AICore task rows to analyze",
                                      loaded->files.records.string(), 0, ExitCode::InputError});
        }

        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        auto runs = swimlane::analyze_runs(*loaded, swimlane::analyze_options(**catalogue));
        std::vector<rules::MetricStore> stores(runs.size());
        std::vector<std::vector<rules::Finding>> findings;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            swimlane::publish(runs[k], stores[k]);
            findings.push_back(rules::evaluate(**catalogue, stores[k], {"L2."}));
        }
        // deps.json is shared by every run of the file: a cycle is said once.
        if (const auto& cycle = runs.front().analysis.critical_path.cycle; !cycle.empty()) {
            context.diagnostics.warn(deps_.empty() ? loaded->files.deps.string() : deps_, 0,
                                     fmt::format("dependency cycle {} -> {}; its tasks are left "
                                                 "out of the critical path",
                                                 fmt::join(cycle, " -> "), cycle.front()));
        }
        // A records file holding several runs: each analysed on its own (never one task
        // spanning them, upstream-2026-09.md §1.10).
        render::Report report =
            runs.size() == 1
                ? swimlane::build_report(*loaded, runs[0], stores[0], std::move(findings[0]))
                : swimlane::build_runs_report(*loaded, runs, stores, std::move(findings));
        // simpler's critical_path output beside the records describes one run: its paths
        // against ours.
        if (runs.size() == 1)
            swimlane::add_cpm_comparison(report, loaded->files.records,
                                         runs[0].analysis.critical_path, &context.diagnostics);

        int code = context.emit(report);
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
    std::string deps_;
    std::string names_;
    L3Options l3_;
    std::vector<std::string> host_logs_;
};

}  // namespace

std::unique_ptr<Command> make_swimlane_analyze() {
    return std::make_unique<SwimlaneAnalyzeCommand>();
}

}  // namespace ptune::cli
