// Chrome-trace JSON rendering of the trace layout: metadata first, then every slice, counter and
// flow end sorted by (ts, kind, longer first); times printed exactly from integer ns; one event
// per line, streamed through a buffer; provenance in "otherData".

#include <array>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "background_buf.hpp"
#include "json_sink.hpp"
#include "ptune/core/threads.hpp"

namespace ptune::swimlane::detail::json_out {

// (No anonymous namespace: JsonWriter's lambdas capture these types, which GCC flags with
// -Wsubobject-linkage where the unity build includes this file.)

/// Runs `helper` on a second thread while this one runs `main`. When either throws, `stop` tells
/// the other to finish early, and the exception is rethrown here once both are done.
template <class Helper, class Main, class Stop>
void on_two_threads(Helper&& helper, Main&& main, Stop&& stop) {
    std::exception_ptr helper_failed;
    std::thread thread = threads::thread_beside([&] {
        try {
            helper();
        } catch (...) {
            helper_failed = std::current_exception();
            stop();
        }
    });
    try {
        main();
    } catch (...) {
        stop();
        thread.join();
        throw;
    }
    thread.join();
    if (helper_failed) std::rethrow_exception(helper_failed);
}

/// What an event is: EventMerge's groups of streams, in the order events at one instant come.
enum EventKind : std::uint8_t { kSliceEvent, kCounterEvent, kFlowStart, kFlowEnd, kKinds };

/// One event of the output: its kind and its index in the model's slices, counters or flows.
struct EventRef {
    std::uint32_t index;
    EventKind kind;
};

/// Every slice, counter and flow end in (ts, kind, longer first, creation order), a batch at a
/// time. Each kind is cut into streams, consecutive ranges of its indices, sorted on their own
/// (slices by (ts, -dur), the others by ts) and merged: the kinds never interleave at one
/// instant, and within a kind a tie goes to the longer slice, then to the lower stream (the
/// lower index). From `parallel_from` events on, the streams are sorted on two threads. A
/// sort's scratch is 8 bytes an item, and the streams are small (an eighth of one kind of flow
/// ends, a quarter of the slices) so that the two threads' scratches together are what one
/// thread's was with larger streams: the peak of the run is here (all the orders, 4 bytes an
/// item, and the scratches).
class EventMerge {
  public:
    EventMerge(const TraceModel& model, std::size_t parallel_from) : m_(model) {
        // The orders and each thread's scratch are made here, before the sorts, where this
        // thread's holes can take them (before the process kept one heap for every thread,
        // main.cpp, the orders the helper made in its own heap raised the run's peak by 1.1 MB
        // at 20K tasks).
        std::size_t largest = 0;
        for (int stream = 0; stream < kStreams; ++stream) {
            auto [begin, end] = part(stream);
            order_[stream].resize(end - begin);
            largest = std::max<std::size_t>(largest, end - begin);
            size_ += end - begin;
        }
        // Streams go to whichever thread is free.
        std::atomic<int> queued = 0;
        auto sort_queued = [&](std::vector<std::uint64_t>& items) {
            for (int stream; (stream = queued++) < kStreams;) sort_stream(stream, items);
        };
        std::vector<std::uint64_t> items, helper_items;
        items.reserve(largest);
        if (size_ < parallel_from) {
            sort_queued(items);
        } else {
            helper_items.reserve(largest);
            on_two_threads([&] { sort_queued(helper_items); }, [&] { sort_queued(items); },
                           [&] { queued = kStreams; });
        }
        for (int stream = 0; stream < kStreams; ++stream)
            with_kind(kind_of(stream), [&](auto k) { advance<k()>(stream); });
        for (int kind = 0; kind < kKinds; ++kind)
            with_kind(static_cast<EventKind>(kind), [&](auto k) { choose_best<k()>(); });
    }

    /// Events in all.
    std::size_t size() const { return size_; }

    /// The next `limit` events (fewer at the end) into `batch`; false when none are left.
    bool next(std::vector<EventRef>& batch, std::size_t limit) {
        batch.clear();
        while (batch.size() < limit) {
            int kind = kSliceEvent;  // (kinds in order, so a tie goes to the lower one)
            for (int other = kCounterEvent; other < kKinds; ++other)
                if (kind_head_[other] < kind_head_[kind]) kind = other;
            if (kind_head_[kind] == kDone) break;
            const int stream = best_[kind];
            batch.push_back({order_[stream][at_[stream]++], static_cast<EventKind>(kind)});
            with_kind(static_cast<EventKind>(kind), [&](auto k) { pass<k()>(stream); });
        }
        return !batch.empty();
    }

