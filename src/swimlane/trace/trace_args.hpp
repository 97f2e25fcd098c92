#pragma once
// What a trace slice says besides its place and time, written once for both writers: its name,
// its category and its args (the JSON output's `args` object, the protobuf output's debug
// annotations). The args are enumerated by `visit_slice_args`, a template, so each writer's sink
// is called directly and inlined: a 200K-task trace holds ~1.5M slices, and the writers are the
// hot path of `swimlane-merge`.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ptune/swimlane/host_phase_lanes.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail {

/// The args' keys, in the order their names were first listed; the protobuf writer interns a
/// key's name with iid = ArgKey + 1, so the order is part of its output.
enum class ArgKey : std::uint8_t {
    EventHint,
    FanoutHint,
    FaninHint,
    DurationUs,
    KernelDurationUs,
    LocalSetupUs,
    RowTaskId,
    DispatchTimeUs,
    FinishTimeUs,
    AicpuDurationUs,
    Phase,
    LoopIter,
    TasksProcessed,
    SharedAtStart,
    SharedAtEnd,
    FinishesProcessed,
    FinishRowsAttributed,
    TaskId,
    PredicatedPass,
    SubmitIdx,
    Bytes,
    OuterTaskId,
    VisibleNodeCount,
    VisibleNodeIndexMin,
    VisibleNodeIndexMax,
    PrepareSliceCount,
    PrepareDurationUs,
    ExecutionStartUs,
    ExecutionDurationUs,
    SyntheticIdLayout,
    // September 2026 (upstream-2026-09.md §1.6–§1.13), appended: the protobuf interning ids of
    // the keys above stay as they were.
    RunEpoch,
    SchedulerDurationUs,
    VisibleSubTaskCount,
    VisibleSubTaskLocalIdMin,
    VisibleSubTaskLocalIdMax,
    AicpuThreadId,
    // Multi-rank traces (§1.14): every slice names its rank and that rank's placement slack.
    Rank,
    SlackNs,
    // A multi-rank host block or dispatcher slice: its args as JSON text (the protobuf output's
    // one string annotation; the JSON output writes the object itself).
    LayoutArgs,
};

/// The name of each ArgKey (the JSON key as upstream spells it).
inline constexpr std::array<std::string_view, 39> kArgKeyName = {
    "event-hint",
    "fanout-hint",
    "fanin-hint",
    "duration-us",
    "kernel-duration-us",
    "local_setup_us",
    "taskId",
    "dispatch-time-us",
    "finish-time-us",
    "aicpu-duration-us",
    "phase",
    "loop_iter",
    "tasks_processed",
    "shared_at_start (aic,aiv,mix)",
    "shared_at_end (aic,aiv,mix)",
    "finishes_processed",
    "finish_rows_attributed",
    "task_id",
    "predicated_pass",
    "submit_idx",
    "bytes",
    "outer_task_id",
    "visible_node_count",
    "visible_node_index_min",
    "visible_node_index_max",
    "prepare_slice_count",
    "prepare_duration_us",
    "execution_start_us",
    "execution_duration_us",
    "synthetic_id_layout",
    "run_epoch",
    "scheduler-duration-us",
    "visible_sub_task_count",
    "visible_sub_task_local_id_min",
    "visible_sub_task_local_id_max",
    "aicpu_thread_id",
    "rank",
    "slack_ns",
    "args",
};

inline constexpr std::string_view arg_name(ArgKey key) {
    return kArgKeyName[static_cast<std::size_t>(key)];
}

/// The value types of an arg; a sink has one overload per type. Each is a distinct type (not a
/// bare integer or string) so the overload is chosen by what the value means, not by how C++
/// converts it.
namespace arg {
/// A signed integer (a JSON number, a protobuf int_value).
struct Int {
    std::int64_t value;
};
/// A task id or another unsigned 64-bit value (a JSON number, a protobuf uint_value).
struct Uint {
    std::uint64_t value;
};
/// A duration or time in integer ns shown as µs (JSON: exactly three decimals; protobuf: the
/// double that text parses to).
struct Micros {
    std::int64_t ns;
};
/// Any text (JSON escapes it).
struct Text {
    std::string_view value;
};
/// Text ptune composed from task labels and digits (fan-in/out hints): printable ASCII without
/// quotes or backslashes, so JSON copies it as is.
struct PlainText {
    std::string_view value;
};
struct Bool {
    bool value;
};
/// The queue depths (aic, aiv, mix): a JSON array, protobuf array_values.
struct Depths {
    std::span<const std::int32_t, 3> values;
};
/// A task row's `Task:r1t1, FuncId:0, CoreId:0`, left for the sink to compose (the JSON writer
/// streams it without building the string).
struct TaskHint {
    const TaskRow& row;
    TaskLabels labels;
};
}  // namespace arg

