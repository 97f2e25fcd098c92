// The capture facts of the swimlane-analyze report (report_capture.hpp).

#include "report_capture.hpp"

#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/swimlane/summary.hpp"

namespace ptune::swimlane::detail {

namespace {

std::string us(double value) {
    return stats::format_fixed(value, 2);
}

std::string ns_as_us(std::int64_t ns) {
    return stats::format_fixed(static_cast<double>(ns) / 1000.0, 3);
}

std::string epoch_text(std::int64_t epoch) {
    return epoch == kNoEpoch ? std::string("-") : std::to_string(epoch);
}

nlohmann::json alignment_json(const ContainmentAlignment& a) {
    if (a.status == ContainmentAlignment::Status::None) return nullptr;
    nlohmann::json out = nlohmann::json::parse(a.record_json());
    out["source"] = a.source;
    out["written_to_input"] = false;
    if (a.bounded()) out["bound_ns"] = a.bound_ns();
    if (!a.placement_json.empty()) {
        nlohmann::json placement = nlohmann::json::parse(a.placement_json);
        out["placement"] = placement;
    }
    return out;
}

render::Table facts_table(const Capture& c) {
    render::Table t;
    t.title = "Capture";
    t.columns = {"fact", "value"};
    auto row = [&](std::string fact, std::string value) {
        t.rows.push_back({std::move(fact), std::move(value)});
    };
    row("runtime", fmt::format("{}{}", to_string(c.runtime), c.runtime_given ? "" : " (inferred)"));
    if (!c.scheduler_producer.empty()) row("scheduler_tasks producer", c.scheduler_producer);
    for (const SchedulerStream& s : c.streams) {
        if (!s.present) continue;
        std::string counts = s.committed >= 0
                                 ? fmt::format("committed {}, dropped {}{}", s.committed, s.dropped,
                                               s.truncated ? ", truncated" : "")
                                 : std::string("no capture counts");
        row(fmt::format("stream {}", s.scheduler_id),
            fmt::format("{} on {}{} ({} records; {}){}", s.producer.empty() ? "?" : s.producer,
                        s.core_type.empty() ? "?" : s.core_type,
                        s.physical_core_id >= 0 ? fmt::format(" core {}", s.physical_core_id) : "",
                        s.records, counts,
                        s.dropped > 0 || s.truncated ? " — phase figures are lower bounds" : ""));
    }
    if (!c.runs.empty()) {
        std::vector<std::string> runs;
        for (std::size_t k = 0; k < c.runs.size(); ++k) {
            const RunInfo& run = c.runs[k];
            runs.push_back(run.epoch == kNoEpoch && c.runs.size() > 1
                               ? fmt::format("run {} ({} tasks)", k + 1, run.tasks)
                               : fmt::format("{} ({} tasks)", epoch_text(run.epoch), run.tasks));
        }
        row(c.runs.size() > 1 ? fmt::format("runs ({})", c.runs.size()) : "run_epoch",
            fmt::format("{}", fmt::join(runs, ", ")));
    }
    const ContainmentAlignment& a = c.clock_alignment;
    if (a.status != ContainmentAlignment::Status::None) {
        if (a.bounded()) {
            row("clock alignment",
                fmt::format("bounded ({}), bound {} us",
                            a.source == "saved" ? "saved" : "host logs", ns_as_us(a.bound_ns())));
            if (!a.placement_json.empty()) {
                nlohmann::json p = nlohmann::json::parse(a.placement_json);
                row("placement",
                    fmt::format("pid {} inv {}, slack {} us, join residual {} us",
                                p.value("outer_pid", 0), p.value("outer_inv", 0),
                                ns_as_us(p.value("slack_ns", std::int64_t{0})),
                                ns_as_us(p["join"].value("residual_ns", std::int64_t{0}))));
            }
        } else {
            row("clock alignment", fmt::format("unavailable ({})", a.reason));
        }
        if (a.source == "host logs")
            row("written back",
                "no: upstream writes this record into the records file; ptune only reports it");
    }
    return t;
}

render::Table aicore_table(const Analysis& a) {
    render::Table t;
    t.title = "AICore scheduler (measured idle)";
    t.columns = {"scheduler",    "span µs",        "idle µs",     "idle",
                 "bootstrap µs", "state_probe µs", "dispatch µs", "worksteal µs",
                 "refill µs",    "complete µs",    "resolve µs"};
    t.align = {render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    auto kind = [](const AicoreSchedulerStats& s, const char* name) {
        auto it = s.kind_us.find(name);
        return us(it == s.kind_us.end() ? 0.0 : it->second);
    };
    for (const auto& s : a.aicore_schedulers)
        t.rows.push_back({fmt::format("Scheduler_{}", s.worker_id >= 0 ? s.worker_id : s.thread),
                          us(s.span_us), us(s.idle_us),
                          stats::format_fixed(s.idle_share * 100.0, 1) + "%", us(s.bootstrap_us),
                          kind(s, "state_probe"), kind(s, "dispatch"), kind(s, "worksteal"),
                          kind(s, "refill"), kind(s, "complete"), kind(s, "resolve")});
    return t;
}

render::Table lifecycle_table(const Capture& c) {
    render::Table t;
    t.title = "AICPU lifecycle (start-up / tear-down)";
    t.columns = {"thread"};
    for (auto name : kLifecycleIntervals) t.columns.push_back(std::string(name) + " µs");
    t.align = {render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    for (const LifecycleRecord& r : c.lifecycle) {
        std::vector<std::string> row{fmt::format("AICPU Thread {}", r.thread)};
        for (auto [start, end] : r.intervals)
            row.push_back(start == kNoTime ? std::string("-") : ns_as_us(end - start));
        t.rows.push_back(std::move(row));
    }
    return t;
}

/// Graph replay (§1.11, §1.17): per outer task its prepare time (Σ `graph_prepare`) against the
/// execution span of its SUB_TASK rows (first dispatch … last finish).
render::Table graph_replay_table(const Capture& c) {
    render::Table t;
    t.title = "Graph replay (prepare vs execution)";
    t.columns = {"outer task", "run_epoch", "prepare records",
                 "prepare µs", "sub-tasks", "execution µs"};
    t.align = {render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    struct Graph {
        std::size_t prepares = 0;
        std::int64_t prepare_ns = 0;
        std::set<std::uint32_t> sub_tasks;
        std::int64_t first = std::numeric_limits<std::int64_t>::max();
        std::int64_t last = std::numeric_limits<std::int64_t>::min();
    };
    std::map<std::pair<std::int64_t, std::uint64_t>, Graph> graphs;
    for (const SchedulerPhase& p : c.scheduler_phases) {
        if (p.kind != PhaseKind::GraphPrepare || p.task_id < 0 || (p.task_id >> 32) != 0) continue;
        Graph& g = graphs[{p.run_epoch, static_cast<std::uint64_t>(p.task_id)}];
        ++g.prepares;
        g.prepare_ns += p.end_ns - p.start_ns;
    }
    for (const TaskRow& row : c.tasks) {
        if (hbg_space(row.task_id) != 1) continue;
        auto it = graphs.find({row.run_epoch, hbg_parent(row.task_id)});
        if (it == graphs.end()) continue;
        it->second.sub_tasks.insert(task_local(row.task_id));
        it->second.first =
            std::min(it->second.first, row.dispatch_ns != kNoTime ? row.dispatch_ns : row.start_ns);
        it->second.last =
            std::max(it->second.last, row.finish_ns != kNoTime ? row.finish_ns : row.end_ns);
    }
    for (const auto& [key, g] : graphs)
        t.rows.push_back({task_display(key.second, c.labels), epoch_text(key.first),
                          std::to_string(g.prepares), ns_as_us(g.prepare_ns),
                          std::to_string(g.sub_tasks.size()),
                          g.sub_tasks.empty() ? std::string("-") : ns_as_us(g.last - g.first)});
    return t;
}

}  // namespace

bool has_capture_facts(const Capture& c) {
    return c.september() || c.runs.size() > 1 || !c.streams.empty() || !c.lifecycle.empty() ||
           c.clock_alignment.status != ContainmentAlignment::Status::None;
}

void add_capture_facts(render::Report& report, const Capture& c, const Analysis& analysis) {
    if (!has_capture_facts(c)) return;
    report.tables.push_back(facts_table(c));
    if (!analysis.aicore_schedulers.empty()) report.tables.push_back(aicore_table(analysis));
    if (!c.lifecycle.empty()) report.tables.push_back(lifecycle_table(c));
    if (c.labels == TaskLabels::HostBuildGraph)
        if (render::Table graphs = graph_replay_table(c); !graphs.rows.empty())
            report.tables.push_back(std::move(graphs));
    nlohmann::json streams = nlohmann::json::array();
    for (const SchedulerStream& s : c.streams)
        if (s.present)
            streams.push_back({{"scheduler_id", s.scheduler_id},
                               {"worker_id", s.worker_id},
                               {"producer", s.producer},
                               {"core_type", s.core_type},
                               {"committed", s.committed},
                               {"dropped", s.dropped},
                               {"truncated", s.truncated},
                               {"records", s.records}});
    nlohmann::json runs = nlohmann::json::array();
    for (const RunInfo& run : c.runs)
        runs.push_back(
            {{"run_epoch", run.epoch == kNoEpoch ? nlohmann::json() : nlohmann::json(run.epoch)},
             {"tasks", run.tasks},
             {"task_rows", run.rows}});
    nlohmann::json aicore = nlohmann::json::array();
    for (const auto& s : analysis.aicore_schedulers)
        aicore.push_back({{"thread", s.thread},
                          {"worker_id", s.worker_id},
                          {"span_us", s.span_us},
                          {"idle_us", s.idle_us},
                          {"idle_share", s.idle_share},
                          {"bootstrap_us", s.bootstrap_us},
                          {"kind_us", s.kind_us},
                          {"dispatched", s.dispatched},
                          {"stolen", s.stolen},
                          {"refilled", s.refilled}});
    report.data["capture"] = {{"runtime", std::string(to_string(c.runtime))},
                              {"runtime_inferred", !c.runtime_given},
                              {"scheduler_producer", c.scheduler_producer},
                              {"streams", std::move(streams)},
                              {"runs", std::move(runs)},
                              {"aicore_schedulers", std::move(aicore)},
                              {"clock_alignment", alignment_json(c.clock_alignment)}};
    if (c.clock_alignment.source == "host logs")
        report.notes.push_back(
            "The clock alignment above is the record upstream's converter would write back into "
            "the records file (metadata.clock_alignment); ptune never writes into its input.");
}

}  // namespace ptune::swimlane::detail
