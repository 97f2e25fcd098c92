// Statistics of bench-gate. The U test follows scipy.stats.mannwhitneyu 1.10 so that its
// p-values can be checked against a reference implementation.

#include "ptune/gate/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>

#include "ptune/core/stats.hpp"

namespace ptune::gate {

namespace {

// scipy switches to the normal approximation when both sides have 8 or more values.
constexpr std::size_t kExactSmallSide = 8;
// Keeps the exact null distribution cheap: O(small² · large²) work in the worst case.
constexpr std::size_t kExactLargeSide = 1000;
// Pairwise differences beyond this many use evenly spaced order statistics of each side.
constexpr std::size_t kMaxPairs = 4'000'000;
constexpr double kMadToSigma = 1.4826;

double normal_survival(double z) {
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// The null distribution of U for sizes (m, n) without ties, P(U = u) for u = 0..m·n, through
// the recursion on the largest value: it belongs to the first sample with probability m/(m+n)
// and then beats all n others.
std::vector<double> exact_u_distribution(std::size_t m, std::size_t n) {
    // dist[i] holds the distribution of U for sizes (i, current column), i = 0..m.
    std::vector<std::vector<double>> dist(m + 1);
    for (std::size_t i = 0; i <= m; ++i) dist[i] = {1.0};  // column 0: U = 0 surely
    for (std::size_t j = 1; j <= n; ++j) {
        // dist[0] stays {1}: with no first-sample values U = 0.
        for (std::size_t i = 1; i <= m; ++i) {
            std::vector<double> next(i * j + 1, 0.0);
            const double from_first = static_cast<double>(i) / static_cast<double>(i + j);
            const double from_second = 1.0 - from_first;
            const auto& take_first = dist[i - 1];  // already column j: (i-1, j)
            for (std::size_t v = 0; v < take_first.size(); ++v)
                next[v + j] += from_first * take_first[v];
            const auto& take_second = dist[i];  // still column j-1: (i, j-1)
            for (std::size_t v = 0; v < take_second.size(); ++v)
                next[v] += from_second * take_second[v];
            dist[i] = std::move(next);
        }
    }
    return std::move(dist[m]);
}

// P(U >= u) from a distribution of exact_u_distribution().
double tail_from(const std::vector<double>& distribution, double u) {
    const auto first = static_cast<std::size_t>(std::max(0.0, std::ceil(u)));
    double tail = 0.0;
    for (std::size_t v = first; v < distribution.size(); ++v) tail += distribution[v];
    return std::clamp(tail, 0.0, 1.0);
}

// The exact null distribution of U for sizes (m, n) and its tails, built once per (m, n) and
// process: every case of a sweep has the same rounds, and building the table is the cost (100
// rounds a side: ~60 ms, where a tail from it takes microseconds). Each tail is summed once, in
// the order tail_from() sums it, so every p is the same double as without the cache.
class ExactUTable {
  public:
    ExactUTable(std::size_t m, std::size_t n)
        : distribution_(exact_u_distribution(m, n)),
          tails_(distribution_.size() + 1, std::numeric_limits<double>::quiet_NaN()) {}

    double survival(double u) {
        const auto first = static_cast<std::size_t>(std::max(0.0, std::ceil(u)));
        if (first >= distribution_.size()) return 0.0;
        double& tail = tails_[first];
        if (std::isnan(tail)) tail = tail_from(distribution_, u);
        return tail;
    }

  private:
    std::vector<double> distribution_;
    std::vector<double> tails_;  // NaN until asked
};

// At most this many tables are kept (each at most (m·n + 1) · 16 bytes, 160 KB at 100 × 100).
constexpr std::size_t kMaxExactUTables = 32;

std::mutex exact_u_mutex;
std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<ExactUTable>> exact_u_tables;
std::size_t exact_u_builds = 0;

double exact_u_survival(std::size_t m, std::size_t n, double u) {
    const std::lock_guard<std::mutex> lock(exact_u_mutex);
    auto it = exact_u_tables.find({m, n});
    if (it == exact_u_tables.end()) {
        if (exact_u_tables.size() >= kMaxExactUTables) exact_u_tables.clear();  // many sizes
        it = exact_u_tables.emplace(std::pair{m, n}, std::make_unique<ExactUTable>(m, n)).first;
        ++exact_u_builds;
    }
    return it->second->survival(u);
}

// Evenly spaced order statistics, so that a huge sample keeps its shape in `count` values.
std::vector<double> thin_sorted(std::vector<double> values, std::size_t count) {
    std::sort(values.begin(), values.end());
    if (values.size() <= count) return values;
    std::vector<double> thinned(count);
    for (std::size_t i = 0; i < count; ++i) {
        thinned[i] = values[(i * (values.size() - 1)) / (count - 1)];
    }
    return thinned;
}

}  // namespace

std::optional<UTest> mann_whitney_u(std::span<const double> current,
                                    std::span<const double> baseline, Tail tail) {
    const std::size_t n1 = current.size();
    const std::size_t n2 = baseline.size();
    if (n1 == 0 || n2 == 0) return std::nullopt;

    // Mid-ranks of the pooled sample; tie groups feed the variance correction.
    struct Tagged {
        double value;
        bool is_current;
    };
    std::vector<Tagged> pooled;
    pooled.reserve(n1 + n2);
    for (double v : current) pooled.push_back({v, true});
    for (double v : baseline) pooled.push_back({v, false});
    std::sort(pooled.begin(), pooled.end(),
              [](const Tagged& a, const Tagged& b) { return a.value < b.value; });
    double rank_sum_current = 0.0;
    double tie_term = 0.0;
    bool has_ties = false;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        while (j < pooled.size() && pooled[j].value == pooled[i].value) ++j;
        const double group = static_cast<double>(j - i);
        const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k) {
            if (pooled[k].is_current) rank_sum_current += mid_rank;
        }
        if (j - i > 1) {
            has_ties = true;
            tie_term += group * group * group - group;
        }
        i = j;
    }
    const double d1 = static_cast<double>(n1);
    const double d2 = static_cast<double>(n2);
    UTest result;
    result.u = rank_sum_current - d1 * (d1 + 1.0) / 2.0;
    // The tested statistic: U of the current side for "greater", of the baseline for "less".
    const double tested = tail == Tail::Greater ? result.u : d1 * d2 - result.u;