  private:
    static constexpr std::int64_t kDone = std::numeric_limits<std::int64_t>::max();
    /// Streams of each kind, and where each kind's streams begin.
    static constexpr int kParts[kKinds] = {4, 2, 8, 8};
    static constexpr int kFirst[kKinds + 1] = {0, 4, 6, 14, 22};
    static constexpr int kStreams = kFirst[kKinds];

    static constexpr EventKind kind_of(int stream) {
        return stream < kFirst[1]   ? kSliceEvent
               : stream < kFirst[2] ? kCounterEvent
               : stream < kFirst[3] ? kFlowStart
                                    : kFlowEnd;
    }

    /// The indices [begin, end) of a stream's slices, counters or flows.
    std::pair<std::uint32_t, std::uint32_t> part(int stream) const {
        const EventKind kind = kind_of(stream);
        const std::size_t count = kind == kSliceEvent     ? m_.slices.size()
                                  : kind == kCounterEvent ? m_.counters.size()
                                                          : m_.flows.size();
        const auto p = static_cast<std::size_t>(stream - kFirst[kind]);
        const auto parts = static_cast<std::size_t>(kParts[kind]);
        return {static_cast<std::uint32_t>(count * p / parts),
                static_cast<std::uint32_t>(count * (p + 1) / parts)};
    }

    void sort_stream(int stream, std::vector<std::uint64_t>& items) {
        const std::uint32_t begin = part(stream).first;
        auto& order = order_[stream];  // (sized by the constructor)
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = begin + i;
        switch (const EventKind kind = kind_of(stream)) {
            case kSliceEvent:
                stable_order(
                    order, [&](std::uint32_t i) { return time_key(m_.slices[i].ts); },
                    longer_first(m_.slices), &items);
                break;
            case kCounterEvent:
                stable_order(
                    order, [&](std::uint32_t i) { return time_key(m_.counters[i].ts); }, KeepTies{},
                    &items);
                break;
            default: {
                // A flow's time is an offset into its slice, so the key reads the slice too:
                // the keys are read in flow order, and the slice of the flow kAhead on is
                // fetched meanwhile, since slices are not in flow order and a large trace's are
                // far beyond the cache.
                const bool start = kind == kFlowStart;
                auto flow_key = [&](std::uint32_t i) {
                    constexpr std::uint32_t kAhead = 16;
                    if (i + kAhead < m_.flows.size())
                        __builtin_prefetch(&m_.slices[m_.flows[i + kAhead].slice(start)]);
                    return time_key(m_.flow_ts(i, start));
                };
                stable_order(order, flow_key, KeepTies{}, &items);
            }
        }
    }

    std::int64_t ts_of(EventKind kind, std::uint32_t i) const {
        switch (kind) {
            case kSliceEvent:
                return m_.slices[i].ts;
            case kCounterEvent:
                return m_.counters[i].ts;
            default:
                return m_.flow_ts(i, kind == kFlowStart);
        }
    }

    /// Calls `f` with `kind` as a compile-time constant (std::integral_constant): the loop over
    /// events then has a branch less for each choice a kind makes (the merge ~12 % faster).
    template <class F>
    static void with_kind(EventKind kind, F&& f) {
        switch (kind) {
            case kSliceEvent:
                return f(std::integral_constant<EventKind, kSliceEvent>{});
            case kCounterEvent:
                return f(std::integral_constant<EventKind, kCounterEvent>{});
            case kFlowStart:
                return f(std::integral_constant<EventKind, kFlowStart>{});
            default:
                return f(std::integral_constant<EventKind, kFlowEnd>{});
        }
    }

    /// Past the head of `stream`, of kind `Kind`.
    template <EventKind Kind>
    void pass(int stream) {
        advance<Kind>(stream);
        choose_best<Kind>();
    }

    /// Each stream's head time is cached, so merging reads one record per event; the record
    /// kAhead events on is fetched early, and half-way there a flow's slice (time order is not
    /// memory order).
    template <EventKind Kind>
    void advance(int stream) {
        const auto& order = order_[stream];
        const std::size_t at = at_[stream];
        head_[stream] = at < order.size() ? ts_of(Kind, order[at]) : kDone;
        constexpr std::size_t kAhead = 16;
        if (at + kAhead < order.size()) {
            std::uint32_t i = order[at + kAhead];
            __builtin_prefetch(Kind == kSliceEvent     ? static_cast<const void*>(&m_.slices[i])
                               : Kind == kCounterEvent ? static_cast<const void*>(&m_.counters[i])
                                                       : static_cast<const void*>(&m_.flows[i]));
        }
        if (Kind >= kFlowStart && at + kAhead / 2 < order.size())
            __builtin_prefetch(
                &m_.slices[m_.flows[order[at + kAhead / 2]].slice(Kind == kFlowStart)]);
    }

