// Builder steps for arrows (builder.hpp): dependency, complete, dispatch and submit flows, each
// bound strictly inside its two slices (conventions.md §2.2).

#include "builder.hpp"

namespace ptune::swimlane::detail::build {

bool Builder::is_alloc(std::uint32_t run, std::uint64_t id) const {
    if (skip_records_[run].contains(id)) return false;
    if (src_.deps) return deps_task(id) == nullptr;
    return !task_of_id_[run].contains(id) && !dummy_records_[run].contains(id);
}

int Builder::thread_of_core(std::uint32_t core) const {
    if (core < thread_by_core_.size()) return thread_by_core_[core];
    auto it = core_thread_.find(core);
    return it == core_thread_.end() ? -1 : it->second;
}

void Builder::index_core_threads() {
    // Asked per row: a table when the core ids are small, as in every capture (a5: 108 cores).
    constexpr std::uint32_t kTableCores = 1u << 16;
    std::uint32_t largest = 0;
    for (const auto& [core, thread] : core_thread_) largest = std::max(largest, core);
    thread_by_core_.clear();
    if (largest >= kTableCores) return;
    thread_by_core_.assign(std::size_t{largest} + 1, -1);
    for (const auto& [core, thread] : core_thread_) thread_by_core_[core] = thread;
}

void Builder::resolve_core_threads() {
    // Keyed by the cores present: a sparse core id (2^31) must not size an array.
    core_thread_.clear();
    for (const auto& row : cap_.tasks) core_thread_.try_emplace(row.core_id, -1);
    if (!cap_.core_to_thread.empty()) {
        for (auto& [core, thread] : core_thread_)
            if (core < cap_.core_to_thread.size()) thread = cap_.core_to_thread[core];
        return;
    }
    std::unordered_map<std::uint32_t, std::unordered_map<int, std::size_t>> votes;
    for (const auto& row : cap_.tasks) {
        if (!row.has_aicpu()) continue;
        for (std::uint32_t t = 0; t < thread_dispatches_.size(); ++t)
            if (containing(thread_dispatches_[t], row.dispatch_ns) != kNone) {
                ++votes[row.core_id][static_cast<int>(t)];
                break;
            }
    }
    for (const auto& [core, counts] : votes) {
        int& chosen = core_thread_[core];
        std::size_t best = 0;
        for (auto [t, n] : counts)
            if (n > best || (n == best && t < chosen)) best = n, chosen = t;
    }
}

std::uint32_t Builder::containing(const PhasesByStart& sorted, std::int64_t x) const {
    std::size_t by = sorted.starting_by(x);
    return by > 0 && x <= sorted.ends[by - 1] ? sorted.phases[by - 1] : kNone;
}

std::optional<PhaseSpan> Builder::complete_for(int thread, std::int64_t finish) const {
    if (thread < 0 || static_cast<std::size_t>(thread) >= thread_completes_.size())
        return std::nullopt;
    const PhasesByStart& sorted = thread_completes_[static_cast<std::size_t>(thread)];
    std::size_t by = sorted.starting_by(finish);
    if (by > 0 && finish <= sorted.ends[by - 1]) return sorted.at(by - 1);
    if (by == sorted.phases.size()) return std::nullopt;
    return sorted.at(by);
}

std::uint32_t Builder::dispatch_phase_slice(const TaskRow& row) const {
    int t = thread_of_core(row.core_id);
    if (t < 0 || static_cast<std::size_t>(t) >= thread_dispatches_.size()) return kNone;
    std::uint32_t i = containing(thread_dispatches_[static_cast<std::size_t>(t)], row.dispatch_ns);
    return i == kNone ? kNone : phase_slice_[i];
}

void Builder::attribute_finishes() {
    resolve_core_threads();
    index_core_threads();
    model_.extras[k_].finish_rows.assign(cap_.scheduler_phases.size(), 0);
    for (const auto& row : cap_.tasks) {
        if (!row.has_aicpu()) continue;
        int t = thread_of_core(row.core_id);
        if (t < 0 || static_cast<std::size_t>(t) >= thread_completes_.size()) continue;
        std::uint32_t i = containing(thread_completes_[static_cast<std::size_t>(t)], row.finish_ns);
        if (i != kNone) ++model_.extras[k_].finish_rows[i];
    }
}

const TaskInfo* Builder::task_in_run(std::uint64_t id) const {
    const std::uint32_t* t = task_of_id_[run_].find(id);
    return t ? &tasks_[*t] : nullptr;
}

std::pair<const std::uint32_t*, const std::uint32_t*> Builder::anchors(
    std::uint64_t id, const TaskInfo* task, std::int64_t view, std::uint32_t& single) const {
    if (task) {
        const auto& list = view == kWorkerPid ? worker_anchors_ : sched_anchors_;
        std::uint32_t b = view == kWorkerPid ? task->worker_anchor_begin : task->sched_anchor_begin;
        std::uint32_t e = view == kWorkerPid ? task->worker_anchor_end : task->sched_anchor_end;
        if (b != e) return {list.data() + b, list.data() + e};
    }
    if (view == kWorkerPid) {
        if (const std::uint32_t* a = aicpu_anchor_[run_].find(id)) {
            single = *a;
            return {&single, &single + 1};
        }
    }
    return {nullptr, nullptr};
}

std::int32_t Builder::fan_count(std::uint64_t id, const TaskInfo* task) const {
    if (!task || !task->spmd) return 1;
    if (const DepsTask* dt = deps_task(id)) return static_cast<std::int32_t>(dt->block_num);
    return static_cast<std::int32_t>(task->row_count);
}

void Builder::dependency_flows(std::int64_t view) {
    if (!has_graph() || (view == kSchedViewPid && !has_aicpu_)) return;
    if (model_.flow_mode == FlowMode::None) return;
    for (run_ = 0; run_ < task_of_id_.size(); ++run_) run_dependency_flows(view);
    run_ = 0;
}

void Builder::run_dependency_flows(std::int64_t view) {
    for (std::size_t p = 0; p < succ_.owner.size(); ++p) {
        std::uint64_t pred = succ_.owner[p];
        std::uint32_t pred_single = kNone;
        const TaskInfo* pred_task = task_in_run(pred);
        auto [pb, pe] = anchors(pred, pred_task, view, pred_single);
        const std::int32_t out_count = fan_count(pred, pred_task);
        for (std::uint64_t succ : succ_.at(p)) {
            std::uint32_t succ_single = kNone;
            const TaskInfo* succ_task = task_in_run(succ);
            auto [sb, se] = anchors(succ, succ_task, view, succ_single);
            if (pb == pe || sb == se) {
                if (view == kWorkerPid) ++model_.counts.dependency_edges_missing;
                continue;
            }
            const std::int32_t in_count = fan_count(succ, succ_task);
            if (model_.flow_mode == FlowMode::Block) {
                // One arrow per edge: from the block that ends last (the one the successor
                // waited for) to the block that starts first.
                auto gate = std::max_element(pb, pe, [&](std::uint32_t x, std::uint32_t y) {
                    const Slice& a = model_.slices[x];
                    const Slice& b = model_.slices[y];
                    return a.ts + a.dur < b.ts + b.dur;
                });
                auto first = std::min_element(sb, se, [&](std::uint32_t x, std::uint32_t y) {
                    return model_.slices[x].ts < model_.slices[y].ts;
                });
                const Slice& from = model_.slices[*gate];
                const Slice& to = model_.slices[*first];
                add_flow(from.ts + from.dur > to.ts ? FlowName::HbViolation : FlowName::Dependency,
                         *gate, from.ts - offset_, *first, to.ts - offset_, in_count, out_count);
                continue;
            }
            for (auto a = pb; a != pe; ++a)
                for (auto b = sb; b != se; ++b) {
                    const Slice& from = model_.slices[*a];
                    const Slice& to = model_.slices[*b];
                    FlowName name =
                        from.ts + from.dur > to.ts ? FlowName::HbViolation : FlowName::Dependency;
                    add_flow(name, *a, from.ts - offset_, *b, to.ts - offset_, in_count, out_count);
                }
        }
    }
}

void Builder::complete_flows() {
    if (thread_completes_.empty() || cap_.core_to_thread.empty()) return;
    const auto& rows = cap_.tasks;
    struct Completed {
        std::int64_t end_ns;
        std::uint32_t thread, phase, task;
    };
    std::vector<Completed> completed;
    completed.reserve(tasks_.size());
    for (std::uint32_t t = 0; t < tasks_.size(); ++t) {
        const TaskInfo& info = tasks_[t];
        std::uint32_t last = kNone;
        for (std::uint32_t r = info.first_row; r < info.first_row + info.row_count; ++r)
            if (rows[r].has_aicpu() && (last == kNone || rows[r].finish_ns >= rows[last].finish_ns))
                last = r;
        if (last == kNone) continue;
        int thread = thread_of_core(rows[last].core_id);
        std::optional<PhaseSpan> c = complete_for(thread, rows[last].finish_ns);
        if (!c) continue;
        std::int64_t target =
            rows[last].finish_ns >= c->start_ns && rows[last].finish_ns <= c->end_ns
                ? rows[last].finish_ns
                : c->start_ns;
        std::uint32_t target_slice = phase_slice_[c->phase];
        for (auto a = info.worker_anchor_begin; a < info.worker_anchor_end; ++a) {
            const Slice& s = model_.slices[worker_anchors_[a]];
            add_flow(FlowName::Complete, worker_anchors_[a], s.ts + s.dur - kEndInsetNs - offset_,
                     target_slice, target);
        }
        for (auto a = info.sched_anchor_begin; a < info.sched_anchor_end; ++a) {
            const Slice& s = model_.slices[sched_anchors_[a]];
            add_flow(FlowName::Complete, sched_anchors_[a], s.ts + s.dur - kEndInsetNs - offset_,
                     target_slice, target);
        }
        completed.push_back({c->end_ns, static_cast<std::uint32_t>(thread), c->phase, t});
    }
    if (!src_.deps) return;
    // complete→ready: walk completes by (end, thread); a consumer becomes ready when all its
    // distinct predecessors have completed (alloc/dummy preds never do: no arrow, as upstream).
    std::stable_sort(completed.begin(), completed.end(), [](const auto& a, const auto& b) {
        return std::pair(a.end_ns, a.thread) < std::pair(b.end_ns, b.thread);
    });
    // consumer id → predecessors completed so far, per run (fan-in never spans runs)
    std::vector<IdIndex> satisfied(task_of_id_.size());
    for (const Completed& done : completed) {
        const std::uint32_t run = tasks_[done.task].run;
        for (std::uint64_t succ : successors(tasks_[done.task].id)) {
            std::size_t fan_in = predecessors(succ).size();
            if (++*satisfied[run].try_emplace(succ, 0).first != fan_in) continue;
            const std::uint32_t* consumer_task = task_of_id_[run].find(succ);
            if (!consumer_task) continue;
            const TaskInfo& consumer = tasks_[*consumer_task];
            std::uint32_t first = kNone;
            for (std::uint32_t r = consumer.first_row; r < consumer.first_row + consumer.row_count;
                 ++r)
                if (rows[r].has_aicpu() &&
                    (first == kNone || rows[r].dispatch_ns < rows[first].dispatch_ns))
                    first = r;
            if (first == kNone || rows[first].dispatch_ns < done.end_ns) continue;
            add_flow(FlowName::CompleteReady, phase_slice_[done.phase], done.end_ns - kEndInsetNs,
                     dispatch_phase_slice(rows[first]), rows[first].dispatch_ns);
        }
    }
}

void Builder::release_task_scratch() {
    auto release = [](auto& v) { v = std::remove_reference_t<decltype(v)>{}; };  // (its memory too)
    release(tasks_);
    release(task_of_id_);
    release(succ_);
    release(pred_);
    release(worker_anchors_);
    release(sched_anchors_);
    release(aicpu_anchor_);
    release(dummy_records_);
    release(skip_records_);
    release(thread_completes_);
}

void Builder::dispatch_flows() {
    if (thread_dispatches_.empty() || !has_aicpu_) return;
    const auto& rows = cap_.tasks;
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
        const TaskRow& row = rows[r];
        if (!row.has_aicpu()) continue;
        std::uint32_t from = dispatch_phase_slice(row);
        add_flow(FlowName::Dispatch, from, row.dispatch_ns, worker_slice_[r], row.start_ns);
        add_flow(FlowName::Dispatch, from, row.dispatch_ns, sched_slice_[r], row.dispatch_ns);
    }
}

void Builder::submit_flows() {
    // Host records only point at device dispatches when the clocks are aligned.
    bool cross_domain = !cap_.host_orchestration || cap_.host.alignment.calibrated ||
                        cap_.clock.axis == Clock::Axis::HostPlaced;
    const bool any_submit = std::any_of(first_submit_.begin(), first_submit_.end(),
                                        [](const IdIndex& run) { return !run.empty(); });
    if (!any_submit || thread_dispatches_.empty() || !cross_domain) return;
    const auto& rows = cap_.tasks;
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
        const TaskRow& row = rows[r];
        if (!row.has_aicpu()) continue;
        const std::uint32_t run = r < cap_.row_run.size() ? cap_.row_run[r] : 0;
        const std::uint32_t* submit = first_submit_[run].find(row.task_id);
        if (!submit) continue;
        add_flow(FlowName::SubmitDispatch, orch_slice_[*submit],
                 cap_.orchestrator_phases[*submit].end_ns, dispatch_phase_slice(row),
                 row.dispatch_ns);
    }
}

}  // namespace ptune::swimlane::detail::build
