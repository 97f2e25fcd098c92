// Builder steps for phases (builder.hpp): scheduler phases, AICPU lifecycle, orchestrator and
// host phases.

#include "builder.hpp"

namespace ptune::swimlane::detail::build {

bool Builder::aicore_stream(std::uint32_t thread) const {
    return thread < cap_.streams.size() && cap_.streams[thread].aicore();
}

bool Builder::inner_phase(const SchedulerPhase& p) const {
    return is_inner(p.kind) && !aicore_stream(p.thread);
}

void Builder::make_scheduler_phases() {
    const auto& phases = cap_.scheduler_phases;
    if (phases.empty()) return;
    bool all_aicore =
        !cap_.streams.empty() &&
        std::all_of(cap_.streams.begin(), cap_.streams.end(),
                    [](const SchedulerStream& s) { return !s.present || s.aicore(); }) &&
        std::any_of(cap_.streams.begin(), cap_.streams.end(),
                    [](const SchedulerStream& s) { return s.present; });
    model_.processes.push_back({pid_base_ + kSchedulerPid,
                                process_label(all_aicore ? "AICore Scheduler" : "AICPU Scheduler"),
                                2});
    std::size_t arrays = std::max(cap_.scheduler_arrays, threads_);
    std::vector<bool> has_inner(arrays, false);
    for (const auto& p : phases)
        if (p.thread < arrays && inner_phase(p)) has_inner[p.thread] = true;
    phase_slice_.assign(phases.size(), kNone);
    thread_completes_.assign(arrays, {});
    thread_dispatches_.assign(arrays, {});
    std::uint32_t queue_track = kNone;
    {
        // Sized once (see ChunkedVector): the counters (at most one per complete, dispatch and
        // resolution-thread record with depths) and each thread's completes and dispatches.
        std::size_t samples = 0;
        std::vector<std::size_t> completes(arrays), dispatches(arrays);
        for (const auto& p : phases) {
            samples +=
                p.has_depths && (p.kind == PhaseKind::Complete || p.kind == PhaseKind::Dispatch ||
                                 p.kind == PhaseKind::ResolveStandalone ||
                                 p.kind == PhaseKind::AsyncPoll || p.kind == PhaseKind::Dummy);
            if (p.thread < arrays && p.kind == PhaseKind::Complete) ++completes[p.thread];
            if (p.thread < arrays && p.kind == PhaseKind::Dispatch) ++dispatches[p.thread];
        }
        model_.counters.reserve(model_.counters.size() + samples);
        for (std::size_t t = 0; t < arrays; ++t) {
            thread_completes_[t].reserve(completes[t]);
            thread_dispatches_[t].reserve(dispatches[t]);
        }
    }
    // Thread by thread, file order within one: one pass, however many threads there are.
    std::vector<std::uint32_t> by_thread = identity(phases.size());
    stable_order(by_thread, [&](std::uint32_t i) { return std::uint64_t{phases[i].thread}; });
    std::size_t next = 0;
    for (std::uint32_t t = 0; t < arrays; ++t) {
        std::int64_t base = 30000 + 10 * static_cast<std::int64_t>(t);
        // AICore scheduler lanes are named after their worker (§1.6).
        std::string lane_name =
            aicore_stream(t) ? fmt::format("Scheduler_{}", cap_.streams[t].worker_id >= 0
                                                               ? cap_.streams[t].worker_id
                                                               : static_cast<std::int64_t>(t))
                             : fmt::format("Sched_{}", t);
        std::uint32_t main = group(kSchedulerPid, base, lane_name);
        std::uint32_t inner = has_inner[t] ? group(kSchedulerPid, base + 1, lane_name) : kNone;
        for (; next < by_thread.size() && phases[by_thread[next]].thread == t; ++next) {
            std::uint32_t i = by_thread[next];
            const SchedulerPhase& p = phases[i];
            if (p.kind == PhaseKind::DummyTask || p.kind == PhaseKind::PredicatedSkip) {
                if (t < aicpu_lanes_) {
                    std::uint32_t lane =
                        group_index_.at((static_cast<std::uint64_t>(kWorkerPid) << 32) |
                                        static_cast<std::uint64_t>(19000 + t));
                    // Zero-width markers get 0.02 µs so they can be seen and bound to.
                    std::uint32_t s =
                        add_slice(SliceKind::Marker, i, p.start_ns,
                                  std::max<std::int64_t>(p.end_ns - p.start_ns, 20), lane, true);
                    if (p.task_id >= 0) {
                        const std::uint32_t run = run_of_record(cap_, p.run_epoch, p.start_ns);
                        const auto id = static_cast<std::uint64_t>(p.task_id);
                        aicpu_anchor_[run].try_emplace(id, s);
                        auto& records =
                            p.kind == PhaseKind::DummyTask ? dummy_records_ : skip_records_;
                        records[run].try_emplace(id, 0);
                    }
                }
                continue;
            }
            if (!is_rendered(p.kind)) continue;
            std::uint32_t s = add_slice(SliceKind::Phase, i, p.start_ns, p.end_ns - p.start_ns,
                                        inner_phase(p) ? inner : main, false);
            phase_slice_[i] = s;
            if (p.kind == PhaseKind::Complete) thread_completes_[t].add(p, i);
            if (p.kind == PhaseKind::Dispatch) thread_dispatches_[t].add(p, i);
            // Queue counters: complete/dispatch, and resolve/async_poll/dummy on a
            // resolution thread.
            bool resolution = p.kind == PhaseKind::ResolveStandalone ||
                              ((p.kind == PhaseKind::AsyncPoll || p.kind == PhaseKind::Dummy) &&
                               resolution_thread(t));
            if ((p.kind == PhaseKind::Complete || p.kind == PhaseKind::Dispatch || resolution) &&
                p.has_depths) {
                if (queue_track == kNone) queue_track = counter_track();
                model_.counters.push_back({p.end_ns + offset_, queue_track, i});
            }
        }
    }
    for (auto* lists : {&thread_completes_, &thread_dispatches_})
        for (auto& list : *lists) list.sort();
}

bool Builder::resolution_thread(std::uint32_t thread) {
    if (resolution_threads_.empty()) {
        resolution_threads_.assign(cap_.scheduler_arrays + 1, 0);
        for (const auto& p : cap_.scheduler_phases)
            if (p.kind == PhaseKind::ResolveStandalone && p.thread < resolution_threads_.size())
                resolution_threads_[p.thread] = 1;
    }
    return thread < resolution_threads_.size() && resolution_threads_[thread];
}

void Builder::make_lifecycle() {
    const auto& records = cap_.lifecycle;
    if (records.empty()) return;
    model_.processes.push_back({pid_base_ + kLifecyclePid, process_label("AICPU Lifecycle"), 2});
    for (std::uint32_t i = 0; i < records.size(); ++i) {
        const LifecycleRecord& r = records[i];
        std::uint32_t grp =
            group(kLifecyclePid, 60000 + r.thread, fmt::format("AICPU Thread {}", r.thread));
        for (std::uint32_t k = 0; k < r.intervals.size(); ++k) {
            auto [start, end] = r.intervals[k];
            if (start == kNoTime || end == kNoTime || end < start) continue;
            add_slice(SliceKind::Lifecycle, i * 8 + k, start, end - start, grp, false);
        }
    }
}

std::uint32_t Builder::counter_track() {
    Track track;
    track.pid = pid_base_ + kSchedulerPid;
    track.tid = 3999;
    track.name = "shared_ready_queue (global)";
    track.sort_index = 100;
    track.is_counter = true;
    track.source = k_;
    model_.tracks.push_back(std::move(track));
    return static_cast<std::uint32_t>(model_.tracks.size() - 1);
}

void Builder::make_orchestrator() {
    const auto& orch = cap_.orchestrator_phases;
    const auto& uploads = cap_.host.uploads;
    const HostPhaseLanes* phases = src_.host_phases;
    if (orch.empty() && uploads.empty() && (phases == nullptr || phases->slices.empty())) return;
    const bool host = cap_.host_orchestration;
    std::string name = host && orch.empty() ? "Host Prepare"
                       : host               ? "Host Orchestrator"
                       : src_.names && !src_.names->orchestrator_name.empty()
                           ? "AICPU " + src_.names->orchestrator_name
                           : std::string("AICPU Orchestrator");
    model_.processes.push_back({pid_base_ + kOrchPid, process_label(name), 1});
    if (!uploads.empty()) {
        std::uint32_t grp = group(kOrchPid, 4100, "H2D");
        for (std::uint32_t i = 0; i < uploads.size(); ++i)
            add_slice(SliceKind::Upload, i, uploads[i].start_ns,
                      uploads[i].end_ns - uploads[i].start_ns, grp, false);
    }
    if (phases != nullptr) add_host_phases(*phases);
    orch_slice_.assign(orch.size(), kNone);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> alloc_refs;  // (run, record)
    std::unordered_map<std::uint32_t, std::uint32_t> thread_group;    // thread → lane group
    for (std::uint32_t i = 0; i < orch.size(); ++i) {
        const OrchestratorPhase& p = orch[i];
        auto [known, inserted] = thread_group.try_emplace(p.thread, kNone);
        if (inserted)
            known->second = group(kOrchPid, 4000 + static_cast<std::int64_t>(p.thread),
                                  fmt::format("{}_{}", host ? "Host" : "Orch", p.thread));
        std::uint32_t grp = known->second;
        orch_slice_[i] =
            add_slice(SliceKind::Orch, i, p.start_ns, p.end_ns - p.start_ns, grp, false);
        if (p.task_id < 0 || cap_.phase_name(p) != "orch_submit") continue;
        std::uint64_t id = static_cast<std::uint64_t>(p.task_id);
        const std::uint32_t run = run_of_submit(cap_, p.run_epoch, p.start_ns);
        first_submit_[run].try_emplace(id, i);
        if (is_alloc(run, id)) alloc_refs.emplace_back(run, i);
    }
    // Legacy captures: orch_fanin / orch_params stand in when no orch_submit exists.
    for (std::uint32_t i = 0; i < orch.size(); ++i)
        if (orch[i].task_id >= 0 &&
            (cap_.phase_name(orch[i]) == "orch_fanin" || cap_.phase_name(orch[i]) == "orch_params"))
            first_submit_[run_of_submit(cap_, orch[i].run_epoch, orch[i].start_ns)].try_emplace(
                static_cast<std::uint64_t>(orch[i].task_id), i);
    for (auto [run, i] : alloc_refs) {
        const OrchestratorPhase& p = orch[i];
        std::size_t lane = threads_ + p.thread;
        if (lane >= aicpu_lanes_) continue;
        std::uint32_t grp = group_index_.at((static_cast<std::uint64_t>(kWorkerPid) << 32) |
                                            static_cast<std::uint64_t>(19000 + lane));
        std::uint32_t s =
            add_slice(SliceKind::Alloc, i, p.start_ns, p.end_ns - p.start_ns, grp, true);
        aicpu_anchor_[run].try_emplace(static_cast<std::uint64_t>(p.task_id), s);
    }
}

void Builder::add_host_phases(const HostPhaseLanes& phases) {
    std::unordered_map<std::int64_t, std::uint32_t> by_tid;
    for (std::uint32_t i = 0; i < phases.slices.size(); ++i) {
        const HostPhaseLanes::Slice& p = phases.slices[i];
        auto [it, inserted] = by_tid.try_emplace(p.tid, kNone);
        if (inserted) {
            std::string name =
                p.tid >= 0 ? fmt::format("Host phases {}", p.tid) : std::string("Host phases");
            it->second =
                group(kOrchPid, 4200 + static_cast<std::int64_t>(by_tid.size()), std::move(name));
        }
        add_slice(SliceKind::HostPhase, i, p.start_ns, p.dur_ns, it->second, false);
    }
}

}  // namespace ptune::swimlane::detail::build
