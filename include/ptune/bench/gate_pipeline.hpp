#pragma once
/// @file gate_pipeline.hpp
/// `ptune bench-gate` from inputs to report: the baseline (runs, or a history database's
/// per-case baseline for the noise fence), the current run, the comparison, the findings and
/// the optional saved baseline. The command adds only its options and the renderer choice.
///
/// Memory: each run is kept as GateRun digests while it is read (no BenchCase of a large log
/// is held), each case's input exists only while it is compared, and the runs are gone before
/// the report is built (docs/PERFORMANCE.md, bench-gate).

#include <string>
#include <vector>

#include "ptune/bench/gate.hpp"
#include "ptune/bench/gate_report.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::bench::gate {

/// What the gate compares.
struct GateRequest {
    std::vector<std::string> baseline_inputs;  ///< one run per argument (several: a history)
    std::string history;                       ///< a history database instead of baseline_inputs
    std::vector<std::string> current_inputs;   ///< all together are the run under test
    /// Keep the current run's cases in GateOutcome::current (for save_baseline).
    bool keep_current = false;
};

/// The comparison and its report (findings included).
struct GateOutcome {
    GateResult result;
    render::Report report;
    std::vector<BenchCase> current;  ///< the current run, when GateRequest::keep_current
};

/// Loads the runs, compares every case, builds the report and its `bench.gate-*` findings. An
/// input that cannot be read is an error naming its role (ExitCode::InputError).
Result<GateOutcome> run_gate(const GateRequest& request, const Options& options,
                             const ReportSettings& settings, const rules::Catalogue& catalogue,
                             Diagnostics& diagnostics);

/// `--save-baseline PATH`: writes `current` as a bench-summary JSON (every bench command reads
/// it back), atomically, refusing to write over one of `inputs`. After a regression nothing is
/// written unless `force`: a warning says so and the status is ok.
Status save_baseline(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<BenchCase>& current, bool regressed, bool force,
                     Diagnostics& diagnostics);

}  // namespace ptune::bench::gate
