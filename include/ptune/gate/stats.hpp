#pragma once
/// @file stats.hpp
/// The statistics behind `ptune bench-gate` (spec: conventions.md §1.8): a one-sided
/// Mann–Whitney U test with a Hodges–Lehmann shift for raw samples, the distribution-free
/// "current median above baseline max" bound for summaries, a between-run noise fence on
/// log-ratios for a history of baseline runs, and Holm's step-down correction.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace ptune::gate {

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

/// A run known only by its summary line: `rounds` positive values with this min, median, max.
struct RoundSummary {
    double rounds = 0;  ///< a double: a declared count may exceed any integer loop
    double min = 0, median = 0, max = 0;
};

/// The rank tests that summaries alone allow.
struct SummaryUTest {
    double u_bound = 0;  ///< the least U (pairs current > baseline, ties 1/2) the summaries allow
    double k_bound = 0;  ///< the least number of current rounds beyond every baseline round
    double p_value = 1;  ///< exact-or-conservative p of the min-p of U and K (see summary_u_test)
    double best_p = 1;   ///< 1/C(n+m, n): the smallest p rounds of these sizes can ever give
};

/// One-sided rank test on summaries (exchangeable rounds under H0, no distribution assumed).
/// Each side's rounds are placed as far against the tested direction as its n, min, median and
/// max allow (the two middle rounds of an even count relaxed independently), which bounds two
/// statistics from below: the Mann–Whitney U and the exceedance K (current rounds beyond every
/// baseline round; "current median above baseline max" is K >= m/2). The p is that of the
/// smaller of their two p-values, bounded from above through P(U >= u or K >= k): exactly
/// 1/C(n+m, n) at complete separation, at most twice the smaller p otherwise. U is the stronger
/// when whole distributions shift; K when one stray round stretches a minimum. Pooled baseline
/// runs count as one sample. nullopt when a side has no rounds.
std::optional<SummaryUTest> summary_u_test(const RoundSummary& current,
                                           std::span<const RoundSummary> baseline, Tail tail);

/// P(U >= u) for sample sizes m and n without ties: exact for small sizes (m·n up to 10,000;
/// the table built once per (m, n) and process and reused), else the normal approximation with
/// continuity correction.
double u_survival(double m, double n, double u);

namespace detail {
/// How many exact U tables this process has built (each (m, n) once while it stays cached):
/// what keeps a sweep of equal-sized cases from rebuilding one per case.
std::size_t exact_u_tables_built();
}  // namespace detail

/// 1/C(m+n, m), the p of complete separation, computed in logarithms (no overflow).
double separation_p(double m, double n);

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

}  // namespace ptune::gate
