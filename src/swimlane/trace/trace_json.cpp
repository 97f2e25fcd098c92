// Chrome-trace JSON rendering of the trace layout: metadata first, then every slice, counter and
// flow end sorted by (ts, kind, longer first); times printed exactly from integer ns; one event
// per line, streamed through a buffer; provenance in "otherData".

#include <array>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "background_buf.hpp"
#include "event_merge.hpp"
#include "json_sink.hpp"
#include "piece_writer.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/threads.hpp"

namespace ptune::swimlane::detail::json_out {

struct Piece;

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
        out_.text(json_document::dump(provenance()));
        // Upstream's top-level "metadata" of a host-orchestration trace (§5.7), for tools that
        // read it; with several captures each one's is in otherData.
        if (m_.multi_rank) {
            out_.lit(",\n\"metadata\":");
            out_.text(m_.multi_rank->metadata_json);
        } else if (m_.sources.size() == 1 && m_.sources[0].capture->september()) {
            out_.lit(",\n\"metadata\":");
            out_.text(json_document::dump(september_metadata(*m_.sources[0].capture)));
        } else if (m_.sources.size() == 1 && m_.sources[0].capture->host_orchestration) {
            out_.lit(",\n\"metadata\":");
            out_.text(json_document::dump(host_metadata(*m_.sources[0].capture)));
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
    std::string_view written() const { return rendered.written(); }
    void clear() {
        rendered.clear();
        writer.out_.reopen();
    }
    GrowingBuf rendered;
    std::ostream stream;
    JsonWriter writer;
    std::uint64_t number = 0;  ///< the batch's place in the output
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
    PieceWriter<Piece> pieces(out_stream_, m_);
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