// Chrome-trace JSON rendering of the trace layout: metadata first, then every slice, counter and
// flow end sorted by (ts, kind, longer first); times printed exactly from integer ns; one event
// per line, streamed through a buffer; provenance in "otherData".

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"
#include "ptune/swimlane/reader.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail {

void append_us(std::string& out, std::int64_t ns) {
    if (ns < 0) {
        out += '-';
        ns = -ns;
    }
    char digits[32];
    auto end = fmt::format_to(digits, "{}.{:03}", ns / 1000, ns % 1000);
    out.append(digits, end);
}

void append_json_string(std::string& out, std::string_view text) {
    std::string sanitized;
    if (!text::is_valid_utf8(text)) {
        sanitized = text::sanitize_utf8(text);
        text = sanitized;
    }
    out += '"';
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
                else
                    out += c;
        }
    }
    out += '"';
}

namespace {

std::string_view phase_colour(PhaseKind kind) {
    switch (kind) {
        case PhaseKind::Complete:
            return "good";
        case PhaseKind::Dispatch:
            return "terrible";
        case PhaseKind::AsyncPoll:
            return "yellow";
        case PhaseKind::Release:
            return "olive";
        case PhaseKind::Dummy:
            return "grey";
        case PhaseKind::EarlyDispatch:
            return "rail_animation";
        case PhaseKind::Drain:
            return "cq_build_running";
        case PhaseKind::DrainPrepare:
            return "cq_build_attempt_runnable";
        case PhaseKind::DrainPublish:
            return "cq_build_attempt_passed";
        case PhaseKind::GraphPrepare:
            return "rail_animation";
        case PhaseKind::Resolve:
            return "vsync_highlight_color";
        default:
            return "generic_work";
    }
}

std::string_view orch_colour(std::string_view phase) {
    if (phase == "orch_submit" || phase == "orch_fanin") return "rail_animation";
    if (phase == "orch_sync") return "thread_state_iowait";
    if (phase == "orch_alloc") return "terrible";
    if (phase == "orch_params") return "good";
    if (phase == "orch_lookup") return "thread_state_running";
    if (phase == "orch_insert") return "olive";
    return "generic_work";
}

std::string_view flow_name(FlowName name) {
    switch (name) {
        case FlowName::Dependency:
            return "dependency";
        case FlowName::HbViolation:
            return "hb_violation";
        case FlowName::Complete:
            return "complete";
        case FlowName::CompleteReady:
            return "complete\\u2192ready";
        case FlowName::Dispatch:
            return "dispatch";
        case FlowName::SubmitDispatch:
            return "submit\\u2192dispatch";
    }
    return "flow";
}

class JsonWriter {
  public:
    JsonWriter(const TraceModel& model, std::ostream& out) : m_(model), out_(out) {
        buf_.reserve(kFlushAt + 4096);
    }

    void write() {
        buf_ += "{\"traceEvents\":[\n";
        for (const Process& p : m_.processes) {
            begin_event();
            fmt::format_to(
                std::back_inserter(buf_),
                R"({{"name":"process_name","cat":"__metadata","ph":"M","pid":{},"args":{{"name":)",
                p.pid);
            append_json_string(buf_, p.name);
            buf_ += "}}";
            begin_event();
            fmt::format_to(
                std::back_inserter(buf_),
                R"({{"name":"process_sort_index","cat":"__metadata","ph":"M","pid":{},"args":{{"sort_index":{}}}}})",
                p.pid, p.sort_index);
        }
        for (const Track& t : m_.tracks) {
            begin_event();
            fmt::format_to(
                std::back_inserter(buf_),
                R"({{"name":"thread_name","cat":"__metadata","ph":"M","pid":{},"tid":{},"args":{{"name":)",
                t.pid, t.tid);
            append_json_string(buf_, t.name);
            buf_ += "}}";
            if (t.sort_index >= 0) {
                begin_event();
                fmt::format_to(
                    std::back_inserter(buf_),
                    R"({{"name":"thread_sort_index","cat":"__metadata","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                    t.pid, t.tid, t.sort_index);
            }
        }
        for (const Ev& e : sorted_events()) {
            begin_event();
            switch (e.type) {
                case 0:
                    slice(m_.slices[e.index]);
                    break;
                case 1:
                    counter(m_.counters[e.index]);
                    break;
                default:
                    flow(m_.flows[e.index], e.type == 2);
                    break;
            }
        }
        buf_ += "\n],\n\"otherData\":";
        buf_ += provenance().dump();
        buf_ += "}\n";
        flush();
    }

  private:
    static constexpr std::size_t kFlushAt = 1u << 20;

    struct Ev {
        std::int64_t ts;
        std::int64_t dur;
        std::uint32_t index;
        std::uint8_t type;  // 0 slice, 1 counter, 2 flow start, 3 flow end
    };