    /// The stream of `Kind` whose head comes first: the earliest, at one time the longer slice,
    /// then the lower stream. Kept between events and found again only for the kind an event
    /// came from.
    template <EventKind Kind>
    void choose_best() {
        int best = kFirst[Kind];
        for (int stream = best + 1; stream < kFirst[Kind + 1]; ++stream) {
            if (head_[stream] > head_[best]) continue;
            if (head_[stream] < head_[best] || (Kind == kSliceEvent && head_[stream] != kDone &&
                                                m_.slices[order_[stream][at_[stream]]].dur >
                                                    m_.slices[order_[best][at_[best]]].dur))
                best = stream;
        }
        best_[Kind] = best;
        kind_head_[Kind] = head_[best];
    }

    const TraceModel& m_;
    std::vector<std::uint32_t> order_[kStreams];
    std::size_t at_[kStreams] = {};
    std::int64_t head_[kStreams] = {};
    int best_[kKinds] = {};
    std::int64_t kind_head_[kKinds] = {};  ///< head_[best_[kind]]
    std::size_t size_ = 0;
};

struct Piece;
class PieceWriter;

class JsonWriter {
  public:
    JsonWriter(const TraceModel& model, std::ostream& out)
        : m_(model), out_stream_(out), out_(out) {
        // `,"pid":P,"tid":T` of every track, rendered once: every event names its track.
        track_keys_.reserve(m_.tracks.size());
        for (const Track& t : m_.tracks)
            track_keys_.push_back(
                Block(",\"pid\":" + std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid)));
        for (std::size_t name = 0; name < kFlowNames; ++name)
            for (bool start : {false, true})
                flow_heads_[name * 2 + start] =
                    Block("{\"name\":\"" + std::string(flow_name(static_cast<FlowName>(name))) +
                          (start ? R"(","cat":"flow","ph":"s","id":)"
                                 : R"(","cat":"flow","ph":"f","id":)"));
    }

    /// The whole trace.
    void write(const JsonRender& how) {
        out_.lit("{\"traceEvents\":[\n");
        for (const Process& p : m_.processes) {
            begin_event();
            out_.lit(R"({"name":"process_name","cat":"__metadata","ph":"M","pid":)");
            out_.integer(p.pid);
            out_.lit(R"(,"args":{"name":)");
            out_.string(p.name);
            out_.lit("}}");
            begin_event();
            out_.lit(R"({"name":"process_sort_index","cat":"__metadata","ph":"M","pid":)");
            out_.integer(p.pid);
            out_.lit(R"(,"args":{"sort_index":)");
            out_.integer(p.sort_index);
            out_.lit("}}");
        }
        for (const Track& t : m_.tracks) {
            if (t.is_overhead) continue;  // upstream names no overhead track (a bare counter)
            begin_event();
            out_.lit(R"({"name":"thread_name","cat":"__metadata","ph":"M","pid":)");
            pid_tid(t);
            out_.lit(R"(,"args":{"name":)");
            out_.string(t.name);
            out_.lit("}}");
            if (t.sort_index >= 0) {
                begin_event();
                out_.lit(R"({"name":"thread_sort_index","cat":"__metadata","ph":"M","pid":)");
                pid_tid(t);
                out_.lit(R"(,"args":{"sort_index":)");
                out_.integer(t.sort_index);
                out_.lit("}}");
            }
        }
        events(how);
        out_.lit("\n],\n\"otherData\":");
        out_.text(provenance().dump());
        // Upstream's top-level "metadata" of a host-orchestration trace (§5.7), for tools that
        // read it; with several captures each one's is in otherData.
        if (m_.multi_rank) {
            out_.lit(",\n\"metadata\":");
            out_.text(m_.multi_rank->metadata_json);
        } else if (m_.sources.size() == 1 && m_.sources[0].capture->september()) {
            out_.lit(",\n\"metadata\":");
            out_.text(september_metadata(*m_.sources[0].capture).dump());
        } else if (m_.sources.size() == 1 && m_.sources[0].capture->host_orchestration) {
            out_.lit(",\n\"metadata\":");
            out_.text(host_metadata(*m_.sources[0].capture).dump());
        }
        out_.lit("}\n");
        out_.flush();
    }

