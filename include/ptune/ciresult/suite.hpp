#pragma once
/// @file suite.hpp
/// The `dsv4-operators` operator performance suite (spec: upstream-2026-12.md §2):
/// `suite-result.json` of both generations, upstream's comparison rule (`delta_pct` or an
/// `incomparable <key>` refusal) and `execution.json`.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::ciresult {

/// One rank of a passing case record (`ranks[]`, §2.4).
struct SuiteRank {
    std::string trace_pid;
    double median_us = 0.0;
    std::vector<double> samples_us;  ///< round totals in round order
    /// Per dispatch slot (slot ascending): the callable and the median of its values; filled
    /// by validate_suite_raw() (suite-result.json rows keep them in `record`).
    std::vector<std::pair<std::string, double>> slots;
};

/// One row of `suite-result.json` `cases[]`.
struct SuiteCase {
    std::string case_id;
    std::string status;  ///< as written; anything but `pass` counts as not passing
    std::string error;
    std::string measurement_id;    ///< v2; empty in v1
    std::string measurement_case;  ///< v2: the row whose measurement this row shares
    bool shared_measurement = false;
    std::optional<double> metric_us, max_rank_median_us, rank_spread_us, wall_seconds;
    std::vector<SuiteRank> ranks;
    std::string source;     ///< the file the row was read from when not the suite's own
    std::size_t line = 0;   ///< line of the row's `case_id` in the file (0 if unknown)
    nlohmann::json record;  ///< the whole record (identity keys for the comparison)
    bool valid = true;      ///< false: `pass` without a finite metric_us > 0
};

/// `submission.json` of a published suite folder (§2.9): the run's identity as CI submitted it.
/// Numbers (`workflow_run_id`, `run_attempt`) are kept as printed; a field absent is empty.
struct Submission {
    std::string source;
    std::vector<std::string> command;
    std::string repository, workflow_run_id, run_attempt, head_sha, head_branch, workflow_path;
    std::string logical_date;
};

/// One entry of `history-selection.json` (§2.9): the run a change column's baseline came from
/// (`previous`, `week`), or why the lookup failed (`lookup`, only a reason).
struct HistoryEntry {
    std::string name;  ///< previous | week | lookup (or another key, as written)
    std::string run_id, path, date, attempt, reason;
    std::size_t line = 0;  ///< line of the entry's key in the file (0 if unknown)
};

/// `history-selection.json` (§2.9): `{previous|week: {run_id, path, date, attempt, reason?}}`
/// or `{"lookup": {"reason"}}`.
struct HistorySelection {
    std::string source;
    std::vector<HistoryEntry> entries;  ///< previous, week, lookup, then others as written
};

/// Parses submission.json. Not JSON or not an object: a warning with file:line, nullopt (the
/// suite is read without it); a field of the wrong type: a warning, the field left empty.
std::optional<Submission> parse_submission(std::string_view text, const std::string& source,
                                           Diagnostics& diagnostics);

/// Parses history-selection.json, with the same handling of bad input as parse_submission();
/// an entry that is not an object is a warning and left out.
std::optional<HistorySelection> parse_history_selection(std::string_view text,
                                                        const std::string& source,
                                                        Diagnostics& diagnostics);

/// `suite-result.json` (§2.6).
struct SuiteResult {
    std::string source;
    std::string suite_id, run_id, logical_date, variant, status, contract_id;
    bool v2 = false;  ///< a v2 file (variant `ci`, measurement ids); v1-ci compares like v2
    bool coverage_complete = false;
    std::vector<SuiteCase> cases;
    /// The published folder's submission.json / history-selection.json (§2.9), when beside.
    std::optional<Submission> submission;
    std::optional<HistorySelection> history_selection;
};

/// Parses a suite-result.json. Not JSON, not an object or `cases` not a list is an error (exit
/// 2); a bad row is a warning with file:line and kept as not passing. A file still `running`
/// is read as `interrupted` with a warning (its producer died).
Result<SuiteResult> parse_suite_result(std::string_view text, const std::string& source,
                                       Diagnostics& diagnostics);

/// One case record (a `cases[]` row, or a `measurement.json`, §2.5) as parse_suite_result()
/// reads it: `running` is read as `interrupted` (warning), a `pass` without a finite
/// `metric_us > 0` is kept as not passing (warning), a record without `case_id` is `?`.
/// `text` is the document the record came from (for the row's line, unless `line` gives it).
SuiteCase parse_suite_case(const nlohmann::json& record, std::string_view text,
                           const std::string& source, Diagnostics& diagnostics,
                           std::optional<std::size_t> line = std::nullopt);

/// Validates an operator-suite `raw-result.json` (§2.3) as upstream's `validate_result` (§2.4)
/// and computes the case record: `metric_us` (min over ranks of the median round total),
/// `max_rank_median_us`, `rank_spread_us`, `ranks[]` sorted by pid as a string. The first
/// violated rule makes the case `fail` with that rule as `error` (§2.10); a file that is not
/// JSON or not an object is an error (exit 2). With the manifest's case object as `request`,
/// the request checks of §2.4 come right after `passed` (request_violation(), operator.hpp).
Result<SuiteCase> validate_suite_raw(std::string_view text, const std::string& source,
                                     const nlohmann::json* request = nullptr);

/// Upstream's `comparison(current, baseline)` (§2.7).
struct Comparison {
    std::optional<double> delta_pct;  ///< nullopt = N/A, never 0
    std::string reason;               ///< why delta_pct is null
    std::vector<std::string> changed_components;
};

/// Applies §2.7 to two case records. `ci_stack`: the v2/v1-ci rule (system components first,
/// changed_components); otherwise v1-bot (toolchain is an identity key).
Comparison compare_cases(const SuiteCase& current, const SuiteCase* baseline, bool ci_stack);

/// `+2.38%` / `N/A` as report.md prints a change.
std::string format_change(const Comparison& comparison);

/// `execution.json` of the CI wrapper (§2.9).
struct Execution {
    std::string phase;
    std::optional<long long> suite_exit_code;
    std::string step_outcome;
    std::vector<std::pair<std::string, std::string>> errors;  ///< (phase, error)
};

/// Parses execution.json; not JSON or not an object is an error (exit 2).
Result<Execution> parse_execution(std::string_view text, const std::string& source);

}  // namespace ptune::ciresult