    std::vector<Ev> sorted_events() const {
        std::vector<Ev> events;
        events.reserve(m_.slices.size() + m_.counters.size() + 2 * m_.flows.size());
        for (std::uint32_t i = 0; i < m_.slices.size(); ++i)
            events.push_back({m_.slices[i].ts, m_.slices[i].dur, i, 0});
        for (std::uint32_t i = 0; i < m_.counters.size(); ++i)
            events.push_back({m_.counters[i].ts, 0, i, 1});
        for (std::uint32_t i = 0; i < m_.flows.size(); ++i) {
            events.push_back({m_.flows[i].s_ts, 0, i, 2});
            events.push_back({m_.flows[i].f_ts, 0, i, 3});
        }
        std::sort(events.begin(), events.end(), [](const Ev& a, const Ev& b) {
            if (a.ts != b.ts) return a.ts < b.ts;
            if (a.type != b.type) return a.type < b.type;
            if (a.dur != b.dur) return a.dur > b.dur;
            return a.index < b.index;
        });
        return events;
    }

    void begin_event() {
        if (buf_.size() >= kFlushAt) flush();
        if (first_)
            first_ = false;
        else
            buf_ += ",\n";
    }

    void flush() {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }

    void key_us(std::string_view key, std::int64_t ns) {
        buf_ += ",\"";
        buf_ += key;
        buf_ += "\":";
        append_us(buf_, ns);
    }

    void head(std::string_view name, bool escape_name, std::string_view cat, const Slice& s) {
        const Track& t = m_.tracks[s.track];
        buf_ += "{\"name\":";
        if (escape_name)
            append_json_string(buf_, name);
        else
            buf_.append("\"").append(name).append("\"");
        fmt::format_to(std::back_inserter(buf_), R"(,"cat":"{}","ph":"X","pid":{},"tid":{})", cat,
                       t.pid, t.tid);
        key_us("ts", s.ts);
        key_us("dur", s.dur);
        if (s.id != kNone) fmt::format_to(std::back_inserter(buf_), ",\"id\":{}", s.id);
    }

    std::string task_label(const TraceSource& src, std::uint64_t task_id) const {
        std::int32_t func_id = -1;
        if (src.deps) {
            auto it = src.deps->tasks.find(task_id);
            if (it != src.deps->tasks.end())
                for (auto id : it->second.kernel_ids)
                    if (id >= 0) {
                        func_id = id;
                        break;
                    }
        }
        return fmt::format("{}({})", kernel_base_name(func_id, src.names), task_display(task_id));
    }

