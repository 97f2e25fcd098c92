// bench-summary's findings one case at a time (summary_findings) against the whole-store route
// they replace (publish_metrics + rules::evaluate), and make_case_names_unique.

#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/core/handoff.hpp"
#include "ptune/rules/engine.hpp"

namespace bench_summary_findings_test {

using namespace ptune;
using namespace ptune::bench;

namespace {

BenchCase make_case(std::string name, std::optional<Summary> headline) {
    BenchCase bench_case;
    bench_case.name = std::move(name);
    bench_case.source = {"ci.log", 1};
    BenchBlock& block = bench_case.blocks.emplace_back();
    block.effective_us = headline;
    if (!headline) block.unavailable = "no orch/sched spans captured";
    block.source = {"ci.log", 7};
    return bench_case;
}

Summary summary(double median, double mean, std::size_t rounds = 100) {
    Summary s;
    s.rounds = rounds;
    s.min = median * 0.9;
    s.median = median;
    s.mean = mean;
    s.max = median * 1.5;
    return s;
}

/// Cases whose metrics differ from one to the next: the one reused subject must not carry a
/// metric of the case before.
std::vector<BenchCase> mixed_cases() {
    std::vector<BenchCase> cases;
    cases.push_back(make_case("b/tail.py", summary(100.0, 110.0)));   // tail contamination
    cases.push_back(make_case("a/plain.py", summary(100.0, 101.0)));  // nothing
    BenchCase short_run = make_case("c/short.py", summary(50.0, 60.0, 90));
    short_run.blocks.back().declared_rounds = 100;  // shortfall, and a tail
    cases.push_back(short_run);
    cases.push_back(make_case("d/declared_ok.py", summary(10.0, 10.0)));  // shortfall metric gone
    BenchCase l3 = make_case("e/l3.py", summary(200.0, 201.0));
    for (double mean : {100.0, 150.0}) {
        Rank& rank = l3.blocks.back().ranks.emplace_back();
        rank.rank = static_cast<std::uint64_t>(mean);
        rank.eff_us = summary(mean, mean);
    }
    cases.push_back(l3);                                           // imbalance 1.5
    cases.push_back(make_case("f/unavailable.py", std::nullopt));  // no headline
    BenchCase mean_only = make_case("g/tsv.py", std::nullopt);
    mean_only.blocks.back().unavailable.reset();
    mean_only.blocks.back().effective_us.emplace().mean = 42.0;
    mean_only.blocks.back().effective_us->mean_only = true;
    cases.push_back(mean_only);
    cases.push_back(make_case("h/tail_again.py", summary(100.0, 120.0)));
    BenchCase none;  // no block: not a subject
    none.name = "i/empty.py";
    cases.push_back(none);
    return cases;
}

}  // namespace

TEST_CASE("summary_findings gives evaluate()'s findings over publish_metrics, in order",
          "[bench]") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    std::vector<BenchCase> cases = mixed_cases();
    rules::MetricStore store;
    publish_metrics(cases, store);
    std::vector<rules::Finding> expected =
        rules::evaluate(*catalogue, store, {std::string(kRuleArea)});
    std::vector<rules::Finding> got =
        summary_findings(cases, *catalogue, rules::MetricStore{}, kRuleArea);
    REQUIRE(expected.size() >= 4);
    REQUIRE(got.size() == expected.size());
    // Everything a renderer prints of a finding.
    const auto printed = [](const rules::Finding& f) {
        return std::tie(f.rule, f.subject, f.message, f.evidence, f.locations, f.impact);
    };
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO(expected[i].rule << " " << expected[i].subject.name);
        CHECK(printed(got[i]) == printed(expected[i]));
    }
}

TEST_CASE("summary_findings keeps the run subject's findings", "[bench]") {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    store.run().metrics["host.log_dropped_records"] = 3.0;
    std::vector<BenchCase> cases = mixed_cases();
    rules::MetricStore whole = store;
    publish_metrics(cases, whole);
    auto expected = rules::evaluate(*catalogue, whole, {std::string(kRuleArea)});
    auto got = summary_findings(cases, *catalogue, store, kRuleArea);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].rule == expected[i].rule);
        CHECK(got[i].subject == expected[i].subject);
    }
    CHECK(std::any_of(got.begin(), got.end(), [](const rules::Finding& finding) {
        return finding.rule == "bench.host-log-incomplete";
    }));
}

