// E-Divisive means (ptune/history/changepoint.hpp): the statistic against a direct O(n^3)
// computation, the 60-run scenario, determinism and the incremental form.

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "history_synth.hpp"
#include "ptune/history/changepoint.hpp"

namespace history_changepoint_test {

using namespace ptune::history;

namespace {

std::vector<double> logs(const std::vector<double>& values) {
    std::vector<double> out;
    for (double v : values) out.push_back(std::log(v));
    return out;
}

// q̂(τ) straight from Matteson & James' definition (alpha = 1).
double naive_q(const std::vector<double>& x, std::size_t tau) {
    const std::size_t n = x.size();
    double between = 0, left = 0, right = 0;
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t j = tau; j < n; ++j) between += std::fabs(x[i] - x[j]);
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t j = i + 1; j < tau; ++j) left += std::fabs(x[i] - x[j]);
    for (std::size_t i = tau; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) right += std::fabs(x[i] - x[j]);
    const double m = static_cast<double>(tau), k = static_cast<double>(n - tau);
    const double e = 2 * between / (m * k) - left / (m * (m - 1) / 2) - right / (k * (k - 1) / 2);
    return m * k / (m + k) * e;
}

synth::CaseSpec stepping() {
    synth::CaseSpec c;
    c.name = "prefill_fwd";
    c.base_us = 1200.0;
    c.noise_pct = 1.0;
    c.step_run = 40;
    c.step_pct = 7.0;
    return c;
}

synth::CaseSpec noisy() {
    synth::CaseSpec c;
    c.name = "decode_fwd";
    c.base_us = 300.0;
    c.noise_pct = 8.0;
    return c;
}

}  // namespace

TEST_CASE("best_split maximises the E-Divisive statistic", "[history][changepoint]") {
    // Noisy values with ties and a mild shift: the Fenwick scan must equal the direct sums.
    std::vector<double> x = synth::series(noisy(), 0, 37, 5);
    for (std::size_t i = 20; i < x.size(); ++i) x[i] *= 1.03;
    x[3] = x[4];  // a tie
    x = logs(x);
    const std::size_t min_segment = 3;
    std::size_t best = 0;
    double best_q = 0;
    for (std::size_t tau = min_segment; tau + min_segment <= x.size(); ++tau) {
        const double q = naive_q(x, tau);
        if (best == 0 || q > best_q) best = tau, best_q = q;
    }
    const auto split = best_split(x, min_segment);
    CHECK(split.index == best);
    CHECK(split.statistic == Approx(best_q).epsilon(1e-9));
}

TEST_CASE("a +7 % step at run 40 is found, +-8 % noise is not", "[history][changepoint]") {
    const DetectOptions options;
    for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        const auto step = e_divisive(logs(synth::series(stepping(), 0, 60, seed)), options);
        REQUIRE(step.size() == 1);
        // Index 39 is run 40, the first slower run.
        CHECK(step[0].index >= 38);
        CHECK(step[0].index <= 40);
        CHECK(step[0].p_value <= options.alpha);
        CHECK(e_divisive(logs(synth::series(noisy(), 1, 60, seed)), options).empty());
    }
}

TEST_CASE("change points are deterministic and need enough points", "[history][changepoint]") {
    const auto x = logs(synth::series(stepping(), 0, 60, 9));
    const auto a = e_divisive(x, {});
    const auto b = e_divisive(x, {});
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].index == b[i].index);
        CHECK(a[i].p_value == b[i].p_value);
    }
    CHECK(e_divisive(std::vector<double>(40, 1.0), {}).empty());           // flat
    CHECK(e_divisive(std::vector<double>{1, 1, 1, 2, 2, 2}, {}).empty());  // < 2 segments of 5
    // One slow outlier is noise, not a change of level.
    auto outlier = logs(synth::series(noisy(), 2, 50, 3));
    outlier[25] += std::log(3.0);
    CHECK(e_divisive(outlier, {}).empty());
}

TEST_CASE("two steps are both found", "[history][changepoint]") {
    auto values = synth::series(stepping(), 0, 90, 11);
    for (std::size_t i = 70; i < values.size(); ++i) values[i] *= 0.9;  // improvement at run 71
    const auto points = e_divisive(logs(values), {});
    REQUIRE(points.size() == 2);
    CHECK(points[0].index == Approx(39).margin(1));
    CHECK(points[1].index == Approx(70).margin(1));
}

TEST_CASE("incremental analysis keeps old change points and equals the full one here",
          "[history][changepoint]") {
    const auto all = logs(synth::series(stepping(), 0, 60, 21));
    const std::vector<double> first(all.begin(), all.begin() + 50);
    const auto before = e_divisive(first, {});
    REQUIRE(before.size() == 1);
    const auto incremental = e_divisive_incremental(all, before, {});
    const auto full = e_divisive(all, {});
    REQUIRE(incremental.size() == full.size());
    for (std::size_t i = 0; i < full.size(); ++i) CHECK(incremental[i].index == full[i].index);
    // A later step after the kept one is found in the tail alone.
    auto longer = synth::series(stepping(), 0, 100, 21);
    for (std::size_t i = 80; i < longer.size(); ++i) longer[i] *= 1.1;
    const auto grown = e_divisive_incremental(logs(longer), before, {});
    REQUIRE(grown.size() == 2);
    CHECK(grown[0].index == before[0].index);
    CHECK(grown[1].index == Approx(80).margin(1));
}

TEST_CASE("the options key names every parameter", "[history][changepoint]") {
    DetectOptions options;
    options.alpha = 0.05;
    options.seed = 7;
    CHECK(options.key() == "ed1:a=0.05:n=199:m=5:s=7");
}

}  // namespace history_changepoint_test
