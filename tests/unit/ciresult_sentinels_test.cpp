// The seed and validation sentinels of upstream-2026-12.md §1.7 in a plain bench log: read per
// case as a daily-CI folder's run.log gives them (ciresult::parse_run_log), also past the
// loader's first 8 KiB where only the prefilter's lines are read.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/bench/pipeline.hpp"
#include "ptune/bench/summary.hpp"
#include "ptune/ciresult/run_log.hpp"
#include "ptune/core/io.hpp"

namespace ciresult_sentinels_test {

using namespace ptune;

namespace {

const std::string kLog = std::string(PTUNE_TEST_DATA) + "/bench/seed_sentinels.log";

}  // namespace

TEST_CASE("bench: a plain log's seed sentinels, per case, as run.log's", "[bench][ciresult]") {
    Diagnostics d;
    auto cases = bench::load_run({kLog}, {}, d);
    REQUIRE(cases);
    REQUIRE(cases->size() == 2);
    CHECK((*cases)[0].name == "case-a");
    CHECK((*cases)[0].sentinels ==
          std::vector<std::string>{"[PERF] deterministic_seed seed=1807 python_hash_seed=1807"});
    // case-b lies past the first 8 KiB: its [VALIDATION] and [PERF] lines pass the prefilter.
    CHECK((*cases)[1].sentinels ==
          std::vector<std::string>{"[VALIDATION] mode=golden reference=cpu",
                                   "[PERF] deterministic_seed seed=42 python_hash_seed=42",
                                   "[RUN] fixture seed=42 python_hash_seed=0"});
    // The same lines a daily folder's run.log reader takes from the same text.
    auto text = io::read_file(kLog);
    REQUIRE(text);
    std::istringstream in(*text);
    Diagnostics run_log_diagnostics;
    const ciresult::RunLogFacts facts = ciresult::parse_run_log(in, kLog, run_log_diagnostics);
    std::vector<std::string> all = (*cases)[0].sentinels;
    all.insert(all.end(), (*cases)[1].sentinels.begin(), (*cases)[1].sentinels.end());
    CHECK(all == facts.sentinels);
}

TEST_CASE("bench: sentinels survive bench-summary JSON and make the context table",
          "[bench][ciresult]") {
    Diagnostics d;
    auto cases = bench::load_run({kLog}, {}, d);
    REQUIRE(cases);
    const nlohmann::json json = bench::case_to_json((*cases)[1]);
    REQUIRE(json.contains("sentinels"));
    CHECK(json["sentinels"].size() == 3);
    CHECK_FALSE(bench::case_to_json(bench::BenchCase{}).contains("sentinels"));
    auto back = bench::case_from_json(json, "saved.json");
    REQUIRE(back);
    CHECK(back->sentinels == (*cases)[1].sentinels);

    // The tables of bench-summary (SummaryBuilder) and of build_summary_report() agree.
    bench::SummaryBuilder builder;
    for (bench::BenchCase bench_case : *cases) builder.add(std::move(bench_case));
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue);
    const render::Report report =
        builder.finish(*catalogue, rules::MetricStore{}, bench::kRuleArea);
    const render::Report same = bench::build_summary_report(*cases, {}, true);
    const render::Table* table = nullptr;
    for (const render::Table& t : report.tables) {
        if (t.title == "run context (seed and validation sentinels)") table = &t;
    }
    REQUIRE(table != nullptr);
    REQUIRE(table->rows.size() == 4);
    CHECK(table->rows[0] ==
          std::vector<std::string>{"case-a",
                                   "[PERF] deterministic_seed seed=1807 python_hash_seed=1807"});
    CHECK(table->rows[3] ==
          std::vector<std::string>{"case-b", "[RUN] fixture seed=42 python_hash_seed=0"});
    REQUIRE_FALSE(same.tables.empty());
    CHECK(same.tables.back().rows == table->rows);
}

}  // namespace ciresult_sentinels_test
