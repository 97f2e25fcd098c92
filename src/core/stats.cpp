#include "ptune/core/stats.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <fmt/format.h>

namespace ptune::stats {

// CPython's math.fsum: Shewchuk's partials, then the correction that makes the final rounding
// exact (half-even) when the remaining partials straddle a tie.
double fsum(std::span<const double> values) {
    std::vector<double> partials;
    for (double x : values) {
        std::size_t i = 0;
        for (double y : partials) {
            if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
            double hi = x + y;
            double lo = y - (hi - x);
            if (lo != 0.0) partials[i++] = lo;
            x = hi;
        }
        partials.resize(i);
        partials.push_back(x);
    }
    if (partials.empty()) return 0.0;
    std::size_t n = partials.size();
    double hi = partials[--n];
    double lo = 0.0;
    while (n > 0) {
        double x = hi;
        double y = partials[--n];
        hi = x + y;
        double yr = hi - x;
        lo = y - yr;
        if (lo != 0.0) break;
    }
    if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
        double y = lo * 2.0;
        double x = hi + y;
        double yr = x - hi;
        if (y == yr) hi = x;
    }
    return hi;
}

std::optional<double> mean(std::span<const double> values) {
    if (values.empty()) return std::nullopt;
    return fsum(values) / static_cast<double>(values.size());
}

namespace {

/// The k-th and (k+1)-th smallest of `values` (the latter clamped to the last), as a full sort
/// would place them, in linear time: a selection, then the least of what lies above the k-th
/// (swimlane-analyze takes three quantiles of every kernel's time, 200,000 of them and more).
std::pair<double, double> order_statistic_pair(std::vector<double>& values, std::size_t k) {
    const auto kth = values.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(values.begin(), kth, values.end());
    if (k + 1 >= values.size()) return {*kth, *kth};
    return {*kth, *std::min_element(kth + 1, values.end())};
}

}  // namespace

std::optional<double> median(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::size_t n = values.size();
    if (n % 2 == 1) {
        std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n / 2),
                         values.end());
        return values[n / 2];
    }
    auto [low, high] = order_statistic_pair(values, n / 2 - 1);
    return (low + high) / 2.0;
}

std::optional<double> quantile(std::vector<double> values, double q) {
    if (values.empty()) return std::nullopt;
    q = std::clamp(q, 0.0, 1.0);
    double position = q * static_cast<double>(values.size() - 1);
    auto lower = static_cast<std::size_t>(std::floor(position));
    double fraction = position - static_cast<double>(lower);
    auto [low, high] = order_statistic_pair(values, lower);
    return low + (high - low) * fraction;
}

std::optional<double> stdev(std::span<const double> values) {
    if (values.size() < 2) return std::nullopt;
    double centre = fsum(values) / static_cast<double>(values.size());
    std::vector<double> squares;
    squares.reserve(values.size());
    for (double v : values) squares.push_back((v - centre) * (v - centre));
    return std::sqrt(fsum(squares) / static_cast<double>(values.size() - 1));
}

std::optional<double> mad(std::vector<double> values) {
    auto center = median(values);
    if (!center) return std::nullopt;
    for (double& v : values) v = std::fabs(v - *center);
    return median(std::move(values));
}

std::optional<double> geomean(std::span<const double> values) {
    if (values.empty()) return std::nullopt;
    std::vector<double> logs;
    logs.reserve(values.size());
    for (double v : values) {
        if (!(v > 0.0)) return std::nullopt;
        logs.push_back(std::log(v));
    }
    return std::exp(fsum(logs) / static_cast<double>(logs.size()));
}

std::string format_ratio(double fraction, int precision) {
    return format_fixed(fraction * 100.0, precision) + "%";
}

std::string format_signed_percent(double percent, int precision) {
    std::string text = format_fixed(percent, precision);
    if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos)
        text.erase(0, 1);  // -0.0: a change too small to have a direction
    return (text.front() == '-' ? text : "+" + text) + "%";
}

namespace {

// printf's "%.*f" of a finite |value| < 1e12 with precision <= 3 (what tables print), computed
// exactly: value is m * 2^e, so value * 10^p rounded half to even is (m * 10^p) >> -e rounded on
// the bits shifted out (m * 10^p < 2^63). About a third of the work of std::to_chars, which
// handles every value. False (nothing written) outside that range.
bool small_fixed(double value, int precision, std::string& text) {
    static constexpr std::uint64_t kPow10[] = {1, 10, 100, 1000};
    if (precision < 0 || precision > 3 || !(std::fabs(value) < 1e12)) return false;
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    int exponent = -1074;  // subnormal
    if (biased != 0) {
        mantissa |= std::uint64_t{1} << 52;
        exponent = biased - 1075;
    }
    if (exponent >= 0) return false;  // value >= 2^52: not in range (kept for clarity)
    const std::uint64_t scaled = mantissa * kPow10[precision];  // < 2^63
    std::uint64_t n = 0;                                        // value * 10^p, rounded: < 1e15
    if (exponent > -64) {
        const int shift = -exponent;
        n = scaled >> shift;
        const std::uint64_t rest = scaled - (n << shift);
        const std::uint64_t half = std::uint64_t{1} << (shift - 1);
        if (rest > half || (rest == half && (n & 1) != 0)) ++n;
    }  // else scaled < 2^63 <= half: rounds to 0
    char digits[32];
    char* end = digits + sizeof digits;
    char* p = end;
    for (int i = 0; i < precision; ++i, n /= 10) *--p = static_cast<char>('0' + n % 10);
    if (precision > 0) *--p = '.';
    do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0);
    if (std::signbit(value)) *--p = '-';  // printf keeps the sign of -0.0 and of -0.01 -> "-0.0"
    text.assign(p, end);
    return true;
}

}  // namespace

std::string format_fixed(double value, int precision) {
    // Table numbers (small_fixed), else std::to_chars (fixed, with a precision), specified as
    // printf's "%.*f": the exact binary value, ties to even, like Python; to_chars is twice as
    // fast as fmt's "{:.{}f}" (no format string to parse). NaN keeps printf's spelling
    // ("-nan" for a negative NaN); a value whose digits exceed the buffer (above ~1e60) goes
    // through fmt, which agrees with printf too.
    if (std::isnan(value)) {
        char buffer[16];
        int n = std::snprintf(buffer, sizeof buffer, "%.*f", precision, value);
        return n < 0 ? "nan" : std::string(buffer, static_cast<std::size_t>(n));
    }
    if (precision < 0) precision = 6;  // printf's default
    if (std::string text; small_fixed(value, precision, text)) return text;
    char buffer[96];
    auto [end, error] =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, precision);
    if (error == std::errc()) return std::string(buffer, end);
    return fmt::format("{:.{}f}", value, precision);
}

}  // namespace ptune::stats
