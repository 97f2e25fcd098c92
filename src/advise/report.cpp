// The advise report in every format: the format-neutral Report (text, markdown, json) and the
// self-contained HTML page.

#include <fmt/format.h>

#include "ptune/advise/advisor.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/version.hpp"

namespace ptune::advise {

namespace {

std::string impact_text(const RankedFinding& ranked) {
    if (ranked.impact_basis.empty()) return "-";
    return stats::format_ratio(ranked.impact);
}

nlohmann::json inventory_json(const Inventory& inventory) {
    nlohmann::json found = nlohmann::json::array();
    for (const auto& artifact : inventory.found) {
        found.push_back({{"kind", std::string(to_string(artifact.kind))},
                         {"path", artifact.path.string()},
                         {"scope", artifact.scope}});
        if (!artifact.read.empty()) found.back()["read"] = artifact.read;
    }
    nlohmann::json missing = nlohmann::json::array();
    for (const auto& absent : inventory.missing) {
        missing.push_back({{"kind", std::string(to_string(absent.kind))}, {"why", absent.why}});
    }
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& file : inventory.refused) {
        refused.push_back({{"kind", std::string(to_string(file.kind))},
                           {"path", file.path.string()},
                           {"reason", file.reason}});
    }
    nlohmann::json unreadable = nlohmann::json::array();
    for (const auto& directory : inventory.unreadable)
        unreadable.push_back({{"path", directory.path.string()}, {"reason", directory.reason}});
    return {{"found", std::move(found)},
            {"missing", std::move(missing)},
            {"refused", std::move(refused)},
            {"unreadable", std::move(unreadable)}};
}

std::string subject_text(const rules::SubjectKey& subject) {
    return subject.kind == "run" ? std::string() : fmt::format("{} {}", subject.kind, subject.name);
}

}  // namespace

const char* tier_title(int tier) {
    switch (tier) {
        case 0:
            return "Regressions against the baseline";
        case 1:
            return "Tier 1: inter-kernel schedule (guide Part 1)";
        case 2:
            return "Tier 2: each kernel's pipeline (guide Part 2)";
        default:
            return "Measurement and other";
    }
}

render::Report to_report(const Advice& advice) {
    render::Report report;
    report.command = "advise";
    report.include_findings_in_json = false;
    const Inventory& inventory = advice.inventory;
    report.data["run"] = {{"dir", inventory.run_dir.string()},
                          {"program", inventory.program},
                          {"timestamp", inventory.timestamp}};
    report.data["artifacts"] = inventory_json(inventory);
    nlohmann::json sections = nlohmann::json::object();
    for (const auto& section : advice.sections) {
        // Sections that share an id (the host tables) keep the data the first one carries.
        if (section.data.empty() && sections.contains(section.id)) continue;
        sections[section.id] = section.data;
    }
    report.data["analyses"] = std::move(sections);
    nlohmann::json findings = nlohmann::json::array();
    int rank = 0;
    for (const auto& ranked : advice.findings) {
        nlohmann::json entry = render::finding_to_json(ranked.finding);
        entry["rank"] = ++rank;
        entry["tier"] = ranked.tier;
        entry["impact"] =
            ranked.impact_basis.empty() ? nlohmann::json() : nlohmann::json(ranked.impact);
        entry["impact_basis"] = ranked.impact_basis;
        findings.push_back(std::move(entry));
    }
    report.data["findings"] = std::move(findings);

    render::Table run;
    run.title = "Run";
    run.columns = {"", ""};
    run.rows.push_back({"directory", inventory.run_dir.string()});
    if (!inventory.program.empty()) run.rows.push_back({"program", inventory.program});
    if (!inventory.timestamp.empty()) run.rows.push_back({"timestamp", inventory.timestamp});
    report.tables.push_back(std::move(run));

    render::Table artifacts;
    artifacts.title = "Artifacts";
    artifacts.columns = {"kind", "status", "path or reason"};
    for (auto& row : inventory.rows())
        artifacts.rows.push_back({std::move(row.kind), std::move(row.status), std::move(row.text)});
    report.tables.push_back(std::move(artifacts));

    render::Table ranking;
    ranking.title = "What to fix first";
    ranking.columns = {"#", "tier", "impact", "severity", "rule", "subject", "finding"};
    // Tiers are numbered in the table; their meaning is in the notes.
    ranking.align = {render::Align::Right, render::Align::Right, render::Align::Right};
    rank = 0;
    for (const auto& ranked : advice.findings) {
        ranking.rows.push_back(
            {std::to_string(++rank), std::to_string(ranked.tier), impact_text(ranked),
             std::string(rules::to_string(ranked.finding.severity)), ranked.finding.rule,
             subject_text(ranked.finding.subject), ranked.finding.message});
    }
    if (ranking.rows.empty()) report.notes.push_back("No rule fired on this run.");
    for (int tier = 0; tier <= 3; ++tier)
        report.notes.push_back(fmt::format("tier {} = {}", tier, tier_title(tier)));
    report.tables.push_back(std::move(ranking));
    for (const auto& section : advice.sections) {
        render::Table table = section.table;
        table.title = section.title;
        report.tables.push_back(std::move(table));
    }
    // The full findings (evidence, advice, guide item) after the tables, in rank order.
    for (const auto& ranked : advice.findings) report.findings.push_back(ranked.finding);
    if (!inventory.chosen_note.empty()) report.notes.push_back(inventory.chosen_note);
    return report;
}

}  // namespace ptune::advise
