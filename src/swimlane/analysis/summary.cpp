// The converter's "Task Statistics by Function" block (swimlane.md §6.4), with its float
// arithmetic reproduced: per-row µs values as `(c − B) · (1e6 / f)`, sequential sums, averages
// as sum / count and Python's ".2f" (exactly rounded) formatting.

#include "ptune/swimlane/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane {

namespace {

std::string_view level_description(int level, bool september) {
    switch (level) {
        case 1:
            return "AICore timing only";
        case 2:
            return september ? "AICore + Scheduler task timing" : "AICore + AICPU timing";
        case 3:
            return september ? "AICore + Scheduler task timing + scheduler phases"
                             : "AICore + AICPU timing + scheduler phases";
        case 4:
            return "full collection with orchestrator phases";
        default:
            return "unknown level";
    }
}

std::string fixed2(double value) {
    return stats::format_fixed(value, 2);
}

double round3(double value) {
    return std::round(value * 1000.0) / 1000.0;
}

}  // namespace

std::string clock_alignment_line(const Capture& capture) {
    const ContainmentAlignment& a = capture.clock_alignment;
    switch (a.status) {
        case ContainmentAlignment::Status::None:
            return {};
        case ContainmentAlignment::Status::Unavailable:
            return fmt::format(
                "Clock alignment: unavailable ({}); device times stay on their own "
                "axis",
                a.reason);
        case ContainmentAlignment::Status::Bounded:
            break;
    }
    std::string from =
        a.source == "saved" ? "saved in the records" : "span containment of the host logs";
    std::string line = fmt::format(
        "Clock alignment: bounded ({}), bound {} us (host_anchor {} ns within [{}, {}])", from,
        stats::format_fixed(static_cast<double>(a.bound_ns()) / 1000.0, 3), a.host_anchor_ns,
        a.host_anchor_min_ns, a.host_anchor_max_ns);
    if (a.source == "host logs")
        line +=
            "\n  (upstream writes this record back into the records file as "
            "metadata.clock_alignment; ptune leaves its input unchanged)";
    return line;
}

namespace {}  // namespace

Summary summarize(const Capture& capture, const KernelNames* names) {
    Summary summary;
    summary.level_key = capture.level_key.empty() ? "level" : capture.level_key;
    summary.level = capture.level;
    summary.records_name = capture.source;
    if (auto slash = summary.records_name.find_last_of('/'); slash != std::string::npos)
        summary.records_name.erase(0, slash + 1);
    summary.has_aicpu = std::any_of(capture.tasks.begin(), capture.tasks.end(),
                                    [](const TaskRow& row) { return row.has_aicpu(); });
    const Clock& clock = capture.clock;
    std::map<std::int32_t, FunctionSummary> groups;
    double min_dispatch = std::numeric_limits<double>::infinity();
    double max_finish = -std::numeric_limits<double>::infinity();
    for (const TaskRow& row : capture.tasks) {
        FunctionSummary& group = groups[row.func_id];
        double start = clock.upstream_us(row.start_ns);
        double end = clock.upstream_us(row.end_ns);
        double receive = clock.upstream_us(row.receive_ns);
        double dispatch = clock.upstream_us(row.dispatch_ns);
        double finish = clock.upstream_us(row.finish_ns);
        ++group.count;
        group.sum_exec_us += end - start;
        group.sum_local_us += start - receive;
        if (summary.has_aicpu) {
            group.sum_latency_us += finish - dispatch;
            group.sum_head_us += start - dispatch;
            summary.head_total_us += start - dispatch;
            summary.head_max_us = std::max(summary.head_max_us, start - dispatch);
            group.sum_tail_us += finish - end;
            group.sum_prop_us += receive - dispatch;
            min_dispatch = std::min(min_dispatch, dispatch);
            max_finish = std::max(max_finish, finish);
        } else {
            min_dispatch = std::min(min_dispatch, receive);
            max_finish = std::max(max_finish, end);
        }
    }
    for (auto& [func_id, group] : groups) {
        group.func_id = func_id;
        group.name = func_id < 0 ? "func_-1_" : kernel_base_name(func_id, names);
        summary.total_count += group.count;
        summary.total_exec_us += group.sum_exec_us;
        summary.total_latency_us += group.sum_latency_us;
        summary.functions.push_back(group);
    }
    if (!capture.tasks.empty()) summary.total_test_time_us = max_finish - min_dispatch;
    summary.september = capture.september();
    summary.clock_alignment_line = clock_alignment_line(capture);
    summary.clock_alignment_record = capture.clock_alignment.record_json();
    summary.clock_alignment_source = capture.clock_alignment.source;
    if (capture.clock_alignment.bounded())
        summary.clock_alignment_bound_ns = capture.clock_alignment.bound_ns();
    if (capture.runs.size() > 1)
        for (std::size_t k = 0; k < capture.runs.size(); ++k) {
            const RunInfo& run = capture.runs[k];
            summary.runs.push_back(
                fmt::format("{}: {} task(s), {} row(s)",
                            run.epoch == kNoEpoch
                                ? fmt::format("run {} of {} (detected)", k + 1, capture.runs.size())
                                : fmt::format("run_epoch {}", run.epoch),
                            run.tasks, run.rows));
        }
    return summary;
}

