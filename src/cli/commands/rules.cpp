// ptune rules list | explain ID: the catalogue, with thresholds, as the engine sees it.

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/text.hpp"

namespace ptune::cli {

namespace {

std::string params_text(const rules::Rule& rule) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : rule.params) parts.push_back(fmt::format("{}={}", name, value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

nlohmann::json rule_to_json(const rules::Rule& rule) {
    return {{"id", rule.id},
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

class RulesCommand : public Command {
public:
    void configure(CLI::App& app) override {
        app.add_option("action", action_, "list or explain")->required()->check(CLI::IsMember({"list", "explain"}));
        app.add_option("id", id_, "Rule id for explain (e.g. mem.over-limit)");
        app.add_option("--area", area_, "Only rules whose id starts with AREA (bench, L2, mem, hints, pmu, cross)");
    }

    int run(Context& context) override {
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        render::Report report;
        report.command = "rules";
        report.include_findings_in_json = false;
        if (action_ == "explain") {
            if (id_.empty()) return context.fail(Error{"explain needs a rule id", "", 0, ExitCode::InputError});
            const rules::Rule* rule = (*catalogue)->find(id_);
            if (!rule) {
                std::string hint;
                std::size_t best = std::string::npos;
                for (const auto& candidate : (*catalogue)->rules()) {
                    std::size_t d = text::edit_distance(id_, candidate.id);
                    if (d < best) { best = d; hint = candidate.id; }
                }
                return context.fail(Error{fmt::format("no rule '{}'{}", id_,
                                                      best <= 4 ? fmt::format("; did you mean '{}'?", hint) : ""),
                                          "", 0, ExitCode::InputError});
            }
            report.data["rule"] = rule_to_json(*rule);
            render::Table table;
            table.columns = {"field", "value"};
            table.rows = {{"id", rule->id},
                          {"catalogue", rule->catalogue},
                          {"title", rule->title},
                          {"severity", std::string(rules::to_string(rule->severity))},
                          {"tier", rule->tier},
                          {"guide", rule->guide},
                          {"applies to", rule->subject},
                          {"condition", rule->condition},
                          {"thresholds", params_text(*rule)},
                          {"message", rule->message},
                          {"advice", rule->advice},
                          {"enabled", rule->enabled ? "yes" : "no"}};
            report.tables.push_back(std::move(table));
            return context.emit(report);
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

std::unique_ptr<Command> make_rules() { return std::make_unique<RulesCommand>(); }

}  // namespace ptune::cli
