#pragma once
/// @file gate_input.hpp
/// From loaded bench cases (model.hpp) to the gate's inputs: one Observation per case and run,
/// baseline runs paired with the current run by case name.

#include <string>
#include <vector>

#include "ptune/bench/gate.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"

namespace ptune::bench::gate {

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

/// Pairs the runs by case name. Every entry of `baseline_runs` is one run; a case that occurs
/// several times in one run (a directory of several results.tsv) counts once per occurrence,
/// so a folder of past sweeps is a history. A case repeated in the current run keeps its last
/// occurrence (with a warning). Order: the current run's cases, then baseline-only cases.
/// When each side holds exactly one case named only after its file (`--baseline base.log
/// --current cur.log`), the two are paired whatever their names, with a note saying so.
std::vector<CaseInput> pair_cases(const std::vector<std::vector<BenchCase>>& baseline_runs,
                                  const std::vector<BenchCase>& current, Diagnostics& diagnostics);

}  // namespace ptune::bench::gate
