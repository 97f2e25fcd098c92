#pragma once
/// @file gate_stats.hpp
/// The statistics behind `ptune bench-gate` (spec: conventions.md §1.8): a one-sided
/// Mann–Whitney U test with a Hodges–Lehmann shift for raw samples, the distribution-free
/// "current median above baseline max" bound for summaries, a between-run noise fence on
/// log-ratios for a history of baseline runs, and Holm's step-down correction.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace ptune::bench::gate {

/// Direction of a one-sided test: is the current sample larger (slower) or smaller (faster)?
enum class Tail { Greater, Less };

/// Result of a Mann–Whitney U test of `current` against `baseline`.
struct UTest {
    double u = 0.0;  ///< U statistic of the current sample (pairs current > baseline, ties 1/2)
    double p_value = 1.0;  ///< one-sided p-value in the requested direction
    bool exact = false;    ///< exact null distribution (no ties, a side smaller than 8) or normal
};

/// One-sided Mann–Whitney U test with the conventions of scipy.stats.mannwhitneyu 1.10
/// (method "auto"): the exact distribution when there are no ties and one side has fewer than 8
/// values, otherwise the normal approximation with tie correction and continuity correction.
/// nullopt when a side is empty. All-equal samples give p = 1 (no evidence), never NaN.
std::optional<UTest> mann_whitney_u(std::span<const double> current,
                                    std::span<const double> baseline, Tail tail);

/// Hodges–Lehmann estimate of the shift current − baseline: the median of all pairwise
/// differences. nullopt when a side is empty.
std::optional<double> hodges_lehmann_shift(std::span<const double> current,
                                           std::span<const double> baseline);

/// Probability, under exchangeable rounds (no shift), that the median of `current_count`
/// values lies above the maximum of `baseline_count` values: at least ceil(m/2) current values
/// above every baseline value, C(m,k)/C(m+n,k). Distribution-free; optimistic when rounds
/// within a run are correlated. 1 when a count is zero.
double median_above_max_probability(std::size_t current_count, std::size_t baseline_count);

/// Holm–Bonferroni step-down adjusted p-values, in the input order (each in [0, 1]).
std::vector<double> holm_adjust(std::span<const double> p_values);

/// How the between-run noise fence is computed from the history's log-ratios.
enum class FenceMethod {
    Mad,  ///< median ± k·1.4826·MAD
    Iqr,  ///< Q3 + k·IQR above, Q1 − k·IQR below (rustc-perf uses k = 3)
};

/// A noise band on log(value / reference) learnt from a history of baseline runs.
struct NoiseFence {
    double reference = 0.0;  ///< median of the history values (what the current run is compared to)
    double lower = 0.0;      ///< lower fence on log(current / reference)
    double upper = 0.0;      ///< upper fence on log(current / reference)
};

/// Fits the fence on the log-ratios of each history value to the history median. Needs at
/// least two positive values (callers require five); nullopt otherwise or if any value is <= 0.
/// A history with no spread (MAD or IQR of 0) yields a zero-width band around its centre: the
/// caller's relative threshold is then the only tolerance.
std::optional<NoiseFence> fit_noise_fence(std::span<const double> history, FenceMethod method,
                                          double k);

}  // namespace ptune::bench::gate
