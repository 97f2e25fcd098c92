#pragma once
/// @file report.hpp
/// Turns a pmu.csv analysis into a format-neutral render::Report (JSON view, tables, notes,
/// findings) for `ptune pmu-analyze` and any command that embeds PMU results.

#include <memory>
#include <string>
#include <vector>

#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/model.hpp"
#include "ptune/render/report.hpp"

namespace ptune::pmu {

/// What the report shows besides the kernels.
struct ReportOptions {
    bool row_table = false;      ///< add the per-row table (the JSON always has the rows)
    bool machine_cells = false;  ///< table cells as plain fractions (CSV), not percentages
    std::string names_source;    ///< where kernel names came from; empty when none
};

/// Ratios in JSON are rounded half-even to this many decimals (the fixtures' precision).
inline constexpr int kRatioDecimals = 6;

/// Builds the report. `findings` are the rules engine's findings on the published metrics.
/// The JSON view holds everything but the rows: make_json_renderer() adds them while writing,
/// rows_json() builds them as a tree for small inputs.
render::Report build_report(const PmuTable& table, const Analysis& analysis,
                            std::vector<rules::Finding> findings, const ReportOptions& options);

/// Every row as JSON: ids, raw counters, ratios, bound ratio and formula, bottleneck, icache
/// miss rate, `clamped`. Holds the whole file in memory; for output use make_json_renderer().
nlohmann::json rows_json(const PmuTable& table, const Analysis& analysis);

/// The `--format json` renderer of `ptune pmu-analyze`: the report's JSON with a `rows` array
/// streamed row by row. `table` and `analysis` must outlive it.
std::shared_ptr<render::Renderer> make_json_renderer(const PmuTable& table,
                                                     const Analysis& analysis);

/// The overview of several pmu.csv files (advise): one table row and one JSON entry per kernel.
struct Overview {
    render::Table table;  ///< columns set by make_overview()
    nlohmann::json data = nlohmann::json::array();
};

/// An overview without kernels yet.
Overview make_overview();

/// Adds the kernels of one analysis; `scope` says which csv they came from (JSON only).
void add_to_overview(Overview& overview, const std::string& scope, const Analysis& analysis);

}  // namespace ptune::pmu
