#pragma once
// The schedule analysis of one capture (ptune/swimlane/analyze.hpp), as one Analyzer object: its
// time sweep, lanes and functions live in analyze.cpp, the graph analyses (hand-offs, trails,
// critical path) in analyze_graph.cpp.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane::analysis {

// A graph node without a time (an id only in deps.json with no timed predecessor).
inline constexpr double kUntimed = -std::numeric_limits<double>::infinity();
// Slack below this (µs) counts as zero: times are whole nanoseconds converted to µs.
inline constexpr double kZeroSlackUs = 1e-6;

// Outer scheduler phases (swimlane.md §10.2): inner resolve/drain_* and markers are excluded;
// measured `idle` is never busy. The AICore scheduler's lane is flat: every kind but idle works.
inline bool is_outer_phase(const AnalyzePhase& phase) {
    if (phase.kind == PhaseKind::Idle) return false;
    if (phase.aicore) return phase.kind != PhaseKind::Other;
    switch (phase.kind) {
        case PhaseKind::ResolveStandalone:
        case PhaseKind::Bootstrap:
        case PhaseKind::StateProbe:
        case PhaseKind::Worksteal:
        case PhaseKind::Refill:
        case PhaseKind::Fanin:
        case PhaseKind::ReadyClaim:
        case PhaseKind::ReadySteal:
        case PhaseKind::DirectRefill:
        case PhaseKind::Complete:
        case PhaseKind::AsyncPoll:
        case PhaseKind::Dispatch:
        case PhaseKind::Release:
        case PhaseKind::Dummy:
        case PhaseKind::Drain:
        case PhaseKind::EarlyDispatch:
        case PhaseKind::GraphPrepare:
            return true;
        default:
            return false;
    }
}

// The converter's statistics name: `func_-1_` for unresolved rows (§6.4), else the kernel name.
inline std::string function_name(int func_id, const KernelNames& names) {
    return func_id < 0 ? fmt::format("func_{}_", func_id) : kernel_base_name(func_id, &names);
}

// The converter's slice label (§5.3): `SF_spmd(r1t3)`, `task(t0)`.
inline std::string task_label(std::uint64_t task_id, int func_id, bool spmd,
                              const KernelNames& names, TaskLabels labels) {
    std::string base = kernel_base_name(func_id, &names);
    if (spmd && text::to_lower(base).find("spmd") == std::string::npos) base += "_spmd";
    return fmt::format("{}({})", base, task_display(task_id, labels));
}

// Adds one row to its task: the earliest dispatch and start, the latest end and finish.
inline void add_row(TaskSummary& task, const AnalyzeRow& row) {
    task.dispatch = std::min(task.dispatch, row.dispatch);
    task.start = std::min(task.start, row.start);
    task.end = std::max(task.end, row.end);
    task.finish = std::max(task.finish, row.finish);
    if (task.func_id < 0) task.func_id = row.func_id;
    ++task.rows;
    (row.kind == CoreType::Aic ? task.has_aic : task.has_aiv) = true;
}

// deps.json's block_num is authoritative; otherwise several rows of one core type (§6.3).
inline bool is_spmd(const TaskSummary& task, const std::map<std::uint64_t, int>& block_num) {
    if (auto it = block_num.find(task.task_id); it != block_num.end()) return it->second > 1;
    return task.rows > 1 && !(task.has_aic && task.has_aiv);
}

using Interval = std::pair<double, double>;

// Sorts and merges overlapping intervals in place.
inline void merge_intervals(std::vector<Interval>& intervals) {
    std::sort(intervals.begin(), intervals.end());
    std::size_t out = 0;
    for (const auto& iv : intervals) {
        if (out > 0 && iv.first <= intervals[out - 1].second) {
            intervals[out - 1].second = std::max(intervals[out - 1].second, iv.second);
        } else {
            intervals[out++] = iv;
        }
    }
    intervals.resize(out);
}

inline double total_length(const std::vector<Interval>& merged) {
    double sum = 0;
    for (const auto& [a, b] : merged) sum += b - a;
    return sum;
}

// A piece of the window on which the number of running rows per core type is constant.
struct Segment {
    double start = 0, end = 0;
    int aic = 0, aiv = 0;
};

// The run_T(t) step functions with prefix integrals, for "busy cores of type T over [a, b]".
class Occupancy {
  public:
    explicit Occupancy(std::vector<Segment> segments) : segments_(std::move(segments)) {
        prefix_aic_.assign(segments_.size() + 1, 0.0);
        prefix_aiv_.assign(segments_.size() + 1, 0.0);
        for (std::size_t i = 0; i < segments_.size(); ++i) {
            double len = segments_[i].end - segments_[i].start;
            prefix_aic_[i + 1] = prefix_aic_[i] + len * segments_[i].aic;
            prefix_aiv_[i + 1] = prefix_aiv_[i] + len * segments_[i].aiv;
        }
    }

    /// ∫ run_T(t) dt over [a, b].
    double busy(CoreType kind, double a, double b) const {
        return integral(kind, b) - integral(kind, a);
    }
    const std::vector<Segment>& segments() const { return segments_; }

