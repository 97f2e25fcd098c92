#pragma once
/// @file host_pairing.hpp
/// Multi-rank host placement (upstream-2026-09.md §1.14): each rank's capture of one dispatch is
/// paired with the host invocation `(pid, inv)` that ran it, among the `chip.run.runner_run`
/// windows of the host logs at the tree root, then placed in it by span containment (§1.12.3),
/// and all ranks share one time origin.
///
/// Pairing, in order: `pinned` (`--rank-pid RANK=PID[:INV]`, and an automatic pin for a
/// host_build_graph host capture whose sidecar `host_pid` has exactly one window containing the
/// capture's host records), `capture_sidecar` (the sidecar's `host_pid` and/or dispatch key
/// leave exactly one window), `device_window_fit` (every assignment of the free captures to the
/// free windows scored by how much wider the logged join windows are than the capture's own; the
/// best must beat the runner-up by a factor 4). Every contradiction is an error, never a guess.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/swimlane/containment.hpp"

namespace ptune::l3 {

/// `--rank-pid RANK=PID` or `RANK=PID:INV`.
struct RankPin {
    int rank = -1;
    std::uint64_t pid = 0;
    std::optional<std::uint64_t> inv;
};

/// Parses one `--rank-pid` value; the message of a failure is upstream's.
Result<RankPin> parse_rank_pid(std::string_view text);

/// What pairing knows of one rank's capture.
struct PairingCapture {
    int rank = -1;
    swimlane::CaptureExtent extent;        ///< device cycles, join windows, host records
    bool host_build_graph_host = false;    ///< a host_build_graph capture with host data
    std::optional<std::int64_t> host_pid;  ///< sidecar `host_pid`
    std::optional<std::array<std::int64_t, 4>> identity;  ///< sidecar dispatch key
};

/// How one rank was paired (`ranks[].host_pairing` of the merged trace's metadata).
struct HostPairing {
    int rank = -1;
    std::size_t window = 0;  ///< index into the windows given to pair_ranks
    std::uint64_t pid = 0, inv = 0;
    std::string source;                     ///< "pinned", "capture_sidecar" or "device_window_fit"
    std::vector<std::string> sidecar_keys;  ///< capture_sidecar: "host_pid", "dispatch"
    std::optional<std::int64_t> window_excess_ns;      ///< device_window_fit: its cost
    std::optional<std::int64_t> assignment_margin_ns;  ///< runner-up − best, when there is one

    /// `{pid, inv, source, sidecar_keys, window_excess_ns, assignment_margin_ns}` (null where
    /// absent), compact.
    std::string to_json() const;
};

/// Assignments the fit scores at most; more is an error (name the pairing instead).
inline constexpr std::uint64_t kMaxAssignments = 200'000;

/// The windows a capture can be placed in: a host `runner_run` and a `clk=dev` `device_wall`,
/// with start, duration and device_wall all > 0.
std::vector<swimlane::HostWindow> placeable_windows(const std::vector<swimlane::HostWindow>& all);

/// Pairs every capture with one of `windows` (placeable ones), by rank order. Fails with the
/// reason when a pin is bad, two captures claim one window, no assignment fits or the best
/// does not clearly beat the runner-up.
Result<std::vector<HostPairing>> pair_ranks(const std::vector<swimlane::HostWindow>& windows,
                                            const std::vector<PairingCapture>& captures,
                                            const std::vector<RankPin>& pins);

/// `cross_rank_uncertainty_ns`: the sum of the two largest slacks; nullopt with fewer than two.
std::optional<std::int64_t> cross_rank_uncertainty(std::vector<std::int64_t> slacks);

/// The console's bound line (§1.14): "each Rank placed within <w> us of its
/// chip.run.runner_run window; a cross-Rank gap under <u> us is undecided" (the clause after
/// the semicolon only with two ranks or more); `<w>` is one value when all slacks are equal,
/// else "<min>–<max>".
std::string bound_line(const std::vector<std::int64_t>& slacks);

}  // namespace ptune::l3
