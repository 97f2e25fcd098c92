#pragma once
/// @file perf_guard.hpp
/// pypto's CI perf guard as a bench-gate input (spec bench-log.md §5.2, swimlane.md §6.5): a
/// baseline `{metric: "makespan_us", value, threshold_pct, pypto_ref, notes}` against the
/// converter's `Total Test Time` of the current run, averaged over every occurrence. A drop-in
/// for `perf_guard.py`: regression iff delta% > threshold_pct (10 when absent); improvements are
/// never flagged; a baseline without a value (`null`) only reports.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"

namespace ptune::gate::perf_guard {

/// A perf_guard baseline file.
struct Baseline {
    std::string metric;           ///< "makespan_us" (the converter's Total Test Time)
    std::optional<double> value;  ///< µs; nullopt when unseeded (`null`)
    double threshold_pct = 10.0;  ///< perf_guard's default when the file has none
    std::string pypto_ref;
    std::string source;
};

/// Reads a baseline when `text` is one (a JSON object with `metric` and `value`); nullopt when
/// it is some other document, so other readers can try. A baseline with a wrong field type or an
/// unknown metric is an error naming `source`.
std::optional<Result<Baseline>> read_baseline(std::string_view text, const std::string& source);

/// The baseline when `baseline_inputs` is exactly one perf_guard baseline file (`*.json` that
/// read_baseline() recognises); nullopt for anything else bench-gate reads.
std::optional<Result<Baseline>> detect_baseline(const std::vector<std::string>& baseline_inputs);

/// The current run's makespan: every `Total Test Time` the inputs hold.
struct Measurement {
    std::vector<double> makespans_us;  ///< one per converter summary or capture, input order
    std::vector<double> total_exec_us, total_latency_us;  ///< the TOTAL rows (secondary info)
    std::vector<std::string> sources;
};

/// Adds the makespans of one input: a converter stdout or CI log (perf_guard's regexes
/// `Total Test Time:\s*([0-9.]+)\s*us` and `^TOTAL\s+\d+\s+([0-9.]+)\s+([0-9.]+)`), ptune's
/// swimlane statistics JSON (`swimlane-merge --format json`), or a swimlane capture (a records
/// file or a directory, summarised as the converter does). Logs and records are streamed.
Status measure(const std::string& input, Measurement& measurement, Diagnostics& diagnostics);

/// The verdict.
struct Outcome {
    Baseline baseline;
    Measurement measurement;
    std::optional<double> measured_us;  ///< the mean makespan (perf_guard averages its runs)
    std::optional<double> delta_pct;
    bool regressed = false;
    bool report_only = false;  ///< unseeded baseline
    /// Why the run cannot be compared (a makespan of 0 µs, negative or not finite: no task ran
    /// or the summary is damaged, never a −100 % pass); empty when it can.
    std::string incomparable;

    /// The gate fails: a regression, or a run that cannot be compared.
    bool failed() const { return regressed || !incomparable.empty(); }
};

/// Compares as perf_guard.py does, except that a makespan that is not a positive time (perf_guard
/// passes `Total Test Time: 0.00 us` as −100 %) makes the run incomparable, which fails.
Outcome judge(Baseline baseline, Measurement measurement);

/// measure() every current input, then judge().
Result<Outcome> run(Baseline baseline, const std::vector<std::string>& current_inputs,
                    Diagnostics& diagnostics);

/// The report: perf_guard's step-summary table `| Metric | Measured | Baseline | Δ | Threshold |`
/// and a verdict note; the JSON view carries every number.
render::Report make_report(const Outcome& outcome);

/// perf_guard's annotation: `::warning title=perf_guard::…` on a regression (an `::error` unless
/// `warn_only`), `::notice` otherwise.
std::unique_ptr<render::Renderer> make_github_renderer(const Outcome& outcome, bool warn_only);

}  // namespace ptune::gate::perf_guard
