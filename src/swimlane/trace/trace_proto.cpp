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
#include "trace_args.hpp"
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

/// The debug annotations of one event, their names interned per trace: a name is queued for the
/// InternedData of the packet that first uses it.
class Annotations {
  public:
    /// The TrackEvent bytes the annotations are appended to.
    void begin(std::string* event) { event_ = event; }

    // The sink of visit_slice_args: one DebugAnnotation per arg.
    void operator()(ArgKey key, arg::Int v) {
        start(key);
        put_int(one_, kAnnotationInt, v.value);
        finish();
    }
    void operator()(ArgKey key, arg::Uint v) {
        start(key);
        put_uint(one_, kAnnotationUint, v.value);
        finish();
    }
    /// Microseconds from integer ns, the same double the JSON output's `2.300` parses to.
    void operator()(ArgKey key, arg::Micros v) {
        start(key);
        double value = static_cast<double>(v.ns) / 1000.0;
        std::uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        put_fixed64(one_, kAnnotationDouble, bits);
        finish();
    }
    void operator()(ArgKey key, arg::Text v) { text(key, v.value); }
    void operator()(ArgKey key, arg::PlainText v) { text(key, v.value); }
    void operator()(ArgKey key, arg::Bool v) {
        start(key);
        put_uint(one_, kAnnotationBool, v.value ? 1 : 0);
        finish();
    }
    /// An array of ints as nested annotations (array_values), as the JSON output's `[0,0,0]`.
    void operator()(ArgKey key, arg::Depths v) {
        start(key);
        for (std::int32_t depth : v.values) {
            element_.clear();
            put_int(element_, kAnnotationInt, depth);
            put_bytes(one_, kAnnotationArrayValues, element_);
        }
        finish();
    }
    void operator()(ArgKey key, arg::TaskHint v) {
        hint_.clear();
        fmt::format_to(std::back_inserter(hint_), "Task:{}, FuncId:{}, CoreId:{}",
                       task_display(v.row.task_id, v.labels), v.row.func_id, v.row.core_id);
        text(key, hint_);
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
    void text(ArgKey key, std::string_view v) {
        start(key);
        put_bytes(one_, kAnnotationString, v);
        finish();
    }
    void start(ArgKey key) {
        auto k = static_cast<std::size_t>(key);
        if (!sent_[k]) {
            sent_[k] = true;
            entry_.clear();
            put_uint(entry_, kInternedIid, k + 1);
            put_bytes(entry_, kInternedName, kArgKeyName[k]);
            put_bytes(new_names_, kInternedDebugAnnotationNames, entry_);
        }
        one_.clear();
        put_uint(one_, kAnnotationNameIid, k + 1);
    }
    void finish() { put_bytes(*event_, kEventDebugAnnotations, one_); }

    std::string* event_ = nullptr;
    std::string one_, element_, entry_, new_names_, hint_;
    std::array<bool, kArgKeyName.size()> sent_{};  ///< names already in the sequence's state
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
                    put_int(event, kEventCounterValue, c.value());
                    timestamped(body, e.ts, event);
                    continue;
                }
                const SchedulerPhase& p =
                    m_.sources[m_.tracks[c.track].source].capture->scheduler_phases[c.ref];
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
                std::string_view name = slice_name(m_, s, scratch_);
                put_bytes(event, kEventCategories, slice_category(m_, s));
                put_bytes(event, kEventName, name);
                for (std::uint32_t k = out_flows_[e.index]; k < out_flows_[e.index + 1]; ++k)
                    put_fixed64(event, kEventFlowIds, out_ids_[k]);
                for (std::uint32_t k = in_flows_[e.index]; k < in_flows_[e.index + 1]; ++k)
                    put_fixed64(event, kEventTerminatingFlowIds, in_ids_[k]);
                annotations_.begin(&event);
                visit_slice_args(m_, s, name, annotations_);
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
    std::string scratch_, names_;
    Annotations annotations_;
    std::vector<std::uint32_t> out_flows_, in_flows_;
    std::vector<std::uint32_t> out_ids_, in_ids_;  ///< flow ids (index + 1) per slice
};

}  // namespace

void write_proto(const TraceModel& model, std::ostream& out) {
    ProtoWriter(model, out).write();
}

}  // namespace ptune::swimlane::detail
