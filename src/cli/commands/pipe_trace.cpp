// ptune pipe-trace FILE|DIR [--n-blocks N]: per sub-core and pipe busy time, overlap, exposed
// load, the self-check and the bottleneck pipe of one kernel's core swimlane trace
// (upstream-2026-12.md §4), judged by the pipe.* rules. The work is the pipetrace domain's
// pipeline (pipetrace/pipeline.hpp).

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/pipetrace/pipeline.hpp"

namespace ptune::cli {

namespace {

class PipeTraceCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("input", input_,
                       "<label>_trace_perfetto.json, <label>_trace.json, an Insight trace.json, "
                       "a core_swimlane_<label>_<ts>/ folder, or - for stdin")
            ->required();
        app.add_option("--n-blocks", n_blocks_,
                       "Loop trip count: MMAD and FIX_L0C_TO_DST must each reach it, else the "
                       "export is truncated and no timing conclusion is drawn")
            ->check(positive_number());
    }

    int run(Context& context) override {
        context.add_inputs({input_});
        context.add_inputs(pipetrace::folder_trace_inputs(input_));
        std::optional<std::size_t> n_blocks;
        if (n_blocks_ > 0) n_blocks = n_blocks_;
        auto loaded = pipetrace::load(input_, n_blocks, context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        rules::MetricStore store;
        pipetrace::publish(*loaded, store);
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        std::vector<rules::Finding> findings =
            rules::evaluate(**catalogue, store, {std::string(pipetrace::kRuleArea)});
        render::Report report = pipetrace::build_report(*loaded, std::move(findings));
        int code = context.emit(report);
        // A trace that breaks off: what parsed is shown, and the input error decides the exit.
        if (auto broken = pipetrace::syntax_error(*loaded)) return context.fail(*broken);
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
    std::size_t n_blocks_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_pipe_trace() {
    return std::make_unique<PipeTraceCommand>();
}

}  // namespace ptune::cli
