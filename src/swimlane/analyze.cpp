// Schedule analysis of one swimlane capture (swimlane.md §10). One time sweep over the row and
// scheduler intervals gives every "measure of a set of instants" metric; the graph analyses
// (hand-offs, trails, critical path) are linear passes over the deduplicated edges.

#include "ptune/swimlane/analyze.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane {

namespace {

// A graph node without a time (an id only in deps.json with no timed predecessor).
constexpr double kUntimed = -std::numeric_limits<double>::infinity();
// Slack below this (µs) counts as zero: times are whole nanoseconds converted to µs.
constexpr double kZeroSlackUs = 1e-6;

// Outer scheduler phases (swimlane.md §10.2): inner resolve/drain_* and markers are excluded;
// measured `idle` is never busy. The AICore scheduler's lane is flat: every kind but idle works.
bool is_outer_phase(const AnalyzePhase& phase) {
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
std::string function_name(int func_id, const KernelNames& names) {
    return func_id < 0 ? fmt::format("func_{}_", func_id) : kernel_base_name(func_id, &names);
}

// The converter's slice label (§5.3): `SF_spmd(r1t3)`, `task(t0)`.
std::string task_label(std::uint64_t task_id, int func_id, bool spmd, const KernelNames& names,
                       TaskLabels labels) {
    std::string base = kernel_base_name(func_id, &names);
    if (spmd && text::to_lower(base).find("spmd") == std::string::npos) base += "_spmd";
    return fmt::format("{}({})", base, task_display(task_id, labels));
}

using Interval = std::pair<double, double>;

// Sorts and merges overlapping intervals in place.
void merge_intervals(std::vector<Interval>& intervals) {
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

double total_length(const std::vector<Interval>& merged) {
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

Graph build_graph(const AnalyzeInput& input, std::unordered_map<std::uint64_t, std::size_t>& index,
                  std::size_t row_tasks) {
    std::vector<std::pair<std::size_t, std::size_t>> edges;
    edges.reserve(input.edges.size());
    auto node_of = [&](std::uint64_t id) {
        auto [it, inserted] = index.try_emplace(id, index.size());
        return it->second;
    };
    for (const auto& [pred, succ] : input.edges) {
        if (pred == succ) continue;
        edges.emplace_back(node_of(pred), node_of(succ));
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    Graph graph;
    graph.nodes = std::max(index.size(), row_tasks);
    auto fill = [&](bool by_succ, std::vector<std::size_t>& begin, std::vector<std::size_t>& list) {
        begin.assign(graph.nodes + 1, 0);
        for (const auto& [p, s] : edges) ++begin[(by_succ ? s : p) + 1];
        std::partial_sum(begin.begin(), begin.end(), begin.begin());
        list.resize(edges.size());
        std::vector<std::size_t> cursor(begin.begin(), begin.end() - 1);
        for (const auto& [p, s] : edges) list[cursor[by_succ ? s : p]++] = by_succ ? p : s;
    };
    fill(true, graph.pred_begin, graph.preds);
    fill(false, graph.succ_begin, graph.succs);
    return graph;
}

// Kahn's algorithm; nodes on a cycle are left out of the order.
std::vector<std::size_t> topological_order(const Graph& graph) {
    std::vector<std::size_t> indegree(graph.nodes, 0), order;
    order.reserve(graph.nodes);
    for (std::size_t v = 0; v < graph.nodes; ++v)
        indegree[v] = graph.pred_begin[v + 1] - graph.pred_begin[v];
    for (std::size_t v = 0; v < graph.nodes; ++v) {
        if (indegree[v] == 0) order.push_back(v);
    }
    for (std::size_t head = 0; head < order.size(); ++head) {
        auto [first, last] = graph.succs_of(order[head]);
        for (const std::size_t* s = first; s != last; ++s) {
            if (--indegree[*s] == 0) order.push_back(*s);
        }
    }
    return order;
}

double quantile_or_zero(const std::vector<double>& values, double q) {
    return values.empty() ? 0.0 : stats::quantile(values, q).value_or(0.0);
}

// Coefficient of determination of the least-squares line through (i, y_i).
double linear_fit_r2(const std::vector<double>& y) {
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

class Analyzer {
  public:
    Analyzer(const AnalyzeInput& input, const AnalyzeOptions& options)
        : in_(input), opt_(options) {}

    Analysis run() {
        out_.rows = in_.rows.size();
        out_.target_kernel_us = opt_.target_kernel_us;
        count_cores();
        if (in_.rows.empty()) return std::move(out_);
        build_tasks();
        window();
        scheduler();
        sweep();
        lanes();
        functions();
        longest_task();
        graph_ = build_graph(in_, task_index_, tasks_.size());
        if (in_.has_deps) handoffs();
        trails();
        if (in_.has_deps) critical_path();
        out_.tasks = tasks_.size();
        return std::move(out_);
    }

  private:
    double share(double value) const { return out_.window_us > 0 ? value / out_.window_us : 0.0; }
    std::size_t cores_of(CoreType kind) const {
        return kind == CoreType::Aic ? out_.cores_aic : out_.cores_aiv;
    }

    void count_cores() {
        // Without metadata, the cores that have rows are all we know (keyed by id: a sparse
        // core id such as 2^31 must not size an array).
        if (!in_.core_types.empty()) {
            for (auto kind : in_.core_types)
                (kind == CoreType::Aic ? out_.cores_aic : out_.cores_aiv)++;
            return;
        }
        std::unordered_map<std::int64_t, CoreType> types;
        for (const auto& row : in_.rows)
            if (row.core >= 0) types[row.core] = row.kind;
        for (const auto& [core, kind] : types)
            (kind == CoreType::Aic ? out_.cores_aic : out_.cores_aiv)++;
    }

    void build_tasks() {
        order_.resize(in_.rows.size());
        std::iota(order_.begin(), order_.end(), std::size_t{0});
        std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
            return in_.rows[a].task_id < in_.rows[b].task_id;
        });
        for (std::size_t i : order_) {
            const AnalyzeRow& row = in_.rows[i];
            auto [it, inserted] = task_index_.try_emplace(row.task_id, tasks_.size());
            if (inserted) {
                TaskSummary task;
                task.task_id = row.task_id;
                task.dispatch = row.dispatch;
                task.start = row.start;
                task.end = row.end;
                task.finish = row.finish;
                task.first_core = row.core;
                tasks_.push_back(task);
            }
            TaskSummary& task = tasks_[it->second];
            task.dispatch = std::min(task.dispatch, row.dispatch);
            task.start = std::min(task.start, row.start);
            task.end = std::max(task.end, row.end);
            task.finish = std::max(task.finish, row.finish);
            if (task.func_id < 0) task.func_id = row.func_id;
            ++task.rows;
            (row.kind == CoreType::Aic ? task.has_aic : task.has_aiv) = true;
        }
        for (auto& task : tasks_)
            task.label =
                task_label(task.task_id, task.func_id, is_spmd(task), in_.names, in_.labels);
    }

    // deps.json's block_num is authoritative; otherwise several rows of one core type (§6.3).
    bool is_spmd(const TaskSummary& task) const {
        if (auto it = in_.block_num.find(task.task_id); it != in_.block_num.end())
            return it->second > 1;
        return task.rows > 1 && !(task.has_aic && task.has_aiv);
    }

    void window() {
        double w0 = std::numeric_limits<double>::infinity(), w1 = kUntimed;
        double d0 = std::numeric_limits<double>::infinity(), f1 = kUntimed, v0 = d0;
        for (const auto& row : in_.rows) {
            w0 = std::min(w0, row.start);
            w1 = std::max(w1, row.end);
            d0 = std::min(d0, row.dispatch);
            f1 = std::max(f1, row.finish);
            v0 = std::min(v0, row.receive);
            exec_sum_ += row.end - row.start;
        }
        out_.window_start_us = w0;
        out_.window_end_us = w1;
        out_.window_us = w1 - w0;
        out_.total_test_time_us = in_.has_aicpu_timing ? f1 - d0 : w1 - v0;
        out_.average_parallelism = share(exec_sum_);
    }

    void scheduler() {
        std::map<int, std::vector<Interval>> busy;
        double dispatch_time = 0;
        std::uint64_t dispatched = 0;
        std::map<int, SchedulerStats> stats;
        for (const auto& phase : in_.scheduler_phases) {
            if (!is_outer_phase(phase)) continue;
            busy[phase.thread].emplace_back(phase.start, phase.end);
            SchedulerStats& s = stats[phase.thread];
            s.thread = phase.thread;
            if (phase.kind == PhaseKind::Dispatch) {
                ++s.dispatch_records;
                s.tasks_dispatched += phase.tasks_processed;
                dispatch_time += phase.end - phase.start;
                dispatched += phase.tasks_processed;
            }
        }
        if (dispatched > 0) out_.dispatch_cost_us = dispatch_time / static_cast<double>(dispatched);
        double saturation_sum = 0;
        for (auto& [thread, intervals] : busy) {
            for (auto& [a, b] : intervals) {
                a = std::max(a, out_.window_start_us);
                b = std::min(b, out_.window_end_us);
            }
            std::erase_if(intervals, [](const Interval& iv) { return iv.second <= iv.first; });
            merge_intervals(intervals);
            SchedulerStats& s = stats[thread];
            s.busy_us = total_length(intervals);
            s.saturation = share(s.busy_us);
            saturation_sum += s.saturation;
            for (const auto& [a, b] : intervals) {
                events_.push_back({a, 2, +1});
                events_.push_back({b, 2, -1});
            }
            out_.schedulers.push_back(s);
        }
        scheduler_threads_ = static_cast<int>(busy.size());
        if (!busy.empty())
            out_.scheduler_saturation_mean = saturation_sum / static_cast<double>(busy.size());
        aicore_schedulers();
    }

    // The AICore scheduler's own accounting (upstream-2026-09.md §1.17): idle from its measured
    // `idle` records, busy time split by kind, bootstrap length.
    void aicore_schedulers() {
        std::map<int, AicoreSchedulerStats> stats;
        std::map<int, std::pair<double, double>> span;
        for (const auto& phase : in_.scheduler_phases) {
            if (!phase.aicore) continue;
            AicoreSchedulerStats& s = stats[phase.thread];
            s.thread = phase.thread;
            auto [it, fresh] = span.try_emplace(phase.thread, phase.start, phase.end);
            if (!fresh)
                it->second = {std::min(it->second.first, phase.start),
                              std::max(it->second.second, phase.end)};
            double length = phase.end - phase.start;
            switch (phase.kind) {
                case PhaseKind::Idle:
                    s.idle_us += length;
                    break;
                case PhaseKind::Bootstrap:
                    s.bootstrap_us += length;
                    break;
                default:
                    s.kind_us[std::string(to_string(phase.kind))] += length;
                    break;
            }
            if (phase.kind == PhaseKind::Dispatch) s.dispatched += phase.tasks_processed;
            if (phase.kind == PhaseKind::Worksteal) s.stolen += phase.tasks_processed;
            if (phase.kind == PhaseKind::Refill) s.refilled += phase.tasks_processed;
        }
        for (auto& [thread, s] : stats) {
            auto it = in_.aicore_workers.find(thread);
            s.worker_id = it != in_.aicore_workers.end() ? it->second : -1;
            s.span_us = span[thread].second - span[thread].first;
            s.idle_share = s.span_us > 0 ? s.idle_us / s.span_us : 0;
            out_.aicore_schedulers.push_back(std::move(s));
        }
    }

    // One pass over all interval ends in time order.
    void sweep() {
        for (const auto& row : in_.rows) {
            int lane = row.kind == CoreType::Aic ? 0 : 1;
            events_.push_back({row.start, lane, +1});
            events_.push_back({row.end, lane, -1});
        }
        std::sort(events_.begin(), events_.end(),
                  [](const Event& a, const Event& b) { return a.time < b.time; });
        owner_ = std::max_element(in_.rows.begin(), in_.rows.end(),
                                  [](const AnalyzeRow& a, const AnalyzeRow& b) {
                                      return a.end < b.end ||
                                             (a.end == b.end && a.end - a.start < b.end - b.start);
                                  }) -
                 in_.rows.begin();
        const AnalyzeRow& owner = in_.rows[owner_];
        double total_cores = static_cast<double>(out_.cores_aic + out_.cores_aiv);
        int running[3] = {0, 0, 0};
        double tail_start = out_.window_start_us;
        std::vector<Segment> segments;
        for (std::size_t i = 0; i < events_.size();) {
            double t = events_[i].time;
            for (; i < events_.size() && events_[i].time == t; ++i)
                running[events_[i].lane] += events_[i].delta;
            if (i == events_.size()) break;
            double a = std::max(t, out_.window_start_us),
                   b = std::min(events_[i].time, out_.window_end_us);
            if (b <= a) continue;
            double len = b - a;
            int run = running[0] + running[1];
            segments.push_back({a, b, running[0], running[1]});
            if (run >= 2) tail_start = b;
            if (run <= 1) out_.tail.single_core_us += len;
            if (run == 1 && a >= owner.start && b <= owner.end) out_.tail.owner_solo_us += len;
            if (running[0] > 0 && running[1] == 0) cube_only_ += len;
            if (running[1] > 0 && running[0] == 0) vector_only_ += len;
            bool mostly_idle =
                total_cores > 0 && (total_cores - run) / total_cores >= opt_.idle_fraction;
            if (mostly_idle && scheduler_threads_ > 0 && running[2] >= scheduler_threads_) {
                idle_while_busy_ += len;
            }
        }
        occupancy_ = Occupancy(std::move(segments));
        out_.idle_while_scheduler_busy = share(idle_while_busy_);
        TailStats& tail = out_.tail;
        tail.tail_start_us = tail_start;
        tail.tail_us = out_.window_end_us - tail_start;
        tail.tail_fraction = share(tail.tail_us);
        if (tail.tail_us > 0) {
            tail.owner_cover = (owner.end - std::max(owner.start, tail_start)) / tail.tail_us;
        }
        tail.owner = fmt::format("{} on {}", tasks_[task_index_.at(owner.task_id)].label,
                                 lane_name(owner.core, owner.kind));
    }

    void lanes() {
        std::map<int, std::vector<std::size_t>> by_core;
        for (std::size_t i = 0; i < in_.rows.size(); ++i) by_core[in_.rows[i].core].push_back(i);
        double busy_aic = 0, busy_aiv = 0;
        for (auto& [core, rows] : by_core) {
            std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
                return in_.rows[a].start < in_.rows[b].start;
            });
            LaneStats lane;
            lane.core = core;
            lane.kind = in_.rows[rows.front()].kind;
            lane.rows = rows.size();
            std::vector<Interval> intervals;
            for (std::size_t i : rows) intervals.emplace_back(in_.rows[i].start, in_.rows[i].end);
            merge_intervals(intervals);
            lane.busy_us = total_length(intervals);
            lane.busy_fraction = share(lane.busy_us);
            (lane.kind == CoreType::Aic ? busy_aic : busy_aiv) += lane.busy_us;
            lane.gaps = gaps(rows);
            out_.lanes.push_back(lane);
        }
        CubeVectorStats& cv = out_.cube_vector;
        if (out_.cores_aic > 0) cv.util_aic = share(busy_aic) / static_cast<double>(out_.cores_aic);
        if (out_.cores_aiv > 0) cv.util_aiv = share(busy_aiv) / static_cast<double>(out_.cores_aiv);
        cv.imbalance = std::fabs(cv.util_aic - cv.util_aiv);
        cv.cube_only = share(cube_only_);
        cv.vector_only = share(vector_only_);
    }

    // Gaps of one core's rows sorted by start: leading, inner (classified) and trailing.
    GapStats gaps(const std::vector<std::size_t>& rows) const {
        GapStats g;
        std::vector<double> lengths;
        auto add = [&](double length) {
            if (length > 0) lengths.push_back(length);
        };
        add(in_.rows[rows.front()].start - out_.window_start_us);
        double busy_until = in_.rows[rows.front()].end;
        for (std::size_t k = 1; k < rows.size(); ++k) {
            const AnalyzeRow& next = in_.rows[rows[k]];
            double gap = next.start - busy_until;
            if (gap > 0) {
                add(gap);
                if (in_.has_aicpu_timing) {
                    if (next.dispatch < busy_until) {
                        ++g.pickup_count;
                        g.pickup_us += gap;
                    } else {
                        ++g.starved_count;
                        g.starved_us += next.dispatch - busy_until;
                        g.pickup_us += next.start - next.dispatch;
                    }
                }
            }
            busy_until = std::max(busy_until, next.end);
        }
        add(out_.window_end_us - busy_until);
        g.count = lengths.size();
        for (double v : lengths) g.total_us += v;
        g.p50_us = quantile_or_zero(lengths, 0.5);
        g.p95_us = quantile_or_zero(lengths, 0.95);
        g.max_us = lengths.empty() ? 0.0 : *std::max_element(lengths.begin(), lengths.end());
        return g;
    }

    // The converter's statistics: sums in task order (rows stable-sorted by task id), as upstream.
    void functions() {
        std::map<int, FunctionStats> by_func;
        std::map<int, std::vector<double>> execs;
        std::vector<double> all_execs;
        all_execs.reserve(in_.rows.size());
        for (std::size_t i : order_) {
            const AnalyzeRow& row = in_.rows[i];
            FunctionStats& f = by_func[row.func_id];
            f.func_id = row.func_id;
            ++f.count;
            double exec = row.end - row.start;
            f.exec_sum_us += exec;
            f.latency_sum_us += row.finish - row.dispatch;
            f.head_sum_us += row.start - row.dispatch;
            f.tail_sum_us += row.finish - row.end;
            f.prop_sum_us += row.receive - row.dispatch;
            f.local_sum_us += row.start - row.receive;
            out_.exec_sum_us += exec;
            out_.latency_sum_us += row.finish - row.dispatch;
            execs[row.func_id].push_back(exec);
            all_execs.push_back(exec);
        }
        for (auto& [func, f] : by_func) {
            f.name = function_name(func, in_.names);
            const auto& values = execs[func];
            f.exec_median_us = quantile_or_zero(values, 0.5);
            f.exec_p10_us = quantile_or_zero(values, 0.1);
            f.exec_p90_us = quantile_or_zero(values, 0.9);
            f.below_target_share = below_target(values);
            out_.functions.push_back(f);
        }
        out_.kernel_median_us = quantile_or_zero(all_execs, 0.5);
        out_.kernel_p10_us = quantile_or_zero(all_execs, 0.1);
        out_.kernel_p90_us = quantile_or_zero(all_execs, 0.9);
        out_.kernel_below_target_share = below_target(all_execs);
    }

    double below_target(const std::vector<double>& values) const {
        if (values.empty()) return 0.0;
        auto below = std::count_if(values.begin(), values.end(),
                                   [&](double v) { return v < opt_.target_kernel_us; });
        return static_cast<double>(below) / static_cast<double>(values.size());
    }

    void longest_task() {
        const TaskSummary* longest = nullptr;
        for (const auto& task : tasks_) {
            if (!longest || task.end - task.start > longest->end - longest->start) longest = &task;
        }
        out_.tail.longest_task_us = longest->end - longest->start;
        out_.tail.longest_task_share = share(out_.tail.longest_task_us);
        out_.tail.longest_task = longest->label;
    }

    bool mixed(std::size_t t) const { return tasks_[t].has_aic && tasks_[t].has_aiv; }

    // Edges p→q between tasks of different core types where p feeds only q and q waits only
    // for p: a cube kernel and its vector epilogue (or the reverse) split into two kernels.
    void handoffs() {
        std::size_t row_tasks = tasks_.size();
        auto fan = [&](std::size_t v, bool out) {
            auto [first, last] = out ? graph_.succs_of(v) : graph_.preds_of(v);
            return std::count_if(first, last, [&](std::size_t u) { return u < row_tasks; });
        };
        std::map<std::pair<int, int>, HandoffGroup> groups;
        CubeVectorStats& cv = out_.cube_vector;
        for (std::size_t p = 0; p < row_tasks; ++p) {
            if (mixed(p) || fan(p, true) != 1) continue;
            auto [first, last] = graph_.succs_of(p);
            std::size_t q =
                *std::find_if(first, last, [&](std::size_t u) { return u < row_tasks; });
            if (mixed(q) || tasks_[p].has_aic == tasks_[q].has_aic || fan(q, false) != 1) continue;
            double handoff = std::max(0.0, tasks_[q].start - tasks_[p].end);
            HandoffGroup& g = groups[{tasks_[p].func_id, tasks_[q].func_id}];
            g.producer_func = tasks_[p].func_id;
            g.consumer_func = tasks_[q].func_id;
            ++g.pairs;
            g.handoff_sum_us += handoff;
            g.handoff_max_us = std::max(g.handoff_max_us, handoff);
            ++cv.handoff_pairs;
            cv.handoff_sum_us += handoff;
        }
        for (auto& [key, g] : groups) {
            g.producer = function_name(g.producer_func, in_.names);
            g.consumer = function_name(g.consumer_func, in_.names);
            cv.handoffs.push_back(g);
        }
        std::stable_sort(
            cv.handoffs.begin(), cv.handoffs.end(),
            [](const HandoffGroup& a, const HandoffGroup& b) { return a.pairs > b.pairs; });
    }

    void trails() {
        if (!in_.has_aicpu_timing) return;
        double max_gap = std::max(opt_.trail_min_gap_us, 3 * out_.dispatch_cost_us.value_or(0.0));
        // Group single-block tasks by function (by core type when the function is unknown).
        std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
        for (std::size_t t = 0; t < tasks_.size(); ++t) {
            if (is_spmd(tasks_[t])) continue;
            int kind = mixed(t) ? 2 : (tasks_[t].has_aic ? 0 : 1);
            groups[{tasks_[t].func_id, tasks_[t].func_id < 0 ? kind : 0}].push_back(t);
        }
        std::vector<std::size_t> run_stamp(graph_.nodes, 0);
        std::size_t stamp = 0;
        for (auto& [key, members] : groups) {
            std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
                return tasks_[a].dispatch < tasks_[b].dispatch;
            });
            std::vector<std::size_t> run;
            // Named copy: clang 14 (the fuzzing build) cannot capture a structured binding.
            auto func_id = key.first;
            auto close = [&]() {
                if (run.size() >= opt_.trail_min_tasks)
                    out_.trails.push_back(make_trail(func_id, run));
                run.clear();
                ++stamp;
            };
            for (std::size_t t : members) {
                bool linked = false;
                for (auto [first, last] : {graph_.preds_of(t), graph_.succs_of(t)}) {
                    linked = linked || std::any_of(first, last, [&](std::size_t u) {
                                 return run_stamp[u] == stamp + 1;
                             });
                }
                if (!run.empty() &&
                    (linked || tasks_[t].dispatch - tasks_[run.back()].dispatch > max_gap))
                    close();
                run.push_back(t);
                run_stamp[t] = stamp + 1;
            }
            close();
        }
        std::sort(out_.trails.begin(), out_.trails.end(),
                  [](const DispatchTrail& a, const DispatchTrail& b) {
                      return a.first_dispatch_us < b.first_dispatch_us;
                  });
    }

