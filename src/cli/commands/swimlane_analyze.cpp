// ptune swimlane-analyze RECORDS|DIR [--deps F] [--names F]: the schedule problems of the tuning
// guide's Part 1, measured on one chip swimlane capture (swimlane.md §10) and judged by the
// L2.* rules. The pipeline and the report are the swimlane domain's (swimlane/pipeline.hpp).

#include "cli/commands/commands.hpp"
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
    }

    int run(Context& context) override {
        swimlane::LoadRequest request;
        request.input = input_;
        request.deps = deps_;
        request.names = names_;
        auto found = swimlane::find_captures(request);
        if (!found) return context.fail(found.error());
        for (const auto& note : found->notes) context.diagnostics.note(input_, 0, note);
        auto files = swimlane::only_capture(*found, input_);
        if (!files) return context.fail(files.error());
        auto loaded = swimlane::load_capture(*files, request, context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        context.add_inputs(loaded->inputs);
        if (loaded->capture.tasks.empty()) {
            return context.fail(Error{"no AICore task rows to analyze",
                                      loaded->files.records.string(), 0, ExitCode::InputError});
        }

        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        auto result = swimlane::analyze_capture(*loaded, swimlane::analyze_options(**catalogue));
        rules::MetricStore store;
        swimlane::publish(result, store);
        render::Report report = swimlane::build_report(
            *loaded, result, store, rules::evaluate(**catalogue, store, {"L2."}));

        int code = context.emit(report);
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
    std::string deps_;
    std::string names_;
};

}  // namespace

std::unique_ptr<Command> make_swimlane_analyze() {
    return std::make_unique<SwimlaneAnalyzeCommand>();
}

}  // namespace ptune::cli
