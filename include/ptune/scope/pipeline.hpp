#pragma once
/// @file pipeline.hpp
/// The scope_stats pipeline `ptune scope-stats` and `advise` share: what the user named →
/// scope_stats.jsonl files (+ host logs naming an `orch_error_code`) → paired scopes
/// (parse_scope_stats) → `ring.*` / `scope.*` metrics (publish) → the report.

#include <filesystem>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/metrics.hpp"
#include "ptune/scope/model.hpp"

namespace ptune::scope {

/// The rule area of the scope findings.
inline constexpr std::string_view kRuleArea = "ring.";

/// Reads one file (streamed, one JSON object per line). A first line that is not a metadata
/// object of a known version (4–6) is an error; a bad sample is a warning and skipped (a
/// truncated last line too); pairing is by `(site, depth)` with a stack.
Result<ScopeStats> parse_scope_stats(std::istream& in, const std::string& source,
                                     Diagnostics& diagnostics);

/// The scope_stats.jsonl files under `input` (a file is itself; a directory is searched,
/// `scope_stats/scope_stats.jsonl` at any depth), sorted. Empty when there is none.
std::vector<std::filesystem::path> find_scope_stats(const std::filesystem::path& input);

/// The first `orch_error_code=<n>` in a host log (streamed); nullopt when there is none.
std::optional<OrchError> find_orch_error(std::istream& in, const std::string& source);

/// The host logs (`host.*.log`, `host-strace.*.log` excluded) beside or above a scope_stats
/// file, up to the directory `root`, that name an `orch_error_code`. Only regular files are
/// read: a FIFO or device with such a name is skipped (with a warning in `diagnostics`, when
/// given), never opened. Every host log of a folder searched is appended to `read` (when
/// given), read or not (those after the one that names the code too): it is an input.
std::optional<OrchError> find_orch_error_near(const std::filesystem::path& stats_file,
                                              const std::filesystem::path& root,
                                              Diagnostics* diagnostics = nullptr,
                                              std::vector<std::string>* read = nullptr);

/// What the pipeline read.
struct Loaded {
    std::vector<ScopeStats> files;
    std::optional<OrchError> orch_error;
    std::vector<std::string> inputs;
};

/// Resolves `input` and reads every file; `host_log` (optional) is searched for the
/// `orch_error_code`, else the host logs near the files are. No file → InputError.
Result<Loaded> load(const std::string& input, const std::string& host_log,
                    Diagnostics& diagnostics);

/// Publishes per ring (`ring` subjects named `<r>`, with a `<capture>/` prefix when there are
/// several files) and run-wide `scope.*` metrics (docs/METRICS.md).
void publish(const Loaded& loaded, rules::MetricStore& store);

/// Report tables: per ring and resource the worst scope, the scopes nearest their limit
/// (`top` rows), open scopes, and the JSON view (`fatal`, `dropped`, `scopes` as
/// scope_stats.expected.json, plus `rings`, `open_scopes`, `orch_error`). The per-scope JSON
/// costs ~5 KB a scope: with `json_view` false (a text, markdown or csv output) it is not built.
render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings,
                            std::size_t top = 10, bool json_view = true);

/// scope-stats' JSON: build_report()'s JSON view with every file's `scopes` (and the single
/// file's top-level `scopes`) written one scope at a time, never held as a DOM. Pass the
/// report built with `json_view` false. `loaded` must outlive the renderer.
std::unique_ptr<render::Renderer> make_json_renderer(const Loaded& loaded);

/// The tables of build_report() for advise's section (no JSON view).
std::vector<render::Table> summary_tables(const Loaded& loaded, std::size_t top = 5);

}  // namespace ptune::scope
