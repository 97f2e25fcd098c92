#pragma once
/// @file summary.hpp
/// Turning bench cases into output: the JSON view of `ptune bench-summary --format json` (and
/// reading it back), the upstream `[RUN]` report lines (`--format run`) and the metrics the
/// rules engine reads (`bench.*`). One stage a source file: case_json_write.cpp,
/// case_json_read.cpp, run_lines.cpp and summary.cpp (metrics, the case-rule screen, findings).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::bench {

/// One case as JSON: `case`, `source` ("file:line"), `status`, `origin`, `effective_us`
/// ({rounds,min,median,mean,max} or null; only `mean` for results.tsv), `unavailable`,
/// `ranks` ([{rank, eff_us, slots:[{slot,name,eff_us}]}]), `imbalance` (max/min of rank
/// means), `context`, `raw`, `declared_rounds`, `declared_warmup`,
/// `loop_facts` (recomputed blocks: {warmup, rounds, distributed, resident} each as {value,
/// source: flag|log|inferred|default|assumed, why}; absent otherwise), `notes` (the CI block's and
/// the case's), `case_notes` (the case's alone), and `blocks` (every block of the case in
/// order, same fields). The top-level fields describe ci_block().
nlohmann::json case_to_json(const BenchCase& bench_case);
/// Appends case_to_json(bench_case).dump(2) to `out` without building it, every line after the
/// first indented `indent` more spaces (its place in the document): `--format json` of a CI
/// log of 100,000 cases, where each case's DOM and its dump were two thirds of the run.
void write_case_json(const BenchCase& bench_case, std::size_t indent, std::string& out);

/// Reads back one element of `cases` written by case_to_json(); `source` names the JSON file
/// for messages. Fails with a message when a required field is missing or has the wrong type.
Result<BenchCase> case_from_json(const nlohmann::json& value, const std::string& source);

/// The `[RUN]` lines the pypto-lib harness prints for a block, in its order: headline (or
/// `unavailable`), rank and slot lines, raw lines when `include_raw`, then the L3 context line.
/// Numbers use Python's `.1f` / `.0f` on the exact binary value (half-even), raw values
/// `round(x, 1)` then `repr`. Block notes (skip, interrupted...) come first.
std::vector<std::string> format_run_lines(const BenchBlock& block, bool include_raw);

/// The `[RUN]` line of a block note (skip, unavailable, interrupted, env-knob warning), with
/// the indentation upstream prints for that wording: one space after `[RUN]` for `benchmark
/// rounds interrupted:`, the resident L3 `benchmark unavailable: no [STRACE] markers ...` and
/// `benchmark skipped: <ExcType>: <message>`; three for the rest (bench-log.md §1.7, §1.8).
std::string format_run_note(std::string_view note);

/// Python `repr(round(value, 1))`, as in the raw-sample lists.
std::string format_raw_value(double value);

/// max/min of the ranks' mean eff_us (1.0 = balanced); nullopt with fewer than two timed ranks.
std::optional<double> rank_imbalance(const BenchBlock& block);

/// Publishes the `bench.*` metrics of every case's CI block into `store` (subject kind
/// "case"): effective_us.{mean,median,min,max}, rounds, declared_rounds, rounds_shortfall,
/// mean_over_median, rank_imbalance, ranks, fallback_flattened, unavailable.
void publish_metrics(const std::vector<BenchCase>& cases, rules::MetricStore& store);

/// What rules::evaluate(catalogue, store', {area}) gives when store' is `store` (which holds no
/// "case" subject) plus publish_metrics(cases): the same findings in the same order, without a
/// metric map per case (each case is published into one reused subject and evaluated at once).
/// Case names must be unique (load_run makes them so).
std::vector<rules::Finding> summary_findings(const std::vector<BenchCase>& cases,
                                             const rules::Catalogue& catalogue,
                                             const rules::MetricStore& store,
                                             std::string_view area);

}  // namespace ptune::bench
