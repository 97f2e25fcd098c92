// Builder steps for tasks (builder.hpp): the task index, labels, graph executions, processes and
// the worker and scheduler views.

#include <charconv>

#include "builder.hpp"
#include "ptune/core/threads.hpp"

namespace ptune::swimlane::detail::build {

void Builder::build_slices() {
    index_tasks();
    // The labels and hints are read only when the trace is written: for a large capture they
    // are made on a second core meanwhile (a quarter of the slices' time at 20K tasks).
    threads::Beside<void> labels =
        threads::beside_if<void>(cap_.tasks.size() >= kLabelsBesideFrom, [this] { make_labels(); });
    make_graph_execution();
    make_processes();
    make_worker_view();
    make_scheduler_view();
    make_scheduler_phases();
    make_lifecycle();
    make_orchestrator();
    labels.get();
}

void Builder::build_dependency_flows() {
    attribute_finishes();
    dependency_flows(kWorkerPid);
    dependency_flows(kSchedViewPid);
}

void Builder::build_other_flows() {
    complete_flows();
    release_task_scratch();
    dispatch_flows();
    submit_flows();
}

std::string Builder::process_label(std::string_view view) const {
    return src_.label.empty() ? std::string(view) : fmt::format("{} / {}", src_.label, view);
}

std::uint32_t Builder::group(std::int64_t pid, std::int64_t tid, std::string name) {
    std::uint64_t key = (static_cast<std::uint64_t>(pid) << 32) | static_cast<std::uint64_t>(tid);
    auto [it, inserted] =
        group_index_.try_emplace(key, static_cast<std::uint32_t>(model_.groups.size()));
    if (inserted) {
        LaneGroup g;
        g.pid = pid_base_ + pid;
        g.base_tid = tid;
        g.name = std::move(name);
        model_.groups.push_back(std::move(g));
    }
    return it->second;
}

std::uint32_t Builder::add_slice(SliceKind kind, std::uint32_t ref, std::int64_t ts,
                                 std::int64_t dur, std::uint32_t grp, bool numbered) {
    Slice s;
    s.kind = kind;
    s.ref = ref;
    s.ts = ts + offset_;
    s.dur = std::max<std::int64_t>(dur, 0);
    s.track = grp;
    s.source = static_cast<std::uint16_t>(k_);
    s.id = numbered ? model_.next_slice_id++ : kNone;
    model_.slices.push_back(s);
    return static_cast<std::uint32_t>(model_.slices.size() - 1);
}

void Builder::index_tasks() {
    const auto& rows = cap_.tasks;
    // Rows are ordered by (run, task id): a task is one id within one run (§1.10).
    auto run_of = [&](std::uint32_t r) { return r < cap_.row_run.size() ? cap_.row_run[r] : 0u; };
    const std::size_t runs = std::max<std::size_t>(cap_.runs.size(), 1);
    task_of_id_.resize(runs);
    for (auto* index : {&aicpu_anchor_, &dummy_records_, &skip_records_, &first_submit_})
        index->resize(runs);
    // Counted first: sized once, a vector leaves no outgrown buffers behind (see ChunkedVector).
    std::size_t task_count = 0;
    for (std::uint32_t i = 0; i < rows.size(); ++i)
        task_count +=
            i == 0 || rows[i].task_id != rows[i - 1].task_id || run_of(i) != run_of(i - 1);
    tasks_.reserve(task_count);
    for (std::uint32_t i = 0; i < rows.size();) {
        TaskInfo info;
        info.id = rows[i].task_id;
        info.run = run_of(i);
        info.first_row = i;
        while (i < rows.size() && rows[i].task_id == info.id && run_of(i) == info.run) ++i;
        info.row_count = i - info.first_row;
        task_of_id_[info.run].try_emplace(info.id, static_cast<std::uint32_t>(tasks_.size()));
        tasks_.push_back(info);
    }
    row_task_.resize(rows.size());
    for (std::uint32_t t = 0; t < tasks_.size(); ++t) {
        TaskInfo& info = tasks_[t];
        for (std::uint32_t r = info.first_row; r < info.first_row + info.row_count; ++r)
            row_task_[r] = t;
        const DepsTask* dt = deps_task(info.id);
        if (dt) {
            info.spmd = dt->block_num > 1;
        } else if (info.row_count > 1) {
            CoreType type = rows[info.first_row].core_type;
            info.spmd = std::all_of(rows.begin() + info.first_row,
                                    rows.begin() + info.first_row + info.row_count,
                                    [&](const TaskRow& r) { return r.core_type == type; });
        }
    }
    // Successor lists in first-seen (pred, succ) order; predecessor lists follow the
    // first-seen order of the preds, as the converter's fan-in hints do.
    const auto& edges = src_.deps ? src_.deps->edges : cap_.embedded_edges;
    {
        std::vector<std::uint32_t> slot(edges.size());
        for (std::size_t e = 0; e < edges.size(); ++e) slot[e] = succ_.add(edges[e].first);
        fill_lists(succ_, succ_.owner.size(), edges.size(), [&](auto&& visit) {
            for (std::size_t e = 0; e < edges.size(); ++e) visit(slot[e], edges[e].second);
        });
    }
    // deps.json edges are already unique; µs-file fanout lists may repeat a successor.
    if (!src_.deps)
        for (std::size_t k = 0; k < succ_.owner.size(); ++k) {
            auto first = succ_.ids.begin() + succ_.begin[k];
            auto last = first;
            for (auto it = first; it != succ_.ids.begin() + succ_.end[k]; ++it)
                if (std::find(first, last, *it) == last) *last++ = *it;
            succ_.end[k] = static_cast<std::uint32_t>(last - succ_.ids.begin());
        }
    std::vector<std::uint32_t> succ_slot;
    std::size_t succ_total = 0;
    for (std::size_t k = 0; k < succ_.owner.size(); ++k) succ_total += succ_.at(k).size();
    succ_slot.reserve(succ_total);
    for (std::size_t k = 0; k < succ_.owner.size(); ++k)
        for (std::uint64_t succ : succ_.at(k)) succ_slot.push_back(pred_.add(succ));
    fill_lists(pred_, pred_.owner.size(), succ_slot.size(), [&](auto&& visit) {
        std::size_t e = 0;
        for (std::size_t k = 0; k < succ_.owner.size(); ++k)
            for (std::size_t n = succ_.at(k).size(); n > 0; --n)
                visit(succ_slot[e++], succ_.owner[k]);
    });
}

const DepsTask* Builder::deps_task(std::uint64_t id) const {
    if (!src_.deps) return nullptr;
    return src_.deps->tasks.find(id);
}

void Builder::add_hint(StringTable& table, std::span<const std::uint64_t> ids, TaskLabels labels) {
    // Each id's ", " and label written into a buffer, appended once (a hint per task and view).
    char buffer[kMaxTaskLabel + 2];
    std::string& out = table.text();
    out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, ids.size()).ptr);
    out += ": [";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        char* at = buffer;
        if (i) *at++ = ',', *at++ = ' ';
        out.append(buffer, write_task_label(at, ids[i], labels));
    }
    out += ']';
    table.close();
}

