#pragma once
/// @file analyze.hpp
/// Schedule analysis of one chip swimlane capture: the metrics of swimlane.md §10 that turn the
/// shapes of the tuning guide's Part 1 (idle cores under a saturated AICPU, a long tail, cube
/// and vector in separate kernels, dispatch trails, a serialised graph) into numbers, plus the
/// critical path through deps.json and the converter's per-function statistics.
///
/// The analysis works on its own flat input (AnalyzeInput, times in µs on the capture's time
/// base) so it does not depend on how the records were read; `analyze_swimlane` is linear or
/// O(N log N) in the number of rows, phases and edges.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptune/rules/metrics.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// One joined (task, core) dispatch. Times are µs after the capture's time base; dispatch and
/// finish are meaningful only when AnalyzeInput::has_aicpu_timing is set.
struct AnalyzeRow {
    std::uint64_t task_id = 0;  ///< `(ring << 32) | local`
    int core = 0;
    CoreType kind = CoreType::Aiv;
    int func_id = -1;  ///< deps-resolved function id, -1 when unknown
    double dispatch = 0;
    double receive = 0;
    double start = 0;
    double end = 0;
    double finish = 0;
};

/// One outer AICPU scheduler phase record (swimlane.md §2.4), in µs.
struct AnalyzePhase {
    int thread = 0;
    PhaseKind kind = PhaseKind::Other;
    double start = 0;
    double end = 0;
    std::uint64_t tasks_processed = 0;
    /// Written by the a5 AICore scheduler (one flat lane: `resolve` is not nested there, and
    /// `idle` records are measured idle, upstream-2026-09.md §1.6).
    bool aicore = false;
};

/// What the analysis reads: one capture, already joined and converted to µs.
struct AnalyzeInput {
    std::string source;                ///< records file name, for messages
    int level = 0;                     ///< chip swimlane level (1..4)
    bool has_aicpu_timing = true;      ///< dispatch/finish stamped (level >= 2)
    std::vector<CoreType> core_types;  ///< metadata.core_types, indexed by core id
    std::vector<AnalyzeRow> rows;      ///< in join (file) order
    std::vector<AnalyzePhase> scheduler_phases;
    bool has_deps = false;  ///< a usable deps.json was read
    /// Deduplicated (pred, succ) edges in first-seen order.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
    std::map<std::uint64_t, int> block_num;  ///< deps.json block_num per task (absent = 1)
    KernelNames names;                       ///< func_id → kernel name
    TaskLabels labels = TaskLabels::Legacy;  ///< how task ids are labelled
    /// AICore scheduler streams by thread: worker id (−1 for a thread that is not one).
    std::map<int, std::int64_t> aicore_workers;
};

/// Thresholds the metrics themselves depend on (the rules' other thresholds stay in
/// rules/L2.json). The command takes them from the catalogue so `--rules` can change them.
struct AnalyzeOptions {
    double target_kernel_us = 50.0;  ///< guide Part 1 item 2: ~50 µs per kernel on A3/910C
    double idle_fraction =
        0.5;  ///< θ_idle: a moment counts as idle when ≥ this share of cores idles
    std::size_t trail_min_tasks = 8;  ///< n_min of a dispatch trail
    double trail_min_gap_us = 2.0;    ///< τ_gap floor; τ_gap = max(this, 3 × dispatch cost)
};

/// Idle gaps of one core (swimlane.md §10.1).
struct GapStats {
    std::size_t count = 0;  ///< leading + inner + trailing gaps longer than zero
    double total_us = 0;
    double p50_us = 0;
    double p95_us = 0;
    double max_us = 0;
    std::size_t pickup_count =
        0;                 ///< inner gaps whose next task was dispatched before the previous ended
    double pickup_us = 0;  ///< time between max(end, next dispatch) and next start
    std::size_t starved_count = 0;  ///< inner gaps where nothing was dispatched yet
    double starved_us = 0;          ///< time from end to the next dispatch
};

