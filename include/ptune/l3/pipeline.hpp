#pragma once
/// @file pipeline.hpp
/// The entry point of multi-rank directory mode (upstream-2026-09.md §1.14) that `swimlane-merge`
/// (and `advise`) call: one dispatch of an L3 tree read rank by rank, paired with the host
/// invocations of the tree's logs, placed on the host clock (placement.hpp), and laid out for
/// the merged trace — one origin, the dispatchers and rank host blocks (host_lanes.hpp), the
/// `containment_spliced_multi_rank` metadata. Without host logs the ranks are not placed and
/// the caller merges them each on its own axis, as before.

#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/l3/placement.hpp"
#include "ptune/l3/tree.hpp"
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

}  // namespace ptune::l3
