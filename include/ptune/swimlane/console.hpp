#pragma once
/// @file console.hpp
/// Console lines of upstream's converter that depend on the capture rather than on the
/// statistics (upstream-2026-09.md §1.13, swimlane.md §5.6 "Alloc bar").

#include <cstdint>
#include <string>
#include <vector>

#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// Dummy tasks (deps.json: every kernel id inactive) that the orchestrator submitted
/// (`orch_submit`) but no `dummy_task` scheduler record marks: upstream warns for each that
/// its Worker View bar cannot be rendered. Ids in submit order, each once; empty without deps.
std::vector<std::uint64_t> dummies_without_marker(const Capture& capture, const Deps* deps);

/// Upstream's warning for one of them, without the `Warning: ` prefix:
/// `dummy(<label>) has no dummy_task scheduler record; its Worker View bar cannot be rendered.`
std::string dummy_without_marker_message(const Capture& capture, std::uint64_t task_id);

}  // namespace ptune::swimlane
