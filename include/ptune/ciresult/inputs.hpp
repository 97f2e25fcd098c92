#pragma once
/// @file inputs.hpp
/// Daily-CI and operator-suite result files as bench inputs: which paths are such results,
/// loading them (files read here, parsed by daily.hpp / suite.hpp), the bench::BenchCase view
/// every bench command works on, and ciresult's own tables.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/ciresult/daily.hpp"
#include "ptune/ciresult/run_log.hpp"
#include "ptune/ciresult/suite.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"

namespace ptune::ciresult {

/// What a path holds.
enum class InputKind {
    None,         ///< not a CI result: the bench loader reads it
    DailyFolder,  ///< `published/`, `work/` or their parent `<OUT>/` (report.md, */raw-result.json)
    RawResult,    ///< a single daily-CI raw-result.json
    DailyReport,  ///< a daily-CI report.md
    Manifest,     ///< perf_cases.json
    Suite,        ///< a suite-result.json, or a folder holding one
    SuiteRaw,     ///< an operator-suite raw-result.json (§2.3: case_id, sampling, fingerprints)
    SuiteMeasurement,  ///< an operator-suite measurement.json (§2.5)
    SuiteWork,    ///< an operator-suite work/ folder: <case>/measurement.json, no suite-result.json
    SuiteReport,  ///< the operator suite's report.md (`Operator performance: …`, §2.9)
};

/// True for the operator-suite kinds (read by load_suite()).
bool is_suite_kind(InputKind kind);

/// Classifies a path by name and content of the folder (no file is parsed).
InputKind classify(const std::string& path);

/// One daily-CI case as read: recomputed result and/or report row.
struct DailyCase {
    std::string case_id;
    std::optional<std::size_t> device_count;  ///< from the manifest, else the pids seen
    std::optional<DailyResult> result;        ///< from raw-result.json
    std::optional<ReportRow> row;             ///< from report.md
    std::string report_source;                ///< report.md path
    std::optional<RunLogFacts> run_log;       ///< `<case>/run.log` §1.7 lines, when present
    bool in_manifest = false;
};

/// A daily-CI run (a folder, or one of its files).
struct DailyRun {
    std::string root;
    std::optional<Manifest> manifest;
    std::vector<DailyCase> cases;  ///< manifest order, then report order, then folder order
};

/// Loads a daily-CI input of kind DailyFolder, RawResult, DailyReport or Manifest. The manifest
/// is looked for in the folder and its parent (`<OUT>/perf_cases.json`) unless given. Cross-checks
/// report.md against the recomputed headline (warning when they differ by more than 0.005 or one
/// is FAIL). An unreadable or malformed report.md / perf_cases.json is an error (exit 2).
Result<DailyRun> load_daily(const std::string& path, Diagnostics& diagnostics);

/// Loads an operator-suite input: a suite-result.json (or the one in a folder; a report.md
/// beside it is cross-checked), a raw-result.json as a one-row suite (validate_suite_raw()),
/// a measurement.json or a work/ folder of them, or a report.md alone (values only). The
/// manifest (operator.hpp kOperatorManifestNames) is looked for in the input's folder and the
/// two above it: with it, each row's case_contract is checked and a raw-result.json gets the
/// request checks of §2.4.
Result<SuiteResult> load_suite(const std::string& path, Diagnostics& diagnostics);

/// The bench view of a daily-CI run: per case a block whose summary is over the headline
/// rank's per-round sums (its raw samples), every rank as a bench::Rank; FAIL / not-run cases
/// carry the reason as `unavailable`; a report.md value without raw-result.json is mean-only.
std::vector<bench::BenchCase> to_bench_cases(const DailyRun& run);

/// The bench view of a suite result: per passing measurement the fastest rank's `samples_us`
/// (so `--metric median` is upstream's metric_us); shared rows are left out (not independent).
std::vector<bench::BenchCase> to_bench_cases(const SuiteResult& suite);

/// ciresult's tables for a daily-CI run: per case the upstream headline, its rule, report.md's
/// value, the check, per-rank spread, slowest rank and the per-round distribution (p10/p90),
/// and the task slots and sentinels of the cases' run.log.
std::vector<render::Table> daily_tables(const DailyRun& run);

/// The suite's own table: status, metric_us, rank spread, wall, measurement; then the published
/// folder's run identity (submission.json) and baselines (history-selection.json) when read.
std::vector<render::Table> suite_tables(const SuiteResult& suite);

/// The suite's submission.json and history-selection.json as JSON (`submission`,
/// `history_selection{source, entries{previous|week|lookup: {run_id, path, date, attempt,
/// reason}}}`, empty fields left out); an empty object when neither was read. bench-gate puts it
/// in `suite_runs.baseline` / `suite_runs.current`.
nlohmann::json run_record_json(const SuiteResult& suite);

/// bench-gate on two suite results: upstream's delta_pct / refusal per case. `refusals` counts
/// the rows upstream calls incomparable (or non-passing) that the baseline had passing.
render::Table suite_comparison_table(const SuiteResult& baseline, const SuiteResult& current,
                                     std::size_t& refusals);

/// What the CI-result reader (install_bench_reader()) loaded, kept so that the tables are made
/// from that same load: one read of each input. While a KeptResults exists, the reader puts
/// every daily-CI and suite result it loads into it (under its lock: the reader may run on a
/// second thread, core/handoff.hpp). Read it (tables_for_inputs(), annotate_gate()) only once that
/// thread is done; bench-summary does after produce_alongside() returns. One at a time: a second
/// one made while another exists collects instead of it until it is gone.
class KeptResults {
  public:
    /// What is kept of each result: all of it (the tables: bench-summary's text formats), or
    /// what annotate_gate() and run_records_for_inputs() read, without the samples (daily-CI
    /// round totals, suite samples_us) that only the tables and the bench cases need (bench-gate:
    /// a history of many runs is kept while the gate compares them).
    enum class Keep { All, WithoutSamples };

