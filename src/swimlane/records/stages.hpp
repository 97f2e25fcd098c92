#pragma once
// The conversion stages of a records file (swimlane.md §6.2), in the order build_capture
// (reader.cpp) runs them: accept_truncation → take_level_and_cores → check_raw_sections →
// choose_clock_frequency → find_time_base (time_base.cpp) → host alignment (host_alignment.cpp)
// → DeviceTimeMap → join_aicpu_to_aicore or take_aicore_rows_alone → take_device_phases
// (device_rows.cpp); a legacy µs file goes through build_legacy (legacy.cpp) instead.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../radix_order.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/swimlane/reader.hpp"
#include "walker.hpp"

namespace ptune::swimlane::records {

/// Host records further than this from the origin (146 years) are damaged; the bound keeps sums
/// of model times clear of overflow, as Clock::ticks_to_ns does for device times.
constexpr std::int64_t kMaxHostSpanNs = std::int64_t{1} << 62;

/// A per-phase counter as stored (32 bits; -1 = absent, larger values saturate).
inline std::int32_t counter_value(std::int64_t value) {
    if (value < 0) return -1;
    return static_cast<std::int32_t>(std::min<std::int64_t>(value, INT32_MAX));
}

/// A dispatch record's pop count as stored (16 bits; -1 = absent, larger values saturate).
inline std::int16_t pop_count_value(std::int64_t value) {
    if (value < 0) return -1;
    return static_cast<std::int16_t>(std::min<std::int64_t>(value, kMaxPopCount));
}

/// The rows by task id, stably: a radix order applied in place. (std::stable_sort merged the
/// 72-byte rows 18 times at 200K tasks: 3× their share of a 20K run.)
inline void sort_rows_by_task_id(std::vector<TaskRow>& rows) {
    std::vector<std::uint32_t> order = detail::identity(rows.size());
    detail::stable_order(order, [&rows](std::uint32_t i) { return rows[i].task_id; });
    detail::apply_order(rows, order);
}

inline CoreType parse_core_type(std::string_view name) {
    return name == "aic" || name == "AIC" ? CoreType::Aic : CoreType::Aiv;
}

/// A record's `run_epoch` as the model keeps it: kNoEpoch when absent (negative), else clamped.
inline std::int32_t epoch_of(std::int64_t raw) {
    return raw < 0 ? kNoEpoch : static_cast<std::int32_t>(std::min<std::int64_t>(raw, INT32_MAX));
}

/// The model kind of each interned kind name (RecordsWalker::kinds), parsed once per name rather
/// than once per record; a name outside the vocabulary is added to `capture.other_phase_names`
/// when a record first uses it, as a per-record parse would.
class PhaseKinds {
  public:
    PhaseKinds(const RecordsWalker& w, Capture& capture)
        : w_(w), capture_(capture), known_(w.kinds.size()) {}

    /// Sets `phase.kind` (and `phase.other_name`) for interned kind `kind`.
    void set(SchedulerPhase& phase, std::uint16_t kind) {
        Known& known = known_[kind];
        if (!known.parsed) known = parse(kind);
        phase.kind = known.kind;
        phase.other_name = known.other_name;
    }

