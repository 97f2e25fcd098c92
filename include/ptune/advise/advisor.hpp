#pragma once
/// @file advisor.hpp
/// `ptune advise`: runs every analyzer on the artifacts of one run, evaluates the whole rule
/// catalogue (including the cross-artifact rules) over the merged metrics, and ranks the
/// findings by the tuning guide's two tiers and their estimated impact.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/advise/inventory.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/render/report.hpp"
#include "ptune/render/svg.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::advise {

/// The data behind the HTML report's pictures (format-neutral; empty when the artifact is absent).
struct ChartData {
    std::vector<render::svg::Lane> lanes;  ///< per-core busy intervals (µs), swimlane
    double window_begin_us = 0, window_end_us = 0;
    std::vector<render::svg::Bar> top_kernels;   ///< Σ kernel time (µs) per function, swimlane
    std::vector<render::svg::Bar> memory_fill;   ///< usage % per function and space, mem report
    std::vector<render::svg::StackedBar> pipes;  ///< busy ratio per pipe per kernel, PMU
    std::vector<render::svg::Bar> rank_effective_us;  ///< mean eff_us per rank (or case), bench
    std::vector<std::string> memory_maps;  ///< inline SVG per function and space, mem report
};

/// What one analyzer contributed: a short table for the text and HTML reports and its JSON.
struct Section {
    std::string id;  ///< "bench", "swimlane", "mem", "hints", "pmu"
    std::string title;
    render::Table table;
    nlohmann::json data = nlohmann::json::object();
    std::vector<std::string> notes;
};

/// A finding with its place in the ranking.
struct RankedFinding {
    rules::Finding finding;
    int tier = 3;       ///< 1 schedule (guide Part 1), 2 pipeline (Part 2), 3 measurement and other
    double impact = 0;  ///< estimated share of makespan / effective_us / kernel time (0..1)
    std::string impact_basis;  ///< what the share is of
};

/// The whole advice for one run.
struct Advice {
    Inventory inventory;
    std::vector<Section> sections;
    std::vector<RankedFinding> findings;  ///< ranked: tier, problems before notes, impact, severity
    ChartData charts;
};

/// Options of advise().
struct AdviseOptions {
    std::vector<std::string> logs;  ///< console logs of the run (--log)
    /// Earlier runs' logs, results.tsv or bench-summary JSON (--baseline), each one run.
    std::vector<std::string> baselines;
};

/// Runs every analyzer on the inventory's artifacts and ranks the findings. Problems with one
/// artifact become diagnostics; the other artifacts are still analysed.
Advice advise(Inventory inventory, const AdviseOptions& options, const rules::Catalogue& catalogue,
              Diagnostics& diagnostics);

/// "Regressions against the baseline", "Tier 1: inter-kernel schedule (guide Part 1)",
/// "Tier 2: ...", "Measurement and other".
const char* tier_title(int tier);

/// The format-neutral report (text, markdown, json).
render::Report to_report(const Advice& advice);

/// A self-contained HTML page (inline CSS and SVG; nothing is loaded from the network).
std::shared_ptr<render::Renderer> make_html_renderer(const Advice& advice);

/// The HTML report's memory-map section (src/advise/memory_map_section.cpp): the memory
/// report's per-function, per-space maps; empty without them.
std::string memory_map_section(const ChartData& charts);

}  // namespace ptune::advise
