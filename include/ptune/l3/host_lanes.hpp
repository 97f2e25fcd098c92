#pragma once
/// @file host_lanes.hpp
/// The host side of a multi-rank trace (upstream-2026-09.md §1.14 "pid layout"), drawn from the
/// host logs' spans once every rank is paired and placed:
/// - pids 1..10: the dispatching processes (the L3 scheduler's `node.*` spans, an L4's
///   `network1.*`): host-clock spans of pids that ran no paired invocation and overlap the ranks'
///   window — a whole invocation when one of its spans overlaps, an `inv=0` span on its own —
///   one pid each, by OS pid; more than 10 is an error;
/// - pids `11 + 3·rank + lane`, the rank host block: lane 0 `rank<r> / Host` (the paired
///   invocation's host spans on thread `pid <os pid>`), lane 1 `rank<r> / Device phases
///   (placed)` (one thread per `clk=dev` span name, mapped onto the host axis by the placement),
///   lane 2 `rank<r> / Placement Bound` (threads `outer window` and `placement slack`). Every pid
///   stays below the ranks' views at 100, so at most 29 ranks (rank0..rank28).

#include <cstdint>
#include <string>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/swimlane/containment.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::l3 {

/// Dispatching processes a multi-rank trace has room for (pids 1..10).
inline constexpr std::size_t kMaxDispatchers = 10;
/// Highest rank whose host block fits below pid 100 (11 + 3·28 + 2 = 97).
inline constexpr int kMaxHostBlockRank = 28;

/// What the host block needs of one placed rank.
struct RankHostInput {
    int rank = -1;
    std::uint64_t pid = 0, inv = 0;  ///< the paired invocation
    std::int64_t place_lo_ns = 0, place_hi_ns = 0, slack_ns = 0;
    std::int64_t outer_start_ns = 0, outer_duration_ns = 0;  ///< chip.run.runner_run
    /// The device-phase timeline zero (device ts) and the host ns it is placed at
    /// (swimlane::ContainmentAlignment::device_phase_zero*).
    std::int64_t device_phase_zero = 0, device_phase_zero_host_ns = 0;
    std::string placement_json = "{}";  ///< the placement metadata (§1.12.3), the bound's args
};

/// The processes, threads and slices of the dispatchers and rank host blocks (host ns), for
/// swimlane::MultiRankLayout.
struct HostLayout {
    std::vector<swimlane::MultiRankLayout::Process> processes;
    std::vector<swimlane::MultiRankLayout::Thread> threads;
    std::vector<swimlane::MultiRankLayout::Slice> slices;
    /// The dispatchers' OS pids; the one at index i is drawn at pid i + 1.
    std::vector<std::uint64_t> dispatcher_pids;
    /// The earliest of every rank's place_lo, every host span of a paired invocation and every
    /// dispatcher span: the trace's `global_origin_ns`.
    std::int64_t earliest_ns = 0;
};

/// Builds the host lanes from the host logs' spans (HostSpanLog::all_spans; spans of other
/// invocations of the paired pids may be left out, they are never drawn) and the
/// placed ranks. Fails (exit 2) with more than 10 dispatching processes or a rank above 28.
Result<HostLayout> build_host_layout(const std::vector<swimlane::HostSpan>& spans,
                                     const std::vector<RankHostInput>& ranks);

}  // namespace ptune::l3
