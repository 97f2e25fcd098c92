#pragma once
/// @file placement.hpp
/// One dispatch of an L3 tree placed on the host clock (upstream-2026-09.md §1.14): the host
/// logs of the tree found, each rank's capture paired with its host invocation
/// (host_pairing.hpp) and placed there by span containment (§1.12.3), one origin for all, and
/// the `containment_spliced_multi_rank` metadata of the merged trace. ptune never writes the
/// per-rank `clock_alignment` back into the records: it reports it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/l3/host_pairing.hpp"
#include "ptune/l3/tree.hpp"
#include "ptune/swimlane/pipeline.hpp"

namespace ptune::l3 {

/// What the user asked for besides the captures.
struct PlacementRequest {
    std::filesystem::path root;  ///< the tree root (holds rank*/ and the host logs)
    /// --host-log: replaces the root's logs.
    std::vector<std::filesystem::path> host_logs;
    std::vector<RankPin> pins;  ///< --rank-pid
};

/// The host logs of a tree (§1.14): the named ones, else the root's
/// `host_clock_alignment.*.log` and `host.*.log` and every `rank*/d*/host_clock_alignment.*.log`
/// (each group sorted). Empty when there are none.
std::vector<std::filesystem::path> tree_host_logs(const std::filesystem::path& root);

/// The pairing of one dispatch's captures with the host invocations (§1.14), before any
/// placement: what the analyses need to read each rank placed.
struct DispatchPairing {
    std::vector<swimlane::HostWindow> windows;  ///< the placeable windows of the logs
    std::vector<HostPairing> pairs;             ///< per capture, in the order given
    std::vector<std::string> logs;              ///< the host logs read, as given
    std::vector<std::string> sidecars;          ///< per capture: its sidecar (raw JSON) or ""
    std::optional<std::string> host_clock_domain_id;
    std::string runtime;
};

/// Finds the tree's host logs, scans each capture (its extent, sidecar, runtime, host clock)
/// and pairs them. Fails as place_ranks does, before any placement.
Result<DispatchPairing> pair_dispatch(const std::vector<swimlane::CaptureFiles>& captures,
                                      const swimlane::LoadRequest& base,
                                      const PlacementRequest& request, Diagnostics& diagnostics);

/// One rank placed.
struct PlacedRank {
    int rank = -1;
    swimlane::LoadedCapture loaded;  ///< read with its paired window: clock_alignment bounded
    HostPairing pairing;
    std::int64_t slack_ns = 0, place_lo_ns = 0;
    /// The sidecar as read (raw JSON text), "" without one.
    std::string dispatch_identity_json;
};

/// A dispatch placed across its ranks.
struct MultiRankPlacement {
    std::vector<PlacedRank> ranks;  ///< by rank
    std::vector<std::string> logs;  ///< the host logs read, as given
    std::int64_t global_origin_ns = 0;
    std::optional<std::string> host_clock_domain_id;  ///< shared by every rank that has one
    std::string runtime;
    /// The dispatching processes' OS pids (metadata `dispatcher_pids`), filled by whoever draws
    /// them (pipeline.hpp); trace pid = index + 1.
    std::vector<std::uint64_t> dispatcher_pids;

    /// Per rank slack (ns), in rank order.
    std::vector<std::int64_t> slacks() const;
};

/// Whether the tree has host logs to place its ranks with (else the ranks merge each on its own
/// axis, as before).
bool has_host_logs(const PlacementRequest& request);

/// Reads, pairs and places the captures of one dispatch (`captures` carry their rank). `base`
/// is the load request of the command (its input and file policy; host logs come from
/// `request`). Fails (a message naming the rule) when the logs hold no window, the ranks'
/// host clocks or runtimes differ, pairing fails or a rank cannot be placed in its window.
Result<MultiRankPlacement> place_ranks(const std::vector<swimlane::CaptureFiles>& captures,
                                       const swimlane::LoadRequest& base,
                                       const PlacementRequest& request, Diagnostics& diagnostics);

/// The pairing keys of a tree for the metadata (§1.14): `dispatch_pairing`
/// ("local_capture_index", with `dispatch_identity_status: "individual_submissions"` when the
/// sidecars say size 1, or "parent_dispatch_identity" with `dispatch_identity {run_id,
/// task_slot, group_size, callable_digest}`), compact JSON.
std::string pairing_metadata(const Tree& tree);

/// The merged trace's top-level `metadata` (§1.14), compact JSON. `pairing_json` holds the
/// pairing keys (`dispatch_pairing`, …) of the tree, `dispatch` / `dispatch_id` what was
/// selected (empty: null).
std::string multi_rank_metadata(const MultiRankPlacement& placement,
                                const std::string& pairing_json, const std::string& dispatch,
                                const std::string& dispatch_id);

}  // namespace ptune::l3
