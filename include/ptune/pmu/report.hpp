#pragma once
/// @file report.hpp
/// Turns a pmu.csv analysis into a format-neutral render::Report (JSON view, tables, notes,
/// findings) for `ptune pmu-analyze` and any command that embeds PMU results.

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
render::Report build_report(const PmuTable& table, const Analysis& analysis,
                            std::vector<rules::Finding> findings, const ReportOptions& options);

}  // namespace ptune::pmu