TEST_CASE("make_case_names_unique numbers repeated names in input order", "[bench]") {
    std::vector<BenchCase> cases(5);
    const char* names[] = {"a", "b", "a", "c", "a"};
    for (std::size_t i = 0; i < 5; ++i) cases[i].name = names[i];
    make_case_names_unique(cases);
    CHECK(cases[0].name == "a #1");
    CHECK(cases[1].name == "b");
    CHECK(cases[2].name == "a #2");
    CHECK(cases[3].name == "c");
    CHECK(cases[4].name == "a #3");
    std::vector<BenchCase> distinct(2);
    distinct[0].name = "x";
    distinct[1].name = "y";
    make_case_names_unique(distinct);
    CHECK(distinct[0].name == "x");
    CHECK(distinct[1].name == "y");
}

TEST_CASE("make_case_names_unique finds a repeat among many names, and none where none is",
          "[bench]") {
    // A sweep's names go through a table that grows with them: the repeat is found wherever
    // it is, the empty name counts as a name, and 3,000 distinct names stay as they are.
    std::vector<BenchCase> cases(3000);
    for (std::size_t i = 0; i < cases.size(); ++i)
        cases[i].name = "models/ci/op_" + std::to_string(i);
    std::vector<BenchCase> distinct = cases;
    make_case_names_unique(distinct);
    for (std::size_t i = 0; i < cases.size(); ++i) CHECK(distinct[i].name == cases[i].name);
    cases[2999].name = "models/ci/op_17";
    make_case_names_unique(cases);
    CHECK(cases[17].name == "models/ci/op_17 #1");
    CHECK(cases[2999].name == "models/ci/op_17 #2");
    CHECK(cases[18].name == "models/ci/op_18");
    std::vector<BenchCase> empty(2);
    make_case_names_unique(empty);
    CHECK(empty[0].name == " #1");
    CHECK(empty[1].name == " #2");
    std::vector<BenchCase> none;
    make_case_names_unique(none);
    CHECK(none.empty());
}

// A table's rows, held or made (the summary table of SummaryBuilder gives views, not strings).
static std::vector<std::vector<std::string>> rows_of(const render::Table& table) {
    if (!table.view_row) return table.rows;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < table.row_count(); ++r) {
        std::vector<std::string_view> cells;
        table.view_row(r, cells);
        rows.emplace_back(cells.begin(), cells.end());
    }
    return rows;
}

TEST_CASE("SummaryBuilder gives the report of load_run, summary_findings and build_summary_report",
          "[bench]") {
    // Cases in every shape the report reads: skipped (notes, no block), rank and task-slot
    // tables, an unavailable headline, two blocks, a heavy tail (a finding), from three
    // inputs, so every name repeats and is renamed in the tables, notes and findings.
    const std::string path = std::string(PTUNE_TEST_DATA) + "/bench/summary_builder_cases.log";
    const std::vector<std::string> inputs = {path, path, "y=" + path};
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    Diagnostics held_diagnostics, built_diagnostics;
    auto cases = load_run(inputs, {}, held_diagnostics);
    REQUIRE(cases.ok());
    render::Report held =
        build_summary_report(*cases, summary_findings(*cases, *catalogue, store, kRuleArea), true);
    SummaryBuilder builder;
    REQUIRE(for_each_bench_case(inputs, {}, built_diagnostics, [&](BenchCase&& bench_case) {
                builder.add(std::move(bench_case));
            }).ok());
    render::Report built = builder.finish(*catalogue, store, kRuleArea);
    CHECK(built.command == held.command);
    CHECK(built.notes == held.notes);
    REQUIRE(built.tables.size() == held.tables.size());
    CHECK(built.tables.size() == 7);  // the summary, and per `y` case a rank and a slot table
    for (std::size_t t = 0; t < held.tables.size(); ++t) {
        CHECK(built.tables[t].title == held.tables[t].title);
        CHECK(built.tables[t].columns == held.tables[t].columns);
        CHECK(built.tables[t].units == held.tables[t].units);
        CHECK(rows_of(built.tables[t]) == held.tables[t].rows);
    }
    CHECK(held.tables[0].rows[2][0] == "x #2");
    auto key = [](const rules::Finding& f) {
        return std::make_tuple(f.rule, f.subject, f.message, f.locations, f.evidence, f.impact);
    };
    REQUIRE(built.findings.size() == held.findings.size());
    CHECK(built.findings.size() == 3);
    for (std::size_t f = 0; f < held.findings.size(); ++f)
        CHECK(key(built.findings[f]) == key(held.findings[f]));
    CHECK(built_diagnostics.items().size() == held_diagnostics.items().size());

    // Screened as bench-summary runs it: the rules asked of each case as it comes, the cases
    // read on a second thread. The same report.
    SummaryBuilder screened;
    screened.screen_with(*catalogue, kRuleArea);
    Diagnostics screened_diagnostics;
    REQUIRE(produce_alongside<BenchCase>(
                [&](const CaseSink& sink) {
                    return for_each_bench_case(inputs, {}, screened_diagnostics, sink);
                },
                [&](BenchCase&& bench_case) { screened.add(std::move(bench_case)); }, {2, 1})
                .ok());
    render::Report screened_report = screened.finish(*catalogue, store, kRuleArea);
    CHECK(screened_report.notes == held.notes);
    REQUIRE(screened_report.tables.size() == held.tables.size());
    for (std::size_t t = 0; t < held.tables.size(); ++t)
        CHECK(rows_of(screened_report.tables[t]) == held.tables[t].rows);
    REQUIRE(screened_report.findings.size() == held.findings.size());
    for (std::size_t f = 0; f < held.findings.size(); ++f)
        CHECK(key(screened_report.findings[f]) == key(held.findings[f]));
    CHECK(screened_diagnostics.items().size() == held_diagnostics.items().size());
    CHECK_THROWS_AS(screened.finish(*catalogue, store, "gate."), std::logic_error);
}