    const std::size_t small = std::min(n1, n2);
    const std::size_t large = std::max(n1, n2);
    if (!has_ties && small < kExactSmallSide && large <= kExactLargeSide) {
        result.exact = true;
        result.p_value = exact_u_survival(small, large, tested);
        return result;
    }
    const double n = d1 + d2;
    const double variance = d1 * d2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if (!(variance > 0.0)) {
        result.p_value = 1.0;  // every value equal: no evidence of a shift either way
        return result;
    }
    const double z = (tested - d1 * d2 / 2.0 - 0.5) / std::sqrt(variance);
    result.p_value = std::clamp(normal_survival(z), 0.0, 1.0);
    return result;
}

std::optional<double> hodges_lehmann_shift(std::span<const double> current,
                                           std::span<const double> baseline) {
    if (current.empty() || baseline.empty()) return std::nullopt;
    std::vector<double> a(current.begin(), current.end());
    std::vector<double> b(baseline.begin(), baseline.end());
    if (a.size() * b.size() > kMaxPairs) {
        const auto side = static_cast<std::size_t>(std::sqrt(static_cast<double>(kMaxPairs)));
        a = thin_sorted(std::move(a), side);
        b = thin_sorted(std::move(b), side);
    }
    std::vector<double> differences;
    differences.reserve(a.size() * b.size());
    for (double x : a) {
        for (double y : b) differences.push_back(x - y);
    }
    // Linear-time selection: the pairwise differences are the big part of a gate run.
    const std::size_t half = differences.size() / 2;
    std::nth_element(differences.begin(), differences.begin() + static_cast<long>(half),
                     differences.end());
    const double upper = differences[half];
    if (differences.size() % 2 == 1) return upper;
    const double lower =
        *std::max_element(differences.begin(), differences.begin() + static_cast<long>(half));
    return (lower + upper) / 2.0;
}

namespace {

// A side's rounds as (value, count) runs: as high as the summary allows, or as low. The order
// statistics x(1) = min and x(n) = max are known; x(2..ceil(n/2)) lie in [min, median] and the
// rest in [median, max] (an even count's two middle rounds average to the median, a coupling
// dropped here, which only moves U further against the test).
std::array<std::pair<double, double>, 3> placed(const RoundSummary& side, bool high) {
    const double n = side.rounds;
    const double half = std::floor(n / 2.0);
    if (high) return {{{side.min, 1.0}, {side.median, n - 1.0 - half}, {side.max, half}}};
    return {{{side.min, half}, {side.median, n - 1.0 - half}, {side.max, 1.0}}};
}

constexpr double kExactPairs = 10'000.0;

// P(U >= u) for sizes (m, n) without ties, the exact table computed once for repeated queries.
class USurvival {
  public:
    USurvival(double m, double n) : m_(m), n_(n), exact_(m * n <= kExactPairs) {}
    double operator()(double u) const {
        if (exact_)
            return exact_u_survival(static_cast<std::size_t>(m_), static_cast<std::size_t>(n_), u);
        const double variance = m_ * n_ * (m_ + n_ + 1.0) / 12.0;
        return std::clamp(normal_survival((u - m_ * n_ / 2.0 - 0.5) / std::sqrt(variance)), 0.0,
                          1.0);
    }

