#pragma once
// The upstream converter's `--overhead` counters (swimlane.md §5.4, §6.3 step 12, model §10.2),
// computed by one sweep over sorted interval ends.

#include "trace_model.hpp"

namespace ptune::swimlane::detail {

/// Appends the overhead counter tracks (pid 2, tids 9101–9122) and their samples of every source
/// with a task graph to the model; a sample whenever a series changes, as upstream.
void add_overhead_counters(TraceModel& model);

}  // namespace ptune::swimlane::detail
