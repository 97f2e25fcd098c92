// E-Divisive means in O(n log n) per scan: moving the split one point to the right changes the
// three distance sums (within left, within right, between) by the distances of that one point to
// each side, which two Fenwick trees over the value ranks give in O(log n). A permutation
// shuffles (value, rank) pairs, so the ranks are computed once per segment.

#include "ptune/history/changepoint.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace ptune::history {

namespace {

// Counts and sums of the values present, indexed by rank.
class Fenwick {
  public:
    explicit Fenwick(std::size_t n) : count_(n + 1, 0), sum_(n + 1, 0.0) {}
    void add(std::size_t rank, double value, int sign) {
        for (std::size_t i = rank + 1; i < count_.size(); i += i & (~i + 1)) {
            count_[i] += sign;
            sum_[i] += sign * value;
        }
    }
    // Count and sum over ranks [0, rank).
    std::pair<double, double> prefix(std::size_t rank) const {
        double count = 0, sum = 0;
        for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) {
            count += count_[i];
            sum += sum_[i];
        }
        return {count, sum};
    }

  private:
    std::vector<int> count_;
    std::vector<double> sum_;
};

// Sum of |value - x| over the x present, the total count and sum being known.
double distance_sum(const Fenwick& tree, std::size_t rank, double value, double count, double sum) {
    const auto [below_count, below_sum] = tree.prefix(rank);
    const double above_count = count - below_count, above_sum = sum - below_sum;
    return value * below_count - below_sum + above_sum - value * above_count;
}

struct Ranked {
    double value;
    std::size_t rank;
};

Split scan(const std::vector<Ranked>& points, std::size_t min_segment) {
    const std::size_t n = points.size();
    Split best;
    if (n < 2 * min_segment || n < 4) return best;
    Fenwick left(n), right(n);
    double right_count = 0, right_sum = 0, left_count = 0, left_sum = 0;
    for (const auto& p : points) {
        right.add(p.rank, p.value, +1);
        right_count += 1;
        right_sum += p.value;
    }
    // Within-right distances of the whole segment, from the values in rank order.
    std::vector<double> sorted(n);
    for (const auto& p : points) sorted[p.rank] = p.value;
    double within_right = 0;
    for (std::size_t k = 0; k < n; ++k)
        within_right += sorted[k] * (2.0 * static_cast<double>(k) - static_cast<double>(n) + 1.0);
    double within_left = 0, between = 0;
    for (std::size_t t = 0; t + 1 < n; ++t) {
        const auto& p = points[t];
        right.add(p.rank, p.value, -1);
        right_count -= 1;
        right_sum -= p.value;
        const double to_right = distance_sum(right, p.rank, p.value, right_count, right_sum);
        const double to_left = distance_sum(left, p.rank, p.value, left_count, left_sum);
        within_right -= to_right;
        within_left += to_left;
        between += to_right - to_left;
        left.add(p.rank, p.value, +1);
        left_count += 1;
        left_sum += p.value;
        const double m = static_cast<double>(t + 1), k = static_cast<double>(n - t - 1);
        if (t + 1 < min_segment || n - t - 1 < min_segment) continue;
        const double energy = 2.0 * between / (m * k) - within_left / (m * (m - 1) / 2.0) -
                              within_right / (k * (k - 1) / 2.0);
        const double q = m * k / (m + k) * energy;
        if (best.index == 0 || q > best.statistic) best = {t + 1, q};
    }
    return best;
}

std::vector<Ranked> rank(std::span<const double> values) {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<Ranked> ranked(values.size());
    for (std::size_t r = 0; r < order.size(); ++r) ranked[order[r]] = {values[order[r]], r};
    return ranked;
}

// splitmix64: a generator whose output is the same with every standard library.
struct Random {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, bound): rejection of the few values that would bias the modulo.
    std::size_t below(std::size_t bound) {
        const std::uint64_t limit = (0 - static_cast<std::uint64_t>(bound)) % bound;
        for (;;) {
            const std::uint64_t r = next();
            if (r >= limit) return static_cast<std::size_t>(r % bound);
        }
    }
};

// The permutation p of a segment's best split, stopping as soon as p cannot reach alpha.
double permutation_p(std::vector<Ranked> points, double observed, const DetectOptions& options,
                     std::uint64_t seed) {
    Random random{seed};
    std::size_t at_least = 0;
    const double limit = options.alpha * static_cast<double>(options.permutations + 1);
    for (std::size_t i = 1; i <= options.permutations; ++i) {
        for (std::size_t j = points.size() - 1; j > 0; --j)
            std::swap(points[j], points[random.below(j + 1)]);
        if (scan(points, options.min_segment).statistic >= observed) ++at_least;
        if (static_cast<double>(at_least + 1) > limit) {
            return static_cast<double>(at_least + 1) / static_cast<double>(i + 1);
        }
    }
    return static_cast<double>(at_least + 1) / static_cast<double>(options.permutations + 1);
}

void search(std::span<const double> values, std::size_t offset, const DetectOptions& options,
            std::vector<ChangePoint>& out) {
    const auto ranked = rank(values);
    const Split split = scan(ranked, options.min_segment);
    if (split.index == 0 || !(split.statistic > 0)) return;
    // The seed depends on where the segment is, not on how the search reached it.
    const std::uint64_t seed = options.seed * 0x100000001b3ull ^ (offset << 32) ^ values.size();
    const double p = permutation_p(ranked, split.statistic, options, seed);
    if (p > options.alpha) return;
    search(values.subspan(0, split.index), offset, options, out);
    out.push_back({offset + split.index, p, split.statistic});
    search(values.subspan(split.index), offset + split.index, options, out);
}

}  // namespace

std::string DetectOptions::key() const {
    return fmt::format("ed1:a={}:n={}:m={}:s={}", alpha, permutations, min_segment, seed);
}

Split best_split(std::span<const double> values, std::size_t min_segment) {
    return scan(rank(values), std::max<std::size_t>(min_segment, 2));
}

std::vector<ChangePoint> e_divisive(std::span<const double> values, const DetectOptions& options,
                                    std::size_t offset) {
    std::vector<ChangePoint> out;
    DetectOptions checked = options;
    checked.min_segment = std::max<std::size_t>(options.min_segment, 2);
    search(values, offset, checked, out);
    return out;
}

std::vector<ChangePoint> e_divisive_incremental(std::span<const double> values,
                                                const std::vector<ChangePoint>& previous,
                                                const DetectOptions& options) {
    std::vector<ChangePoint> out;
    for (const auto& point : previous)
        if (point.index < values.size()) out.push_back(point);
    const std::size_t from = out.empty() ? 0 : out.back().index;
    auto tail = e_divisive(values.subspan(from), options, from);
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

}  // namespace ptune::history