std::string format_summary(const Summary& s) {
    const std::string rule(140, '=');
    const std::string dash(140, '-');
    std::string out;
    auto line = [&out](std::string_view text) {
        out += text;
        out += '\n';
    };
    line(rule);
    line("Task Statistics by Function");
    line(fmt::format("  Source {}: {} ({}; recorded in {})", s.level_key, s.level,
                     level_description(s.level, s.september), s.records_name));
    line(
        "  Exec = kernel time on AICore; Latency = dispatch->finish (incl. head OH + Exec + tail "
        "OH)");
    line(
        "  Head OH split (v3): Prop = NoC propagation (dispatch_ts\u2192AICore receive); Local = "
        "dcci+ack "
        "(receive\u2192start)");
    line(rule);
    line(
        "Func_ID  Func_Name    Count   Avg Exec(us)  Avg Latency(us)   Exec%   Avg Head OH(us)  "
        "Avg Tail OH(us)  "
        "Avg Prop(us)  Avg Local(us)");
    line(dash);
    for (const FunctionSummary& f : s.functions) {
        double n = static_cast<double>(f.count);
        std::string latency = "-", exec_pct = "-", head = "-", tail = "-", prop = "-";
        if (s.has_aicpu) {
            latency = fixed2(f.sum_latency_us / n);
            exec_pct = f.sum_latency_us > 0
                           ? stats::format_fixed(f.sum_exec_us / f.sum_latency_us * 100.0, 1) + "%"
                           : std::string("-");
            head = fixed2(f.sum_head_us / n);
            tail = fixed2(f.sum_tail_us / n);
            prop = fixed2(f.sum_prop_us / n);
        }
        line(fmt::format(
            "{:<8} {:<12} {:>5}   {:>12}  {:>15}  {:>6}   {:>15}  {:>15}  {:>12}  {:>13}",
            f.func_id, f.name, f.count, fixed2(f.sum_exec_us / n), latency, exec_pct, head, tail,
            prop, fixed2(f.sum_local_us / n)));
    }
    line(dash);
    line(fmt::format("{:<21} {:>5}   {:>12}  {:>15}", "TOTAL", s.total_count,
                     fixed2(s.total_exec_us),
                     s.has_aicpu ? fixed2(s.total_latency_us) : std::string("-")));
    line("");
    if (!s.has_aicpu) {
        line(fmt::format(
            "AICore Observed Span: {} us (from earliest AICore receive to latest AICore end)",
            fixed2(s.total_test_time_us)));
        line(std::string(110, '='));
        return out;
    }
    line(fmt::format("Total Test Time: {} us (from earliest dispatch to latest finish)",
                     fixed2(s.total_test_time_us)));
    line("");
    line("--- Task execution vs Scheduler overhead ---");
    double n = static_cast<double>(s.total_count);
    double ratio = s.total_latency_us > 0 ? s.total_exec_us / s.total_latency_us * 100.0 : 0.0;
    line(
        fmt::format("  Per-task (all):  Avg Exec = {} us,  Avg Latency (dispatch->finish) = {} us, "
                    " Exec/Latency = "
                    "{}%",
                    fixed2(s.total_count ? s.total_exec_us / n : 0.0),
                    fixed2(s.total_count ? s.total_latency_us / n : 0.0), fixed2(ratio)));
    line("  (Latency = dispatch\u2192finish; Exec = AICore kernel time per task)");
    if (s.september && s.total_count > 0 && s.head_total_us > 0)
        line(fmt::format("  Dispatch\u2192kernel start (Host-computed): Total = {} us, Max = {} us",
                         fixed2(s.head_total_us), fixed2(s.head_max_us)));
    line(std::string(110, '='));
    return out;
}

