// The multi-card wrapper of the source contract: on an L3 tree (rank<N>/d<K>/) the per-run source
// of swimlane records or pmu.csv is replaced by l3's analysis of every rank and the comparison
// across ranks; each rank's own findings and the L3.* metrics, as the commands report them.

#include <optional>

#include <fmt/format.h>

#include "ptune/advise/source.hpp"
#include "ptune/l3/tree.hpp"

namespace ptune::advise {

namespace {

/// The rank that sets the first dispatch's round.
const l3::RankResult* straggler(const l3::Comparison& comparison) {
    if (comparison.dispatches.empty()) return nullptr;
    return &comparison.ranks[comparison.dispatches.front().straggler];
}

class LoadedTree : public LoadedSource {
  public:
    LoadedTree(l3::Tree tree, l3::Comparison comparison, l3::Source kind)
        : tree_(std::move(tree)), comparison_(std::move(comparison)), kind_(kind) {}

    void publish(rules::MetricStore& store) override {
        l3::publish(comparison_, store, /*only_if_absent=*/true);
    }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        bool swimlane = kind_ == l3::Source::Swimlane;
        // Each rank's own findings, as the command reports them (one pipeline: the same set).
        for (rules::Finding& finding : l3::rank_findings(comparison_))
            advice.findings.push_back({std::move(finding), 3, 0, ""});
        render::Report report = l3::build_report("advise", tree_, comparison_, {});
        std::optional<Section> placement = swimlane ? placement_section(report) : std::nullopt;
        Section section{swimlane ? "l3-swimlane" : "l3-pmu",
                        swimlane ? "Ranks (L3 swimlane): the straggler of each dispatch"
                                 : "Ranks (L3 pmu.csv): the straggler of each dispatch",
                        std::move(report.tables[1]),
                        std::move(report.data),
                        {}};
        if (const l3::RankResult* slow = straggler(comparison_))
            section.notes.push_back(fmt::format(
                "{} is the straggler of {}; each rank's own {} findings carry its label",
                slow->label, comparison_.dispatches.front().key, swimlane ? "L2" : "pmu"));
        advice.sections.push_back(std::move(section));
        if (placement) advice.sections.push_back(std::move(*placement));
    }

  private:
    // Each rank's clock alignment and host placement (upstream-2026-09.md §1.14, §1.17).
    static std::optional<Section> placement_section(render::Report& report) {
        for (render::Table& table : report.tables) {
            if (table.title != "Host placement per rank") continue;
            Section placement{"l3-placement",
                              "Ranks on the host clock (L3 swimlane)",
                              std::move(table),
                              report.data.value("host_placement", nlohmann::json::array()),
                              {}};
            for (const std::string& note : report.notes)
                if (note.find("placed on the host clock") != std::string::npos)
                    placement.notes.push_back(note);
            return placement;
        }
        return std::nullopt;
    }

    l3::Tree tree_;
    l3::Comparison comparison_;
    l3::Source kind_;
};

class L3FanOut : public Source {
  public:
    L3FanOut(std::unique_ptr<Source> single, l3::Source kind)
        : single_(std::move(single)), kind_(kind) {}

    std::vector<ArtifactKind> kinds() const override { return single_->kinds(); }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        if (context.inventory.of(kinds().front()).empty()) return nullptr;
        if (!l3::find_root(context.inventory.run_dir)) return single_->load(context);
        auto tree = l3::read_tree(context.inventory.run_dir);
        if (!tree) {
            context.diagnostics.warn(tree.error().file, 0, tree.error().message);
            return nullptr;
        }
        bool swimlane = kind_ == l3::Source::Swimlane;
        l3::TreeOptions options;
        options.threads = l3::thread_count();
        l3::Comparison comparison =
            swimlane ? l3::analyze_swimlane_tree(*tree, context.catalogue, options)
                     : l3::analyze_pmu_tree(*tree, context.catalogue, options);
        // The tree's own gaps are said once, by the swimlane pass when there was one.
        if (!swimlane && !context.inventory.of(ArtifactKind::SwimlaneRecords).empty()) {
            comparison.gaps.erase(
                comparison.gaps.begin(),
                comparison.gaps.begin() + static_cast<std::ptrdiff_t>(tree->gaps.size()));
            tree->notes.clear();
        }
        l3::report_diagnostics(*tree, comparison, context.diagnostics);
        if (comparison.dispatches.empty()) return nullptr;
        return std::make_unique<LoadedTree>(std::move(*tree), std::move(comparison), kind_);
    }

  private:
    std::unique_ptr<Source> single_;
    l3::Source kind_;
};

}  // namespace

std::unique_ptr<Source> l3_fan_out(std::unique_ptr<Source> single, l3::Source kind) {
    return std::make_unique<L3FanOut>(std::move(single), kind);
}

}  // namespace ptune::advise