    DispatchTrail make_trail(int func_id, const std::vector<std::size_t>& run) const {
        const TaskSummary& first = tasks_[run.front()];
        const TaskSummary& last = tasks_[run.back()];
        DispatchTrail trail;
        trail.func_id = func_id;
        trail.function = func_id >= 0
                             ? function_name(func_id, in_.names)
                             : (mixed(run.front()) ? "MIX" : (first.has_aic ? "AIC" : "AIV"));
        trail.tasks = run.size();
        trail.first_task = first.label;
        trail.last_task = last.label;
        trail.first_dispatch_us = first.dispatch;
        trail.span_us = last.dispatch - first.dispatch;
        trail.slope_us = trail.span_us / static_cast<double>(run.size() - 1);
        std::vector<double> starts;
        double exec = 0;
        for (std::size_t t : run) {
            exec += tasks_[t].end - tasks_[t].start;
            starts.push_back(tasks_[t].start);
        }
        trail.mean_exec_us = exec / static_cast<double>(run.size());
        trail.span_over_exec = trail.mean_exec_us > 0 ? trail.span_us / trail.mean_exec_us : 0.0;
        CoreType kind = first.has_aic ? CoreType::Aic : CoreType::Aiv;
        double capacity = static_cast<double>(cores_of(kind)) * trail.span_us;
        if (capacity > 0) {
            trail.idle_core_fraction =
                1.0 - occupancy_.busy(kind, first.dispatch, last.dispatch) / capacity;
        }
        trail.staircase_r2 = linear_fit_r2(starts);
        return trail;
    }

