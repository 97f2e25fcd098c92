#pragma once
/// @file memory_map.hpp
/// The memory map picture: per function and space an inline SVG with program order across and
/// the address up, each base allocation a rectangle over its live range, the space's limit and
/// the peak of live bytes marked (buffers live at the peak and overlapping live buffers drawn
/// apart). `ptune mem-report --format html` is a self-contained page of them; `ptune advise`
/// puts the same pictures in its HTML report.

#include <memory>
#include <string>
#include <vector>

#include "ptune/memreport/pipeline.hpp"
#include "ptune/render/report.hpp"

namespace ptune::memreport {

class Findings;

/// One `<svg class="chart" data-chart="memory-map-N">`: the buffers of `usage` (allocated ones,
/// with live ranges) as rectangles; `rect.buffer` elements carry `data-buffer` (the name) and
/// `data-live-at-peak="1"` or `data-overlap="1"`. Empty when the space has no live ranges.
std::string memory_map_svg(const Report& report, const Function& function, const SpaceUsage& usage,
                           int index);

/// Every map of the report, in function and space order, at most `limit`.
std::vector<std::string> memory_maps(const Report& report, std::size_t limit = 1000);

/// The `--format html` page of `ptune mem-report`: summary, findings, per function the table
/// and its memory maps. Inline CSS and SVG only, nothing loaded from elsewhere.
/// With `findings`, the page lists them instead of the render::Report's (mem-report's
/// streaming outputs, findings.hpp).
std::shared_ptr<render::Renderer> make_html_renderer(const Analysis& analysis,
                                                     const Findings* findings = nullptr);

}  // namespace ptune::memreport