  private:
    /// Every event after the metadata, a batch at a time (EventMerge). With `two_threads`, two
    /// threads render batches into memory (Piece) and the pieces are written to the stream in
    /// the order their batches were taken, the write system calls too: rendering a 100 MB trace
    /// is most of a run, and the second core would otherwise only write.
    void events(const JsonRender& how);
    friend struct Piece;
    friend class PieceWriter;

    /// One batch of events, each record and what it points at fetched a few events early
    /// (time order is not memory order: a large trace would wait for memory at every event).
    void render_batch(std::span<const EventRef> batch) {
        constexpr std::size_t kAhead = 8;
        for (std::size_t j = 0; j < batch.size(); ++j) {
            if (j + kAhead < batch.size()) prefetch_target(batch[j + kAhead]);
            const EventRef event = batch[j];
            switch (event.kind) {  // (flows and samples write their separator themselves)
                case kSliceEvent:
                    begin_event();
                    slice(m_.slices[event.index]);
                    break;
                case kCounterEvent:
                    counter(m_.counters[event.index]);
                    break;
                default:
                    flow(event.index, event.kind == kFlowStart);
            }
        }
    }

    /// What rendering `event` reads beside its record: a flow's slice, a task slice's row and
    /// label.
    void prefetch_target(EventRef event) const {
        if (event.kind >= kFlowStart) {
            __builtin_prefetch(&m_.slices[m_.flows[event.index].slice(event.kind == kFlowStart)]);
        } else if (event.kind == kSliceEvent) {
            const Slice& s = m_.slices[event.index];
            if (s.kind == SliceKind::WorkerTask || s.kind == SliceKind::SchedTask) {
                __builtin_prefetch(&m_.sources[s.source].capture->tasks[s.ref]);
                __builtin_prefetch(m_.extras[s.source].labels[s.ref].data());
            }
        }
    }

    void begin_event() { out_.commit(begin_event(out_.reserve(2))); }
    /// The separator before an event (none before the first) at `at`; returns its end.
    char* begin_event(char* at) {
        if (first_) {
            first_ = false;
            return at;
        }
        return put::lit(at, ",\n");
    }

    void pid_tid(const Track& t) {
        out_.integer(t.pid);
        out_.lit(",\"tid\":");
        out_.integer(t.tid);
    }
    /// `,"pid":P,"tid":T` of a track.
    void track_key(std::uint32_t track) { out_.commit(track_key(out_.reserve(64), track)); }
    /// The same at `at` (64 bytes of room); returns its end.
    char* track_key(char* at, std::uint32_t track) const {
        return put::prefix(at, track_keys_[track].text, track_keys_[track].size);
    }

    template <std::size_t N>
    void key_us(const char (&key)[N], std::int64_t ns) {
        out_.lit(key);
        out_.us(ns);
    }

    /// `,"cat":…,"ph":"X","pid":…,"tid":…,"ts":…,"dur":…[,"id":…]` after the slice's name.
    void head(std::string_view cat, const Slice& s) {
        const bool long_cat = cat.size() > Sink::kMaxReserve - 256;  // (never: a few words)
        if (long_cat) {
            out_.lit(",\"cat\":\"");
            out_.text(cat);
            out_.ch('"');
        }
        // Through one reservation (put::), as a flow.
        char* at = out_.reserve(256 + (long_cat ? 0 : cat.size()));
        if (!long_cat) {
            at = put::lit(at, ",\"cat\":\"");
            std::memcpy(at, cat.data(), cat.size());
            at = put::lit(at + cat.size(), "\"");
        }
        at = put::lit(at, ",\"ph\":\"X\"");
        at = track_key(at, s.track);
        at = put::us(put::lit(at, ",\"ts\":"), s.ts);
        at = put::us(put::lit(at, ",\"dur\":"), s.dur);
        if (s.id != kNone) at = id(put::lit(at, ",\"id\":"), s, s.id);
        out_.commit(at);
    }
    /// An event id: the number, or in a multi-rank trace the string `"r<rank>:<id>"` of the
    /// rank the slice belongs to, so that ids of different ranks never collide (§1.14).
    /// Written at `at` (at most 44 bytes); returns its end.
    [[gnu::always_inline]] char* id(char* at, const Slice& s, std::uint32_t value) const {
        if (!m_.multi_rank) return put::unsigned_integer(at, value);
        at = put::lit(at, "\"r");
        at = put::integer(at, m_.multi_rank->ranks.at(s.source));
        *at++ = ':';
        at = put::unsigned_integer(at, value);
        *at++ = '"';
        return at;
    }
    /// `{"name":"…"` (escaped).
    void name(std::string_view text) {
        out_.lit("{\"name\":");
        out_.string(text);
    }

