#pragma once
/// @file analyzer.hpp
/// Turns a parsed memory report into numbers: the backend (option, `Backend:` line or the
/// printed limits), exact Used bytes (from the Buffers address ranges when present), limits,
/// usage, and the metrics the `mem.*` rules read (names in docs/METRICS.md, section mem).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/memreport/backend.hpp"
#include "ptune/memreport/model.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::memreport {

/// How the backend of a report was decided.
struct BackendChoice {
    std::optional<Backend> backend;
    std::string source;             ///< "option", "header", "limits" or empty when unknown
    bool legacy_vec_limit = false;  ///< some Vec limit predates the 2026-06-18 safe cap
};

/// Resolves the backend and fills the derived fields of every SpaceUsage (used bytes, limit,
/// usage). `forced` is the --backend option. Inconsistencies are reported with file:line.
BackendChoice analyze(Report& report, std::optional<Backend> forced, Diagnostics& diagnostics);

/// Publishes per-function metrics (subject kind "function", mirrored as "kernel" under the same
/// name for cross-artifact rules) and run metrics (`mem.report_found`, `mem.functions`).
void publish_metrics(const Report& report, const BackendChoice& choice, rules::MetricStore& store);

/// The JSON view: backend, format_version, functions[{name, spaces[{space, used_bytes,
/// limit_bytes, usage_pct, memrefs, ...}], buffers}].
nlohmann::json to_json(const Report& report, const BackendChoice& choice);

}  // namespace ptune::memreport
