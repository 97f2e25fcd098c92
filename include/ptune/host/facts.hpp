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

#include <nlohmann/json.hpp>

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

/// A bind segment over the invocations past the first kDetailedBinds of a log: the log is
/// streamed, so a log of a million launches keeps a few numbers per segment, not its rows.
struct FoldedSegment {
    std::uint64_t pid = 0;  ///< 0 for legacy `bind phase=` lines
    std::string segment;
    std::size_t count = 0;
    std::int64_t total_ns = 0;
    std::int64_t max_ns = 0;
};

/// What a log held past its detailed part (invocations past kDetailedBinds, host-orch lines
/// past kDetailedHostOrch), summed per segment / kind.
struct FoldedHostLog {
    std::size_t binds = 0;            ///< invocations folded
    std::size_t legacy_binds = 0;     ///< legacy `bind phase=` binds folded (segments of pid 0)
    std::int64_t bind_ns = 0;         ///< their `chip.run.bind` spans, summed (0 when absent)
    std::size_t binds_with_span = 0;  ///< how many of them had that span
    std::vector<FoldedSegment> segments;
    std::size_t host_orch_lines = 0;
    std::vector<HostOrchPhase>
        host_orch;  ///< per kind: total_ns, count, detail_sum, dropped summed
};

/// Invocations of one log whose bind segments are kept one by one (real runs: warmup plus
/// rounds, ≤ 105 launches); later ones are folded (FoldedHostLog).
inline constexpr std::size_t kDetailedBinds = 128;
/// `host-orch` lines kept one by one (eight kinds per bind); later ones are folded per kind.
inline constexpr std::size_t kDetailedHostOrch = 8 * kDetailedBinds;

/// One host log as bench-summary and advise see it.
struct HostLogFacts {
    std::string source;
    HostLogStats stats;
    std::vector<HostLogDrops> drops;       ///< final state per pid
    std::vector<HostOrchPhase> host_orch;  ///< the first kDetailedHostOrch lines
    std::vector<BindBreakdown> binds;      ///< the first kDetailedBinds invocations
    FoldedHostLog folded;                  ///< the rest, summed
    /// AICore swimlane record slots the collector skipped as never written (start_time=0), all
    /// cores: empty slots, not lost records (the text column "empty slots skipped").
    std::uint64_t collector_skipped = 0;
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

/// Reads one host log (streamed: the bind segments of the first kDetailedBinds invocations,
/// sums for the rest, per-pid totals; memory does not grow with the file).
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

/// The same facts as data, for `bench-summary --format json` (key `host`; docs/bench-summary.md
/// "JSON: host"). Schema 1, times in integer ns, shares as fractions (null without a bind):
/// `{schema, logs: [{file, lines, records, spans, torn_spans, cut_records, cut_attrs,
/// shared_lines, malformed_payloads, swimlane_slots_lost, drops: [{pid, total, queue_full,
/// claim_exhausted, output_failed, not_admitted, dominant_reason, line}], binds: [{pid, inv,
/// legacy, bind_ns, segments: [{segment, start_ns, dur_ns, share_of_bind, attrs}]}],
/// host_orch: [{kind, total_ns, count, detail_sum, dropped, line}], folded: {binds,
/// legacy_binds, bind_ns,
/// segments: [{pid, segment, count, total_ns, max_ns, share_of_bind}], host_orch_lines,
/// host_orch: [{kind, total_ns, count, detail_sum, dropped}]}}], phase_records: [{file,
/// kinds: [{phase, kind, count, total_ns, p50_ns, max_ns}], passes: [{pid, inv, records,
/// host_orch_ns, bind_ns, host_orch_share, dropped, line}]}]}`.
nlohmann::json host_json(const HostFacts& facts);

}  // namespace ptune::host
