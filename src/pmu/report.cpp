#include "ptune/pmu/report.hpp"

#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/pretty_json.hpp"

namespace ptune::pmu {

namespace {

using nlohmann::json;

double rounded(double value) {
    return *text::parse_double(stats::format_fixed(value, kRatioDecimals));
}

json ratio_json(const std::optional<double>& value) {
    return value ? json(rounded(*value)) : json();
}

// Pipes the file has a counter for, in canonical order.
std::vector<Pipe> present_pipes(const HeaderInfo& header) {
    std::vector<Pipe> pipes;
    for (Pipe pipe : kAllPipes) {
        if (header.pipe_column[static_cast<std::size_t>(pipe)]) pipes.push_back(pipe);
    }
    return pipes;
}

json metrics_json(const PipeMetrics& metrics, const std::vector<Pipe>& pipes,
                  std::optional<CoreType> core_type, json& out) {
    json ratios = json::object();
    for (Pipe pipe : pipes)
        ratios[std::string(to_string(pipe))] = ratio_json(metrics.ratio_of(pipe));
    out["ratios"] = std::move(ratios);
    out["bound_ratio"] = ratio_json(metrics.bound_ratio);
    out["bound_formula"] = core_type && !pipes.empty() ? json(bound_formula(*core_type)) : json();
    if (core_type == CoreType::Aiv && !pipes.empty()) {
        out["bound_ratio_with_mte3"] = ratio_json(metrics.bound_ratio_with_mte3);
    }
    out["bottleneck_pipe"] = metrics.bottleneck ? json(to_string(*metrics.bottleneck)) : json();
    out["icache_miss_rate"] = ratio_json(metrics.icache_miss_rate);
    return out;
}

json counters_json(const HeaderInfo& header, std::span<const std::uint64_t> values) {
    json counters = json::object();
    for (std::size_t c = 0; c < header.counter_names.size(); ++c)
        counters[header.counter_names[c]] = values[c];
    return counters;
}

std::string task_label(std::uint64_t task_id) {
    return fmt::format("r{}t{}", task_id >> 32, task_id & 0xffffffffu);
}

class Cells {
  public:
    explicit Cells(bool machine) : machine_(machine) {}
    std::string ratio(const std::optional<double>& value) const {
        if (!value) return machine_ ? "" : "-";
        return machine_ ? stats::format_fixed(*value, kRatioDecimals)
                        : stats::format_fixed(*value * 100.0, 1) + "%";
    }
    std::string pipe(const std::optional<Pipe>& value) const {
        return value ? std::string(to_string(*value)) : (machine_ ? "" : "-");
    }

  private:
    bool machine_;
};

// func_id → kernel, for the rows.
class KernelIndex {
  public:
    explicit KernelIndex(const Analysis& analysis) {
        for (const KernelSummary& kernel : analysis.kernels) by_func_[kernel.func_id] = &kernel;
    }
    const std::string& name(std::uint32_t func_id) const { return by_func_.at(func_id)->name; }

  private:
    std::unordered_map<std::uint32_t, const KernelSummary*> by_func_;
};

json row_json(const PmuTable& table, std::size_t index, const KernelIndex& kernels,
              const std::vector<Pipe>& pipes) {
    const Row& row = table.rows[index];
    json entry = {{"line", row.line},
                  {"thread_id", row.thread_id},
                  {"core_id", row.core_id},
                  {"task_id", format_task_id(row.task_id)},
                  {"ring_id", row.ring_id()},
                  {"local_id", row.local_id()},
                  {"func_id", row.func_id},
                  {"func_name", kernels.name(row.func_id)},
                  {"core_type", std::string(to_string(row.core_type))},
                  {"total_cycles", row.total_cycles},
                  {"event_type", row.event_type},
                  {"counters", counters_json(table.header, table.counters_of(index))}};
    PipeMetrics metrics = row_metrics(table, index);
    metrics_json(metrics, pipes, row.core_type, entry);
    entry["clamped"] = metrics.clamped;
    return entry;
}

// A row's JSON written directly (render::PrettyJson), the bytes row_json's DOM dumps to: the
// DOM per row was most of `--format json` on a large file. Members in the DOM's (sorted) order.
class RowJsonWriter {
  public:
    RowJsonWriter(const PmuTable& table, const Analysis& analysis)
        : table_(table), kernels_(analysis), pipes_(present_pipes(table.header)) {
        // A counter name the header repeats keeps its last column, as assigning into the DOM does.
        std::map<std::string_view, std::size_t> columns;
        const auto& names = table.header.counter_names;
        for (std::size_t c = 0; c < names.size(); ++c) columns[names[c]] = c;
        counter_columns_.assign(columns.begin(), columns.end());
        std::map<std::string_view, Pipe> pipes;
        for (Pipe pipe : pipes_) pipes.emplace(to_string(pipe), pipe);
        sorted_pipes_.assign(pipes.begin(), pipes.end());
    }

