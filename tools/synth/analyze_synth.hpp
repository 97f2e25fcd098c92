#pragma once
/// @file analyze_synth.hpp
/// Synthetic swimlane captures that show one schedule symptom each (tuning guide Part 1), for
/// the swimlane-analyze tests and benchmark. A small deterministic simulator places every block
/// on a core and every dispatch/complete on the AICPU scheduler thread that owns the core, then
/// writes the files the runtime writes: `chip_swimlane_records.json` (current raw-cycle format,
/// level 3, a2a3 50 MHz, swimlane.md §2), a one-line `deps.json` (§3) and a name map (§4.1).

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::swimlane::synth {

/// The symptom a capture shows.
enum class Scenario {
    SmallKernels,     ///< thousands of ~2 µs kernels, the AICPU scheduler saturated
    LongTail,         ///< parallel work, then one 5000 µs kernel alone at the end
    SerialChain,      ///< a 400-task dependency chain
    DispatchTrail,    ///< 48 same-function single-block tasks dispatched in a staircase
    CubeVectorSplit,  ///< 120 cube kernels, each followed by a one-to-one vector epilogue
    Healthy,          ///< ~80 µs SPMD kernels filling every core, stage after stage
    /// One rank of a MoE layer (L3 trees): gate_topk → expert_gemm (SPMD cube) → combine (SPMD
    /// vector) per stage, each stage after the one before; Options::tasks and slow_factor apply.
    Moe,
    /// Mixed SPMD kernels (one cube and one vector kernel per block, block_num 16) chained by
    /// deps.json edges between blocks, for the arrows of `swimlane-merge --flows`.
    SpmdMix,
};

/// All scenarios, in the order above.
const std::vector<Scenario>& all_scenarios();
/// "small-kernels", "long-tail", "serial-chain", "dispatch-trail", "cube-vector-split", "healthy".
std::string_view to_string(Scenario scenario);
std::optional<Scenario> parse_scenario(std::string_view name);

/// What to generate.
struct Options {
    Scenario scenario = Scenario::Healthy;
    std::uint64_t seed = 1;  ///< kernel-duration jitter (mt19937_64, identical on every platform)
    /// Multiplies the number of tasks (1 = the sizes above); the benchmark uses large values.
    std::size_t scale = 1;
    /// Moe: the number of tasks (rounded down to whole stages of three; 0 = 300).
    std::size_t tasks = 0;
    /// Moe: multiplies expert_gemm's kernel time (the slow rank of an L3 tree).
    double slow_factor = 1.0;
    /// When set, also writes an a2a3 PIPE_UTILIZATION pmu.csv of the same rows (pmu.md §2),
    /// cycles at 1800 MHz.
    std::ostream* pmu = nullptr;
};

/// Counts of what was written.
struct Summary {
    std::size_t tasks = 0;
    std::size_t rows = 0;
    std::size_t edges = 0;
    std::size_t phases = 0;
};

/// Writes the three files of one capture.
Summary write_capture(const Options& options, std::ostream& records, std::ostream& deps,
                      std::ostream& name_map);

}  // namespace ptune::swimlane::synth
