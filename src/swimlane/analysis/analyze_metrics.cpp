// Publishes the schedule metrics for the rules engine (rules/L2.json reads them). Shares are
// published in percent (`*_pct`) because the rules' messages quote them.

#include <fmt/format.h>

#include "ptune/swimlane/analyze.hpp"

namespace ptune::swimlane {

namespace {

double pct(double fraction) {
    return fraction * 100.0;
}

void set_metric(rules::Subject& subject, const std::string& name, double value) {
    subject.metrics[name] = value;
}

/// The run's own metrics.
void publish_run(const Analysis& a, const AnalyzeInput& input, rules::Subject& run) {
    set_metric(run, "L2.window_us", a.window_us);
    set_metric(run, "L2.total_test_time_us", a.total_test_time_us);
    set_metric(run, "L2.parallelism", a.average_parallelism);

    const CubeVectorStats& cv = a.cube_vector;
    set_metric(run, "L2.util.aic_pct", pct(cv.util_aic));
    set_metric(run, "L2.util.aiv_pct", pct(cv.util_aiv));
    set_metric(run, "L2.cv.imbalance_pct", pct(cv.imbalance));
    set_metric(run, "L2.cv.cube_only_pct", pct(cv.cube_only));
    set_metric(run, "L2.cv.vector_only_pct", pct(cv.vector_only));

    if (!a.schedulers.empty()) {
        double max_saturation = 0;
        for (const auto& s : a.schedulers) max_saturation = std::max(max_saturation, s.saturation);
        set_metric(run, "L2.sched.threads", static_cast<double>(a.schedulers.size()));
        set_metric(run, "L2.sched.saturation_pct", pct(a.scheduler_saturation_mean));
        set_metric(run, "L2.sched.saturation_max_pct", pct(max_saturation));
        set_metric(run, "L2.sched.idle_while_busy_pct", pct(a.idle_while_scheduler_busy));
    }
    if (!a.aicore_schedulers.empty()) {
        // Measured idle of the a5 AICore scheduler (upstream-2026-09.md §1.17).
        double idle_max = 0, idle_sum = 0;
        for (const auto& s : a.aicore_schedulers) {
            idle_max = std::max(idle_max, s.idle_share);
            idle_sum += s.idle_share;
        }
        set_metric(run, "L2.sched.aicore.idle_pct",
                   pct(idle_sum / static_cast<double>(a.aicore_schedulers.size())));
        set_metric(run, "L2.sched.aicore.idle_max_pct", pct(idle_max));
    }
    if (a.dispatch_cost_us) {
        set_metric(run, "L2.dispatch_cost_us", *a.dispatch_cost_us);
        if (*a.dispatch_cost_us > 0)
            set_metric(run, "L2.kernel.median_over_dispatch",
                       a.kernel_median_us / *a.dispatch_cost_us);
    }
    set_metric(run, "L2.kernel.median_us", a.kernel_median_us);
    set_metric(run, "L2.kernel.p10_us", a.kernel_p10_us);
    set_metric(run, "L2.kernel.p90_us", a.kernel_p90_us);
    set_metric(run, "L2.kernel.below_target_pct", pct(a.kernel_below_target_share));
    set_metric(run, "L2.kernel.target_us", a.target_kernel_us);

    const TailStats& tail = a.tail;
    set_metric(run, "L2.tail.longest_task_us", tail.longest_task_us);
    set_metric(run, "L2.tail.longest_pct", pct(tail.longest_task_share));
    set_metric(run, "L2.tail.us", tail.tail_us);
    set_metric(run, "L2.tail.pct", pct(tail.tail_fraction));
    set_metric(run, "L2.tail.owner_cover_pct", pct(tail.owner_cover));
    set_metric(run, "L2.tail.owner_solo_us", tail.owner_solo_us);
    set_metric(run, "L2.tail.single_core_pct",
               pct(a.window_us > 0 ? tail.single_core_us / a.window_us : 0.0));
    run.labels["L2.tail.owner"] = tail.owner;
    run.labels["L2.tail.longest_task"] = tail.longest_task;

    set_metric(run, "L2.trail.count", static_cast<double>(a.trails.size()));
    if (input.has_deps) {
        set_metric(run, "L2.cv.handoff_pairs", static_cast<double>(cv.handoff_pairs));
        set_metric(run, "L2.cv.handoff_us", cv.handoff_sum_us);
    }
    const CriticalPath& cp = a.critical_path;
    if (cp.available) {
        set_metric(run, "L2.cp.tasks", static_cast<double>(cp.tasks.size()));
        set_metric(run, "L2.cp.length_us", cp.length_us);
        set_metric(run, "L2.cp.kernel_us", cp.kernel_us);
        set_metric(run, "L2.cp.overhead_us", cp.overhead_us);
        set_metric(run, "L2.cp.kernel_pct",
                   pct(cp.length_us > 0 ? cp.kernel_us / cp.length_us : 0.0));
        set_metric(run, "L2.cp.window_pct", pct(cp.window_share));
        set_metric(run, "L2.cp.zero_slack_tasks", static_cast<double>(cp.zero_slack_tasks));
        set_metric(run, "L2.cp.slack_p50_us", cp.slack_p50_us);
        set_metric(run, "L2.cp.slack_max_us", cp.slack_max_us);
    }
}

/// Per core lane: rows, busy share, gaps.
void publish_lanes(const Analysis& a, const AnalyzeInput& input, rules::MetricStore& store) {
    for (const auto& lane : a.lanes) {
        rules::Subject& core = store.subject("core", lane_name(lane.core, lane.kind));
        set_metric(core, "L2.lane.rows", static_cast<double>(lane.rows));
        set_metric(core, "L2.lane.busy_pct", pct(lane.busy_fraction));
        set_metric(core, "L2.lane.gaps", static_cast<double>(lane.gaps.count));
        set_metric(core, "L2.lane.gap_total_us", lane.gaps.total_us);
        set_metric(core, "L2.lane.gap_p50_us", lane.gaps.p50_us);
        set_metric(core, "L2.lane.gap_p95_us", lane.gaps.p95_us);
        set_metric(core, "L2.lane.gap_max_us", lane.gaps.max_us);
        if (input.has_aicpu_timing) {
            set_metric(core, "L2.lane.pickup_gaps", static_cast<double>(lane.gaps.pickup_count));
            set_metric(core, "L2.lane.pickup_us", lane.gaps.pickup_us);
            set_metric(core, "L2.lane.starved_gaps", static_cast<double>(lane.gaps.starved_count));
            set_metric(core, "L2.lane.starved_us", lane.gaps.starved_us);
        }
    }
}

/// Per function (subject `kernel`): execution times and shares.
void publish_functions(const Analysis& a, const AnalyzeInput& input, rules::MetricStore& store) {
    for (const auto& f : a.functions) {
        rules::Subject& kernel = store.subject("kernel", f.name);
        double count = static_cast<double>(f.count);
        set_metric(kernel, "L2.func.count", count);
        set_metric(kernel, "L2.func.exec_avg_us", f.exec_sum_us / count);
        set_metric(kernel, "L2.func.exec_median_us", f.exec_median_us);
        set_metric(kernel, "L2.func.exec_p10_us", f.exec_p10_us);
        set_metric(kernel, "L2.func.exec_p90_us", f.exec_p90_us);
        set_metric(kernel, "L2.func.below_target_pct", pct(f.below_target_share));
        set_metric(kernel, "L2.func.exec_share_pct",
                   pct(a.exec_sum_us > 0 ? f.exec_sum_us / a.exec_sum_us : 0.0));
        if (input.has_aicpu_timing) {
            set_metric(kernel, "L2.func.latency_avg_us", f.latency_sum_us / count);
            set_metric(kernel, "L2.func.head_avg_us", f.head_sum_us / count);
            set_metric(kernel, "L2.func.tail_avg_us", f.tail_sum_us / count);
            if (f.latency_sum_us > 0)
                set_metric(kernel, "L2.func.exec_pct", pct(f.exec_sum_us / f.latency_sum_us));
        }
    }
}

/// Per function: how many trails and the longest one (the one a finding quotes).
void publish_trails(const Analysis& a, rules::MetricStore& store) {
    std::map<std::string, const DispatchTrail*> longest;
    std::map<std::string, std::size_t> trail_count;
    for (const auto& trail : a.trails) {
        ++trail_count[trail.function];
        const DispatchTrail*& best = longest[trail.function];
        if (!best || trail.tasks > best->tasks) best = &trail;
    }
    for (const auto& [function, trail] : longest) {
        rules::Subject& kernel = store.subject("kernel", function);
        set_metric(kernel, "L2.trail.count", static_cast<double>(trail_count[function]));
        set_metric(kernel, "L2.trail.tasks", static_cast<double>(trail->tasks));
        set_metric(kernel, "L2.trail.span_us", trail->span_us);
        set_metric(kernel, "L2.trail.slope_us", trail->slope_us);
        set_metric(kernel, "L2.trail.mean_exec_us", trail->mean_exec_us);
        set_metric(kernel, "L2.trail.span_over_exec", trail->span_over_exec);
        set_metric(kernel, "L2.trail.idle_core_pct", pct(trail->idle_core_fraction));
        set_metric(kernel, "L2.trail.r2", trail->staircase_r2);
        kernel.labels["L2.trail.first"] = trail->first_task;
        kernel.labels["L2.trail.last"] = trail->last_task;
    }
}

/// Per producer→consumer pair of core types: the hand-offs.
void publish_handoffs(const Analysis& a, rules::MetricStore& store) {
    const CubeVectorStats& cv = a.cube_vector;
    for (const auto& g : cv.handoffs) {
        rules::Subject& pair =
            store.subject("handoff", fmt::format("{}→{}", g.producer, g.consumer));
        double pairs = static_cast<double>(g.pairs);
        set_metric(pair, "L2.handoff.pairs", pairs);
        set_metric(pair, "L2.handoff.sum_us", g.handoff_sum_us);
        set_metric(pair, "L2.handoff.mean_us", g.handoff_sum_us / pairs);
        set_metric(pair, "L2.handoff.max_us", g.handoff_max_us);
        set_metric(pair, "L2.handoff.task_pct",
                   pct(a.tasks > 0 ? 2 * pairs / static_cast<double>(a.tasks) : 0.0));
        set_metric(pair, "L2.handoff.window_pct",
                   pct(a.window_us > 0 ? g.handoff_sum_us / a.window_us : 0.0));
        set_metric(pair, "L2.util.aic_pct", pct(cv.util_aic));
        set_metric(pair, "L2.util.aiv_pct", pct(cv.util_aiv));
    }
}

}  // namespace

void publish_metrics(const Analysis& a, const AnalyzeInput& input, rules::MetricStore& store) {
    rules::Subject& run = store.run();
    set_metric(run, "L2.level", input.level);
    set_metric(run, "L2.rows", static_cast<double>(a.rows));
    set_metric(run, "L2.tasks", static_cast<double>(a.tasks));
    set_metric(run, "L2.cores", static_cast<double>(a.cores_aic + a.cores_aiv));
    set_metric(run, "L2.cores.aic", static_cast<double>(a.cores_aic));
    set_metric(run, "L2.cores.aiv", static_cast<double>(a.cores_aiv));
    if (a.rows == 0) return;
    publish_run(a, input, run);
    publish_lanes(a, input, store);
    publish_functions(a, input, store);
    publish_trails(a, store);
    publish_handoffs(a, store);
}

}  // namespace ptune::swimlane