/// One AICore lane.
struct LaneStats {
    int core = 0;
    CoreType kind = CoreType::Aiv;
    std::size_t rows = 0;
    double busy_us = 0;
    double busy_fraction = 0;
    GapStats gaps;
};

/// One AICPU scheduler thread.
struct SchedulerStats {
    int thread = 0;
    double busy_us = 0;     ///< union of outer phases inside the window
    double saturation = 0;  ///< busy / window
    std::size_t dispatch_records = 0;
    std::size_t tasks_dispatched = 0;
};

/// One a5 AICore scheduler (upstream-2026-09.md §1.17): measured idle and where its time went.
struct AicoreSchedulerStats {
    int thread = 0;
    std::int64_t worker_id = -1;
    double span_us = 0;       ///< last record end − first record start
    double idle_us = 0;       ///< Σ `idle` records (measured, not reconstructed from gaps)
    double idle_share = 0;    ///< idle / span
    double bootstrap_us = 0;  ///< Σ `bootstrap`
    /// Task-processing time per kind: state_probe, dispatch, worksteal, refill, complete,
    /// resolve (µs), and how many tasks each of dispatch / worksteal / refill took.
    std::map<std::string, double> kind_us;
    std::size_t dispatched = 0, stolen = 0, refilled = 0;
};

/// The converter's per-function statistics (swimlane.md §6.4) plus the exec distribution.
struct FunctionStats {
    int func_id = -1;
    std::string name;
    std::size_t count = 0;  ///< rows
    double exec_sum_us = 0;
    double latency_sum_us = 0;
    double head_sum_us = 0;
    double tail_sum_us = 0;
    double prop_sum_us = 0;
    double local_sum_us = 0;
    double exec_median_us = 0;
    double exec_p10_us = 0;
    double exec_p90_us = 0;
    double below_target_share = 0;  ///< rows with exec < target
};

/// A logical task (all rows of one task id), for naming and the graph analyses.
struct TaskSummary {
    std::uint64_t task_id = 0;
    int func_id = -1;
    std::string label;  ///< converter label, e.g. `QK(r1t1)`
    double dispatch = 0, start = 0, end = 0, finish = 0;
    std::size_t rows = 0;
    bool has_aic = false, has_aiv = false;
    int first_core = 0;
};

/// The long tail (swimlane.md §10.3).
struct TailStats {
    double longest_task_us = 0;
    double longest_task_share = 0;  ///< L
    std::string longest_task;       ///< label
    double tail_start_us = 0;       ///< t_tail: last moment ≥ 2 cores ran (window start if never)
    double tail_us = 0;
    double tail_fraction = 0;   ///< τ
    std::string owner;          ///< label of the row with the latest end, with its lane
    double owner_cover = 0;     ///< share of the tail the owner row covers
    double owner_solo_us = 0;   ///< time the owner ran alone
    double single_core_us = 0;  ///< time with at most one core running
};

/// Cube→vector (or vector→cube) hand-offs between one-to-one tasks of one function pair.
struct HandoffGroup {
    int producer_func = -1, consumer_func = -1;
    std::string producer, consumer;  ///< names
    std::size_t pairs = 0;
    double handoff_sum_us = 0;  ///< Σ (start of consumer − end of producer)
    double handoff_max_us = 0;
};

/// Cube/vector balance (swimlane.md §10.4).
struct CubeVectorStats {
    double util_aic = 0, util_aiv = 0;
    double imbalance = 0;    ///< |U_AIC − U_AIV|
    double cube_only = 0;    ///< X_cube: share of the window with cube running and no vector
    double vector_only = 0;  ///< X_vec
    std::vector<HandoffGroup> handoffs;  ///< by pair count, largest first
    std::size_t handoff_pairs = 0;
    double handoff_sum_us = 0;
};

