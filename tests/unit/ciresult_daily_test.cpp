// ciresult: daily-CI raw-result.json / report.md / perf_cases.json (upstream-2026-12.md §1.9).

#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "ptune/bench/pipeline.hpp"
#include "ptune/ciresult/daily.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/run_log.hpp"
#include "ptune/core/io.hpp"

namespace ciresult_daily_test {

using namespace ptune;
using namespace ptune::ciresult;

namespace {

std::string ci_data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/ciresult/" + name;
}

const char* const kTp2 = R"({"passed": true, "error": null, "benchmark": {"rounds": 3, "warmup": 2,
 "fallback_flattened": false, "unstable_dispatch_slots": false, "all_zero_device": false,
 "samples": [{"3229451": [100.0, 7.0], "3229452": [110.0, 6.0]},
             {"3229451": [102.0, 7.0], "3229452": [111.0, 6.0]},
             {"3229451": [98.0, 8.0],  "3229452": [109.0, 6.0]}]}})";

std::string with(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("ciresult: §1.9 multi-card headline is the smallest per-rank mean", "[ciresult]") {
    DailyResult r = evaluate_raw_result(kTp2, "tp2.json", Expectation{3, 2, 2});
    REQUIRE(r.passed);
    CHECK(r.rule == HeadlineRule::MinRankMean);
    CHECK(format_headline(*r.headline) == "107.33");
    REQUIRE(r.ranks.size() == 2);
    CHECK(r.ranks[0].pid == "3229451");
    CHECK(r.ranks[0].totals == std::vector<double>{107.0, 109.0, 106.0});
    CHECK(r.ranks[1].mean == Approx(116.0));
    CHECK(r.headline_rank == 0);
}

TEST_CASE("ciresult: §1.9 single card headline is the median", "[ciresult]") {
    const char* l2 = R"({"passed": true, "error": null, "benchmark": {"rounds": 3, "warmup": 2,
      "fallback_flattened": false, "unstable_dispatch_slots": false, "all_zero_device": false,
      "samples": [{"4100": [505.1]}, {"4100": [512.3]}, {"4100": [501.2]}]}})";
    DailyResult r = evaluate_raw_result(l2, "l2.json", Expectation{3, 2, 1});
    REQUIRE(r.passed);
    CHECK(r.rule == HeadlineRule::Median);
    CHECK(format_headline(*r.headline) == "505.10");
}

TEST_CASE("ciresult: upstream's rejections with their reason", "[ciresult]") {
    const Expectation expected{3, 2, 2};
    SECTION("a flag") {
        auto r = evaluate_raw_result(
            with(kTp2, "\"unstable_dispatch_slots\": false", "\"unstable_dispatch_slots\": true"),
            "x", expected);
        CHECK_FALSE(r.passed);
        CHECK(r.reason == "unstable_dispatch_slots is true");
    }
    SECTION("loop sizes against the manifest") {
        auto r = evaluate_raw_result(kTp2, "x", Expectation{100, 500, 2});
        CHECK_FALSE(r.passed);
        CHECK(r.reason.find("rounds=100 warmup=500") != std::string::npos);
    }
    SECTION("a rank missing from a round") {
        auto r =
            evaluate_raw_result(with(kTp2, R"({"3229451": [98.0, 8.0],  "3229452": [109.0, 6.0]})",
                                     R"({"3229451": [98.0, 8.0], "9": [1.0]})"),
                                "x", expected);
        CHECK_FALSE(r.passed);
        CHECK(r.reason == "a rank is missing from a measured round");
    }
    SECTION("device count") {
        auto r = evaluate_raw_result(kTp2, "x", Expectation{3, 2, 4});
        CHECK_FALSE(r.passed);
        CHECK(r.reason == "the first round has 2 rank(s), expected 4");
    }
    SECTION("passed false") {
        auto r =
            evaluate_raw_result(R"({"passed": false, "error": "max diff 0.3"})", "x", expected);
        CHECK(r.reason == "correctness failed: max diff 0.3");
    }
    SECTION("not JSON names the line") {
        auto r = evaluate_raw_result("{\"passed\": true,\n \"benchmark\": [", "x.json", expected);
        CHECK_FALSE(r.passed);
        CHECK(r.reason.find("not valid JSON") != std::string::npos);
    }
    SECTION("a wrong type") {
        auto r = evaluate_raw_result(with(kTp2, "[100.0, 7.0]", "[\"100\", 7.0]"), "x", expected);
        CHECK(r.reason == "a sample of pid 3229451 is not a number");
    }
    SECTION("zero values are summed but counted (proposal)") {
        auto r = evaluate_raw_result(with(kTp2, "[100.0, 7.0]", "[100.0, 0.0]"), "x", expected);
        CHECK(r.passed);
        CHECK(r.nonpositive_values == 1);
    }
}

