// The IDE's schedule analyses (schedule_graph.hpp) on upstream-2026-12.md §8.7's composed
// example, whose expected numbers the spec states.

#include <algorithm>

#include <catch2/catch.hpp>

#include "ptune/swimlane/schedule_graph.hpp"

namespace swimlane_schedule_graph_test {

using namespace ptune::swimlane;

namespace {

// §8.7 at 50 MHz (0.02 µs per cycle): rows given as [start, end, receive_to_start] cycles.
AnalyzeRow cycles_row(std::uint64_t task, int core, int func, double start, double end,
                      double r2s) {
    constexpr double us = 0.02;
    AnalyzeRow r;
    r.task_id = task;
    r.core = core;
    r.func_id = func;
    r.start = start * us;
    r.end = end * us;
    r.receive = r.start - r2s * us;
    r.dispatch = r.receive;
    r.finish = r.end;
    return r;
}

AnalyzeRow timed_row(std::uint64_t task, int core, double dispatch, double start, double end,
                     double finish) {
    AnalyzeRow r;
    r.task_id = task;
    r.core = core;
    r.func_id = 1;
    r.dispatch = dispatch;
    r.receive = start;
    r.start = start;
    r.end = end;
    r.finish = finish;
    return r;
}

bool ends_with(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

constexpr std::uint64_t A = 1, B = 2, C = 3, D = 4, E = 5, X = 100;

GraphInput composed_graph() {
    GraphInput graph;
    graph.tasks = {A, B, C, D, E};
    graph.edges = {{X, A}, {X, C}, {A, B}, {B, C}, {A, C}, {C, D}, {D, E}};
    graph.early_dispatch = {D};
    return graph;
}

AnalyzeInput composed_rows() {
    AnalyzeInput in;
    in.rows = {timed_row(A, 0, 0.0, 1.0, 10.0, 11.0), timed_row(B, 1, 11.0, 12.0, 30.0, 31.0),
               timed_row(C, 0, 31.0, 32.0, 60.0, 61.0), timed_row(D, 1, 61.0, 62.0, 104.0, 104.5),
               timed_row(E, 0, 100.0, 105.0, 120.0, 121.0)};
    return in;
}

}  // namespace

TEST_CASE("§8.1/§8.2: per-function statistics without setup and the setup ranking") {
    AnalyzeInput in;
    in.rows = {cycles_row(11, 0, 7, 1000, 1500, 50), cycles_row(12, 1, 7, 3000, 3400, 100),
               cycles_row(13, 2, 7, 6000, 6750, 25)};
    ScheduleGraph g = analyze_schedule_graph(in, {}, Analysis{});
    REQUIRE(g.functions.size() == 1);
    const FunctionTiming& f = g.functions.front();
    CHECK(f.count == 3);
    CHECK(f.min_us == Approx(8.0));
    CHECK(f.max_us == Approx(15.0));
    CHECK(f.avg_us == Approx(11.0));
    CHECK(f.setup_sum_us == Approx(3.5));
    REQUIRE(g.longest_setup.size() == 3);
    CHECK(g.longest_setup.front().setup_us == Approx(2.0));
    CHECK(ends_with(g.longest_setup.front().task, "(t12)"));
    CHECK(ends_with(g.largest_setup_share.front().task, "(t12)"));
    CHECK(g.largest_setup_share.front().ratio == Approx(0.2));
    CHECK_FALSE(g.has_graph);
}

TEST_CASE("§8.3: the reduced graph hides A→C; the data-flow proposal also X→C") {
    ScheduleGraph g = analyze_schedule_graph(composed_rows(), composed_graph(), Analysis{});
    REQUIRE(g.has_graph);
    CHECK(g.edges == 7);
    CHECK(g.alloc_nodes == 1);
    REQUIRE(g.redundant.size() == 2);
    CHECK(ends_with(g.redundant[0].pred, "(t1)"));
    CHECK(ends_with(g.redundant[0].succ, "(t3)"));
    CHECK_FALSE(g.redundant[0].data_flow_only);
    CHECK(g.redundant[1].pred == "alloc(t100)");
    CHECK(ends_with(g.redundant[1].succ, "(t3)"));
    CHECK(g.redundant[1].data_flow_only);
    CHECK(g.redundant_df == 1);
}

TEST_CASE("§8.3: a redundant edge's cost is its successor's excess dispatch delay") {
    // C waits 0 beyond B (its required predecessor): C dispatched at 31.0, B finished at 31.0;
    // the tasks without redundant inputs (B, D, E) wait 0.0, 0.0 and −4.5 µs: median 0.
    ScheduleGraph g = analyze_schedule_graph(composed_rows(), composed_graph(), Analysis{});
    REQUIRE(g.redundant.front().excess_delay_us);
    CHECK(*g.redundant.front().excess_delay_us == Approx(0.0));
    AnalyzeInput late = composed_rows();
    late.rows[2].dispatch = 33.5;  // C now waits 2.5 µs after B finished
    g = analyze_schedule_graph(late, composed_graph(), Analysis{});
    CHECK(*g.redundant.front().excess_delay_us == Approx(2.5));
}

TEST_CASE("§8.4: markers and the early-dispatch lead") {
    ScheduleGraph g = analyze_schedule_graph(composed_rows(), composed_graph(), Analysis{});
    REQUIRE(g.fire.size() == 2);
    CHECK(std::count(g.fire.begin(), g.fire.end(), "alloc(t100)") == 1);
    CHECK(std::count_if(g.fire.begin(), g.fire.end(),
                        [](const std::string& l) { return ends_with(l, "(t4)"); }) == 1);
    REQUIRE(g.star.size() == 1);
    CHECK(ends_with(g.star.front(), "(t5)"));
    // D (marked) and E (⭐): E dispatched at 100.0, D finished at 104.5 → lead 4.5 µs.
    REQUIRE(g.early.size() == 2);
    auto e = std::find_if(g.early.begin(), g.early.end(),
                          [](const EarlyDispatchTask& t) { return ends_with(t.task, "(t5)"); });
    REQUIRE(e != g.early.end());
    REQUIRE(e->lead_us);
    CHECK(*e->lead_us == Approx(4.5));
    CHECK(e->led());
    auto d = std::find_if(g.early.begin(), g.early.end(),
                          [](const EarlyDispatchTask& t) { return ends_with(t.task, "(t4)"); });
    REQUIRE(d != g.early.end());
    CHECK_FALSE(d->led());  // dispatched at 61.0, after C finished at 61.0
}

TEST_CASE("§8.5: the single-dependency chain C→D→E with the scheduling between its links") {
    ScheduleGraph g = analyze_schedule_graph(composed_rows(), composed_graph(), Analysis{});
    REQUIRE(g.chains.size() == 1);
    const SingleChain& chain = g.chains.front();
    REQUIRE(chain.tasks.size() == 3);
    CHECK(ends_with(chain.tasks[0], "(t3)"));
    CHECK(ends_with(chain.tasks[2], "(t5)"));
    CHECK(chain.overhead_us == Approx(2.0 + 1.0));  // D starts 2.0 after C, E 1.0 after D
}

TEST_CASE("§8.3: a deep graph keeps one mark per node and finds a far redundant edge") {
    // A chain 0→1→…→n plus the shortcut 0→n: only the shortcut is redundant.
    constexpr std::uint64_t n = 20000;
    GraphInput graph;
    for (std::uint64_t i = 0; i <= n; ++i) graph.tasks.push_back(i);
    for (std::uint64_t i = 0; i < n; ++i) graph.edges.emplace_back(i, i + 1);
    graph.edges.emplace_back(0, n);
    ScheduleGraph g = analyze_schedule_graph(AnalyzeInput{}, graph, Analysis{});
    REQUIRE(g.redundant.size() == 1);
    CHECK(ends_with(g.redundant.front().succ, "(t20000)"));
    REQUIRE(g.chains.size() == 1);  // 1→…→n−1: 0 has two successors, n two predecessors
    CHECK(g.chains.front().tasks.size() == n - 1);
}

TEST_CASE("§8.6: gap classes on the observed critical path") {
    AnalyzeInput in;
    // t1 on core 0 [0,10); t2 on core 0 [10,20) blocks t3 (core 0) ready at 10, starting at 20;
    // t4 on core 1 waits for t3's data: ready at 30, starts at 31.
    in.rows = {timed_row(1, 0, 0, 0, 10, 10), timed_row(2, 0, 0, 10, 20, 20),
               timed_row(3, 0, 10, 20, 30, 30), timed_row(4, 1, 30, 31, 40, 40)};
    Analysis analysis;
    analysis.critical_path.available = true;
    analysis.critical_path.tasks = {
        {1, "a", 0, 10, 0.5}, {3, "c", 20, 30, 10.0}, {4, "d", 31, 40, 1.0}};
    ScheduleGraph g = analyze_schedule_graph(in, {}, analysis);
    REQUIRE(g.gaps);
    CHECK(g.gaps->front_gap_us == Approx(0.5));
    CHECK(g.gaps->core_wait_us == Approx(10.0));
    CHECK(g.gaps->data_wait_us == Approx(1.0));
}

TEST_CASE("§8.2: the five longest setups of many rows, ties at the fifth in label order") {
    // Setups (r2s cycles) 500, 400, then four of 300 and smaller ones: the top five are 500,
    // 400 and the three 300s whose labels sort first (t3, t5, t7 before t9).
    AnalyzeInput in;
    const std::pair<std::uint64_t, double> setups[] = {
        {9, 300}, {1, 100}, {7, 300}, {2, 500}, {5, 300}, {8, 50}, {3, 300}, {4, 400}, {6, 200}};
    for (const auto& [task, r2s] : setups)
        in.rows.push_back(cycles_row(task, 0, 7, 1000, 1100, r2s));
    ScheduleGraph g = analyze_schedule_graph(in, {}, Analysis{});
    REQUIRE(g.longest_setup.size() == 5);
    const char* expected[] = {"(t2)", "(t4)", "(t3)", "(t5)", "(t7)"};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("rank " << i << ": " << g.longest_setup[i].task);
        CHECK(ends_with(g.longest_setup[i].task, expected[i]));
    }
    CHECK(g.longest_setup[2].setup_us == Approx(6.0));
    // The shares rank the same rows (every row runs 100 cycles).
    REQUIRE(g.largest_setup_share.size() == 5);
    CHECK(ends_with(g.largest_setup_share[4].task, "(t7)"));
}

TEST_CASE("§8.6: a long task that began before the short ones still makes a core wait") {
    // Core 0: t10 [0, 50) long, then t11 [5, 6) and t12 [7, 8) (overlapping rows, as with
    // several AIV lanes of one core id). t13 starts at 60 after waiting 15 (ready at 45): t10
    // was still running then, though the last task to start before t13 had long ended. t14
    // starts at 70 after waiting 5 (ready at 65): nothing on core 0 ran across 65.
    AnalyzeInput in;
    in.rows = {timed_row(10, 0, 0, 0, 50, 50), timed_row(11, 0, 5, 5, 6, 6),
               timed_row(12, 0, 7, 7, 8, 8), timed_row(13, 0, 45, 60, 62, 62),
               timed_row(14, 0, 65, 70, 80, 80)};
    Analysis analysis;
    analysis.critical_path.available = true;
    analysis.critical_path.tasks = {
        {12, "c", 7, 8, 0.0}, {13, "d", 60, 62, 15.0}, {14, "e", 70, 80, 5.0}};
    ScheduleGraph g = analyze_schedule_graph(in, {}, analysis);
    REQUIRE(g.gaps);
    CHECK(g.gaps->core_wait_us == Approx(15.0));
    CHECK(g.gaps->core_wait_count == 1);
    CHECK(g.gaps->data_wait_us == Approx(5.0));
    CHECK(g.gaps->data_wait_count == 1);
}

TEST_CASE("§8.2: rows alike in setup and label (one task's blocks) keep the capture's order") {
    // Task 3's blocks on cores 6, 3, 4 and 5 with the same setup, below two longer ones: the
    // last three places go to cores 6, 3 and 4, in that order, whatever the sort's internals.
    AnalyzeInput in;
    in.rows = {cycles_row(3, 6, 7, 1000, 1100, 20), cycles_row(1, 0, 7, 1000, 1100, 90),
               cycles_row(3, 3, 7, 1000, 1100, 20), cycles_row(3, 4, 7, 1000, 1100, 20),
               cycles_row(2, 1, 7, 1000, 1100, 80), cycles_row(3, 5, 7, 1000, 1100, 20)};
    ScheduleGraph g = analyze_schedule_graph(in, {}, Analysis{});
    REQUIRE(g.longest_setup.size() == 5);
    std::vector<int> cores;
    for (const SetupRow& row : g.longest_setup) cores.push_back(row.core);
    CHECK(cores == std::vector<int>{0, 1, 6, 3, 4});
}

}  // namespace swimlane_schedule_graph_test
