#pragma once
/// @file lookup.hpp
/// Finding rules by the ids outputs print (rule id, catalogue number, hint code), and a rule as
/// JSON. The catalogue as a report for `ptune rules` is render/catalogue_report.hpp.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

}  // namespace ptune::rules
