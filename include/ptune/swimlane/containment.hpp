#pragma once
/// @file containment.hpp
/// Placing a host_build_graph capture on the host clock by span containment
/// (upstream-2026-09.md §1.12): the `[STRACE]` spans of the host logs give each invocation's
/// `chip.run.runner_run` window, its `device_wall` duration and device sub-phases; the capture's
/// device cycles must fit inside. The result is the `metadata.clock_alignment` record upstream
/// writes back into the records file. ptune never writes it into its input: it computes the
/// same record and reports it (console, trace metadata).
///
/// The spans come from the host-log domain's reader (ptune/host/log.hpp): envelopes, records
/// sharing a line, torn and cut records are handled there; this keeps the spans alignment uses.

#include <array>
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// One `[STRACE]` span record (name not percent-decoded; names used here are plain ASCII).
struct HostSpan {
    std::uint64_t pid = 0, tid = 0, inv = 0;
    std::uint64_t depth = 0;
    std::string name;
    std::int64_t ts = 0, dur = 0;
    bool device = false;  ///< `clk=dev` in the attrs: ts on the invocation's device clock
    std::vector<std::pair<std::string, std::string>> attrs;  ///< `k=v` after `dur=`

    /// The integer value of attr `key`, if present and an integer.
    std::optional<std::int64_t> int_attr(std::string_view key) const;
};

/// The spans of host logs clock alignment uses: `host.<pid>.log` (enveloped records), the bare
/// lines of `host_clock_alignment.<pid>.log` and `host-strace.<pid>.log`, read by the host-log
/// reader (a line may hold several records; a torn `[STRACE]` record is counted, never used).
struct HostSpanLog {
    std::vector<HostSpan> spans;
    std::size_t torn = 0;  ///< `[STRACE] v=N` heads that did not parse
    /// Keep every span, not only the kinds alignment uses: the multi-rank trace draws each
    /// paired invocation's host spans and the dispatching processes' spans (§1.14).
    bool all_spans = false;
    /// With all_spans: keep a span only when `keep(pid, inv)` (null: every span), so that a
    /// long log's other invocations are never held in memory.
    std::function<bool(std::uint64_t pid, std::uint64_t inv)> keep;
};

/// Appends the spans of `text` to `log`. Unless `log.all_spans`, only the invocation root,
/// `runner_run`, `device_wall`, its device phases and the AICPU launch marker are kept (nothing
/// else is used for alignment).
void read_host_spans(std::string_view text, HostSpanLog& log);
/// The same, streaming a log file of any size.
void read_host_spans(std::istream& in, HostSpanLog& log);

/// One invocation `(pid, inv)` with what containment needs (first span of each name kept).
struct HostWindow {
    std::uint64_t pid = 0, inv = 0;
    bool has_runner = false, has_device_wall = false, has_root = false;
    std::int64_t runner_start = 0, runner_dur = 0;  ///< host ns
    std::int64_t device_wall_ts = 0, device_wall_dur = 0;
    std::int64_t root_start = 0, root_dur = 0;
    /// Root identity `(run_id, dispatch_id, slot_id, generation)`; absent unless all four are
    /// integers and not `run_id == dispatch_id == 0`.
    std::optional<std::array<std::int64_t, 4>> identity;
    /// `device_wall.<name>` sub-phases (device clock): name → (ts, dur).
    std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> sub_phases;
    /// `chip.run.runner_run.aicpu_launch`: ts, dur, clock.
    bool has_launch = false, launch_device = false;
    std::int64_t launch_ts = 0, launch_dur = 0;
};

/// The invocations of `spans` in first-seen order.
std::vector<HostWindow> host_windows(const std::vector<HostSpan>& spans);

/// What `dispatch_identity.json` says for single-capture filtering (§1.14): the chip process
/// pid (newer writers) and the dispatch key `(run_id, endpoint_dispatch_id, pipeline_slot,
/// pipeline_generation)`.
struct DispatchIdentity {
    std::optional<std::int64_t> host_pid;
    std::optional<std::array<std::int64_t, 4>> key;
};

/// Reads the sidecar "raw" as upstream does for one capture: fields that are present integers
/// are used, nothing else is checked. Fails only when the text is not a JSON object.
Result<DispatchIdentity> read_dispatch_identity(std::string_view text, std::string_view source);

/// The capture side of containment, in raw device cycles.
struct CaptureExtent {
    std::uint64_t freq_hz = 0;
    bool has_extent = false;
    std::int64_t first = 0, last = 0;  ///< all positive device cycles of the capture
    /// Bounds of the aicpu-producer scheduler records (`sched`) and of the AICPU orchestrator
    /// records (`orch`), when present.
    std::optional<std::pair<std::int64_t, std::int64_t>> sched, orch;
    /// [min, max] of the host record timestamps (host ns), when the capture has host records.
    std::optional<std::pair<std::int64_t, std::int64_t>> host_records;
};

/// What a capture offers multi-rank pairing (ptune/l3/host_pairing.hpp), filled by the reader
/// on request (ReadOptions::alignment_facts).
struct CaptureAlignmentFacts {
    CaptureExtent extent;
    /// A host_build_graph level-3/4 capture with host data (§1.12.1): its sidecar `host_pid`
    /// may pin it automatically (§1.14).
    bool host_build_graph_host = false;
};

/// Everything the reader needs to compute an alignment for one capture.
struct HostAlignmentInput {
    std::vector<HostWindow> windows;
    std::optional<DispatchIdentity> sidecar;
    std::vector<std::string> logs;  ///< the files read, for messages and metadata
    /// `--host-log` given: a saved record is not reused.
    bool forced = false;
    /// Multi-rank mode (§1.14): the invocation the pairing chose. The capture is placed in it
    /// without the single-file filters, whatever its runtime and level.
    std::optional<HostWindow> paired;
};

/// Places the capture in one window (§1.12.3). The message of a failure is upstream's.
Result<ContainmentAlignment> place_in_window(const HostWindow& window, const CaptureExtent& extent);

/// §1.12.1 steps 4–6: filters the windows by the sidecar and the host records, places the
/// capture in the only one left. Never fails: a failure is an `unavailable` record.
ContainmentAlignment align_by_containment(const HostAlignmentInput& input,
                                          const CaptureExtent& extent);

/// Validates a saved `metadata.clock_alignment` (§1.12.2). `json` is the member's text (empty
/// when absent). Returns the record (source "saved"), or an Unavailable record whose reason is
/// the validation failure and `valid` false.
ContainmentAlignment validate_saved_alignment(std::string_view json, std::uint64_t freq_hz,
                                              bool& valid);

}  // namespace ptune::swimlane