    void slice(const Slice& s) {
        const TraceSource& src = m_.sources[s.source];
        const Capture& cap = *src.capture;
        const SourceExtras& extras = m_.extras[s.source];
        switch (s.kind) {
            case SliceKind::WorkerTask: {
                const TaskRow& row = cap.tasks[s.ref];
                std::uint32_t task = extras.row_task[s.ref];
                head(extras.labels[s.ref], true, "event", s);
                fmt::format_to(
                    std::back_inserter(buf_),
                    R"(,"args":{{"event-hint":"Task:{}, FuncId:{}, CoreId:{}","fanout-hint":"{}","fanin-hint":"{}")",
                    task_display(row.task_id), row.func_id, row.core_id, extras.fanout_hints[task],
                    extras.fanin_hints[task]);
                key_us("duration-us", row.end_ns - row.receive_ns);
                key_us("kernel-duration-us", row.end_ns - row.start_ns);
                key_us("local_setup_us", row.start_ns - row.receive_ns);
                fmt::format_to(std::back_inserter(buf_), ",\"taskId\":{}}}}}", row.task_id);
                break;
            }
            case SliceKind::SchedTask: {
                const TaskRow& row = cap.tasks[s.ref];
                head(extras.labels[s.ref], true, "event", s);
                fmt::format_to(std::back_inserter(buf_),
                               R"(,"args":{{"event-hint":"Task:{}, FuncId:{}, CoreId:{}")",
                               task_display(row.task_id), row.func_id, row.core_id);
                key_us("dispatch-time-us", s.ts);
                key_us("finish-time-us", s.ts + s.dur);
                key_us("aicpu-duration-us", row.finish_ns - row.dispatch_ns);
                fmt::format_to(std::back_inserter(buf_), ",\"taskId\":{}}}}}", row.task_id);
                break;
            }
            case SliceKind::Phase: {
                const SchedulerPhase& p = cap.scheduler_phases[s.ref];
                std::int64_t count = p.tasks_processed;
                std::uint32_t attributed = extras.finish_rows[s.ref];
                if (count < 0) count = p.kind == PhaseKind::Complete ? attributed : 0;
                std::string name = fmt::format("{}({})", p.kind_name, count);
                head(name, true, "scheduler", s);
                fmt::format_to(std::back_inserter(buf_), R"(,"cname":"{}","args":{{"phase":)",
                               phase_colour(p.kind));
                append_json_string(buf_, p.kind_name);
                fmt::format_to(std::back_inserter(buf_), R"(,"loop_iter":{},"tasks_processed":{})",
                               p.loop_iter, count);
                if (p.has_depths)
                    fmt::format_to(
                        std::back_inserter(buf_),
                        R"x(,"shared_at_start (aic,aiv,mix)":[{}],"shared_at_end (aic,aiv,mix)":[{}])x",
                        fmt::join(p.shared_at_start, ","), fmt::join(p.shared_at_end, ","));
                if (p.kind == PhaseKind::Complete)
                    fmt::format_to(std::back_inserter(buf_),
                                   R"(,"finishes_processed":{},"finish_rows_attributed":{})", count,
                                   attributed);
                buf_ += "}}";
                break;
            }
            case SliceKind::Marker: {
                const SchedulerPhase& p = cap.scheduler_phases[s.ref];
                std::uint64_t id = static_cast<std::uint64_t>(std::max<std::int64_t>(p.task_id, 0));
                bool dummy = p.kind == PhaseKind::DummyTask;
                std::string name =
                    dummy ? fmt::format("dummy({})", task_display(id)) : task_label(src, id);
                head(name, true, "event", s);
                fmt::format_to(std::back_inserter(buf_),
                               R"(,"args":{{"loop_iter":{},"task_id":{},"event-hint":)",
                               p.loop_iter, p.task_id);
                append_json_string(buf_, name);
                buf_ += dummy ? ",\"phase\":\"dummy_task\"}}" : ",\"predicated_pass\":false}}";
                break;
            }
            case SliceKind::Orch: {
                const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
                std::string_view short_name = p.phase;
                if (short_name.starts_with("orch_")) short_name.remove_prefix(5);
                std::string name =
                    p.task_id >= 0
                        ? fmt::format("{}({})", short_name,
                                      task_display(static_cast<std::uint64_t>(p.task_id)))
                        : fmt::format("{}({})", short_name, p.submit_idx);
                head(name, true, "orchestrator", s);
                fmt::format_to(std::back_inserter(buf_), R"(,"cname":"{}","args":{{"phase":)",
                               orch_colour(p.phase));
                append_json_string(buf_, p.phase);
                fmt::format_to(std::back_inserter(buf_), R"(,"submit_idx":{},"task_id":{}}}}})",
                               p.submit_idx, p.task_id);
                break;
            }
            case SliceKind::Alloc: {
                const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
                std::string name =
                    fmt::format("alloc({})", task_display(static_cast<std::uint64_t>(p.task_id)));
                head(name, false, "event", s);
                fmt::format_to(
                    std::back_inserter(buf_),
                    R"(,"cname":"olive","args":{{"phase":"alloc","task_id":{},"event-hint":"{}"}}}})",
                    p.task_id, name);
                break;
            }
        }
    }

    void counter(const Counter& c) {
        const Track& t = m_.tracks[c.track];
        const SchedulerPhase& p = m_.sources[c.source].capture->scheduler_phases[c.ref];
        fmt::format_to(std::back_inserter(buf_),
                       R"({{"name":"shared_ready_queue","cat":"queue","ph":"C","pid":{},"tid":{})",
                       t.pid, t.tid);
        key_us("ts", c.ts);
        fmt::format_to(std::back_inserter(buf_), R"(,"args":{{"AIC":{},"AIV":{},"MIX":{}}}}})",
                       p.shared_at_end[0], p.shared_at_end[1], p.shared_at_end[2]);
    }

    void flow(const Flow& f, bool start) {
        const Slice& s = m_.slices[start ? f.s_slice : f.f_slice];
        const Track& t = m_.tracks[s.track];
        fmt::format_to(std::back_inserter(buf_),
                       R"({{"name":"{}","cat":"flow","ph":"{}","id":{},"pid":{},"tid":{})",
                       flow_name(f.name), start ? 's' : 'f', f.id, t.pid, t.tid);
        key_us("ts", start ? f.s_ts : f.f_ts);
        if (!start) buf_ += ",\"bp\":\"e\"";
        if (s.id != kNone) fmt::format_to(std::back_inserter(buf_), ",\"bind_id\":{}", s.id);
        if (f.input_count >= 0)
            fmt::format_to(std::back_inserter(buf_),
                           R"(,"input_task_count":{},"output_task_count":{})", f.input_count,
                           f.output_count);
        buf_ += '}';
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

    const TraceModel& m_;
    std::ostream& out_;
    std::string buf_;
    bool first_ = true;
};

}  // namespace

void write_json(const TraceModel& model, std::ostream& out) {
    JsonWriter(model, out).write();
}

}  // namespace ptune::swimlane::detail