    /// One slice: its name, head, colour and args, `{"name":…,"cat":…,…,"args":{…}}`.
    void slice(const Slice& s) {
        std::string_view label = slice_name(m_, s, scratch_);
        name(label);
        head(slice_category(m_, s), s);
        colour(s);
        args(s, label);
    }

    /// `,"cname":"…"`: the colour upstream gives the slice (task rows and markers have none).
    void colour(const Slice& s) {
        const Capture& cap = *m_.sources[s.source].capture;
        std::string_view cname;
        switch (s.kind) {
            case SliceKind::Phase:
                cname = phase_colour(cap.scheduler_phases[s.ref].kind);
                break;
            case SliceKind::Orch:
                cname = orch_colour(cap.phase_name(cap.orchestrator_phases[s.ref]));
                break;
            case SliceKind::Upload:
                cname = "thread_state_iowait";
                break;
            case SliceKind::Graph:
                cname = "rail_animation";
                break;
            case SliceKind::Alloc:
                cname = "olive";
                break;
            default:
                return;
        }
        out_.lit(",\"cname\":\"");
        out_.text(cname);
        out_.ch('"');
    }

    /// `,"args":{…}}`, closing the event.
    void args(const Slice& s, std::string_view label) {
        out_.lit(",\"args\":");
        if (s.kind == SliceKind::Layout) {  // made by the multi-rank layout, already JSON
            out_.text(m_.multi_rank->slices[s.ref].args_json);
            out_.ch('}');
            return;
        }
        JsonArgs sink(out_);
        visit_slice_args(m_, s, label, sink);
        out_.lit("}}");
    }

    void counter(const Counter& c) {
        if (const Track& t = m_.tracks[c.track]; t.is_overhead) {
            begin_event();
            // {"name":"oh_aic_idle","cat":"overhead","ph":"C",…,"args":{"oh_aic_idle":2}}
            out_.lit("{\"name\":\"");
            out_.text(t.name);
            out_.lit(R"(","cat":"overhead","ph":"C")");
            track_key(c.track);
            key_us(",\"ts\":", c.ts);
            out_.lit(",\"args\":{\"");
            out_.text(t.name);
            out_.lit("\":");
            out_.integer(c.value());
            out_.lit("}}");
            return;
        }
        const SchedulerPhase& p =
            m_.sources[m_.tracks[c.track].source].capture->scheduler_phases[c.ref];
        // Written through one reservation (put::): the whole sample is bounded.
        char* at = begin_event(out_.reserve(kMaxBoundedEvent));
        at = put::lit(at, R"({"name":"shared_ready_queue","cat":"queue","ph":"C")");
        at = track_key(at, c.track);
        at = put::us(put::lit(at, ",\"ts\":"), c.ts);
        at = put::integer(put::lit(at, R"(,"args":{"AIC":)"), p.shared_at_end[0]);
        at = put::integer(put::lit(at, ",\"AIV\":"), p.shared_at_end[1]);
        at = put::integer(put::lit(at, ",\"MIX\":"), p.shared_at_end[2]);
        out_.commit(put::lit(at, "}}"));
    }

    /// Room for a flow end or a ready-queue sample with its separator: two 64-byte blocks, two
    /// ids of 44 bytes, a time of 21, a few integers of 20 and the keys come to under 400.
    static constexpr std::size_t kMaxBoundedEvent = 512;

    /// One arrow end, through one reservation (put::): every part of it is bounded.
    void flow(std::uint32_t index, bool start) {
        const Flow& f = m_.flows[index];
        const Slice& s = m_.slices[f.slice(start)];
        const Block& head = flow_heads_[static_cast<std::size_t>(f.name()) * 2 + start];
        char* at = begin_event(out_.reserve(kMaxBoundedEvent));
        at = id(put::prefix(at, head.text, head.size), s, index);
        at = track_key(at, s.track);
        at = put::us(put::lit(at, ",\"ts\":"), m_.flow_ts(index, start));
        if (!start) at = put::lit(at, ",\"bp\":\"e\"");
        if (s.id != kNone) at = id(put::lit(at, ",\"bind_id\":"), s, s.id);
        // Only dependency arrows can have fan counts: the others skip the lookup.
        if (f.name() == FlowName::Dependency || f.name() == FlowName::HbViolation)
            if (const FanCounts::Counts* counts = m_.fan_counts.find(index)) {
                at = put::integer(put::lit(at, ",\"input_task_count\":"), counts->input);
                at = put::integer(put::lit(at, ",\"output_task_count\":"), counts->output);
            }
        *at++ = '}';
        out_.commit(at);
    }

