// Native Perfetto protobuf (TrackEvent) rendering of the trace layout, hand-encoded
// (conventions.md §2.6): a `Trace` is a sequence of `TracePacket`s (field 1); process and thread
// tracks are TrackDescriptors, slices are BEGIN/END pairs (there is no COMPLETE event), the queue
// depths and overhead series are counter tracks and every arrow is one flow id: `flow_ids` on the
// source slice, `terminating_flow_ids` on the target. A slice's args are the JSON output's, as
// debug annotations on its BEGIN whose names are interned (InternedData.debug_annotation_names,
// sent once in the first packet that uses them); names, lanes, times, args, counters and arrows
// are identical to the JSON output.

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "ptune/swimlane/reader.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail {

namespace {

// Field numbers (protos/perfetto/trace/trace_packet.proto, track_event/*.proto).
enum : std::uint32_t {
    kTracePacket = 1,
    kPacketTimestamp = 8,
    kPacketSequenceId = 10,
    kPacketTrackEvent = 11,
    kPacketSequenceFlags = 13,
    kPacketTrackDescriptor = 60,
    kPacketInternedData = 12,
    kEventDebugAnnotations = 4,
    kEventType = 9,
    kEventTrackUuid = 11,
    kEventCategories = 22,
    kEventName = 23,
    kEventCounterValue = 30,
    kEventFlowIds = 47,
    kEventTerminatingFlowIds = 48,
    kTrackUuid = 1,
    kTrackName = 2,
    kTrackProcess = 3,
    kTrackThread = 4,
    kTrackParentUuid = 5,
    kTrackCounter = 8,
    kProcessPid = 1,
    kProcessName = 6,
    kThreadPid = 1,
    kThreadTid = 2,
    kThreadName = 5,
    // InternedData (interned_data/interned_data.proto) and DebugAnnotation
    // (track_event/debug_annotation.proto).
    kInternedDebugAnnotationNames = 3,
    kInternedIid = 1,
    kInternedName = 2,
    kAnnotationNameIid = 1,
    kAnnotationBool = 2,
    kAnnotationUint = 3,
    kAnnotationInt = 4,
    kAnnotationDouble = 5,
    kAnnotationString = 6,
    kAnnotationArrayValues = 12,
};
enum : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2, kCounterEvent = 4 };
constexpr std::uint32_t kSequenceId = 1;
constexpr std::uint64_t kIncrementalStateCleared = 1;
constexpr std::uint64_t kNeedsIncrementalState = 2;