TEST_CASE("the screened builder keeps a case rule that reads no case metric and holds for all",
          "[bench]") {
    // The screen evaluates per case only the rules that read a metric a case publishes; one
    // reading none has the same verdict for every case: asked once, kept when it holds.
    const std::string path = std::string(PTUNE_TEST_DATA) + "/bench/summary_builder_cases.log";
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    const char* const extra = R"json({"rules":[
      {"id":"bench.test-every-case","severity":"info","subject":"case",
       "condition":"!has(gate.regressed)","message":"{subject} has no gate verdict"},
      {"id":"bench.test-no-case","severity":"info","subject":"case",
       "condition":"gate.regressed == 1","message":"{subject} regressed"}]})json";
    REQUIRE(catalogue->merge_json(extra, "test.json").ok());
    rules::MetricStore store;
    Diagnostics diagnostics;
    auto cases = load_run({path}, {}, diagnostics);
    REQUIRE(cases.ok());
    const auto held = summary_findings(*cases, *catalogue, store, kRuleArea);
    SummaryBuilder screened;
    screened.screen_with(*catalogue, kRuleArea);
    REQUIRE(for_each_bench_case({path}, {}, diagnostics, [&](BenchCase&& bench_case) {
                screened.add(std::move(bench_case));
            }).ok());
    const render::Report report = screened.finish(*catalogue, store, kRuleArea);
    auto count = [](const std::vector<rules::Finding>& findings, std::string_view rule) {
        return std::count_if(findings.begin(), findings.end(),
                             [&](const rules::Finding& f) { return f.rule == rule; });
    };
    const auto with_block = std::count_if(
        cases->begin(), cases->end(), [](const BenchCase& c) { return c.ci_block() != nullptr; });
    CHECK(with_block > 1);
    CHECK(count(held, "bench.test-every-case") == with_block);
    CHECK(count(report.findings, "bench.test-every-case") == with_block);
    CHECK(count(report.findings, "bench.test-no-case") == 0);
    REQUIRE(report.findings.size() == held.size());
    for (std::size_t f = 0; f < held.size(); ++f) {
        CHECK(report.findings[f].rule == held[f].rule);
        CHECK(report.findings[f].message == held[f].message);
    }
}

TEST_CASE("SummaryBuilder renames a name repeated far apart, and only repeated names", "[bench]") {
    // 5,000 distinct names (the table of names seen grows several times), then the first again.
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    rules::MetricStore store;
    for (bool repeat : {false, true}) {
        SummaryBuilder builder;
        builder.screen_with(*catalogue, kRuleArea);
        const std::size_t count = 5000;
        for (std::size_t i = 0; i <= count; ++i) {
            BenchCase bench_case;
            bench_case.name = fmt::format("models/case_{:05}.py", i == count && repeat ? 0 : i);
            builder.add(std::move(bench_case));
        }
        render::Report report = builder.finish(*catalogue, store, kRuleArea);
        const auto rows = rows_of(report.tables.front());
        REQUIRE(rows.size() == count + 1);
        INFO("repeat " << repeat);
        CHECK(rows[0][0] == (repeat ? "models/case_00000.py #1" : "models/case_00000.py"));
        CHECK(rows[1][0] == "models/case_00001.py");
        CHECK(rows[count][0] == (repeat ? "models/case_00000.py #2" : "models/case_05000.py"));
    }
}

}  // namespace bench_summary_findings_test
