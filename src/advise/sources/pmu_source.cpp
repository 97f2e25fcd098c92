// The pmu source: each pmu.csv of the run through pmu-analyze's pipeline; one overview row per
// file, the first feeding the rules.

#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/pipeline.hpp"
#include "ptune/pmu/report.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class PmuFiles : public LoadedSource {
  public:
    /// Adds one file's analysis; the first one feeds the rules and the chart.
    void add(const std::string& scope, pmu::LoadedPmu loaded, pmu::Analysis analysis) {
        pmu::add_to_overview(overview_, scope, analysis);
        if (first_) return;
        first_.emplace(std::move(loaded));
        analysis_ = std::move(analysis);
    }

    void publish(rules::MetricStore& store) override {
        if (!first_) return;
        pmu::publish_metrics(first_->table, analysis_, store);
        // The schedule's share of kernel time wins when the run has swimlane records.
        for (const auto& kernel : analysis_.kernels) {
            if (kernel.cycle_share &&
                !store.subject("kernel", kernel.name).metric("advise.kernel_time_share"))
                store.set("kernel", kernel.name, "advise.kernel_time_share", *kernel.cycle_share);
        }
    }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        if (first_ && analysis_.has_pipes) add_pipe_bars(advice.charts);
        if (overview_.table.rows.empty()) return;
        advice.sections.push_back({"pmu",
                                   "Pipes (PMU counters)",
                                   std::move(overview_.table),
                                   std::move(overview_.data),
                                   {}});
    }

  private:
    void add_pipe_bars(ChartData& charts) const {
        for (const auto& kernel : analysis_.kernels) {
            if (charts.pipes.size() >= kTopRows) return;
            render::svg::StackedBar bar{kernel.name, {}};
            for (pmu::Pipe pipe : pmu::kAllPipes) {
                if (auto ratio = kernel.weighted.ratio_of(pipe))
                    bar.parts.emplace_back(std::string(pmu::to_string(pipe)), *ratio);
            }
            charts.pipes.push_back(std::move(bar));
        }
    }

    pmu::Overview overview_ = pmu::make_overview();
    std::optional<pmu::LoadedPmu> first_;
    pmu::Analysis analysis_;
};

class PmuSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::Pmu}; }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        auto artifacts = context.inventory.of(ArtifactKind::Pmu);
        if (artifacts.empty()) return nullptr;
        auto result = std::make_unique<PmuFiles>();
        for (const Artifact* artifact : artifacts) {
            auto loaded = pmu::load_pmu(artifact->path.string(), {}, context.diagnostics);
            if (!loaded) {
                context.diagnostics.warn(loaded.error().file, loaded.error().line,
                                         loaded.error().message);
                continue;
            }
            auto analysis = pmu::analyze(loaded->table, loaded->names, pmu::AnalyzeOptions{},
                                         context.diagnostics);
            result->add(artifact->scope, std::move(*loaded), std::move(analysis));
        }
        return result;
    }
};

}  // namespace

std::unique_ptr<Source> make_pmu_source() {
    return std::make_unique<PmuSource>();
}

}  // namespace ptune::advise
