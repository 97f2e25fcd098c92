#pragma once
/// @file render.hpp
/// Output forms of hints-lint (conventions.md §3): the JSON view, GCC-style lines for editors,
/// SARIF 2.1.0 for code scanning and GitHub workflow-command annotations.

#include <cstddef>
#include <memory>

#include <nlohmann/json.hpp>

#include "ptune/hints/lint.hpp"
#include "ptune/render/report.hpp"

namespace ptune::hints {

/// The JSON view (Report::data): `inputs`, `summary`, `diagnostics` (reported hints, each with
/// `code`, `rule`, `message`, `file`, `line`, `col`, `fields`, `advice`, …), `suppressed`,
/// `unused_suppressions`, `fixed`, `kernels`.
nlohmann::json to_json(const LintResult& result);
/// `--format json`: the report envelope with to_json's view, the diagnostics written one at a
/// time (the same bytes as the standard JSON renderer over to_json, without the DOM).
std::unique_ptr<render::Renderer> make_json_renderer(const LintResult& result);

/// `file:line:col: warning: message [CODE]` plus a `note:` line with the advice; hints without
/// a source location point at their line in the log.
std::unique_ptr<render::Renderer> make_gcc_renderer(const LintResult& result);

/// SARIF 2.1.0: one run, rule metadata per code, `partialFingerprints`, `baselineState` when
/// `with_baseline`.
std::unique_ptr<render::Renderer> make_sarif_renderer(const LintResult& result,
                                                      const rules::Catalogue& catalogue,
                                                      bool with_baseline);

/// `::warning file=…,line=…,col=…,title=…::…` for the `cap_per_level` most important hints per
/// level (GitHub shows 10 per step), a summary `::notice` for the rest and the full list in a
/// log group.
std::unique_ptr<render::Renderer> make_github_renderer(const LintResult& result,
                                                       std::size_t cap_per_level = 10);

}  // namespace ptune::hints
