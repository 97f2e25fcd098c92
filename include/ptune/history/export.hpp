#pragma once
/// @file export.hpp
/// `history export`: the whole history, streamed run by run (csv, json), or as the data file
/// github-action-benchmark keeps on its branch (gab-json), whose per-run `benches` arrays are
/// written by bench/gab_json.hpp as bench-gate's are.

#include <ostream>

#include <nlohmann/json.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/store.hpp"

namespace ptune::history {

/// A run's fields as JSON (run, run_key, time, added_at, commit, branch, toolchain, device,
/// source_digest, labels, inputs): `export --format json` and `list --format json`.
nlohmann::json run_to_json(const RunInfo& run);

/// One row per run and case: run, time, commit, branch, toolchain, device, case, value_us,
/// rounds, min_us, median_us, max_us, origin, source.
Status export_csv(Store& store, std::ostream& out);

/// The JSON envelope with `runs`: every run's fields and its cases (samples included).
Status export_json(Store& store, std::ostream& out);

/// github-action-benchmark's data: `{"lastUpdate", "repoUrl", "entries": {"ptune <epoch>":
/// [{commit, date, tool: "customSmallerIsBetter", benches}]}}`, one entry per run and epoch.
/// A bench's `extra` says the verdict: regressed / improved at a change point (baseline = the
/// previous segment's median), else unchanged against its own segment's median.
Status export_gab_json(Store& store, const AnalyseOptions& options, std::ostream& out,
                       Diagnostics& diagnostics);

}  // namespace ptune::history
