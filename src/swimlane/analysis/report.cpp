// The swimlane reports (see report.hpp): the tables and JSON view of swimlane-analyze and the
// per-capture overview of advise, both from one Analysis.

#include "ptune/swimlane/report.hpp"

#include <sstream>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/swimlane/summary.hpp"
#include "report_capture.hpp"
#include "schedule_graph_report.hpp"

namespace ptune::swimlane {

namespace {

// Critical paths longer than this are shortened in text and Markdown (JSON keeps every task).
constexpr std::size_t kPathRowsShown = 20;

std::string fixed(double value, int decimals = 2) {
    return stats::format_fixed(value, decimals);
}
/// "12.3%" in the swimlane-analyze tables; the advise overview writes "12.3 %" like its other
/// sections.
std::string percent(double fraction) {
    return stats::format_ratio(fraction);
}

nlohmann::json metrics_json(const rules::MetricStore& store) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, subject] : store.subjects()) {
        nlohmann::json& entry = key.kind == "run" ? out["run"] : out[key.kind][key.name];
        for (const auto& [name, value] : subject.metrics) entry[name] = value;
        for (const auto& [name, value] : subject.labels) entry[name] = value;
    }
    return out;
}

nlohmann::json critical_path_json(const CriticalPath& cp) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& step : cp.tasks) {
        tasks.push_back({{"task", step.label},
                         {"task_id", step.task_id},
                         {"start_us", step.start},
                         {"end_us", step.end},
                         {"wait_us", step.wait_us}});
    }
    nlohmann::json out = {{"tasks", std::move(tasks)},
                          {"length_us", cp.length_us},
                          {"kernel_us", cp.kernel_us},
                          {"overhead_us", cp.overhead_us},
                          {"window_share", cp.window_share},
                          {"graph_tasks", cp.graph_tasks},
                          {"zero_slack_tasks", cp.zero_slack_tasks},
                          {"slack_p50_us", cp.slack_p50_us},
                          {"slack_max_us", cp.slack_max_us},
                          {"cycle_tasks", cp.cycle_tasks}};
    if (!cp.cycle.empty()) out["cycle"] = cp.cycle;
    return out;
}

render::Table run_table(const Analysis& a, const AnalyzeInput& input) {
    render::Table t;
    t.title = "Schedule";
    t.columns = {"metric", "value"};
    auto add = [&](std::string name, std::string value) {
        t.rows.push_back({std::move(name), std::move(value)});
    };
    add("level", fmt::format("{}", input.level));
    add("rows / tasks", fmt::format("{} / {}", a.rows, a.tasks));
    add("cores", fmt::format("{} AIC + {} AIV", a.cores_aic, a.cores_aiv));
    add("window (first start to last end)", fixed(a.window_us) + " µs");
    if (input.has_aicpu_timing)
        add("Total Test Time", fixed(a.total_test_time_us) + " µs");
    else
        add("AICore Observed Span", fixed(a.total_test_time_us) + " µs");
    add("average parallelism", fixed(a.average_parallelism, 3));
    add("AIC / AIV busy",
        percent(a.cube_vector.util_aic) + " / " + percent(a.cube_vector.util_aiv));
    add("cube only / vector only",
        percent(a.cube_vector.cube_only) + " / " + percent(a.cube_vector.vector_only));
    if (!a.schedulers.empty()) {
        add("AICPU scheduler saturation (mean)", percent(a.scheduler_saturation_mean));
        add("half the cores idle, all schedulers busy", percent(a.idle_while_scheduler_busy));
    }
    if (a.dispatch_cost_us) add("AICPU cost per dispatch", fixed(*a.dispatch_cost_us, 3) + " µs");
    add("kernel p10 / median / p90",
        fmt::format("{} / {} / {} µs", fixed(a.kernel_p10_us), fixed(a.kernel_median_us),
                    fixed(a.kernel_p90_us)));
    add(fmt::format("kernels below {} µs", fixed(a.target_kernel_us, 0)),
        percent(a.kernel_below_target_share));
    add("longest task",
        fmt::format("{} {} µs ({})", a.tail.longest_task, fixed(a.tail.longest_task_us),
                    percent(a.tail.longest_task_share)));
    add("tail after the last 2-core moment",
        fmt::format("{} µs ({}), {} covers {}", fixed(a.tail.tail_us),
                    percent(a.tail.tail_fraction), a.tail.owner, percent(a.tail.owner_cover)));
    if (input.has_deps) {
        add("cube/vector one-to-one hand-offs",
            fmt::format("{} ({} µs)", a.cube_vector.handoff_pairs,
                        fixed(a.cube_vector.handoff_sum_us)));
    }
    add("dispatch trails", fmt::format("{}", a.trails.size()));
    const auto& cp = a.critical_path;
    if (!cp.cycle.empty()) {
        // Without this line a cycle read as "critical path 1 tasks".
        add("dependency cycle",
            fmt::format("{} -> {} (deps.json; {} task(s) on or behind a cycle are left out of "
                        "the critical path)",
                        fmt::join(cp.cycle, " -> "), cp.cycle.front(), cp.cycle_tasks));
    }
    if (cp.available) {
        add("critical path",
            fmt::format("{} tasks, {} µs ({} of the window): {} µs kernel, {} µs scheduling",
                        cp.tasks.size(), fixed(cp.length_us), percent(cp.window_share),
                        fixed(cp.kernel_us), fixed(cp.overhead_us)));
        add("slack (tasks at zero / p50 / max)",
            fmt::format("{} / {} / {} µs", cp.zero_slack_tasks, fixed(cp.slack_p50_us),
                        fixed(cp.slack_max_us)));
    }
    return t;
}

