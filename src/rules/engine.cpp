#include "ptune/rules/engine.hpp"
#include "ptune/rules/subject_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::rules {

namespace detail {
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_catalogue();
}

std::vector<std::string> expression_params(const Expression& expression);

std::string_view to_string(RuleSeverity severity) {
    switch (severity) {
        case RuleSeverity::Info:
            return "info";
        case RuleSeverity::Warning:
            return "warning";
        case RuleSeverity::Error:
            return "error";
    }
    return "warning";
}

std::optional<RuleSeverity> parse_severity(std::string_view text) {
    if (text == "info" || text == "note") return RuleSeverity::Info;
    if (text == "warning") return RuleSeverity::Warning;
    if (text == "error") return RuleSeverity::Error;
    return std::nullopt;
}

std::optional<RuleSeverity> worst_severity(const std::vector<Finding>& findings) {
    std::optional<RuleSeverity> worst;
    for (const auto& finding : findings) {
        if (!worst || finding.severity > *worst) worst = finding.severity;
    }
    return worst;
}

ExitCode findings_exit_code(std::optional<RuleSeverity> worst,
                            std::optional<RuleSeverity> fail_on) {
    return worst && fail_on && *worst >= *fail_on ? ExitCode::Findings : ExitCode::Ok;
}

namespace {

Error rules_error(const std::string& source, std::string message) {
    return Error{std::move(message), source, 0, ExitCode::InputError};
}

// Reads one string field if present; false with `error` set when it has the wrong type.
bool read_string(const nlohmann::json& object, const char* key, std::string& target,
                 std::string& error) {
    auto it = object.find(key);
    if (it == object.end()) return true;
    if (!it->is_string()) {
        error = fmt::format("field '{}' must be a string", key);
        return false;
    }
    target = it->get<std::string>();
    return true;
}

Status apply_fields(Rule& rule, const nlohmann::json& object, const std::string& source) {
    std::string error;
    std::string severity;
    for (auto [key, target] :
         std::initializer_list<std::pair<const char*, std::string*>>{{"catalogue", &rule.catalogue},
                                                                     {"title", &rule.title},
                                                                     {"tier", &rule.tier},
                                                                     {"guide", &rule.guide},
                                                                     {"subject", &rule.subject},
                                                                     {"condition", &rule.condition},
                                                                     {"message", &rule.message},
                                                                     {"advice", &rule.advice},
                                                                     {"impact", &rule.impact},
                                                                     {"severity", &severity}}) {
        if (!read_string(object, key, *target, error)) {
            return rules_error(source, fmt::format("rule '{}': {}", rule.id, error));
        }
    }
    if (!severity.empty()) {
        auto parsed = parse_severity(severity);
        if (!parsed) {
            return rules_error(source,
                               fmt::format("rule '{}': unknown severity '{}' (info, warning, "
                                           "error)",
                                           rule.id, severity));
        }
        rule.severity = *parsed;
    }
    if (auto it = object.find("enabled"); it != object.end()) {
        if (!it->is_boolean())
            return rules_error(source,
                               fmt::format("rule '{}': 'enabled' must be true or false", rule.id));
        rule.enabled = it->get<bool>();
    }
    if (auto it = object.find("params"); it != object.end()) {
        if (!it->is_object())
            return rules_error(source,
                               fmt::format("rule '{}': 'params' must be an object", rule.id));
        for (const auto& [name, value] : it->items()) {
            if (!value.is_number()) {
                return rules_error(source, fmt::format("rule '{}': parameter '{}' must be a number",
                                                       rule.id, name));
            }
            rule.params[name] = value.get<double>();
        }
    }
    return ok_status();
}

Status compile_rule(Rule& rule, const std::string& source) {
    if (rule.condition.empty())
        return rules_error(source, fmt::format("rule '{}' has no condition", rule.id));
    auto condition = compile_expression(rule.condition);
    if (!condition) {
        return rules_error(
            source, fmt::format("rule '{}': condition: {}", rule.id, condition.error().message));
    }
    rule.compiled_condition = *condition;
    for (const auto& param : expression_params(**condition)) {
        if (!rule.params.count(param)) {
            return rules_error(
                source, fmt::format("rule '{}': condition uses ${} but params has no '{}'", rule.id,
                                    param, param));
        }
    }
    rule.compiled_impact.reset();
    if (!rule.impact.empty()) {
        auto impact = compile_expression(rule.impact);
        if (!impact) {
            return rules_error(
                source, fmt::format("rule '{}': impact: {}", rule.id, impact.error().message));
        }
        rule.compiled_impact = *impact;
    }
    if (rule.subject.empty()) rule.subject = "run";
    return ok_status();
}

// A `.Nf` spec (N one digit), the form messages use: its precision, else -1.
int fixed_precision(std::string_view spec) {
    return spec.size() == 3 && spec[0] == '.' && spec[1] >= '0' && spec[1] <= '9' && spec[2] == 'f'
               ? spec[1] - '0'
               : -1;
}

std::string format_number(double value, std::string_view spec) {
    // `{ratio:.1%}`: a 0..1 ratio printed as a percentage (`77.7%`), as in Python; the one way
    // ratios appear in text.
    if (!spec.empty() && spec.back() == '%') {
        std::string fixed = std::string(spec.substr(0, spec.size() - 1));
        if (fixed.empty()) fixed = ".0";
        return format_number(value * 100.0, fixed + "f") + "%";
    }
    // `.Nf` is printf's `%.Nf` (the exact binary value, ties to even), as fmt prints it too,
    // without a format string made and parsed for each of a sweep's thousands of findings.
    if (const int precision = fixed_precision(spec); precision >= 0 && std::isfinite(value))
        return stats::format_fixed(value, precision);
    if (!spec.empty()) {
        try {
            return fmt::format(fmt::runtime(fmt::format("{{:{}}}", spec)), value);
        } catch (const fmt::format_error&) {
        }
    }
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
        return fmt::format("{}", static_cast<long long>(value));
    }
    return fmt::format("{:.4g}", value);
}

}  // namespace

