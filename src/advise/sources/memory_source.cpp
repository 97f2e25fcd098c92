// The memory source: the on-chip memory report (or the pass dump) through mem-report's pipeline.
// It loads even when the run has neither: publishing mem.report_found=0 is what lets M10 say so.

#include "ptune/memreport/memory_map.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

// Memory maps in the HTML report: enough for a program's kernels, bounded for huge reports.
constexpr std::size_t kMemoryMaps = 24;

class LoadedMemory : public LoadedSource {
  public:
    explicit LoadedMemory(memreport::Analysis analysis) : analysis_(std::move(analysis)) {}

    void publish(rules::MetricStore& store) override { memreport::publish(analysis_, store); }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        if (!analysis_.found()) return;
        const memreport::Report& report = analysis_.report;
        bool dump = report.origin == memreport::Origin::PassDump;
        Section section{"mem",
                        dump ? "On-chip memory (rebuilt from the pass dump; backend " +
                                   memreport::backend_text(report, analysis_.choice) + ")"
                             : "On-chip memory (memory report)",
                        memreport::usage_table(report),
                        nlohmann::json::array({memreport::to_json(report, analysis_.choice)}),
                        {}};
        advice.charts.memory_fill = memreport::usage_bars(report);
        advice.charts.memory_maps = memreport::memory_maps(report, kMemoryMaps);
        advice.sections.push_back(std::move(section));
    }

  private:
    memreport::Analysis analysis_;
};

class MemorySource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::MemoryReport}; }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        std::vector<std::filesystem::path> reports;
        for (const Artifact* artifact : context.inventory.of(ArtifactKind::MemoryReport))
            reports.push_back(artifact->path);
        auto analysis = memreport::load_and_analyze(
            memreport::choose_report(reports, context.inventory.run_dir, context.diagnostics), {},
            context.diagnostics);
        if (!analysis) {
            context.diagnostics.warn(analysis.error().file, analysis.error().line,
                                     analysis.error().message);
            return nullptr;
        }
        return std::make_unique<LoadedMemory>(std::move(*analysis));
    }
};

}  // namespace

std::unique_ptr<Source> make_memory_source() {
    return std::make_unique<MemorySource>();
}

}  // namespace ptune::advise
