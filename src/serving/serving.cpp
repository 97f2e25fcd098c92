// The serving trace (upstream-2026-12.md §5): reader, analysis, metrics and report.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/pipetrace/trace_events.hpp"
#include "ptune/serving/pipeline.hpp"

namespace ptune::serving {

namespace {

using pipetrace::TraceEvent;
using pipetrace::TraceValue;

struct ServingSpan {
    std::string tid;
    double ts;
    double dur;
};

struct ServingProcess {
    std::string name;
    bool host = false;  ///< named "… STRACE …" or holding a `strace.host` span
    std::vector<ServingSpan> spans;
    std::map<std::string, std::string> thread_names;
};

class ServingBuilder {
  public:
    ServingBuilder(ServingTrace& trace, Diagnostics& diagnostics)
        : trace_(trace), diagnostics_(diagnostics) {}

    void add(const TraceEvent& event) {
        ++trace_.events;
        const std::string& ph = event.ph.text;
        if (ph == "M") return metadata(event);
        if (ph != "X") return;
        std::string why;
        auto span = pipetrace::span_of(event, why);
        if (!span) return skip(event, why);
        if (!event.pid.is_string() && !event.pid.is_number())
            return skip(event, "span without a string or number \"pid\"");
        ServingProcess& process = at(event.pid.key());
        if (event.cat.text == "strace.host") process.host = true;
        process.spans.push_back({event.tid.key(), span->first, span->second});
    }

    void finish() {
        for (const std::string& pid : order_) {
            ServingProcess& process = processes_[pid];
            if (process.host) {
                trace_.host_pid = pid;
                trace_.host_name = process.name;
                std::map<std::string, std::size_t> index;
                for (const ServingSpan& span : process.spans) {
                    auto [it, fresh] = index.try_emplace(span.tid, trace_.devices.size());
                    if (fresh) {
                        auto named = process.thread_names.find(span.tid);
                        trace_.devices.push_back({span.tid,
                                                  named != process.thread_names.end()
                                                      ? named->second
                                                      : "device " + span.tid,
                                                  {}});
                    }
                    trace_.devices[it->second].spans.emplace_back(span.ts, span.dur);
                }
            } else if (!process.spans.empty()) {
                Lane lane{pid, process.name.empty() ? "pid " + pid : process.name, {}};
                for (const ServingSpan& span : process.spans)
                    lane.spans.emplace_back(span.ts, span.dur);
                trace_.workers.push_back(std::move(lane));
            }
        }
    }

  private:
    void metadata(const TraceEvent& event) {
        if (event.name.text == "process_name") {
            ServingProcess& process = at(event.pid.key());
            process.name = event.args_name;
            if (event.args_name.find("STRACE") != std::string::npos) process.host = true;
        } else if (event.name.text == "thread_name") {
            at(event.pid.key()).thread_names[event.tid.key()] = event.args_name;
        }
    }
    ServingProcess& at(const std::string& pid) {
        auto [it, fresh] = processes_.try_emplace(pid);
        if (fresh) order_.push_back(pid);
        return it->second;
    }
    void skip(const TraceEvent& event, const std::string& why) {
        ++trace_.skipped;
        diagnostics_.warn(trace_.source, event.line, why + "; event skipped");
    }

