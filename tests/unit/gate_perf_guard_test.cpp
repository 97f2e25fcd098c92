#include <catch2/catch.hpp>

#include "ptune/gate/perf_guard.hpp"

namespace gate_perf_guard_test {

using namespace ptune::gate::perf_guard;

TEST_CASE("perf_guard baselines: recognised by shape, fields checked", "[bench-gate][perf_guard]") {
    auto pypto = read_baseline(
        R"({"metric": "makespan_us", "value": 1016.66, "threshold_pct": 15, "pypto_ref": "1eec39f1"})",
        "b.json");
    REQUIRE(pypto);
    REQUIRE(*pypto);
    CHECK((*pypto)->value == Approx(1016.66));
    CHECK((*pypto)->threshold_pct == 15.0);
    // perf_guard.py's default threshold is 10 when the file has none.
    auto no_threshold = read_baseline(R"({"metric": "makespan_us", "value": 100})", "b.json");
    CHECK((*no_threshold)->threshold_pct == 10.0);
    // A bench-summary JSON or any other document is not a perf_guard baseline.
    CHECK_FALSE(read_baseline(R"({"command": "bench-summary", "cases": []})", "s.json"));
    CHECK_FALSE(read_baseline("not json", "x.log"));
    // A baseline of the right shape with wrong fields is an error, not another format.
    auto other_metric = read_baseline(R"({"metric": "effective_us", "value": 1})", "b.json");
    REQUIRE(other_metric);
    CHECK_FALSE(*other_metric);
    auto text_value = read_baseline(R"({"metric": "makespan_us", "value": "fast"})", "b.json");
    CHECK_FALSE(*text_value);
    auto negative = read_baseline(R"({"metric": "makespan_us", "value": -3})", "b.json");
    CHECK_FALSE(*negative);
}

TEST_CASE("perf_guard verdicts: regression iff delta above the threshold, improvements pass",
          "[bench-gate][perf_guard]") {
    Baseline baseline{"makespan_us", 100.0, 15.0, "", "b.json"};
    const auto verdict = [&](std::vector<double> runs) {
        Measurement m;
        m.makespans_us = std::move(runs);
        return judge(baseline, m);
    };
    CHECK_FALSE(verdict({115.0}).regressed);          // exactly the threshold is not above it
    CHECK(verdict({110.0, 120.0, 120.3}).regressed);  // the mean of the runs: +16.77 %
    CHECK_FALSE(verdict({50.0}).regressed);           // never flags an improvement
    Baseline unseeded{"makespan_us", std::nullopt, 15.0, "", "b.json"};
    Measurement m;
    m.makespans_us = {1000.0};
    const auto report_only = judge(unseeded, m);
    CHECK(report_only.report_only);
    CHECK_FALSE(report_only.regressed);
}

TEST_CASE("perf_guard: a makespan of 0 µs is incomparable and fails, never a −100 % pass",
          "[bench-gate][perf_guard]") {
    Baseline baseline;
    baseline.metric = "makespan_us";
    baseline.value = 1016.66;
    Measurement zero;
    zero.makespans_us = {0.0};
    zero.sources = {"ci.log:3"};
    const auto outcome = judge(baseline, zero);
    CHECK_FALSE(outcome.regressed);
    CHECK(outcome.failed());
    CHECK(outcome.incomparable.find("ci.log:3") != std::string::npos);
    CHECK_FALSE(outcome.delta_pct);
    const auto report = make_report(outcome);
    CHECK(report.data["passed"] == false);
    // One empty run among good ones still fails: it would pull the mean down.
    Measurement mixed;
    mixed.makespans_us = {1150.0, 0.0, 1160.0};
    mixed.sources = {"a", "b", "c"};
    CHECK(judge(baseline, mixed).failed());
    Measurement good;
    good.makespans_us = {1016.0};
    CHECK_FALSE(judge(baseline, good).failed());
}

}  // namespace gate_perf_guard_test