    explicit KeptResults(Keep what = Keep::All);
    ~KeptResults();
    KeptResults(const KeptResults&) = delete;
    KeptResults& operator=(const KeptResults&) = delete;

    struct Store;  ///< the results by input path (load.cpp)

  private:
    friend class KeptAccess;
    std::unique_ptr<Store> store_;
    Keep what_;
    KeptResults* previous_ = nullptr;
};

/// For bench-summary / bench-gate: the ciresult tables of every input that is a CI result
/// (others are skipped). An input `kept` (KeptResults::Keep::All) holds is not read again (it
/// is taken out of `kept`); another one is loaded here, its diagnostics dropped (the bench
/// loader gave them).
std::vector<render::Table> tables_for_inputs(const std::vector<std::string>& inputs,
                                             KeptResults* kept = nullptr);

/// For bench-summary's JSON: `{<input>: run_record_json()}` of every input that is a suite
/// result the reader kept in `kept` (any Keep) with a submission.json or history-selection.json;
/// an empty object when there is none. Nothing is read here.
nlohmann::json run_records_for_inputs(const std::vector<std::string>& inputs, KeptResults& kept);

/// Test hook: how many daily-CI and operator-suite loads (load_daily(), load_suite()) this
/// process has made.
std::size_t load_count();

/// gate::run_gate()'s hook (bench-gate and advise): notes naming the headline rule of every
/// CI-result input and, when one baseline and the current run are suite results, the upstream
/// comparison table appended to `report`. Returns how many cases upstream refuses to compare
/// although both sides passed (`incomparable <key>`): such a case is no pass. An input `kept`
/// holds (the gate's read of it, KeptResults::Keep::WithoutSamples will do) is not read again;
/// another one is loaded here.
std::size_t annotate_gate(const std::vector<std::string>& baseline_inputs,
                          const std::vector<std::string>& current_inputs, render::Report& report,
                          KeptResults* kept = nullptr);

/// Registers the CI-result reader with the bench loader (bench::register_input_reader), so
/// every bench command reads these inputs. Idempotent.
void install_bench_reader();

}  // namespace ptune::ciresult
