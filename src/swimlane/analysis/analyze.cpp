// Schedule analysis of one swimlane capture (swimlane.md §10). One time sweep over the row and
// scheduler intervals gives every "measure of a set of instants" metric; the graph analyses
// (hand-offs, trails, critical path) are linear passes over the deduplicated edges.

#include "analyzer.hpp"

namespace ptune::swimlane::analysis {

Analysis Analyzer::run() {
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

std::size_t Analyzer::cores_of(CoreType kind) const {
    return kind == CoreType::Aic ? out_.cores_aic : out_.cores_aiv;
}

void Analyzer::count_cores() {
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

void Analyzer::build_tasks() {
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
        add_row(tasks_[it->second], row);
    }
    for (auto& task : tasks_)
        task.label = task_label(task.task_id, task.func_id, is_spmd(task), in_.names, in_.labels);
}

void Analyzer::window() {
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

void Analyzer::scheduler() {
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

void Analyzer::aicore_schedulers() {
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

void Analyzer::sweep() {
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

void Analyzer::lanes() {
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

GapStats Analyzer::gaps(const std::vector<std::size_t>& rows) const {
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

void Analyzer::functions() {
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

double Analyzer::below_target(const std::vector<double>& values) const {
    if (values.empty()) return 0.0;
    auto below = std::count_if(values.begin(), values.end(),
                               [&](double v) { return v < opt_.target_kernel_us; });
    return static_cast<double>(below) / static_cast<double>(values.size());
}

void Analyzer::longest_task() {
    const TaskSummary* longest = nullptr;
    for (const auto& task : tasks_) {
        if (!longest || task.end - task.start > longest->end - longest->start) longest = &task;
    }
    out_.tail.longest_task_us = longest->end - longest->start;
    out_.tail.longest_task_share = share(out_.tail.longest_task_us);
    out_.tail.longest_task = longest->label;
}

}  // namespace ptune::swimlane::analysis

namespace ptune::swimlane {

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
    return analysis::Analyzer(input, options).run();
}

}  // namespace ptune::swimlane
