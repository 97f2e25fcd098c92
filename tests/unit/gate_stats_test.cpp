// Statistics of bench-gate. Expected p-values were computed independently in Python: exact ones
// by enumerating every split of the pooled sample, normal ones from the textbook formula with
// tie and continuity corrections (what scipy.stats.mannwhitneyu 1.10 does).

#include <algorithm>
#include <cmath>
#include <vector>

#include <random>

#include <catch2/catch.hpp>

#include "ptune/gate/stats.hpp"

namespace gate_stats_test {

using namespace ptune::gate;
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

TEST_CASE("summary rank test: exact p at complete separation, both directions",
          "[bench-gate][stats]") {
    // 5 rounds a side, current min above baseline max: every one of the 25 pairs is ordered and
    // the exact one-sided Mann-Whitney p is 1/C(10,5) = 1/252.
    const RoundSummary base{5, 92585.6, 106129.0, 108815.2};
    const RoundSummary slower{5, 92585.6 * 1.5, 106129.0 * 1.5, 108815.2 * 1.5};
    auto test = summary_u_test(slower, std::span(&base, 1), Tail::Greater);
    REQUIRE(test);
    CHECK(test->u_bound == 25.0);
    CHECK(test->k_bound == 5.0);
    CHECK(test->p_value == Approx(1.0 / 252.0));
    CHECK(test->best_p == Approx(1.0 / 252.0));
    // The same data tested the other way shows nothing.
    CHECK(summary_u_test(slower, std::span(&base, 1), Tail::Less)->p_value == Approx(1.0));
    // An improvement with complete separation is as significant.
    auto faster = summary_u_test(base, std::span(&slower, 1), Tail::Less);
    CHECK(faster->p_value == Approx(1.0 / 252.0));
    // 100 rounds a side: 1/C(200,100) ~ 1.1e-59 (conventions.md §1.8(b)).
    const RoundSummary base100{100, 10, 11, 12};
    const RoundSummary cur100{100, 13, 14, 15};
    CHECK(summary_u_test(cur100, std::span(&base100, 1), Tail::Greater)->p_value ==
          Approx(1.1048e-59).epsilon(1e-3));
}

TEST_CASE("summary rank test: median above max keeps the spec's bound despite a stray min",
          "[bench-gate][stats]") {
    // The current median is above every baseline round, but one stray fast round puts the
    // current min below the baseline min: U alone proves nothing, K >= 50 does:
    // C(100,50)/C(200,50) ~ 2.2e-19 (conventions.md §1.8(b)); the min-p costs at most 2x.
    const RoundSummary base{100, 100, 105, 110};
    const RoundSummary cur{100, 90, 120, 130};
    auto test = summary_u_test(cur, std::span(&base, 1), Tail::Greater);
    REQUIRE(test);
    CHECK(test->k_bound == 50.0);
    CHECK(test->p_value >= 2.2229697512078617e-19 * 0.999);
    CHECK(test->p_value <= 2 * 2.2229697512078617e-19 * 1.001);
}

TEST_CASE("summary rank test: overlapping 5-round summaries cannot show +30%",
          "[bench-gate][stats]") {
    const RoundSummary base{5, 80, 100, 140};
    const RoundSummary cur{5, 100, 130, 180};
    auto test = summary_u_test(cur, std::span(&base, 1), Tail::Greater);
    REQUIRE(test);
    CHECK(test->p_value > 0.05);
    CHECK(test->best_p == Approx(1.0 / 252.0));
    // No rounds on a side: no test.
    const RoundSummary empty{0, 1, 1, 1};
    CHECK_FALSE(summary_u_test(empty, std::span(&base, 1), Tail::Greater));
    // Absurd declared round counts neither loop nor wrap: the p is a number in [0, 1].
    const RoundSummary huge{1.8446744073709552e19, 100, 130, 180};
    auto absurd = summary_u_test(huge, std::span(&base, 1), Tail::Greater);
    REQUIRE(absurd);
    CHECK(absurd->p_value >= 0.0);
    CHECK(absurd->p_value <= 1.0);
}

TEST_CASE("summary rank test never claims more than the rounds behind the summaries",
          "[bench-gate][stats]") {
    // For random rounds, the bounds must not exceed the true U and K, and the p must not be
    // below the smaller p of the true statistics (which the exact min-p p never is).
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t m = 1 + rng() % 12, n = 1 + rng() % 12;
        std::normal_distribution<double> base_dist(100.0, 5.0);
        std::normal_distribution<double> cur_dist(100.0 + static_cast<double>(rng() % 20), 5.0);
        std::vector<double> cur(m), base(n);
        for (double& v : cur) v = std::round(cur_dist(rng));
        for (double& v : base) v = std::round(base_dist(rng));
        const auto summary = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            const std::size_t k = v.size();
            const double median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
            return RoundSummary{static_cast<double>(k), v.front(), median, v.back()};
        };
        const RoundSummary base_summary = summary(base);
        auto test = summary_u_test(summary(cur), std::span(&base_summary, 1), Tail::Greater);
        REQUIRE(test);
        double true_u = 0, true_k = 0;
        const double base_max = *std::max_element(base.begin(), base.end());
        for (double c : cur) {
            for (double b : base) true_u += c > b ? 1.0 : c == b ? 0.5 : 0.0;
            if (c > base_max) true_k += 1;
        }
        INFO("trial " << trial);
        CHECK(test->u_bound <= true_u);
        CHECK(test->k_bound <= true_k);
        double k_survival = 1.0;  // C(m, k) / C(m + n, k)
        for (double i = 0; i < true_k; ++i)
            k_survival *= (static_cast<double>(m) - i) / static_cast<double>(m + n - i);
        const double true_min_p = std::min(
            u_survival(static_cast<double>(m), static_cast<double>(n), true_u), k_survival);
        CHECK(test->p_value >= true_min_p * (1 - 1e-9));
    }
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

