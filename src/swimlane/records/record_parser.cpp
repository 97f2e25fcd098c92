// The phase records of a records file (walker.hpp): phase objects of every generation and the
// scheduler streams of `scheduler_records` (upstream-2026-09.md §1.5), checked as upstream's
// converter checks them.

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "phase_read_ahead.hpp"
#include "walker.hpp"

namespace ptune::swimlane::records {

using json_stream::Scalar;

/// The names of the bits in `keys`, sorted as upstream prints them (Python's sorted()).
std::string record_key_list(std::uint8_t keys) {
    static constexpr std::pair<std::uint8_t, std::string_view> kSorted[] = {
        {kEndKey, "end_cycles"},
        {kKindKey, "kind"},
        {kLoopIterKey, "loop_iter"},
        {kRunEpochKey, "run_epoch"},
        {kStartKey, "start_cycles"},
        {kTaskIdKey, "task_id"},
        {kTasksProcessedKey, "tasks_processed"}};
    std::vector<std::string_view> names;
    for (auto [bit, name] : kSorted)
        if (keys & bit) names.push_back(name);
    return fmt::format("[{}]", fmt::join(names, ", "));
}

std::uint16_t RecordsWalker::intern_kind(std::string_view name) {
    for (std::size_t i = 1; i < kinds.size(); ++i)
        if (kinds[i] == name) return static_cast<std::uint16_t>(i);
    if (kinds.size() > 0xFFFF) return 0;  // not a capture's vocabulary any more
    kinds.emplace_back(name);
    return static_cast<std::uint16_t>(kinds.size() - 1);
}

RecordsWalker::PhaseKey RecordsWalker::phase_key(std::string_view k) {
    switch (k.size()) {
        case 4:
            return k == "kind" ? PhaseKey::Kind : PhaseKey::Other;
        case 5:
            return k == "phase" ? PhaseKey::Kind : PhaseKey::Other;
        case 7:
            return k == "pop_hit"   ? PhaseKey::PopHit
                   : k == "task_id" ? PhaseKey::TaskId
                                    : PhaseKey::Other;
        case 8:
            return k == "pop_miss" ? PhaseKey::PopMiss : PhaseKey::Other;
        case 9:
            return k == "loop_iter"   ? PhaseKey::LoopIter
                   : k == "thread_id" ? PhaseKey::Thread
                   : k == "run_epoch" ? PhaseKey::RunEpoch
                                      : PhaseKey::Other;
        case 10:
            return k == "end_cycles"   ? PhaseKey::End
                   : k == "submit_idx" ? PhaseKey::SubmitIdx
                   : k == "thread_idx" ? PhaseKey::Thread
                                       : PhaseKey::Other;
        case 11:
            return k == "end_time_us"   ? PhaseKey::EndUs
                   : k == "end_host_ns" ? PhaseKey::End
                                        : PhaseKey::Other;
        case 12:
            return k == "start_cycles"   ? PhaseKey::Start
                   : k == "record_index" ? PhaseKey::RecordIndex
                                         : PhaseKey::Other;
        case 13:
            return k == "start_time_us"   ? PhaseKey::StartUs
                   : k == "start_host_ns" ? PhaseKey::Start
                                          : PhaseKey::Other;
        case 15:
            return k == "tasks_processed" ? PhaseKey::TasksProcessed : PhaseKey::Other;
        default:
            return PhaseKey::Other;
    }
}

std::uint8_t RecordsWalker::record_key(PhaseKey key, std::string_view k) {
    switch (key) {
        case PhaseKey::Start:
            return k.size() == 12 ? kStartKey : kOtherKey;  // start_cycles, not *_host_ns
        case PhaseKey::End:
            return k.size() == 10 ? kEndKey : kOtherKey;
        case PhaseKey::Kind:
            return k.size() == 4 ? kKindKey : kOtherKey;  // kind, not the legacy `phase`
        case PhaseKey::LoopIter:
            return kLoopIterKey;
        case PhaseKey::TasksProcessed:
            return kTasksProcessedKey;
        case PhaseKey::TaskId:
            return kTaskIdKey;
        case PhaseKey::RunEpoch:
            return kRunEpochKey;
        default:
            return kOtherKey;
    }
}

void RecordsWalker::note_key(PhaseKey key, std::string_view k) {
    std::uint8_t bit = record_key(key, k);
    if (key_at(4) == "metrics") {
        if (bit != kOtherKey) phase_.fixed_keys |= bit;
    } else {
        record_keys_ |= bit;
    }
}

void RecordsWalker::check_record() {
    std::size_t record = index_at(5);
    if (record == 0) stream_epoch_ = (record_keys_ & kRunEpochKey) != 0;
    std::uint8_t expected = kFixedRecordKeys | (stream_epoch_ ? kRunEpochKey : 0);
    if (record_keys_ != expected) {
        refused(StreamRefusal::KeySet, record_line_, [&] {
            return fmt::format(
                "scheduler stream {} record {} must contain exactly {}; it has "
                "{}{}",
                stream_thread_, record, record_key_list(expected),
                record_key_list(record_keys_ & ~kOtherKey),
                record_keys_ & kOtherKey ? " and other keys" : "");
        });
    }
    if (phase_.has_start && phase_.has_end && phase_.end < phase_.start) {
        refused(StreamRefusal::NegativeInterval, record_line_, [&] {
            return fmt::format(
                "scheduler stream {} record {} has a negative interval "
                "(end_cycles {} < start_cycles {})",
                stream_thread_, record, phase_.end, phase_.start);
        });
    }
}

void RecordsWalker::phase_field(std::string_view k, const Scalar& v) {
    PhaseKey key = phase_key(k);
    if (section_ == Section::SchedulerRecords) note_key(key, k);
    set_phase_field(phase_, key, v, [this](std::string_view name) { return intern_kind(name); });
}

std::size_t RecordsWalker::take_container(std::size_t level, std::string_view text) {
    if (text.front() == '[') {
        // A row of aicore_tasks / aicpu_tasks: on_open, push_cell per integer, on_close.
        if ((section_ != Section::AicoreTasks && section_ != Section::AicpuTasks) || level != 2)
            return 0;
        if (read_ahead) read_ahead->at(container_offset());  // (it reads on from there)
        std::array<std::int64_t, 8> cells;
        std::size_t count = 0;
        const std::size_t length = read_flat_integers(text, cells.data(), cells.size(), count);
        if (length == 0) return 0;
        on_open(level, false);
        row_.insert(row_.end(), cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(count));
        on_close(level, false);
        ++containers_taken;
        return length;
    }
    // The objects on_open makes phase records of (the stream records of `scheduler_records`
    // are checked key by key, with lines: they stay with the callbacks).
    if ((section_ != Section::SchedulerPhases && section_ != Section::OrchestratorPhases &&
         section_ != Section::HostOrchestratorPhases) ||
        (level != 2 && level != 3))
        return 0;
    auto intern = [this](std::string_view name) { return intern_kind(name); };
    // Read ahead on another thread: the same bytes give the same record, added where on_open
    // and on_close would add it (the thread of its array unless it names one), without making
    // it in phase_ first (a tenth of the walk's time went to that).
    if (read_ahead)
        if (const PrefetchedPhase* ready = read_ahead->find(container_offset(), text)) {
            RawPhase& phase = section_ == Section::SchedulerPhases ? scheduler.emplace_back()
                              : section_ == Section::OrchestratorPhases
                                  ? orchestrator.emplace_back()
                                  : host_orchestrator.emplace_back();
            phase = ready->phase;
            phase.kind = read_ahead->kind(ready->phase.kind, intern);
            if (!ready->names_thread) phase.thread = level == 3 ? thread_ : 0;
            phase_depth_ = 0;  // (as on_close leaves it: a record around this one is not added)
            ++containers_taken;
            ++containers_read_ahead;
            return ready->length;
        }
    const std::size_t length = read_flat_object(text, flat_);
    if (length == 0) return 0;
    // What the callbacks do with such an object: on_open, a phase_field per scalar member, the
    // ready-queue depths from the integer elements of the shared_at_* arrays, on_close.
    on_open(level, true);
    read_flat_phase(flat_, phase_, intern);
    on_close(level, true);
    ++containers_taken;
    return length;
}

void RecordsWalker::finish_stream() {
    for (std::size_t m = 0; m < stream_metrics_.size(); ++m) {
        const RawPhase& metric = stream_metrics_[m];
        std::size_t line = metric_lines_[m];
        if (!metric.has_record_index) {
            refused(StreamRefusal::MetricIndexMissing, line, [&] {
                return fmt::format(
                    "scheduler stream {} has malformed metrics: metric {} has "
                    "no integer record_index",
                    stream_thread_, m);
            });
            continue;
        }
        if (metric.record_index < 0 ||
            static_cast<std::size_t>(metric.record_index) >= stream_records_.size()) {
            refused(StreamRefusal::MetricOutOfRange, line, [&] {
                return fmt::format(
                    "scheduler stream {} metric record_index {} is out of range "
                    "(the stream has {} record(s))",
                    stream_thread_, metric.record_index, stream_records_.size());
            });
            continue;
        }
        if (metric.fixed_keys) {
            refused(StreamRefusal::MetricFixedField, line, [&] {
                return fmt::format(
                    "scheduler stream {} metric {} (record_index {}) overwrites "
                    "fixed record fields: {}",
                    stream_thread_, m, metric.record_index, record_key_list(metric.fixed_keys));
            });
        }
        RawPhase& target = stream_records_[static_cast<std::size_t>(metric.record_index)];
        if (metric.pop_hit >= 0) target.pop_hit = metric.pop_hit;
        if (metric.pop_miss >= 0) target.pop_miss = metric.pop_miss;
        if (!metric.shared_start.empty()) target.shared_start = metric.shared_start;
        if (!metric.shared_end.empty()) target.shared_end = metric.shared_end;
    }
    scheduler_arrays = std::max<std::size_t>(scheduler_arrays, stream_thread_ + 1);
    stream_.records = stream_records_.size();
    if (streams.size() <= stream_thread_) streams.resize(stream_thread_ + 1);
    streams[stream_thread_] = stream_;
    metric_lines_.clear();
    for (auto& record : stream_records_) {
        // A negative interval was reported by check_record(); the record is dropped.
        if (record.has_start && record.has_end && record.end < record.start) continue;
        record.thread = stream_thread_;
        record.from_stream = true;
        scheduler.push_back(std::move(record));
    }
}

void RecordsWalker::place_streams() {
    if (streams.empty()) return;
    std::vector<std::int64_t> ids;
    bool usable = true;
    for (const SchedulerStream& st : streams) {
        usable = usable && st.present && st.scheduler_id >= 0 && st.scheduler_id < 256 &&
                 std::find(ids.begin(), ids.end(), st.scheduler_id) == ids.end();
        ids.push_back(st.scheduler_id);
    }
    if (!usable) return;
    std::vector<SchedulerStream> placed(
        static_cast<std::size_t>(*std::max_element(ids.begin(), ids.end())) + 1);
    for (std::size_t i = 0; i < streams.size(); ++i)
        placed[static_cast<std::size_t>(ids[i])] = streams[i];
    bool one_producer = std::all_of(streams.begin(), streams.end(), [&](const auto& st) {
        return st.producer == streams.front().producer;
    });
    for (SchedulerStream& st : placed)
        if (!st.present && one_producer) st.producer = streams.front().producer;
    for (RawPhase& p : scheduler)
        if (p.from_stream && p.thread < ids.size())
            p.thread = static_cast<std::uint32_t>(ids[p.thread]);
    scheduler_arrays = std::max(scheduler_arrays, placed.size());
    streams = std::move(placed);
}

}  // namespace ptune::swimlane::records
