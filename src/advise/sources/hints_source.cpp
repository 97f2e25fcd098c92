// The hints source: perf_hints.log through hints-lint's pipeline, summarised per rule (one
// finding per hint code, not one per site).

#include "ptune/hints/pipeline.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedHints : public LoadedSource {
  public:
    LoadedHints(hints::LintResult result, const rules::Catalogue& catalogue)
        : result_(std::move(result)), catalogue_(catalogue) {}

    void publish(rules::MetricStore& store) override { hints::publish(result_, store); }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        auto summaries = hints::summarise_by_rule(result_);
        Section section{"hints", "Compiler hints (perf_hints.log)", {}, {}, {}};
        section.table = hints::summary_table(summaries);
        section.data = hints::summary_json(summaries);
        advice.sections.push_back(std::move(section));
        for (const auto& summary : summaries)
            advice.findings.push_back({hints::summary_finding(summary, catalogue_), 2, 0, ""});
        for (const auto& finding : result_.log_findings)
            advice.findings.push_back({finding, 3, 0, ""});
    }

  private:
    hints::LintResult result_;
    const rules::Catalogue& catalogue_;
};

class HintsSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::PerfHints}; }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        std::vector<std::string> paths;
        for (const Artifact* artifact : context.inventory.of(ArtifactKind::PerfHints))
            paths.push_back(artifact->path.string());
        auto logs = hints::read_logs(paths, {}, context.diagnostics);
        if (logs.empty()) return nullptr;
        hints::LintOptions lint_options;
        lint_options.root = context.inventory.run_dir;
        return std::make_unique<LoadedHints>(
            hints::lint(std::move(logs), context.catalogue, lint_options, context.diagnostics),
            context.catalogue);
    }
};

}  // namespace

std::unique_ptr<Source> make_hints_source() {
    return std::make_unique<HintsSource>();
}

}  // namespace ptune::advise
