#pragma once
/// @file l3_synth.hpp
/// Synthetic multi-card (L3) trees for the tests and the benchmark: `rank<N>/d<K>/` directories
/// (upstream-2026-09.md §1.14) each holding one rank's MoE capture (analyze_synth.hpp,
/// Scenario::Moe) with its deps.json, name map, pmu.csv and `dispatch_identity.json`, one rank
/// slower than the others in one kernel.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace ptune::swimlane::synth {

/// What to generate.
struct TreeOptions {
    std::size_t ranks = 16;
    std::size_t dispatches = 1;  ///< d0 .. d<n−1> on every rank
    std::size_t tasks = 300;     ///< per capture
    int slow_rank = -1;     ///< this rank's expert_gemm runs slow_factor × longer (−1: none)
    int slow_dispatch = 0;  ///< … in this dispatch only
    double slow_factor = 4.0;
    bool pmu = true;       ///< also a pmu.csv per capture
    bool identity = true;  ///< a dispatch_identity.json per capture (one group per dispatch)
    std::uint64_t seed = 1;
};

/// Counts of what was written.
struct TreeSummary {
    std::size_t captures = 0;
    std::size_t tasks = 0;  ///< per capture
    std::uintmax_t bytes = 0;
};

/// Writes the tree under `dir` (created; existing rank dirs are overwritten file by file).
/// Fails (false, with `error`) when a file cannot be written.
bool write_rank_tree(const std::filesystem::path& dir, const TreeOptions& options,
                     TreeSummary& summary, std::string& error);

}  // namespace ptune::swimlane::synth