Result<Catalogue> Catalogue::builtin() {
    Catalogue catalogue;
    for (const auto& [name, text] : detail::embedded_catalogue()) {
        auto status = catalogue.merge_json(text, fmt::format("<builtin>/rules/{}", name));
        if (!status) {
            Error error = status.error();
            error.code = ExitCode::InternalError;
            return error;
        }
    }
    return catalogue;
}

Status Catalogue::merge_json(std::string_view text, const std::string& source) {
    auto parsed = json_document::parse(text, source);
    if (!parsed) return parsed.error();
    nlohmann::json& document = *parsed;
    if (!document.is_object() || !document.contains("rules") || !document["rules"].is_array()) {
        return rules_error(source, "expected an object with a \"rules\" array");
    }
    for (const auto& entry : document["rules"]) {
        if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string()) {
            return rules_error(source, "every rule needs a string \"id\"");
        }
        std::string id = entry["id"].get<std::string>();
        auto existing =
            std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) { return r.id == id; });
        Rule rule = existing != rules_.end() ? *existing : Rule{};
        rule.id = id;
        if (auto status = apply_fields(rule, entry, source); !status) return status;
        if (auto status = compile_rule(rule, source); !status) return status;
        if (existing != rules_.end())
            *existing = std::move(rule);
        else
            rules_.push_back(std::move(rule));
    }
    return ok_status();
}

const Rule* Catalogue::find(std::string_view id) const {
    auto it = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) { return r.id == id; });
    return it == rules_.end() ? nullptr : &*it;
}

std::string render_message(const Rule& rule, const Subject& subject) {
    const std::string_view pattern = rule.message.empty() ? rule.title : rule.message;
    std::string out;
    out.reserve(pattern.size() + 32);
    for (std::size_t i = 0; i < pattern.size();) {
        const std::size_t open = std::min(pattern.find('{', i), pattern.size());
        out.append(pattern.substr(i, open - i));  // the text up to the next field, at once
        if (open == pattern.size()) break;
        std::size_t close = pattern.find('}', open);
        if (close == std::string_view::npos) {
            out.append(pattern.substr(open));
            break;
        }
        std::string_view field = pattern.substr(open + 1, close - open - 1);
        std::string_view spec;
        if (auto colon = field.find(':');
            colon != std::string_view::npos && !field.starts_with("label:")) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (field == "subject") {
            out += subject.key.name;
        } else if (field.starts_with("label:")) {
            auto it = subject.labels.find(field.substr(6));
            out += it == subject.labels.end() ? "?" : it->second;
        } else if (!field.empty() && field[0] == '$') {
            auto it = rule.params.find(std::string(field.substr(1)));
            out += it == rule.params.end() ? "?" : format_number(it->second, spec);
        } else if (auto value = subject.metric(field)) {
            out += format_number(*value, spec);
        } else {
            out += "?";
        }
        i = close + 1;
    }
    return out;
}

