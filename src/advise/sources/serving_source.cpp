// The serving source: serving-strace-swimlane.json (upstream-2026-12.md §5) through
// serving-trace's pipeline: the WorkerProcess table, the straggler and the device lanes.

#include <fmt/format.h>

#include "ptune/serving/pipeline.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedServing : public LoadedSource {
  public:
    explicit LoadedServing(serving::Loaded loaded) : loaded_(std::move(loaded)) {}

    void publish(rules::MetricStore& store) override { serving::publish(loaded_, store); }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        note_read(advice.inventory, ArtifactKind::ServingTrace, loaded_.path,
                  fmt::format("{} worker process(es), {} device lane(s)",
                              loaded_.analysis.workers.size(), loaded_.analysis.devices.size()));
        render::Report report = serving::build_report(loaded_, {});
        advice.sections.push_back({"serving", "Serving trace: tasks per WorkerProcess",
                                   report.tables.at(0), report.data, report.notes});
        if (report.tables.size() > 1)
            advice.sections.push_back({"serving-devices",
                                       "Serving trace: device lanes against the serving window",
                                       report.tables.at(1),
                                       nlohmann::json::object(),
                                       {}});
    }

  private:
    serving::Loaded loaded_;
};

class ServingSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::ServingTrace}; }

    // The first usable file (a run profiles one serving window); the others are warned about.
    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        for (const Artifact* artifact : context.inventory.of(ArtifactKind::ServingTrace)) {
            auto loaded = serving::load(artifact->path.string(), context.diagnostics);
            if (!loaded) {
                context.diagnostics.warn(loaded.error().file, loaded.error().line,
                                         loaded.error().message);
                continue;
            }
            if (auto broken = serving::syntax_error(*loaded))
                context.diagnostics.warn(broken->file, broken->line, broken->message);
            return std::make_unique<LoadedServing>(std::move(*loaded));
        }
        return nullptr;
    }
};

}  // namespace

std::unique_ptr<Source> make_serving_source() {
    return std::make_unique<ServingSource>();
}

}  // namespace ptune::advise
