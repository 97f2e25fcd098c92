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
#include "ptune/swimlane/discover.hpp"
#include "ptune/swimlane/model.hpp"

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

    const Deps* deps_or_null() const { return deps ? &*deps : nullptr; }
    const KernelNames* names_or_null() const { return names ? &*names : nullptr; }
};

/// Discovery of `request.input` with its notes. Fails when nothing is found, or when a named
/// deps/names file is given for a tree of several captures (each has its own).
Result<Discovery> find_captures(const LoadRequest& request);

/// The only capture of `found`; fails (naming each capture) when `input` holds several, for the
/// commands that analyse one capture.
Result<CaptureFiles> only_capture(const Discovery& found, const std::string& input);

/// Reads one capture: the records streamed from disk (never held whole), then deps.json and the
/// kernel names under the file policy above. Problems go to `diagnostics`; fails when the
/// records cannot be used, or a named file cannot be used while `named_files_required`.
Result<LoadedCapture> load_capture(const CaptureFiles& files, const LoadRequest& request,
                                   Diagnostics& diagnostics);

/// The analysis thresholds the catalogue sets: `L2.kernels-too-small` target_us and
/// `L2.dispatch-trail` min_tasks (defaults for a rule or param the catalogue lacks), so a
/// `--rules` override changes the metric and the rule's message alike.
AnalyzeOptions analyze_options(const rules::Catalogue& catalogue);

/// One capture analysed.
struct CaptureAnalysis {
    AnalyzeInput input;
    Analysis analysis;
};

/// Runs the analysis of a loaded capture.
CaptureAnalysis analyze_capture(const LoadedCapture& loaded, const AnalyzeOptions& options);

/// Publishes the analysis for the rules engine (see publish_metrics).
void publish(const CaptureAnalysis& result, rules::MetricStore& store);

}  // namespace ptune::swimlane