    // One cycle of deps.json, named by its tasks, so that the report can say which. A node
    // left out of Kahn's order has a predecessor left out too; walking back through those
    // must come round to a node already seen.
    std::vector<std::string> one_cycle(const std::vector<char>& in_dag) const {
        std::size_t start = graph_.nodes;
        for (std::size_t v = 0; v < graph_.nodes && start == graph_.nodes; ++v)
            if (!in_dag[v]) start = v;
        std::unordered_map<std::size_t, std::size_t> seen;  // node -> position in the walk
        std::vector<std::size_t> walk;
        for (std::size_t v = start; v < graph_.nodes && !seen.contains(v);) {
            seen.emplace(v, walk.size());
            walk.push_back(v);
            auto [first, last] = graph_.preds_of(v);
            const std::size_t* next =
                std::find_if(first, last, [&](std::size_t p) { return !in_dag[p]; });
            v = next == last ? graph_.nodes : *next;
            if (v < graph_.nodes && seen.contains(v)) {
                walk.erase(walk.begin(), walk.begin() + static_cast<long>(seen.at(v)));
                std::reverse(walk.begin(), walk.end());  // in dependency order
                std::vector<std::string> names;
                for (std::size_t node : walk) names.push_back(node_label(node));
                return names;
            }
        }
        return {};
    }

