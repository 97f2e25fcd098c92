// `ptune rules list | explain ID` (catalogue_report.hpp): ids resolved the way every output
// prints them, and the catalogue as tables and JSON.

#include "ptune/rules/catalogue_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "ptune/core/text_match.hpp"

namespace ptune::rules {

namespace {

std::string params_text(const Rule& rule) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : rule.params)
        parts.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

render::Table explain_table(const Rule& rule) {
    render::Table table;
    table.columns = {"field", "value"};
    table.rows = {{"id", rule.id},
                  {"catalogue", rule.catalogue},
                  {"title", rule.title},
                  {"severity", std::string(to_string(rule.severity))},
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
render::Report catalogue_report() {
    render::Report report;
    report.command = "rules";
    report.include_findings_in_json = false;
    return report;
}

}  // namespace

nlohmann::json rule_to_json(const Rule& rule) {
    return {
        {"id", rule.id},
        {"catalogue", rule.catalogue.empty() ? nlohmann::json() : nlohmann::json(rule.catalogue)},
        {"title", rule.title},
        {"severity", std::string(to_string(rule.severity))},
        {"tier", rule.tier},
        {"guide", rule.guide},
        {"subject", rule.subject},
        {"condition", rule.condition},
        {"params", rule.params},
        {"message", rule.message},
        {"advice", rule.advice},
        {"enabled", rule.enabled}};
}

std::vector<const Rule*> resolve_id(const Catalogue& catalogue, std::string_view id) {
    std::vector<const Rule*> out;
    if (const Rule* rule = catalogue.find(id)) return {rule};
    std::string lower = text::to_lower(id);
    for (const auto& rule : catalogue.rules()) {
        if (text::to_lower(rule.id) == lower || text::to_lower(rule.id) == "hints." + lower)
            return {&rule};
    }
    for (const auto& rule : catalogue.rules()) {
        if (!rule.catalogue.empty() && text::to_lower(rule.catalogue) == lower)
            out.push_back(&rule);
    }
    return out;
}

std::string closest_id(const Catalogue& catalogue, std::string_view id) {
    std::vector<std::string> known;
    for (const auto& rule : catalogue.rules()) {
        known.push_back(rule.id);
        if (!rule.catalogue.empty()) known.push_back(rule.catalogue);
        if (rule.id.rfind("hints.", 0) == 0) known.push_back(rule.id.substr(6));
    }
    return text::closest_match(id, known, {.ignore_case = true});
}

render::Report explain_report(const std::vector<const Rule*>& found) {
    render::Report report = catalogue_report();
    // One rule keeps the historical {"rule": {...}} shape; a catalogue number naming several
    // rules lists them all.
    if (found.size() == 1) report.data["rule"] = rule_to_json(*found.front());
    nlohmann::json all = nlohmann::json::array();
    for (const auto* rule : found) {
        all.push_back(rule_to_json(*rule));
        report.tables.push_back(explain_table(*rule));
    }
    report.data["rules"] = std::move(all);
    return report;
}

render::Report list_report(const Catalogue& catalogue, const std::string& area) {
    render::Report report = catalogue_report();
    render::Table table;
    table.columns = {"id", "cat", "severity", "tier", "thresholds", "title"};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& rule : catalogue.rules()) {
        if (!area.empty() && rule.id.rfind(area + ".", 0) != 0) continue;
        table.rows.push_back({rule.id + (rule.enabled ? "" : " (disabled)"), rule.catalogue,
                              std::string(to_string(rule.severity)), rule.tier, params_text(rule),
                              rule.title});
        list.push_back(rule_to_json(rule));
    }
    report.data["rules"] = std::move(list);
    report.tables.push_back(std::move(table));
    return report;
}

}  // namespace ptune::rules
