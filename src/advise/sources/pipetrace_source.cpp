// The pipe-trace source: each core swimlane trace of the run (upstream-2026-12.md §4) through
// pipe-trace's pipeline; one overview row per trace, metrics on the `kernel` subject named by
// the label's kernel name (what the cross rule X7 sets against the PMU's bottleneck).

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/pipetrace/pipeline.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedPipeTraces : public LoadedSource {
  public:
    explicit LoadedPipeTraces(std::vector<pipetrace::Loaded> traces) : traces_(std::move(traces)) {}

    void publish(rules::MetricStore& store) override {
        for (const auto& loaded : traces_) pipetrace::publish(loaded, store);
    }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        render::Table table{
            "",
            {"kernel", "sub-cores", "span", "bottleneck", "exposed load", "self-check"},
            {render::Align::Left, render::Align::Right, render::Align::Right, render::Align::Left,
             render::Align::Right, render::Align::Left},
            {}};
        table.units = {"", "", "µs", "", "", ""};
        nlohmann::json data = nlohmann::json::array();
        for (const auto& loaded : traces_) {
            const pipetrace::Analysis& analysis = loaded.analysis;
            note_read(advice.inventory, ArtifactKind::PipeTrace, loaded.path,
                      fmt::format("{} instruction(s) on {} sub-core(s)", loaded.trace.instructions,
                                  analysis.subcores.size()));
            std::string bottleneck =
                analysis.bottleneck
                    ? fmt::format("{} ({})", pmu::to_string(*analysis.bottleneck),
                                  stats::format_ratio(analysis.bottleneck_utilisation))
                    : "-";
            table.rows.push_back(
                {pipetrace::subject_name(loaded), std::to_string(analysis.subcores.size()),
                 stats::format_fixed(analysis.span, 3), bottleneck,
                 stats::format_ratio(analysis.exposed_share),
                 analysis.check.truncated ? "truncated: no timing conclusion"
                                          : (analysis.check.applicable ? "consistent" : "n/a")});
            data.push_back(pipetrace::build_report(loaded, {}).data);
        }
        advice.sections.push_back({"pipe-trace",
                                   "Pipes in the core swimlane traces (one kernel each)",
                                   std::move(table),
                                   {{"traces", std::move(data)}},
                                   {"exposed load: MTE2 busy time under neither CUBE nor VECTOR, "
                                    "as a share of the sub-core's span; times in trace units"}});
    }

  private:
    std::vector<pipetrace::Loaded> traces_;
};

class PipeTraceSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::PipeTrace}; }

    // Each trace on its own: one that cannot be read costs only itself; one that breaks off is
    // analysed as far as it goes (the self-check then draws no timing conclusion).
    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        std::vector<pipetrace::Loaded> traces;
        for (const Artifact* artifact : context.inventory.of(ArtifactKind::PipeTrace)) {
            auto loaded =
                pipetrace::load(artifact->path.string(), std::nullopt, context.diagnostics);
            if (!loaded) {
                context.diagnostics.warn(loaded.error().file, loaded.error().line,
                                         loaded.error().message);
                continue;
            }
            if (auto broken = pipetrace::syntax_error(*loaded))
                context.diagnostics.warn(broken->file, broken->line, broken->message);
            traces.push_back(std::move(*loaded));
        }
        if (traces.empty()) return nullptr;
        return std::make_unique<LoadedPipeTraces>(std::move(traces));
    }
};

}  // namespace

std::unique_ptr<Source> make_pipetrace_source() {
    return std::make_unique<PipeTraceSource>();
}

}  // namespace ptune::advise
