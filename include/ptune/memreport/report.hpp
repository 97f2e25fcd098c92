#pragma once
/// @file report.hpp
/// Turns an analysed memory report into a format-neutral render::Report (one usage table per
/// function, a summary note, the JSON view, findings) and the renderers `ptune mem-report` owns:
/// text with usage cells coloured by the catalogue's thresholds, and CSV with exact numbers.
/// Also the per-function summary `ptune advise` shows.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptune/memreport/pipeline.hpp"
#include "ptune/render/report.hpp"
#include "ptune/render/svg.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::memreport {

/// Usage percentages above which a space's cell is coloured: yellow above `marginal_pct`
/// (rule M5's lower bound), red above `over_pct` (M1–M3).
struct UsageBand {
    double marginal_pct = 85;
    double over_pct = 100;
};

/// The bands of Vec, Mat and Acc, read from the rules mem.marginal-* and mem.*over-limit of
/// `catalogue` (built-in values when a rule or parameter is absent). Left and Right have none:
/// running them near 100 % is normal (M4).
std::map<std::string, UsageBand, std::less<>> usage_bands(const rules::Catalogue& catalogue);

/// The table as pypto's text report prints it (mem-report.md §2, byte for byte): the header
/// with `backend_token`, `Functions: N InCore` (v1) or `N compute functions` (v2, v3), the
/// function tables in `report` order, and for v3 the Buffers blocks. A table rebuilt from a
/// pass dump thereby reads like the report its build would have written (upstream-2026-09.md
/// §5.2).
std::string format_text_report(const Report& report, std::string_view backend_token,
                               FormatVersion version);

/// The backend as the outputs show it: `a2a3 (Backend: 910B)`, `a2a3 (assumed: ...)`.
std::string backend_text(const Report& report, const BackendChoice& choice);

/// Builds the report: a table per function (followed by the buffers live at each space's
/// peak when the source has live ranges), the summary note, findings, and when `with_json`
/// the JSON view (large for a large report; see analyzer.hpp to_json, nulls without a report).
render::Report build_report(const Analysis& analysis, std::vector<rules::Finding> findings,
                            bool with_json);

/// The text layout of render::write_text_table, usage cells coloured per `bands` on a terminal.
/// Colour is added after the layout, so escape codes never disturb the column widths.
std::shared_ptr<render::Renderer> make_text_renderer(
    std::map<std::string, UsageBand, std::less<>> bands);

/// CSV is one table: every (function, space) row with exact numbers (a header only without a
/// report).
std::shared_ptr<render::Renderer> make_csv_renderer(const Report& report);

/// One row per function, one column per space (Vec, Mat, Left, Right, Acc): usage `70.1 %`,
/// `-` when unknown.
render::Table usage_table(const Report& report);

/// One bar per function and space with a known usage, highlighted over 100 %.
std::vector<render::svg::Bar> usage_bars(const Report& report);

}  // namespace ptune::memreport
