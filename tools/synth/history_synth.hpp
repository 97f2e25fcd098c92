#pragma once
/// @file history_synth.hpp
/// Synthetic performance histories for `ptune history` tests and benchmarks: per case a base
/// effective_us, run-to-run noise (uniform in ±noise_pct, what "drifts ±8 %" means here) and an
/// optional step from one run on. Deterministic (SplitMix64, no std:: distributions); each run
/// is written in the CI log shape of gate_synth.hpp.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ptune::history::synth {

/// How one case behaves across runs.
struct CaseSpec {
    std::string name;
    double base_us = 500.0;
    double noise_pct = 0.5;    ///< run-to-run noise: uniform in [-noise_pct, +noise_pct] %
    std::size_t step_run = 0;  ///< first run (1-based) of the step; 0 = no step
    double step_pct = 0.0;     ///< the step's size in %
};

/// The multiplier of case `c` (index `k` in its suite) in run `run` (1-based): step and noise.
double run_factor(const CaseSpec& c, std::size_t k, std::size_t run, std::uint64_t seed);

/// effective_us of `runs` runs of `c` (the run-level numbers, no rounds).
std::vector<double> series(const CaseSpec& c, std::size_t k, std::size_t runs, std::uint64_t seed);

/// Writes run `run` of the suite as a CI log (`rounds` rounds of 0.5 % spread per case, raw
/// sample lines when `raw`). `extra_pct[k]` (when given) multiplies case k by (1 + x/100) and
/// drops its run noise: a current run exactly x % above the case's level.
void write_run(std::ostream& out, const std::vector<CaseSpec>& cases, std::size_t run,
               std::size_t rounds, std::uint64_t seed, bool raw,
               const std::vector<double>& extra_pct = {});

}  // namespace ptune::history::synth