  private:
    struct Known {
        bool parsed = false;
        PhaseKind kind = PhaseKind::Other;
        std::uint16_t other_name = 0;
    };
    Known parse(std::uint16_t kind) {
        Known known;
        known.parsed = true;
        std::string_view name = kind == 0 ? "unknown" : std::string_view(w_.kinds[kind]);
        known.kind = parse_phase_kind(name);
        if (known.kind == PhaseKind::Other) {
            auto& names = capture_.other_phase_names;
            auto found = std::find(names.begin(), names.end(), name);
            if (found == names.end() && names.size() <= 0xFFFF)
                found = names.emplace(names.end(), name);
            known.other_name =
                found == names.end() ? 0 : static_cast<std::uint16_t>(found - names.begin());
        }
        return known;
    }
    const RecordsWalker& w_;
    Capture& capture_;
    std::vector<Known> known_;  ///< by interned kind
};

/// Phase object → model record, given a raw-timestamp converter.
template <class ToNs>
SchedulerPhase make_scheduler_phase(const RawPhase& raw, PhaseKinds& kinds, ToNs&& to_ns) {
    SchedulerPhase phase;
    phase.thread = raw.thread;
    kinds.set(phase, raw.kind);
    phase.start_ns = to_ns(raw, true);
    phase.end_ns = to_ns(raw, false);
    phase.loop_iter = static_cast<std::uint32_t>(std::max<std::int64_t>(0, raw.loop_iter));
    phase.tasks_processed = counter_value(raw.tasks_processed);
    phase.pop_hit = pop_count_value(raw.pop_hit);
    phase.pop_miss = pop_count_value(raw.pop_miss);
    phase.task_id = raw.task_id;
    phase.run_epoch = epoch_of(raw.run_epoch);
    if (raw.shared_start.complete() && raw.shared_end.complete()) {
        phase.has_depths = true;
        for (std::size_t i = 0; i < 3; ++i) {
            phase.shared_at_start[i] = raw.shared_start.values[i];
            phase.shared_at_end[i] = raw.shared_end.values[i];
        }
    }
    return phase;
}

inline std::uint64_t join_key(std::int64_t epoch, std::int64_t core, std::int64_t reg) {
    // Core ids stay far below 2^16 (a5: 108 cores) and run epochs below 2^16 per capture.
    return (static_cast<std::uint64_t>(epoch & 0xFFFF) << 48) |
           (static_cast<std::uint64_t>(core & 0xFFFF) << 32) |
           static_cast<std::uint64_t>(reg & 0xFFFFFFFF);
}

/// The span of the raw device timestamps.
struct RawTimeSpan {
    std::int64_t base = 0;  ///< time base B: the smallest positive timestamp (0: none)
    std::int64_t last = 0;  ///< the largest timestamp: the clock anchors must cover it
};

/// The lifecycle intervals on the capture's axis (§1.8): skipped when end ≤ 0 or end < start.
template <class ToNs>
void take_lifecycle(const RecordsWalker& w, Capture& capture, const ToNs& to_ns) {
    for (const auto& l : w.lifecycle) {
        LifecycleRecord record;
        record.thread = l.thread;
        for (std::size_t i = 0; i < record.intervals.size(); ++i) {
            std::int64_t start = l.cycles[2 * i], end = l.cycles[2 * i + 1];
            bool usable = start > 0 && end > 0 && end >= start;
            record.intervals[i] =
                usable ? std::pair(to_ns(start), to_ns(end)) : std::pair(kNoTime, kNoTime);
        }
        capture.lifecycle.push_back(record);
    }
}

// time_base.cpp

/// Each kind of `scheduler_records` damage upstream's converter refuses (§1.5), said once with
/// the first occurrence's line and what ptune did instead.
void report_refusals(const RecordsWalker& w, const std::string& source, Diagnostics& diagnostics);

/// Scheduler producer, streams and lifecycle records as read (§1.4, §1.5, §1.8), with the
/// shape problems upstream refuses reported as warnings (ptune keeps what is usable).
void take_scheduler_facts(const RecordsWalker& w, Capture& capture, Diagnostics& diagnostics);

/// A text cut short (a capture killed mid-write) still converts what parsed before the damage,
/// with a warning and `capture.truncated` set; only a text with nothing usable is refused.
Status accept_truncation(const RecordsWalker& w, bool complete, const ReadOptions& options,
                         Capture& capture, Diagnostics& diagnostics);

/// The level, the core types and their AICPU threads as the file states them, the rows the
/// walker already refused, and whether the host orchestrated the run.
void take_level_and_cores(const RecordsWalker& w, Capture& capture);

/// A raw-cycle file needs its AICore rows and one kind of AICPU rows.
Status check_raw_sections(const RecordsWalker& w, const ReadOptions& options);

/// The cycle counter's frequency: the file's, else the user's --freq (never overriding the file).
Status choose_clock_frequency(const RecordsWalker& w, const ReadOptions& options, Clock& clock);

/// Time base B (§6.2 step 4): over every device timestamp, host ns excluded. An AICore row's
/// earliest time is its receive (start − r2s); a row that never ran (start 0) is dropped later
/// and does not count, as the collector does.
RawTimeSpan find_time_base(const RecordsWalker& w);

/// The capture side of span containment (§1.12.3), in raw cycles: every positive device
/// timestamp, the aicpu-producer scheduler records' bounds, the AICPU orchestrator records'
/// bounds and the host records' [min, max].
CaptureExtent capture_extent(const RecordsWalker& w, const Capture& capture);

// host_alignment.cpp

/// `metadata.clock_alignment` honoured or computed (§1.12.1–§1.12.2): a valid saved `bounded`
/// record is used unless `--host-log` forces a fresh one; otherwise the host logs place the
/// capture. ptune never writes the record back: it is reported (trace metadata, console).
void decide_clock_alignment(const RecordsWalker& w, Capture& capture, const ReadOptions& options,
                            Diagnostics& diagnostics);

/// September files (§1.12.4): the host origin is the file's, else the earliest host record, else
/// the placement's own (place_lo of a fresh one, host_anchor_min_ns of a saved one).
void choose_placed_origin(const RecordsWalker& w, Capture& capture);

/// Host orchestration (§2.6–§2.7, §6.2 steps 5 and 9): puts the host records on the host axis
/// (ns since the host origin) and decides how device times join it: a September file through
/// its containment placement (upstream-2026-09.md §1.12.4), an older one through the clock
/// anchors; without either the device timeline starts after the host timeline ends.
void place_host_timeline(const RecordsWalker& w, Capture& capture, std::int64_t first_cycles,
                         std::int64_t last_cycles, detail::AnchorFit& fit,
                         Diagnostics& diagnostics);

/// `metadata.runtime` (§1.2), or for a file that predates it the runtime its ids suggest: any
/// id in host_build_graph space 1/2 → host_build_graph (its labels), host orchestration →
/// host_build_graph (older labels), else tensormap_and_ringbuffer (older labels).
Status decide_runtime(const RecordsWalker& w, Capture& capture, const ReadOptions& options);

/// Raw device timestamps → model ns on the capture's axis, once the clock, the time base and
/// (host orchestration) the device axis are decided. Timestamps of 0 and below are no time.
class DeviceTimeMap {
  public:
    DeviceTimeMap(const Capture& capture, const detail::AnchorFit& fit)
        : clock_(capture.clock),
          fit_(fit),
          base_(capture.clock.origin_ticks),
          host_origin_(capture.host.origin_ns),
          calibrated_(capture.clock.axis == Clock::Axis::HostCalibrated),
          composite_(capture.clock.axis == Clock::Axis::HostComposite),
          placed_(capture.clock.axis == Clock::Axis::HostPlaced),
          anchor_cycles_(capture.clock_alignment.device_anchor_cycles),
          anchor_ns_(capture.clock_alignment.host_anchor_ns),
          ns_per_tick_(clock_.freq_hz == 0                   ? 1
                       : 1'000'000'000 % clock_.freq_hz == 0 ? 1'000'000'000 / clock_.freq_hz
                                                             : 0) {}

