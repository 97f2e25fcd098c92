#pragma once
/// @file stats.hpp
/// Exact statistics: an exactly rounded sum (like Python's math.fsum), order statistics and
/// the half-even decimal formatting the upstream reporters use.

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ptune::stats {

/// Exactly rounded sum of the values (Shewchuk's algorithm, as Python's math.fsum).
double fsum(std::span<const double> values);
/// fsum(values) / n, nullopt for an empty span.
std::optional<double> mean(std::span<const double> values);
/// Median of the values (average of the middle two for an even count, as Python's
/// statistics.median); nullopt when empty.
std::optional<double> median(std::vector<double> values);
/// Linear-interpolation quantile (numpy's default, `q` in [0,1]); nullopt when empty.
std::optional<double> quantile(std::vector<double> values, double q);
/// Sample standard deviation (n − 1 in the denominator, as Python's statistics.stdev and
/// hyperfine's σ); nullopt for fewer than two values.
std::optional<double> stdev(std::span<const double> values);
/// Median absolute deviation (unscaled).
std::optional<double> mad(std::vector<double> values);
/// Geometric mean of positive values; nullopt if empty or any value is <= 0.
std::optional<double> geomean(std::span<const double> values);

/// Formats the exact binary value with `precision` decimals, ties rounded half-to-even
/// (what C printf and Python's format(x, ".1f") do).
std::string format_fixed(double value, int precision);
/// A 0..1 ratio as text output prints every ratio: `77.7%` (percent, no blank).
std::string format_ratio(double fraction, int precision = 1);
/// A signed change given in percent, as every table's change/delta column prints it: `+7.2%`,
/// `-1.1%`; a change that rounds to zero is `+0.0%`, never `-0.0%`.
std::string format_signed_percent(double percent, int precision = 1);

}  // namespace ptune::stats
