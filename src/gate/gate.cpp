// The decision core of bench-gate: tolerances first (a change must matter), then the strongest
// significance test the data allows, then Holm across the cases that produced a p-value.

#include "ptune/gate/gate.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::gate {

namespace detail {
// Which way the change goes once the tolerances are applied.
enum class Exceeds { No, Up, Down };
}  // namespace detail
using detail::Exceeds;

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::Regressed:
            return "regressed";
        case Verdict::Improved:
            return "improved";
        case Verdict::Unchanged:
            return "unchanged";
        case Verdict::Noisy:
            return "noisy";
        case Verdict::Underpowered:
            return "underpowered";
        case Verdict::New:
            return "new";
        case Verdict::Missing:
            return "missing";
        case Verdict::Incomparable:
            return "incomparable";
    }
    return "unchanged";
}

std::string_view to_string(Test test) {
    switch (test) {
        case Test::None:
            return "-";
        case Test::UTest:
            return "utest";
        case Test::Bounds:
            return "bounds";
        case Test::Fence:
            return "fence";
        case Test::Threshold:
            return "threshold";
    }
    return "-";
}

const std::string& BoxedString::str() const {
    static const std::string none;
    return text_ ? *text_ : none;
}

std::ostream& operator<<(std::ostream& out, const BoxedString& text) {
    return out << text.str();
}

std::size_t GateResult::count(Verdict verdict) const {
    return static_cast<std::size_t>(std::count_if(
        cases.begin(), cases.end(), [&](const CaseResult& c) { return c.verdict == verdict; }));
}

bool GateResult::failed() const {
    return geomean.regressed ||
           std::any_of(cases.begin(), cases.end(), [](const CaseResult& c) { return c.fails; });
}

std::size_t GateResult::compared() const {
    return cases.size() - count(Verdict::New) - count(Verdict::Missing) -
           count(Verdict::Incomparable);
}

std::string_view NameStore::keep(std::string_view name) {
    constexpr std::size_t kBlock = 64 * 1024;
    if (name.empty()) return {};
    if (blocks_.empty() || size_ - used_ < name.size()) {
        size_ = std::max(kBlock, name.size());
        blocks_.push_back(std::make_unique_for_overwrite<char[]>(size_));
        used_ = 0;
    }
    char* at = blocks_.back().get() + used_;
    std::copy(name.begin(), name.end(), at);
    used_ += name.size();
    return {at, name.size()};
}

bool is_ignored(std::string_view name, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return false;
    const std::string text(name);
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
        return pattern == text || fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
    });
}

namespace {

Result<double> config_number(const nlohmann::json& value, const std::string& key,
                             const std::string& source) {
    if (!value.is_number() || !(value.get<double>() >= 0.0)) {
        return Error{fmt::format("config: '{}' must be a non-negative number", key), source, 0,
                     ExitCode::InputError};
    }
    return value.get<double>();
}

Status read_tolerance(const nlohmann::json& object, const std::string& where,
                      std::optional<double>& threshold_pct, std::optional<double>& min_delta_us,
                      const std::string& source) {
    for (const auto& [key, value] : object.items()) {
        if (key == "threshold_pct" || key == "min_delta_us") {
            auto number = config_number(value, where + key, source);
            if (!number) return number.error();
            (key == "threshold_pct" ? threshold_pct : min_delta_us) = *number;
        } else if (where.empty() && (key == "cases" || key == "ignore" || key == "allow_missing")) {
            continue;  // handled by the caller
        } else {
            return Error{
                fmt::format("config: unknown key '{}{}' (expected threshold_pct, "
                            "min_delta_us{})",
                            where, key, where.empty() ? ", cases, ignore, allow_missing" : ""),
                source, 0, ExitCode::InputError};
        }
    }
    return ok_status();
}

}  // namespace

