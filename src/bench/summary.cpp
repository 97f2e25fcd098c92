// Rule metrics of bench cases: a case's `bench.*` metrics (publish_metrics), the case-rule
// screen, and the findings of a run's cases.

#include "ptune/bench/summary.hpp"
#include "case_facts.hpp"
#include "ptune/rules/subject_rules.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

namespace ptune::bench {

std::optional<double> rank_imbalance(const BenchBlock& block) {
    std::vector<double> means;
    for (const Rank& rank : block.ranks) {
        if (rank.eff_us && rank.eff_us->mean > 0.0) means.push_back(rank.eff_us->mean);
    }
    if (means.size() < 2) return std::nullopt;
    auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    return *hi / *lo;
}

// Named, not anonymous: CaseRuleScreen::State (external linkage) holds one, and in a unity
// build GCC refuses an anonymous-namespace type inside it (-Wsubobject-linkage).
namespace case_rules_detail {

/// Every metric publish_case() can set on a case: the one list of their names, which the
/// case-rule screen also reads to tell which rules can differ from case to case.
enum CaseMetric : std::size_t {
    kUnavailable,
    kFallbackFlattened,
    kEffectiveMean,
    kEffectiveMin,
    kEffectiveMedian,
    kEffectiveMax,
    kRounds,
    kMeanOverMedian,
    kDeclaredRounds,
    kRoundsShortfall,
    kRanks,
    kRankImbalance,
    kCaseMetricCount
};
constexpr std::array<std::string_view, kCaseMetricCount> kCaseMetricNames = {
    "bench.unavailable",
    "bench.fallback_flattened",
    "bench.effective_us.mean",
    "bench.effective_us.min",
    "bench.effective_us.median",
    "bench.effective_us.max",
    "bench.rounds",
    "bench.mean_over_median",
    "bench.declared_rounds",
    "bench.rounds_shortfall",
    "bench.ranks",
    "bench.rank_imbalance"};

/// A case's metrics by CaseMetric (nullopt: the case has none of it).
using CaseMetricValues = std::array<std::optional<double>, kCaseMetricCount>;

/// The metrics publish_case() sets for a case.
CaseMetricValues case_metric_values(const CaseMetrics& block) {
    CaseMetricValues values;
    values[kUnavailable] = block.effective_us ? 0.0 : 1.0;
    const bool fallback = block.fallback_flattened;
    values[kFallbackFlattened] = fallback ? 1.0 : 0.0;
    const Summary* s = block.effective_us ? &*block.effective_us : nullptr;
    const bool full = s != nullptr && !s->mean_only;
    const bool declared = full && block.declared_rounds && !fallback;
    if (s != nullptr) values[kEffectiveMean] = s->mean;
    if (full) {
        values[kEffectiveMin] = s->min;
        values[kEffectiveMedian] = s->median;
        values[kEffectiveMax] = s->max;
        values[kRounds] = static_cast<double>(s->rounds);
        if (s->median > 0.0) values[kMeanOverMedian] = s->mean / s->median;
    }
    if (declared) {
        values[kDeclaredRounds] = static_cast<double>(*block.declared_rounds);
        values[kRoundsShortfall] =
            static_cast<double>(*block.declared_rounds) - static_cast<double>(s->rounds);
    }
    if (block.ranks > 0) values[kRanks] = static_cast<double>(block.ranks);
    values[kRankImbalance] = block.rank_imbalance;
    return values;
}

/// With `slots` (the reused subject's), publish_case() finds the metric nodes the subject
/// holds: each is looked up by name once per sweep, not per case.
struct MetricSlots {
    static constexpr std::size_t kCount = kCaseMetricCount;
    std::array<std::map<std::string, double, std::less<>>::iterator, kCount> node{};
    std::array<bool, kCount> held{};
};

}  // namespace case_rules_detail

namespace {

using namespace case_rules_detail;  // MetricSlots and the case metrics

/// A reused subject's name and location: those of the case `name` at `file`:`line`.
void name_case(std::string_view name, const std::string& file, std::size_t line,
               rules::Subject& subject) {
    subject.key.kind = "case";
    subject.key.name = name;
    subject.locations.resize(1);
    subject.locations.front().file = file;
    subject.locations.front().line = line;
}

/// Sets a case subject's `bench.*` metrics from its CI block and adds the block's location.
/// With `reused` the subject held the previous case (summary_findings() evaluates every case of
/// a sweep through one subject, without an allocation per metric): it is renamed, its metrics
/// this case lacks are erased and its one location replaced. With `named` false (and
/// `reused`), only the metrics are set: name_case() follows when a finding is to be made.
void publish_case(std::string_view name, const std::string& file, std::size_t line,
                  const CaseMetrics& block, rules::Subject& subject, bool reused,
                  MetricSlots* slots = nullptr, bool named = true) {
    auto& metrics = subject.metrics;
    if (slots != nullptr && !reused) slots = nullptr;
    const auto set = [&](std::size_t k, double value) {
        const std::string_view name = kCaseMetricNames[k];
        if (slots != nullptr && slots->held[k]) {
            slots->node[k]->second = value;
            return;
        }
        auto it = metrics.find(name);
        if (it != metrics.end())
            it->second = value;
        else
            it = metrics.emplace(std::string(name), value).first;
        if (slots != nullptr) {
            slots->node[k] = it;
            slots->held[k] = true;
        }
    };
    const auto erase = [&](std::size_t k) {
        if (slots != nullptr) {  // every change went through `slots`
            if (slots->held[k]) metrics.erase(slots->node[k]);
            slots->held[k] = false;
        } else if (auto it = metrics.find(kCaseMetricNames[k]); reused && it != metrics.end()) {
            metrics.erase(it);
        }
    };
    if (reused) {
        if (named) name_case(name, file, line, subject);
    } else {
        subject.locations.push_back({file, line, 0});
    }
    const CaseMetricValues values = case_metric_values(block);
    for (std::size_t k = 0; k < kCaseMetricCount; ++k) {
        if (values[k])
            set(k, *values[k]);
        else
            erase(k);
    }
}

}  // namespace

CaseMetrics case_metrics(const BenchBlock& block) {
    CaseMetrics metrics;
    metrics.effective_us = block.effective_us;
    metrics.fallback_flattened = (block.context && block.context->fallback_flattened) ||
                                 (block.raw && block.raw->fallback_flattened);
    metrics.declared_rounds = block.declared_rounds;
    metrics.ranks = block.ranks.size();
    metrics.rank_imbalance = rank_imbalance(block);
    return metrics;
}

void publish_metrics(const std::vector<BenchCase>& cases, rules::MetricStore& store) {
    for (const BenchCase& bench_case : cases) {
        const BenchBlock* block = bench_case.ci_block();
        if (block == nullptr) continue;
        publish_case(bench_case.name, block->source.file, block->source.line, case_metrics(*block),
                     store.subject("case", bench_case.name), false);
    }
}

namespace {

/// Whether `rule`'s condition holds for `subject`.
bool holds(const rules::Rule& rule, const rules::Subject& subject) {
    auto verdict = rules::evaluate_expression(*rule.compiled_condition, subject, rule.params);
    return verdict && *verdict != 0;
}

/// The rules of `case_rules` that may hold for one case and not for another: those that read a
/// metric publish_case() sets. A condition reading none (a `gate.*` rule in bench-summary) has
/// the same verdict for every case, that of a subject without metrics: kept when it holds
/// (then for every case), left out when it does not.
std::vector<const rules::Rule*> rules_to_screen(const rules::SubjectRules& case_rules) {
    std::vector<const rules::Rule*> screened;
    const rules::Subject bare;
    for (const rules::Rule* rule : case_rules.rules()) {
        const std::vector<std::string> read = rules::expression_metrics(*rule->compiled_condition);
        const bool per_case = std::any_of(read.begin(), read.end(), [](const std::string& name) {
            return std::find(kCaseMetricNames.begin(), kCaseMetricNames.end(), name) !=
                   kCaseMetricNames.end();
        });
        if (per_case || holds(*rule, bare)) screened.push_back(rule);
    }
    return screened;
}

/// summary_findings() of the cases `each(visit)` hands to `visit(name, file, line, metrics)`.
template <class ForEach>
std::vector<rules::Finding> case_findings(const ForEach& each, const rules::Catalogue& catalogue,
                                          const rules::MetricStore& store, std::string_view area) {
    CaseRuleScreen screen(catalogue, area);
    std::vector<rules::Finding> findings;
    each([&](std::string_view name, const std::string& file, std::size_t line,
             const CaseMetrics& metrics) { screen.screen(name, file, line, metrics, findings); });
    return with_run_findings(std::move(findings), catalogue, store, area);
}

}  // namespace

struct CaseRuleScreen::State {
    State(const rules::Catalogue& catalogue, std::string_view area)
        : case_rules(catalogue, "case", {std::string(area)}),
          screened(rules_to_screen(case_rules)) {
        for (const rules::Rule* rule : screened)
            slotted.emplace_back(rule->compiled_condition, kCaseMetricNames);
    }
    rules::SubjectRules case_rules;
    std::vector<const rules::Rule*> screened;       ///< rules_to_screen(case_rules)
    std::vector<rules::SlottedExpression> slotted;  ///< their conditions on case_metric_values
    rules::Subject subject;
    MetricSlots slots;
};

CaseRuleScreen::CaseRuleScreen(const rules::Catalogue& catalogue, std::string_view area)
    : state_(std::make_unique<State>(catalogue, area)) {}
CaseRuleScreen::~CaseRuleScreen() = default;

bool CaseRuleScreen::screen(std::string_view name, const std::string& file, std::size_t line,
                            const CaseMetrics& metrics, std::vector<rules::Finding>& findings) {
    State& state = *state_;
    // The screened conditions read the case's metric values by position: no subject is filled
    // and no metric looked up by name for the ~all cases no rule holds for. A case subject has
    // only these metrics and no labels, so the verdicts are the subject's.
    const CaseMetricValues values = case_metric_values(metrics);
    bool any = false;
    for (std::size_t r = 0; r < state.screened.size() && !any; ++r) {
        const auto verdict = state.slotted[r].evaluate(values, state.screened[r]->params);
        any = verdict && *verdict != 0;
    }
    if (!any) return false;
    // Only now the subject, named and located for the findings.
    publish_case(name, file, line, metrics, state.subject, true, &state.slots);
    state.case_rules.evaluate(state.subject, findings);
    return true;
}

std::vector<rules::Finding> with_run_findings(std::vector<rules::Finding> case_findings,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area) {
    std::vector<rules::Finding> findings = rules::evaluate(catalogue, store, {std::string(area)});
    if (findings.empty()) {  // most runs: no copy of the case findings
        findings = std::move(case_findings);
    } else {
        findings.insert(findings.end(), std::make_move_iterator(case_findings.begin()),
                        std::make_move_iterator(case_findings.end()));
    }
    rules::sort_findings(findings);
    return findings;
}

std::vector<rules::Finding> findings_of_facts(const std::vector<CaseFactsView>& cases,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area) {
    return case_findings(
        [&](const auto& visit) {
            for (const CaseFactsView& facts : cases)
                visit(facts.name, *facts.file, facts.line, *facts.metrics);
        },
        catalogue, store, area);
}

std::vector<rules::Finding> summary_findings(const std::vector<BenchCase>& cases,
                                             const rules::Catalogue& catalogue,
                                             const rules::MetricStore& store,
                                             std::string_view area) {
    return case_findings(
        [&](const auto& visit) {
            for (const BenchCase& bench_case : cases) {
                const BenchBlock* block = bench_case.ci_block();
                if (block != nullptr)
                    visit(bench_case.name, block->source.file, block->source.line,
                          case_metrics(*block));
            }
        },
        catalogue, store, area);
}

}  // namespace ptune::bench