Finding make_finding(const Rule& rule, const Subject& subject) {
    Finding finding;
    finding.rule = rule.id;
    finding.catalogue = rule.catalogue;
    finding.severity = rule.severity;
    finding.title = rule.title;
    finding.message = render_message(rule, subject);
    finding.advice = rule.advice;
    finding.guide = rule.guide;
    finding.tier = rule.tier;
    finding.subject = subject.key;
    finding.locations = subject.locations;
    if (rule.compiled_condition) {
        for (const auto& name : expression_metrics(*rule.compiled_condition)) {
            if (auto value = subject.metric(name)) finding.evidence[name] = *value;
        }
    }
    if (rule.compiled_impact) {
        finding.impact = evaluate_expression(*rule.compiled_impact, subject, rule.params);
    }
    return finding;
}

namespace {

bool in_areas(const Rule& rule, const std::vector<std::string>& areas) {
    return areas.empty() || std::any_of(areas.begin(), areas.end(), [&](const std::string& area) {
               return rule.id.rfind(area, 0) == 0;
           });
}

}  // namespace

SubjectRules::SubjectRules(const Catalogue& catalogue, std::string_view kind,
                           const std::vector<std::string>& areas) {
    for (const Rule& rule : catalogue.rules()) {
        if (rule.enabled && rule.compiled_condition && rule.subject == kind &&
            in_areas(rule, areas))
            rules_.push_back(&rule);
    }
}

std::vector<const Rule*> SubjectRules::matching(const Subject& subject) const {
    std::vector<const Rule*> out;
    for (const Rule* rule : rules_) {
        auto verdict = evaluate_expression(*rule->compiled_condition, subject, rule->params);
        if (verdict && *verdict != 0) out.push_back(rule);
    }
    return out;
}

void SubjectRules::evaluate(const Subject& subject, std::vector<Finding>& findings) const {
    // matching() without its vector: this runs once per subject (every case of a sweep).
    for (const Rule* rule : rules_) {
        auto verdict = evaluate_expression(*rule->compiled_condition, subject, rule->params);
        if (verdict && *verdict != 0) findings.push_back(make_finding(*rule, subject));
    }
}

void sort_findings(std::vector<Finding>& findings) {
    // Sorts keys, not findings (~400 bytes each, moved O(n log n) times), then moves each
    // finding once; the same stable order. A key holds what most comparisons settle on, the rule
    // as its rank among the few distinct rules (a sweep's 100,000 findings share a handful of
    // ids with a common prefix): the strings of a subject are compared only on a tie.
    std::vector<std::string_view> rules;  // distinct: a catalogue holds some dozens
    struct Key {
        RuleSeverity severity;
        std::uint32_t rule;  ///< the rule's place in `rules`, then its rank
        double impact;
        std::uint32_t finding;
    };
    std::vector<Key> keys;
    keys.reserve(findings.size());
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        const auto rule = static_cast<std::uint32_t>(
            std::find(rules.begin(), rules.end(), std::string_view(f.rule)) - rules.begin());
        if (rule == rules.size()) rules.push_back(f.rule);
        keys.push_back({f.severity, rule, f.impact.value_or(-1), static_cast<std::uint32_t>(i)});
    }
    std::vector<std::uint32_t> by_name(rules.size()), rank(rules.size());
    for (std::uint32_t r = 0; r < by_name.size(); ++r) by_name[r] = r;
    std::sort(by_name.begin(), by_name.end(),
              [&](std::uint32_t a, std::uint32_t b) { return rules[a] < rules[b]; });
    for (std::uint32_t at = 0; at < by_name.size(); ++at) rank[by_name[at]] = at;
    for (Key& key : keys) key.rule = rank[key.rule];
    std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
        if (a.severity != b.severity) return a.severity > b.severity;
        if (a.impact != b.impact) return a.impact > b.impact;
        if (a.rule != b.rule) return a.rule < b.rule;
        return findings[a.finding].subject < findings[b.finding].subject;
    });
    bool in_order = true;
    for (std::size_t i = 0; i < keys.size() && in_order; ++i) in_order = keys[i].finding == i;
    if (in_order) return;
    std::vector<Finding> sorted;
    sorted.reserve(findings.size());
    for (const Key& key : keys) sorted.push_back(std::move(findings[key.finding]));
    findings = std::move(sorted);
}

std::vector<Finding> evaluate(const Catalogue& catalogue, const MetricStore& store,
                              const std::vector<std::string>& areas) {
    std::vector<Finding> findings;
    for (const Rule& rule : catalogue.rules()) {
        if (!rule.enabled || !rule.compiled_condition || !in_areas(rule, areas)) continue;
        for (const auto& [key, subject] : store.subjects()) {
            if (key.kind != rule.subject) continue;
            auto verdict = evaluate_expression(*rule.compiled_condition, subject, rule.params);
            if (verdict && *verdict != 0) findings.push_back(make_finding(rule, subject));
        }
    }
    sort_findings(findings);
    return findings;
}

}  // namespace ptune::rules
