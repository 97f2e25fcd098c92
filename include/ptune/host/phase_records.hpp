#pragma once
/// @file phase_records.hpp
/// `host_phase_records.jsonl` (upstream-2026-09.md §2.8): one line per collecting host prepare
/// pass of a host_build_graph run, `{pid, inv, clock, dropped, records: [{phase, start_ns,
/// end_ns, detail, tid?}]}` on the host CLOCK_MONOTONIC (the clock of span `ts`). Records nest
/// (orchestrator operations inside the `host_orch` bind segment): never sum different kinds.

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"

namespace ptune::host {

/// One interval of a pass.
struct PhaseRecord {
    std::string phase;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::int64_t detail = 0;           ///< identity, or a quantity for quantity kinds
    std::optional<std::uint64_t> tid;  ///< absent from older writers
};

/// One pass (line).
struct PhasePass {
    std::uint64_t pid = 0;
    std::uint64_t inv = 0;      ///< matches the `[STRACE]` invocation
    std::uint64_t dropped = 0;  ///< records lost beyond the pool: the pass is incomplete
    std::vector<PhaseRecord> records;
    std::size_t line = 0;
};

/// True for the ten bind segments (they partition `chip.run.bind`); the other kinds are
/// orchestrator operations inside `host_orch`.
bool is_bind_segment(std::string_view phase);

/// Reads the file line by line. A malformed line (not an object, `records` not a list, a
/// record missing a field or with end < start) is skipped with a warning; a damaged last line
/// (a file still being appended) is skipped with a note saying so.
std::vector<PhasePass> parse_phase_records(std::istream& in, const std::string& source,
                                           Diagnostics& diagnostics);

/// Per kind over passes: count, total, p50 and max of `end_ns − start_ns` (ns).
struct PhaseKindSummary {
    std::string phase;
    std::size_t count = 0;
    std::int64_t total_ns = 0;
    std::int64_t p50_ns = 0;
    std::int64_t max_ns = 0;
};
/// Kinds in first-seen order.
std::vector<PhaseKindSummary> summarize_phase_kinds(const std::vector<PhasePass>& passes);

}  // namespace ptune::host
