// Stages 1–4 of the records conversion (stages.hpp): truncation, level and cores, raw sections,
// clock frequency, time base and the capture extent; and the scheduler facts.

#include <fmt/format.h>

#include "stages.hpp"

namespace ptune::swimlane::records {

/// Each kind of `scheduler_records` damage upstream's converter refuses (§1.5), said once with
/// the first occurrence's line and what ptune did instead.
void report_refusals(const RecordsWalker& w, const std::string& source, Diagnostics& diagnostics) {
    static constexpr std::string_view kInstead[] = {
        "ptune read the fields it knows, took missing ones as absent and ignored the others",
        "ptune dropped the record",
        "ptune ignored the metric",
        "ptune ignored the metric",
        "ptune kept the record's own values (a metric only adds fields to its record) and merged "
        "the metric's other fields",
    };
    static constexpr std::string_view kWhat[] = {"record(s)", "record(s)", "metric(s)", "metric(s)",
                                                 "metric(s)"};
    for (std::size_t k = 0; k < w.refusals.size(); ++k) {
        const RefusalSeen& seen = w.refusals[k];
        if (seen.count == 0) continue;
        diagnostics.warn(source, seen.line,
                         fmt::format("upstream's converter refuses this file ({}); {} ({} {} "
                                     "like this)",
                                     seen.first, kInstead[k], seen.count, kWhat[k]));
    }
}

/// Scheduler producer, streams and lifecycle records as read (§1.4, §1.5, §1.8), with the
/// shape problems upstream refuses reported as warnings (ptune keeps what is usable).
void take_scheduler_facts(const RecordsWalker& w, Capture& capture, Diagnostics& diagnostics) {
    capture.scheduler_producer = w.saw_scheduler_tasks ? w.scheduler_producer
                                 : w.saw_aicpu         ? "aicpu"
                                                       : "";
    if (w.saw_scheduler_tasks && w.scheduler_producer != "aicpu" &&
        w.scheduler_producer != "aicore")
        diagnostics.warn(capture.source, 0,
                         fmt::format("scheduler_tasks.producer is '{}', not 'aicpu' or 'aicore'",
                                     w.scheduler_producer));
    auto mixed = [](unsigned widths) { return (widths & (widths - 1)) != 0; };
    auto list = [](unsigned widths) {
        std::vector<int> out;
        for (int i = 0; i < 32; ++i)
            if (widths & (1u << i)) out.push_back(i);
        return fmt::format("[{}]", fmt::join(out, ", "));
    };
    if (mixed(w.aicore_widths))
        diagnostics.warn(capture.source, 0,
                         fmt::format("aicore_tasks mixes row widths {}", list(w.aicore_widths)));
    if (mixed(w.aicpu_widths))
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} mixes row widths {}",
                        w.saw_scheduler_tasks ? "scheduler_tasks.records" : "aicpu_tasks",
                        list(w.aicpu_widths)));
    capture.streams = w.streams;
    report_refusals(w, capture.source, diagnostics);
    for (const SchedulerStream& s : capture.streams)
        if (s.present && (s.dropped > 0 || s.truncated))
            diagnostics.warn(
                capture.source, 0,
                fmt::format("scheduler stream {} lost records (committed {}, dropped {}{}); "
                            "phase-derived figures are lower bounds",
                            s.scheduler_id, s.committed, s.dropped,
                            s.truncated ? ", truncated" : ""));
    if (w.lifecycle_malformed)
        diagnostics.warn(capture.source, 0,
                         "aicpu_lifecycle_records must be an array of objects; " +
                             std::to_string(w.lifecycle_malformed) + " entry(ies) ignored");
}

/// A text cut short (a capture killed mid-write) still converts what parsed before the damage,
/// with a warning and `capture.truncated` set; only a text with nothing usable is refused.
Status accept_truncation(const RecordsWalker& w, bool complete, const ReadOptions& options,
                         Capture& capture, Diagnostics& diagnostics) {
    if (complete) return ok_status();
    std::size_t line = w.error_line();
    bool nothing = w.aicore.empty() && w.legacy.empty() && w.scheduler.empty() &&
                   w.orchestrator.empty() && w.host_orchestrator.empty();
    if (nothing)
        return Error{fmt::format("not a usable swimlane records file: {}", w.error_message()),
                     options.source_name, line};
    capture.truncated = true;
    capture.truncation_message =
        fmt::format("{}:{}: records end early ({}); converting what parsed before",
                    options.source_name, line, w.error_message());
    diagnostics.warn(options.source_name, line,
                     fmt::format("records end early ({}); converting what parsed before the damage",
                                 w.error_message()));
    return ok_status();
}

/// The level, the core types and their AICPU threads as the file states them, the rows the
/// walker already refused, and whether the host orchestrated the run.
void take_level_and_cores(const RecordsWalker& w, Capture& capture) {
    capture.level_key = w.level_key;
    capture.level = static_cast<int>(w.level);
    for (const auto& name : w.core_type_names) capture.core_types.push_back(parse_core_type(name));
    for (auto t : w.core_to_thread) capture.core_to_thread.push_back(static_cast<int>(t));
    capture.dropped.malformed_rows = w.malformed_rows;
    capture.host_orchestration =
        w.host_source || !w.host_orchestrator.empty() || w.host_capture_object;
}