    void write(std::size_t index, std::size_t indent, std::string& text) const {
        const Row& row = table_.rows[index];
        PipeMetrics metrics = row_metrics(table_, index);
        render::PrettyJson json(text, indent);
        auto ratio = [&json](const std::optional<double>& value) {
            value ? json.number(rounded(*value)) : json.null();
        };
        json.begin_object();
        json.key("bottleneck_pipe");
        metrics.bottleneck ? json.string(to_string(*metrics.bottleneck)) : json.null();
        json.key("bound_formula");
        pipes_.empty() ? json.null() : json.string(bound_formula(row.core_type));
        json.key("bound_ratio");
        ratio(metrics.bound_ratio);
        if (row.core_type == CoreType::Aiv && !pipes_.empty()) {
            json.key("bound_ratio_with_mte3");
            ratio(metrics.bound_ratio_with_mte3);
        }
        json.key("clamped");
        json.boolean(metrics.clamped);
        json.key("core_id");
        json.number(std::int64_t{row.core_id});
        json.key("core_type");
        json.string(to_string(row.core_type));
        json.key("counters");
        json.begin_object();
        std::span<const std::uint64_t> values = table_.counters_of(index);
        for (const auto& [name, column] : counter_columns_) {
            json.key(name);
            json.number(std::uint64_t{values[column]});
        }
        json.end_object();
        json.key("event_type");
        json.number(std::int64_t{row.event_type});
        json.key("func_id");
        json.number(std::uint64_t{row.func_id});
        json.key("func_name");
        json.string(kernels_.name(row.func_id));
        json.key("icache_miss_rate");
        ratio(metrics.icache_miss_rate);
        json.key("line");
        json.number(std::uint64_t{row.line});
        json.key("local_id");
        json.number(std::uint64_t{row.local_id()});
        json.key("ratios");
        json.begin_object();
        for (const auto& [name, pipe] : sorted_pipes_) {
            json.key(name);
            ratio(metrics.ratio_of(pipe));
        }
        json.end_object();
        json.key("ring_id");
        json.number(std::uint64_t{row.ring_id()});
        json.key("task_id");
        json.string(format_task_id(row.task_id));
        json.key("thread_id");
        json.number(std::int64_t{row.thread_id});
        json.key("total_cycles");
        json.number(std::uint64_t{row.total_cycles});
        json.end_object();
    }

  private:
    const PmuTable& table_;
    KernelIndex kernels_;
    std::vector<Pipe> pipes_;
    std::vector<std::pair<std::string_view, std::size_t>> counter_columns_;
    std::vector<std::pair<std::string_view, Pipe>> sorted_pipes_;
};

// render::write_json's layout with the rows written one at a time, so a file of millions of
// rows never becomes one JSON tree in memory.
class StreamingJsonRenderer : public render::Renderer {
  public:
    StreamingJsonRenderer(const PmuTable& table, const Analysis& analysis)
        : table_(table), rows_(table, analysis) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        render::LazyArray rows{"rows",
                               table_.rows.size(),
                               {},
                               [this](std::size_t i, std::size_t indent, std::string& text) {
                                   rows_.write(i, indent, text);
                               }};
        render::write_report_json(report, {std::move(rows)}, out);
    }

