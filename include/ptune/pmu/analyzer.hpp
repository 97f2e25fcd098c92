#pragma once
/// @file analyzer.hpp
/// Derived PMU metrics (spec: pmu.md §6): per-row pipe busy ratios, the tuning guide's bound
/// ratio (Part 2 item 4) and the bottleneck pipe; per-kernel cycle-weighted aggregates over SPMD
/// blocks, with the spread across cores, and the pairing of AIC/AIV halves of mixed tasks.
/// Upstream computes none of this; the formulas are the guide's and are frequency-free.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/pmu/model.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::pmu {

/// Ratios of one row, or cycle-weighted ones of a kernel. Every value is nullopt when it is
/// undefined: a pipe the architecture lacks (fixpipe on a2a3), a zero total (simulator files),
/// an event group without pipe counters.
struct PipeMetrics {
    std::array<std::optional<double>, kPipeCount> ratio{};  ///< busy / total, clamped to 1
    /// The guide's bound ratio: AIC max(mte2, cube)/total, AIV max(mte2, vec)/total.
    std::optional<double> bound_ratio;
    /// AIV only: max(mte2, vec, mte3)/total, the store-heavy variant.
    std::optional<double> bound_ratio_with_mte3;
    /// argmax of the ratios, ties toward the earlier pipe of kAllPipes; nullopt when all are 0.
    std::optional<Pipe> bottleneck;
    std::optional<double> icache_miss_rate;  ///< icache_miss / icache_req
    bool clamped = false;                    ///< a busy count exceeded the total (data error)

    std::optional<double> ratio_of(Pipe pipe) const {
        return ratio[static_cast<std::size_t>(pipe)];
    }
};

/// "max(mte2,cube)/total" (AIC) or "max(mte2,vec)/total" (AIV).
std::string_view bound_formula(CoreType core_type);

/// Minimum, median and maximum of a per-row value over a kernel's rows (its cores and blocks).
struct Spread {
    double min = 0;
    double median = 0;
    double max = 0;
};

/// One kernel (one func_id) over all its rows.
struct KernelSummary {
    std::uint32_t func_id = 0;
    std::string name;                   ///< from the names map, or func_<id>
    std::optional<CoreType> core_type;  ///< nullopt when its rows disagree
    std::size_t first_line = 0;         ///< line of its first row in the file
    std::size_t rows = 0;
    std::size_t tasks = 0;              ///< distinct task ids
    std::size_t cores = 0;              ///< distinct core ids
    std::uint64_t total_cycles = 0;     ///< Σ pmu_total_cycles
    std::optional<double> cycle_share;  ///< total_cycles / Σ over the file; nullopt when that is 0
    double mean_total_cycles = 0;
    double p50_total_cycles = 0;
    double p90_total_cycles = 0;
    std::vector<std::uint64_t> counter_sums;  ///< Σ of each raw counter column
    PipeMetrics weighted;                     ///< Σbusy / Σtotal (cycle-weighted)
    std::optional<Spread> bound_spread;       ///< of the per-row bound ratios
    /// Kernels of the other core type sharing a task id (the halves of mixed tasks).
    std::vector<std::uint32_t> mixed_with;
    /// For an AIV half: the highest weighted bound ratio among its AIC partners.
    std::optional<double> partner_bound_ratio;
    std::optional<double> median_task_us;  ///< p50 total / AIcore MHz, when the clock is given
};

/// Options of the analysis.
struct AnalyzeOptions {
    /// AICore clock in MHz (pmu.csv records none); enables µs per task.
    std::optional<double> aicore_mhz;
};

/// The analysis of one pmu.csv.
struct Analysis {
    std::vector<PipeMetrics> rows;       ///< parallel to PmuTable::rows
    std::vector<KernelSummary> kernels;  ///< by Σtotal, largest first, then func_id
    std::uint64_t total_cycles = 0;
    std::size_t tasks = 0;
    std::size_t cores = 0;
    std::size_t mixed_tasks = 0;  ///< task ids with both AIC and AIV rows
    bool has_pipes = false;       ///< the counters are pipe busy cycles
    bool all_zero = false;        ///< every total and counter is 0 (a5sim): no data
};

/// The metrics of row `index` of `table`.
PipeMetrics row_metrics(const PmuTable& table, std::size_t index);

/// Computes the metrics. Clamped ratios (busy > total) are reported to `diagnostics` with the
/// row's line.
Analysis analyze(const PmuTable& table, const KernelNames& names, const AnalyzeOptions& options,
                 Diagnostics& diagnostics);

/// Publishes the metrics for the rules engine (docs/METRICS.md, section pmu): one subject of
/// kind "kernel" per kernel, named like the kernel, and run-wide facts on the "run" subject.
void publish_metrics(const PmuTable& table, const Analysis& analysis, rules::MetricStore& store);

}  // namespace ptune::pmu