    std::string node_label(std::size_t node) const {
        if (node < tasks_.size()) return tasks_[node].label;
        for (const auto& [id, index] : task_index_)
            if (index == node) return task_display(id);
        return fmt::format("node {}", node);
    }

    // Observed critical path: from the task that ends last, step to the predecessor that ended
    // last, until a task without timed predecessors. Tasks only in deps.json (alloc, dummy) are
    // zero-length nodes ending when their last predecessor ended, so the walk passes through them.
    void critical_path() {
        CriticalPath& cp = out_.critical_path;
        std::size_t row_tasks = tasks_.size();
        std::vector<std::size_t> order = topological_order(graph_);
        std::vector<char> in_dag(graph_.nodes, 0);
        for (std::size_t v : order) in_dag[v] = 1;
        for (std::size_t v = 0; v < row_tasks; ++v) cp.cycle_tasks += in_dag[v] ? 0 : 1;
        if (order.size() < graph_.nodes) cp.cycle = one_cycle(in_dag);
        std::vector<double> end(graph_.nodes, kUntimed), gate(graph_.nodes, kUntimed);
        for (std::size_t v : order) {
            auto [first, last] = graph_.preds_of(v);
            for (const std::size_t* p = first; p != last; ++p) gate[v] = std::max(gate[v], end[*p]);
            end[v] = v < row_tasks ? tasks_[v].end : gate[v];
        }
        // Backward pass: the latest end that does not delay any successor beyond its own slack.
        std::vector<double> slack(graph_.nodes, 0.0);
        std::vector<double> slacks;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            std::size_t v = *it;
            if (end[v] == kUntimed) continue;
            double latest_end = out_.window_end_us;
            auto [first, last] = graph_.succs_of(v);
            for (const std::size_t* s = first; s != last; ++s) {
                if (in_dag[*s]) latest_end = std::min(latest_end, gate[*s] + slack[*s]);
            }
            slack[v] = std::max(0.0, latest_end - end[v]);
            if (v < row_tasks) slacks.push_back(slack[v]);
        }
        cp.graph_tasks = slacks.size();
        cp.zero_slack_tasks = static_cast<std::size_t>(std::count_if(
            slacks.begin(), slacks.end(), [](double s) { return s <= kZeroSlackUs; }));
        cp.slack_p50_us = quantile_or_zero(slacks, 0.5);
        cp.slack_max_us = slacks.empty() ? 0.0 : *std::max_element(slacks.begin(), slacks.end());