render::Table lanes_table(const Analysis& a, bool aicpu) {
    render::Table t;
    t.title = "Lanes";
    t.columns = {"lane",         "tasks",        "busy",   "gaps",        "gap p50 (µs)",
                 "gap p95 (µs)", "gap max (µs)", "pickup", "starved (µs)"};
    t.align = {render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    for (const auto& lane : a.lanes) {
        const auto& g = lane.gaps;
        t.rows.push_back({lane_name(lane.core, lane.kind), fmt::format("{}", lane.rows),
                          percent(lane.busy_fraction), fmt::format("{}", g.count), fixed(g.p50_us),
                          fixed(g.p95_us), fixed(g.max_us),
                          aicpu ? fmt::format("{}", g.pickup_count) : "-",
                          aicpu ? fixed(g.starved_us) : "-"});
    }
    return t;
}

render::Table schedulers_table(const Analysis& a) {
    render::Table t;
    t.title = "AICPU scheduler threads";
    t.columns = {"thread", "busy (µs)", "saturation", "dispatch records", "tasks dispatched"};
    t.align = {render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    for (const auto& s : a.schedulers) {
        t.rows.push_back({fmt::format("Sched_{}", s.thread), fixed(s.busy_us),
                          percent(s.saturation), fmt::format("{}", s.dispatch_records),
                          fmt::format("{}", s.tasks_dispatched)});
    }
    return t;
}

// The converter's "Task Statistics by Function" numbers (swimlane.md §6.4), plus the median.
render::Table functions_table(const Analysis& a, bool aicpu) {
    render::Table t;
    t.title = "Task Statistics by Function";
    t.columns = {"Func_ID",          "Func_Name",        "Count",         "Avg Exec (µs)",
                 "Median Exec (µs)", "Avg Latency (µs)", "Exec%",         "Avg Head OH (µs)",
                 "Avg Tail OH (µs)", "Avg Prop (µs)",    "Avg Local (µs)"};
    t.align = {render::Align::Left, render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    auto when_aicpu = [&](std::string text) { return aicpu ? text : std::string("-"); };
    for (const auto& f : a.functions) {
        double n = static_cast<double>(f.count);
        t.rows.push_back({fmt::format("{}", f.func_id), f.name, fmt::format("{}", f.count),
                          fixed(f.exec_sum_us / n), fixed(f.exec_median_us),
                          when_aicpu(fixed(f.latency_sum_us / n)),
                          when_aicpu(f.latency_sum_us > 0
                                         ? fixed(f.exec_sum_us / f.latency_sum_us * 100, 1) + "%"
                                         : "-"),
                          when_aicpu(fixed(f.head_sum_us / n)),
                          when_aicpu(fixed(f.tail_sum_us / n)),
                          when_aicpu(fixed(f.prop_sum_us / n)), fixed(f.local_sum_us / n)});
    }
    t.rows.push_back({"TOTAL", "", fmt::format("{}", a.rows), fixed(a.exec_sum_us), "",
                      when_aicpu(fixed(a.latency_sum_us)), "", "", "", "", ""});
    return t;
}

render::Table trails_table(const Analysis& a) {
    render::Table t;
    t.title = "Dispatch trails";
    t.columns = {"function",   "tasks",          "first",     "last",       "span (µs)",
                 "slope (µs)", "mean exec (µs)", "span/exec", "idle cores", "R2"};
    t.align = {render::Align::Left, render::Align::Right, render::Align::Left, render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    for (const auto& trail : a.trails) {
        t.rows.push_back({trail.function, fmt::format("{}", trail.tasks), trail.first_task,
                          trail.last_task, fixed(trail.span_us), fixed(trail.slope_us, 3),
                          fixed(trail.mean_exec_us), fixed(trail.span_over_exec),
                          percent(trail.idle_core_fraction), fixed(trail.staircase_r2, 3)});
    }
    return t;
}

render::Table handoffs_table(const Analysis& a) {
    render::Table t;
    t.title = "Cube/vector hand-offs (one-to-one edges between AIC and AIV tasks)";
    t.columns = {"producer", "consumer", "pairs", "total (µs)", "mean (µs)", "max (µs)"};
    t.align = {render::Align::Left, render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    for (const auto& g : a.cube_vector.handoffs) {
        t.rows.push_back(
            {g.producer, g.consumer, fmt::format("{}", g.pairs), fixed(g.handoff_sum_us),
             fixed(g.handoff_sum_us / static_cast<double>(g.pairs)), fixed(g.handoff_max_us)});
    }
    return t;
}

render::Table path_table(const CriticalPath& cp) {
    render::Table t;
    t.title = "Critical path";
    t.columns = {"#", "task", "start (µs)", "end (µs)", "kernel (µs)", "wait (µs)"};
    t.align = {render::Align::Right, render::Align::Left};
    t.align.resize(t.columns.size(), render::Align::Right);
    std::size_t n = cp.tasks.size();
    for (std::size_t i = 0; i < n; ++i) {
        // Long paths: the first and last rows, the full list is in the JSON output.
        if (n > kPathRowsShown && i == kPathRowsShown / 2) {
            t.rows.push_back(
                {"...", fmt::format("{} more tasks", n - kPathRowsShown), "", "", "", ""});
            i = n - kPathRowsShown / 2;
        }
        const auto& step = cp.tasks[i];
        t.rows.push_back({fmt::format("{}", i + 1), step.label, fixed(step.start), fixed(step.end),
                          fixed(step.end - step.start), fixed(step.wait_us)});
    }
    return t;
}

/// The analysis as JSON. Without dispatch/finish times (`aicpu` false: level 1) the figures
/// that need them (latency, head, tail, propagation, pick-up and starved gaps) are not measured
/// and are null, as the text tables print "-" — never a number their definition forbids.
nlohmann::json analysis_json(const Analysis& a, bool aicpu) {
    nlohmann::json lanes = nlohmann::json::array(), schedulers = nlohmann::json::array(),
                   functions = nlohmann::json::array(), trails = nlohmann::json::array(),
                   handoffs = nlohmann::json::array();
    auto measured = [&](auto value) { return aicpu ? nlohmann::json(value) : nlohmann::json(); };
    for (const auto& lane : a.lanes) {
        const auto& g = lane.gaps;
        lanes.push_back({{"lane", lane_name(lane.core, lane.kind)},
                         {"core", lane.core},
                         {"tasks", lane.rows},
                         {"busy_us", lane.busy_us},
                         {"busy_fraction", lane.busy_fraction},
                         {"gaps",
                          {{"count", g.count},
                           {"total_us", g.total_us},
                           {"p50_us", g.p50_us},
                           {"p95_us", g.p95_us},
                           {"max_us", g.max_us},
                           {"pickup_count", measured(g.pickup_count)},
                           {"pickup_us", measured(g.pickup_us)},
                           {"starved_count", measured(g.starved_count)},
                           {"starved_us", measured(g.starved_us)}}}});
    }
    for (const auto& s : a.schedulers) {
        schedulers.push_back({{"thread", s.thread},
                              {"busy_us", s.busy_us},
                              {"saturation", s.saturation},
                              {"dispatch_records", s.dispatch_records},
                              {"tasks_dispatched", s.tasks_dispatched}});
    }
    for (const auto& f : a.functions) {
        functions.push_back({{"func_id", f.func_id},
                             {"name", f.name},
                             {"count", f.count},
                             {"exec_sum_us", f.exec_sum_us},
                             {"latency_sum_us", measured(f.latency_sum_us)},
                             {"head_sum_us", measured(f.head_sum_us)},
                             {"tail_sum_us", measured(f.tail_sum_us)},
                             {"prop_sum_us", measured(f.prop_sum_us)},
                             {"local_sum_us", f.local_sum_us},
                             {"exec_median_us", f.exec_median_us},
                             {"exec_p10_us", f.exec_p10_us},
                             {"exec_p90_us", f.exec_p90_us},
                             {"below_target_share", f.below_target_share}});
    }
    for (const auto& t : a.trails) {
        trails.push_back({{"function", t.function},
                          {"tasks", t.tasks},
                          {"first_task", t.first_task},
                          {"last_task", t.last_task},
                          {"first_dispatch_us", t.first_dispatch_us},
                          {"span_us", t.span_us},
                          {"slope_us", t.slope_us},
                          {"mean_exec_us", t.mean_exec_us},
                          {"span_over_exec", t.span_over_exec},
                          {"idle_core_fraction", t.idle_core_fraction},
                          {"staircase_r2", t.staircase_r2}});
    }
    for (const auto& g : a.cube_vector.handoffs) {
        handoffs.push_back({{"producer", g.producer},
                            {"consumer", g.consumer},
                            {"pairs", g.pairs},
                            {"handoff_sum_us", g.handoff_sum_us},
                            {"handoff_max_us", g.handoff_max_us}});
    }
    return {{"lanes", std::move(lanes)},
            {"schedulers", std::move(schedulers)},
            {"functions", std::move(functions)},
            {"trails", std::move(trails)},
            {"handoffs", std::move(handoffs)}};
}

void build_tables(render::Report& report, const CaptureAnalysis& result) {
    const Analysis& a = result.analysis;
    const AnalyzeInput& input = result.input;
    report.tables.push_back(run_table(a, input));
    report.tables.push_back(lanes_table(a, input.has_aicpu_timing));
    if (!a.schedulers.empty()) report.tables.push_back(schedulers_table(a));
    report.tables.push_back(functions_table(a, input.has_aicpu_timing));
    if (!a.trails.empty()) report.tables.push_back(trails_table(a));
    if (!a.cube_vector.handoffs.empty()) report.tables.push_back(handoffs_table(a));
    if (a.critical_path.available) report.tables.push_back(path_table(a.critical_path));
    detail::add_schedule_graph_tables(report, result.graph);
    if (!input.has_deps)
        report.notes.push_back("No deps.json: no critical path and no cube/vector hand-offs.");
}

}  // namespace

render::Report build_report(const LoadedCapture& loaded, const CaptureAnalysis& result,
                            const rules::MetricStore& store, std::vector<rules::Finding> findings) {
    const Analysis& analysis = result.analysis;
    render::Report report;
    report.command = "swimlane-analyze";
    report.findings = std::move(findings);
    report.data["source"] = loaded.files.records.string();
    report.data["deps"] =
        loaded.deps ? nlohmann::json(loaded.files.deps.string()) : nlohmann::json();
    report.data["level"] = result.input.level;
    report.data["metrics"] = metrics_json(store);
    report.data["critical_path"] = analysis.critical_path.available
                                       ? critical_path_json(analysis.critical_path)
                                       : nlohmann::json();
    report.data.update(analysis_json(analysis, result.input.has_aicpu_timing));
    report.data["schedule_graph"] = detail::schedule_graph_json(result.graph);
    build_tables(report, result);
    detail::add_capture_facts(report, loaded.capture, analysis);
    return report;
}

render::Report build_runs_report(const LoadedCapture& loaded,
                                 const std::vector<CaptureAnalysis>& runs,
                                 const std::vector<rules::MetricStore>& stores,
                                 std::vector<std::vector<rules::Finding>> findings) {
    render::Report report;
    report.command = "swimlane-analyze";
    report.data["source"] = loaded.files.records.string();
    report.data["deps"] =
        loaded.deps ? nlohmann::json(loaded.files.deps.string()) : nlohmann::json();
    report.data["level"] = loaded.capture.level;
    report.data["runs"] = nlohmann::json::array();
    for (std::size_t k = 0; k < runs.size(); ++k) {
        render::Report one;
        build_tables(one, runs[k]);
        for (auto& table : one.tables) {
            table.title = fmt::format("{}: {}", runs[k].run_label, table.title);
            report.tables.push_back(std::move(table));
        }
        for (auto& finding : findings[k]) {
            finding.message = fmt::format("[{}] {}", runs[k].run_label, finding.message);
            report.findings.push_back(std::move(finding));
        }
        nlohmann::json data = analysis_json(runs[k].analysis, runs[k].input.has_aicpu_timing);
        data["run"] = runs[k].run_label;
        data["schedule_graph"] = detail::schedule_graph_json(runs[k].graph);
        data["metrics"] = metrics_json(stores[k]);
        data["critical_path"] = runs[k].analysis.critical_path.available
                                    ? critical_path_json(runs[k].analysis.critical_path)
                                    : nlohmann::json();
        report.data["runs"].push_back(std::move(data));
    }
    report.notes.push_back(fmt::format(
        "{} runs in one records file: each is analysed on its own, never joined (task ids "
        "restart per run).",
        runs.size()));
    detail::add_capture_facts(report, loaded.capture,
                              runs.empty() ? Analysis{} : runs.back().analysis);
    return report;
}

render::Report build_merge_report(const std::vector<LoadedCapture>& loaded,
                                  const std::string& trace_path) {
    render::Report report;
    report.command = "swimlane-merge";
    report.include_findings_in_json = false;
    nlohmann::json captures = nlohmann::json::array();
    for (const LoadedCapture& l : loaded) {
        nlohmann::json entry = summary_to_json(summarize(l.capture, l.names_or_null()));
        entry["label"] = l.files.label;
        entry["inputs"] = l.inputs;
        entry["dropped_rows"] = l.capture.dropped.total();
        entry["truncated"] = l.capture.truncated;
        captures.push_back(std::move(entry));
    }
    report.data["trace"] = trace_path.empty() ? nlohmann::json() : nlohmann::json(trace_path);
    report.data["captures"] = std::move(captures);
    return report;
}

void write_merge_summary(std::ostream& out, const std::vector<LoadedCapture>& loaded,
                         const std::string& input, const std::string& trace_path,
                         std::size_t width) {
    std::ostringstream os;
    if (!trace_path.empty()) {
        os << "\n\u2713 Conversion complete\n  Input:  " << input << "\n  Output: " << trace_path
           << "\n\nTo visualize: Open https://ui.perfetto.dev/ and drag in " << trace_path
           << "\n\n";
    }
    std::string additions;
    for (const LoadedCapture& l : loaded) {
        if (loaded.size() > 1)
            os << "Capture " << l.files.label << " (" << l.files.records.string() << ")\n";
        Summary summary = summarize(l.capture, l.names_or_null());
        os << format_summary(summary) << '\n';
        std::string own = format_additions(summary);
        if (!own.empty() && loaded.size() > 1) own = "Capture " + l.files.label + ":\n" + own;
        additions += own;
    }
    // Upstream's closing line, then ptune's own lines after upstream's block (issue 31 item 8).
    os << "Scheduler-overhead deep-dive: run sched_overhead_analysis manually with a "
          "separately-captured deps.json (--enable-dep-gen).\n";
    os << additions << "Schedule analysis (ptune): ptune swimlane-analyze " << input << '\n';
    out << fold_summary(os.str(), width);
}

Overview make_overview() {
    Overview overview;
    overview.table.columns = {"capture",      "tasks",
                              "window (µs)",  "Total Test Time (µs)",
                              "parallelism",  "kernel median (µs)",
                              "longest task", "critical path (µs)"};
    overview.table.align = {render::Align::Left};
    overview.table.align.resize(overview.table.columns.size(), render::Align::Right);
    return overview;
}

void add_to_overview(Overview& overview, const std::string& label, const LoadedCapture& loaded,
                     const Analysis& analysis) {
    overview.table.rows.push_back(
        {label, std::to_string(analysis.tasks), fixed(analysis.window_us),
         fixed(analysis.total_test_time_us), fixed(analysis.average_parallelism, 3),
         fixed(analysis.kernel_median_us),
         analysis.window_us > 0 ? percent(analysis.tail.longest_task_share) : "-",
         analysis.critical_path.tasks.empty() ? "-" : fixed(analysis.critical_path.length_us)});
    overview.data.push_back({{"capture", label},
                             {"records", loaded.files.records.string()},
                             {"tasks", analysis.tasks},
                             {"window_us", analysis.window_us},
                             {"total_test_time_us", analysis.total_test_time_us},
                             {"average_parallelism", analysis.average_parallelism}});
}

}  // namespace ptune::swimlane
