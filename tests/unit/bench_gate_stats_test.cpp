// Statistics of bench-gate. Expected p-values were computed independently in Python: exact ones
// by enumerating every split of the pooled sample, normal ones from the textbook formula with
// tie and continuity corrections (what scipy.stats.mannwhitneyu 1.10 does).

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/bench/gate_stats.hpp"

using namespace ptune::bench::gate;
using Catch::Detail::Approx;

TEST_CASE("exact one-sided U test matches enumeration of all splits", "[bench-gate][stats]") {
    // scipy's documented example (males vs females): U1 = 17, two-sided p 0.1111.
    const std::vector<double> males = {19, 22, 16, 29, 24};
    const std::vector<double> females = {20, 11, 17, 12};
    auto greater = mann_whitney_u(males, females, Tail::Greater);
    REQUIRE(greater);
    CHECK(greater->exact);
    CHECK(greater->u == 17.0);
    CHECK(greater->p_value == Approx(0.05555555555555555).epsilon(1e-12));

    const std::vector<double> low = {1, 2, 3}, high = {4, 5, 6};
    CHECK(mann_whitney_u(low, high, Tail::Greater)->p_value == Approx(1.0));
    CHECK(mann_whitney_u(low, high, Tail::Less)->p_value == Approx(0.05));  // 1 / C(6,3)
    CHECK(mann_whitney_u(high, low, Tail::Greater)->p_value == Approx(0.05));

    // Unequal sizes, small side first or second: 31 of the C(15,3) = 455 splits.
    const std::vector<double> three = {5.5, 13.2, 14.1};
    const std::vector<double> twelve = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    CHECK(mann_whitney_u(three, twelve, Tail::Greater)->p_value ==
          Approx(31.0 / 455.0).epsilon(1e-12));
    CHECK(mann_whitney_u(twelve, three, Tail::Less)->p_value ==
          Approx(31.0 / 455.0).epsilon(1e-12));
}

TEST_CASE("normal U test applies the tie and continuity corrections", "[bench-gate][stats]") {
    const std::vector<double> current = {10, 11, 12, 13, 14, 15, 16, 17, 18, 30};
    const std::vector<double> baseline = {9, 10, 11, 11, 12, 12, 13, 14, 15, 16};
    auto greater = mann_whitney_u(current, baseline, Tail::Greater);
    REQUIRE(greater);
    CHECK_FALSE(greater->exact);
    CHECK(greater->u == 71.5);
    CHECK(greater->p_value == Approx(0.05532634395439658).epsilon(1e-9));
    CHECK(mann_whitney_u(current, baseline, Tail::Less)->p_value ==
          Approx(0.9526620108379025).epsilon(1e-9));
}

TEST_CASE("U test edge cases never produce NaN", "[bench-gate][stats]") {
    const std::vector<double> same(20, 5.0);
    auto all_tied = mann_whitney_u(same, same, Tail::Greater);
    REQUIRE(all_tied);
    CHECK(all_tied->p_value == 1.0);
    const std::vector<double> empty;
    CHECK_FALSE(mann_whitney_u(empty, same, Tail::Greater));
    CHECK_FALSE(mann_whitney_u(same, empty, Tail::Less));
    const std::vector<double> one = {7.0};
    auto single = mann_whitney_u(one, one, Tail::Greater);
    REQUIRE(single);
    CHECK(single->p_value == 1.0);
}

TEST_CASE("Hodges-Lehmann shift is the median pairwise difference", "[bench-gate][stats]") {
    const std::vector<double> current = {10, 11, 12, 13, 14, 15, 16, 17, 18, 30};
    const std::vector<double> baseline = {9, 10, 11, 11, 12, 12, 13, 14, 15, 16};
    CHECK(*hodges_lehmann_shift(current, baseline) == Approx(2.0));
    // Robust to a wild outlier, unlike the difference of means.
    const std::vector<double> shifted = {110, 111, 112, 113, 10000};
    const std::vector<double> base = {100, 101, 102, 103, 104};
    CHECK(*hodges_lehmann_shift(shifted, base) == Approx(10.0));
    const std::vector<double> empty;
    CHECK_FALSE(hodges_lehmann_shift(empty, base));
}

TEST_CASE("median-above-max bound reproduces the spec's exact probabilities",
          "[bench-gate][stats]") {
    // conventions.md §1.8(b): C(150,100)/C(200,100) ~ 2.2e-19 for 100 rounds a side.
    CHECK(median_above_max_probability(100, 100) == Approx(2.2229697512078617e-19).epsilon(1e-9));
    // 3 current rounds: 2 must lie above all 2 baseline rounds: C(3,2)/C(5,2) = 0.3.
    CHECK(median_above_max_probability(3, 2) == Approx(0.3));
    CHECK(median_above_max_probability(0, 10) == 1.0);
}

TEST_CASE("Holm adjusts step-down and keeps the input order", "[bench-gate][stats]") {
    const std::vector<double> p = {0.04, 0.01, 0.03, 0.5};
    const auto adjusted = holm_adjust(p);
    REQUIRE(adjusted.size() == 4);
    CHECK(adjusted[1] == Approx(0.04));  // 4 * 0.01
    CHECK(adjusted[2] == Approx(0.09));  // 3 * 0.03
    CHECK(adjusted[0] == Approx(0.09));  // 2 * 0.04 = 0.08, raised to keep monotone
    CHECK(adjusted[3] == Approx(0.5));   // 1 * 0.5
    const std::vector<double> big = {0.6, 0.7};
    CHECK(holm_adjust(big)[0] == 1.0);  // capped
    CHECK(holm_adjust(std::vector<double>{}).empty());
}

TEST_CASE("noise fence on log-ratios widens with run-to-run drift", "[bench-gate][stats]") {
    const std::vector<double> stable = {100.0, 100.4, 99.7, 100.2, 99.9, 100.1};
    auto tight = fit_noise_fence(stable, FenceMethod::Mad, 3.0);
    REQUIRE(tight);
    CHECK(tight->reference == Approx(100.05));
    CHECK(std::exp(tight->upper) - 1.0 < 0.02);

    const std::vector<double> drifting = {100.0, 108.0, 92.0, 108.0, 92.0, 100.0};
    auto wide = fit_noise_fence(drifting, FenceMethod::Mad, 3.0);
    REQUIRE(wide);
    CHECK(wide->reference == Approx(100.0));
    CHECK(std::exp(wide->upper) - 1.0 > 0.08);  // +6% stays inside
    CHECK(wide->lower < 0.0);

    auto iqr = fit_noise_fence(drifting, FenceMethod::Iqr, 3.0);
    REQUIRE(iqr);
    CHECK(iqr->upper > wide->upper * 0.5);

    const std::vector<double> flat(6, 50.0);
    auto zero = fit_noise_fence(flat, FenceMethod::Mad, 3.0);
    REQUIRE(zero);  // MAD = 0: a zero-width band, the threshold alone applies
    CHECK(zero->upper == 0.0);
    CHECK(zero->lower == 0.0);

    const std::vector<double> bad = {100.0, 0.0, 101.0};
    CHECK_FALSE(fit_noise_fence(bad, FenceMethod::Mad, 3.0));
    const std::vector<double> one = {100.0};
    CHECK_FALSE(fit_noise_fence(one, FenceMethod::Iqr, 3.0));
}