    nlohmann::json provenance() const {
        nlohmann::json sources = nlohmann::json::array();
        for (std::size_t k = 0; k < m_.sources.size(); ++k) {
            const TraceSource& src = m_.sources[k];
            const Capture& cap = *src.capture;
            const DropCounts& d = cap.dropped;
            nlohmann::json entry = {{"label", src.label},
                                    {"inputs", src.inputs},
                                    {"records_shape", std::string(to_string(cap.shape))},
                                    {"level_key", cap.level_key},
                                    {"level", cap.level},
                                    {"clock_freq_hz", cap.clock.freq_hz},
                                    {"clock_freq_source", cap.clock.freq_source},
                                    {"time_origin_ticks", cap.clock.origin_ticks},
                                    {"time_offset_ns", m_.offsets_ns[k]},
                                    {"pid_base", m_.pid_base[k]},
                                    {"task_rows", cap.tasks.size()},
                                    {"truncated", cap.truncated},
                                    {"dropped",
                                     {{"aicpu_without_aicore", d.aicpu_without_aicore},
                                      {"aicore_without_aicpu", d.aicore_without_aicpu},
                                      {"zero_start", d.zero_start},
                                      {"reversed", d.reversed},
                                      {"malformed_rows", d.malformed_rows},
                                      {"malformed_phases", d.malformed_phases}}}};
            if (cap.september()) {
                entry["runtime"] = std::string(to_string(cap.runtime));
                entry["host_orchestration"] = september_metadata(cap);
            } else if (cap.host_orchestration) {
                entry["host_orchestration"] = host_metadata(cap);
            }
            if (cap.clock_alignment.status != ContainmentAlignment::Status::None)
                entry["clock_alignment"] = alignment_provenance(cap.clock_alignment);
            if (cap.runs.size() > 1) {
                nlohmann::json runs = nlohmann::json::array();
                for (const RunInfo& run : cap.runs)
                    runs.push_back(
                        {{"run_epoch",
                          run.epoch == kNoEpoch ? nlohmann::json() : nlohmann::json(run.epoch)},
                         {"task_rows", run.rows},
                         {"tasks", run.tasks}});
                entry["runs"] = std::move(runs);
            }
            sources.push_back(std::move(entry));
        }
        return {
            {"generator", "ptune swimlane-merge"},
            {"ptune_version", std::string(version())},
            {"time_unit",
             "us, rebased to the time origin (the smallest positive raw timestamp) and printed "
             "exactly "
             "from integer ns"},
            {"sources", std::move(sources)},
            {"flows", {{"written", m_.counts.flows}, {"unbound_dropped", m_.counts.flows_unbound}}},
            {"overflow_lanes", m_.counts.overflow_lanes}};
    }

    /// Where a clock alignment came from, and that ptune did not write it into the input.
    static nlohmann::json alignment_provenance(const ContainmentAlignment& a) {
        nlohmann::json out = {{"record", nlohmann::json::parse(a.record_json())},
                              {"source", a.source},
                              {"written_to_input", false}};
        if (a.bounded()) out["bound_ns"] = a.bound_ns();
        if (!a.logs.empty()) out["host_logs"] = a.logs;
        if (a.source == "host logs")
            out["note"] =
                "upstream's converter writes this record back into the records file as "
                "metadata.clock_alignment; ptune never writes into its input";
        return out;
    }

