// Rule ids as every output prints them (lookup.hpp): resolving an id to its rules, the closest
// known id for "did you mean", and a rule as JSON.

#include "ptune/rules/lookup.hpp"

#include "ptune/core/text.hpp"
#include "ptune/core/text_match.hpp"

namespace ptune::rules {

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

}  // namespace ptune::rules
