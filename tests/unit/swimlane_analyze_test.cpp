// Unit tests of the schedule analysis on small hand-built inputs whose metrics are worked out
// by hand in the comments.

#include <catch2/catch.hpp>

#include "ptune/swimlane/analyze.hpp"

namespace swimlane_analyze_test {

using namespace ptune::swimlane;

namespace {

constexpr std::uint64_t kRing1 = 1ull << 32;

AnalyzeRow row(std::uint64_t local, int core, CoreType kind, int func, double dispatch,
               double start, double end) {
    AnalyzeRow r;
    r.task_id = kRing1 | local;
    r.core = core;
    r.kind = kind;
    r.func_id = func;
    r.dispatch = dispatch;
    r.receive = start - 0.2;
    r.start = start;
    r.end = end;
    r.finish = end + 0.4;
    return r;
}

AnalyzeInput two_core_input() {
    AnalyzeInput in;
    in.level = 3;
    in.core_types = {CoreType::Aic, CoreType::Aiv, CoreType::Aiv, CoreType::Aiv};
    in.names.add(0, {"mm", ""});
    in.names.add(1, {"cast", ""});
    return in;
}

}  // namespace

TEST_CASE("swimlane analyze: gaps are classified into pickup and starved", "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    // Core 1: [0,10), then a task dispatched at 8 (before 10: pickup) starting at 11,
    // then a task dispatched at 25 (after 20: starved 5 µs, pickup 1 µs) starting at 26.
    in.rows = {row(0, 1, CoreType::Aiv, 1, -1.0, 0.0, 10.0),
               row(1, 1, CoreType::Aiv, 1, 8.0, 11.0, 20.0),
               row(2, 1, CoreType::Aiv, 1, 25.0, 26.0, 30.0),
               row(3, 2, CoreType::Aiv, 1, -1.0, 0.0, 40.0)};
    Analysis a = analyze_swimlane(in);
    REQUIRE(a.window_us == 40.0);
    REQUIRE(a.lanes.size() == 2);
    const LaneStats& lane = a.lanes[0];
    CHECK(lane.core == 1);
    CHECK(lane.busy_us == 23.0);
    CHECK(lane.busy_fraction == Approx(23.0 / 40.0));
    // Gaps: 1 (inner), 6 (inner), 10 (trailing).
    CHECK(lane.gaps.count == 3);
    CHECK(lane.gaps.total_us == 17.0);
    CHECK(lane.gaps.max_us == 10.0);
    CHECK(lane.gaps.p50_us == 6.0);
    CHECK(lane.gaps.pickup_count == 1);
    CHECK(lane.gaps.starved_count == 1);
    CHECK(lane.gaps.starved_us == 5.0);
    CHECK(lane.gaps.pickup_us == 2.0);
    // Σ exec 63 (23 on core 1, 40 on core 2) over a 40 µs window.
    CHECK(a.average_parallelism == Approx(63.0 / 40.0));
}

TEST_CASE("swimlane analyze: the tail belongs to the task that runs alone at the end",
          "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    in.rows = {row(0, 1, CoreType::Aiv, 1, 0.0, 1.0, 11.0),
               row(1, 2, CoreType::Aiv, 1, 0.0, 1.0, 12.0),
               row(2, 3, CoreType::Aiv, 0, 0.0, 2.0, 101.0)};
    Analysis a = analyze_swimlane(in);
    // Two cores ran until 12; the window ends at 101.
    CHECK(a.tail.tail_start_us == 12.0);
    CHECK(a.tail.tail_us == 89.0);
    CHECK(a.tail.tail_fraction == Approx(0.89));
    CHECK(a.tail.owner == "mm(r1t2) on AIV_3");
    CHECK(a.tail.owner_cover == 1.0);
    CHECK(a.tail.owner_solo_us == 89.0);
    CHECK(a.tail.longest_task == "mm(r1t2)");
    CHECK(a.tail.longest_task_us == 99.0);
    CHECK(a.tail.single_core_us == 89.0);
}

TEST_CASE("swimlane analyze: idle cores while every scheduler thread is busy",
          "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    // One of four cores runs on [0,10) and [10,20); both scheduler threads are busy on [5,15).
    in.rows = {row(0, 1, CoreType::Aiv, 1, 0.0, 0.0, 10.0),
               row(1, 1, CoreType::Aiv, 1, 9.0, 10.0, 20.0)};
    in.scheduler_phases = {{0, PhaseKind::Dispatch, 5.0, 15.0, 4},
                           {1, PhaseKind::Complete, 0.0, 15.0, 1},
                           {1, PhaseKind::Resolve, 15.0, 20.0, 1}};
    Analysis a = analyze_swimlane(in);
    CHECK(a.idle_while_scheduler_busy == Approx(0.5));
    REQUIRE(a.schedulers.size() == 2);
    CHECK(a.schedulers[0].saturation == Approx(0.5));
    CHECK(a.schedulers[1].saturation == Approx(0.75));  // resolve is an inner phase
    REQUIRE(a.dispatch_cost_us);
    CHECK(*a.dispatch_cost_us == 2.5);
    CHECK(a.kernel_median_us == 10.0);
    CHECK(a.kernel_below_target_share == 1.0);
}

