#pragma once
/// @file observation.hpp
/// A bench case's headline as plain numbers: the statistic daily CI quotes (min, median, mean,
/// max, rounds) and the per-round samples behind it. bench-gate compares observations and
/// `history add` records them; both read a case through observe().

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"

namespace ptune::bench {

/// The per-case statistic a gate compares.
enum class Metric { Mean, Median, Min };
std::string_view to_string(Metric metric);
std::optional<Metric> parse_metric(std::string_view text);

/// One case's numbers in one run (µs).
struct Observation {
    std::string source;                            ///< "file:line" for messages
    std::optional<double> min, median, mean, max;  ///< a results.tsv row has only the mean
    std::size_t rounds = 0;       ///< positive samples behind the summary; 0 when unknown
    std::vector<double> samples;  ///< per-round raw samples (positive), empty when not printed
    std::optional<std::size_t> declared_rounds;  ///< configured rounds, when the input says
    std::string platform;                        ///< e.g. "a2a3"; empty when unknown
    std::string unavailable;  ///< why the run has no number (empty when it has one)
    /// A CI report's value of many rounds whose spread it does not give (a report.md cell):
    /// the gate cannot test it, so a change beyond the tolerance is `underpowered`.
    bool value_only_report = false;
    /// The block's headline_is_median (bench::BenchBlock).
    bool headline_is_median = false;

    /// The chosen statistic, nullopt when the run does not carry it.
    std::optional<double> value(Metric metric) const;
};

/// The per-round headline samples behind a block's raw lines, positive values only (as the
/// headline drops zeros): L2 and the flatten fallback pool every value; L3 sums each rank's
/// dispatches per round and takes the slowest rank. Empty when the rounds cannot be aligned.
std::vector<double> headline_samples(const RawSamples& raw);

/// The platform a daily-CI artifact path names (`.../results-a2a3/results.tsv` -> "a2a3"),
/// empty when the path does not say.
std::string platform_from_path(const std::string& path);

/// The gate's view of a case's CI block (the number daily CI quotes). Raw samples that do not
/// reproduce the headline's round count are dropped with a warning, so a test never runs on
/// samples that disagree with the summary.
Observation observe(const BenchCase& bench_case, Diagnostics& diagnostics);

}  // namespace ptune::bench
