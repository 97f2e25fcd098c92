// Capture-dependent console warnings of upstream's converter (upstream-2026-09.md §1.13).

#include "ptune/swimlane/console.hpp"

#include <unordered_set>

namespace ptune::swimlane {

std::vector<std::uint64_t> dummies_without_marker(const Capture& capture, const Deps* deps) {
    std::vector<std::uint64_t> out;
    // Without deps.json upstream classifies a dummy by its dummy_task record, so none is missing.
    if (deps == nullptr) return out;
    std::unordered_set<std::uint64_t> marked;
    for (const SchedulerPhase& p : capture.scheduler_phases)
        if (p.kind == PhaseKind::DummyTask && p.task_id >= 0)
            marked.insert(static_cast<std::uint64_t>(p.task_id));
    std::unordered_set<std::uint64_t> said;
    for (const OrchestratorPhase& p : capture.orchestrator_phases) {
        if (capture.phase_name(p) != "orch_submit" || p.task_id < 0) continue;
        auto id = static_cast<std::uint64_t>(p.task_id);
        const DepsTask* task = deps->tasks.find(id);
        if (task == nullptr || !task->is_dummy() || marked.contains(id)) continue;
        if (said.insert(id).second) out.push_back(id);
    }
    return out;
}

std::string dummy_without_marker_message(const Capture& capture, std::uint64_t task_id) {
    return "dummy(" + task_display(task_id, capture.labels) +
           ") has no dummy_task scheduler record; its Worker View bar cannot be rendered.";
}

}  // namespace ptune::swimlane
