#pragma once
/// @file catalogue_report.hpp
/// `ptune rules list | explain ID`: finding rules by the ids outputs print and what the
/// catalogue looks like to a user, as render::Reports (the command only parses and emits).

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::rules {

/// The rules an id names, case-insensitively: a rule id (`pmu.mte2-bound`), a perf-hint code
/// (`PH001`, the rule `hints.PH001`: one rule each), or a catalogue number (`P2`, `X1`: every
/// rule under it). Empty when nothing matches.
std::vector<const Rule*> resolve_id(const Catalogue& catalogue, std::string_view id);

/// The known id (rule id, catalogue number or hint code) closest to `id` by edit distance, for
/// "did you mean"; empty when none is within max(2, size/3) edits.
std::string closest_id(const Catalogue& catalogue, std::string_view id);

/// A rule as JSON: id, catalogue (null when none), title, severity, tier, guide, subject,
/// condition, params, message, advice, enabled.
nlohmann::json rule_to_json(const Rule& rule);

/// `rules explain`: one field/value table per rule; JSON `rules` (all of them) and, for a single
/// rule, `rule` too (the historical shape).
render::Report explain_report(const std::vector<const Rule*>& found);

/// `rules list`: one row per rule whose id starts with `area` + "." (every rule when `area` is
/// empty): id (`(disabled)` marked), catalogue number, severity, tier, thresholds, title; JSON
/// `rules`.
render::Report list_report(const Catalogue& catalogue, const std::string& area);

}  // namespace ptune::rules
