// The acceptance scenarios: synthetic captures built to show one Part 1 symptom each
// (fixed seeds), written in the current records format, read back through the swimlane reader
// and judged by the built-in L2 rules. The composed fixture checks the numbers of swimlane.md
// §10.7 and the converter's statistics.

#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "analyze_synth.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_analyze_scenarios_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

const std::set<std::string> kFiveRules = {"L2.kernels-too-small", "L2.kernel-too-big",
                                          "L2.cube-vector-split", "L2.dispatch-trail",
                                          "L2.serial-chain"};

struct Outcome {
    AnalyzeInput input;
    Analysis analysis;
    std::set<std::string> fired;
    std::vector<rules::Finding> findings;
};

Outcome analyze_texts(const std::string& records, const std::string& deps_text,
                      const std::string& names_text) {
    Diagnostics diagnostics;
    ReadOptions options;
    options.source_name = "chip_swimlane_records.json";
    auto capture = read_capture(records, options, diagnostics);
    REQUIRE(capture);
    auto deps = read_deps(deps_text, "deps.json", diagnostics);
    REQUIRE(deps);
    auto names = parse_name_map(names_text, "name_map.json", diagnostics);
    REQUIRE(names);
    CHECK(diagnostics.count(Severity::Warning) == 0);
    apply_deps(*capture, *deps);
    Outcome out;
    out.input = make_analyze_input(*capture, &*deps, &*names);
    out.analysis = analyze_swimlane(out.input);
    rules::MetricStore store;
    publish_metrics(out.analysis, out.input, store);
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    out.findings = rules::evaluate(*catalogue, store, {"L2."});
    for (const auto& finding : out.findings) out.fired.insert(finding.rule);
    return out;
}

Outcome analyze_scenario(synth::Scenario scenario) {
    std::ostringstream records, deps, names;
    synth::Options options;
    options.scenario = scenario;
    options.seed = 7;
    synth::write_capture(options, records, deps, names);
    return analyze_texts(records.str(), deps.str(), names.str());
}

std::string read_data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane-analyze/" + name);
    REQUIRE(text);
    return *text;
}

const rules::Finding& finding(const Outcome& out, const std::string& rule) {
    for (const auto& f : out.findings) {
        if (f.rule == rule) return f;
    }
    FAIL("no finding " << rule);
    return out.findings.front();
}

}  // namespace

TEST_CASE("swimlane analyze scenarios: thousands of ~2 us kernels under a saturated AICPU",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::SmallKernels);
    CHECK(out.analysis.tasks >= 2000);
    CHECK(out.analysis.kernel_median_us == Approx(2.0).epsilon(0.06));
    CHECK(out.analysis.scheduler_saturation_mean > 0.7);
    CHECK(out.analysis.idle_while_scheduler_busy > 0.5);
    REQUIRE(out.fired.count("L2.kernels-too-small"));
    const auto& f = finding(out, "L2.kernels-too-small");
    CHECK(f.guide == "Part 1 item 2");
    CHECK_THAT(f.message,
               Catch::StartsWith("Part 1 item 2: make kernels larger. Median kernel 2.0"));
    CHECK_FALSE(out.fired.count("L2.kernel-too-big"));
    CHECK_FALSE(out.fired.count("L2.serial-chain"));
    CHECK_FALSE(out.fired.count("L2.cube-vector-split"));
}

TEST_CASE("swimlane analyze scenarios: one 5000 us kernel at the end",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::LongTail);
    CHECK(out.analysis.tail.longest_task_us == Approx(5000).epsilon(0.06));
    CHECK(out.analysis.tail.owner_cover > 0.99);
    CHECK_THAT(out.analysis.tail.owner, Catch::StartsWith("lm_head_reduce(r1t16) on AIV_"));
    CHECK(out.analysis.tail.tail_fraction > 0.8);
    CHECK(out.fired == std::set<std::string>{"L2.kernel-too-big"});
    CHECK_THAT(finding(out, "L2.kernel-too-big").message,
               Catch::StartsWith("Part 1 item 3: split it. lm_head_reduce(r1t16) on AIV_"));
}