void Builder::make_labels() {
    SourceExtras& extras = model_.extras[k_];
    // Per kernel: its name, and the name an SPMD task's rows get (`_spmd` added unless the name
    // says so already); rows come in runs of one kernel, so the last one is tried first.
    struct Names {
        std::string plain, spmd;
    };
    std::unordered_map<std::int32_t, Names> names_of;
    const Names* names = nullptr;
    std::int32_t names_func = 0;
    for (std::uint32_t r = 0; r < cap_.tasks.size(); ++r) {
        const TaskRow& row = cap_.tasks[r];
        if (!names || names_func != row.func_id) {
            auto [it, inserted] = names_of.try_emplace(row.func_id);
            if (inserted) {
                it->second.plain = kernel_base_name(row.func_id, src_.names);
                it->second.spmd = it->second.plain;
                if (!contains_spmd(it->second.plain)) it->second.spmd += "_spmd";
            }
            names = &it->second;
            names_func = row.func_id;
        }
        std::string& label = extras.labels.text();
        label += tasks_[row_task_[r]].spmd ? names->spmd : names->plain;
        char task[kMaxTaskLabel + 2];
        task[0] = '(';
        char* end = write_task_label(task + 1, row.task_id, cap_.labels);
        *end++ = ')';
        label.append(task, end);
        extras.labels.close();
    }
    extras.row_task = row_task_;
    for (const TaskInfo& info : tasks_) {
        add_hint(extras.fanout_hints, successors(info.id), cap_.labels);
        add_hint(extras.fanin_hints, predecessors(info.id), cap_.labels);
    }
    for (StringTable* table : {&extras.labels, &extras.fanout_hints, &extras.fanin_hints})
        table->shrink_to_fit();
}

