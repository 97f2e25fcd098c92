#pragma once
// The schedule-graph analyses (schedule_graph.hpp) as report tables and JSON, for
// swimlane-analyze's report (report.cpp).

#include <nlohmann/json.hpp>

#include "ptune/render/report.hpp"
#include "ptune/swimlane/schedule_graph.hpp"

namespace ptune::swimlane::detail {

/// The tables that have something to say: redundant dependencies, early dispatch,
/// single-dependency chains, the critical path's gap classes, the longest setups.
void add_schedule_graph_tables(render::Report& report, const ScheduleGraph& graph);

/// Everything, for the JSON view (`schedule_graph`).
nlohmann::json schedule_graph_json(const ScheduleGraph& graph);

}  // namespace ptune::swimlane::detail