        std::size_t sink = row_tasks;
        for (std::size_t v = 0; v < row_tasks; ++v) {
            if (!in_dag[v]) continue;
            if (sink == row_tasks || tasks_[v].end > tasks_[sink].end ||
                (tasks_[v].end == tasks_[sink].end && tasks_[v].finish > tasks_[sink].finish)) {
                sink = v;
            }
        }
        if (sink == row_tasks) return;
        std::vector<PathStep> reversed;
        for (std::size_t v = sink;;) {
            std::size_t best = graph_.nodes;
            auto [first, last] = graph_.preds_of(v);
            for (const std::size_t* p = first; p != last; ++p) {
                if (in_dag[*p] && end[*p] != kUntimed &&
                    (best == graph_.nodes || end[*p] > end[best]))
                    best = *p;
            }
            if (v < row_tasks) {
                const TaskSummary& task = tasks_[v];
                PathStep step{task.task_id, task.label, task.start, task.end, 0.0};
                if (best != graph_.nodes)
                    step.wait_us = std::max(0.0, task.start - end[best]);
                else if (in_.has_aicpu_timing)
                    step.wait_us = std::max(0.0, task.start - task.dispatch);
                reversed.push_back(step);
            }
            if (best == graph_.nodes) break;
            v = best;
        }
        cp.tasks.assign(reversed.rbegin(), reversed.rend());
        for (const auto& step : cp.tasks) {
            cp.kernel_us += step.end - step.start;
            cp.overhead_us += step.wait_us;
        }
        const TaskSummary& root = tasks_[task_index_.at(cp.tasks.front().task_id)];
        cp.length_us = tasks_[sink].end - (in_.has_aicpu_timing ? root.dispatch : root.start);
        cp.window_share = share(cp.length_us);
        cp.available = true;
    }

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

}  // namespace