/// A raw-cycle file needs its AICore rows and one kind of AICPU rows.
Status check_raw_sections(const RecordsWalker& w, const ReadOptions& options) {
    if (!w.saw_aicore)
        return Error{"not a swimlane records file: no `aicore_tasks` or `tasks` section",
                     options.source_name, 0};
    if (w.saw_aicpu && w.saw_scheduler_tasks)
        return Error{"both `aicpu_tasks` and `scheduler_tasks` present; the capture is ambiguous",
                     options.source_name, 0};
    return ok_status();
}

/// The cycle counter's frequency: the file's, else the user's --freq (never overriding the file).
Status choose_clock_frequency(const RecordsWalker& w, const ReadOptions& options, Clock& clock) {
    if (w.clock_freq_invalid) {
        return Error{
            "`metadata.clock_freq_hz` is not a whole number of Hz; fix the "
            "capture (--freq never overrides the file's value)",
            options.source_name, 0};
    }
    if (w.clock_freq_hz > 0) {
        clock.freq_hz = static_cast<std::uint64_t>(w.clock_freq_hz);
        clock.freq_source = "metadata";
    } else if (options.fallback_freq_hz && *options.fallback_freq_hz > 0) {
        clock.freq_hz = *options.fallback_freq_hz;
        clock.freq_source = "--freq";
    } else {
        return Error{
            "no `metadata.clock_freq_hz` in the capture; pass --freq HZ (a2a3 50000000, a5 "
            "1000000000)",
            options.source_name, 0};
    }
    return ok_status();
}

/// Time base B (§6.2 step 4): over every device timestamp, host ns excluded. An AICore row's
/// earliest time is its receive (start − r2s); a row that never ran (start 0) is dropped later
/// and does not count, as the collector does.
RawTimeSpan find_time_base(const RecordsWalker& w) {
    RawTimeSpan span;
    std::int64_t base = std::numeric_limits<std::int64_t>::max();
    auto consider = [&](std::int64_t c) {
        if (c > 0 && c < base) base = c;
        span.last = std::max(span.last, c);
    };
    const std::size_t aicore_rows = w.aicore.size() / 7;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        if (r[3] == 0) continue;
        consider(r[3] - r[5]);
        consider(r[4]);
    }
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    for (std::size_t i = 0; i < aicpu_rows; ++i)
        consider(w.aicpu[i * 5 + 2]), consider(w.aicpu[i * 5 + 3]);
    for (const auto& p : w.scheduler) consider(p.start), consider(p.end);
    for (const auto& p : w.orchestrator) consider(p.start), consider(p.end);
    // Lifecycle cycles count for the time base (upstream-2026-09.md §1.8).
    for (const auto& l : w.lifecycle)
        for (std::int64_t c : l.cycles) consider(c);
    span.base = base == std::numeric_limits<std::int64_t>::max() ? 0 : base;
    return span;
}

/// The capture side of span containment (§1.12.3), in raw cycles: every positive device
/// timestamp, the aicpu-producer scheduler records' bounds, the AICPU orchestrator records'
/// bounds and the host records' [min, max].
CaptureExtent capture_extent(const RecordsWalker& w, const Capture& capture) {
    CaptureExtent extent;
    extent.freq_hz = capture.clock.freq_hz;
    auto widen = [](std::optional<std::pair<std::int64_t, std::int64_t>>& bounds, std::int64_t c) {
        if (c <= 0) return;
        if (!bounds)
            bounds.emplace(c, c);
        else
            bounds->first = std::min(bounds->first, c),
            bounds->second = std::max(bounds->second, c);
    };
    std::optional<std::pair<std::int64_t, std::int64_t>> all;
    const std::size_t aicore_rows = w.aicore.size() / 7;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        if (r[3] <= 0) continue;
        widen(all, r[3] - r[5]), widen(all, r[3]), widen(all, r[4]);
    }
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    for (std::size_t i = 0; i < aicpu_rows; ++i)
        widen(all, w.aicpu[i * 5 + 2]), widen(all, w.aicpu[i * 5 + 3]);
    for (const auto& p : w.scheduler) {
        widen(all, p.start), widen(all, p.end);
        const bool aicore_stream =
            p.thread < w.streams.size() && w.streams[p.thread].producer == "aicore";
        if (!aicore_stream) widen(extent.sched, p.start), widen(extent.sched, p.end);
    }
    for (const auto& p : w.orchestrator)
        widen(all, p.start), widen(all, p.end), widen(extent.orch, p.start),
            widen(extent.orch, p.end);
    for (const auto& l : w.lifecycle)
        for (std::int64_t c : l.cycles) widen(all, c);
    if (all) extent.has_extent = true, extent.first = all->first, extent.last = all->second;
    std::optional<std::pair<std::int64_t, std::int64_t>> host;
    for (const auto& p : w.host_orchestrator)
        widen(host, p.has_start ? p.start : 0), widen(host, p.has_end ? p.end : 0);
    for (const auto& u : w.uploads) widen(host, u.start_ns), widen(host, u.end_ns);
    extent.host_records = host;
    return extent;
}

}  // namespace ptune::swimlane::records
