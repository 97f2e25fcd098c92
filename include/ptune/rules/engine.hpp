#pragma once
/// @file engine.hpp
/// The rules engine: a catalogue of rules (data, rules/*.json, embedded in the binary and
/// extendable with --rules FILE) evaluated over a MetricStore to produce findings.
///
/// A rule's condition is a small expression over the subject's metrics and the rule's
/// parameters, e.g. `mem.Mat.usage_pct > $over_limit_pct && has(mem.Mat.limit_bytes)`.
/// Grammar: numbers, metric names (dotted identifiers), `$param`, `label("name") == "text"`,
/// `! && || < <= > >= == != + - * /`, parentheses, and the functions `has(m)`, `min(a,b)`,
/// `max(a,b)`, `abs(a)`. A condition that reads a metric the subject lacks is false
/// (not applicable) unless guarded by has().

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::rules {

enum class RuleSeverity { Info, Warning, Error };
std::string_view to_string(RuleSeverity severity);
std::optional<RuleSeverity> parse_severity(std::string_view text);

class Expression;

/// One entry of the catalogue.
struct Rule {
    std::string id;         ///< `<area>.<slug>`, e.g. `mem.over-limit`
    std::string catalogue;  ///< number in rules-catalogue.md (M1, H3, P2, X1) or empty
    std::string title;
    RuleSeverity severity = RuleSeverity::Warning;
    std::string tier;       ///< "schedule" (guide Part 1, inter-kernel) or "pipeline" (Part 2)
    std::string guide;      ///< tuning-guide reference, e.g. "Part 1 item 2"
    std::string subject;    ///< subject kind the rule applies to, e.g. "kernel"
    std::string condition;  ///< expression text
    std::map<std::string, double> params;  ///< thresholds, referenced as $name
    std::string message;  ///< template: {metric}, {metric:.1f}, {$param}, {subject}, {label:x}
    std::string advice;
    std::string impact;  ///< optional expression estimating the share (0..1) it touches
    bool enabled = true;

    std::shared_ptr<const Expression> compiled_condition;
    std::shared_ptr<const Expression> compiled_impact;
};

/// A rule that fired for a subject.
struct Finding {
    std::string rule;
    std::string catalogue;
    RuleSeverity severity = RuleSeverity::Warning;
    std::string title;
    std::string message;
    std::string advice;
    std::string guide;
    std::string tier;
    SubjectKey subject;
    std::map<std::string, double> evidence;  ///< the metrics the condition read
    std::vector<Location> locations;
    std::optional<double> impact;  ///< estimated share of the run it touches, when known
};

/// The rule catalogue: built-in rules plus user overrides.
class Catalogue {
  public:
    /// The catalogue compiled into the binary (rules/*.json).
    static Result<Catalogue> builtin();

    /// Merges a rules file: `{"rules": [ {...}, ... ]}`. A rule whose id exists is updated
    /// field by field (params merge key by key; `"enabled": false` disables it); a new id is
    /// added. Errors name `source` and say what is wrong.
    Status merge_json(std::string_view text, const std::string& source);

    const Rule* find(std::string_view id) const;
    const std::vector<Rule>& rules() const { return rules_; }

  private:
    std::vector<Rule> rules_;
};

/// Evaluates every enabled rule whose id starts with one of `areas` (e.g. {"mem."}; empty means
/// all) on every subject of the rule's kind. Findings come out sorted by severity (errors
/// first), then impact, then rule id and subject.
std::vector<Finding> evaluate(const Catalogue& catalogue, const MetricStore& store,
                              const std::vector<std::string>& areas = {});

/// The highest severity among `findings`; nullopt when there are none.
std::optional<RuleSeverity> worst_severity(const std::vector<Finding>& findings);

/// The one "findings mean exit 1" policy of every command: ExitCode::Findings when the worst
/// reported severity reaches `fail_on`, else ExitCode::Ok. A nullopt `fail_on` means findings
/// never fail the command (a report, such as `advise`); each command's threshold is a column of
/// the subcommand table.
ExitCode findings_exit_code(std::optional<RuleSeverity> worst, std::optional<RuleSeverity> fail_on);

/// Fills a rule's message template for a subject (also used by callers that build findings
/// themselves, e.g. one per perf hint).
std::string render_message(const Rule& rule, const Subject& subject);

/// Makes a finding for `rule` on `subject` without evaluating the condition.
Finding make_finding(const Rule& rule, const Subject& subject);

/// Compiles an expression (exposed for tests and `ptune rules explain`).
Result<std::shared_ptr<const Expression>> compile_expression(std::string_view text);
/// Evaluates a compiled expression; nullopt when a metric it needs is missing.
std::optional<double> evaluate_expression(const Expression& expression, const Subject& subject,
                                          const std::map<std::string, double>& params);
/// Metric names an expression reads.
std::vector<std::string> expression_metrics(const Expression& expression);

/// An expression whose metrics are values by position in a fixed list of names, bound once:
/// for one condition over many subjects that carry the same few metrics and no labels (a
/// sweep's cases), without a Subject and a lookup by name for each.
class SlottedExpression {
  public:
    SlottedExpression(std::shared_ptr<const Expression> expression,
                      std::span<const std::string_view> names);
    /// What evaluate_expression gives for a subject without labels whose metrics are the
    /// present `values` (by position in the names); a metric not among the names is missing.
    std::optional<double> evaluate(std::span<const std::optional<double>> values,
                                   const std::map<std::string, double>& params) const;

  private:
    static constexpr std::size_t kMissing = static_cast<std::size_t>(-1);
    std::shared_ptr<const Expression> expression_;
    std::vector<std::pair<const Expression*, std::size_t>> slots_;  ///< metric node → position
};

}  // namespace ptune::rules