Result<Config> parse_config(std::string_view text, const std::string& source) {
    auto parsed = json_document::parse(text, source);
    if (!parsed) {
        Error error = parsed.error();
        error.message.insert(0, "config is ");
        return error;
    }
    const nlohmann::json& document = *parsed;
    if (!document.is_object()) {
        return Error{"config must be a JSON object", source, 1, ExitCode::InputError};
    }
    Config config;
    if (auto status =
            read_tolerance(document, "", config.threshold_pct, config.min_delta_us, source);
        !status) {
        return status.error();
    }
    for (auto [key, list] :
         {std::pair{"ignore", &config.ignore}, std::pair{"allow_missing", &config.allow_missing}}) {
        if (!document.contains(key)) continue;
        const auto& entries = document[key];
        if (!entries.is_array() ||
            !std::all_of(entries.begin(), entries.end(),
                         [](const nlohmann::json& entry) { return entry.is_string(); })) {
            return Error{
                fmt::format("config: '{}' must be an array of case names or patterns", key), source,
                0, ExitCode::InputError};
        }
        for (const auto& entry : entries) list->push_back(entry.get<std::string>());
    }
    if (document.contains("cases")) {
        const auto& cases = document["cases"];
        if (!cases.is_object()) {
            return Error{"config: 'cases' must map case names to {threshold_pct, min_delta_us}",
                         source, 0, ExitCode::InputError};
        }
        for (const auto& [name, entry] : cases.items()) {
            if (!entry.is_object()) {
                return Error{fmt::format("config: cases.'{}' must be an object", name), source, 0,
                             ExitCode::InputError};
            }
            ToleranceOverride override_entry;
            if (auto status = read_tolerance(entry, fmt::format("cases.{}.", name),
                                             override_entry.threshold_pct,
                                             override_entry.min_delta_us, source);
                !status) {
                return status.error();
            }
            config.cases[name] = override_entry;
        }
    }
    return config;
}

namespace {

// More rounds than any benchmark runs (a billion launches of even 1 us is 17 minutes).
constexpr std::size_t kMaxPlausibleRounds = 1'000'000'000;

bool positive(std::optional<double> value) {
    return value && std::isfinite(*value) && *value > 0.0;
}

// Why a summary cannot describe a set of positive rounds; empty when it can. Checked before any
// test, so a damaged line is `incomparable`, never a pass.
std::string summary_problem(const Observation& run) {
    for (const auto& [name, value] : {std::pair{"min", run.min},
                                      {"median", run.median},
                                      {"mean", run.mean},
                                      {"max", run.max}}) {
        if (value && !(std::isfinite(*value) && *value > 0.0))
            return fmt::format("{} {} is not a positive time", name, *value);
    }
    if (run.min && run.max) {
        if (*run.min > *run.max) return fmt::format("min {} above max {}", *run.min, *run.max);
        for (const auto& [name, value] : {std::pair{"median", run.median}, {"mean", run.mean}}) {
            if (value && (*value < *run.min || *value > *run.max))
                return fmt::format("{} {} outside [min {}, max {}]", name, *value, *run.min,
                                   *run.max);
        }
        if (run.rounds == 0 && run.samples.empty()) return "a summary of 0 rounds";
        // Rank statistics of absurd sizes lose all precision in doubles (2^64-1 rounds made
        // even complete separation look like p = 1, and a +50 % case passed).
        if (run.rounds > kMaxPlausibleRounds)
            return fmt::format("{} rounds is not a plausible count (more than {})", run.rounds,
                               kMaxPlausibleRounds);
    }
    return {};
}

RoundSummary round_summary(const Observation& run) {
    return {static_cast<double>(run.rounds), *run.min, *run.median, *run.max};
}

Tolerance tolerance_for(std::string_view name, const Options& options) {
    Tolerance tolerance = options.tolerance;
    if (options.overrides.empty()) return tolerance;
    if (auto it = options.overrides.find(std::string(name)); it != options.overrides.end()) {
        if (it->second.threshold_pct) tolerance.threshold_pct = *it->second.threshold_pct;
        if (it->second.min_delta_us) tolerance.min_delta_us = *it->second.min_delta_us;
    }
    return tolerance;
}

}  // namespace

// A case waiting for Holm before its verdict is final.
struct detail::PendingP {
    std::size_t index;
    Exceeds exceeds;
    Verdict if_not_significant;  ///< noisy (raw samples) or underpowered (summaries)
    double best_p = 0.0;         ///< the smallest p the data allows (complete separation)
};