TEST_CASE("swimlane analyze: a dependency edge breaks a dispatch trail", "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    in.core_types.assign(20, CoreType::Aiv);
    // 12 same-function single-block tasks dispatched 0.5 µs apart; task 6 depends on task 5.
    for (int i = 0; i < 12; ++i) {
        double d = 0.5 * i;
        in.rows.push_back(
            row(static_cast<std::uint64_t>(i), i, CoreType::Aiv, 1, d, d + 1, d + 21));
    }
    SECTION("without deps, one trail of 12") {
        Analysis a = analyze_swimlane(in);
        REQUIRE(a.trails.size() == 1);
        const DispatchTrail& t = a.trails[0];
        CHECK(t.function == "cast");
        CHECK(t.tasks == 12);
        CHECK(t.first_task == "cast(r1t0)");
        CHECK(t.last_task == "cast(r1t11)");
        CHECK(t.span_us == 5.5);
        CHECK(t.slope_us == 0.5);
        CHECK(t.mean_exec_us == 20.0);
        CHECK(t.span_over_exec == Approx(0.275));
        CHECK(t.staircase_r2 == Approx(1.0));
    }
    SECTION("with an edge 5→6, two runs of 6: both below the minimum of 8") {
        in.has_deps = true;
        in.edges = {{kRing1 | 5, kRing1 | 6}};
        CHECK(analyze_swimlane(in).trails.empty());
    }
    SECTION("SPMD tasks are not trails") {
        in.block_num[kRing1 | 3] = 4;
        in.has_deps = true;
        Analysis a = analyze_swimlane(in);
        // Task 3 drops out; 0.5 µs → 1.0 µs between tasks 2 and 4 is still within 2 µs.
        REQUIRE(a.trails.size() == 1);
        CHECK(a.trails[0].tasks == 11);
    }
}

TEST_CASE("swimlane analyze: one-to-one cube to vector hand-offs", "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    in.has_deps = true;
    // t0 (cube) → t1 (vector) one to one; t2 (cube) → t3 and t4 (vector): fan-out 2, not counted.
    in.rows = {row(0, 0, CoreType::Aic, 0, 0, 1, 10), row(1, 1, CoreType::Aiv, 1, 11, 12, 15),
               row(2, 0, CoreType::Aic, 0, 10, 11, 20), row(3, 2, CoreType::Aiv, 1, 21, 22, 25),
               row(4, 3, CoreType::Aiv, 1, 21, 22.5, 25)};
    in.edges = {{kRing1 | 0, kRing1 | 1}, {kRing1 | 2, kRing1 | 3}, {kRing1 | 2, kRing1 | 4}};
    Analysis a = analyze_swimlane(in);
    REQUIRE(a.cube_vector.handoffs.size() == 1);
    const HandoffGroup& g = a.cube_vector.handoffs[0];
    CHECK(g.producer == "mm");
    CHECK(g.consumer == "cast");
    CHECK(g.pairs == 1);
    CHECK(g.handoff_sum_us == 2.0);
    CHECK(a.cube_vector.handoff_pairs == 1);
}

TEST_CASE("swimlane analyze: critical path, slack and deps-only tasks", "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    in.has_deps = true;
    // t0 [1,10) → t9 (dummy, no rows) → t2 [12,30); t1 [1,5) → t2. The path is t0, t2.
    in.rows = {row(0, 1, CoreType::Aiv, 1, 0, 1, 10), row(1, 2, CoreType::Aiv, 1, 0, 1, 5),
               row(2, 1, CoreType::Aiv, 1, 11, 12, 30)};
    in.edges = {{kRing1 | 0, kRing1 | 9}, {kRing1 | 9, kRing1 | 2}, {kRing1 | 1, kRing1 | 2}};
    Analysis a = analyze_swimlane(in);
    const CriticalPath& cp = a.critical_path;
    REQUIRE(cp.available);
    REQUIRE(cp.tasks.size() == 2);
    CHECK(cp.tasks[0].label == "cast(r1t0)");
    CHECK(cp.tasks[1].label == "cast(r1t2)");
    CHECK(cp.tasks[0].wait_us == 1.0);  // root: start − dispatch
    CHECK(cp.tasks[1].wait_us == 2.0);  // 12 − 10
    CHECK(cp.length_us == 30.0);
    CHECK(cp.kernel_us == 27.0);
    CHECK(cp.overhead_us == 3.0);
    // t1 could end 5 µs later (at 10) without delaying t2.
    CHECK(cp.graph_tasks == 3);
    CHECK(cp.zero_slack_tasks == 2);
    CHECK(cp.slack_max_us == 5.0);

    SECTION("a cycle leaves its tasks out instead of looping") {
        in.edges.push_back({kRing1 | 2, kRing1 | 0});
        Analysis cyclic = analyze_swimlane(in);
        CHECK(cyclic.critical_path.cycle_tasks == 2);
        REQUIRE(cyclic.critical_path.available);
        CHECK(cyclic.critical_path.tasks.size() == 1);
    }
}

TEST_CASE("swimlane analyze: metrics for the rules engine", "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    in.rows = {row(0, 1, CoreType::Aiv, 1, 0.0, 1.0, 11.0)};
    Analysis a = analyze_swimlane(in);
    ptune::rules::MetricStore store;
    publish_metrics(a, in, store);
    const auto& run = store.run();
    CHECK(run.metric("L2.cores") == 4.0);
    CHECK(run.metric("L2.window_us") == 10.0);
    CHECK(run.metric("L2.tail.pct") == 100.0);
    CHECK_FALSE(run.metric("L2.cp.length_us"));  // no deps, no critical path
    CHECK(store.subject("core", "AIV_1").metric("L2.lane.busy_pct") == 100.0);
    CHECK(store.subject("kernel", "cast").metric("L2.func.count") == 1.0);
}

TEST_CASE("swimlane analyze: an empty capture yields no metrics and no crash",
          "[swimlane-analyze]") {
    AnalyzeInput in = two_core_input();
    Analysis a = analyze_swimlane(in);
    CHECK(a.rows == 0);
    CHECK(a.cores_aic == 1);
    ptune::rules::MetricStore store;
    publish_metrics(a, in, store);
    CHECK_FALSE(store.run().metric("L2.window_us"));
}

}  // namespace swimlane_analyze_test