/// The `cat` of a slice kind.
std::string_view slice_category(SliceKind kind);
/// The `cat` of a slice (a multi-rank layout slice carries its own).
std::string_view slice_category(const TraceModel& model, const Slice& s);

/// The name of a slice that is not a task row's (`complete(3)`, `submit(r1t2)`, ...), composed
/// in `scratch`.
std::string_view composed_slice_name(const TraceModel& model, const Slice& s, std::string& scratch);

/// The name of a slice (`QK(r1t1)`, `complete(3)`, `submit(r1t2)`, ...), composed in `scratch`
/// when it is not stored; the view lives until `scratch` changes. Inline for the task rows,
/// most of the slices, whose labels are stored.
inline std::string_view slice_name(const TraceModel& model, const Slice& s, std::string& scratch) {
    if (s.kind == SliceKind::WorkerTask || s.kind == SliceKind::SchedTask)
        return model.extras[s.source].labels[s.ref];
    return composed_slice_name(model, s, scratch);
}

/// A scheduler phase's task count as shown: the record's, else (a complete without one) the
/// rows whose finish falls inside it.
inline std::int64_t phase_tasks_processed(const TraceModel& model, const Slice& s) {
    const SchedulerPhase& p = model.sources[s.source].capture->scheduler_phases[s.ref];
    if (p.tasks_processed >= 0) return p.tasks_processed;
    return p.kind == PhaseKind::Complete ? model.extras[s.source].finish_rows[s.ref] : 0;
}

/// The args of a scheduler phase slice (see visit_slice_args).
template <class Sink>
void visit_phase_args(const TraceModel& model, const Slice& s, Sink& sink) {
    const Capture& cap = *model.sources[s.source].capture;
    const SourceExtras& extras = model.extras[s.source];
    const SchedulerPhase& p = cap.scheduler_phases[s.ref];
    std::int64_t count = phase_tasks_processed(model, s);
    sink(ArgKey::Phase, arg::Text{cap.phase_name(p)});
    sink(ArgKey::LoopIter, arg::Int{p.loop_iter});
    sink(ArgKey::TasksProcessed, arg::Int{count});
    if (p.has_depths) {
        sink(ArgKey::SharedAtStart, arg::Depths{p.shared_at_start});
        sink(ArgKey::SharedAtEnd, arg::Depths{p.shared_at_end});
    }
    if (p.kind == PhaseKind::Complete) {
        sink(ArgKey::FinishesProcessed, arg::Int{count});
        sink(ArgKey::FinishRowsAttributed, arg::Int{extras.finish_rows[s.ref]});
    }
    // AICore scheduler slices name their task (§1.6).
    if (p.task_id >= 0 && p.thread < cap.streams.size() && cap.streams[p.thread].aicore())
        sink(ArgKey::TaskId, arg::Int{p.task_id});
    if (p.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{p.run_epoch});
}

/// The args of a graph execution slice (see visit_slice_args).
template <class Sink>
void visit_graph_args(const TraceModel& model, const Slice& s, Sink& sink) {
    const GraphInstance& g = model.extras[s.source].graphs[s.ref];
    sink(ArgKey::OuterTaskId, arg::Uint{g.outer_task_id});
    sink(g.sub_tasks ? ArgKey::VisibleSubTaskCount : ArgKey::VisibleNodeCount,
         arg::Int{g.node_count});
    sink(g.sub_tasks ? ArgKey::VisibleSubTaskLocalIdMin : ArgKey::VisibleNodeIndexMin,
         arg::Int{g.node_min});
    sink(g.sub_tasks ? ArgKey::VisibleSubTaskLocalIdMax : ArgKey::VisibleNodeIndexMax,
         arg::Int{g.node_max});
    sink(ArgKey::PrepareSliceCount, arg::Int{g.prepare_count});
    sink(ArgKey::PrepareDurationUs, arg::Micros{g.prepare_total_ns});
    // On the trace axis, like the slice itself (the graph's times are the capture's).
    sink(ArgKey::ExecutionStartUs, arg::Micros{g.exec_start_ns + model.offsets_ns[s.source]});
    sink(ArgKey::ExecutionDurationUs, arg::Micros{g.exec_end_ns - g.exec_start_ns});
    sink(ArgKey::SyntheticIdLayout,
         arg::Text{g.sub_tasks ? "space1:(outer_task_id << 32) | sub_task_local_id"
                               : "ring1:(outer_task_id << 10) | node_index"});
    if (g.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{g.run_epoch});
}