void varint(std::string& b, std::uint64_t v) {
    while (v >= 0x80) {
        b += static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    b += static_cast<char>(v);
}
void tag(std::string& b, std::uint32_t field, std::uint32_t wire) {
    varint(b, (static_cast<std::uint64_t>(field) << 3) | wire);
}
void put_uint(std::string& b, std::uint32_t field, std::uint64_t v) {
    tag(b, field, 0);
    varint(b, v);
}
void put_int(std::string& b, std::uint32_t field, std::int64_t v) {
    put_uint(b, field, static_cast<std::uint64_t>(v));
}
void put_fixed64(std::string& b, std::uint32_t field, std::uint64_t v) {
    tag(b, field, 1);
    for (int i = 0; i < 8; ++i) b += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_bytes(std::string& b, std::uint32_t field, std::string_view bytes) {
    tag(b, field, 2);
    varint(b, bytes.size());
    b += bytes;
}

/// The args' names (the JSON output's keys); a name's iid is its Key + 1.
enum class Key : std::uint8_t {
    EventHint,
    FanoutHint,
    FaninHint,
    DurationUs,
    KernelDurationUs,
    LocalSetupUs,
    RowTaskId,
    DispatchTimeUs,
    FinishTimeUs,
    AicpuDurationUs,
    Phase,
    LoopIter,
    TasksProcessed,
    SharedAtStart,
    SharedAtEnd,
    FinishesProcessed,
    FinishRowsAttributed,
    TaskId,
    PredicatedPass,
    SubmitIdx,
    Bytes,
    OuterTaskId,
    VisibleNodeCount,
    VisibleNodeIndexMin,
    VisibleNodeIndexMax,
    PrepareSliceCount,
    PrepareDurationUs,
    ExecutionStartUs,
    ExecutionDurationUs,
    SyntheticIdLayout,
};
constexpr std::array<std::string_view, 30> kKeyName = {
    "event-hint",
    "fanout-hint",
    "fanin-hint",
    "duration-us",
    "kernel-duration-us",
    "local_setup_us",
    "taskId",
    "dispatch-time-us",
    "finish-time-us",
    "aicpu-duration-us",
    "phase",
    "loop_iter",
    "tasks_processed",
    "shared_at_start (aic,aiv,mix)",
    "shared_at_end (aic,aiv,mix)",
    "finishes_processed",
    "finish_rows_attributed",
    "task_id",
    "predicated_pass",
    "submit_idx",
    "bytes",
    "outer_task_id",
    "visible_node_count",
    "visible_node_index_min",
    "visible_node_index_max",
    "prepare_slice_count",
    "prepare_duration_us",
    "execution_start_us",
    "execution_duration_us",
    "synthetic_id_layout",
};

/// The debug annotations of one event, their names interned per trace: a name is queued for the
/// InternedData of the packet that first uses it.
class Annotations {
  public:
    /// The TrackEvent bytes the annotations are appended to.
    void begin(std::string* event) { event_ = event; }

    void integer(Key key, std::int64_t v) {
        start(key);
        put_int(one_, kAnnotationInt, v);
        finish();
    }
    void id(Key key, std::uint64_t v) {
        start(key);
        put_uint(one_, kAnnotationUint, v);
        finish();
    }
    /// Microseconds from integer ns, the same double the JSON output's `2.300` parses to.
    void us(Key key, std::int64_t ns) {
        start(key);
        double value = static_cast<double>(ns) / 1000.0;
        std::uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        put_fixed64(one_, kAnnotationDouble, bits);
        finish();
    }
    void text(Key key, std::string_view v) {
        start(key);
        put_bytes(one_, kAnnotationString, v);
        finish();
    }
    void boolean(Key key, bool v) {
        start(key);
        put_uint(one_, kAnnotationBool, v ? 1 : 0);
        finish();
    }
    /// An array of ints as nested annotations (array_values), as the JSON output's `[0,0,0]`.
    void integers(Key key, std::span<const std::int32_t> values) {
        start(key);
        for (std::int32_t v : values) {
            element_.clear();
            put_int(element_, kAnnotationInt, v);
            put_bytes(one_, kAnnotationArrayValues, element_);
        }
        finish();
    }

    /// Moves the names first used since the last call into `interned` (an InternedData body);
    /// false when there were none.
    bool take_new_names(std::string& interned) {
        if (new_names_.empty()) return false;
        interned.swap(new_names_);
        new_names_.clear();
        return true;
    }

  private:
    void start(Key key) {
        auto k = static_cast<std::size_t>(key);
        if (!sent_[k]) {
            sent_[k] = true;
            entry_.clear();
            put_uint(entry_, kInternedIid, k + 1);
            put_bytes(entry_, kInternedName, kKeyName[k]);
            put_bytes(new_names_, kInternedDebugAnnotationNames, entry_);
        }
        one_.clear();
        put_uint(one_, kAnnotationNameIid, k + 1);
    }
    void finish() { put_bytes(*event_, kEventDebugAnnotations, one_); }

    std::string* event_ = nullptr;
    std::string one_, element_, entry_, new_names_;
    std::array<bool, kKeyName.size()> sent_{};  ///< names already in the sequence's state
};

class ProtoWriter {
  public:
    ProtoWriter(const TraceModel& model, std::ostream& out) : m_(model), out_(out) {}

    void write() {
        descriptors();
        index_flows();
        events();
        flush();
    }

  private:
    void packet(const std::string& body) {
        put_bytes(buf_, kTracePacket, body);
        if (buf_.size() >= (1u << 20)) flush();
    }
    void flush() {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }

    std::uint64_t process_uuid(std::int64_t pid) const {
        return 1'000'000 + static_cast<std::uint64_t>(pid);
    }
    std::uint64_t track_uuid(std::uint32_t track) const { return 2'000'000 + track; }

    void descriptors() {
        bool first = true;
        for (const Process& p : m_.processes) {
            std::string process, track, body;
            put_int(process, kProcessPid, p.pid);
            put_bytes(process, kProcessName, p.name);
            put_uint(track, kTrackUuid, process_uuid(p.pid));
            put_bytes(track, kTrackProcess, process);
            put_uint(body, kPacketSequenceId, kSequenceId);
            if (first) put_uint(body, kPacketSequenceFlags, kIncrementalStateCleared);
            first = false;
            put_bytes(body, kPacketTrackDescriptor, track);
            packet(body);
        }
        for (std::uint32_t i = 0; i < m_.tracks.size(); ++i) {
            const Track& t = m_.tracks[i];
            std::string track, body;
            if (t.is_overhead) {
                std::string counter_track, counter_body;
                put_uint(counter_track, kTrackUuid, counter_uuid(i, 0));
                put_uint(counter_track, kTrackParentUuid, process_uuid(t.pid));
                put_bytes(counter_track, kTrackName, t.name);
                put_bytes(counter_track, kTrackCounter, "");
                put_uint(counter_body, kPacketSequenceId, kSequenceId);
                put_bytes(counter_body, kPacketTrackDescriptor, counter_track);
                packet(counter_body);
                continue;
            }
            if (t.is_counter) {
                // One counter track per depth (AIC, AIV, MIX), as the JSON "C" event's three args.
                for (int j = 0; j < 3; ++j) {
                    static constexpr std::string_view kNames[] = {"shared_ready_queue AIC",
                                                                  "shared_ready_queue AIV",
                                                                  "shared_ready_queue MIX"};
                    std::string counter_track, counter_body;
                    put_uint(counter_track, kTrackUuid, counter_uuid(i, j));
                    put_uint(counter_track, kTrackParentUuid, process_uuid(t.pid));
                    put_bytes(counter_track, kTrackName, kNames[j]);
                    put_bytes(counter_track, kTrackCounter, "");
                    put_uint(counter_body, kPacketSequenceId, kSequenceId);
                    put_bytes(counter_body, kPacketTrackDescriptor, counter_track);
                    packet(counter_body);
                }
                continue;
            }
            std::string thread;
            put_int(thread, kThreadPid, t.pid);
            put_int(thread, kThreadTid, t.tid);
            put_bytes(thread, kThreadName, t.name);
            put_uint(track, kTrackUuid, track_uuid(i));
            put_bytes(track, kTrackThread, thread);
            put_uint(body, kPacketSequenceId, kSequenceId);
            put_bytes(body, kPacketTrackDescriptor, track);
            packet(body);
        }
    }

    std::uint64_t counter_uuid(std::uint32_t track, int j) const {
        return 3'000'000 + 3ull * track + static_cast<std::uint64_t>(j);
    }

    void index_flows() {
        out_flows_.assign(m_.slices.size() + 1, 0);
        in_flows_.assign(m_.slices.size() + 1, 0);
        for (std::size_t id = 0; id < m_.flows.size(); ++id)
            ++out_flows_[m_.flows[id].s_slice + 1], ++in_flows_[m_.flows[id].f_slice + 1];
        for (std::size_t i = 1; i < out_flows_.size(); ++i)
            out_flows_[i] += out_flows_[i - 1], in_flows_[i] += in_flows_[i - 1];
        out_ids_.resize(m_.flows.size());
        in_ids_.resize(m_.flows.size());
        std::vector<std::uint32_t> out_fill(out_flows_.begin(), out_flows_.end() - 1);
        std::vector<std::uint32_t> in_fill(in_flows_.begin(), in_flows_.end() - 1);
        for (std::uint32_t id = 0; id < m_.flows.size(); ++id) {
            // Flow ids are global per trace; +1 keeps them non-zero.
            const Flow& f = m_.flows[id];
            out_ids_[out_fill[f.s_slice]++] = id + 1;
            in_ids_[in_fill[f.f_slice]++] = id + 1;
        }
    }

    std::string_view slice_name(const Slice& s) {
        const TraceSource& src = m_.sources[s.source];
        const Capture& cap = *src.capture;
        switch (s.kind) {
            case SliceKind::WorkerTask:
            case SliceKind::SchedTask:
                return m_.extras[s.source].labels[s.ref];
            case SliceKind::Phase: {
                const SchedulerPhase& p = cap.scheduler_phases[s.ref];
                scratch_ = cap.phase_name(p);
                scratch_ += '(';
                scratch_ += std::to_string(tasks_processed(s));
                scratch_ += ')';
                return scratch_;
            }
            case SliceKind::Marker:
                scratch_ = marker_label(s);
                return scratch_;
            case SliceKind::Orch: {
                const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
                scratch_ = p.phase.starts_with("orch_") ? p.phase.substr(5) : p.phase;
                scratch_ += '(';
                scratch_ += p.task_id >= 0 ? task_display(static_cast<std::uint64_t>(p.task_id))
                                           : std::to_string(p.submit_idx);
                scratch_ += ')';
                return scratch_;
            }
            case SliceKind::Upload:
                return cap.host.uploads[s.ref].phase;
            case SliceKind::Graph: {
                const GraphInstance& g = m_.extras[s.source].graphs[s.ref];
                scratch_ = graph_label(g);
                return scratch_;
            }
            case SliceKind::Alloc:
                scratch_ = "alloc(" +
                           task_display(
                               static_cast<std::uint64_t>(cap.orchestrator_phases[s.ref].task_id)) +
                           ")";
                return scratch_;
        }
        return "slice";
    }

    /// A scheduler phase's task count as the JSON output shows it: the record's, else (a complete
    /// without one) the rows whose finish falls inside it.
    std::int64_t tasks_processed(const Slice& s) const {
        const SchedulerPhase& p = m_.sources[s.source].capture->scheduler_phases[s.ref];
        if (p.tasks_processed >= 0) return p.tasks_processed;
        return p.kind == PhaseKind::Complete ? m_.extras[s.source].finish_rows[s.ref] : 0;
    }

    /// `dummy(r1t4)`, or for a predicated skip the task's own label (its first active kernel in
    /// deps.json), as in the JSON output.
    std::string marker_label(const Slice& s) const {
        const TraceSource& src = m_.sources[s.source];
        const SchedulerPhase& p = src.capture->scheduler_phases[s.ref];
        auto id = static_cast<std::uint64_t>(std::max<std::int64_t>(p.task_id, 0));
        if (p.kind == PhaseKind::DummyTask) return "dummy(" + task_display(id) + ")";
        std::int32_t func_id = -1;
        if (src.deps)
            if (const DepsTask* task = src.deps->tasks.find(id))
                for (std::int32_t k : task->kernel_ids)
                    if (k >= 0) {
                        func_id = k;
                        break;
                    }
        return kernel_base_name(func_id, src.names) + "(" + task_display(id) + ")";
    }

    /// The `"event-hint"` of a task row: `Task:r1t1, FuncId:0, CoreId:0`.
    std::string_view event_hint(const TaskRow& row) {
        hint_.clear();
        fmt::format_to(std::back_inserter(hint_), "Task:{}, FuncId:{}, CoreId:{}",
                       task_display(row.task_id), row.func_id, row.core_id);
        return hint_;
    }

    /// The JSON output's args of a slice, as debug annotations (same keys, values and order).
    void args(const Slice& s, std::string& event) {
        const TraceSource& src = m_.sources[s.source];
        const Capture& cap = *src.capture;
        const SourceExtras& extras = m_.extras[s.source];
        Annotations& a = annotations_;
        a.begin(&event);
        switch (s.kind) {
            case SliceKind::WorkerTask: {
                const TaskRow& row = cap.tasks[s.ref];
                std::uint32_t task = extras.row_task[s.ref];
                a.text(Key::EventHint, event_hint(row));
                a.text(Key::FanoutHint, extras.fanout_hints[task]);
                a.text(Key::FaninHint, extras.fanin_hints[task]);
                a.us(Key::DurationUs, row.end_ns - row.receive_ns);
                a.us(Key::KernelDurationUs, row.end_ns - row.start_ns);
                a.us(Key::LocalSetupUs, row.start_ns - row.receive_ns);
                a.id(Key::RowTaskId, row.task_id);
                break;
            }
            case SliceKind::SchedTask: {
                const TaskRow& row = cap.tasks[s.ref];
                a.text(Key::EventHint, event_hint(row));
                a.us(Key::DispatchTimeUs, s.ts);
                a.us(Key::FinishTimeUs, s.ts + s.dur);
                a.us(Key::AicpuDurationUs, row.finish_ns - row.dispatch_ns);
                a.id(Key::RowTaskId, row.task_id);
                break;
            }
            case SliceKind::Phase: {
                const SchedulerPhase& p = cap.scheduler_phases[s.ref];
                std::int64_t count = tasks_processed(s);
                a.text(Key::Phase, cap.phase_name(p));
                a.integer(Key::LoopIter, p.loop_iter);
                a.integer(Key::TasksProcessed, count);
                if (p.has_depths) {
                    a.integers(Key::SharedAtStart, p.shared_at_start);
                    a.integers(Key::SharedAtEnd, p.shared_at_end);
                }
                if (p.kind == PhaseKind::Complete) {
                    a.integer(Key::FinishesProcessed, count);
                    a.integer(Key::FinishRowsAttributed, extras.finish_rows[s.ref]);
                }
                break;
            }
            case SliceKind::Marker: {
                const SchedulerPhase& p = cap.scheduler_phases[s.ref];
                a.integer(Key::LoopIter, p.loop_iter);
                a.integer(Key::TaskId, p.task_id);
                a.text(Key::EventHint, marker_label(s));
                if (p.kind == PhaseKind::DummyTask)
                    a.text(Key::Phase, "dummy_task");
                else
                    a.boolean(Key::PredicatedPass, false);
                break;
            }
            case SliceKind::Orch: {
                const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
                a.text(Key::Phase, p.phase);
                a.integer(Key::SubmitIdx, p.submit_idx);
                a.integer(Key::TaskId, p.task_id);
                break;
            }
            case SliceKind::Upload:
                a.integer(Key::Bytes, cap.host.uploads[s.ref].bytes);
                break;
            case SliceKind::Graph: {
                const GraphInstance& g = extras.graphs[s.ref];
                a.id(Key::OuterTaskId, g.outer_task_id);
                a.integer(Key::VisibleNodeCount, g.node_count);
                a.integer(Key::VisibleNodeIndexMin, g.node_min);
                a.integer(Key::VisibleNodeIndexMax, g.node_max);
                a.integer(Key::PrepareSliceCount, g.prepare_count);
                a.us(Key::PrepareDurationUs, g.prepare_total_ns);
                a.us(Key::ExecutionStartUs, g.exec_start_ns + m_.offsets_ns[s.source]);
                a.us(Key::ExecutionDurationUs, g.exec_end_ns - g.exec_start_ns);
                a.text(Key::SyntheticIdLayout, "ring1:(outer_task_id << 10) | node_index");
                break;
            }
            case SliceKind::Alloc: {
                const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
                a.text(Key::Phase, "alloc");
                a.integer(Key::TaskId, p.task_id);
                a.text(Key::EventHint,
                       "alloc(" + task_display(static_cast<std::uint64_t>(p.task_id)) + ")");
                break;
            }
        }
    }

    static std::string_view category(SliceKind kind) {
        switch (kind) {
            case SliceKind::Phase:
                return "scheduler";
            case SliceKind::Orch:
                return "orchestrator";
            case SliceKind::Upload:
                return "host_h2d";
            case SliceKind::Graph:
                return "graph_execution";
            default:
                return "event";
        }
    }

    /// BEGIN/END/counter packets in time order; at one instant ENDs come first, then BEGINs
    /// (longer first), then counters. Three streams, each ordered by a radix sort, merged.
    void events() {
        const auto& slices = m_.slices;
        const auto& counters = m_.counters;
        enum : int { kEnd, kBegin, kCounter };
        std::vector<std::uint32_t> order[3];
        order[kEnd] = identity(slices.size());
        stable_order(order[kEnd],
                     [&](std::uint32_t i) { return time_key(slices[i].ts + slices[i].dur); });
        order[kBegin] = identity(slices.size());
        stable_order(
            order[kBegin], [&](std::uint32_t i) { return time_key(slices[i].ts); },
            longer_first(slices));
        order[kCounter] = identity(counters.size());
        stable_order(order[kCounter], [&](std::uint32_t i) { return time_key(counters[i].ts); });
        auto ts_of = [&](int type, std::uint32_t i) {
            return type == kCounter ? counters[i].ts
                   : type == kBegin ? slices[i].ts
                                    : slices[i].ts + slices[i].dur;
        };
        std::size_t at[3] = {0, 0, 0};
        std::int64_t head[3];
        constexpr std::int64_t kDone = std::numeric_limits<std::int64_t>::max();
        // Time order is not memory order: each stream fetches its record kAhead packets early
        // (and a BEGIN's flow ranges), as the JSON writer does.
        constexpr std::size_t kAhead = 16;
        auto advance = [&](int type) {
            head[type] = at[type] < order[type].size() ? ts_of(type, order[type][at[type]]) : kDone;
            if (std::size_t far = at[type] + kAhead; far < order[type].size()) {
                std::uint32_t i = order[type][far];
                if (type == kCounter) {
                    __builtin_prefetch(&counters[i]);
                } else {
                    __builtin_prefetch(&slices[i]);
                    if (type == kBegin) {
                        __builtin_prefetch(&out_flows_[i]);
                        __builtin_prefetch(&in_flows_[i]);
                    }
                }
            }
        };
        for (int type = 0; type < 3; ++type) advance(type);
        struct Ev {
            std::int64_t ts;
            std::uint32_t index;
            int type;
        };
        std::string event, body;
        for (;;) {
            int next = 0;
            for (int type = 1; type < 3; ++type)
                if (head[type] < head[next]) next = type;
            if (head[next] == kDone) break;
            Ev e{head[next], order[next][at[next]++], next};
            advance(next);
            event.clear();
            body.clear();
            if (e.type == kCounter) {
                const Counter& c = m_.counters[e.index];
                if (m_.tracks[c.track].is_overhead) {
                    put_uint(event, kEventType, kCounterEvent);
                    put_uint(event, kEventTrackUuid, counter_uuid(c.track, 0));
                    put_int(event, kEventCounterValue, c.value);
                    timestamped(body, e.ts, event);
                    continue;
                }
                const SchedulerPhase& p = m_.sources[c.source].capture->scheduler_phases[c.ref];
                for (int j = 0; j < 3; ++j) {
                    event.clear();
                    body.clear();
                    put_uint(event, kEventType, kCounterEvent);
                    put_uint(event, kEventTrackUuid, counter_uuid(c.track, j));
                    put_int(event, kEventCounterValue,
                            p.shared_at_end[static_cast<std::size_t>(j)]);
                    timestamped(body, e.ts, event);
                }
                continue;
            }
            const Slice& s = m_.slices[e.index];
            put_uint(event, kEventType, e.type == kBegin ? kSliceBegin : kSliceEnd);
            put_uint(event, kEventTrackUuid, track_uuid(s.track));
            if (e.type == kBegin) {
                put_bytes(event, kEventCategories, category(s.kind));
                put_bytes(event, kEventName, slice_name(s));
                for (std::uint32_t k = out_flows_[e.index]; k < out_flows_[e.index + 1]; ++k)
                    put_fixed64(event, kEventFlowIds, out_ids_[k]);
                for (std::uint32_t k = in_flows_[e.index]; k < in_flows_[e.index + 1]; ++k)
                    put_fixed64(event, kEventTerminatingFlowIds, in_ids_[k]);
                args(s, event);
                timestamped(body, e.ts, event, true);
                continue;
            }
            timestamped(body, e.ts, event);
        }
    }

    /// One TrackEvent packet; `interned` when the event refers to interned annotation names
    /// (the packet then carries the names new so far and says it needs the sequence's state).
    void timestamped(std::string& body, std::int64_t ts, const std::string& event,
                     bool interned = false) {
        put_uint(body, kPacketTimestamp, static_cast<std::uint64_t>(std::max<std::int64_t>(ts, 0)));
        put_uint(body, kPacketSequenceId, kSequenceId);
        if (interned) {
            put_uint(body, kPacketSequenceFlags, kNeedsIncrementalState);
            if (annotations_.take_new_names(names_)) put_bytes(body, kPacketInternedData, names_);
        }
        put_bytes(body, kPacketTrackEvent, event);
        packet(body);
    }

    const TraceModel& m_;
    std::ostream& out_;
    std::string buf_;
    std::string scratch_, hint_, names_;
    Annotations annotations_;
    std::vector<std::uint32_t> out_flows_, in_flows_;
    std::vector<std::uint32_t> out_ids_, in_ids_;  ///< flow ids (index + 1) per slice
};

}  // namespace

void write_proto(const TraceModel& model, std::ostream& out) {
    ProtoWriter(model, out).write();
}

}  // namespace ptune::swimlane::detail