    std::int64_t operator()(std::int64_t c) const {
        if (c <= 0) return kNoTime;
        if (calibrated_)
            return std::clamp(fit_.map(c) - host_origin_, -kMaxHostSpanNs, kMaxHostSpanNs);
        if (placed_) {
            // §1.12.2: host = host_anchor_ns + (c − device_anchor_cycles)·1e9/f.
            std::int64_t delta =
                std::clamp(ticks_to_ns(c - anchor_cycles_), -kMaxHostSpanNs, kMaxHostSpanNs);
            return std::clamp(anchor_ns_ - host_origin_ + delta, -kMaxHostSpanNs, kMaxHostSpanNs);
        }
        std::int64_t ns = ticks_to_ns(c - base_);
        if (!composite_) return ns;
        // Behind the host timeline (offset ≤ 2^62): a damaged file's huge time saturates.
        return std::min(ns, kMaxHostSpanNs) + clock_.host_offset_ns;
    }

  private:
    /// Clock::ticks_to_ns, without its division per call where a tick is a whole number of ns
    /// (the wrapping product is the 128-bit one's low half, as Clock returns it).
    std::int64_t ticks_to_ns(std::int64_t ticks) const {
        if (ns_per_tick_ == 0) return clock_.ticks_to_ns(ticks);
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(ticks) * ns_per_tick_);
    }

    const Clock& clock_;
    const detail::AnchorFit& fit_;
    std::int64_t base_, host_origin_;
    bool calibrated_, composite_, placed_;
    std::int64_t anchor_cycles_, anchor_ns_;
    std::uint64_t ns_per_tick_;  ///< 1e9 / freq_hz when whole (1 without a clock), else 0
};

// device_rows.cpp

/// Level 1 (no AICPU stamps), or a capture cut before its AICPU section: AICore timing only.
/// Upstream yields zero tasks at level ≥ 2; showing the AICore rows is more useful.
void take_aicore_rows_alone(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                            Diagnostics& diagnostics);

/// The row join (§6.2 step 6): each AICPU row (core, reg, dispatch, finish, epoch) with the
/// AICore row of the same (epoch, core, reg). A key that repeats (a file holding several runs
/// without run_epoch: reg_task_id restarts per run) pairs its rows in file order, the k-th AICPU
/// row with the k-th AICore row, never one AICore row twice; surplus AICPU rows fall back to the
/// last AICore row, as upstream's later-wins lookup. AICPU rows without a partner are counted
/// per core in `unmatched_cores`; AICore rows without one are left out.
void join_aicpu_to_aicore(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                          std::vector<std::int64_t>& unmatched_cores, Diagnostics& diagnostics);

/// The AICPU scheduler and orchestrator records with usable times, on the device axis.
/// Frees the walker's raw scheduler and orchestrator records once each kind is converted (the
/// raw records are twice the size of the converted ones: without this, both were held at once).
void take_device_phases(RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns);

void summarise_drops(const Capture& capture, const std::vector<std::int64_t>& unmatched_cores,
                     Diagnostics& diagnostics);

// legacy.cpp

Result<Capture> build_legacy(RecordsWalker& w, Capture capture, Diagnostics& diagnostics);

}  // namespace ptune::swimlane::records
