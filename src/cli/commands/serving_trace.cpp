// ptune serving-trace FILE: per WorkerProcess task count and min/mean/max, the straggler
// worker, and the host STRACE device lanes against the serving window of
// serving-strace-swimlane.json (upstream-2026-12.md §5). The work is the serving domain's
// pipeline (serving/pipeline.hpp); findings are advice (the command reports).

#include "cli/commands/commands.hpp"
#include "ptune/serving/pipeline.hpp"

namespace ptune::cli {

namespace {

class ServingTraceCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("input", input_,
                       "serving-strace-swimlane.json, a directory holding one, or - for stdin")
            ->required();
    }

    int run(Context& context) override {
        context.add_inputs({input_});
        auto loaded = serving::load(input_, context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        rules::MetricStore store;
        serving::publish(*loaded, store);
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        std::vector<rules::Finding> findings =
            rules::evaluate(**catalogue, store, {std::string(serving::kRuleArea)});
        render::Report report = serving::build_report(*loaded, std::move(findings));
        int code = context.emit(report);
        if (auto broken = serving::syntax_error(*loaded)) return context.fail(*broken);
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
};

}  // namespace

std::unique_ptr<Command> make_serving_trace() {
    return std::make_unique<ServingTraceCommand>();
}

}  // namespace ptune::cli
