// From bench cases to gate observations: which samples back a headline, where a platform comes
// from, and how cases pair across runs.

#include <catch2/catch.hpp>

#include "ptune/gate/input.hpp"

namespace gate_input_test {

using namespace ptune;
using namespace ptune::bench;
using namespace ptune::gate;

namespace {

BenchCase headline_case(const std::string& name, const std::string& file, std::size_t rounds,
                        double mean) {
    BenchCase c;
    c.name = name;
    c.source = {file, 1};
    BenchBlock& block = c.blocks.emplace_back();
    block.source = {file, 2};
    Summary& s = block.effective_us.emplace();
    s.rounds = rounds;
    s.min = mean - 1;
    s.median = mean;
    s.mean = mean;
    s.max = mean + 1;
    return c;
}

}  // namespace

TEST_CASE("headline samples: L2 drops zeros, L3 takes the slowest rank's round sum",
          "[bench-gate]") {
    RawSamples l2;
    l2.ranks = 1;
    l2.rounds = 4;
    l2.per_rank[51007] = {512.3, 0.0, 505.1, 501.2};  // bench-log.md §1.5 example
    CHECK(headline_samples(l2) == std::vector<double>{512.3, 505.1, 501.2});

    // Two ranks, two dispatches per round, two rounds (the upstream unit-test shape).
    RawSamples l3;
    l3.ranks = 2;
    l3.rounds = 2;
    l3.per_rank[10] = {20.0, 30.0, 21.0, 30.0};
    l3.per_rank[11] = {99.0, 100.4};
    const auto samples = headline_samples(l3);
    REQUIRE(samples.size() == 2);
    CHECK(samples[0] == Approx(99.0));
    CHECK(samples[1] == Approx(100.4));

    RawSamples ragged = l3;
    ragged.per_rank[10].push_back(5.0);  // 5 dispatches cannot split into 2 rounds
    CHECK(headline_samples(ragged).empty());

    RawSamples pooled = ragged;
    pooled.fallback_flattened = true;
    CHECK(headline_samples(pooled).size() == 7);
}

TEST_CASE("platform comes from a results-<platform> artifact folder", "[bench-gate]") {
    CHECK(platform_from_path("artifacts/results-a2a3/results.tsv") == "a2a3");
    CHECK(platform_from_path("results-a5sim/results.tsv") == "a5sim");
    CHECK(platform_from_path("logs/run.log").empty());
    CHECK(platform_from_path("results-/results.tsv").empty());
}

TEST_CASE("observe keeps samples only when they reproduce the headline", "[bench-gate]") {
    Diagnostics diagnostics;
    BenchCase c = headline_case("k", "cur.log", 3, 100.0);
    c.blocks[0].raw.emplace();
    c.blocks[0].raw->ranks = 1;
    c.blocks[0].raw->rounds = 3;
    c.blocks[0].raw->per_rank[1] = {99.0, 100.0, 101.0};
    c.blocks[0].declared_rounds = 3;
    auto good = observe(c, diagnostics);
    CHECK(good.samples.size() == 3);
    CHECK(*good.mean == 100.0);
    CHECK(good.declared_rounds == 3u);
    CHECK(good.source == "cur.log:2");
    CHECK(diagnostics.empty());

    c.blocks[0].raw->per_rank[1] = {99.0, 100.0};
    auto short_raw = observe(c, diagnostics);
    CHECK(short_raw.samples.empty());
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].file == "cur.log");
    CHECK(diagnostics.items()[0].line == 2);

    BenchCase failed;
    failed.name = "f";
    failed.source = {"results.tsv", 4};
    failed.notes.push_back("no effective_us recorded (perf '-')");
    CHECK(observe(failed, diagnostics).unavailable == "no effective_us recorded (perf '-')");
}

TEST_CASE("pair_cases: history per occurrence, last current wins, baseline-only last",
          "[bench-gate]") {
    Diagnostics diagnostics;
    std::vector<std::vector<BenchCase>> baseline = {
        {headline_case("a", "night1/results.tsv", 0, 10.0),
         headline_case("a", "night2/results.tsv", 0, 11.0),
         headline_case("gone", "night1/results.tsv", 0, 5.0)}};
    std::vector<BenchCase> current = {headline_case("a", "cur.log", 0, 12.0),
                                      headline_case("b", "cur.log", 0, 1.0),
                                      headline_case("a", "cur2.log", 0, 13.0)};
    auto pairs = pair_cases(baseline, current, diagnostics);
    REQUIRE(pairs.size() == 3);
    CHECK(pairs[0].name == "a");
    CHECK(pairs[0].baseline.size() == 2);
    CHECK(*pairs[0].current->mean == 13.0);
    CHECK(pairs[1].name == "b");
    CHECK(pairs[1].baseline.empty());
    CHECK(pairs[2].name == "gone");
    CHECK_FALSE(pairs[2].current);
    REQUIRE(diagnostics.items().size() == 1);
    CHECK_THAT(diagnostics.items()[0].message, Catch::Contains("appears again"));
}

}  // namespace gate_input_test