namespace {

using detail::PendingP;

std::string percent(double fraction) {
    return stats::format_signed_percent(fraction * 100.0);
}

std::string underpowered_reason(std::size_t current_rounds, std::size_t baseline_rounds,
                                double best_p, const Options& options) {
    return fmt::format(
        "{} current and {} baseline rounds cannot reach alpha {}: even complete "
        "separation gives p={}",
        current_rounds, baseline_rounds, options.alpha, stats::format_fixed(best_p, 3));
}

// Whether p cannot be significant at alpha. p = alpha is not significant (p < alpha is), and a
// p computed as alpha (1/C(6,3) = 0.05 through lgamma) may come out a hair below it.
bool cannot_reach(double p, double alpha) {
    return p >= alpha * (1.0 - 1e-9);
}

// Keeps the baseline runs that can be compared with the current one; says why others cannot.
std::vector<const Observation*> comparable_runs(const CaseInput& input, Metric metric,
                                                std::string& mismatch, std::string& unusable,
                                                std::string& damaged) {
    const Observation& current = *input.current;
    std::vector<const Observation*> runs;
    for (const auto& run : input.baseline) {
        if (!current.platform.empty() && !run.platform.empty() &&
            run.platform != current.platform) {
            mismatch =
                fmt::format("platform {} vs {} ({})", run.platform, current.platform, run.source);
            continue;
        }
        if (current.declared_rounds && run.declared_rounds &&
            *current.declared_rounds != *run.declared_rounds) {
            mismatch = fmt::format("{} rounds vs {} ({})", *run.declared_rounds,
                                   *current.declared_rounds, run.source);
            continue;
        }
        if (!run.unavailable.empty()) {
            unusable = fmt::format("no effective_us in {}: {}", run.source, run.unavailable);
            continue;
        }
        if (std::string problem = summary_problem(run); !problem.empty()) {
            damaged = fmt::format("baseline {}: {}", run.source, problem);
            continue;
        }
        const auto value = run.value(metric);
        if (!value) {
            unusable = fmt::format("{} has no {} (only a mean)", run.source, to_string(metric));
            continue;
        }
        if (!positive(value)) {
            unusable = fmt::format("{} value {} in {} is not a positive time", to_string(metric),
                                   *value, run.source);
            continue;
        }
        runs.push_back(&run);
    }
    return runs;
}

// The current run's value, or nullopt with the verdict that says why there is none (missing,
// incomparable, new).
std::optional<double> current_value_of(const CaseInput& input, const Options& options,
                                       CaseResult& r) {
    if (!input.current) {
        r.verdict = Verdict::Missing;
        r.reason = "not in the current run";
        for (const auto& run : input.baseline) {
            if (positive(run.value(options.metric))) r.baseline = run.value(options.metric);
        }
        return std::nullopt;
    }
    const Observation& current = *input.current;
    r.current_mean = current.mean;
    r.current_median = current.median;
    if (!current.unavailable.empty()) {
        r.verdict = Verdict::Missing;
        r.reason = fmt::format("no effective_us in the current run: {}", current.unavailable);
        return std::nullopt;
    }
    if (std::string problem = summary_problem(current); !problem.empty()) {
        r.verdict = Verdict::Incomparable;
        r.invalid_input = true;
        r.reason = fmt::format("current {}: {}", current.source, problem);
        return std::nullopt;
    }
    const auto current_value = current.value(options.metric);
    if (!current_value) {
        r.verdict = Verdict::Incomparable;
        r.reason = fmt::format("the current run has no {} (only a mean); use --metric mean",
                               to_string(options.metric));
        return std::nullopt;
    }
    if (!positive(current_value)) {
        r.verdict = Verdict::Incomparable;
        r.invalid_input = true;
        r.reason = fmt::format("current {} {} is not a positive time", to_string(options.metric),
                               *current_value);
        return std::nullopt;
    }
    r.current = current_value;
    if (input.baseline.empty()) {
        r.verdict = Verdict::New;
        r.reason = "not in the baseline";
        return std::nullopt;
    }
    return current_value;
}

// Which way `current` leaves `reference`, when it leaves both tolerances.
Exceeds exceeds_tolerance(double current, double reference, const Tolerance& tolerance) {
    const double delta_us = current - reference;
    const double delta_pct = delta_us / reference * 100.0;
    if (delta_pct > tolerance.threshold_pct && delta_us > tolerance.min_delta_us)
        return Exceeds::Up;
    if (delta_pct < -tolerance.threshold_pct && -delta_us > tolerance.min_delta_us)
        return Exceeds::Down;
    return Exceeds::No;
}

// The verdict of a change once its significance is known.
void settle(CaseResult& r, Exceeds exceeds, bool significant, std::string noise_reason) {
    if (exceeds == Exceeds::No) {
        r.verdict = Verdict::Unchanged;
    } else if (!significant) {
        r.verdict = Verdict::Noisy;
        r.reason = std::move(noise_reason);
    } else {
        r.verdict = exceeds == Exceeds::Up ? Verdict::Regressed : Verdict::Improved;
    }
}

// (c) A history: the noise between runs is the yardstick (within-run rounds understate it).
void fence_test(const std::vector<double>& values, double cur, const Options& options,
                CaseResult& r) {
    r.test = Test::Fence;
    auto fence = fit_noise_fence(values, options.fence, options.fence_k);
    r.fence = fence;
    const double log_ratio = std::log(cur / fence->reference);
    const Exceeds exceeds = exceeds_tolerance(cur, fence->reference, r.tolerance);
    const bool outside =
        exceeds == Exceeds::Up ? log_ratio > fence->upper : log_ratio < fence->lower;
    settle(
        r, exceeds, outside,
        fmt::format("within run-to-run noise of {} runs (fence {} .. {})", values.size(),
                    percent(std::exp(fence->lower) - 1.0), percent(std::exp(fence->upper) - 1.0)));
}

// (a) Raw samples on both sides: Mann–Whitney U in the direction of the change.
std::optional<PendingP> sample_test(const Observation& current, const std::vector<double>& pooled,
                                    Exceeds exceeds, const Options& options, CaseResult& r,
                                    std::size_t index) {
    r.test = Test::UTest;
    r.baseline_samples = pooled.size();
    r.current_samples = current.samples.size();
    r.baseline_sd = stats::stdev(pooled);
    r.current_sd = stats::stdev(current.samples);
    const Tail tail = *r.current >= *r.baseline ? Tail::Greater : Tail::Less;
    r.p_value = mann_whitney_u(current.samples, pooled, tail)->p_value;
    r.shift_us = hodges_lehmann_shift(current.samples, pooled);
    const double best_p = separation_p(static_cast<double>(current.samples.size()),
                                       static_cast<double>(pooled.size()));
    if (exceeds != Exceeds::No && cannot_reach(best_p, options.alpha)) {
        r.verdict = Verdict::Underpowered;
        r.reason = underpowered_reason(current.samples.size(), pooled.size(), best_p, options);
        return std::nullopt;
    }
    return PendingP{index, exceeds, Verdict::Noisy, best_p};  // unchanged unless Holm says so
}

// (b) Summaries with a spread: the Mann–Whitney U they allow at least, and its exact p.
std::optional<PendingP> bounds_test(const Observation& current,
                                    const std::vector<const Observation*>& runs, Exceeds exceeds,
                                    const Options& options, CaseResult& r, std::size_t index) {
    r.test = Test::Bounds;
    std::vector<RoundSummary> baseline_summaries;
    for (const auto* run : runs) baseline_summaries.push_back(round_summary(*run));
    const Tail tail = *r.current >= *r.baseline ? Tail::Greater : Tail::Less;
    const auto test = summary_u_test(round_summary(current), baseline_summaries, tail);
    for (const auto* run : runs) r.baseline_samples += run->rounds;
    r.current_samples = current.rounds;
    r.p_value = test->p_value;
    if (exceeds != Exceeds::No && cannot_reach(test->best_p, options.alpha)) {
        r.verdict = Verdict::Underpowered;
        r.reason =
            underpowered_reason(r.current_samples, r.baseline_samples, test->best_p, options);
        return std::nullopt;
    }
    // Only a change beyond the tolerances can become a verdict, so only those enter Holm.
    if (exceeds == Exceeds::No) {
        r.verdict = Verdict::Unchanged;
        return std::nullopt;
    }
    return PendingP{index, exceeds, Verdict::Underpowered, test->best_p};
}

// Fills everything but the p-value verdicts; returns the pending p when one decides.
std::optional<PendingP> compare(const CaseInput& input, const Options& options, CaseResult& r,
                                std::size_t index) {
    const auto current_value = current_value_of(input, options, r);
    if (!current_value) return std::nullopt;
    const Observation& current = *input.current;
    std::string mismatch, unusable, damaged;
    const auto runs = comparable_runs(input, options.metric, mismatch, unusable, damaged);
    if (runs.empty()) {
        // Damaged numbers are never a pass: they make the case incomparable, not new.
        r.invalid_input = !damaged.empty();
        r.verdict = mismatch.empty() && damaged.empty() ? Verdict::New : Verdict::Incomparable;
        r.reason = !damaged.empty() ? damaged : mismatch.empty() ? unusable : mismatch;
        return std::nullopt;
    }
    if (!mismatch.empty() || !unusable.empty() || !damaged.empty()) {
        r.reason = fmt::format("{} of {} baseline runs left out ({})",
                               input.baseline.size() - runs.size(), input.baseline.size(),
                               !damaged.empty()   ? damaged
                               : mismatch.empty() ? unusable
                                                  : mismatch);
    }
    r.baseline_runs = runs.size();
    std::vector<double> values;
    for (const auto* run : runs) values.push_back(*run->value(options.metric));
    const double base = *stats::median(values);
    r.baseline = base;
    const double cur = *current_value;
    r.delta_us = cur - base;
    r.delta_pct = (cur - base) / base * 100.0;

    if (runs.size() >= options.min_history) {
        fence_test(values, cur, options, r);
        return std::nullopt;
    }
    const Exceeds exceeds = exceeds_tolerance(cur, base, r.tolerance);
    std::vector<double> pooled;
    for (const auto* run : runs)
        pooled.insert(pooled.end(), run->samples.begin(), run->samples.end());
    if (!current.samples.empty() && !pooled.empty())
        return sample_test(current, pooled, exceeds, options, r, index);
    const bool summaries = current.min && current.median && current.max && current.rounds > 0 &&
                           std::all_of(runs.begin(), runs.end(), [](const Observation* run) {
                               return run->min && run->median && run->max && run->rounds > 0;
                           });
    if (summaries) return bounds_test(current, runs, exceeds, options, r, index);

    // (d) Nothing to test against: the tolerances alone decide. A CI report's value stands for
    // many rounds whose spread is not given: beyond the tolerance the data cannot show the
    // change, and the hard threshold decides.
    r.test = Test::Threshold;
    const bool report_value = current.value_only_report ||
                              std::any_of(runs.begin(), runs.end(), [](const Observation* run) {
                                  return run->value_only_report;
                              });
    if (report_value && exceeds != Exceeds::No) {
        r.verdict = Verdict::Underpowered;
        r.reason = "summary only: the CI result gives a value, not its rounds, to test";
        return std::nullopt;
    }
    settle(r, exceeds, true, {});
    if (exceeds != Exceeds::No) {
        r.reason = "tolerance only: no raw samples, no spread and fewer than " +
                   std::to_string(options.min_history) + " baseline runs";
    }
    return std::nullopt;
}

// Whether a case fails the gate, once its verdict is final.
void decide_failure(CaseResult& r, const Options& options) {
    switch (r.verdict) {
        case Verdict::Regressed:
            r.fails = true;
            break;
        case Verdict::Underpowered:
            if (r.delta_pct && *r.delta_pct > options.hard_threshold_pct) {
                r.fails = true;
                r.reason += fmt::format(
                    "; the slowdown {} is above the hard threshold {}%, "
                    "which fails the gate whatever the test says",
                    percent(*r.delta_pct / 100.0), options.hard_threshold_pct);
            }
            break;
        case Verdict::Incomparable:
            if (r.invalid_input) {
                r.fails = true;
                r.reason += " (damaged numbers never pass)";
            }
            break;
        case Verdict::Missing:
            if (options.require_all && !is_ignored(r.name, options.allow_missing)) {
                r.fails = true;
                r.reason +=
                    " (a baseline case needs a valid current result; allow it with "
                    "--allow-missing)";
            }
            break;
        default:
            break;
    }
}

void compute_geomean(GateResult& result, const Options& options) {
    std::vector<double> baseline, current;
    for (const auto& c : result.cases) {
        if (c.verdict == Verdict::New || c.verdict == Verdict::Missing ||
            c.verdict == Verdict::Incomparable || !c.baseline || !c.current) {
            continue;
        }
        baseline.push_back(*c.baseline);
        current.push_back(*c.current);
    }
    result.geomean.cases = baseline.size();
    if (baseline.empty()) return;
    result.geomean.baseline = stats::geomean(baseline);
    result.geomean.current = stats::geomean(current);
    if (result.geomean.baseline && result.geomean.current) {
        result.geomean.delta_pct =
            (*result.geomean.current / *result.geomean.baseline - 1.0) * 100.0;
        result.geomean.regressed = options.geomean_threshold_pct &&
                                   *result.geomean.delta_pct > *options.geomean_threshold_pct;
    }
}

}  // namespace

