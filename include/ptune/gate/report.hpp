#pragma once
/// @file report.hpp
/// bench-gate's output: one render::Report (text, Markdown and JSON share its table and
/// numbers) plus the gate's own formats, GitHub annotations and github-action-benchmark JSON.

#include <cstddef>
#include <memory>
#include <string>

#include "ptune/gate/gate.hpp"
#include "ptune/render/report.hpp"

namespace ptune::gate {

/// What the report says about how the gate was run.
struct ReportSettings {
    Options options;
    bool warn_only = false;
    /// Put the per-case JSON into Report::data["cases"]. Off for the CLI, whose JSON renderer
    /// (make_json_renderer) streams the cases: a DOM of 200,000 cases did not fit in 1 GB.
    bool cases_in_data = true;
    /// Build the table (text, Markdown, the step summary). Off when only JSON, gab-json or
    /// GitHub annotations are written: 200,000 rows of strings are ~50 MB nobody reads.
    bool tables = true;
    /// Make the table's rows while it is written (render::Table::make_row) instead of holding
    /// them: a 200,000-case table's strings never exist at once. The report then reads the
    /// elements of GateResult::cases and must be written while they exist (the CLI's).
    bool rows_on_demand = false;
};

/// The report: a benchstat-style table (case, baseline, current, delta, test, verdict; `~` for
/// unchanged) with a geomean row, one note per case that needs a reason, a summary note, and
/// the JSON view (`cases` with case, verdict, baseline, current, delta_pct, test, p_value...).
render::Report make_report(const GateResult& result, const ReportSettings& settings);

/// The per-case publication the rules engine reads (subject kind "case"):
/// `gate.metric_is_mean`, `gate.current.mean`, `gate.current.median`,
/// `gate.current.mean_over_median_pct`, `gate.regressed`.
void publish_metrics(const GateResult& result, const Options& options, rules::MetricStore& store);

/// `::error` / `::warning` workflow commands: regressions are errors (warnings with
/// --warn-only), missing and incomparable cases and rule findings are warnings; at most
/// `cap` of each kind, then a `::notice` saying how many more, and a closing summary notice.
std::unique_ptr<render::Renderer> make_github_renderer(const GateResult& result,
                                                       const ReportSettings& settings,
                                                       std::size_t cap = 10);

/// The JSON report with "cases" written one case at a time (same bytes as the DOM would give);
/// for a report made with `cases_in_data = false`.
std::unique_ptr<render::Renderer> make_json_renderer(const GateResult& result);

/// The `customSmallerIsBetter` array github-action-benchmark reads: `{name, unit, value}` per
/// case with a current number (value = the gated statistic, unit "us"), `extra` = verdict.
std::unique_ptr<render::Renderer> make_gab_json_renderer(const GateResult& result);

}  // namespace ptune::gate
