// The benchmark source: the run's console logs (--log) through bench-summary's pipeline and,
// with --baseline, bench-gate's comparison.

#include <fmt/format.h>

#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/gate/pipeline.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedBench : public LoadedSource {
  public:
    LoadedBench(std::vector<bench::BenchCase> cases, SourceContext& context)
        : cases_(std::move(cases)), context_(context) {}

    // Everything is decided here: the comparison publishes gate.* and takes the run's cases, so
    // the bench section is built from them first.
    void publish(rules::MetricStore& store) override {
        bench::publish_metrics(cases_, store);
        Section section{"bench", "Benchmark (effective_us)", {}, nlohmann::json::array(), {}};
        section.table = bench::summary_table(cases_, section.notes);
        for (const auto& bench_case : cases_) {
            section.data.push_back(bench::case_to_json(bench_case));
            add_chart_bars(bench_case);
        }
        sections_.push_back(std::move(section));
        if (!context_.options.baselines.empty()) compare(store);
    }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        for (Section& section : sections_) advice.sections.push_back(std::move(section));
        for (auto& bar : bars_) advice.charts.rank_effective_us.push_back(std::move(bar));
    }

  private:
    /// The run against --baseline, with bench-gate's tests, defaults and table.
    void compare(rules::MetricStore& store) {
        gate::Options gate_options;
        gate::GateRequest request{context_.options.baselines, "", {}, false, std::move(cases_)};
        auto outcome = gate::run_gate(request, gate_options, {gate_options, false}, nullptr,
                                      context_.diagnostics);
        if (!outcome) {
            context_.diagnostics.warn(
                outcome.error().file, outcome.error().line,
                "baseline not usable, no comparison: " + outcome.error().message);
            return;
        }
        gate::publish_metrics(outcome->result, gate_options, store);
        render::Report& report = outcome->report;
        sections_.push_back({"bench-gate",
                             "effective_us against the baseline",
                             std::move(report.tables.front()),
                             std::move(report.data["cases"]),
                             {}});
    }

    void add_chart_bars(const bench::BenchCase& bench_case) {
        const bench::BenchBlock* block = bench_case.ci_block();
        if (block == nullptr || !block->effective_us) return;
        if (block->ranks.size() <= 1) {
            double mean = block->effective_us->mean;
            bars_.push_back({bench_case.name, mean, chart_us(mean, 1), false});
            return;
        }
        for (const auto& rank : block->ranks) {
            if (!rank.eff_us) continue;
            bars_.push_back({fmt::format("{} rank {}", bench_case.name, rank.rank),
                             rank.eff_us->mean, chart_us(rank.eff_us->mean, 1), false});
        }
    }

    std::vector<bench::BenchCase> cases_;
    SourceContext& context_;
    std::vector<Section> sections_;
    std::vector<render::svg::Bar> bars_;
};

class BenchSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::RunLog}; }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        if (context.options.logs.empty()) return nullptr;
        auto cases =
            bench::load_run(context.options.logs, bench::LoadOptions{}, context.diagnostics);
        if (!cases) {
            context.diagnostics.warn(cases.error().file, cases.error().line, cases.error().message);
            return nullptr;
        }
        return std::make_unique<LoadedBench>(std::move(*cases), context);
    }
};

}  // namespace

std::unique_ptr<Source> make_bench_source() {
    return std::make_unique<BenchSource>();
}

}  // namespace ptune::advise
