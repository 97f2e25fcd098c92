// ptune rules list | explain ID: the catalogue, with thresholds, as the engine sees it.

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/text_match.hpp"

namespace ptune::cli {

namespace {

std::string params_text(const rules::Rule& rule) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : rule.params)
        parts.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

nlohmann::json rule_to_json(const rules::Rule& rule) {
    return {
        {"id", rule.id},
        {"catalogue", rule.catalogue.empty() ? nlohmann::json() : nlohmann::json(rule.catalogue)},
        {"title", rule.title},
        {"severity", std::string(rules::to_string(rule.severity))},
        {"tier", rule.tier},
        {"guide", rule.guide},
        {"subject", rule.subject},
        {"condition", rule.condition},
        {"params", rule.params},
        {"message", rule.message},
        {"advice", rule.advice},
        {"enabled", rule.enabled}};
}

std::string lower_case(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// Every id an output prints names rules: a rule id (`pmu.mte2-bound`), a catalogue number
// (`P2`, `M6`, `X1`: all rules under it), or a perf-hint code (`PH001`, the rule
// `hints.PH001`). Case does not matter.
std::vector<const rules::Rule*> resolve(const rules::Catalogue& catalogue, std::string_view id) {
    std::vector<const rules::Rule*> out;
    if (const rules::Rule* rule = catalogue.find(id)) return {rule};
    std::string lower = lower_case(id);
    for (const auto& rule : catalogue.rules()) {
        if (lower_case(rule.id) == lower || lower_case(rule.id) == "hints." + lower) return {&rule};
    }
    for (const auto& rule : catalogue.rules()) {
        if (!rule.catalogue.empty() && lower_case(rule.catalogue) == lower) out.push_back(&rule);
    }
    return out;
}

// The closest known id (rule id, catalogue number or hint code) for "did you mean".
std::string closest_id(const rules::Catalogue& catalogue, std::string_view id) {
    std::vector<std::string> known;
    for (const auto& rule : catalogue.rules()) {
        known.push_back(rule.id);
        if (!rule.catalogue.empty()) known.push_back(rule.catalogue);
        if (rule.id.rfind("hints.", 0) == 0) known.push_back(rule.id.substr(6));
    }
    return text::closest_match(id, known, {.ignore_case = true});
}

render::Table explain_table(const rules::Rule& rule) {
    render::Table table;
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

class RulesCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option("action", action_, "list or explain")
            ->required()
            ->check(CLI::IsMember({"list", "explain"}));
        app.add_option("id", id_,
                       "explain: a rule id (mem.over-limit), catalogue number (P2, X1) or "
                       "perf-hint code (PH001)");
        app.add_option("--area", area_,
                       "Only rules whose id starts with AREA (bench, L2, mem, hints, pmu, cross)");
    }

    int run(Context& context) override {
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        render::Report report;
        report.command = "rules";
        report.include_findings_in_json = false;
        if (action_ == "explain") {
            if (id_.empty())
                return context.fail(Error{"explain needs a rule id, catalogue number or hint code",
                                          "", 0, ExitCode::InputError});
            auto found = resolve(**catalogue, id_);
            if (found.empty()) {
                std::string hint = closest_id(**catalogue, id_);
                return context.fail(Error{
                    fmt::format("no rule '{}' (not a rule id, catalogue number or hint code){}; "
                                "'ptune rules list' shows them all",
                                id_,
                                hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)),
                    "", 0, ExitCode::InputError});
            }
            // One rule keeps the historical {"rule": {...}} shape; a catalogue number naming
            // several rules lists them all.
            if (found.size() == 1) report.data["rule"] = rule_to_json(*found.front());
            nlohmann::json all = nlohmann::json::array();
            for (const auto* rule : found) {
                all.push_back(rule_to_json(*rule));
                report.tables.push_back(explain_table(*rule));
            }
            report.data["rules"] = std::move(all);
            return context.emit(report);
        }
        if (!id_.empty()) {
            return context.fail(Error{
                fmt::format("'rules list' takes no id (got '{}'); use 'ptune rules explain {}', "
                            "or --area AREA to filter the list",
                            id_, id_),
                "", 0, ExitCode::InputError});
        }
        render::Table table;
        table.columns = {"id", "cat", "severity", "tier", "thresholds", "title"};
        nlohmann::json list = nlohmann::json::array();
        for (const auto& rule : (*catalogue)->rules()) {
            if (!area_.empty() && rule.id.rfind(area_ + ".", 0) != 0) continue;
            table.rows.push_back({rule.id + (rule.enabled ? "" : " (disabled)"), rule.catalogue,
                                  std::string(rules::to_string(rule.severity)), rule.tier,
                                  params_text(rule), rule.title});
            list.push_back(rule_to_json(rule));
        }
        report.data["rules"] = std::move(list);
        report.tables.push_back(std::move(table));
        return context.emit(report);
    }

  private:
    std::string action_;
    std::string id_;
    std::string area_;
};

}  // namespace

std::unique_ptr<Command> make_rules() {
    return std::make_unique<RulesCommand>();
}

}  // namespace ptune::cli
