#pragma once
/// @file lint.hpp
/// perf_hints.log as lint: entries of one or more logs become diagnostics with 1-based
/// columns, catalogue advice (rules `hints.*`), stable fingerprints, inline suppressions
/// (`# ptune: ignore[PH001]`) and a baseline. Also publishes per-kernel metrics for the
/// cross-artifact rules (docs/METRICS.md, section hints).

#include <cstddef>
#include <deque>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/hints/model.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::hints {

/// How the columns of a log are counted (perf-hints.md §7.4).
struct ColumnBase {
    int base = 1;        ///< 0: 0-based byte offsets (pypto before 2026-08-06); 1: 1-based
    std::string reason;  ///< why, for notes and the JSON output
};

/// What the files beside a log tell about the pypto that wrote it: `compiled_meta.json` in the
/// build directory (pypto >= 2026-08-14, 1-based) or a memory report in `report/` (<=
/// 2026-07-28, 0-based). nullopt when neither is there (or the log is stdin).
/// Failing both, the run folder's own timestamp (`<Program>_<YYYYMMDD_HHMMSS>` up to four
/// levels above the log, column_base_from_run_date).
std::optional<ColumnBase> column_base_from_build(const std::filesystem::path& log_path);

/// 0-based when the run folder holding the log is dated before 2026-08-06 (its pypto cannot be
/// newer than the run); nullopt for a later run (an old pypto may still make it) or none.
std::optional<ColumnBase> column_base_from_run_date(const std::filesystem::path& log_path);

/// One log after parsing: its entries in file order and what the linter learnt about it.
struct ParsedLog {
    std::string path;  ///< as named to the user ("-" for stdin)
    /// Distinct entries, in order of first appearance (a deque: lint() frees each as it takes it).
    std::deque<Entry> entries;
    std::deque<std::size_t> counts;  ///< how often each entry appears (v1 repeats, re-appends)
    std::size_t total_entries = 0;   ///< entries read, repeats included
    ColumnBase column_base;
    /// Compiles appended to the log (append mode; perf-hints.md §1), by the log line each starts.
    std::vector<std::size_t> compile_starts;
    bool identical_compiles = false;  ///< every compile printed the same entries
};

/// Where the column base comes from when not forced: `override_base` (0/1) wins, then `build`
/// (files beside the log), then the entries themselves (PH001 template generation, a column 0).
ParsedLog read_log(std::istream& in, const std::string& path, Diagnostics& diagnostics,
                   std::optional<int> override_base, std::optional<ColumnBase> build);

/// What happened to a diagnostic.
enum class Disposition { Reported, Suppressed, Baselined };

/// One lint diagnostic: a unique hint (identical entries of the logs merged, `count` kept).
struct LintDiagnostic {
    Entry entry;
    // Texts that many hints share (paths, rule metadata, advice) are SharedText: one copy per
    // distinct value, not per hint (issue #24: 200,000 hints within 3x the log).
    SharedText log_path;     ///< the log it came from (first occurrence)
    SharedText file;         ///< display path (relative to --root when under it); "" none
    SharedText source_path;  ///< where the kernel source would be on disk; "" none
    std::size_t line = 0;    ///< 1-based; 0 when the hint has no (real) location
    std::size_t column = 0;  ///< 1-based; 0 unknown
    std::size_t count = 1;   ///< identical entries merged into this one
    SharedText rule_id;      ///< the catalogue rule giving the advice, e.g. `hints.PH001`
    SharedText catalogue;    ///< H1…H14
    rules::RuleSeverity severity = rules::RuleSeverity::Warning;
    SharedText title;                  ///< rule title
    SharedText advice_summary;         ///< the rule's message rendered for this hint (one line)
    SharedText advice;                 ///< the rules' advice texts
    std::vector<SharedText> rule_ids;  ///< every rule that fired on it (primary first)
    std::string fingerprint;           ///< stable across line shifts (baseline, SARIF)
    SharedText kernel;                 ///< enclosing kernel function when derivable
    double weight = 0;  ///< ranking weight: PH001 transfer_bytes x occurrences, else occurrences
    Disposition disposition = Disposition::Reported;
    SharedText suppressed_by;  ///< `file:line` of the suppression comment or "baseline"
};

/// An inline suppression comment that matched no hint.
struct UnusedSuppression {
    std::string file;
    std::size_t line = 0;
    std::string code;  ///< the code listed, or "*" for a bare `# ptune: ignore`
};

/// A baseline entry that no longer occurs.
struct FixedEntry {
    std::string fingerprint;
    std::string code;
    std::string file;
    std::string message;
};

/// Options of the lint step.
struct LintOptions {
    std::filesystem::path root;  ///< --root: display paths relative to it, sources under it
    bool inline_suppressions = true;
    /// --absolute-paths: every source path printed absolute. Without it and without `root`, a
    /// relative hint path found under the log's run directory (`<run>/report/perf_hints.log`)
    /// and not from the working directory is printed with the run directory prefixed.
    bool absolute_paths = false;
};

/// The lint result of all logs.
struct LintResult {
    std::vector<ParsedLog> logs;  ///< entries moved out into diagnostics
    /// Log order of first occurrence. A deque: it grows block by block while the logs' entries
    /// are freed, so the two are never both held in full (and no doubling copies).
    std::deque<LintDiagnostic> diagnostics;
    std::vector<UnusedSuppression> unused_suppressions;
    std::vector<FixedEntry> fixed;
    std::size_t disabled = 0;  ///< hints whose every rule is disabled (not reported)
    std::vector<rules::Finding> log_findings;  ///< rules on the logs themselves (H14)
    std::map<std::string, std::map<std::string, double>> kernels;  ///< published kernel metrics
};

/// Turns parsed logs into diagnostics: merges identical entries, normalises columns and paths,
/// applies the catalogue (`hints.*` rules on subjects of kind "entry"), fingerprints, reads the
/// kernel sources for suppressions and function names.
LintResult lint(std::vector<ParsedLog> logs, const rules::Catalogue& catalogue,
                const LintOptions& options, Diagnostics& diagnostics);

/// A baseline: fingerprints of accepted hints.
struct Baseline {
    std::vector<FixedEntry> entries;
};

/// Reads a baseline file's text (`{"kind":"ptune-hints-baseline","entries":[…]}`).
Result<Baseline> parse_baseline(std::string_view text, const std::string& source);
/// The baseline of every diagnostic not suppressed inline, as JSON text.
std::string baseline_json(const LintResult& result);
/// Marks reported diagnostics found in `baseline` and lists baseline entries that are gone.
void apply_baseline(LintResult& result, const Baseline& baseline);

/// Publishes per-kernel metrics (`hints.PH001.count`, …) of diagnostics with a known kernel into
/// `store` under subjects of kind "kernel", and fills `result.kernels`.
void publish_kernel_metrics(LintResult& result, rules::MetricStore& store);

}  // namespace ptune::hints
