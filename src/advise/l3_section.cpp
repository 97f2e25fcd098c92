// advise on an L3 run (see l3_section.hpp).

#include "l3_section.hpp"

#include <optional>

#include <fmt/format.h>

namespace ptune::advise {

namespace {

/// The rank that sets the first dispatch's round.
const l3::RankResult* straggler(const l3::Comparison& c) {
    if (c.dispatches.empty()) return nullptr;
    return &c.ranks[c.dispatches.front().straggler];
}

}  // namespace

bool add_l3(Advice& advice, l3::Source source, const rules::Catalogue& catalogue,
            rules::MetricStore& store, Diagnostics& diagnostics) {
    if (!l3::find_root(advice.inventory.run_dir)) return false;
    auto tree = l3::read_tree(advice.inventory.run_dir);
    if (!tree) {
        diagnostics.warn(tree.error().file, 0, tree.error().message);
        return true;
    }
    bool swimlane = source == l3::Source::Swimlane;
    l3::TreeOptions options;
    options.threads = l3::thread_count();
    l3::Comparison comparison = swimlane ? l3::analyze_swimlane_tree(*tree, catalogue, options)
                                         : l3::analyze_pmu_tree(*tree, catalogue, options);
    // The tree's own gaps are said once, by the swimlane pass when there was one.
    if (!swimlane && !advice.inventory.of(ArtifactKind::SwimlaneRecords).empty()) {
        comparison.gaps.erase(
            comparison.gaps.begin(),
            comparison.gaps.begin() + static_cast<std::ptrdiff_t>(tree->gaps.size()));
        tree->notes.clear();
    }
    l3::report_diagnostics(*tree, comparison, diagnostics);
    if (comparison.dispatches.empty()) return true;
    l3::publish(comparison, store, /*only_if_absent=*/true);
    // Each rank's own findings, as the command reports them (one pipeline: the same set).
    for (rules::Finding& finding : l3::rank_findings(comparison))
        advice.findings.push_back({std::move(finding), 3, 0, ""});
    render::Report report = l3::build_report("advise", *tree, comparison, {});
    // Each rank's clock alignment and host placement (upstream-2026-09.md §1.14, §1.17).
    std::optional<Section> placement;
    for (render::Table& table : report.tables)
        if (swimlane && table.title == "Host placement per rank") {
            placement = Section{"l3-placement",
                                "Ranks on the host clock (L3 swimlane)",
                                std::move(table),
                                report.data.value("host_placement", nlohmann::json::array()),
                                {}};
            for (const std::string& note : report.notes)
                if (note.find("placed on the host clock") != std::string::npos)
                    placement->notes.push_back(note);
        }
    Section section{swimlane ? "l3-swimlane" : "l3-pmu",
                    swimlane ? "Ranks (L3 swimlane): the straggler of each dispatch"
                             : "Ranks (L3 pmu.csv): the straggler of each dispatch",
                    std::move(report.tables[1]),
                    std::move(report.data),
                    {}};
    if (const l3::RankResult* slow = straggler(comparison))
        section.notes.push_back(
            fmt::format("{} is the straggler of {}; each rank's own {} "
                        "findings carry its label",
                        slow->label, comparison.dispatches.front().key, swimlane ? "L2" : "pmu"));
    advice.sections.push_back(std::move(section));
    if (placement) advice.sections.push_back(std::move(*placement));
    return true;
}

}  // namespace ptune::advise