TEST_CASE("swimlane analyze scenarios: a 400-task dependency chain",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::SerialChain);
    const CriticalPath& cp = out.analysis.critical_path;
    REQUIRE(cp.available);
    REQUIRE(cp.tasks.size() == 400);
    for (std::size_t i = 0; i < cp.tasks.size(); ++i)
        CHECK(cp.tasks[i].task_id == ((1ull << 32) | i));
    CHECK(cp.tasks.front().label == "decode_step(r1t0)");
    CHECK(cp.kernel_us + cp.overhead_us == Approx(cp.length_us));
    CHECK(cp.zero_slack_tasks == 400);
    CHECK(out.analysis.average_parallelism < 1.0);
    CHECK(out.fired == std::set<std::string>{"L2.serial-chain"});
    CHECK_THAT(finding(out, "L2.serial-chain").message,
               Catch::StartsWith(
                   "Part 1 item 1: use pl.parallel for independent iterations. The critical path "
                   "through deps.json holds 400 tasks"));
}

TEST_CASE("swimlane analyze scenarios: 48 same-function tasks dispatched in a staircase",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::DispatchTrail);
    REQUIRE(out.analysis.trails.size() == 1);
    const DispatchTrail& trail = out.analysis.trails[0];
    CHECK(trail.tasks == 48);
    CHECK(trail.function == "q_proj_chunk");
    CHECK(trail.first_task == "q_proj_chunk(r1t0)");
    CHECK(trail.last_task == "q_proj_chunk(r1t47)");
    CHECK(trail.staircase_r2 > 0.95);
    CHECK(out.fired == std::set<std::string>{"L2.dispatch-trail"});
    const auto& f = finding(out, "L2.dispatch-trail");
    CHECK(f.subject.name == "q_proj_chunk");
    CHECK_THAT(
        f.message,
        Catch::StartsWith("Part 1 item 5: use pl.spmd. q_proj_chunk: 48 independent single-block"));
}

TEST_CASE("swimlane analyze scenarios: 120 cube kernels each followed by a vector epilogue",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::CubeVectorSplit);
    REQUIRE(out.analysis.cube_vector.handoffs.size() == 1);
    const HandoffGroup& g = out.analysis.cube_vector.handoffs[0];
    CHECK(g.producer == "q_proj_matmul");
    CHECK(g.consumer == "q_proj_cast");
    CHECK(g.pairs == 120);
    REQUIRE(out.fired.count("L2.cube-vector-split"));
    const auto& f = finding(out, "L2.cube-vector-split");
    CHECK(f.subject.name == "q_proj_matmul→q_proj_cast");
    CHECK_THAT(
        f.message,
        Catch::StartsWith("Part 1 item 2c: merge into a mixed kernel. q_proj_matmul→q_proj_cast: "
                          "120 one-to-one cube/vector hand-offs"));
    CHECK_FALSE(out.fired.count("L2.kernels-too-small"));
    CHECK_FALSE(out.fired.count("L2.kernel-too-big"));
    CHECK_FALSE(out.fired.count("L2.serial-chain"));
}

TEST_CASE("swimlane analyze scenarios: a healthy capture fires none of the five rules",
          "[swimlane-analyze][scenario]") {
    Outcome out = analyze_scenario(synth::Scenario::Healthy);
    CHECK(out.analysis.kernel_median_us == Approx(80).epsilon(0.06));
    CHECK(out.analysis.average_parallelism > 40);
    CHECK(out.analysis.trails.empty());
    for (const auto& rule : kFiveRules) CHECK_FALSE(out.fired.count(rule));
}

TEST_CASE("swimlane analyze scenarios: the generator is deterministic per seed",
          "[swimlane-analyze][scenario]") {
    auto render = [](std::uint64_t seed) {
        std::ostringstream records, deps, names;
        synth::Options options;
        options.scenario = synth::Scenario::DispatchTrail;
        options.seed = seed;
        synth::write_capture(options, records, deps, names);
        return records.str();
    };
    CHECK(render(3) == render(3));
    CHECK(render(3) != render(4));
}