  private:
    double integral(CoreType kind, double t) const {
        const auto& prefix = kind == CoreType::Aic ? prefix_aic_ : prefix_aiv_;
        auto it = std::upper_bound(segments_.begin(), segments_.end(), t,
                                   [](double value, const Segment& s) { return value < s.start; });
        if (it == segments_.begin()) return 0.0;
        std::size_t i = static_cast<std::size_t>(it - segments_.begin()) - 1;
        double covered = std::min(t, segments_[i].end) - segments_[i].start;
        int running = kind == CoreType::Aic ? segments_[i].aic : segments_[i].aiv;
        return prefix[i] + covered * running;
    }

    std::vector<Segment> segments_;
    std::vector<double> prefix_aic_, prefix_aiv_;
};

struct Event {
    double time = 0;
    int lane = 0;  // 0 AIC row, 1 AIV row, 2 scheduler thread busy
    int delta = 0;
};

// Task graph over task ids: tasks with rows first (same index as Analysis tasks), then ids that
// appear only in deps.json (alloc, dummy), stored as compressed adjacency lists.
struct Graph {
    std::size_t nodes = 0;
    std::vector<std::size_t> pred_begin, preds, succ_begin, succs;

    std::pair<const std::size_t*, const std::size_t*> preds_of(std::size_t v) const {
        return {preds.data() + pred_begin[v], preds.data() + pred_begin[v + 1]};
    }
    std::pair<const std::size_t*, const std::size_t*> succs_of(std::size_t v) const {
        return {succs.data() + succ_begin[v], succs.data() + succ_begin[v + 1]};
    }
};

inline double quantile_or_zero(const std::vector<double>& values, double q) {
    return values.empty() ? 0.0 : stats::quantile(values, q).value_or(0.0);
}

// Coefficient of determination of the least-squares line through (i, y_i).
inline double linear_fit_r2(const std::vector<double>& y) {
    std::size_t n = y.size();
    if (n < 3) return 0.0;
    double mean_x = (static_cast<double>(n) - 1) / 2, mean_y = 0;
    for (double v : y) mean_y += v;
    mean_y /= static_cast<double>(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double dx = static_cast<double>(i) - mean_x, dy = y[i] - mean_y;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if (sxx <= 0 || syy <= 0) return 0.0;
    return sxy * sxy / (sxx * syy);
}

/// The deduplicated dependency graph of the tasks (analyze_graph.cpp).
Graph build_graph(const AnalyzeInput& input, std::unordered_map<std::uint64_t, std::size_t>& index,
                  std::size_t row_tasks);
/// Kahn's algorithm; nodes on a cycle are left out of the order.
std::vector<std::size_t> topological_order(const Graph& graph);

class Analyzer {
  public:
    Analyzer(const AnalyzeInput& input, const AnalyzeOptions& options)
        : in_(input), opt_(options) {}

    Analysis run();

  private:
    double share(double value) const { return out_.window_us > 0 ? value / out_.window_us : 0.0; }
    std::size_t cores_of(CoreType kind) const;

    void count_cores();

    void build_tasks();

    // deps.json's block_num is authoritative; otherwise several rows of one core type (§6.3).
    bool is_spmd(const TaskSummary& task) const { return analysis::is_spmd(task, in_.block_num); }

    void window();

    void scheduler();

    // The AICore scheduler's own accounting (upstream-2026-09.md §1.17): idle from its measured
    // `idle` records, busy time split by kind, bootstrap length.
    void aicore_schedulers();

    // One pass over all interval ends in time order.
    void sweep();

    void lanes();

    // Gaps of one core's rows sorted by start: leading, inner (classified) and trailing.
    GapStats gaps(const std::vector<std::size_t>& rows) const;

    // The converter's statistics: sums in task order (rows stable-sorted by task id), as upstream.
    void functions();

    double below_target(const std::vector<double>& values) const;

    void longest_task();

    bool mixed(std::size_t t) const { return tasks_[t].has_aic && tasks_[t].has_aiv; }

    // Edges p→q between tasks of different core types where p feeds only q and q waits only
    // for p: a cube kernel and its vector epilogue (or the reverse) split into two kernels.
    void handoffs();

    void trails();

    DispatchTrail make_trail(int func_id, const std::vector<std::size_t>& run) const;

    // One cycle of deps.json, named by its tasks, so that the report can say which. A node
    // left out of Kahn's order has a predecessor left out too; walking back through those
    // must come round to a node already seen.
    std::vector<std::string> one_cycle(const std::vector<char>& in_dag) const;

    std::string node_label(std::size_t node) const;

    // Observed critical path: from the task that ends last, step to the predecessor that ended
    // last, until a task without timed predecessors. Tasks only in deps.json (alloc, dummy) are
    // zero-length nodes ending when their last predecessor ended, so the walk passes through them.
    void critical_path();

    const AnalyzeInput& in_;
    const AnalyzeOptions& opt_;
    Analysis out_;
    std::vector<std::size_t> order_;
    std::vector<TaskSummary> tasks_;
    std::unordered_map<std::uint64_t, std::size_t> task_index_;
    std::vector<Event> events_;
    Occupancy occupancy_{{}};
    Graph graph_;
    std::size_t owner_ = 0;
    int scheduler_threads_ = 0;
    double exec_sum_ = 0, cube_only_ = 0, vector_only_ = 0, idle_while_busy_ = 0;
};

}  // namespace ptune::swimlane::analysis
