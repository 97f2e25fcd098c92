#pragma once
/// @file pipeline.hpp
/// The entry point of multi-rank directory mode (upstream-2026-09.md §1.14) that `swimlane-merge`
/// (and `advise`) call: one dispatch of an L3 tree read rank by rank, paired with the host
/// invocations of the tree's logs, placed on the host clock (placement.hpp), and laid out for
/// the merged trace — one origin, the dispatchers and rank host blocks (host_lanes.hpp), the
/// `containment_spliced_multi_rank` metadata. Without host logs the ranks are not placed and
/// the caller merges them each on its own axis, as before.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/core/threads.hpp"
#include "ptune/l3/placement.hpp"
#include "ptune/l3/tree.hpp"
#include "ptune/render/report.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::l3 {

/// One selected dispatch of a tree and how to read it.
struct MultiRankRequest {
    const Tree* tree = nullptr;                    ///< required: the tree read with the selection
    std::vector<swimlane::CaptureFiles> captures;  ///< the dispatch's captures, each with its rank
    swimlane::LoadRequest base;                    ///< file policy; `host_logs` = --host-log
    std::vector<std::string> rank_pids;            ///< --rank-pid values as typed
    std::string dispatch, dispatch_id;             ///< what was selected (metadata; "" = null)
    std::string input;                             ///< the input as given (messages)
};

/// One dispatch placed across its ranks, ready to draw.
struct MultiRankMerge {
    MultiRankPlacement placement;                 ///< its ranks' `loaded` moved into `loaded`
    std::vector<swimlane::LoadedCapture> loaded;  ///< per rank (rank order), label "rank<r>"
    swimlane::MultiRankLayout layout;             ///< for swimlane::TraceOptions::multi_rank
};

/// Reads, pairs, places and lays out one dispatch. Returns nullopt (a note said why) when the
/// tree has no host logs and no --rank-pid asked for them. Fails (exit 2, upstream's message)
/// on a bad --rank-pid, no window in the logs, ranks on different host clocks or runtimes, a
/// pairing that fails, a rank that does not fit its window, more than 10 dispatchers or a rank
/// above 28.
Result<std::optional<MultiRankMerge>> merge_ranks(const MultiRankRequest& request,
                                                  Diagnostics& diagnostics);

/// The converter's directory-mode console (upstream-2026-09.md §1.14), upstream's words
/// unfolded; the Output and "To visualize" lines only when a trace was written.
std::string multi_rank_summary(const MultiRankMerge& merge, const std::string& input,
                               const std::string& trace_path);

/// What swimlane-merge draws: the loaded captures and, for one dispatch of an L3 tree placed
/// through its host logs, the ranks' layout.
struct MergeInputs {
    std::vector<swimlane::LoadedCapture> loaded;
    std::optional<MultiRankMerge> merged;  ///< set when the ranks were placed (§1.14)

    /// Every file read, for the report's inputs.
    std::vector<std::string> input_files() const;
};

/// Loads what a merged trace needs. With `request.tree` (a dispatch selected) the ranks go
/// through merge_ranks; when that places nothing (no host logs) or without a tree, every
/// capture of `request.captures` is loaded on its own with `request.base` (a capture that fails
/// is an error in `diagnostics`, the others go on). Fails when nothing is usable. As upstream's
/// converter, it reads `request.base` with named files as decoration (`named_files_required`
/// off) and the host phase lanes (`host_phases` on).
Result<MergeInputs> load_merge_inputs(MultiRankRequest request, Diagnostics& diagnostics);

/// The trace of `inputs`, written to `out` (`output` names it in messages): the overhead
/// warnings of captures without a task graph, then the counts of arrows not drawn as notes
/// (and, with `verbose`, the trace's size).
Status write_merge_trace(const MergeInputs& inputs, swimlane::TraceOptions options,
                         std::ostream& out, const std::string& output, bool verbose,
                         Diagnostics& diagnostics);

/// The console text swimlane-merge prints: upstream's converter summary of `inputs` (the
/// directory-mode one when the ranks were placed), with the -v reading line first when
/// `verbose`. It goes to `fd`: byte for byte as upstream prints it (CI scripts parse it) unless
/// `fd` is a terminal, where it folds to the width (docs/DEVELOPING.md, "Text output").
std::string merge_console(const MergeInputs& inputs, const std::string& input,
                          const std::string& trace_path, bool verbose, int fd);

/// The JSON report of swimlane-merge: build_merge_report, plus `multi_rank` when placed.
render::Report merge_report(const MergeInputs& inputs, const std::string& trace_path);

/// swimlane-merge's stdout — merge_report as JSON when `json`, else merge_console — made on a
/// second thread: it reads only the loaded captures, so the caller writes the trace meanwhile
/// (whose model is built on one core, the other idle until its sorts). `inputs` must live until
/// the text is taken.
threads::Beside<std::string> merge_summary_alongside(const MergeInputs& inputs, bool json,
                                                     std::string input, std::string trace_path,
                                                     bool verbose, int fd);

}  // namespace ptune::l3
