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

/// A finding with its place in the ranking and in its kernel's plan (docs/advise.md, "One plan
/// per kernel").
struct RankedFinding {
    rules::Finding finding;
    int tier = 3;       ///< 1 schedule (guide Part 1), 2 pipeline (Part 2), 3 measurement and other
    double impact = 0;  ///< estimated share of makespan / effective_us / kernel time (0..1)
    std::string impact_basis;  ///< what the share is of
    /// The plan the finding belongs to: the kernel's name, "" for the run as a whole.
    std::string plan = {};
    /// Precedence step within the plan (Step): lower steps are done first.
    int step = 0;
    /// Non-empty: the advice loses to an earlier step of the same plan and is shown as
    /// "not now, because ...", never as an order.
    std::string not_now = {};
    /// Findings of the same plan and step that give the same advice, folded into this one.
    std::vector<rules::Finding> merged = {};
    /// Non-empty for a run-wide hint summary whose sites belong to kernel orders above
    /// ("#1 X1, #2 X1"): it lists where to make those changes and is not an order of its own.
    std::string sites_of = {};
    int rank = 0;  ///< 1-based place among the orders; 0 for a deferred finding or a site list
    /// The rank of the order this deferred finding waits for (its `not_now`); 0 for none.
    int waits_for = 0;
    /// Two or more: the same advice for each of these kernels, one order (`plan` then names them
    /// all, "UP, QK"), its impact their combined share; the other kernels' findings are in
    /// `merged`.
    std::vector<std::string> kernels = {};
};

/// The precedence of advice within one kernel's plan, first to last.
enum class Step {
    Inputs = 0,      ///< the inputs disagree (a log of another program): read nothing else first
    Regression = 1,  ///< a bench regression against the baseline
    Schedule = 2,    ///< the run's schedule (guide Part 1), run-wide
    OverLimit = 3,   ///< an on-chip space over its limit: the compile fails
    SiteHint = 4,    ///< a PH001 hint naming the exact load or store to widen
    DepthHint = 5,   ///< PH-MR-001: the pipeline depth was cut (shrink the per-stage tile)
    Tiling = 6,      ///< grow or reshape tiles (K_STEP, chunks, stage depth)
    Diagnosis = 7,   ///< what the counters say (bound pipe), without a change of its own
    Other = 8,
};

/// The whole advice for one run.
struct Advice {
    Inventory inventory;
    std::vector<Section> sections;
    /// In plan order: the inputs' consistency, regressions, the schedule, then one plan per
    /// kernel (kernels with an error first, then by impact), then run-wide rest.
    std::vector<RankedFinding> findings;
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

/// Every finding of `advice`, those folded into an order included, in plan order.
std::vector<rules::Finding> all_findings(const Advice& advice);

/// Whether the run fails (exit 1): an error finding, or a regression against the baseline.
bool has_blocking_finding(const Advice& advice);

/// Rewrites every relative location of `advice` that does not exist from the working directory
/// but does under the run directory to one base: the run directory prefixed (openable from where
/// the command ran), or with `absolute`, every path absolute.
void rebase_locations(Advice& advice, bool absolute);

/// "Regressions against the baseline", "Tier 1: inter-kernel schedule (guide Part 1)",
/// "Tier 2: ...", "Measurement and other".
const char* tier_title(int tier);

/// The format-neutral report (markdown, json, and `--format text` with -v).
render::Report to_report(const Advice& advice);

/// The default text: one line per order (rank, severity, rule, where, what to change, the share
/// of time it touches), grouped per kernel, deferred advice as "not now, because ...". With
/// `verbose`, the full report (to_report) follows.
std::shared_ptr<render::Renderer> make_text_renderer(const Advice& advice, bool verbose);

/// A self-contained HTML page (inline CSS and SVG; nothing is loaded from the network).
std::shared_ptr<render::Renderer> make_html_renderer(const Advice& advice);

/// The HTML report's memory-map section (src/advise/memory_map_section.cpp): the memory
/// report's per-function, per-space maps; empty without them.
std::string memory_map_section(const ChartData& charts);

}  // namespace ptune::advise