    /// The September converter's top-level `metadata` (upstream-2026-09.md §1.12.5).
    static nlohmann::json september_metadata(const Capture& cap) {
        const HostTimeline& host = cap.host;
        const ContainmentAlignment& a = cap.clock_alignment;
        auto record = [&] { return nlohmann::json::parse(a.record_json()); };
        nlohmann::json out = nlohmann::json::object();
        if (cap.host_orchestration) {
            const bool placed = a.bounded();
            out["layout"] = placed ? "containment_spliced" : "causal_composite";
            out["trace_status"] = host.records_complete ? "complete" : "partial";
            out["relation"] = "host_orchestration_precedes_device";
            if (!host.capture_json.empty())
                out["host_capture"] = nlohmann::json::parse(host.capture_json);
            out["host_records_complete"] = host.records_complete;
            out["cross_domain_latency_available"] = placed && host.records_complete;
            out["source_timeline_origin_ns"] = host.origin_ns;
            out["timeline_origin_ns"] = host.origin_ns;
            if (a.status != ContainmentAlignment::Status::None) out["clock_alignment"] = record();
            if (!a.placement_json.empty())
                out["placement"] = nlohmann::json::parse(a.placement_json);
            if (!placed) {
                out["cross_domain_gap_unknown"] = true;
                out["logical_seam_us"] = static_cast<double>(host.seam_ns) / 1000.0;
            }
            if (host.records_missing) out["host_records_missing"] = true;
            if (!cap.host_clock_domain_id.empty())
                out["host_clock_domain_id"] = cap.host_clock_domain_id;
        } else if (a.status != ContainmentAlignment::Status::None) {
            out["layout"] = a.bounded() ? "containment_spliced" : "device_relative";
            out["cross_domain_latency_available"] = false;
            out["clock_alignment"] = record();
        }
        out["runtime"] = std::string(to_string(cap.runtime));
        return out;
    }

    /// How the host and device timelines were joined (swimlane.md §5.7).
    static nlohmann::json host_metadata(const Capture& cap) {
        const HostTimeline& host = cap.host;
        const HostClockAlignment& a = host.alignment;
        auto or_null = [](std::int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(); };
        nlohmann::json alignment = {{"status", a.calibrated ? "calibrated" : "unaligned"},
                                    {"method", "nominal_frequency_offset_interp_v1"},
                                    {"anchor_uncertainty_ns", or_null(a.anchor_uncertainty_ns)},
                                    {"host_timestamp_quantization_ns", 0},
                                    {"max_uncertainty_ns", or_null(a.anchor_uncertainty_ns)}};
        if (a.calibrated)
            alignment["selected_sample_idx"] = {{"pre_host_orchestration", a.pre_sample_idx},
                                                {"post_device_execution", a.post_sample_idx}};
        else
            alignment["reason"] = a.reason;
        nlohmann::json out = {{"layout", a.calibrated ? "clock_aligned" : "causal_composite"},
                              {"trace_status", host.records_complete ? "complete" : "partial"},
                              {"relation", "host_orchestration_precedes_device"},
                              {"clock_alignment", std::move(alignment)},
                              {"host_origin_ns", host.origin_ns},
                              {"host_origin_source", host.origin_source}};
        if (!host.capture_json.empty())
            out["host_capture"] = nlohmann::json::parse(host.capture_json);
        out["host_records_complete"] = host.records_complete;
        out["cross_domain_latency_available"] = a.calibrated;
        if (!a.calibrated) {
            out["cross_domain_gap_unknown"] = true;
            out["logical_seam_us"] = static_cast<double>(host.seam_ns) / 1000.0;
        }
        if (host.records_missing) out["host_records_missing"] = true;
        return out;
    }

    const TraceModel& m_;
    std::ostream& out_stream_;  // what out_ writes to
    Sink out_;
    /// Text of at most 64 bytes, copied whole (Sink::prefix: a constant-size copy, inlined)
    /// and cut to its size: the parts of every event that are the same for many.
    struct Block {
        Block() = default;
        explicit Block(std::string_view from) : size(from.size()) {
            if (size > text.size()) throw std::logic_error("trace JSON block longer than 64 bytes");
            std::copy(from.begin(), from.end(), text.begin());
        }
        std::array<char, 64> text{};
        std::size_t size = 0;
    };
    static constexpr std::size_t kFlowNames =
        static_cast<std::size_t>(FlowName::SubmitDispatch) + 1;
    std::vector<Block> track_keys_;
    /// `{"name":"<flow name>","cat":"flow","ph":"s|f","id":` by (name, start).
    std::array<Block, kFlowNames * 2> flow_heads_{};
    std::string scratch_;
    bool first_ = true;
};

/// One batch rendered in memory: a JsonWriter of its own over a buffer that grows.
struct Piece {
    explicit Piece(const TraceModel& model) : stream(&rendered), writer(model, stream) {}
    void render(std::span<const EventRef> events) {
        writer.render_batch(events);
        writer.out_.flush();
    }
    GrowingBuf rendered;
    std::ostream stream;
    JsonWriter writer;
    std::uint64_t number = 0;  ///< the batch's place in the output
};

