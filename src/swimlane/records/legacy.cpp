// A legacy microsecond records file (swimlane.md §2.9) converted to the model.

#include <cmath>

#include <fmt/format.h>

#include "runs.hpp"
#include "stages.hpp"

namespace ptune::swimlane::records {

Result<Capture> build_legacy(RecordsWalker& w, Capture capture, Diagnostics& diagnostics) {
    capture.shape = RecordsShape::MicrosecondTasks;
    capture.clock.freq_hz = 1'000'000'000;
    capture.clock.freq_source = "microsecond file";
    // 0 = no usable time: absent, zero, negative, NaN, or past what int64 nanoseconds hold
    // (llround would be undefined there and the rebasing below would overflow).
    auto to_raw_ns = [](double us) -> std::int64_t {
        constexpr double kMaxUs = 9.0e15;  // ~285 years: every real capture is far below
        return us > 0 && us < kMaxUs ? std::llround(us * 1000.0) : 0;
    };
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    auto consider = [&](std::int64_t ns) {
        if (ns > 0) origin = std::min(origin, ns);
    };
    for (const auto& t : w.legacy) {
        for (double us : {t.start, t.end, t.ready, t.dispatch, t.finish}) consider(to_raw_ns(us));
    }
    for (const auto& p : w.scheduler)
        consider(to_raw_ns(p.start_us)), consider(to_raw_ns(p.end_us));
    if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
    capture.clock.origin_ticks = origin;
    auto rel = [&](double us) { return us > 0 ? to_raw_ns(us) - origin : kNoTime; };
    for (const auto& t : w.legacy) {
        if (!t.has_id || t.core_id < 0) {
            ++capture.dropped.malformed_rows;
            continue;
        }
        TaskRow row;
        row.task_id = t.task_id;
        row.core_id = static_cast<std::uint32_t>(t.core_id);
        row.core_type =
            t.core_type.empty() ? capture.core_type_of(row.core_id) : parse_core_type(t.core_type);
        row.func_id = static_cast<std::int32_t>(t.func_id);
        row.start_ns = rel(t.start);
        row.end_ns = rel(t.end);
        if (row.start_ns == kNoTime || row.end_ns == kNoTime) {
            ++capture.dropped.zero_start;
            continue;
        }
        if (row.end_ns < row.start_ns) {
            ++capture.dropped.reversed;
            continue;
        }
        row.receive_ns = t.ready > 0 && rel(t.ready) <= row.start_ns ? rel(t.ready) : row.start_ns;
        row.dispatch_ns = rel(t.dispatch);
        row.finish_ns = rel(t.finish);
        if (row.has_aicpu() && row.finish_ns < row.dispatch_ns)
            row.dispatch_ns = row.finish_ns = kNoTime;
        for (auto succ : t.fanout) capture.embedded_edges.emplace_back(t.task_id, succ);
        capture.tasks.push_back(row);
    }
    PhaseKinds kinds(w, capture);
    for (const auto& p : w.scheduler) {
        if (!p.has_start || !p.has_end) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        capture.scheduler_phases.push_back(make_scheduler_phase(
            p, kinds,
            [&](const RawPhase& r, bool start) { return rel(start ? r.start_us : r.end_us); }));
    }
    capture.scheduler_arrays = w.scheduler_arrays;
    sort_rows_by_task_id(capture.tasks);
    detail::find_runs(capture, diagnostics);
    summarise_drops(capture, {}, diagnostics);
    return capture;
}

}  // namespace ptune::swimlane::records