void Builder::make_graph_execution() {
    auto& graphs = model_.extras[k_].graphs;
    // host_build_graph files naming their runtime: SUB_TASK ids `(1<<62)|(outer<<32)|n`,
    // instances per (run_epoch, outer id) (upstream-2026-09.md §1.11); older files: ring-1
    // node ids `(outer << 10) | node` (swimlane.md §5.4).
    const bool sub_tasks = cap_.labels == TaskLabels::HostBuildGraph;
    std::map<std::pair<std::int64_t, std::uint64_t>, std::uint32_t> index;
    for (const SchedulerPhase& p : cap_.scheduler_phases) {
        if (p.kind != PhaseKind::GraphPrepare || p.task_id < 0 || (p.task_id >> 32) != 0) continue;
        std::int64_t epoch = sub_tasks ? p.run_epoch : kNoEpoch;
        auto [it, fresh] = index.try_emplace({epoch, static_cast<std::uint64_t>(p.task_id)},
                                             static_cast<std::uint32_t>(graphs.size()));
        if (fresh) {
            graphs.push_back({static_cast<std::uint64_t>(p.task_id)});
            graphs.back().sub_tasks = sub_tasks;
            graphs.back().labels = cap_.labels;
            graphs.back().run_epoch = static_cast<std::int32_t>(epoch);
            graphs.back().prepare_start_ns = p.start_ns;
            graphs.back().exec_start_ns = std::numeric_limits<std::int64_t>::max();
            graphs.back().exec_end_ns = std::numeric_limits<std::int64_t>::min();
        }
        GraphInstance& g = graphs[it->second];
        g.prepare_start_ns = std::min(g.prepare_start_ns, p.start_ns);
        g.prepare_total_ns += p.end_ns - p.start_ns;
        ++g.prepare_count;
    }
    if (graphs.empty()) return;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;  // (instance, node / local)
    auto visit = [&](std::uint64_t task_id, std::int32_t epoch, std::int64_t start,
                     std::int64_t end) {
        std::uint64_t outer = 0;
        std::uint32_t node = 0;
        if (sub_tasks) {
            if (hbg_space(task_id) != 1) return;
            outer = hbg_parent(task_id), node = task_local(task_id);
        } else {
            if (((task_id >> 32) & 0xFFFFFFFFu) != 1) return;  // graph nodes on ring 1
            outer = task_local(task_id) >> 10, node = task_local(task_id) & 0x3FF;
            epoch = kNoEpoch;
        }
        auto it = index.find({epoch, outer});
        if (it == index.end()) return;
        GraphInstance& g = graphs[it->second];
        seen.emplace_back(it->second, node);
        g.exec_start_ns = std::min(g.exec_start_ns, start);
        g.exec_end_ns = std::max(g.exec_end_ns, end);
    };
    for (const TaskRow& row : cap_.tasks)
        visit(row.task_id, row.run_epoch,
              row.dispatch_ns != kNoTime ? row.dispatch_ns : row.receive_ns,
              row.finish_ns != kNoTime ? row.finish_ns : row.end_ns);
    for (const SchedulerPhase& p : cap_.scheduler_phases)
        if (p.kind == PhaseKind::DummyTask && p.task_id >= 0)
            visit(static_cast<std::uint64_t>(p.task_id), p.run_epoch, p.start_ns, p.end_ns);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (auto [instance, node] : seen) {
        GraphInstance& g = graphs[instance];
        g.node_min = g.node_count ? std::min(g.node_min, node) : node;
        g.node_max = g.node_count ? std::max(g.node_max, node) : node;
        ++g.node_count;
    }
    std::erase_if(graphs, [](const GraphInstance& g) { return g.node_count == 0; });
    if (graphs.empty()) return;
    std::stable_sort(graphs.begin(), graphs.end(), [](const auto& a, const auto& b) {
        return a.prepare_start_ns < b.prepare_start_ns;
    });
    // Upstream's process_sort_index for Graph Execution is 1 (it sorts first).
    model_.processes.push_back({pid_base_ + kGraphPid, process_label("Graph Execution"), 1});
    std::vector<std::int64_t> lane_finish;
    for (std::uint32_t i = 0; i < graphs.size(); ++i) {
        const GraphInstance& g = graphs[i];
        auto free = std::find_if(lane_finish.begin(), lane_finish.end(),
                                 [&](std::int64_t f) { return f <= g.prepare_start_ns; });
        std::size_t lane = static_cast<std::size_t>(free - lane_finish.begin());
        if (free == lane_finish.end()) lane_finish.push_back(0);
        lane_finish[lane] = g.exec_end_ns;
        std::uint32_t grp =
            group(kGraphPid, 5000 + static_cast<std::int64_t>(lane), fmt::format("Graph_{}", lane));
        add_slice(SliceKind::Graph, i, g.prepare_start_ns, g.exec_end_ns - g.prepare_start_ns, grp,
                  false);
    }
}

