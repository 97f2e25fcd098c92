#pragma once
/// @file gate_synth.hpp
/// Synthetic benchmark runs for testing and benchmarking `ptune bench-gate`: deterministic
/// (fixed seeds, no std:: distributions whose output varies between standard libraries) and
/// written in the daily-CI log shape the bench loader reads (`::group::<case>` sections with a
/// `[RUN]` headline and optional raw-sample lines).

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ptune::gate {

/// How one case behaves in a synthetic run.
struct SynthCase {
    std::string name;
    double base_us = 500.0;    ///< typical effective_us
    double sigma = 0.01;       ///< log-normal spread of the rounds (0.01 ~ 1%)
    double shift_pct = 0.0;    ///< multiplies every round by (1 + shift_pct/100)
    std::size_t outliers = 0;  ///< rounds replaced by slow outliers
    double outlier_factor = 3.0;
};

/// `rounds` per-round samples of `c`, rounded to 0.1 µs (as upstream prints them), from `seed`.
std::vector<double> synth_samples(const SynthCase& c, std::size_t rounds, std::uint64_t seed);

/// Writes one run as a CI-style log: per case a `::group::` section with the `[RUN]` headline
/// (`.1f`, fsum mean, as upstream) and, when `raw`, the raw-sample lines. Case k uses seed
/// `seed + k`.
void write_synth_log(std::ostream& out, const std::vector<SynthCase>& cases, std::size_t rounds,
                     std::uint64_t seed, bool raw);

}  // namespace ptune::gate