  private:
    double m_, n_;
    bool exact_;  ///< the exact table (exact_u_survival), else the normal approximation
};

// P(K >= k): the k largest of m + n exchangeable values all from the first sample,
// C(m, k) / C(m + n, k), in logarithms.
double exceedance_survival(double m, double n, double k) {
    if (k <= 0.0) return 1.0;
    if (k > m) return 0.0;
    return std::exp(std::lgamma(m + 1.0) - std::lgamma(m - k + 1.0) - std::lgamma(m + n + 1.0) +
                    std::lgamma(m + n - k + 1.0));
}

// The least threshold t in [0, hi] with survival(t) <= q (survival non-increasing), by
// bisection on whole numbers; hi + 1 when even hi is above q. Beyond 2^53 whole numbers are no
// longer all doubles, so the search stops when the interval no longer shrinks: hi stays a
// threshold that satisfies the bound, which is what the callers need.
template <typename Survival>
double least_threshold(const Survival& survival, double hi, double q) {
    if (survival(hi) > q) return hi + 1.0;
    double lo = 0.0;  // invariant: survival(hi) <= q, and every t < lo has survival(t) > q
    while (lo < hi) {
        const double mid = std::floor(lo + (hi - lo) / 2.0);
        if (mid <= lo && mid >= hi) break;
        if (survival(mid) <= q) {
            if (mid >= hi) break;
            hi = mid;
        } else {
            if (mid + 1.0 <= lo) break;
            lo = mid + 1.0;
        }
    }
    return hi;
}

}  // namespace

std::size_t detail::exact_u_tables_built() {
    const std::lock_guard<std::mutex> lock(exact_u_mutex);
    return exact_u_builds;
}

double separation_p(double m, double n) {
    return std::exp(std::lgamma(m + 1.0) + std::lgamma(n + 1.0) - std::lgamma(m + n + 1.0));
}

double u_survival(double m, double n, double u) {
    return USurvival(m, n)(u);
}

std::optional<SummaryUTest> summary_u_test(const RoundSummary& current,
                                           std::span<const RoundSummary> baseline, Tail tail) {
    double n = 0;
    for (const auto& run : baseline) n += run.rounds;
    const double m = current.rounds;
    if (!(m >= 1.0) || !(n >= 1.0)) return std::nullopt;
    const bool greater = tail == Tail::Greater;
    const auto beats = [&](double c, double b) { return greater ? c > b : c < b; };
    // For "greater" the current rounds go as low and the baseline's as high as allowed.
    const auto cur = placed(current, !greater);
    double base_extreme = greater ? baseline.front().max : baseline.front().min;
    SummaryUTest test;
    for (const auto& run : baseline) {
        base_extreme = greater ? std::max(base_extreme, run.max) : std::min(base_extreme, run.min);
        for (const auto& [b, b_count] : placed(run, greater)) {
            for (const auto& [c, c_count] : cur) {
                test.u_bound += c_count * b_count * (beats(c, b) ? 1.0 : c == b ? 0.5 : 0.0);
            }
        }
    }
    for (const auto& [c, c_count] : cur) {
        if (beats(c, base_extreme)) test.k_bound += c_count;
    }
    const USurvival u_survival_of(m, n);
    const auto k_survival = [&](double k) { return exceedance_survival(m, n, k); };
    const double q = std::min(u_survival_of(test.u_bound), k_survival(test.k_bound));
    // The min-p of the two statistics: P(U >= u_q or K >= k_q). K current rounds above every
    // baseline round make U >= K·n, so when k_q·n >= u_q the K event lies inside the U event.
    const double u_q = least_threshold(u_survival_of, m * n, q);
    const double k_q = least_threshold(k_survival, m, q);
    test.p_value = std::min(1.0, u_survival_of(u_q) + (k_q * n >= u_q ? 0.0 : k_survival(k_q)));
    test.best_p = separation_p(m, n);
    return test;
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
    const std::size_t m = p_values.size();
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
    std::vector<double> adjusted(m, 1.0);
    double running_max = 0.0;
    for (std::size_t rank = 0; rank < m; ++rank) {
        const double scaled = std::min(1.0, static_cast<double>(m - rank) * p_values[order[rank]]);
        running_max = std::max(running_max, scaled);
        adjusted[order[rank]] = running_max;
    }
    return adjusted;
}

std::optional<NoiseFence> fit_noise_fence(std::span<const double> history, FenceMethod method,
                                          double k) {
    if (history.size() < 2) return std::nullopt;
    if (std::any_of(history.begin(), history.end(), [](double v) { return !(v > 0.0); })) {
        return std::nullopt;
    }
    NoiseFence fence;
    fence.reference = *stats::median(std::vector<double>(history.begin(), history.end()));
    std::vector<double> log_ratios;
    log_ratios.reserve(history.size());
    for (double v : history) log_ratios.push_back(std::log(v / fence.reference));
    if (method == FenceMethod::Mad) {
        const double centre = *stats::median(log_ratios);
        const double spread = kMadToSigma * *stats::mad(log_ratios);
        fence.lower = centre - k * spread;
        fence.upper = centre + k * spread;
    } else {
        const double q1 = *stats::quantile(log_ratios, 0.25);
        const double q3 = *stats::quantile(log_ratios, 0.75);
        fence.lower = q1 - k * (q3 - q1);
        fence.upper = q3 + k * (q3 - q1);
    }
    return fence;
}

}  // namespace ptune::gate
