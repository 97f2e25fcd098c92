#pragma once
// The runs of one records file (upstream-2026-09.md §1.10): a process stamps a monotonic
// `run_epoch` on every row, and a file can hold several runs whose task ids repeat. Everything
// per execution is keyed by (run, task id); a file without epochs that still holds several runs
// (the same task id again after every core fell idle) is split the same way and reported.

#include "ptune/core/diagnostics.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane::detail {

/// Fills Capture::runs and Capture::row_run, and orders the rows by (run, task id) when there
/// is more than one run (rows of one run stay sorted by task id, join order on ties).
void find_runs(Capture& capture, Diagnostics& diagnostics);

}  // namespace ptune::swimlane::detail
