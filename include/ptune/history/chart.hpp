#pragma once
/// @file chart.hpp
/// `history show` pictures: a text sparkline and a standalone SVG line chart (inline styles,
/// nothing loaded from anywhere) with the change points marked, alone or in an HTML page.

#include <span>
#include <string>
#include <vector>

#include "ptune/history/pipeline.hpp"

namespace ptune::history {

/// One character per value, `▁` (lowest) to `█` (highest); a flat series is all `▄`.
std::string sparkline(std::span<const double> values);

/// An `<svg class="chart" data-chart="history">` of effective_us per run: one line per epoch
/// in the analyses, a dashed vertical line with the change in % at every change point.
std::string svg_chart(const std::string& title, const std::vector<Analysis>& analyses);

/// A self-contained HTML page: the title, the chart and a table (rows of cells).
std::string html_page(const std::string& title, const std::string& svg,
                      const std::vector<std::string>& columns,
                      const std::vector<std::vector<std::string>>& rows);

}  // namespace ptune::history
