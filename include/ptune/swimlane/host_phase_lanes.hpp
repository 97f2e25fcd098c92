#pragma once
/// @file host_phase_lanes.hpp
/// `host_phase_records.jsonl` (upstream-2026-09.md §2.8) drawn in the merged trace: the host
/// prepare passes of a host_build_graph capture, on the capture's host axis (both are host
/// CLOCK_MONOTONIC ns), as lanes "Host phases <tid>" of the host process (pid 1). Records nest
/// (orchestrator operations inside the host_orch segment), so overlapping ones go to overflow
/// lanes like any other slice.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// The phase records of one capture, ready to draw.
struct HostPhaseLanes {
    struct Slice {
        std::string phase;
        std::int64_t start_ns = 0;  ///< on the capture's host axis (ns since host.origin_ns)
        std::int64_t dur_ns = 0;
        std::uint64_t inv = 0;
        std::int64_t tid = -1;  ///< -1 for older writers without `tid`
    };
    std::string source;  ///< the jsonl file
    std::vector<Slice> slices;
};

/// Reads the `host_phase_records.jsonl` beside `records` for `capture`; nullopt when there is
/// none, or (with a note) when the capture has no host axis to place it on (not a
/// host-orchestration capture). Damaged lines are skipped as parse_phase_records says.
std::optional<HostPhaseLanes> load_host_phase_lanes(const std::filesystem::path& records,
                                                    const Capture& capture,
                                                    Diagnostics& diagnostics);

}  // namespace ptune::swimlane