/// A run of same-function single-block tasks dispatched one after another (swimlane.md §10.5).
struct DispatchTrail {
    int func_id = -1;
    std::string function;  ///< name (or core type when the function is unknown)
    std::size_t tasks = 0;
    std::string first_task, last_task;  ///< labels
    double first_dispatch_us = 0;
    double span_us = 0;       ///< last dispatch − first dispatch
    double slope_us = 0;      ///< span / (n − 1)
    double mean_exec_us = 0;  ///< mean kernel time of the members
    double span_over_exec = 0;
    double idle_core_fraction = 0;  ///< idle share of that core type over the span
    double staircase_r2 = 0;        ///< R² of start ≈ a + b·i
};

/// One task on the critical path.
struct PathStep {
    std::uint64_t task_id = 0;
    std::string label;
    double start = 0, end = 0;
    double wait_us = 0;  ///< start − end of the gating predecessor (root: start − dispatch)
};

/// The critical path through deps.json (swimlane.md §10.3, observed-schedule walk).
struct CriticalPath {
    bool available = false;       ///< deps present and at least one task on it
    std::vector<PathStep> tasks;  ///< in execution order
    double length_us = 0;         ///< end of the last task − dispatch of the first
    double kernel_us = 0;         ///< Σ (end − start) on the path
    double overhead_us = 0;       ///< scheduling time on the path (length − kernel)
    double window_share = 0;      ///< length / window
    std::size_t graph_tasks = 0;  ///< tasks with rows and a place in the graph
    std::size_t zero_slack_tasks = 0;
    double slack_p50_us = 0;
    double slack_max_us = 0;
    std::size_t cycle_tasks = 0;     ///< tasks left out because deps.json has a cycle
    std::vector<std::string> cycle;  ///< the tasks of one cycle, in dependency order
};

/// Everything the analysis found.
struct Analysis {
    std::size_t rows = 0, tasks = 0;
    std::size_t cores_aic = 0, cores_aiv = 0;                      ///< from metadata.core_types
    double window_start_us = 0, window_end_us = 0, window_us = 0;  ///< W = [min start, max end]
    double total_test_time_us = 0;  ///< max finish − min dispatch (level 1: max end − min receive)
    double average_parallelism = 0;
    std::vector<LaneStats> lanes;  ///< cores with rows, by core id
    std::vector<SchedulerStats> schedulers;
    double scheduler_saturation_mean = 0;
    double idle_while_scheduler_busy = 0;    ///< D of §10.2 (all scheduler threads busy)
    std::optional<double> dispatch_cost_us;  ///< Σ dispatch phase time / Σ tasks processed
    std::vector<AicoreSchedulerStats> aicore_schedulers;  ///< AICore-scheduler streams
    double kernel_median_us = 0, kernel_p10_us = 0, kernel_p90_us = 0;
    double kernel_below_target_share = 0;
    double target_kernel_us = 0;
    std::vector<FunctionStats> functions;  ///< by func_id
    double exec_sum_us = 0, latency_sum_us = 0;
    TailStats tail;
    CubeVectorStats cube_vector;
    std::vector<DispatchTrail> trails;  ///< by first dispatch
    CriticalPath critical_path;
};

/// Builds the analysis input from a capture read by read_capture (with apply_deps already
/// applied when deps is given), in the upstream converter's float microseconds so the
/// per-function statistics match the converter's console summary digit for digit.
AnalyzeInput make_analyze_input(const Capture& capture, const Deps* deps, const KernelNames* names);

/// Runs every analysis. Never fails: metrics that need missing data stay at their defaults and
/// are not published.
Analysis analyze_swimlane(const AnalyzeInput& input, const AnalyzeOptions& options = {});

/// Publishes the metrics for the rules engine: subject "run" (window, parallelism, scheduler,
/// granularity, tail, cube/vector, critical path), "core" (per lane, e.g. `AIV_3`), "kernel"
/// (per function, with its longest dispatch trail) and "handoff" (per producer→consumer pair).
void publish_metrics(const Analysis& analysis, const AnalyzeInput& input,
                     rules::MetricStore& store);

/// `AIC_0` / `AIV_3`.
std::string lane_name(int core, CoreType kind);

}  // namespace ptune::swimlane