void Builder::make_processes() {
    has_aicpu_ = std::any_of(cap_.tasks.begin(), cap_.tasks.end(),
                             [](const TaskRow& r) { return r.has_aicpu(); });
    threads_ = cap_.scheduler_thread_count();
    model_.processes.push_back({pid_base_ + kWorkerPid, process_label("Worker View"), 4});
    if (has_aicpu_)
        model_.processes.push_back({pid_base_ + kSchedViewPid, process_label("Scheduler View"), 3});
}

std::string Builder::core_lane_name(std::uint32_t core, CoreType type) const {
    return fmt::format("{}_{}", type == CoreType::Aic ? "AIC" : "AIV", core);
}

void Builder::make_worker_view() {
    const auto& rows = cap_.tasks;
    // Lanes in ascending core order, named after the first row's core type on that core.
    std::vector<std::pair<std::uint32_t, CoreType>> cores;
    {
        std::unordered_map<std::uint32_t, CoreType> first_type;
        for (const TaskRow& row : rows) first_type.try_emplace(row.core_id, row.core_type);
        cores.assign(first_type.begin(), first_type.end());
        std::sort(cores.begin(), cores.end());
    }
    for (auto [core, type] : cores)
        group(kWorkerPid, 10000 + 10 * static_cast<std::int64_t>(core), core_lane_name(core, type));
    aicpu_lanes_ = threads_ + cap_.orchestrator_arrays;
    for (std::size_t n = 0; n < aicpu_lanes_; ++n)
        group(kWorkerPid, 19000 + static_cast<std::int64_t>(n), fmt::format("AICPU_{}", n));
    worker_slice_.assign(rows.size(), kNone);
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
        const TaskRow& row = rows[r];
        std::uint32_t grp = group_index_.at(
            (static_cast<std::uint64_t>(kWorkerPid) << 32) |
            static_cast<std::uint64_t>(10000 + 10 * static_cast<std::int64_t>(row.core_id)));
        worker_slice_[r] = add_slice(SliceKind::WorkerTask, r, row.receive_ns,
                                     row.end_ns - row.receive_ns, grp, true);
    }
    // Anchors: SPMD tasks anchor on the earliest row per func_id, others on every row.
    for (TaskInfo& info : tasks_) {
        info.worker_anchor_begin = static_cast<std::uint32_t>(worker_anchors_.size());
        add_anchors(
            info, worker_anchors_, [&](const TaskRow& row) { return row.receive_ns; },
            worker_slice_);
        info.worker_anchor_end = static_cast<std::uint32_t>(worker_anchors_.size());
    }
}

void Builder::make_scheduler_view() {
    if (!has_aicpu_) return;
    const auto& rows = cap_.tasks;
    std::vector<std::pair<std::uint32_t, CoreType>> cores;
    {
        std::unordered_map<std::uint32_t, CoreType> first_type;
        for (const TaskRow& row : rows)
            if (row.has_aicpu()) first_type.try_emplace(row.core_id, row.core_type);
        cores.assign(first_type.begin(), first_type.end());
        std::sort(cores.begin(), cores.end());
    }
    for (auto [core, type] : cores)
        group(kSchedViewPid, 10000 + 10 * static_cast<std::int64_t>(core),
              core_lane_name(core, type));
    sched_slice_.assign(rows.size(), kNone);
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
        const TaskRow& row = rows[r];
        if (!row.has_aicpu()) continue;
        std::uint32_t grp = group_index_.at(
            (static_cast<std::uint64_t>(kSchedViewPid) << 32) |
            static_cast<std::uint64_t>(10000 + 10 * static_cast<std::int64_t>(row.core_id)));
        sched_slice_[r] = add_slice(SliceKind::SchedTask, r, row.dispatch_ns,
                                    row.finish_ns - row.dispatch_ns, grp, true);
    }
    for (TaskInfo& info : tasks_) {
        info.sched_anchor_begin = static_cast<std::uint32_t>(sched_anchors_.size());
        add_anchors(
            info, sched_anchors_, [&](const TaskRow& row) { return row.dispatch_ns; },
            sched_slice_);
        info.sched_anchor_end = static_cast<std::uint32_t>(sched_anchors_.size());
    }
}

}  // namespace ptune::swimlane::detail::build
