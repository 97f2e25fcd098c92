#pragma once
/// @file daily.hpp
/// pypto-lib's daily performance CI (`ci_perf.py`, spec: upstream-2026-12.md §1): the case list
/// `perf_cases.json`, each case's `raw-result.json` and the published `report.md`. The parsers
/// take text and a source name; bad rows go to Diagnostics with file:line and the rest is kept.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::ciresult {

/// One `cases[]` entry of `perf_cases.json`.
struct ManifestCase {
    std::string case_id;
    std::string entrypoint;
    std::size_t device_count = 1;
    std::vector<std::string> arguments;
};

/// `perf_cases.json` (§1.2).
struct Manifest {
    std::string source;
    std::string platform;
    std::size_t rounds = 0;  ///< `sampling.rounds`
    std::size_t warmup = 0;  ///< `sampling.warmup`
    std::vector<ManifestCase> cases;

    const ManifestCase* find(std::string_view case_id) const;
};

/// Parses `perf_cases.json`. Not JSON, a wrong type or a duplicate case_id is an error (exit 2)
/// naming `source` (and the line of the duplicate).
Result<Manifest> parse_manifest(std::string_view text, const std::string& source);

/// How upstream turns the per-round sums into the headline (§1.4 step 6).
enum class HeadlineRule {
    Median,       ///< one card: statistics.median of the per-round sums
    MinRankMean,  ///< several cards: min over ranks of the mean of that rank's per-round sums
};

/// "median of per-round sums (1 card)" / "smallest per-rank mean of per-round sums".
const char* describe(HeadlineRule rule);

/// One rank (trace pid) of a raw-result.json: its per-round sums and their statistics (µs).
struct RankTotals {
    std::string pid;  ///< the JSON key, as written
    std::vector<double> totals;
    double min = 0.0, median = 0.0, mean = 0.0, max = 0.0;
    std::size_t dispatches = 0;  ///< dispatches of the first round
};

/// A raw-result.json evaluated as upstream's `_headline` does, with what upstream hides.
struct DailyResult {
    std::string source;
    bool passed = false;             ///< upstream produced a number
    std::string reason;              ///< why the case is FAIL (empty when passed)
    std::optional<double> headline;  ///< recomputed headline (full precision)
    HeadlineRule rule = HeadlineRule::Median;
    std::size_t rounds = 0, warmup = 0;  ///< the loop sizes the benchmark used
    std::vector<RankTotals> ranks;       ///< pid ascending (numeric when all are numbers)
    std::size_t headline_rank = 0;       ///< index into ranks of the headline's rank
    /// Dispatch values <= 0 that upstream accepts silently (§1.8, ptune proposal: flagged).
    std::size_t nonpositive_values = 0;
    /// The file itself is bad (not JSON, a missing key, a wrong type), not a rejected
    /// benchmark; `malformed_line` is the line of a JSON syntax error (0 when not known).
    bool malformed = false;
    std::size_t malformed_line = 0;
};

/// What the manifest says about a case, when known (nullopt: no perf_cases.json at hand; the
/// loop sizes are then not checked and the device count is the first round's pid count).
struct Expectation {
    std::size_t rounds = 0;
    std::size_t warmup = 0;
    std::size_t device_count = 1;
};

/// Evaluates a daily-CI raw-result.json (§1.3, §1.4, §1.8). Never fails: unparsable JSON,
/// missing keys and wrong types make the case FAIL with the reason, as upstream's
/// `except (OSError, ValueError, KeyError, TypeError)` does.
DailyResult evaluate_raw_result(std::string_view text, const std::string& source,
                                const std::optional<Expectation>& expected);

/// One data row of `report.md` (§1.5).
struct ReportRow {
    enum class Kind { Value, Fail, NotRun };
    std::string case_id;
    Kind kind = Kind::NotRun;
    double value = 0.0;  ///< only for Kind::Value
    std::string text;    ///< the cell as written
    std::size_t line = 0;
};

/// Parses `report.md`: the `| Case | Effective (us) |` table. A row whose value is neither a
/// decimal, `FAIL` nor `-` is a warning (file:line) and left out; extra columns are ignored.
/// No such table at all is an error (exit 2).
Result<std::vector<ReportRow>> parse_daily_report(std::string_view text, const std::string& source,
                                                  Diagnostics& diagnostics);

/// Upstream's `.2f` of a headline.
std::string format_headline(double value);

}  // namespace ptune::ciresult