/// The pieces of a two-thread rendering and their writing in order. A rendered piece whose
/// turn has not come waits in memory while its thread goes on with another piece, and
/// whichever thread writes piece n also writes the pieces after it that are ready: a thread
/// waits only when every piece is in use (each waited for the other's write, ~4 % of the
/// run's CPU at 20K tasks, when a thread had one piece).
class PieceWriter {
  public:
    /// Pieces for writing through `owner`'s stream.
    explicit PieceWriter(JsonWriter& owner) : owner_(owner) {
        for (auto& piece : pieces_) {
            piece = std::make_unique<Piece>(owner.m_);
            free_.push_back(piece.get());
        }
    }
    /// A piece to render into, once one is free; nullptr once stopped.
    Piece* free_piece() {
        std::unique_lock lock(mutex_);
        freed_.wait(lock, [&] { return stopped_ || !free_.empty(); });
        if (stopped_) return nullptr;
        Piece* piece = free_.back();
        free_.pop_back();
        return piece;
    }
    /// Returns a piece that was not rendered into.
    void give_back(Piece* piece) {
        std::lock_guard lock(mutex_);
        free_.push_back(piece);
        freed_.notify_all();
    }
    /// Hands over a rendered piece, and writes the pieces that are ready from the one whose
    /// turn it is on. The turn moves on only once its piece is written, so no two threads
    /// write at once: the one that took the piece writes the ready ones after it too.
    void written_in_turn(Piece* piece) {
        std::unique_lock lock(mutex_);
        ready_[piece->number % kPieces] = piece;
        while (!stopped_ && ready_[next_ % kPieces] != nullptr) {
            Piece* turn = std::exchange(ready_[next_ % kPieces], nullptr);
            lock.unlock();
            const bool ok = write(*turn);
            lock.lock();
            ++next_;
            free_.push_back(turn);
            if (!ok) stopped_ = true;
            freed_.notify_all();
        }
    }
    /// Stops: no piece is handed out or written any more.
    void stop() {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        freed_.notify_all();
    }
    bool stopped() {
        std::lock_guard lock(mutex_);
        return stopped_;
    }

  private:
    /// One being rendered by each thread, one being written or waiting its turn (a fourth
    /// measured no faster and its buffer is memory).
    static constexpr std::size_t kPieces = 3;

    /// Writes `piece` to the output and clears it.
    bool write(Piece& piece) {
        const std::string_view bytes = piece.rendered.written();
        owner_.out_stream_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        piece.rendered.clear();
        piece.writer.out_.reopen();
        return owner_.out_stream_.good();
    }

    JsonWriter& owner_;
    std::array<std::unique_ptr<Piece>, kPieces> pieces_;
    std::mutex mutex_;
    threads::SpinningCondition freed_{threads::Spinner()};
    std::vector<Piece*> free_;
    /// Rendered pieces by number % kPieces: at most kPieces numbers are out at once, from
    /// next_ on, so each has a slot of its own.
    std::array<Piece*, kPieces> ready_ = {};
    std::uint64_t next_ = 0;  ///< the number of the piece whose turn it is
    bool stopped_ = false;
};

void JsonWriter::events(const JsonRender& how) {
    EventMerge merge(m_, how.parallel_sort_events);
    const std::size_t batch_size = std::max<std::size_t>(how.batch_events, 1);
    if (!how.two_threads || merge.size() <= batch_size) {
        std::vector<EventRef> batch;
        batch.reserve(batch_size);
        while (merge.next(batch, batch_size)) render_batch(batch);
        return;
    }
    out_.flush();  // the metadata before the events
    PieceWriter pieces(*this);
    const bool nothing_before = first_;
    const threads::Spinner spinner;
    std::mutex merging;
    std::uint64_t taken = 0;  // (under `merging`)
    auto work = [&] {
        std::vector<EventRef> events;
        events.reserve(batch_size);
        while (Piece* piece = pieces.free_piece()) {
            {
                threads::lock_spinning(merging, spinner);
                std::lock_guard lock(merging, std::adopt_lock);
                if (pieces.stopped() || !merge.next(events, batch_size))
                    return pieces.give_back(piece);
                piece->number = taken++;
            }
            piece->writer.first_ = piece->number == 0 && nothing_before;
            piece->render(events);
            pieces.written_in_turn(piece);
        }
    };
    on_two_threads(work, work, [&] { pieces.stop(); });
    first_ = false;
}

}  // namespace ptune::swimlane::detail::json_out

namespace ptune::swimlane::detail {

void write_json(const TraceModel& model, std::ostream& out, const JsonRender& how) {
    json_out::JsonWriter(model, out).write(how);
}

}  // namespace ptune::swimlane::detail