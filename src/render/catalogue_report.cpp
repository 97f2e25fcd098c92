// `ptune rules list | explain ID` (catalogue_report.hpp): the catalogue as tables and JSON.

#include "ptune/render/catalogue_report.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ptune/rules/lookup.hpp"

namespace ptune::render {

namespace {

// Ids printed by ptune that name no rule of the catalogue: a caveat a report prints, and
// advise's own check of its inputs. `rules explain` answers for them as for a rule.
struct CatalogueNote {
    std::string_view id;
    std::string_view kind;
    std::string_view title;
    std::string_view text;
    std::string_view printed_by;
    std::string_view ref;
};

constexpr CatalogueNote kNotes[] = {
    {"P13", "caveat (no condition to evaluate)", "PMU explains wall time, it does not measure it",
     "Wall time is the objective; the PMU counters only explain it. A busy-time or utilisation "
     "gain is never presented as a speedup: measure effective_us (ptune bench, bench-gate) to "
     "claim one.",
     "pmu-analyze (the validity caveats under the pipe table, \"(rule P13)\")",
     "rules catalogue §3 (P13); pypto-lib .claude/rules/benchmarking.md"},
    {"advise.inputs-disagree", "advise's check of its inputs",
     "The log and the run directory describe different programs",
     "The --log benchmark's effective_us and the swimlane capture's window differ more than "
     "tenfold, or the log names programs (its L3 context line, slot callables, model-path cases) "
     "of which none is "
     "the run directory's program or one of its kernels: the log is of another program or "
     "build. advise says so once, as its first line and on stderr; give the log of this very "
     "run.",
     "advise (group Inputs)", "docs/advise.md, One plan per kernel"},
};

const CatalogueNote* find_note(std::string_view id) {
    for (const auto& note : kNotes) {
        if (note.id.size() == id.size() &&
            std::equal(id.begin(), id.end(), note.id.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) ==
                       std::tolower(static_cast<unsigned char>(b));
            }))
            return &note;
    }
    return nullptr;
}

std::string params_text(const rules::Rule& rule) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : rule.params)
        parts.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

// Every "guide: Part N item M" cites the one tuning guide; the explanation names it.
std::string guide_text(const std::string& guide) {
    if (guide.rfind("Part ", 0) != 0) return guide;
    return fmt::format("{} of {}", guide, kTuningGuide);
}

Table explain_table(const rules::Rule& rule) {
    Table table;
    table.columns = {"field", "value"};
    table.rows = {{"id", rule.id},
                  {"catalogue", rule.catalogue},
                  {"title", rule.title},
                  {"severity", std::string(rules::to_string(rule.severity))},
                  {"tier", rule.tier},
                  {"guide", rule.guide.empty() ? "" : guide_text(rule.guide)},
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

std::optional<Report> catalogue_note_report(std::string_view id) {
    const CatalogueNote* note = find_note(id);
    if (note == nullptr) return std::nullopt;
    Report report = catalogue_report();
    Table table;
    table.columns = {"field", "value"};
    table.rows = {{"id", std::string(note->id)},
                  {"kind", std::string(note->kind)},
                  {"title", std::string(note->title)},
                  {"meaning", std::string(note->text)},
                  {"printed by", std::string(note->printed_by)},
                  {"ref", std::string(note->ref)}};
    report.tables.push_back(std::move(table));
    report.data["note"] = {{"id", note->id},
                           {"kind", note->kind},
                           {"title", note->title},
                           {"meaning", note->text},
                           {"printed_by", note->printed_by},
                           {"ref", note->ref}};
    report.data["rules"] = nlohmann::json::array();
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