/// The args of a slice of one capture (see visit_slice_args).
template <class Sink>
void visit_own_slice_args(const TraceModel& model, const Slice& s, std::string_view name,
                          Sink& sink) {
    const Capture& cap = *model.sources[s.source].capture;
    const SourceExtras& extras = model.extras[s.source];
    switch (s.kind) {
        case SliceKind::WorkerTask: {
            const TaskRow& row = cap.tasks[s.ref];
            std::uint32_t task = extras.row_task[s.ref];
            sink(ArgKey::EventHint, arg::TaskHint{row, cap.labels});
            sink(ArgKey::FanoutHint, arg::PlainText{extras.fanout_hints[task]});
            sink(ArgKey::FaninHint, arg::PlainText{extras.fanin_hints[task]});
            // duration-us counts from the receive (the local setup included), as upstream.
            sink(ArgKey::DurationUs, arg::Micros{row.end_ns - row.receive_ns});
            sink(ArgKey::KernelDurationUs, arg::Micros{row.end_ns - row.start_ns});
            sink(ArgKey::LocalSetupUs, arg::Micros{row.start_ns - row.receive_ns});
            sink(ArgKey::RowTaskId, arg::Uint{row.task_id});
            if (row.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{row.run_epoch});
            return;
        }
        case SliceKind::SchedTask: {
            const TaskRow& row = cap.tasks[s.ref];
            sink(ArgKey::EventHint, arg::TaskHint{row, cap.labels});
            sink(ArgKey::DispatchTimeUs, arg::Micros{s.ts});
            sink(ArgKey::FinishTimeUs, arg::Micros{s.ts + s.dur});
            sink(cap.september() ? ArgKey::SchedulerDurationUs : ArgKey::AicpuDurationUs,
                 arg::Micros{row.finish_ns - row.dispatch_ns});
            sink(ArgKey::RowTaskId, arg::Uint{row.task_id});
            if (row.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{row.run_epoch});
            return;
        }
        case SliceKind::Phase:
            visit_phase_args(model, s, sink);
            return;
        case SliceKind::Marker: {
            const SchedulerPhase& p = cap.scheduler_phases[s.ref];
            sink(ArgKey::LoopIter, arg::Int{p.loop_iter});
            sink(ArgKey::TaskId, arg::Int{p.task_id});
            sink(ArgKey::EventHint, arg::Text{name});
            if (p.kind == PhaseKind::DummyTask)
                sink(ArgKey::Phase, arg::Text{"dummy_task"});
            else
                sink(ArgKey::PredicatedPass, arg::Bool{false});
            if (p.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{p.run_epoch});
            return;
        }
        case SliceKind::Orch: {
            const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
            sink(ArgKey::Phase, arg::Text{cap.phase_name(p)});
            sink(ArgKey::SubmitIdx, arg::Int{p.submit_idx});
            sink(ArgKey::TaskId, arg::Int{p.task_id});
            if (p.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{p.run_epoch});
            return;
        }
        case SliceKind::Upload:
            sink(ArgKey::Bytes, arg::Int{cap.host.uploads[s.ref].bytes});
            return;
        case SliceKind::HostPhase:
            sink(ArgKey::Phase,
                 arg::Text{model.sources[s.source].host_phases->slices[s.ref].phase});
            return;
        case SliceKind::Graph:
            visit_graph_args(model, s, sink);
            return;
        case SliceKind::Layout:
            sink(ArgKey::LayoutArgs, arg::Text{model.multi_rank->slices[s.ref].args_json});
            return;
        case SliceKind::Lifecycle:
            sink(ArgKey::AicpuThreadId, arg::Int{cap.lifecycle[s.ref / 8].thread});
            return;
        case SliceKind::Alloc: {
            const OrchestratorPhase& p = cap.orchestrator_phases[s.ref];
            sink(ArgKey::Phase, arg::Text{"alloc"});
            sink(ArgKey::TaskId, arg::Int{p.task_id});
            sink(ArgKey::EventHint, arg::Text{name});
            if (p.run_epoch != kNoEpoch) sink(ArgKey::RunEpoch, arg::Int{p.run_epoch});
            return;
        }
    }
}

/// Calls `sink(ArgKey, value)` for each arg of slice `s` in output order (one arg at least),
/// `value` being one of the arg:: types. `name` is the slice's name from slice_name: a marker's
/// and an alloc's event-hint repeat it. In a multi-rank trace every slice also carries `rank`
/// and `slack_ns` (upstream-2026-09.md §1.14).
template <class Sink>
void visit_slice_args(const TraceModel& model, const Slice& s, std::string_view name, Sink& sink) {
    visit_own_slice_args(model, s, name, sink);
    if (s.kind == SliceKind::Layout) return;  // a host block slice names its rank itself
    if (const MultiRankLayout* layout = model.multi_rank) {
        sink(ArgKey::Rank, arg::Int{layout->ranks.at(s.source)});
        if (s.source < layout->slacks_ns.size())
            sink(ArgKey::SlackNs, arg::Int{layout->slacks_ns[s.source]});
    }
}

}  // namespace ptune::swimlane::detail
