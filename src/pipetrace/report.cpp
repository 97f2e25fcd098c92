// The pipe-trace report: the task summary, pipes per sub-core, overlaps, exposed load, and the
// JSON view (docs/pipe-trace.md).

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/pipetrace/pipeline.hpp"

namespace ptune::pipetrace {

namespace {

using render::Align;

std::string trace_us(double value) {
    return stats::format_fixed(value, 3);
}

std::string pipe_pair(const Overlap& overlap) {
    return fmt::format("{}∩{}", pmu::to_string(overlap.a), pmu::to_string(overlap.b));
}

render::Table pipe_task_table(const Loaded& loaded) {
    const Analysis& analysis = loaded.analysis;
    const Trace& trace = loaded.trace;
    render::Table table{"Task", {"field", "value"}, {Align::Left, Align::Left}, {}};
    auto row = [&](std::string field, std::string value) {
        table.rows.push_back({std::move(field), std::move(value)});
    };
    row("trace", loaded.path);
    row("format", trace.perfetto ? "Perfetto variant (sub-laned)" : "Insight export");
    if (!analysis.label.empty()) row("label", analysis.label);
    row("kernel", analysis.kernel.empty() ? "- (not in the label)" : analysis.kernel);
    row("span", fmt::format("{} µs ({} → {})", trace_us(analysis.span), trace_us(analysis.begin),
                            trace_us(analysis.end)));
    row("instructions",
        fmt::format("{} on {} sub-core(s); {} flag(s) not counted", trace.instructions,
                    analysis.subcores.size(), trace.flags + trace.unpaired_flags));
    row("self-check", analysis.check.verdict);
    if (analysis.bottleneck) {
        row("bottleneck", fmt::format("{} ({} busy on {})", pmu::to_string(*analysis.bottleneck),
                                      stats::format_ratio(analysis.bottleneck_utilisation),
                                      analysis.bottleneck_subcore));
    } else {
        row("bottleneck", "- (no timing conclusion)");
    }
    if (!analysis.exposed_subcore.empty()) {
        row("exposed load",
            fmt::format("{} µs on {} ({} of its span)", trace_us(analysis.exposed_load),
                        analysis.exposed_subcore, stats::format_ratio(analysis.exposed_share)));
    }
    return table;
}

render::Table pipe_pipes_table(const Analysis& analysis) {
    render::Table table{
        "Pipes per sub-core",
        {"sub-core", "pipe", "count", "instr_time", "busy", "utilisation"},
        {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right},
        {}};
    table.units = {"", "", "", "µs", "µs", ""};
    for (const SubCoreStats& core : analysis.subcores) {
        for (const PipeStats& row : core.pipes)
            table.rows.push_back({core.name, std::string(pmu::to_string(row.pipe)),
                                  std::to_string(row.count), trace_us(row.instr_time),
                                  trace_us(row.busy), stats::format_ratio(row.utilisation)});
    }
    return table;
}

render::Table pipe_overlap_table(const Analysis& analysis) {
    render::Table table{"Pairwise overlap of busy time",
                        {"sub-core", "pipes", "overlap", "of first's busy"},
                        {Align::Left, Align::Left, Align::Right, Align::Right},
                        {}};
    table.units = {"", "", "µs", ""};
    for (const SubCoreStats& core : analysis.subcores) {
        for (const Overlap& overlap : core.overlaps) {
            double busy = 0;
            for (const PipeStats& row : core.pipes)
                if (row.pipe == overlap.a) busy = row.busy;
            table.rows.push_back({core.name, pipe_pair(overlap), trace_us(overlap.time),
                                  busy > 0 ? stats::format_ratio(overlap.time / busy) : "-"});
        }
    }
    return table;
}

render::Table pipe_exposed_table(const Analysis& analysis) {
    render::Table table{"Exposed load (MTE2 busy under neither CUBE nor VECTOR)",
                        {"sub-core", "mte2 busy", "under cube∪vec", "exposed", "of span"},
                        {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right},
                        {}};
    table.units = {"", "µs", "µs", "µs", ""};
    for (const SubCoreStats& core : analysis.subcores) {
        if (core.mte2_busy <= 0) continue;
        table.rows.push_back({core.name, trace_us(core.mte2_busy),
                              trace_us(core.mte2_compute_overlap), trace_us(core.exposed_load),
                              stats::format_ratio(core.exposed_share)});
    }
    return table;
}

nlohmann::json pipe_json_view(const Loaded& loaded) {
    const Analysis& analysis = loaded.analysis;
    const Trace& trace = loaded.trace;
    nlohmann::json subcores = nlohmann::json::array();
    for (const SubCoreStats& core : analysis.subcores) {
        nlohmann::json pipes = nlohmann::json::array();
        for (const PipeStats& row : core.pipes)
            pipes.push_back({{"pipe", pmu::to_string(row.pipe)},
                             {"count", row.count},
                             {"instr_time_us", row.instr_time},
                             {"busy_us", row.busy},
                             {"utilisation", row.utilisation}});
        nlohmann::json overlaps = nlohmann::json::array();
        for (const Overlap& overlap : core.overlaps)
            overlaps.push_back({{"a", pmu::to_string(overlap.a)},
                                {"b", pmu::to_string(overlap.b)},
                                {"overlap_us", overlap.time}});
        nlohmann::json other = nlohmann::json::object();
        for (const SubCore& raw : trace.subcores)
            if (raw.name == core.name)
                for (const auto& [lane, count] : raw.other_lanes) other[lane] = count;
        subcores.push_back(
            {{"name", core.name},
             {"begin_us", core.begin},
             {"end_us", core.end},
             {"span_us", core.span},
             {"pipes", std::move(pipes)},
             {"overlaps", std::move(overlaps)},
             {"mte2_busy_us", core.mte2_busy},
             {"mte2_under_compute_us", core.mte2_compute_overlap},
             {"exposed_load_us", core.exposed_load},
             {"exposed_share", core.exposed_share},
             {"busiest", core.busiest ? nlohmann::json(pmu::to_string(*core.busiest)) : nullptr},
             {"other_lanes", std::move(other)}});
    }
    nlohmann::json check = {
        {"mmad", analysis.check.mmad},
        {"fix_l0c_to_dst", analysis.check.fix_l0c},
        {"n_blocks", analysis.check.n_blocks ? nlohmann::json(*analysis.check.n_blocks)
                                             : nlohmann::json(nullptr)},
        {"applicable", analysis.check.applicable},
        {"truncated", analysis.check.truncated},
        {"verdict", analysis.check.verdict}};
    return {
        {"trace", loaded.path},
        {"format", trace.perfetto ? "perfetto" : "insight"},
        {"label", analysis.label},
        {"kernel", analysis.kernel},
        {"unit", "trace units, labelled µs (upstream-2026-12.md §4.2)"},
        {"begin_us", analysis.begin},
        {"end_us", analysis.end},
        {"span_us", analysis.span},
        {"events", trace.events},
        {"instructions", trace.instructions},
        {"flags", trace.flags},
        {"unpaired_flags", trace.unpaired_flags},
        {"non_core_events", trace.non_core},
        {"skipped_events", trace.skipped},
        {"self_check", std::move(check)},
        {"bottleneck", analysis.bottleneck ? nlohmann::json(pmu::to_string(*analysis.bottleneck))
                                           : nlohmann::json(nullptr)},
        {"bottleneck_utilisation", analysis.bottleneck_utilisation},
        {"bottleneck_subcore", analysis.bottleneck_subcore},
        {"exposed_subcore", analysis.exposed_subcore},
        {"exposed_load_us", analysis.exposed_load},
        {"exposed_share", analysis.exposed_share},
        {"syntax_error_line", trace.syntax_error_line ? nlohmann::json(*trace.syntax_error_line)
                                                      : nlohmann::json(nullptr)},
        {"subcores", std::move(subcores)}};
}

}  // namespace

render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings) {
    render::Report report;
    report.command = "pipe-trace";
    report.data = pipe_json_view(loaded);
    report.tables = {pipe_task_table(loaded), pipe_pipes_table(loaded.analysis),
                     pipe_overlap_table(loaded.analysis), pipe_exposed_table(loaded.analysis)};
    const Trace& trace = loaded.trace;
    report.notes.push_back(
        "times are trace units labelled µs: simulated µs per simpler's doc, ns per a design "
        "note (upstream-2026-12.md §4.2); compare within one platform");
    if (trace.unpaired_flags > 0)
        report.notes.push_back(
            fmt::format("{} unpaired flag event(s) (a B or an E without its partner): zero length",
                        trace.unpaired_flags));
    std::size_t other = 0;
    for (const SubCore& core : trace.subcores)
        for (const auto& [lane, count] : core.other_lanes) other += count;
    if (other > 0)
        report.notes.push_back(fmt::format(
            "{} instruction(s) on unknown lanes kept under \"other\" (not in the pipe analysis)",
            other));
    if (trace.non_core > 0)
        report.notes.push_back(fmt::format(
            "{} timed event(s) of pids that are not core<N>.* sub-cores ignored", trace.non_core));
    if (trace.syntax_error_line)
        report.notes.push_back(fmt::format("the JSON breaks off at line {}: {}",
                                           *trace.syntax_error_line, trace.syntax_error));
    report.findings = std::move(findings);
    return report;
}

}  // namespace ptune::pipetrace
