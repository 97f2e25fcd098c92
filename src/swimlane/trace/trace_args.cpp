// Slice names and categories shared by the JSON and protobuf writers (trace_args.hpp).

#include "trace_args.hpp"

#include <algorithm>

#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane::detail {

namespace {

/// A marker's label: `dummy(r1t4)`, or for a predicated skip the task's own label (its first
/// active kernel in deps.json).
std::string marker_label(const TraceSource& src, const SchedulerPhase& p) {
    auto id = static_cast<std::uint64_t>(std::max<std::int64_t>(p.task_id, 0));
    const TaskLabels labels = src.capture->labels;
    if (p.kind == PhaseKind::DummyTask) return "dummy(" + task_display(id, labels) + ")";
    std::int32_t func_id = -1;
    if (src.deps)
        if (const DepsTask* task = src.deps->tasks.find(id))
            for (std::int32_t k : task->kernel_ids)
                if (k >= 0) {
                    func_id = k;
                    break;
                }
    return kernel_base_name(func_id, src.names) + "(" + task_display(id, labels) + ")";
}

/// The AICore scheduler's display name of a phase kind.
std::string_view aicore_display(std::string_view kind) {
    if (kind == "complete") return "Completion";
    if (kind == "resolve") return "Resolve";
    if (kind == "state_probe") return "StateProbe";
    if (kind == "dispatch") return "Dispatch";
    if (kind == "worksteal") return "Worksteal";
    if (kind == "refill") return "Refill";
    return kind;
}

}  // namespace

std::string_view slice_category(SliceKind kind) {
    switch (kind) {
        case SliceKind::Phase:
            return "scheduler";
        case SliceKind::Orch:
            return "orchestrator";
        case SliceKind::Upload:
            return "host_h2d";
        case SliceKind::Graph:
            return "graph_execution";
        case SliceKind::HostPhase:
            return "host_phase";
        case SliceKind::Lifecycle:
            return "aicpu_lifecycle";
        default:
            return "event";
    }
}

std::string_view slice_category(const TraceModel& model, const Slice& s) {
    if (s.kind == SliceKind::Layout) return model.multi_rank->slices[s.ref].cat;
    return slice_category(s.kind);
}

std::string_view composed_slice_name(const TraceModel& model, const Slice& s,
                                     std::string& scratch) {
    const TraceSource& src = model.sources[s.source];
    const Capture& cap = *src.capture;
    switch (s.kind) {
        case SliceKind::WorkerTask:
        case SliceKind::SchedTask:
            return model.extras[s.source].labels[s.ref];
        case SliceKind::Phase: {
            const SchedulerPhase& p = cap.scheduler_phases[s.ref];
            if (p.thread < cap.streams.size() && cap.streams[p.thread].aicore()) {
                // AICore scheduler: `<Display>(<task label>)`, or `<Display>` (§1.6).
                scratch = aicore_display(cap.phase_name(p));
                if (p.task_id >= 0) {
                    scratch += '(';
                    append_task_label(scratch, static_cast<std::uint64_t>(p.task_id), cap.labels);
                    scratch += ')';
                }
                return scratch;
            }
            scratch = p.kind == PhaseKind::ResolveStandalone ? "resolve" : cap.phase_name(p);
            scratch += '(';
            scratch += std::to_string(phase_tasks_processed(model, s));
            scratch += ')';
            return scratch;
        }
        case SliceKind::Lifecycle:
            return kLifecycleIntervals[s.ref % 8];
        case SliceKind::Marker:
            scratch = marker_label(src, cap.scheduler_phases[s.ref]);
            return scratch;
        case SliceKind::Orch: {
            // `submit(r1t2)`: the phase without its `orch_` prefix, then the task (or, for a
            // record without one, its submit index).
            const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
            std::string_view short_name = cap.phase_name(p);
            if (short_name.starts_with("orch_")) short_name.remove_prefix(5);
            scratch = short_name;
            scratch += '(';
            scratch += p.task_id >= 0
                           ? task_display(static_cast<std::uint64_t>(p.task_id), cap.labels)
                           : std::to_string(p.submit_idx);
            scratch += ')';
            return scratch;
        }
        case SliceKind::Upload:
            return cap.host.uploads[s.ref].phase;
        case SliceKind::HostPhase:
            return src.host_phases->slices[s.ref].phase;
        case SliceKind::Graph:
            scratch = graph_label(model.extras[s.source].graphs[s.ref]);
            return scratch;
        case SliceKind::Layout:
            return model.multi_rank->slices[s.ref].name;
        case SliceKind::Alloc:
            scratch = "alloc(";
            scratch += task_display(
                static_cast<std::uint64_t>(cap.orchestrator_phases[s.ref].task_id), cap.labels);
            scratch += ')';
            return scratch;
    }
    return "slice";
}

}  // namespace ptune::swimlane::detail
