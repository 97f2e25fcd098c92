#pragma once
/// @file svg.hpp
/// Inline SVG charts for self-contained HTML reports (nothing loaded from the network). Every
/// chart is an `<svg class="chart" data-chart="ID">` element with a `<title>`, so tests and
/// screen readers can find it.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptune/render/report.hpp"

namespace ptune::render::svg {

/// Escapes text for HTML/SVG content and attribute values.
std::string escape(std::string_view text);

/// A render::Table as an HTML `<table>` (cells escaped; right-aligned columns get
/// `td class="num"`), for the self-contained HTML reports.
std::string html_table(const Table& table);

/// One bar of a horizontal bar chart.
struct Bar {
    std::string label;
    double value = 0;
    std::string annotation;  ///< printed after the bar (e.g. "104.2 %"); the value if empty
    bool highlight = false;  ///< drawn in the warning colour
};

/// Horizontal bars scaled to `scale_max` (the largest value when 0). `reference` draws a dashed
/// vertical line (e.g. a 100 % limit or a 50 µs target) labelled `reference_label`.
std::string horizontal_bars(const std::string& id, const std::string& title,
                            const std::vector<Bar>& bars, double scale_max = 0,
                            std::optional<double> reference = std::nullopt,
                            const std::string& reference_label = "");

/// A bar split into named parts (e.g. pipes of a kernel), all bars on one 0..scale_max axis.
struct StackedBar {
    std::string label;
    std::vector<std::pair<std::string, double>> parts;  ///< (series name, value)
};
std::string grouped_bars(const std::string& id, const std::string& title,
                         const std::vector<StackedBar>& bars, double scale_max);

/// Per-lane utilisation over time: each lane is a row of `buckets` cells shaded by the busy
/// fraction of that time slice. `busy` intervals are [start, end) in any unit, within
/// [t_begin, t_end].
struct Lane {
    std::string name;
    std::vector<std::pair<double, double>> busy;
};
std::string utilisation_heatmap(const std::string& id, const std::string& title,
                                const std::vector<Lane>& lanes, double t_begin, double t_end,
                                const std::string& time_unit, int buckets = 120);

}  // namespace ptune::render::svg
