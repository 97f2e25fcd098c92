#pragma once
/// @file report.hpp
/// The format-neutral reports of a swimlane analysis: the whole report of `ptune
/// swimlane-analyze` (schedule, lanes, schedulers, functions, trails, hand-offs and critical-path
/// tables, and the JSON view) and the one-row-per-capture overview `ptune advise` shows.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/swimlane/pipeline.hpp"

namespace ptune::swimlane {

/// Builds the report of one capture. `store` holds the metrics publish() wrote for it (shown in
/// the JSON view), `findings` the rules engine's findings on them.
render::Report build_report(const LoadedCapture& loaded, const CaptureAnalysis& result,
                            const rules::MetricStore& store, std::vector<rules::Finding> findings);

/// The report of a records file holding several runs (upstream-2026-09.md §1.10): each run's
/// tables titled with its label, its findings prefixed with it, `runs[]` in the JSON view;
/// `stores` and `findings` are per run, parallel to `runs`.
render::Report build_runs_report(const LoadedCapture& loaded,
                                 const std::vector<CaptureAnalysis>& runs,
                                 const std::vector<rules::MetricStore>& stores,
                                 std::vector<std::vector<rules::Finding>> findings);

/// The JSON view of swimlane-merge: the converter's console statistics of each capture with its
/// label, inputs, dropped rows and truncation, and the trace written (`trace_path`, null when
/// none).
render::Report build_merge_report(const std::vector<LoadedCapture>& loaded,
                                  const std::string& trace_path);

/// The text of swimlane-merge, as the upstream converter prints it: the conversion banner when a
/// trace was written, then each capture's statistics; lines wider than `width` fold
/// (fold_summary; 0: upstream's lines unchanged).
void write_merge_summary(std::ostream& out, const std::vector<LoadedCapture>& loaded,
                         const std::string& input, const std::string& trace_path,
                         std::size_t width = 0);

/// The overview of several captures: one table row and one JSON entry per capture.
struct Overview {
    render::Table table;  ///< columns set by make_overview()
    nlohmann::json data = nlohmann::json::array();
};

/// An overview without captures yet.
Overview make_overview();

/// Adds one capture to the overview under `label`.
void add_to_overview(Overview& overview, const std::string& label, const LoadedCapture& loaded,
                     const Analysis& analysis);

}  // namespace ptune::swimlane