TEST_CASE(
    "swimlane analyze: composed fixture reproduces swimlane.md §10.7 and the converter statistics",
    "[swimlane-analyze]") {
    Outcome out = analyze_texts(read_data("composed/chip_swimlane_records.json"),
                                read_data("composed/deps.json"),
                                read_data("composed/name_map_TestPA_composed.json"));
    const Analysis& a = out.analysis;
    auto f2 = [](double v) { return stats::format_fixed(v, 2); };
    auto pct = [](double v) { return stats::format_fixed(v * 100, 1); };
    CHECK(f2(a.window_start_us) == "2.50");
    CHECK(f2(a.window_end_us) == "62.20");
    CHECK(f2(a.window_us) == "59.70");
    CHECK(f2(a.total_test_time_us) == "60.90");
    std::vector<std::string> busy;
    for (const auto& lane : a.lanes) busy.push_back(pct(lane.busy_fraction));
    CHECK(busy == std::vector<std::string>{"16.8", "16.8", "13.4", "58.6", "9.0", "8.4", "10.1",
                                           "12.6", "12.6"});
    CHECK(pct(a.cube_vector.util_aic) == "15.6");
    CHECK(pct(a.cube_vector.util_aiv) == "18.5");
    CHECK(stats::format_fixed(a.average_parallelism, 3) == "1.581");
    CHECK(a.tail.longest_task == "UP(r1t6)");
    CHECK(pct(a.tail.longest_task_share) == "50.3");
    CHECK(f2(a.tail.single_core_us) == "37.40");
    CHECK(f2(a.tail.tail_us) == "31.80");
    CHECK(pct(a.tail.tail_fraction) == "53.3");
    REQUIRE(a.schedulers.size() == 3);
    CHECK(pct(a.schedulers[0].saturation) == "2.3");
    CHECK(pct(a.schedulers[1].saturation) == "2.8");
    CHECK(pct(a.schedulers[2].saturation) == "1.7");
    // Converter "Task Statistics by Function"
    // (fixtures/swimlane/composed/expected/stdout.default.txt).
    REQUIRE(a.functions.size() == 5);
    const FunctionStats& qk = a.functions[0];
    CHECK(qk.name == "QK");
    CHECK(f2(qk.exec_sum_us / 2) == "10.00");
    CHECK(f2(qk.latency_sum_us / 2) == "11.20");
    CHECK(stats::format_fixed(qk.exec_sum_us / qk.latency_sum_us * 100, 1) == "89.3");
    CHECK(f2(qk.head_sum_us / 2) == "0.80");
    CHECK(f2(qk.tail_sum_us / 2) == "0.40");
    const FunctionStats& sf = a.functions[1];
    CHECK(f2(sf.exec_sum_us / 4) == "5.35");
    CHECK(f2(sf.latency_sum_us / 4) == "6.45");
    CHECK(stats::format_fixed(sf.exec_sum_us / sf.latency_sum_us * 100, 1) == "82.9");
    CHECK(f2(a.functions[3].tail_sum_us / 2) == "0.25");
    CHECK(f2(a.exec_sum_us) == "94.40");
    CHECK(f2(a.latency_sum_us) == "105.60");
    // Critical path: r1t2 → r1t3 → (r1t4 dummy) → r1t5 → r1t6.
    const CriticalPath& cp = a.critical_path;
    REQUIRE(cp.tasks.size() == 4);
    CHECK(cp.tasks[0].label == "QK(r1t2)");
    CHECK(cp.tasks[1].label == "SF_spmd(r1t3)");
    CHECK(cp.tasks[2].label == "PV_cube(r1t5)");
    CHECK(cp.tasks[3].label == "UP(r1t6)");
    CHECK(f2(cp.length_us) == "59.70");
    CHECK(f2(cp.kernel_us) == "54.10");
    CHECK(f2(cp.overhead_us) == "5.60");
    CHECK(out.fired == std::set<std::string>{"L2.kernel-too-big"});
}

}  // namespace swimlane_analyze_scenarios_test