Evaluation::Evaluation(const Options& options) : options_(options) {}

Evaluation::~Evaluation() = default;

void Evaluation::reserve(std::size_t cases) {
    result_.cases.reserve(cases);
}

void Evaluation::add(const CaseInput& input) {
    add_named(input, input.name);
}

void Evaluation::add(CaseInput&& input) {
    std::string name = std::move(input.name);
    add_named(input, std::move(name));
}

void Evaluation::add_named(const CaseInput& input, std::string name) {
    if (is_ignored(name, options_.ignore)) {
        result_.ignored.push_back(std::move(name));
        return;
    }
    CaseResult r;
    r.name = result_.names->keep(name);
    r.tolerance = tolerance_for(r.name, options_);
    r.baseline_runs = input.baseline.size();
    if (auto p = compare(input, options_, r, result_.cases.size())) pending_.push_back(*p);
    result_.cases.push_back(std::move(r));
}

GateResult Evaluation::finish() {
    const Options& options = options_;
    GateResult result = std::move(result_);
    const std::vector<PendingP> pending = std::move(pending_);
    // Holm over every case that produced a p-value: a family-wise error rate of alpha however
    // many cases the suite has (benchstat's open TODO).
    std::vector<double> p_values;
    for (const auto& p : pending) p_values.push_back(*result.cases[p.index].p_value);
    const auto adjusted = holm_adjust(p_values);
    // Could a case have been significant in this family at all? Its best Holm-adjusted p is
    // what its complete separation would get: placed among the other p-values (the k-th
    // smallest is multiplied by m - k, and adjusted p-values never fall along the order), it is
    // max(prefix[k], (m - k) * best_p) with k the p-values below best_p. At or above alpha, the
    // case is underpowered, not noisy (3 rounds a side: 0.05 alone, 0.10 among two cases).
    std::vector<double> sorted_p = p_values;
    std::sort(sorted_p.begin(), sorted_p.end());
    const double m = static_cast<double>(sorted_p.size());
    std::vector<double> prefix(sorted_p.size() + 1, 0.0);  // max (m - j) p_(j) over j < k
    for (std::size_t k = 0; k < sorted_p.size(); ++k)
        prefix[k + 1] = std::max(prefix[k], (m - static_cast<double>(k)) * sorted_p[k]);
    auto best_adjusted_p = [&](double best_p) {
        const auto k = static_cast<std::size_t>(
            std::lower_bound(sorted_p.begin(), sorted_p.end(), best_p) - sorted_p.begin());
        return std::min(1.0, std::max(prefix[k], (m - static_cast<double>(k)) * best_p));
    };
    for (std::size_t i = 0; i < pending.size(); ++i) {
        CaseResult& r = result.cases[pending[i].index];
        r.p_adjusted = adjusted[i];
        if (pending[i].exceeds == Exceeds::No) continue;
        if (adjusted[i] < options.alpha) {
            r.verdict = pending[i].exceeds == Exceeds::Up ? Verdict::Regressed : Verdict::Improved;
            continue;
        }
        const double best_adjusted = best_adjusted_p(pending[i].best_p);
        const bool powerless = pending[i].if_not_significant == Verdict::Underpowered ||
                               cannot_reach(best_adjusted, options.alpha);
        r.verdict = powerless ? Verdict::Underpowered : pending[i].if_not_significant;
        const char* why = !powerless ? "not significant"
                          : pending[i].if_not_significant == Verdict::Underpowered
                              ? "the summaries cannot show significance"
                              : "the samples cannot show significance";
        r.reason = fmt::format("{} after Holm over {} cases: p={} (alpha {})", why, pending.size(),
                               stats::format_fixed(adjusted[i], 3), options.alpha);
        if (powerless && pending[i].if_not_significant == Verdict::Noisy)
            r.reason += fmt::format("; even complete separation would give p={} here",
                                    stats::format_fixed(best_adjusted, 3));
    }
    for (auto& r : result.cases) decide_failure(r, options);
    compute_geomean(result, options);
    return result;
}

GateResult evaluate(const std::vector<CaseInput>& cases, const Options& options) {
    Evaluation evaluation(options);
    for (const auto& input : cases) evaluation.add(input);
    return evaluation.finish();
}

}  // namespace ptune::gate
