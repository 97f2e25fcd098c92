#pragma once
/// @file pipeline.hpp
/// The bench domain's one pipeline, shared by `bench-summary`, `bench-gate` and `advise`:
/// inputs → one run's cases (load_run) → `bench.*` metrics (publish_metrics, summary.hpp) →
/// the report (build_summary_report) and its own renderers. A command adds only option parsing,
/// the renderer choice and the exit code, so every entry point sees the same cases under the
/// same names.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::bench {

/// The rule area of bench-summary's findings.
inline constexpr std::string_view kRuleArea = "bench.";

/// Loads `inputs` (anything load_bench_inputs() reads) as one run and makes repeated case names
/// unique (`name #1`, `name #2`), so cases of the same name from different inputs stay apart in
/// metrics, findings and tables.
Result<std::vector<BenchCase>> load_run(const std::vector<std::string>& inputs,
                                        const LoadOptions& options, Diagnostics& diagnostics);

/// Renames repeated case names to `name #1`, `name #2`, ... in input order.
void make_case_names_unique(std::vector<BenchCase>& cases);

/// bench-summary's overview: one row per case (case, origin, rounds, min, median, mean, max,
/// ranks, imbalance, source), µs with one decimal. Why a case has no number, fallbacks and
/// repeated blocks go to `notes`.
render::Table summary_table(const std::vector<BenchCase>& cases, std::vector<std::string>& notes);

/// The report of `ptune bench-summary`: the summary table, a rank/slot table per multi-rank
/// case and the notes (with `tables`; the json and run formats need none), and `findings`.
render::Report build_summary_report(const std::vector<BenchCase>& cases,
                                    std::vector<rules::Finding> findings, bool tables);

/// bench-summary's report for the formats that print its tables (text, markdown, csv...),
/// made while the cases are read: each case becomes its summary row, its notes and what the
/// rules read of it at once, and only a case with a rank or task-slot table is kept. finish()
/// gives what load_run(), summary_findings() and build_summary_report(…, true) give, without
/// holding every case of a log of 100,000 small ones (~1 KB each, most of it never printed).
class SummaryBuilder {
  public:
    SummaryBuilder();
    ~SummaryBuilder();
    SummaryBuilder(const SummaryBuilder&) = delete;
    SummaryBuilder& operator=(const SummaryBuilder&) = delete;
    /// Asks the case rules of `area` in `catalogue` (which must outlive the builder) of each case
    /// as it is added, so that finish() — for the same area — evaluates only the cases they hold
    /// for; before the first add(). Without it finish() asks them of every case at the end.
    void screen_with(const rules::Catalogue& catalogue, std::string_view area);
    /// Takes the next case, in input order (a CaseSink of for_each_bench_case()).
    void add(BenchCase&& bench_case);
    /// The report, with repeated case names made unique as load_run() makes them; once.
    render::Report finish(const rules::Catalogue& catalogue, const rules::MetricStore& store,
                          std::string_view area);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

/// `--format run`: the harness's `[RUN]` lines block after block, byte for byte as upstream
/// prints them for one case; several cases get a `# case:` separator. `cases` must outlive it.
std::shared_ptr<render::Renderer> make_run_renderer(const std::vector<BenchCase>& cases);

/// `--format json` written case by case (no document of all cases is built); the bytes are
/// those of the standard JSON renderer. `cases` must outlive it.
std::shared_ptr<render::Renderer> make_cases_json_renderer(const std::vector<BenchCase>& cases);

/// A bench-summary JSON document of `cases` without findings (bench-gate --save-baseline);
/// every bench command reads it back.
render::Report cases_document(const std::vector<BenchCase>& cases);

}  // namespace ptune::bench