TEST_CASE("ciresult: report.md rows, FAIL and - are never numbers", "[ciresult]") {
    Diagnostics d;
    auto rows = parse_daily_report(
        "| Case | Effective (us) | note |\n| --- | --- | --- |\n| a | 1.50 | x |\n| b | FAIL |\n"
        "| c | - |\n| d | 0,5 |\n",
        "report.md", d);
    REQUIRE(rows);
    REQUIRE(rows->size() == 3);
    CHECK((*rows)[0].value == 1.5);
    CHECK((*rows)[1].kind == ReportRow::Kind::Fail);
    CHECK((*rows)[2].kind == ReportRow::Kind::NotRun);
    REQUIRE(d.items().size() == 1);
    CHECK(d.items()[0].line == 6);
    Diagnostics none;
    CHECK_FALSE(parse_daily_report("no table here\n", "r.md", none));
}

TEST_CASE("ciresult: manifest duplicates are an error with the line", "[ciresult]") {
    auto m = parse_manifest(R"({"sampling": {"rounds": 1, "warmup": 0}, "cases": [
      {"case_id": "a", "device_count": 1},
      {"case_id": "a", "device_count": 2}]})",
                            "perf_cases.json");
    REQUIRE_FALSE(m);
    CHECK(m.error().message == "duplicate case_id in the manifest: a");
    CHECK(m.error().line == 3);
}

TEST_CASE("ciresult: a published folder as bench cases", "[ciresult]") {
    Diagnostics d;
    auto run = load_daily(ci_data("daily"), d);
    REQUIRE(run);
    CHECK(d.items().empty());
    REQUIRE(run->cases.size() == 2);
    CHECK(run->cases[0].case_id == "tp2-demo");
    auto cases = to_bench_cases(*run);
    REQUIRE(cases.size() == 2);
    const bench::BenchBlock* block = cases[0].ci_block();
    REQUIRE(block);
    CHECK(block->effective_us->mean == Approx(107.3333333));
    CHECK(block->ranks.size() == 2);
    REQUIRE(block->raw);
    CHECK(block->raw->per_rank.begin()->second == std::vector<double>{107.0, 109.0, 106.0});
    CHECK(cases[1].ci_block()->effective_us->median == Approx(505.1));
}

TEST_CASE("ciresult: report.md cross-check and bad rows", "[ciresult]") {
    Diagnostics d;
    auto run = load_daily(ci_data("daily-bad"), d);
    REQUIRE(run);
    std::string all;
    for (const auto& item : d.items()) all += item.message + "\n";
    CHECK(all.find("report.md says 107.99 but raw-result.json gives 107.33") != std::string::npos);
    CHECK(all.find("neither a decimal") != std::string::npos);
    auto cases = to_bench_cases(*run);
    REQUIRE(cases.size() == 2);
    CHECK(cases[1].ci_block()->unavailable->find("FAIL: not valid JSON") == 0);
}

TEST_CASE("ciresult: the bench loader reads CI results once registered", "[ciresult]") {
    install_bench_reader();
    Diagnostics d;
    auto cases = bench::load_run({ci_data("daily-fail/published")}, {}, d);
    REQUIRE(cases);
    REQUIRE(cases->size() == 2);
    CHECK((*cases)[0].ci_block()->unavailable == "FAIL: unstable_dispatch_slots is true");
    auto report = bench::load_run({ci_data("daily/published/report.md")}, {}, d);
    REQUIRE(report);
    CHECK((*report)[0].ci_block()->effective_us->mean_only);
}

TEST_CASE("ciresult: run.log task slots and sentinels (§1.7)", "[ciresult]") {
    std::istringstream in(
        "[PERF] deterministic_seed seed=5 python_hash_seed=5\n"
        "[RUN]   task slots: ranks=2\n"
        "[RUN]     rank 7 task_slot 0: n=2 fin_us=10.5 dur_us=3.0\n"
        "[RUN]       raw fin_us=[10.4, 10.6]\n"
        "[RUN]     rank 7 task_slot 1: n=2 fin_us=12.0 dur_us=1.0 dfin_us=1.5\n"
        "[RUN]       raw fin_us=[12.0]\n"
        "[RUN]     rank 8 task_slot 0: n=2 fin_us=oops dur_us=1.0\n"
        "[RUN]       raw fin_us=[1.0, 2.0]\n");
    Diagnostics d;
    RunLogFacts facts = parse_run_log(in, "run.log", d);
    CHECK(facts.task_slots.declared_ranks == std::optional<std::size_t>(2));
    REQUIRE(facts.task_slots.slots.size() == 2);
    CHECK(facts.task_slots.slots[0].raw_fin_us == std::vector<double>{10.4, 10.6});
    CHECK(facts.task_slots.slots[1].dfin_us == std::optional<double>(1.5));
    REQUIRE(facts.sentinels.size() == 1);
    CHECK(facts.sentinels[0] == "[PERF] deterministic_seed seed=5 python_hash_seed=5");
    std::vector<std::size_t> lines;
    for (const auto& item : d.items()) lines.push_back(item.line);
    // wrong raw length (6), bad slot line (7), raw without its slot (8), ranks=2 but 1 seen (0)
    CHECK(lines == std::vector<std::size_t>{6, 7, 8, 0});
}

}  // namespace ciresult_daily_test