namespace {

// The computation before the tables were cached (issue 36 item 3): the whole distribution (built
// per query there, once per size here), summed from u upwards.
std::vector<double> uncached_u_distribution(std::size_t m, std::size_t n) {
    std::vector<std::vector<double>> dist(m + 1);
    for (std::size_t i = 0; i <= m; ++i) dist[i] = {1.0};
    for (std::size_t j = 1; j <= n; ++j) {
        for (std::size_t i = 1; i <= m; ++i) {
            std::vector<double> next(i * j + 1, 0.0);
            const double from_first = static_cast<double>(i) / static_cast<double>(i + j);
            const double from_second = 1.0 - from_first;
            for (std::size_t v = 0; v < dist[i - 1].size(); ++v)
                next[v + j] += from_first * dist[i - 1][v];
            for (std::size_t v = 0; v < dist[i].size(); ++v) next[v] += from_second * dist[i][v];
            dist[i] = std::move(next);
        }
    }
    return std::move(dist[m]);
}

double uncached_tail(const std::vector<double>& distribution, double u) {
    const auto first = static_cast<std::size_t>(std::max(0.0, std::ceil(u)));
    double tail = 0.0;
    for (std::size_t v = first; v < distribution.size(); ++v) tail += distribution[v];
    return std::clamp(tail, 0.0, 1.0);
}

}  // namespace

TEST_CASE("exact U tails are the same doubles as the uncached computation on a grid of sizes",
          "[bench-gate][stats]") {
    for (std::size_t m : {1u, 2u, 3u, 5u, 7u, 10u, 20u, 33u, 100u}) {
        for (std::size_t n : {1u, 2u, 4u, 7u, 8u, 13u, 50u, 100u}) {
            const double pairs = static_cast<double>(m * n);
            const auto distribution = uncached_u_distribution(m, n);
            // Every u for small sizes, a spread of them (both sides of the middle) for large.
            const double step = std::max(1.0, std::floor(pairs / 397));
            for (double u = -1.0; u <= pairs + 1.0; u += step) {
                const double expected = uncached_tail(distribution, u);
                const double got = u_survival(static_cast<double>(m), static_cast<double>(n), u);
                if (got != expected) FAIL("m=" << m << " n=" << n << " u=" << u);
                // A second query hits the cached tail: still the same double.
                CHECK(u_survival(static_cast<double>(m), static_cast<double>(n), u) == expected);
            }
        }
    }
    // mann_whitney_u's exact branch (a side under 8, no ties) reads the same tables.
    const std::vector<double> current = {5.0, 6.5, 7.25, 8.0, 9.5};
    std::vector<double> baseline;
    for (int i = 0; i < 40; ++i) baseline.push_back(4.0 + 0.1 * i + 0.001);
    const auto u = mann_whitney_u(current, baseline, Tail::Greater);
    REQUIRE(u);
    CHECK(u->exact);
    CHECK(u->p_value == uncached_tail(uncached_u_distribution(5, 40), u->u));
}

TEST_CASE("a sweep of 100-round summaries builds the exact U table once, not once per case",
          "[bench-gate][stats]") {
    // Issue 36 item 3: 61 ms of CPU per case went into rebuilding the same (100, 100) table.
    const RoundSummary base{100, 98.0, 100.0, 103.0};
    const std::vector<RoundSummary> baseline = {base};
    (void)summary_u_test(RoundSummary{100, 99.0, 101.0, 104.0}, baseline, Tail::Greater);
    const std::size_t before = detail::exact_u_tables_built();
    std::optional<double> first_p;
    for (int i = 0; i < 200; ++i) {
        const double shift = 0.01 * i;
        const auto test = summary_u_test(RoundSummary{100, 99.0 + shift, 101.0 + shift, 104.0},
                                         baseline, Tail::Greater);
        REQUIRE(test);
        if (!first_p) first_p = test->p_value;
    }
    CHECK(detail::exact_u_tables_built() == before);
    CHECK(first_p ==
          summary_u_test(RoundSummary{100, 99.0, 101.0, 104.0}, baseline, Tail::Greater)->p_value);
}

}  // namespace gate_stats_test
