#pragma once
/// @file pipeline.hpp
/// The swimlane pipeline every consumer calls (swimlane-merge, swimlane-analyze, advise): what the
/// user named → discovery → per capture the streamed records, deps.json and kernel names read
/// with one policy → analysis options taken from the rule catalogue → analysis → metrics for the
/// rules engine. The report builders are in ptune/swimlane/report.hpp.
///
/// File policy (load_capture): a file the user named (--deps, --names / -k) that cannot be used
/// is an error; a sibling found by discovery that cannot be used is a warning, and the capture is
/// read without it. swimlane-merge relaxes the first rule to a warning, as upstream's converter
/// (a missing deps.json only loses the arrows, swimlane.md §3).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/containment.hpp"
#include "ptune/swimlane/discover.hpp"
#include "ptune/swimlane/host_phase_lanes.hpp"
#include "ptune/swimlane/model.hpp"
#include "ptune/swimlane/schedule_graph.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::swimlane {

/// What the user named.
struct LoadRequest {
    std::filesystem::path input;  ///< a records file or a directory (see discover_captures)
    std::filesystem::path deps;   ///< --deps; replaces the sibling deps.json
    /// --names or -k: a name map or a kernel_config.py (decided by content); replaces the lookup.
    std::filesystem::path names;
    /// Clock frequency for captures without `metadata.clock_freq_hz` (--freq).
    std::optional<std::uint64_t> fallback_freq_hz;
    /// False: an unusable named deps/names file is only a warning (swimlane-merge).
    bool named_files_required = true;
    /// --host-log: host logs for clock alignment by span containment (upstream-2026-09.md
    /// §1.12.1); they replace the sibling `host_clock_alignment.*.log` / `host.*.log` and force a
    /// fresh alignment even when the records hold a saved one.
    std::vector<std::filesystem::path> host_logs;
    /// Also read the `host_phase_records.jsonl` beside the records (host phase lanes of the
    /// merged trace, upstream-2026-09.md §2.8). Off for the analyses, whose diagnostics stay
    /// those of the records alone.
    bool host_phases = false;
    /// Multi-rank mode (upstream-2026-09.md §1.14): the host invocation this capture was paired
    /// with; it is placed there afresh (no sibling log, no sidecar filter, no saved record).
    const HostWindow* paired_window = nullptr;
    /// The host logs the paired window came from (metadata and inputs).
    std::vector<std::string> paired_logs;
};

/// One capture as read.
struct LoadedCapture {
    /// The files: `deps` and `name_map` are the ones actually used (a named file replaces the
    /// sibling; empty when none was usable). `kernel_config` is what discovery found.
    CaptureFiles files;
    Capture capture;  ///< with deps.json's func_ids and block_num applied
    std::optional<Deps> deps;
    std::optional<KernelNames> names;
    std::vector<std::string> inputs;  ///< every file read, records first
    /// Torn `[STRACE]` records in the host logs read for clock alignment.
    std::size_t host_spans_torn = 0;
    /// The host phase lanes beside the records, when `LoadRequest::host_phases` asked for them.
    std::optional<HostPhaseLanes> host_phases;

    const Deps* deps_or_null() const { return deps ? &*deps : nullptr; }
    const KernelNames* names_or_null() const { return names ? &*names : nullptr; }
};

/// The capture as a source of the merged trace (it must outlive the source).
TraceSource trace_source(const LoadedCapture& loaded);

/// Discovery of `request.input` with its notes. Fails when nothing is found, or when a named
/// deps/names file is given for a tree of several captures (each has its own).
Result<Discovery> find_captures(const LoadRequest& request);

/// The only capture of `found`; fails (naming each capture) when `input` holds several, for the
/// commands that analyse one capture.
Result<CaptureFiles> only_capture(const Discovery& found, const std::string& input);

/// Reads one capture: the records streamed from disk (never held whole), then deps.json and the
/// kernel names under the file policy above. Host logs for clock alignment are the named ones,
/// else the sibling `host_clock_alignment.*.log` (sorted), else the sibling `host.*.log`; the
/// sibling `dispatch_identity.json` filters their windows (§1.12.1). Nothing is written back.
/// Problems go to `diagnostics`; fails when the records cannot be used, or a named file cannot be
/// used while `named_files_required`.
Result<LoadedCapture> load_capture(const CaptureFiles& files, const LoadRequest& request,
                                   Diagnostics& diagnostics);

/// The analysis thresholds the catalogue sets: `L2.kernels-too-small` target_us and
/// `L2.dispatch-trail` min_tasks (defaults for a rule or param the catalogue lacks), so a
/// `--rules` override changes the metric and the rule's message alike.
AnalyzeOptions analyze_options(const rules::Catalogue& catalogue);

/// One capture (or one run of it) analysed.
struct CaptureAnalysis {
    AnalyzeInput input;
    Analysis analysis;
    ScheduleGraph graph;  ///< the IDE's graph analyses (upstream-2026-12.md §8)
    /// Which run of a records file holding several ("run_epoch 5", "run 2 of 3"); "" for a file
    /// with one run (upstream-2026-09.md §1.10).
    std::string run_label;
};

/// Runs the analysis of a loaded capture. A file holding several runs is analysed as its last
/// run (the one a re-run left behind), run_label saying so; analyze_runs gives them all.
CaptureAnalysis analyze_capture(const LoadedCapture& loaded, const AnalyzeOptions& options);

/// One analysis per run of the capture, in run order (one entry for a single-run file): runs are
/// never joined, so a task id repeated by a later run is a task of that run.
std::vector<CaptureAnalysis> analyze_runs(const LoadedCapture& loaded,
                                          const AnalyzeOptions& options);

/// The rows, phases and orchestrator records of run `run` of `capture` only: by run_epoch when
/// the file has them, else by the run's time range (from its first row to the next run's).
Capture run_capture(const Capture& capture, std::size_t run);

/// Publishes the analysis for the rules engine (see publish_metrics).
void publish(const CaptureAnalysis& result, rules::MetricStore& store);

}  // namespace ptune::swimlane
