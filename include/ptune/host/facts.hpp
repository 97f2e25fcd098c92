#pragma once
/// @file facts.hpp
/// What bench-summary and advise show about the host side of a run (upstream-2026-09.md §2):
/// per host log its losses (cut records, torn spans, `[HOSTLOG_DROPS]`), the bind segments of
/// each invocation (`chip.run.bind.<segment>` spans or legacy `bind phase=` lines), the
/// `host-orch` cost shares, and `host_phase_records.jsonl` passes. Families that carry no
/// measurement (`node.*`, `[chip_process] ready`, setup spans, ordinary records) are skipped.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/host/log.hpp"
#include "ptune/host/phase_records.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::host {

/// One bind segment of one invocation.
struct BindSegment {
    std::string segment;
    std::int64_t start_ns = 0;
    std::int64_t dur_ns = 0;
    std::map<std::string, std::string, std::less<>> attrs;  ///< bytes=, heap_used=, minflt=, …
};

/// The bind of one invocation `(pid, inv)`; `pid`/`inv` are 0 for legacy lines.
struct BindBreakdown {
    std::uint64_t pid = 0;
    std::uint64_t inv = 0;
    std::optional<std::int64_t> bind_dur_ns;  ///< `chip.run.bind`, when seen
    std::vector<BindSegment> segments;
    bool legacy = false;  ///< from `bind phase=` lines
};

/// One host log as bench-summary and advise see it.
struct HostLogFacts {
    std::string source;
    HostLogStats stats;
    std::vector<HostLogDrops> drops;  ///< final state per pid
    std::vector<HostOrchPhase> host_orch;
    std::vector<BindBreakdown> binds;
    std::uint64_t collector_skipped = 0;  ///< AICore swimlane record slots lost (all cores)
};

/// One host_phase_records.jsonl.
struct PhaseRecordsFacts {
    std::string source;
    std::vector<PhasePass> passes;
};

/// Everything found.
struct HostFacts {
    std::vector<HostLogFacts> logs;
    std::vector<PhaseRecordsFacts> phase_records;
    bool empty() const { return logs.empty() && phase_records.empty(); }
    /// Every file read.
    std::vector<std::string> inputs() const;
};

/// True for the names the host logger writes: `host.<pid>.log`, `host-strace.<pid>.log`.
bool is_host_log_name(std::string_view file_name);

/// Reads one host log (streamed; only bind segments and per-pid totals are kept).
HostLogFacts read_host_log_facts(std::istream& in, const std::string& source);

/// The host logs and host_phase_records.jsonl among `inputs` (files as named, directories
/// searched recursively), sorted by path within a directory. Files of other names are ignored;
/// problems go to `diagnostics` (warnings; losses as upstream words them).
HostFacts collect_host_facts(const std::vector<std::string>& inputs, Diagnostics& diagnostics);

/// Run-wide metrics: `host.log_dropped_records` (sum of the final totals over pids),
/// `host.log_cut_records`, `host.log_torn_spans`, `host.phase_passes_dropped` (records lost by
/// passes) and labels `host.drop_reason`, `host.drop_pids`.
void publish(const HostFacts& facts, rules::MetricStore& store);

/// Tables: host-log losses per file, bind segments per invocation, host-orch shares, host
/// phase kinds (count / total / p50 / max) with each pass's host_orch share of the bind.
std::vector<render::Table> host_tables(const HostFacts& facts);

}  // namespace ptune::host
