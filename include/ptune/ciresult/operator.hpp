#pragma once
/// @file operator.hpp
/// The operator suite's files beyond suite-result.json (spec: upstream-2026-12.md §2): the
/// manifest and its `case_contract` digest (§2.2, §2.6, §2.11), the request checks of
/// `validate_result` (§2.4), a `measurement.json` on its own (§2.5) and the published
/// `report.md` of both generations (§2.9).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/ciresult/suite.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::ciresult {

/// The operator suite's manifest (`suites/dsv4_operators.json` in v1,
/// `.github/scripts/operator_perf_cases.json` in v2).
struct OperatorManifest {
    std::string source;
    std::string suite_id;
    std::string contract_id;
    nlohmann::json metric;                          ///< `metric` as written
    std::vector<nlohmann::json> cases;              ///< `cases[]` objects in file order
    std::map<std::string, std::size_t> case_index;  ///< case_id → index into `cases`
    std::map<std::string, std::size_t> case_lines;  ///< case_id → line of its `case_id`
};

/// The file names upstream gives the manifest, looked for beside a suite result.
inline constexpr const char* kOperatorManifestNames[] = {"operator_perf_cases.json",
                                                         "dsv4_operators.json"};

/// True when `head` (the start of a JSON file) is an operator-suite manifest: it names a
/// `contract_id` and its cases carry `required_specs`.
bool looks_like_operator_manifest(std::string_view head);

/// Parses a manifest. Not JSON, not an object, no `cases` list, a case without a string
/// `case_id` or a repeated case_id is an error naming the line (exit 2).
Result<OperatorManifest> parse_operator_manifest(std::string_view text, const std::string& source);

/// Python's `json.dumps(value, sort_keys=True, allow_nan=False)`: `", "` and `": "` separators,
/// ASCII escaping, floats as Python's `repr`. Throws std::domain_error on NaN or infinity.
std::string python_json_dumps(const nlohmann::json& value);

/// The sampling every operator case runs with (fixed in code upstream, §2.1).
const nlohmann::json& operator_sampling();

/// `case_contract` of a manifest case (§2.6): SHA-256 of
/// `json.dumps([case, manifest.metric, SAMPLING, manifest.contract_id], sort_keys=True)`.
std::string case_contract(const OperatorManifest& manifest, const nlohmann::json& case_object);

/// The request checks of `validate_result` (§2.4) of an operator raw-result.json against its
/// manifest case: `case_id`, `sampling` and `run_config` equal the request, every required spec
/// present with its shape and dtype, every required output an `out`/`inout` spec. The first
/// violated rule, or nullopt.
std::optional<std::string> request_violation(const nlohmann::json& raw_result,
                                             const nlohmann::json& request);

/// Compares each row's recorded `case_contract` with the one recomputed from `manifest`: a
/// row whose digest differs (the case, metric, sampling or contract id changed since) or
/// whose case is not in the manifest is a warning naming the row. Returns the rows that
/// differ.
std::size_t check_case_contracts(const SuiteResult& suite, const OperatorManifest& manifest,
                                 Diagnostics& diagnostics);

/// Reads a `measurement.json` (§2.5) as a one-row suite: the record's status (`device_fault`,
/// `timeout`, `running` → `interrupted`), error and, on pass, the §2.4 fields. Not JSON or
/// not an object is an error (exit 2). `safe_to_continue: false` is a warning.
Result<SuiteResult> parse_measurement(std::string_view text, const std::string& source,
                                      Diagnostics& diagnostics);

/// True when `head` is the operator suite's report.md (`Operator performance: …`).
bool is_operator_report(std::string_view head);

/// One row of the operator report.md table, kept as printed.
struct OperatorReportRow {
    std::string case_id, devices, status, metric, spread, wall, measurement, previous, week;
    std::size_t line = 0;
};

/// The operator suite's report.md (§2.9), v1 or v2: the header (date, variant, run id, status),
/// the table rows and the per-case error lines.
struct OperatorReport {
    std::string source;
    std::string logical_date, variant, run_id, status;
    std::vector<OperatorReportRow> rows;
    std::map<std::string, std::string> errors;  ///< case_id → its `- <case>: <error>` line
};

/// Parses an operator report.md. No `| Case | Devices | Status | us |` table is an error
/// (exit 2); a row whose `us` cell is neither a decimal nor `N/A` is a warning with file:line
/// and the row is kept without a number.
Result<OperatorReport> parse_operator_report(std::string_view text, const std::string& source,
                                             Diagnostics& diagnostics);

/// The report as a suite: rows with their status and `us` value (no samples, so the bench
/// view is value-only); `shared: <source>` rows are shared measurements.
SuiteResult suite_of_report(const OperatorReport& report);

/// report.md against the suite-result.json it was rendered from: a row whose status, `us`
/// (`.2f`) or previous/week change differs from the record, or a case in one and not the
/// other, is a warning naming the report's line. Returns the rows that differ.
std::size_t cross_check_operator_report(const OperatorReport& report, const SuiteResult& suite,
                                        Diagnostics& diagnostics);

}  // namespace ptune::ciresult