std::string format_additions(const Summary& s) {
    std::string out;
    if (!s.clock_alignment_line.empty()) out += s.clock_alignment_line + '\n';
    if (!s.runs.empty()) {
        out += fmt::format(
            "Runs: {} in this records file (the statistics above pool them, as upstream does; "
            "swimlane-analyze analyses each run on its own)\n",
            s.runs.size());
        for (const auto& run : s.runs) out += "  " + run + '\n';
    }
    return out;
}

std::string fold_summary(std::string_view text, std::size_t width) {
    if (width == 0) return std::string(text);
    constexpr std::size_t kIndent = 4;
    auto is_rule = [](std::string_view line) {
        return !line.empty() && line.find_first_not_of(line.front()) == std::string_view::npos &&
               (line.front() == '=' || line.front() == '-');
    };
    auto lines = text::split(text, '\n');
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) out += '\n';
        std::string_view line = lines[i];
        if (line.rfind("Func_ID ", 0) == 0) {
            // The function table: its header and its rows (up to the closing rule) fold at the
            // same columns; the rule under the header stays as it is.
            std::vector<std::string> table = {std::string(line)};
            std::size_t rule = i + 1 < lines.size() && is_rule(lines[i + 1]) ? i + 1 : i;
            std::size_t end = rule + 1;
            while (end < lines.size() && !is_rule(lines[end])) table.emplace_back(lines[end++]);
            auto folded = term::fold_table(table, width, kIndent);
            out += folded[0];
            if (rule != i) (out += '\n') += lines[rule];
            for (std::size_t r = 1; r < folded.size(); ++r) (out += '\n') += folded[r];
            i = end - 1;
            continue;
        }
        bool whole = is_rule(line) || line.rfind("TOTAL ", 0) == 0 ||
                     line.find("Total Test Time:") != std::string_view::npos;
        out += whole ? std::string(line) : term::fold_line(line, width, kIndent);
    }
    return out;
}

nlohmann::json summary_to_json(const Summary& s) {
    nlohmann::json functions = nlohmann::json::array();
    for (const FunctionSummary& f : s.functions) {
        double n = static_cast<double>(f.count);
        nlohmann::json entry = {{"func_id", f.func_id},
                                {"name", f.name},
                                {"count", f.count},
                                {"avg_exec_us", round3(f.sum_exec_us / n)},
                                {"avg_local_us", round3(f.sum_local_us / n)}};
        if (s.has_aicpu) {
            entry["avg_latency_us"] = round3(f.sum_latency_us / n);
            entry["exec_pct"] =
                f.sum_latency_us > 0 ? round3(f.sum_exec_us / f.sum_latency_us * 100.0) : 0.0;
            entry["avg_head_us"] = round3(f.sum_head_us / n);
            entry["avg_tail_us"] = round3(f.sum_tail_us / n);
            entry["avg_prop_us"] = round3(f.sum_prop_us / n);
        }
        functions.push_back(std::move(entry));
    }
    nlohmann::json out = {
        {"level_key", s.level_key},
        {"level", s.level},
        {"records", s.records_name},
        {"functions", std::move(functions)},
        {"total", {{"count", s.total_count}, {"exec_us", round3(s.total_exec_us)}}}};
    if (s.has_aicpu) {
        out["total"]["latency_us"] = round3(s.total_latency_us);
        out["total_test_time_us"] = round3(s.total_test_time_us);
    } else {
        out["aicore_observed_span_us"] = round3(s.total_test_time_us);
    }
    if (s.september && s.has_aicpu)
        out["dispatch_to_kernel_start"] = {{"total_us", round3(s.head_total_us)},
                                           {"max_us", round3(s.head_max_us)}};
    if (!s.runs.empty()) out["runs"] = s.runs;
    if (!s.clock_alignment_record.empty()) {
        nlohmann::json alignment = nlohmann::json::parse(s.clock_alignment_record);
        alignment["source"] = s.clock_alignment_source;
        alignment["written_to_input"] = false;
        if (s.clock_alignment_bound_ns >= 0) alignment["bound_ns"] = s.clock_alignment_bound_ns;
        out["clock_alignment"] = std::move(alignment);
    }
    return out;
}

}  // namespace ptune::swimlane
