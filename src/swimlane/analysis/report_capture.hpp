#pragma once
// The September-2026 facts of a capture in the swimlane-analyze report (upstream-2026-09.md
// §1.17): runtime (given or inferred), scheduler producers and stream capture counts, runs,
// AICore-scheduler idle and time split, AICPU lifecycle intervals, clock alignment.

#include "ptune/render/report.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane::detail {

/// Whether the capture has anything of the above to say (a file of the older generation
/// without streams, lifecycle, alignment or several runs has not: its report is unchanged).
bool has_capture_facts(const Capture& capture);

/// Adds the "Capture" table (and the AICore-scheduler / lifecycle tables when present) and the
/// JSON `capture` object to `report`.
void add_capture_facts(render::Report& report, const Capture& capture, const Analysis& analysis);

}  // namespace ptune::swimlane::detail
