// `ptune rules list | explain ID` (catalogue_report.hpp): the catalogue as tables and JSON.

#include "ptune/render/catalogue_report.hpp"

#include <fmt/format.h>

#include "ptune/rules/lookup.hpp"

namespace ptune::render {

namespace {

std::string params_text(const rules::Rule& rule) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : rule.params)
        parts.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

Table explain_table(const rules::Rule& rule) {
    Table table;
    table.columns = {"field", "value"};
    table.rows = {{"id", rule.id},
                  {"catalogue", rule.catalogue},
                  {"title", rule.title},
                  {"severity", std::string(rules::to_string(rule.severity))},
                  {"tier", rule.tier},
                  {"guide", rule.guide},
                  {"applies to", rule.subject},
                  {"condition", rule.condition},
                  {"thresholds", params_text(rule)},
                  {"message", rule.message},
                  {"advice", rule.advice},
                  {"enabled", rule.enabled ? "yes" : "no"}};
    return table;
}

// The catalogue is data, not findings about an input.
Report catalogue_report() {
    Report report;
    report.command = "rules";
    report.include_findings_in_json = false;
    return report;
}

}  // namespace

Report catalogue_explain_report(const std::vector<const rules::Rule*>& found) {
    Report report = catalogue_report();
    // One rule keeps the historical {"rule": {...}} shape; a catalogue number naming several
    // rules lists them all.
    if (found.size() == 1) report.data["rule"] = rules::rule_to_json(*found.front());
    nlohmann::json all = nlohmann::json::array();
    for (const auto* rule : found) {
        all.push_back(rules::rule_to_json(*rule));
        report.tables.push_back(explain_table(*rule));
    }
    report.data["rules"] = std::move(all);
    return report;
}

Report catalogue_list_report(const rules::Catalogue& catalogue, const std::string& area) {
    Report report = catalogue_report();
    Table table;
    table.columns = {"id", "cat", "severity", "tier", "thresholds", "title"};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& rule : catalogue.rules()) {
        if (!area.empty() && rule.id.rfind(area + ".", 0) != 0) continue;
        table.rows.push_back({rule.id + (rule.enabled ? "" : " (disabled)"), rule.catalogue,
                              std::string(rules::to_string(rule.severity)), rule.tier,
                              params_text(rule), rule.title});
        list.push_back(rules::rule_to_json(rule));
    }
    report.data["rules"] = std::move(list);
    report.tables.push_back(std::move(table));
    return report;
}

}  // namespace ptune::render
