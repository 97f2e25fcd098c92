#pragma once
/// @file pipeline.hpp
/// The perf_hints.log pipeline shared by `ptune hints-lint` and `ptune advise`: which logs the
/// inputs name, reading them with the column base their build tells, linting (lint.hpp),
/// publishing the per-kernel metrics, and the per-rule summary `advise` ranks.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/hints/lint.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::hints {

/// The log pypto writes when a compiler hint fires.
inline constexpr std::string_view kLogName = "perf_hints.log";

/// The logs a list of inputs names.
struct LogPaths {
    std::vector<std::string> logs;  ///< files in input order ("-" is stdin)
    bool clean_directory = false;   ///< a directory held no log: no hint fired there
};

/// Files (and "-") are taken as they are (a missing one is reported when read); a directory of
/// runs (build_output/, or a project directory holding one) gives the logs of the newest run of
/// each program, since older runs hold hints of code that has changed since; any other directory
/// the logs under it. Notes say which runs were picked and which directories held no log.
LogPaths find_logs(const std::vector<std::string>& inputs, Diagnostics& diagnostics);

/// Options of reading.
struct ReadOptions {
    std::optional<int> column_base;  ///< 0 or 1 forces the base; else the build, then the entries
};

/// Reads each log with the column base from the files beside it (column_base_from_build) unless
/// forced. A log that cannot be opened, or holds no entry but lines that are not hints, is
/// reported as an error and left out.
std::vector<ParsedLog> read_logs(const std::vector<std::string>& paths, const ReadOptions& options,
                                 Diagnostics& diagnostics);

/// Marks every diagnostic not suppressed inline as in the baseline, once baseline_json() of
/// `result` has been written; returns how many.
std::size_t adopt_as_baseline(LintResult& result);

/// Publishes per-kernel metrics (publish_kernel_metrics) and copies them onto the
/// `<function>_aic` / `<function>_aiv` kernels already in `store`: hints name the Python
/// function, while PMU and the memory report name the kernels of a mixed function so.
void publish(LintResult& result, rules::MetricStore& store);

/// The reported hints of one rule by site, heaviest first.
struct RuleSummary {
    std::string rule_id;
    /// One reported diagnostic per distinct location (`file:line:column`; the hints without a
    /// location together), the heaviest of its location; heaviest first.
    std::vector<const LintDiagnostic*> sites;
    std::size_t hints = 0;  ///< reported diagnostics, several per site when one line has many
    std::string top_site;   ///< `file:line` of the heaviest, or "(no location)"
};

/// The reported diagnostics of `result` grouped by rule, in rule id order. The summaries point
/// into `result`.
std::vector<RuleSummary> summarise_by_rule(const LintResult& result);

/// One finding per rule: `N site(s)` (`H hint(s) at N site(s)` when a site has several), every
/// site as evidence (the first five located ones as locations, each once):
/// a list of 40 PH001 lines would drown a ranking, and the per-site view is hints-lint's.
rules::Finding summary_finding(const RuleSummary& summary, const rules::Catalogue& catalogue);

/// `code | sites | top site | weight`, one row per summary.
render::Table summary_table(const std::vector<RuleSummary>& summaries);

/// `[{rule, sites, top}]`, one entry per summary.
nlohmann::json summary_json(const std::vector<RuleSummary>& summaries);

/// What is not a hint goes to stderr as diagnostics: unused suppressions (warnings), baseline
/// entries fixed since `baseline_path`, the rules on the logs themselves and the summary line.
void report_side_notes(const LintResult& result, const std::string& baseline_path,
                       Diagnostics& diagnostics);

}  // namespace ptune::hints