  private:
    const PmuTable& table_;
    RowJsonWriter rows_;
};

render::Table kernel_table(const PmuTable& table, const Analysis& analysis, const Cells& cells,
                           bool machine) {
    render::Table out;
    std::vector<Pipe> pipes = present_pipes(table.header);
    bool with_pipes = !pipes.empty();
    out.columns = machine ? std::vector<std::string>{"kernel", "func_id",      "core_type",  "rows",
                                                     "tasks",  "total_cycles", "cycle_share"}
                          : std::vector<std::string>{"kernel", "func",   "core", "rows",
                                                     "tasks",  "cycles", "share"};
    bool with_clock =
        !analysis.kernels.empty() && analysis.kernels.front().median_task_us.has_value();
    if (with_clock) out.columns.emplace_back(machine ? "median_task_us" : "p50 (µs)");
    std::size_t bottleneck_column = out.columns.size() + (machine ? 4 : 2);
    if (with_pipes) {
        if (machine) {
            for (const char* c :
                 {"bound_ratio", "bound_min", "bound_median", "bound_max", "bottleneck"}) {
                out.columns.emplace_back(c);
            }
        } else {
            for (const char* c : {"bound", "bound min/med/max", "bottleneck"})
                out.columns.emplace_back(c);
        }
        for (Pipe pipe : pipes) out.columns.emplace_back(to_string(pipe));
        if (table.header.icache_miss_column && table.header.icache_req_column) {
            out.columns.emplace_back(machine ? "icache_miss_rate" : "icache miss");
        }
    } else {
        for (const auto& name : table.header.counter_names) out.columns.push_back(name);
    }
    out.align.assign(out.columns.size(), render::Align::Right);
    out.align[0] = render::Align::Left;
    out.align[2] = render::Align::Left;
    if (with_pipes) out.align[bottleneck_column] = render::Align::Left;

    for (const KernelSummary& kernel : analysis.kernels) {
        std::vector<std::string> row = {
            kernel.name,
            std::to_string(kernel.func_id),
            kernel.core_type ? std::string(to_string(*kernel.core_type)) : "AIC+AIV",
            std::to_string(kernel.rows),
            std::to_string(kernel.tasks),
            std::to_string(kernel.total_cycles),
            cells.ratio(kernel.cycle_share)};
        if (with_clock) row.push_back(stats::format_fixed(*kernel.median_task_us, machine ? 3 : 1));
        if (with_pipes) {
            const PipeMetrics& w = kernel.weighted;
            row.push_back(cells.ratio(w.bound_ratio));
            auto spread = kernel.bound_spread;
            if (machine) {
                row.push_back(cells.ratio(spread ? std::optional(spread->min) : std::nullopt));
                row.push_back(cells.ratio(spread ? std::optional(spread->median) : std::nullopt));
                row.push_back(cells.ratio(spread ? std::optional(spread->max) : std::nullopt));
            } else if (spread) {
                row.push_back(fmt::format("{}/{}/{}", stats::format_fixed(spread->min * 100.0, 1),
                                          stats::format_fixed(spread->median * 100.0, 1),
                                          stats::format_fixed(spread->max * 100.0, 1)));
            } else {
                row.push_back("-");
            }
            row.push_back(cells.pipe(w.bottleneck));
            for (Pipe pipe : pipes) row.push_back(cells.ratio(w.ratio_of(pipe)));
            if (table.header.icache_miss_column && table.header.icache_req_column) {
                row.push_back(cells.ratio(w.icache_miss_rate));
            }
        } else {
            for (std::uint64_t sum : kernel.counter_sums) row.push_back(std::to_string(sum));
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

render::Table row_table(const PmuTable& table, const KernelIndex& kernels, const Cells& cells,
                        bool machine) {
    render::Table out;
    out.title = machine ? "" : "Rows (file order)";
    std::vector<Pipe> pipes = present_pipes(table.header);
    bool with_pipes = !pipes.empty();
    out.columns =
        machine ? std::vector<std::string>{"line",      "thread_id",   "core_id", "task_id",
                                           "ring_id",   "local_id",    "func_id", "kernel",
                                           "core_type", "total_cycles"}
                : std::vector<std::string>{"line", "core", "task", "kernel", "type", "cycles"};
    if (with_pipes) {
        out.columns.emplace_back(machine ? "bound_ratio" : "bound");
        out.columns.emplace_back("bottleneck");
        for (Pipe pipe : pipes) out.columns.emplace_back(to_string(pipe));
    } else {
        for (const auto& name : table.header.counter_names) out.columns.push_back(name);
    }
    out.align.assign(out.columns.size(), render::Align::Right);
    for (std::size_t c = 0; c < out.columns.size(); ++c) {
        const std::string& column = out.columns[c];
        if (column == "kernel" || column == "core_type" || column == "type" ||
            column == "bottleneck" || column == "task") {
            out.align[c] = render::Align::Left;
        }
    }
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        const Row& row = table.rows[i];
        std::vector<std::string> cellsrow;
        if (machine) {
            cellsrow = {std::to_string(row.line),
                        std::to_string(row.thread_id),
                        std::to_string(row.core_id),
                        format_task_id(row.task_id),
                        std::to_string(row.ring_id()),
                        std::to_string(row.local_id()),
                        std::to_string(row.func_id),
                        kernels.name(row.func_id),
                        std::string(to_string(row.core_type)),
                        std::to_string(row.total_cycles)};
        } else {
            cellsrow = {std::to_string(row.line),
                        std::to_string(row.core_id),
                        task_label(row.task_id),
                        kernels.name(row.func_id),
                        std::string(to_string(row.core_type)),
                        std::to_string(row.total_cycles)};
        }
        if (with_pipes) {
            PipeMetrics metrics = row_metrics(table, i);
            cellsrow.push_back(cells.ratio(metrics.bound_ratio));
            cellsrow.push_back(cells.pipe(metrics.bottleneck));
            for (Pipe pipe : pipes) cellsrow.push_back(cells.ratio(metrics.ratio_of(pipe)));
        } else {
            for (std::uint64_t value : table.counters_of(i))
                cellsrow.push_back(std::to_string(value));
        }
        out.rows.push_back(std::move(cellsrow));
    }
    return out;
}

}  // namespace

namespace {

// `kernels` of the JSON view: one entry per kernel, heaviest first.
json pmu_kernels_json(const HeaderInfo& header, const Analysis& analysis,
                      const KernelIndex& kernels_by_func, const std::vector<Pipe>& pipes) {
    json kernels = json::array();
    for (const KernelSummary& kernel : analysis.kernels) {
        json mixed = json::array();
        for (std::uint32_t partner : kernel.mixed_with)
            mixed.push_back(kernels_by_func.name(partner));
        json entry = {{"func_id", kernel.func_id},
                      {"name", kernel.name},
                      {"core_type", kernel.core_type ? json(to_string(*kernel.core_type)) : json()},
                      {"rows", kernel.rows},
                      {"tasks", kernel.tasks},
                      {"cores", kernel.cores},
                      {"first_line", kernel.first_line},
                      {"total_cycles", kernel.total_cycles},
                      {"cycle_share", ratio_json(kernel.cycle_share)},
                      {"mean_total_cycles", kernel.mean_total_cycles},
                      {"p50_total_cycles", kernel.p50_total_cycles},
                      {"p90_total_cycles", kernel.p90_total_cycles},
                      {"counters", counters_json(header, kernel.counter_sums)}};
        metrics_json(kernel.weighted, pipes, kernel.core_type, entry);
        entry["bound_ratio_spread"] = kernel.bound_spread
                                          ? json{{"min", rounded(kernel.bound_spread->min)},
                                                 {"median", rounded(kernel.bound_spread->median)},
                                                 {"max", rounded(kernel.bound_spread->max)}}
                                          : json();
        entry["mixed_with"] = std::move(mixed);
        entry["partner_bound_ratio"] = ratio_json(kernel.partner_bound_ratio);
        entry["median_task_us"] = kernel.median_task_us ? json(*kernel.median_task_us) : json();
        kernels.push_back(std::move(entry));
    }
    return kernels;
}

// Validity caveats of pmu.md §6, and rule P13: PMU explains wall time, it does not measure it.
std::vector<std::string> pmu_caveats(const HeaderInfo& header, const Analysis& analysis,
                                     const std::vector<Pipe>& pipes) {
    std::vector<std::string> caveats;
    if (analysis.all_zero) {
        caveats.emplace_back(
            "every counter is 0 (a5sim output): there is no data, ratios are undefined");
    }
    if (!pipes.empty()) {
        caveats.emplace_back(
            "utilisation explains wall time; a higher ratio is not a speedup: measure "
            "wall time to claim one (rule P13)");
    }
    if (header.arch == Arch::A2A3) {
        caveats.emplace_back(
            "on a2a3 --enable-pmu collapses dual issue to single issue: PMU-on timings "
            "are not comparable with PMU-off ones; a2a3sim counters are not fit for "
            "performance conclusions");
    }
    return caveats;
}

// The notes under the tables: how to read the ratios, mixed tasks, names, caveats.
void add_pmu_notes(render::Report& report, const HeaderInfo& header, const Analysis& analysis,
                   const std::vector<Pipe>& pipes, const std::vector<std::string>& caveats,
                   const ReportOptions& options) {
    int event_type = header.event_type.value_or(0);
    if (!pipes.empty()) {
        report.notes.push_back(
            "bound = max(mte2,cube)/total on AIC, max(mte2,vec)/total on AIV; target near 100% "
            "(tuning guide Part 2 item 4). Kernel ratios are cycle-weighted (sum busy / sum "
            "total); "
            "min/med/max is the spread of the bound over the kernel's rows.");
    } else {
        report.notes.push_back(fmt::format(
            "{} (event {}): {}; no pipe counters, so no bound ratio.", event_type_name(event_type),
            event_type, event_type_description(event_type)));
    }
    if (analysis.mixed_tasks > 0) {
        report.notes.push_back(fmt::format(
            "{} mixed task(s) run an AIC and an AIV half: the AIV half waits on its cube producer, "
            "so judge it with its AIC partner.",
            analysis.mixed_tasks));
    }
    report.notes.push_back(options.names_source.empty()
                               ? "kernel names: none found (func_<id>); pass --names or -k"
                               : "kernel names: " + options.names_source);
    for (const auto& caveat : caveats) report.notes.push_back("caveat: " + caveat);
}

}  // namespace

render::Report build_report(const PmuTable& table, const Analysis& analysis,
                            std::vector<rules::Finding> findings, const ReportOptions& options) {
    render::Report report;
    report.command = "pmu-analyze";
    const HeaderInfo& header = table.header;
    int event_type = header.event_type.value_or(0);
    std::vector<Pipe> pipes = present_pipes(header);

    KernelIndex kernels_by_func(analysis);

    json& data = report.data;
    data["source"] = table.source;
    data["arch"] = std::string(to_string(header.arch));
    data["event_type"] = header.event_type ? json(*header.event_type) : json();
    data["event_name"] = std::string(event_type_name(event_type));
    data["measures"] = std::string(event_type_description(event_type));
    data["header_known"] = header.known;
    data["counters"] = header.counter_names;
    data["names_source"] = options.names_source.empty() ? json() : json(options.names_source);
    data["summary"] = {{"rows", table.rows.size()},
                       {"kernels", analysis.kernels.size()},
                       {"tasks", analysis.tasks},
                       {"cores", analysis.cores},
                       {"mixed_tasks", analysis.mixed_tasks},
                       {"total_cycles", analysis.total_cycles},
                       {"all_zero", analysis.all_zero}};

    data["kernels"] = pmu_kernels_json(header, analysis, kernels_by_func, pipes);

    std::vector<std::string> caveats = pmu_caveats(header, analysis, pipes);
    data["caveats"] = caveats;

    Cells cells(options.machine_cells);
    render::Table kernels_table = kernel_table(table, analysis, cells, options.machine_cells);
    kernels_table.title =
        options.machine_cells
            ? ""
            : fmt::format("{}: {} {} (event {}), {} rows, {} kernels, {} tasks, {} cores",
                          table.source, to_string(header.arch), event_type_name(event_type),
                          event_type, table.rows.size(), analysis.kernels.size(), analysis.tasks,
                          analysis.cores);
    if (options.row_table && options.machine_cells) {
        report.tables.push_back(row_table(table, kernels_by_func, cells, true));
    } else {
        report.tables.push_back(std::move(kernels_table));
        if (options.row_table)
            report.tables.push_back(row_table(table, kernels_by_func, cells, false));
    }

    add_pmu_notes(report, header, analysis, pipes, caveats, options);
    report.findings = std::move(findings);
    return report;
}

json rows_json(const PmuTable& table, const Analysis& analysis) {
    KernelIndex kernels(analysis);
    std::vector<Pipe> pipes = present_pipes(table.header);
    json rows = json::array();
    for (std::size_t i = 0; i < table.rows.size(); ++i)
        rows.push_back(row_json(table, i, kernels, pipes));
    return rows;
}

std::shared_ptr<render::Renderer> make_json_renderer(const PmuTable& table,
                                                     const Analysis& analysis) {
    return std::make_shared<StreamingJsonRenderer>(table, analysis);
}

Overview make_overview() {
    Overview overview;
    overview.table.columns = {"kernel",      "core",        "tasks",
                              "cycle share", "bound ratio", "bottleneck"};
    overview.table.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                            render::Align::Right, render::Align::Right, render::Align::Left};
    return overview;
}

void add_to_overview(Overview& overview, const std::string& scope, const Analysis& analysis) {
    for (const auto& kernel : analysis.kernels) {
        std::string core = kernel.core_type ? std::string(to_string(*kernel.core_type)) : "mixed";
        auto bound = kernel.weighted.bound_ratio;
        auto bottleneck = kernel.weighted.bottleneck;
        std::string bottleneck_name = bottleneck ? std::string(to_string(*bottleneck)) : "-";
        overview.table.rows.push_back(
            {kernel.name, core, std::to_string(kernel.tasks),
             kernel.cycle_share ? stats::format_ratio(*kernel.cycle_share) : "-",
             bound ? stats::format_ratio(*bound) : "-", bottleneck_name});
        overview.data.push_back(
            {{"kernel", kernel.name},
             {"scope", scope},
             {"bound_ratio", bound ? nlohmann::json(*bound) : nlohmann::json()},
             {"bottleneck", bottleneck ? nlohmann::json(bottleneck_name) : nlohmann::json()}});
    }
}

}  // namespace ptune::pmu
