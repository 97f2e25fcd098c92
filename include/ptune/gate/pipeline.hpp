#pragma once
/// @file pipeline.hpp
/// `ptune bench-gate` from inputs to report: the baseline (runs, or a history database's
/// per-case baseline for the noise fence), the current run, the comparison, the findings and
/// the optional saved baseline. The command adds only its options and the renderer choice.
///
/// Memory: each run is kept as GateRun digests while it is read (no BenchCase of a large log
/// is held), each case's input exists only while it is compared, the runs' chunks of digests
/// are freed as their cases are compared, and the runs are gone before the report is built
/// (docs/PERFORMANCE.md, bench-gate).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/gate/gate.hpp"
#include "ptune/gate/report.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::gate {

/// What the gate compares.
struct GateRequest {
    std::vector<std::string> baseline_inputs;  ///< one run per argument (several: a history)
    std::string history;                       ///< a history database instead of baseline_inputs
    std::vector<std::string> current_inputs;   ///< all together are the run under test
    /// Keep the current run's cases in GateOutcome::current (for save_baseline).
    bool keep_current = false;
    /// The current run already loaded (advise): compared instead of reading current_inputs.
    std::optional<std::vector<bench::BenchCase>> current_cases = std::nullopt;
};

/// The comparison and its report (findings included).
struct GateOutcome {
    GateResult result;
    render::Report report;
    std::vector<bench::BenchCase> current;  ///< the current run, when GateRequest::keep_current
    /// --history: cases held in shadow (name, `shadow (n/10)…`): reported, not judged, and a
    /// gate whose only cases are held is no failure (require_compared() is not asked).
    std::vector<std::pair<std::string, std::string>> held;
    /// Daily-CI / suite inputs: cases upstream refuses to compare although both sides passed
    /// (`incomparable <key>`, ciresult::annotate_gate()); such a case is no pass.
    std::size_t ci_refused = 0;
};

/// The one route from inputs to the gate's verdicts, for bench-gate and advise alike: loads the
/// runs, compares every case, builds the report (with the headline-rule notes and upstream's
/// comparison of daily-CI / suite inputs, from the same read of them) and, with a `catalogue`, its
/// `bench.gate-*` findings (advise passes none: it publishes the result's metrics into its own
/// store with publish_metrics() and evaluates its whole catalogue). An input that cannot be read is
/// an error naming its role (ExitCode::InputError).
Result<GateOutcome> run_gate(const GateRequest& request, const Options& options,
                             const ReportSettings& settings, const rules::Catalogue* catalogue,
                             Diagnostics& diagnostics);

/// An error when the gate compared no case: a wrong baseline, renamed cases or other rounds are
/// in the report, but a gate that compared nothing does not pass (ExitCode::InputError).
Status require_compared(const GateResult& result);

/// The sides bench-gate needs: --current and one of --baseline / --history (exit 2 otherwise).
Status check_sides(const std::vector<std::string>& baselines, const std::string& history,
                   const std::vector<std::string>& current);

/// The cases of each baseline input (`on_baseline(run, case)`, `run` = its index), then the
/// current run's (`on_current`), a case at a time. An input that cannot be read is an error
/// naming its role (`baseline`, `current run`) with ExitCode::InputError: a baseline that cannot
/// be read is never a pass. Empty `current_inputs` read no current run.
Status for_each_run_case(const std::vector<std::string>& baseline_inputs,
                         const std::vector<std::string>& current_inputs,
                         const std::function<void(std::size_t, bench::BenchCase&&)>& on_baseline,
                         const bench::CaseSink& on_current, Diagnostics& diagnostics);

/// Reads and parses a config file (parse_config).
Result<Config> load_config(const std::string& path);

/// bench-gate's flags that are resolved against a config file.
struct OptionFlags {
    std::string metric = "mean";  ///< mean, median or min
    std::string fence = "mad";    ///< mad or iqr
    std::optional<double> threshold_pct, min_delta_us, geomean_threshold_pct;
    std::string config_path;  ///< empty: none
};

/// Resolves `flags` into `options` (whose other fields the command has set). Precedence:
/// built-in defaults < config file < command-line flags; per-case overrides from the config
/// file win for their case.
Status resolve_options(const OptionFlags& flags, Options& options);

/// Applies a config file under `options`: its defaults, per-case overrides and ignore list;
/// its allow_missing entries join those already there. Command-line values are applied after
/// this, so they win.
void apply_config(Config config, Options& options);

/// `--save-baseline PATH`: writes `current` as a bench-summary JSON (every bench command reads
/// it back), atomically, refusing to write over one of `inputs`. After a regression nothing is
/// written unless `force`: a warning says so and the status is ok.
Status save_baseline(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<bench::BenchCase>& current, bool regressed, bool force,
                     Diagnostics& diagnostics);

}  // namespace ptune::gate