    ServingTrace& trace_;
    Diagnostics& diagnostics_;
    std::unordered_map<std::string, ServingProcess> processes_;
    std::vector<std::string> order_;
};

// Count, mean, min, max, first start, last end and the union of a lane's spans.
LaneStats serving_lane_stats(const Lane& lane, double window_begin, double window_end) {
    LaneStats out{lane.key, lane.name, lane.spans.size()};
    if (lane.spans.empty()) return out;
    std::vector<double> durations;
    std::vector<std::pair<double, double>> intervals;
    for (const auto& [ts, dur] : lane.spans) {
        durations.push_back(dur);
        intervals.emplace_back(ts, ts + dur);
    }
    out.total = stats::fsum(durations);
    out.mean = out.total / static_cast<double>(durations.size());
    out.min = *std::min_element(durations.begin(), durations.end());
    out.max = *std::max_element(durations.begin(), durations.end());
    std::sort(intervals.begin(), intervals.end());
    out.begin = intervals.front().first;
    out.end = intervals.front().second;
    double lo = intervals.front().first, hi = intervals.front().second;
    auto close = [&] {
        out.busy += hi - lo;
        double a = std::max(lo, window_begin), b = std::min(hi, window_end);
        if (b > a) out.in_window += b - a;
    };
    for (const auto& [begin, end] : intervals) {
        out.end = std::max(out.end, end);
        if (begin <= hi) {
            hi = std::max(hi, end);
            continue;
        }
        close();
        lo = begin;
        hi = end;
    }
    close();
    return out;
}

std::string serving_us(double value) {
    return stats::format_fixed(value, 1);
}

}  // namespace

Result<ServingTrace> parse_serving_trace(std::istream& in, const std::string& source,
                                         Diagnostics& diagnostics) {
    ServingTrace trace;
    trace.source = source;
    ServingBuilder builder(trace, diagnostics);
    auto end = pipetrace::read_trace_events(in, source, diagnostics,
                                            [&](const TraceEvent& event) { builder.add(event); });
    if (!end) return end.error();
    builder.finish();
    trace.syntax_error_line = end->syntax_error_line;
    trace.syntax_error = end->syntax_error;
    return trace;
}

Analysis analyze(const ServingTrace& trace) {
    Analysis analysis;
    bool any = false;
    for (const Lane& lane : trace.workers) {
        for (const auto& [ts, dur] : lane.spans) {
            analysis.window_begin = any ? std::min(analysis.window_begin, ts) : ts;
            analysis.window_end = any ? std::max(analysis.window_end, ts + dur) : ts + dur;
            any = true;
        }
    }
    double all = 0;
    for (const Lane& lane : trace.workers) {
        analysis.workers.push_back(
            serving_lane_stats(lane, analysis.window_begin, analysis.window_end));
        all += analysis.workers.back().total;
    }
    for (const Lane& lane : trace.devices)
        analysis.devices.push_back(
            serving_lane_stats(lane, analysis.window_begin, analysis.window_end));
    for (std::size_t i = 0; i < analysis.workers.size(); ++i) {
        if (!analysis.straggler ||
            analysis.workers[i].total > analysis.workers[*analysis.straggler].total)
            analysis.straggler = i;
    }
    if (analysis.straggler && all > 0) {
        double total = analysis.workers[*analysis.straggler].total;
        analysis.straggler_share = total / all;
        analysis.straggler_excess = total / (all / static_cast<double>(analysis.workers.size()));
    }
    return analysis;
}

Result<Loaded> load(const std::string& input, Diagnostics& diagnostics) {
    std::string path = input;
    if (input != "-" && io::is_dir(input)) {
        auto files = discover::find_files(input, {std::string(kFileName)});
        if (files.empty()) return Error{fmt::format("no {} here", kFileName), input, 0};
        if (files.size() > 1)
            return Error{fmt::format("{} files named {} here (first {}): name one", files.size(),
                                     kFileName, files.front().string()),
                         input, 0};
        path = files.front().string();
    }
    auto stream = io::open_input(path);
    if (!stream) return stream.error();
    auto trace = parse_serving_trace(stream->stream(), path, diagnostics);
    if (!trace) return trace.error();
    if (trace->workers.empty() && trace->devices.empty())
        return Error{trace->syntax_error_line
                         ? fmt::format("no span (\"ph\": \"X\") before the JSON breaks off at "
                                       "line {}",
                                       *trace->syntax_error_line)
                         : std::string("no span (\"ph\": \"X\") in this trace"),
                     path, 0};
    Loaded loaded{path, std::move(*trace), {}};
    loaded.analysis = analyze(loaded.trace);
    return loaded;
}

void publish(const Loaded& loaded, rules::MetricStore& store) {
    const Analysis& analysis = loaded.analysis;
    rules::Subject& run = store.run();
    run.metrics["serving.workers"] = static_cast<double>(analysis.workers.size());
    run.metrics["serving.device_lanes"] = static_cast<double>(analysis.devices.size());
    run.metrics["serving.window_us"] = analysis.window_end - analysis.window_begin;
    run.metrics["serving.truncated"] = loaded.trace.syntax_error_line ? 1 : 0;
    if (analysis.straggler) {
        const LaneStats& worker = analysis.workers[*analysis.straggler];
        run.metrics["serving.straggler_share"] = analysis.straggler_share;
        run.metrics["serving.straggler_excess"] = analysis.straggler_excess;
        run.metrics["serving.straggler_mean_us"] = worker.mean;
        run.labels["serving.straggler"] = worker.name;
    }
    double window = analysis.window_end - analysis.window_begin;
    if (!analysis.devices.empty() && window > 0) {
        double least = 1;
        for (const LaneStats& device : analysis.devices)
            least = std::min(least, device.in_window / window);
        run.metrics["serving.device_min_window_share"] = least;
    }
    run.locations.push_back({loaded.path, 0, 0});
}

render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings) {
    using render::Align;
    const Analysis& analysis = loaded.analysis;
    render::Report report;
    report.command = "serving-trace";
    render::Table workers{"Tasks per WorkerProcess (serving pid)",
                          {"pid", "process", "tasks", "mean", "min", "max", "total", "share"},
                          {Align::Right, Align::Left, Align::Right, Align::Right, Align::Right,
                           Align::Right, Align::Right, Align::Right},
                          {}};
    workers.units = {"", "", "", "µs", "µs", "µs", "µs", ""};
    double all = 0;
    for (const LaneStats& worker : analysis.workers) all += worker.total;
    nlohmann::json worker_json = nlohmann::json::array();
    for (const LaneStats& worker : analysis.workers) {
        workers.rows.push_back({worker.key, worker.name, std::to_string(worker.count),
                                serving_us(worker.mean), serving_us(worker.min),
                                serving_us(worker.max), serving_us(worker.total),
                                all > 0 ? stats::format_ratio(worker.total / all) : "-"});
        worker_json.push_back({{"pid", worker.key},
                               {"name", worker.name},
                               {"count", worker.count},
                               {"mean_us", worker.mean},
                               {"min_us", worker.min},
                               {"max_us", worker.max},
                               {"total_us", worker.total}});
    }
    double window = analysis.window_end - analysis.window_begin;
    render::Table devices{
        "Host STRACE device lanes against the serving window",
        {"device", "lane", "spans", "mean", "min", "max", "busy", "in window", "of window"},
        {Align::Right, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right,
         Align::Right, Align::Right, Align::Right},
        {}};
    devices.units = {"", "", "", "µs", "µs", "µs", "µs", "µs", ""};
    nlohmann::json device_json = nlohmann::json::array();
    for (const LaneStats& device : analysis.devices) {
        devices.rows.push_back({device.key, device.name, std::to_string(device.count),
                                serving_us(device.mean), serving_us(device.min),
                                serving_us(device.max), serving_us(device.busy),
                                serving_us(device.in_window),
                                window > 0 ? stats::format_ratio(device.in_window / window) : "-"});
        device_json.push_back({{"device", device.key},
                               {"name", device.name},
                               {"count", device.count},
                               {"mean_us", device.mean},
                               {"min_us", device.min},
                               {"max_us", device.max},
                               {"begin_us", device.begin},
                               {"end_us", device.end},
                               {"busy_us", device.busy},
                               {"in_window_us", device.in_window}});
    }
    report.tables.push_back(std::move(workers));
    if (!analysis.devices.empty()) report.tables.push_back(std::move(devices));
    report.notes.push_back(fmt::format("serving window {} → {} µs ({} µs) on the shared host clock",
                                       serving_us(analysis.window_begin),
                                       serving_us(analysis.window_end), serving_us(window)));
    if (analysis.straggler) {
        const LaneStats& worker = analysis.workers[*analysis.straggler];
        report.notes.push_back(
            analysis.workers.size() == 1
                ? fmt::format("straggler: {} is the only worker process ({} of the task time)",
                              worker.name, stats::format_ratio(analysis.straggler_share))
                : fmt::format("straggler: {} (pid {}) with {} of the task time, {}× the mean "
                              "worker",
                              worker.name, worker.key,
                              stats::format_ratio(analysis.straggler_share),
                              stats::format_fixed(analysis.straggler_excess, 2)));
    }
    if (loaded.trace.host_pid.empty())
        report.notes.push_back("no host STRACE process: a serving trace alone (no device lanes)");
    report.notes.push_back(
        "proposal (upstream-2026-12.md §5.3): a WorkerProcess is a serving pid, every \"X\" a "
        "task; the host STRACE process is split by device (tid)");
    if (loaded.trace.syntax_error_line)
        report.notes.push_back(fmt::format("the JSON breaks off at line {}: {}",
                                           *loaded.trace.syntax_error_line,
                                           loaded.trace.syntax_error));
    report.data = {
        {"trace", loaded.path},
        {"events", loaded.trace.events},
        {"skipped_events", loaded.trace.skipped},
        {"host_pid", loaded.trace.host_pid},
        {"host_name", loaded.trace.host_name},
        {"window_begin_us", analysis.window_begin},
        {"window_end_us", analysis.window_end},
        {"workers", std::move(worker_json)},
        {"devices", std::move(device_json)},
        {"straggler", analysis.straggler ? nlohmann::json(analysis.workers[*analysis.straggler].key)
                                         : nlohmann::json(nullptr)},
        {"straggler_share", analysis.straggler_share},
        {"straggler_excess", analysis.straggler_excess},
        {"syntax_error_line", loaded.trace.syntax_error_line
                                  ? nlohmann::json(*loaded.trace.syntax_error_line)
                                  : nlohmann::json(nullptr)}};
    report.findings = std::move(findings);
    return report;
}

std::optional<Error> syntax_error(const Loaded& loaded) {
    if (!loaded.trace.syntax_error_line) return std::nullopt;
    return Error{fmt::format("the trace breaks off ({}); the {} event(s) before it were analysed",
                             loaded.trace.syntax_error, loaded.trace.events),
                 loaded.path, *loaded.trace.syntax_error_line};
}

}  // namespace ptune::serving
