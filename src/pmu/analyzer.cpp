#include "ptune/pmu/analyzer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ptune/core/checked.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::pmu {

namespace {

constexpr std::size_t index_of(Pipe pipe) {
    return static_cast<std::size_t>(pipe);
}

// Busy and total cycles of one row or a sum of rows. Busy counts are capped at the total so a
// data error cannot push a ratio above 1.
struct CycleSums {
    std::array<std::optional<std::uint64_t>, kPipeCount> busy{};
    std::uint64_t total = 0;
    std::uint64_t icache_miss = 0;
    std::uint64_t icache_req = 0;
    bool has_icache = false;
    bool clamped = false;
    bool overflow = false;  ///< a sum passed 2^64: the ratios are undefined
};

CycleSums row_cycles(const HeaderInfo& header, const Row& row,
                     std::span<const std::uint64_t> counters) {
    CycleSums sums;
    sums.total = row.total_cycles;
    for (Pipe pipe : kAllPipes) {
        if (auto column = header.pipe_column[index_of(pipe)]) {
            std::uint64_t busy = counters[*column];
            if (busy > row.total_cycles) {
                busy = row.total_cycles;
                sums.clamped = true;
            }
            sums.busy[index_of(pipe)] = busy;
        }
    }
    if (header.icache_miss_column && header.icache_req_column) {
        sums.has_icache = true;
        sums.icache_miss = counters[*header.icache_miss_column];
        sums.icache_req = counters[*header.icache_req_column];
    }
    return sums;
}

void accumulate(CycleSums& into, const CycleSums& row) {
    bool fits = true;
    for (std::size_t i = 0; i < kPipeCount; ++i) {
        if (row.busy[i]) {
            std::uint64_t busy = into.busy[i].value_or(0);
            fits = checked::add(busy, *row.busy[i]) && fits;
            into.busy[i] = busy;
        }
    }
    fits = checked::add(into.total, row.total) && fits;
    fits = checked::add(into.icache_miss, row.icache_miss) && fits;
    fits = checked::add(into.icache_req, row.icache_req) && fits;
    into.overflow = into.overflow || row.overflow || !fits;
    into.has_icache = into.has_icache || row.has_icache;
    into.clamped = into.clamped || row.clamped;
}

std::optional<double> max_of(std::initializer_list<std::optional<double>> values) {
    std::optional<double> best;
    for (const auto& value : values) {
        if (!value) return std::nullopt;  // a formula with a missing operand is undefined
        best = best ? std::max(*best, *value) : *value;
    }
    return best;
}

// The ratios of `sums` for a kernel of `core_type` (nullopt when the rows disagree on it).
PipeMetrics derive(const CycleSums& sums, std::optional<CoreType> core_type) {
    PipeMetrics metrics;
    metrics.clamped = sums.clamped;
    if (sums.has_icache && sums.icache_req > 0) {
        metrics.icache_miss_rate =
            static_cast<double>(sums.icache_miss) / static_cast<double>(sums.icache_req);
    }
    // Simulator files: no data, never 0 %. A wrapped sum: no honest ratio either.
    if (sums.total == 0 || sums.overflow) return metrics;
    double total = static_cast<double>(sums.total);
    bool any_busy = false;
    for (Pipe pipe : kAllPipes) {
        if (auto busy = sums.busy[index_of(pipe)]) {
            metrics.ratio[index_of(pipe)] = static_cast<double>(*busy) / total;
            if (*busy > 0 &&
                (!metrics.bottleneck || *busy > *sums.busy[index_of(*metrics.bottleneck)])) {
                metrics.bottleneck = pipe;
            }
            any_busy = any_busy || *busy > 0;
        }
    }
    if (!any_busy) metrics.bottleneck.reset();
    if (core_type == CoreType::Aic) {
        metrics.bound_ratio = max_of({metrics.ratio_of(Pipe::Mte2), metrics.ratio_of(Pipe::Cube)});
    } else if (core_type == CoreType::Aiv) {
        metrics.bound_ratio = max_of({metrics.ratio_of(Pipe::Mte2), metrics.ratio_of(Pipe::Vec)});
        metrics.bound_ratio_with_mte3 =
            max_of({metrics.ratio_of(Pipe::Mte2), metrics.ratio_of(Pipe::Vec),
                    metrics.ratio_of(Pipe::Mte3)});
    }
    return metrics;
}

struct KernelAccumulator {
    std::size_t first_row = 0;
    std::size_t rows = 0;
    bool saw_aic = false;
    bool saw_aiv = false;
    CycleSums sums;
    std::vector<std::uint64_t> counter_sums;
    std::vector<double> totals;
    std::vector<double> bounds;
    std::unordered_set<std::uint64_t> tasks;
    std::unordered_set<std::int64_t> cores;
    std::set<std::uint32_t> mixed_with;
};

// Which core types and funcs ran under one task id (mixed kernels pair an AIC and AIV halves).
struct TaskFuncs {
    std::vector<std::uint32_t> aic;
    std::vector<std::uint32_t> aiv;
};

void add_unique(std::vector<std::uint32_t>& list, std::uint32_t value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

std::string_view bound_formula(CoreType core_type) {
    return core_type == CoreType::Aic ? "max(mte2,cube)/total" : "max(mte2,vec)/total";
}

PipeMetrics row_metrics(const PmuTable& table, std::size_t index) {
    const Row& row = table.rows[index];
    return derive(row_cycles(table.header, row, table.counters_of(index)), row.core_type);
}

namespace {

// What the rows add up to, before the per-kernel summaries.
struct PmuRowTotals {
    std::map<std::uint32_t, KernelAccumulator> kernels;
    std::unordered_map<std::uint64_t, TaskFuncs> tasks;
    std::unordered_set<std::int64_t> cores;
};

// One pass over the rows: per-kernel sums, the run's totals and which functions each task ran.
PmuRowTotals accumulate_pmu_rows(const PmuTable& table, Analysis& analysis,
                                 Diagnostics& diagnostics) {
    PmuRowTotals totals;
    const HeaderInfo& header = table.header;
    std::size_t width = header.counter_names.size();
    bool analysis_overflow = false;
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        const Row& row = table.rows[i];
        auto counters = table.counters_of(i);
        CycleSums cycles = row_cycles(header, row, counters);
        PipeMetrics metrics = derive(cycles, row.core_type);
        if (cycles.clamped) {
            diagnostics.warn(table.source, row.line,
                             "a pipe's busy cycles exceed pmu_total_cycles (data error); ratio "
                             "clamped to 1");
        }
        bool zero = row.total_cycles == 0 && std::all_of(counters.begin(), counters.end(),
                                                         [](std::uint64_t v) { return v == 0; });
        analysis.all_zero = analysis.all_zero && zero;
        if (!checked::add(analysis.total_cycles, row.total_cycles)) analysis_overflow = true;
        totals.cores.insert(row.core_id);

        KernelAccumulator& kernel = totals.kernels[row.func_id];
        if (kernel.rows == 0) {
            kernel.first_row = i;
            kernel.counter_sums.assign(width, 0);
        }
        ++kernel.rows;
        (row.core_type == CoreType::Aic ? kernel.saw_aic : kernel.saw_aiv) = true;
        accumulate(kernel.sums, cycles);
        for (std::size_t c = 0; c < width; ++c) {
            if (!checked::add(kernel.counter_sums[c], counters[c])) kernel.sums.overflow = true;
        }
        kernel.totals.push_back(static_cast<double>(row.total_cycles));
        if (metrics.bound_ratio) kernel.bounds.push_back(*metrics.bound_ratio);
        kernel.tasks.insert(row.task_id);
        kernel.cores.insert(row.core_id);
        TaskFuncs& task = totals.tasks[row.task_id];
        add_unique(row.core_type == CoreType::Aic ? task.aic : task.aiv, row.func_id);
    }
    if (analysis_overflow) {
        diagnostics.warn(table.source, 0,
                         "pmu_total_cycles add up past 2^64 (a wrapped or corrupt counter); the "
                         "total saturates and cycle shares are not exact");
    }
    return totals;
}

// Tasks that ran both an AIC and an AIV function make those functions partners.
void mark_mixed_kernels(PmuRowTotals& totals, Analysis& analysis) {
    for (const auto& [task_id, funcs] : totals.tasks) {
        if (funcs.aic.empty() || funcs.aiv.empty()) continue;
        ++analysis.mixed_tasks;
        for (std::uint32_t aic : funcs.aic) {
            for (std::uint32_t aiv : funcs.aiv) {
                if (aic == aiv) continue;
                totals.kernels[aic].mixed_with.insert(aiv);
                totals.kernels[aiv].mixed_with.insert(aic);
            }
        }
    }
}

KernelSummary summarise_pmu_kernel(const PmuTable& table, std::uint32_t func_id,
                                   KernelAccumulator& accumulator, const KernelNames& names,
                                   const AnalyzeOptions& options, std::uint64_t total_cycles,
                                   Diagnostics& diagnostics) {
    KernelSummary kernel;
    kernel.func_id = func_id;
    kernel.name = names.display_name(func_id);
    kernel.first_line = table.rows[accumulator.first_row].line;
    if (accumulator.saw_aic != accumulator.saw_aiv) {
        kernel.core_type = accumulator.saw_aic ? CoreType::Aic : CoreType::Aiv;
    } else {
        diagnostics.warn(table.source, kernel.first_line,
                         fmt::format("func_id {} has both AIC and AIV rows; its bound ratio "
                                     "is left undefined",
                                     func_id));
    }
    kernel.rows = accumulator.rows;
    kernel.tasks = accumulator.tasks.size();
    kernel.cores = accumulator.cores.size();
    kernel.total_cycles = accumulator.sums.total;
    if (total_cycles > 0) {
        kernel.cycle_share =
            static_cast<double>(kernel.total_cycles) / static_cast<double>(total_cycles);
    }
    kernel.mean_total_cycles = *stats::mean(accumulator.totals);
    kernel.p50_total_cycles = *stats::quantile(accumulator.totals, 0.5);
    kernel.p90_total_cycles = *stats::quantile(accumulator.totals, 0.9);
    kernel.counter_sums = std::move(accumulator.counter_sums);
    kernel.weighted = derive(accumulator.sums, kernel.core_type);
    if (accumulator.sums.overflow) {
        diagnostics.warn(table.source, kernel.first_line,
                         fmt::format("func_id {}: its cycle counters add up past 2^64 (a "
                                     "wrapped or corrupt counter); its pipe ratios are left "
                                     "undefined and its sums saturate",
                                     func_id));
    }
    if (!accumulator.bounds.empty()) {
        auto [low, high] =
            std::minmax_element(accumulator.bounds.begin(), accumulator.bounds.end());
        kernel.bound_spread = Spread{*low, *stats::median(accumulator.bounds), *high};
    }
    kernel.mixed_with.assign(accumulator.mixed_with.begin(), accumulator.mixed_with.end());
    if (options.aicore_mhz && *options.aicore_mhz > 0) {
        kernel.median_task_us = kernel.p50_total_cycles / *options.aicore_mhz;
    }
    return kernel;
}

// An AIV kernel's partner bound: the highest weighted bound of the AIC kernels it ran with.
// Looked up after every kernel has its weighted bound.
void fill_partner_bounds(std::vector<KernelSummary>& kernels) {
    for (KernelSummary& kernel : kernels) {
        if (kernel.core_type != CoreType::Aiv) continue;
        for (std::uint32_t partner_id : kernel.mixed_with) {
            auto partner =
                std::find_if(kernels.begin(), kernels.end(),
                             [&](const KernelSummary& k) { return k.func_id == partner_id; });
            if (partner == kernels.end() || partner->core_type != CoreType::Aic ||
                !partner->weighted.bound_ratio) {
                continue;
            }
            kernel.partner_bound_ratio =
                std::max(kernel.partner_bound_ratio.value_or(0.0), *partner->weighted.bound_ratio);
        }
    }
}

}  // namespace

Analysis analyze(const PmuTable& table, const KernelNames& names, const AnalyzeOptions& options,
                 Diagnostics& diagnostics) {
    Analysis analysis;
    analysis.has_pipes = table.header.has_pipes();
    analysis.all_zero = !table.rows.empty();
    PmuRowTotals totals = accumulate_pmu_rows(table, analysis, diagnostics);
    analysis.tasks = totals.tasks.size();
    analysis.cores = totals.cores.size();
    mark_mixed_kernels(totals, analysis);
    for (auto& [func_id, accumulator] : totals.kernels) {
        analysis.kernels.push_back(summarise_pmu_kernel(table, func_id, accumulator, names, options,
                                                        analysis.total_cycles, diagnostics));
    }
    fill_partner_bounds(analysis.kernels);
    std::stable_sort(analysis.kernels.begin(), analysis.kernels.end(),
                     [](const KernelSummary& a, const KernelSummary& b) {
                         if (a.total_cycles != b.total_cycles)
                             return a.total_cycles > b.total_cycles;
                         return a.func_id < b.func_id;
                     });
    return analysis;
}

void publish_metrics(const PmuTable& table, const Analysis& analysis, rules::MetricStore& store) {
    rules::Subject& run = store.run();
    run.metrics["pmu.rows"] = static_cast<double>(table.rows.size());
    run.metrics["pmu.kernels"] = static_cast<double>(analysis.kernels.size());
    run.metrics["pmu.tasks"] = static_cast<double>(analysis.tasks);
    run.metrics["pmu.cores"] = static_cast<double>(analysis.cores);
    run.metrics["pmu.mixed_tasks"] = static_cast<double>(analysis.mixed_tasks);
    run.metrics["pmu.all_zero"] = analysis.all_zero ? 1.0 : 0.0;
    run.metrics["pmu.has_pipes"] = analysis.has_pipes ? 1.0 : 0.0;
    if (table.header.event_type) run.metrics["pmu.event_type"] = *table.header.event_type;
    run.labels["pmu.arch"] = std::string(to_string(table.header.arch));
    run.locations.push_back(rules::Location{table.source, 0, 0});

    for (const KernelSummary& kernel : analysis.kernels) {
        rules::Subject& subject = store.subject("kernel", kernel.name);
        auto& m = subject.metrics;
        m["pmu.func_id"] = kernel.func_id;
        m["pmu.is_aic"] = kernel.core_type == CoreType::Aic ? 1.0 : 0.0;
        m["pmu.is_aiv"] = kernel.core_type == CoreType::Aiv ? 1.0 : 0.0;
        m["pmu.is_a5"] = table.header.arch == Arch::A5 ? 1.0 : 0.0;
        m["pmu.rows"] = static_cast<double>(kernel.rows);
        m["pmu.tasks"] = static_cast<double>(kernel.tasks);
        m["pmu.cores"] = static_cast<double>(kernel.cores);
        m["pmu.run_cores"] = static_cast<double>(analysis.cores);
        m["pmu.run_kernels"] = static_cast<double>(analysis.kernels.size());
        m["pmu.total_cycles"] = static_cast<double>(kernel.total_cycles);
        if (kernel.cycle_share) m["pmu.cycle_share"] = *kernel.cycle_share;
        m["pmu.p50_total_cycles"] = kernel.p50_total_cycles;
        m["pmu.mixed"] = kernel.mixed_with.empty() ? 0.0 : 1.0;
        if (kernel.partner_bound_ratio) m["pmu.partner_bound_ratio"] = *kernel.partner_bound_ratio;
        if (kernel.median_task_us) m["pmu.median_task_us"] = *kernel.median_task_us;
        if (kernel.core_type)
            subject.labels["pmu.core_type"] = std::string(to_string(*kernel.core_type));
        const PipeMetrics& w = kernel.weighted;
        std::optional<double> max_ratio;
        for (Pipe pipe : kAllPipes) {
            if (auto ratio = w.ratio_of(pipe)) {
                m[fmt::format("pmu.ratio.{}", to_string(pipe))] = *ratio;
                max_ratio = std::max(max_ratio.value_or(0.0), *ratio);
            }
        }
        if (max_ratio) m["pmu.max_pipe_ratio"] = *max_ratio;
        if (w.bound_ratio) m["pmu.bound_ratio"] = *w.bound_ratio;
        if (w.bound_ratio_with_mte3) m["pmu.bound_ratio_with_mte3"] = *w.bound_ratio_with_mte3;
        if (kernel.bound_spread) {
            m["pmu.bound_ratio.min"] = kernel.bound_spread->min;
            m["pmu.bound_ratio.median"] = kernel.bound_spread->median;
            m["pmu.bound_ratio.max"] = kernel.bound_spread->max;
        }
        if (w.bottleneck) {
            for (Pipe pipe : kAllPipes) {
                m[fmt::format("pmu.bottleneck_is_{}", to_string(pipe))] =
                    *w.bottleneck == pipe ? 1.0 : 0.0;
            }
            subject.labels["pmu.bottleneck"] = std::string(to_string(*w.bottleneck));
        }
        if (w.icache_miss_rate) m["pmu.icache_miss_rate"] = *w.icache_miss_rate;
        subject.locations.push_back(rules::Location{table.source, kernel.first_line, 0});
    }
}

}  // namespace ptune::pmu
