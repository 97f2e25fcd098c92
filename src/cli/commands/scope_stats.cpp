// ptune scope-stats FILE|DIR [--host-log LOG] [--top N]: per ring and scope, the task window,
// heap, dep pool and tensormap pressure of scope_stats.jsonl (upstream-2026-09.md §3), judged
// by the ring.* rules. The work is the scope domain's pipeline (scope/pipeline.hpp).

#include "cli/commands/commands.hpp"
#include "cli/safety.hpp"
#include "ptune/scope/pipeline.hpp"

namespace ptune::cli {

namespace {

class ScopeStatsCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("input", input_,
                       "scope_stats.jsonl, a directory holding scope_stats/scope_stats.jsonl "
                       "(dfx_outputs/, rank<N>/d<K>/), or - for stdin")
            ->required();
        app.add_option("--host-log", host_log_,
                       "host log naming the orch_error_code of a failed run (default: host.*.log "
                       "beside or above the file)");
        app.add_option("--top", top_, "Rows in the 'nearest their limit' table (default 10)")
            ->check(positive_number());
    }

    int run(Context& context) override {
        auto loaded = scope::load(input_, host_log_, context.diagnostics);
        if (!loaded) return context.fail(loaded.error());
        context.add_inputs(loaded->inputs);
        rules::MetricStore store;
        scope::publish(*loaded, store);
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        std::vector<rules::Finding> findings =
            rules::evaluate(**catalogue, store, {std::string(scope::kRuleArea)});
        // Every scope is in the JSON output only, written one at a time: no format builds
        // that view as a DOM (~5 KB a scope).
        render::Report report =
            scope::build_report(*loaded, std::move(findings), top_, /*json_view=*/false);
        int code = context.emit(report, {{"json", scope::make_json_renderer(*loaded)}});
        return code != 0 ? code : context.findings_exit(report.findings);
    }

  private:
    std::string input_;
    std::string host_log_;
    std::size_t top_ = 10;
};

}  // namespace

std::unique_ptr<Command> make_scope_stats() {
    return std::make_unique<ScopeStatsCommand>();
}

}  // namespace ptune::cli
