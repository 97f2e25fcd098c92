#pragma once
/// @file lane.hpp
/// The `lib-main-attention` lane of the performance-tracking policy (upstream-2026-12.md §3.5,
/// §3.7): its append-only case-result journal (JSONL, one case result per line) and its
/// `suite-result.json` (the third shape of that name: it has `lane_id`). Finalization (fold
/// retries per case, preferring a contract-valid success) is a pure step over parsed attempts.
/// The identity parts these files carry (lane, source tree, case contract, toolchain and device
/// epoch) are read for `ptune history add` (identity_of_inputs).

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::ciresult {

/// One case result (§3.5): a journal line or a `cases[]` row of the lane's suite-result.json.
struct CaseResult {
    std::string case_id;
    std::string status;       ///< "pass", "fail", "invalid_metric" (others kept verbatim)
    std::string contract_id;  ///< "<suite contract>:<case>"
    std::string entrypoint;
    std::optional<long long> process_rc;
    std::optional<double> metric_us;  ///< null = no value
    /// `metric` {sample_count, minimum, median, mean, maximum} when present.
    std::optional<bench::Summary> metric;
    std::string validation_status;   ///< `validation.status`
    std::string validation_error;    ///< `validation.error`
    std::vector<double> samples_us;  ///< rank_diagnostics[0].samples_us
    std::string device_id;           ///< rank_diagnostics[0].device_id, as text
    std::string source;              ///< file
    std::size_t line = 0;            ///< line of the journal (row's line in a suite)

    /// A contract-valid success: status pass, a finite metric_us > 0, validation not failed.
    bool valid_success() const;
    /// Why this result is no number: "status invalid_metric: <validation error>", empty for a
    /// valid success.
    std::string failure_reason() const;
};

/// Reads one case-result object (already parsed). nullopt when it lacks case_id or status
/// (strings): such a journal line is skipped and counted.
std::optional<CaseResult> read_case_result(const nlohmann::json& object, const std::string& source,
                                           std::size_t line);

/// An append-only journal as read: every attempt in file order.
struct Journal {
    std::string source;
    std::vector<CaseResult> attempts;
    std::size_t skipped = 0;      ///< lines that are no case result (warned with file:line)
    bool truncated_tail = false;  ///< the last line had no newline and did not parse (noted)
};

/// Parses a journal. Never fails: lines that are not JSON objects or lack case_id/status are
/// skipped and counted with a `file:line` warning; a truncated last line (no trailing newline)
/// of a file still being appended is expected and only noted. Blank lines are ignored.
Journal parse_journal(std::string_view text, const std::string& source, Diagnostics& diagnostics);

/// Finalization (§3.4, §3.6 item 3), a pure step: one result per case in order of first
/// appearance; of its attempts the first contract-valid success (a published value is never
/// changed by a later retry), else the last attempt (the latest failure and its reason).
/// `attempts` is each case's attempt count, by case id.
std::vector<CaseResult> finalize(const std::vector<CaseResult>& attempts,
                                 std::map<std::string, std::size_t>* attempts_per_case = nullptr);

/// The identity parts a lane suite-result.json carries (§3.5).
struct LaneIdentity {
    std::string lane;             ///< lane_id
    std::string contract;         ///< contract.spec_hash (else contract_id)
    std::string toolchain_epoch;  ///< toolchain.epoch ("unassigned" when the lane had none)
    std::string device_epoch;     ///< device.epoch
    std::string source_tree;      ///< source.tree
};

/// The lane's suite-result.json.
struct LaneSuite {
    std::string source;
    std::string suite_id, contract_id, status;
    bool coverage_complete = false;
    LaneIdentity identity;
    std::vector<CaseResult> cases;
};

/// The three shapes named suite-result.json (§3.5): discriminated by `lane_id` (Lane), then
/// `variant == "ci"` (the operator suite's v2), else the operator suite's v1.
enum class SuiteShape { Lane, OperatorV2, OperatorV1 };
SuiteShape suite_shape(const nlohmann::json& root);

/// Parses a lane suite-result.json. Not JSON, not an object or `cases` not a list is an error
/// (exit 2, file:line); a row that is no case result is a warning and left out.
Result<LaneSuite> parse_lane_suite(std::string_view text, const std::string& source,
                                   Diagnostics& diagnostics);

/// The bench view of finalized case results: a valid success becomes a block with the metric's
/// summary (median = metric_us) and rank 0's samples; anything else a failed case with no
/// number whose `unavailable` is failure_reason().
std::vector<bench::BenchCase> to_bench_cases(const std::vector<CaseResult>& results);

/// True for a path the lane reader takes: a `*.jsonl` file whose start holds a `"case_id"`.
bool is_journal(const std::string& path);

/// The bench loader's hook for the lane's inputs: a journal, or a suite-result.json (or a
/// folder holding one) of the lane shape. nullopt when `path` is neither.
std::optional<Status> read_lane_input(const std::string& path, Diagnostics& diagnostics,
                                      const bench::CaseSink& sink);

/// bench-gate's note for a lane input (the headline rule), nullopt for any other input.
std::optional<std::string> lane_headline_note(const std::string& path);

/// What `history add` takes from its inputs: the run's identity parts (lane suite) and each
/// case's contract id (lane suite rows, journal lines). `found` is false when no input is a
/// lane input; differing parts between inputs are an error (exit 2).
struct InputIdentity {
    bool found = false;
    LaneIdentity run;
    std::map<std::string, std::string> case_contracts;
    std::set<std::string> lane_cases;  ///< cases read from lane inputs (their value: metric_us)
};
Result<InputIdentity> identity_of_inputs(const std::vector<std::string>& inputs,
                                         Diagnostics& diagnostics);

}  // namespace ptune::ciresult