std::string lane_name(int core, CoreType kind) {
    return fmt::format("{}_{}", kind == CoreType::Aic ? "AIC" : "AIV", core);
}

AnalyzeInput make_analyze_input(const Capture& capture, const Deps* deps,
                                const KernelNames* names) {
    AnalyzeInput input;
    input.source = capture.source;
    input.level = capture.level;
    input.core_types = capture.core_types;
    const Clock& clock = capture.clock;
    input.has_aicpu_timing = std::any_of(capture.tasks.begin(), capture.tasks.end(),
                                         [](const TaskRow& row) { return row.has_aicpu(); });
    input.rows.reserve(capture.tasks.size());
    for (const TaskRow& row : capture.tasks) {
        AnalyzeRow r;
        r.task_id = row.task_id;
        r.core = static_cast<int>(row.core_id);
        r.kind = row.core_type;
        r.func_id = row.func_id;
        // Times missing from the capture read as 0.0, as the converter's to_us does.
        r.dispatch = clock.upstream_us(row.dispatch_ns);
        r.receive = clock.upstream_us(row.receive_ns);
        r.start = clock.upstream_us(row.start_ns);
        r.end = clock.upstream_us(row.end_ns);
        r.finish = clock.upstream_us(row.finish_ns);
        input.rows.push_back(r);
    }
    input.labels = capture.labels;
    for (std::size_t t = 0; t < capture.streams.size(); ++t)
        if (capture.streams[t].present && capture.streams[t].aicore())
            input.aicore_workers[static_cast<int>(t)] = capture.streams[t].worker_id;
    for (const SchedulerPhase& phase : capture.scheduler_phases) {
        if (phase.start_ns == kNoTime || phase.end_ns == kNoTime) continue;
        const bool aicore = input.aicore_workers.contains(static_cast<int>(phase.thread));
        input.scheduler_phases.push_back(
            {static_cast<int>(phase.thread), phase.kind, clock.upstream_us(phase.start_ns),
             clock.upstream_us(phase.end_ns),
             static_cast<std::uint64_t>(std::max<std::int64_t>(phase.tasks_processed, 0)), aicore});
    }
    if (deps) {
        input.has_deps = true;
        input.edges = deps->edges;
        for (const auto& [id, task] : deps->tasks)
            input.block_num[id] = static_cast<int>(task.block_num);
    }
    if (names) input.names = *names;
    return input;
}

Analysis analyze_swimlane(const AnalyzeInput& input, const AnalyzeOptions& options) {
    return Analyzer(input, options).run();
}

}  // namespace ptune::swimlane
