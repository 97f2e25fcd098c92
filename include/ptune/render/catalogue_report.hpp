#pragma once
/// @file catalogue_report.hpp
/// `ptune rules list | explain ID`: what the catalogue looks like to a user, as Reports (the
/// command only parses and emits).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::render {

/// `rules explain`: one field/value table per rule; JSON `rules` (all of them) and, for a single
/// rule, `rule` too (the historical shape).
Report catalogue_explain_report(const std::vector<const rules::Rule*>& found);

/// The guide every `guide: Part N item M` of a rule cites.
inline constexpr const char* kTuningGuide =
    "the PyPTO performance-tuning guide (pypto-lib docs/debug-and-tune/performance-tuning.md)";

/// `rules explain` for an id ptune prints that names no rule (the P13 caveat of pmu-analyze,
/// advise.inputs-disagree); nullopt for any other id. Case-insensitive.
std::optional<Report> catalogue_note_report(std::string_view id);

/// `rules list`: one row per rule whose id starts with `area` + "." (every rule when `area` is
/// empty): id (`(disabled)` marked), catalogue number, severity, tier, thresholds, title; JSON
/// `rules`.
Report catalogue_list_report(const rules::Catalogue& catalogue, const std::string& area);

}  // namespace ptune::render
