// Builds the trace layout of swimlane.md §5–§6.3 from the captures: lanes, slices, counters and
// the seven arrow kinds, each arrow bound strictly inside its two slices (conventions.md §2.2).

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "ptune/swimlane/host_phase_lanes.hpp"
#include "ptune/swimlane/reader.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail {

namespace {

/// Upstream shifts arrow sources 0.01 µs before a slice end so they land inside it.
constexpr std::int64_t kEndInsetNs = 10;

bool is_rendered(PhaseKind kind) {
    switch (kind) {
        case PhaseKind::Complete:
        case PhaseKind::AsyncPoll:
        case PhaseKind::Dispatch:
        case PhaseKind::Release:
        case PhaseKind::Resolve:
        case PhaseKind::EarlyDispatch:
        case PhaseKind::Dummy:
        case PhaseKind::Drain:
        case PhaseKind::DrainPrepare:
        case PhaseKind::DrainPublish:
        case PhaseKind::GraphPrepare:
        case PhaseKind::ResolveStandalone:
        case PhaseKind::Bootstrap:
        case PhaseKind::Fanin:
        case PhaseKind::StateProbe:
        case PhaseKind::ReadyClaim:
        case PhaseKind::ReadySteal:
        case PhaseKind::DirectRefill:
        case PhaseKind::Worksteal:
        case PhaseKind::Refill:
        case PhaseKind::Idle:
            return true;
        default:
            return false;
    }
}

/// Inner phases nest inside an outer one on the same thread; they get the second lane.
bool is_inner(PhaseKind kind) {
    return kind == PhaseKind::Resolve || kind == PhaseKind::DrainPrepare ||
           kind == PhaseKind::DrainPublish;
}

bool contains_spmd(std::string_view name) {
    static constexpr std::string_view kSpmd = "spmd";
    auto it = std::search(name.begin(), name.end(), kSpmd.begin(), kSpmd.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
    return it != name.end();
}

/// A time strictly inside a slice (so the enclosing-slice lookup cannot pick a neighbour that
/// ends or starts at the same instant), as close to `want` as possible.
std::int64_t inside(const Slice& slice, std::int64_t want) {
    if (slice.dur < 2) return slice.ts;
    return std::clamp(want, slice.ts + 1, slice.ts + slice.dur - 1);
}

/// Like inside() but never before `not_before` (a flow's end may not precede its start);
/// false when the slice ends too early for that.
bool inside_from(const Slice& slice, std::int64_t want, std::int64_t not_before,
                 std::int64_t& out) {
    out = std::max(inside(slice, want), not_before);
    std::int64_t last = slice.dur < 2 ? slice.ts : slice.ts + slice.dur - 1;
    return out <= last;
}

/// Adjacency lists in one array (compressed rows): list k is ids[begin[k], end[k]).
struct IdLists {
    std::vector<std::uint32_t> begin, end;
    std::vector<std::uint64_t> ids;
    IdIndex slot_of;                   ///< owner id → list
    std::vector<std::uint64_t> owner;  ///< list → owner id
    /// The list the last of() returned: owners are mostly asked for in the order they were
    /// added, so the next one is usually the next list (no probe into a large table).
    mutable std::size_t last_found = 0;

    /// The list of `id`, added (empty, as list `size`) when absent.
    std::uint32_t add(std::uint64_t id) {
        auto [k, inserted] = slot_of.try_emplace(id, static_cast<std::uint32_t>(owner.size()));
        if (inserted) owner.push_back(id);
        return *k;
    }
    std::span<const std::uint64_t> of(std::uint64_t id) const {
        for (std::size_t k : {last_found, last_found + 1})
            if (k < owner.size() && owner[k] == id) {
                last_found = k;
                return at(k);
            }
        const std::uint32_t* k = slot_of.find(id);
        if (!k) return {};
        last_found = *k;
        return at(*k);
    }
    std::span<const std::uint64_t> at(std::size_t k) const {
        return {ids.data() + begin[k], ids.data() + end[k]};
    }
};

/// A scheduler phase (index) and its times.
struct PhaseSpan {
    std::uint32_t phase;
    std::int64_t start_ns, end_ns;
};

/// One scheduler thread's phases of one kind by (start, index), starts and ends kept beside them:
/// the searches made per task row read 8-byte times, not 72-byte records all over memory.
struct PhasesByStart {
    std::vector<std::int64_t> starts, ends;
    std::vector<std::uint32_t> phases;  ///< indices into Capture::scheduler_phases

    void add(const SchedulerPhase& p, std::uint32_t phase) {
        starts.push_back(p.start_ns);
        ends.push_back(p.end_ns);
        phases.push_back(phase);
    }
    /// Orders the entries (nearly always already in order: then this is one check).
    void sort() {
        auto ordered = [&] {
            for (std::size_t k = 1; k < starts.size(); ++k)
                if (std::pair(starts[k], phases[k]) < std::pair(starts[k - 1], phases[k - 1]))
                    return false;
            return true;
        };
        if (ordered()) return;
        std::vector<std::tuple<std::int64_t, std::uint32_t, std::int64_t>> entries(starts.size());
        for (std::size_t k = 0; k < starts.size(); ++k)
            entries[k] = {starts[k], phases[k], ends[k]};
        std::sort(entries.begin(), entries.end());
        for (std::size_t k = 0; k < entries.size(); ++k)
            std::tie(starts[k], phases[k], ends[k]) = entries[k];
    }
    PhaseSpan at(std::size_t k) const { return {phases[k], starts[k], ends[k]}; }
    /// How many entries start at or before x.
    std::size_t starting_by(std::int64_t x) const {
        return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), x) -
                                        starts.begin());
    }
};

struct TaskInfo {
    std::uint64_t id = 0;
    std::uint32_t run = 0;  ///< index into Capture::runs
    std::uint32_t first_row = 0, row_count = 0;
    bool spmd = false;
    std::uint32_t worker_anchor_begin = 0, worker_anchor_end = 0;  // into worker_anchors
    std::uint32_t sched_anchor_begin = 0, sched_anchor_end = 0;    // into sched_anchors
};

class Builder {
  public:
    Builder(TraceModel& model, std::uint32_t source_index)
        : model_(model),
          k_(source_index),
          src_(model.sources[source_index]),
          cap_(*src_.capture),
          pid_base_(model.pid_base[source_index]),
          offset_(model.offsets_ns[source_index]) {}

    void build() {
        index_tasks();
        make_labels();
        make_graph_execution();
        make_processes();
        make_worker_view();
        make_scheduler_view();
        make_scheduler_phases();
        make_lifecycle();
        make_orchestrator();
        attribute_finishes();
        dependency_flows(kWorkerPid);
        dependency_flows(kSchedViewPid);
        complete_flows();
        dispatch_flows();
        submit_flows();
    }

  private:
    std::string process_label(std::string_view view) const {
        return src_.label.empty() ? std::string(view) : fmt::format("{} / {}", src_.label, view);
    }

    std::uint32_t group(std::int64_t pid, std::int64_t tid, std::string name) {
        std::uint64_t key =
            (static_cast<std::uint64_t>(pid) << 32) | static_cast<std::uint64_t>(tid);
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

    std::uint32_t add_slice(SliceKind kind, std::uint32_t ref, std::int64_t ts, std::int64_t dur,
                            std::uint32_t grp, bool numbered) {
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

    void add_flow(FlowName name, std::uint32_t s_slice, std::int64_t s_want, std::uint32_t f_slice,
                  std::int64_t f_want, std::int32_t input_count = -1,
                  std::int32_t output_count = -1) {
        if (s_slice == kNone || f_slice >= kMaxFlowSlice) {
            ++model_.counts.flows_unbound;
            return;
        }
        const Slice& s = model_.slices[s_slice];
        const Slice& f = model_.slices[f_slice];
        Flow flow;
        flow.kind = static_cast<std::uint32_t>(name);
        flow.s_slice = s_slice;
        flow.f_slice = f_slice;
        flow.s_ts = inside(s, s_want + offset_);
        if (!inside_from(f, f_want + offset_, flow.s_ts, flow.f_ts)) {
            ++model_.counts.flows_unbound;
            return;
        }
        flow.input_count = input_count;
        flow.output_count = output_count;
        model_.flows.push_back(flow);
    }

    // ---- tasks ----------------------------------------------------------------------------

    void index_tasks() {
        const auto& rows = cap_.tasks;
        // Rows are ordered by (run, task id): a task is one id within one run (§1.10).
        auto run_of = [&](std::uint32_t r) {
            return r < cap_.row_run.size() ? cap_.row_run[r] : 0u;
        };
        task_of_id_.resize(std::max<std::size_t>(cap_.runs.size(), 1));
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
        for (std::size_t k = 0; k < succ_.owner.size(); ++k)
            for (std::uint64_t succ : succ_.at(k)) succ_slot.push_back(pred_.add(succ));
        fill_lists(pred_, pred_.owner.size(), succ_slot.size(), [&](auto&& visit) {
            std::size_t e = 0;
            for (std::size_t k = 0; k < succ_.owner.size(); ++k)
                for (std::size_t n = succ_.at(k).size(); n > 0; --n)
                    visit(succ_slot[e++], succ_.owner[k]);
        });
    }

    /// Builds `lists` (list count `lists_count`, `total` ids) from `for_each(visit)`, which calls
    /// visit(list, id) for every entry in order: a counting pass, then a placing pass.
    template <class ForEach>
    static void fill_lists(IdLists& lists, std::size_t lists_count, std::size_t total,
                           ForEach for_each) {
        lists.begin.assign(lists_count + 1, 0);
        for_each([&](std::uint32_t k, std::uint64_t) { ++lists.begin[k + 1]; });
        for (std::size_t k = 1; k <= lists_count; ++k) lists.begin[k] += lists.begin[k - 1];
        lists.end.assign(lists.begin.begin(), lists.begin.end() - 1);
        lists.begin.pop_back();
        lists.ids.resize(total);
        for_each([&](std::uint32_t k, std::uint64_t id) { lists.ids[lists.end[k]++] = id; });
    }

    const DepsTask* deps_task(std::uint64_t id) const {
        if (!src_.deps) return nullptr;
        return src_.deps->tasks.find(id);
    }

    std::span<const std::uint64_t> successors(std::uint64_t id) const { return succ_.of(id); }
    std::span<const std::uint64_t> predecessors(std::uint64_t id) const { return pred_.of(id); }
    bool has_graph() const { return src_.deps != nullptr || !cap_.embedded_edges.empty(); }

    /// Appends a fan-in/fan-out hint ("2: [r1t4, r1t5]") as the next string of `table`.
    static void add_hint(StringTable& table, std::span<const std::uint64_t> ids,
                         TaskLabels labels) {
        std::string& out = table.text();
        out += std::to_string(ids.size());
        out += ": [";
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (i) out += ", ";
            append_task_label(out, ids[i], labels);
        }
        out += ']';
        table.close();
    }

    void make_labels() {
        SourceExtras& extras = model_.extras[k_];
        std::unordered_map<std::int32_t, std::string> base_cache;
        for (std::uint32_t r = 0; r < cap_.tasks.size(); ++r) {
            const TaskRow& row = cap_.tasks[r];
            auto [it, inserted] = base_cache.try_emplace(row.func_id);
            if (inserted) it->second = kernel_base_name(row.func_id, src_.names);
            const std::string& base = it->second;
            bool spmd = tasks_[row_task_[r]].spmd && !contains_spmd(base);
            std::string& label = extras.labels.text();
            label += base;
            if (spmd) label += "_spmd";
            label += '(';
            append_task_label(label, row.task_id, cap_.labels);
            label += ')';
            extras.labels.close();
        }
        extras.row_task = row_task_;
        for (const TaskInfo& info : tasks_) {
            add_hint(extras.fanout_hints, successors(info.id), cap_.labels);
            add_hint(extras.fanin_hints, predecessors(info.id), cap_.labels);
        }
    }

    // ---- processes and lanes ---------------------------------------------------------------

    /// pid 5 (§5.4, §6.3 step 3): one envelope per outer graph task, from its first GraphPrepare
    /// record to its last node's finish, on first-fit lanes by prepare start.
    void make_graph_execution() {
        auto& graphs = model_.extras[k_].graphs;
        // host_build_graph files naming their runtime: SUB_TASK ids `(1<<62)|(outer<<32)|n`,
        // instances per (run_epoch, outer id) (upstream-2026-09.md §1.11); older files: ring-1
        // node ids `(outer << 10) | node` (swimlane.md §5.4).
        const bool sub_tasks = cap_.labels == TaskLabels::HostBuildGraph;
        std::map<std::pair<std::int64_t, std::uint64_t>, std::uint32_t> index;
        for (const SchedulerPhase& p : cap_.scheduler_phases) {
            if (p.kind != PhaseKind::GraphPrepare || p.task_id < 0 || (p.task_id >> 32) != 0)
                continue;
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
            std::uint32_t grp = group(kGraphPid, 5000 + static_cast<std::int64_t>(lane),
                                      fmt::format("Graph_{}", lane));
            add_slice(SliceKind::Graph, i, g.prepare_start_ns, g.exec_end_ns - g.prepare_start_ns,
                      grp, false);
        }
    }

    void make_processes() {
        has_aicpu_ = std::any_of(cap_.tasks.begin(), cap_.tasks.end(),
                                 [](const TaskRow& r) { return r.has_aicpu(); });
        threads_ = cap_.scheduler_thread_count();
        model_.processes.push_back({pid_base_ + kWorkerPid, process_label("Worker View"), 4});
        if (has_aicpu_)
            model_.processes.push_back(
                {pid_base_ + kSchedViewPid, process_label("Scheduler View"), 3});
    }

    std::string core_lane_name(std::uint32_t core, CoreType type) const {
        return fmt::format("{}_{}", type == CoreType::Aic ? "AIC" : "AIV", core);
    }

    void make_worker_view() {
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
            group(kWorkerPid, 10000 + 10 * static_cast<std::int64_t>(core),
                  core_lane_name(core, type));
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

    template <class StartOf>
    void add_anchors(const TaskInfo& info, std::vector<std::uint32_t>& anchors, StartOf start_of,
                     const std::vector<std::uint32_t>& slice_of_row) {
        const auto& rows = cap_.tasks;
        std::uint32_t end = info.first_row + info.row_count;
        if (!info.spmd) {
            for (std::uint32_t r = info.first_row; r < end; ++r)
                if (slice_of_row[r] != kNone) anchors.push_back(slice_of_row[r]);
            return;
        }
        std::size_t begin = anchors.size();
        std::vector<std::int32_t> funcs;
        for (std::uint32_t r = info.first_row; r < end; ++r) {
            if (slice_of_row[r] == kNone) continue;
            auto it = std::find(funcs.begin(), funcs.end(), rows[r].func_id);
            std::size_t at = static_cast<std::size_t>(it - funcs.begin());
            if (it == funcs.end()) {
                funcs.push_back(rows[r].func_id);
                anchors.push_back(r);
                continue;
            }
            const TaskRow& best = rows[anchors[begin + at]];
            if (std::pair(start_of(rows[r]), rows[r].core_id) <
                std::pair(start_of(best), best.core_id))
                anchors[begin + at] = r;
        }
        for (std::size_t i = begin; i < anchors.size(); ++i) anchors[i] = slice_of_row[anchors[i]];
    }

    void make_scheduler_view() {
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

    /// A stream written by the a5 AICore scheduler (upstream-2026-09.md §1.6).
    bool aicore_stream(std::uint32_t thread) const {
        return thread < cap_.streams.size() && cap_.streams[thread].aicore();
    }

    /// Nested on the second lane: TMR's inner phases; AICore streams are one flat lane.
    bool inner_phase(const SchedulerPhase& p) const {
        return is_inner(p.kind) && !aicore_stream(p.thread);
    }

    void make_scheduler_phases() {
        const auto& phases = cap_.scheduler_phases;
        if (phases.empty()) return;
        bool all_aicore =
            !cap_.streams.empty() &&
            std::all_of(cap_.streams.begin(), cap_.streams.end(),
                        [](const SchedulerStream& s) { return !s.present || s.aicore(); }) &&
            std::any_of(cap_.streams.begin(), cap_.streams.end(),
                        [](const SchedulerStream& s) { return s.present; });
        model_.processes.push_back(
            {pid_base_ + kSchedulerPid,
             process_label(all_aicore ? "AICore Scheduler" : "AICPU Scheduler"), 2});
        std::size_t arrays = std::max(cap_.scheduler_arrays, threads_);
        std::vector<bool> has_inner(arrays, false);
        for (const auto& p : phases)
            if (p.thread < arrays && inner_phase(p)) has_inner[p.thread] = true;
        phase_slice_.assign(phases.size(), kNone);
        thread_completes_.assign(arrays, {});
        thread_dispatches_.assign(arrays, {});
        std::uint32_t queue_track = kNone;
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
                        std::uint32_t s = add_slice(
                            SliceKind::Marker, i, p.start_ns,
                            std::max<std::int64_t>(p.end_ns - p.start_ns, 20), lane, true);
                        if (p.task_id >= 0)
                            aicpu_anchor_.try_emplace(static_cast<std::uint64_t>(p.task_id), s);
                        if (p.kind == PhaseKind::DummyTask && p.task_id >= 0)
                            dummy_records_.try_emplace(static_cast<std::uint64_t>(p.task_id), 0);
                        else if (p.task_id >= 0)
                            skip_records_.try_emplace(static_cast<std::uint64_t>(p.task_id), 0);
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
                if ((p.kind == PhaseKind::Complete || p.kind == PhaseKind::Dispatch ||
                     resolution) &&
                    p.has_depths) {
                    if (queue_track == kNone) queue_track = counter_track();
                    model_.counters.push_back({p.end_ns + offset_, k_, i, queue_track});
                }
            }
        }
        for (auto* lists : {&thread_completes_, &thread_dispatches_})
            for (auto& list : *lists) list.sort();
    }

    /// A host_build_graph resolution thread: it writes `resolve_standalone` records.
    bool resolution_thread(std::uint32_t thread) {
        if (resolution_threads_.empty()) {
            resolution_threads_.assign(cap_.scheduler_arrays + 1, 0);
            for (const auto& p : cap_.scheduler_phases)
                if (p.kind == PhaseKind::ResolveStandalone && p.thread < resolution_threads_.size())
                    resolution_threads_[p.thread] = 1;
        }
        return thread < resolution_threads_.size() && resolution_threads_[thread];
    }

    /// pid 6 `AICPU Lifecycle` (§1.8): one lane per AICPU thread, one slice per interval.
    void make_lifecycle() {
        const auto& records = cap_.lifecycle;
        if (records.empty()) return;
        model_.processes.push_back(
            {pid_base_ + kLifecyclePid, process_label("AICPU Lifecycle"), 2});
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

    std::uint32_t counter_track() {
        Track track;
        track.pid = pid_base_ + kSchedulerPid;
        track.tid = 3999;
        track.name = "shared_ready_queue (global)";
        track.sort_index = 100;
        track.is_counter = true;
        model_.tracks.push_back(std::move(track));
        return static_cast<std::uint32_t>(model_.tracks.size() - 1);
    }

    /// pid 1: the orchestrator, and in host-orchestration captures the host→device copies on
    /// their own lane. Upstream names pid 1 twice ("Host Prepare", then "Host Orchestrator");
    /// a viewer keeps one name, so one is given.
    void make_orchestrator() {
        const auto& orch = cap_.orchestrator_phases;
        const auto& uploads = cap_.host.uploads;
        const HostPhaseLanes* phases = src_.host_phases;
        if (orch.empty() && uploads.empty() && (phases == nullptr || phases->slices.empty()))
            return;
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
        std::vector<std::uint32_t> alloc_refs;
        std::unordered_map<std::uint32_t, std::uint32_t> thread_group;  // thread → lane group
        for (std::uint32_t i = 0; i < orch.size(); ++i) {
            const OrchestratorPhase& p = orch[i];
            auto [known, inserted] = thread_group.try_emplace(p.thread, kNone);
            if (inserted)
                known->second = group(kOrchPid, 4000 + static_cast<std::int64_t>(p.thread),
                                      fmt::format("{}_{}", host ? "Host" : "Orch", p.thread));
            std::uint32_t grp = known->second;
            orch_slice_[i] =
                add_slice(SliceKind::Orch, i, p.start_ns, p.end_ns - p.start_ns, grp, false);
            if (p.task_id < 0) continue;
            std::uint64_t id = static_cast<std::uint64_t>(p.task_id);
            if (p.phase == "orch_submit") first_submit_.try_emplace(id, i);
            if (p.phase == "orch_submit" && is_alloc(id)) alloc_refs.push_back(i);
        }
        // Legacy captures: orch_fanin / orch_params stand in when no orch_submit exists.
        for (std::uint32_t i = 0; i < orch.size(); ++i)
            if (orch[i].task_id >= 0 &&
                (orch[i].phase == "orch_fanin" || orch[i].phase == "orch_params"))
                first_submit_.try_emplace(static_cast<std::uint64_t>(orch[i].task_id), i);
        for (std::uint32_t i : alloc_refs) {
            const OrchestratorPhase& p = orch[i];
            std::size_t lane = threads_ + p.thread;
            if (lane >= aicpu_lanes_) continue;
            std::uint32_t grp = group_index_.at((static_cast<std::uint64_t>(kWorkerPid) << 32) |
                                                static_cast<std::uint64_t>(19000 + lane));
            std::uint32_t s =
                add_slice(SliceKind::Alloc, i, p.start_ns, p.end_ns - p.start_ns, grp, true);
            aicpu_anchor_.try_emplace(static_cast<std::uint64_t>(p.task_id), s);
        }
    }

    /// host_phase_records.jsonl: one lane group per producer thread (nesting records overflow).
    void add_host_phases(const HostPhaseLanes& phases) {
        std::unordered_map<std::int64_t, std::uint32_t> by_tid;
        for (std::uint32_t i = 0; i < phases.slices.size(); ++i) {
            const HostPhaseLanes::Slice& p = phases.slices[i];
            auto [it, inserted] = by_tid.try_emplace(p.tid, kNone);
            if (inserted) {
                std::string name =
                    p.tid >= 0 ? fmt::format("Host phases {}", p.tid) : std::string("Host phases");
                it->second = group(kOrchPid, 4200 + static_cast<std::int64_t>(by_tid.size()),
                                   std::move(name));
            }
            add_slice(SliceKind::HostPhase, i, p.start_ns, p.dur_ns, it->second, false);
        }
    }

    /// An orchestrator task that is neither a regular task, a dummy nor a predicated skip.
    bool is_alloc(std::uint64_t id) const {
        if (skip_records_.contains(id)) return false;
        if (src_.deps) return deps_task(id) == nullptr;
        bool has_rows = std::any_of(task_of_id_.begin(), task_of_id_.end(),
                                    [&](const IdIndex& run) { return run.contains(id); });
        return !has_rows && !dummy_records_.contains(id);
    }

    // ---- scheduler bookkeeping -------------------------------------------------------------

    int thread_of_core(std::uint32_t core) const {
        auto it = core_thread_.find(core);
        return it == core_thread_.end() ? -1 : it->second;
    }

    /// core → scheduler thread from metadata, else a majority vote over which thread's dispatch
    /// record contains each row's dispatch time (binary search per thread, not a full scan).
    void resolve_core_threads() {
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

    /// The phase (index) among `sorted` whose [start, end] contains x, else kNone.
    std::uint32_t containing(const PhasesByStart& sorted, std::int64_t x) const {
        std::size_t by = sorted.starting_by(x);
        return by > 0 && x <= sorted.ends[by - 1] ? sorted.phases[by - 1] : kNone;
    }

    /// The complete on a thread for a finish time: the one containing it, else the next one.
    std::optional<PhaseSpan> complete_for(int thread, std::int64_t finish) const {
        if (thread < 0 || static_cast<std::size_t>(thread) >= thread_completes_.size())
            return std::nullopt;
        const PhasesByStart& sorted = thread_completes_[static_cast<std::size_t>(thread)];
        std::size_t by = sorted.starting_by(finish);
        if (by > 0 && finish <= sorted.ends[by - 1]) return sorted.at(by - 1);
        if (by == sorted.phases.size()) return std::nullopt;
        return sorted.at(by);
    }

    std::uint32_t dispatch_phase_slice(const TaskRow& row) const {
        int t = thread_of_core(row.core_id);
        if (t < 0 || static_cast<std::size_t>(t) >= thread_dispatches_.size()) return kNone;
        std::uint32_t i =
            containing(thread_dispatches_[static_cast<std::size_t>(t)], row.dispatch_ns);
        return i == kNone ? kNone : phase_slice_[i];
    }

    void attribute_finishes() {
        resolve_core_threads();
        model_.extras[k_].finish_rows.assign(cap_.scheduler_phases.size(), 0);
        for (const auto& row : cap_.tasks) {
            if (!row.has_aicpu()) continue;
            int t = thread_of_core(row.core_id);
            if (t < 0 || static_cast<std::size_t>(t) >= thread_completes_.size()) continue;
            std::uint32_t i =
                containing(thread_completes_[static_cast<std::size_t>(t)], row.finish_ns);
            if (i != kNone) ++model_.extras[k_].finish_rows[i];
        }
    }

    // ---- arrows ----------------------------------------------------------------------------

    /// Anchor slices of a task in a view (rows, or its AICPU marker / alloc bar in Worker View).
    std::pair<const std::uint32_t*, const std::uint32_t*> anchors(std::uint64_t id,
                                                                  std::int64_t view,
                                                                  std::uint32_t& single) const {
        if (const std::uint32_t* t = task_of_id_[run_].find(id)) {
            const TaskInfo& info = tasks_[*t];
            const auto& list = view == kWorkerPid ? worker_anchors_ : sched_anchors_;
            std::uint32_t b =
                view == kWorkerPid ? info.worker_anchor_begin : info.sched_anchor_begin;
            std::uint32_t e = view == kWorkerPid ? info.worker_anchor_end : info.sched_anchor_end;
            if (b != e) return {list.data() + b, list.data() + e};
        }
        if (view == kWorkerPid) {
            if (const std::uint32_t* a = aicpu_anchor_.find(id)) {
                single = *a;
                return {&single, &single + 1};
            }
        }
        return {nullptr, nullptr};
    }

    /// SPMD fan count of a task on an arrow (deps block_num or its row count), else 1.
    std::int32_t fan_count(std::uint64_t id) const {
        const std::uint32_t* t = task_of_id_[run_].find(id);
        if (!t || !tasks_[*t].spmd) return 1;
        if (const DepsTask* dt = deps_task(id)) return static_cast<std::int32_t>(dt->block_num);
        return static_cast<std::int32_t>(tasks_[*t].row_count);
    }

    /// Dependency arrows, once per run and never across runs (deps.json is run-independent).
    void dependency_flows(std::int64_t view) {
        if (!has_graph() || (view == kSchedViewPid && !has_aicpu_)) return;
        if (model_.flow_mode == FlowMode::None) return;
        for (run_ = 0; run_ < task_of_id_.size(); ++run_) run_dependency_flows(view);
        run_ = 0;
    }

    void run_dependency_flows(std::int64_t view) {
        for (std::size_t p = 0; p < succ_.owner.size(); ++p) {
            std::uint64_t pred = succ_.owner[p];
            std::uint32_t pred_single = kNone;
            auto [pb, pe] = anchors(pred, view, pred_single);
            for (std::uint64_t succ : succ_.at(p)) {
                std::uint32_t succ_single = kNone;
                auto [sb, se] = anchors(succ, view, succ_single);
                if (pb == pe || sb == se) {
                    if (view == kWorkerPid) ++model_.counts.dependency_edges_missing;
                    continue;
                }
                std::int32_t out_count = fan_count(pred), in_count = fan_count(succ);
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
                    add_flow(
                        from.ts + from.dur > to.ts ? FlowName::HbViolation : FlowName::Dependency,
                        *gate, from.ts - offset_, *first, to.ts - offset_, in_count, out_count);
                    continue;
                }
                for (auto a = pb; a != pe; ++a)
                    for (auto b = sb; b != se; ++b) {
                        const Slice& from = model_.slices[*a];
                        const Slice& to = model_.slices[*b];
                        FlowName name = from.ts + from.dur > to.ts ? FlowName::HbViolation
                                                                   : FlowName::Dependency;
                        add_flow(name, *a, from.ts - offset_, *b, to.ts - offset_, in_count,
                                 out_count);
                    }
            }
        }
    }

    void complete_flows() {
        if (thread_completes_.empty() || cap_.core_to_thread.empty()) return;
        const auto& rows = cap_.tasks;
        struct Completed {
            std::int64_t end_ns;
            std::uint32_t thread, phase, task;
        };
        std::vector<Completed> completed;
        for (std::uint32_t t = 0; t < tasks_.size(); ++t) {
            const TaskInfo& info = tasks_[t];
            std::uint32_t last = kNone;
            for (std::uint32_t r = info.first_row; r < info.first_row + info.row_count; ++r)
                if (rows[r].has_aicpu() &&
                    (last == kNone || rows[r].finish_ns >= rows[last].finish_ns))
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
                add_flow(FlowName::Complete, worker_anchors_[a],
                         s.ts + s.dur - kEndInsetNs - offset_, target_slice, target);
            }
            for (auto a = info.sched_anchor_begin; a < info.sched_anchor_end; ++a) {
                const Slice& s = model_.slices[sched_anchors_[a]];
                add_flow(FlowName::Complete, sched_anchors_[a],
                         s.ts + s.dur - kEndInsetNs - offset_, target_slice, target);
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
                for (std::uint32_t r = consumer.first_row;
                     r < consumer.first_row + consumer.row_count; ++r)
                    if (rows[r].has_aicpu() &&
                        (first == kNone || rows[r].dispatch_ns < rows[first].dispatch_ns))
                        first = r;
                if (first == kNone || rows[first].dispatch_ns < done.end_ns) continue;
                add_flow(FlowName::CompleteReady, phase_slice_[done.phase],
                         done.end_ns - kEndInsetNs, dispatch_phase_slice(rows[first]),
                         rows[first].dispatch_ns);
            }
        }
    }

    void dispatch_flows() {
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

    void submit_flows() {
        // Host records only point at device dispatches when the clocks are aligned.
        bool cross_domain = !cap_.host_orchestration || cap_.host.alignment.calibrated ||
                            cap_.clock.axis == Clock::Axis::HostPlaced;
        if (first_submit_.empty() || thread_dispatches_.empty() || !cross_domain) return;
        const auto& rows = cap_.tasks;
        for (std::uint32_t r = 0; r < rows.size(); ++r) {
            const TaskRow& row = rows[r];
            if (!row.has_aicpu()) continue;
            const std::uint32_t* submit = first_submit_.find(row.task_id);
            if (!submit) continue;
            add_flow(FlowName::SubmitDispatch, orch_slice_[*submit],
                     cap_.orchestrator_phases[*submit].end_ns, dispatch_phase_slice(row),
                     row.dispatch_ns);
        }
    }

    TraceModel& model_;
    std::uint32_t k_;
    const TraceSource& src_;
    const Capture& cap_;
    std::int64_t pid_base_;
    std::int64_t offset_;

    std::unordered_map<std::uint64_t, std::uint32_t> group_index_;
    std::vector<TaskInfo> tasks_;
    std::vector<IdIndex> task_of_id_;  ///< per run: task id → task
    std::size_t run_ = 0;              ///< the run anchors() and fan_count() look tasks up in
    std::vector<std::uint32_t> row_task_;
    IdLists succ_, pred_;  ///< successors per pred (first-seen order), predecessors per succ
    bool has_aicpu_ = false;
    std::size_t threads_ = 0;
    std::size_t aicpu_lanes_ = 0;
    std::vector<std::uint32_t> worker_slice_, sched_slice_, phase_slice_, orch_slice_;
    std::vector<std::uint32_t> worker_anchors_, sched_anchors_;
    IdIndex aicpu_anchor_;
    IdIndex dummy_records_, skip_records_;  ///< task ids (values unused)
    IdIndex first_submit_;
    std::vector<PhasesByStart> thread_completes_, thread_dispatches_;
    std::unordered_map<std::uint32_t, int> core_thread_;  ///< cores with rows only
    std::vector<std::uint8_t> resolution_threads_;        ///< per thread: writes resolve_standalone
};

/// First-fit lanes per group (lowest free lane, like the converter's Scheduler View), so no two
/// slices overlap on one track; lane 0 keeps the upstream tid, overflow lanes get `base·100 + j`
/// (outside every upstream tid range) and the name "<lane>#j".
void assign_lanes(TraceModel& model) {
    std::vector<std::vector<std::uint32_t>> members(model.groups.size());
    for (std::uint32_t i = 0; i < model.slices.size(); ++i)
        members[model.slices[i].track].push_back(i);
    std::vector<std::tuple<std::int64_t, std::int64_t, std::uint32_t>> order;
    for (std::uint32_t g = 0; g < model.groups.size(); ++g) {
        LaneGroup& group = model.groups[g];
        auto make_track = [&](std::size_t lane) {
            Track track;
            track.pid = group.pid;
            track.tid =
                lane == 0 ? group.base_tid : group.base_tid * 100 + static_cast<std::int64_t>(lane);
            track.name = lane == 0 ? group.name : fmt::format("{}#{}", group.name, lane);
            model.tracks.push_back(std::move(track));
            if (lane > 0) ++model.counts.overflow_lanes;
            return static_cast<std::uint32_t>(model.tracks.size() - 1);
        };
        group.lane_tracks.push_back(make_track(0));  // upstream names every lane, used or not
        // By (start, longer first, creation): the keys are copied out in creation order, a
        // front-to-back read of the slices, and a group's slices nearly always come in that
        // order already, so most groups are only checked, not sorted.
        order.clear();
        for (std::uint32_t i : members[g])
            order.push_back({model.slices[i].ts, -model.slices[i].dur, i});
        if (!std::is_sorted(order.begin(), order.end())) std::sort(order.begin(), order.end());
        using Busy = std::pair<std::int64_t, std::size_t>;  // (end, lane)
        std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
        std::set<std::size_t> free_lanes;
        std::size_t lanes = 0;
        for (const auto& [ts, negative_dur, i] : order) {
            while (!busy.empty() && busy.top().first <= ts) {
                free_lanes.insert(busy.top().second);
                busy.pop();
            }
            std::size_t lane;
            if (!free_lanes.empty()) {
                lane = *free_lanes.begin();
                free_lanes.erase(free_lanes.begin());
            } else {
                lane = lanes++;
            }
            while (group.lane_tracks.size() <= lane)
                group.lane_tracks.push_back(make_track(group.lane_tracks.size()));
            model.slices[i].track = group.lane_tracks[lane];
            busy.emplace(ts - negative_dur, lane);
        }
    }
}

/// The processes, threads and slices a multi-rank layout adds besides the ranks' views
/// (upstream-2026-09.md §1.14: dispatchers at 1..10, rank host blocks at 11 + 3·rank + lane).
/// Each thread is a lane group, so overlapping slices get overflow lanes like any other.
void add_layout(TraceModel& model, const MultiRankLayout& layout) {
    for (const MultiRankLayout::Process& p : layout.processes)
        model.processes.push_back({p.pid, p.name, static_cast<int>(p.pid)});
    std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> group_of;
    for (const MultiRankLayout::Thread& t : layout.threads) {
        group_of.emplace(std::pair(t.pid, t.tid), static_cast<std::uint32_t>(model.groups.size()));
        LaneGroup g;
        g.pid = t.pid;
        g.base_tid = t.tid;
        g.name = t.name;
        model.groups.push_back(std::move(g));
    }
    for (std::uint32_t i = 0; i < layout.slices.size(); ++i) {
        const MultiRankLayout::Slice& l = layout.slices[i];
        auto it = group_of.find({l.pid, l.tid});
        if (it == group_of.end()) continue;  // a slice without its thread: nothing to draw on
        Slice s;
        s.kind = SliceKind::Layout;
        s.ref = i;
        s.ts = l.start_ns - layout.global_origin_ns;
        s.dur = std::max<std::int64_t>(l.dur_ns, 0);
        s.track = it->second;
        s.id = kNone;
        model.slices.push_back(s);
    }
}

}  // namespace

std::string graph_label(const GraphInstance& graph) {
    return fmt::format("GraphExecution({}, {} visible {})",
                       task_display(graph.outer_task_id, graph.labels), graph.node_count,
                       graph.sub_tasks ? "sub-tasks" : "nodes");
}

Result<TraceModel> build_trace_model(std::span<const TraceSource> sources, TimeAlign align,
                                     FlowMode flows, const MultiRankLayout* multi_rank) {
    if (sources.size() > kMaxSources)
        return Error{
            fmt::format("{} captures in one trace; at most {}", sources.size(), kMaxSources), "", 0,
            ExitCode::InputError};
    TraceModel model;
    model.sources = sources;
    model.flow_mode = flows;
    model.offsets_ns.assign(sources.size(), 0);
    model.pid_base.assign(sources.size(), 0);
    model.extras.resize(sources.size());
    bool host_axis = sources.size() > 1 && std::all_of(sources.begin(), sources.end(), [](auto& s) {
                         return s.capture->host_orchestration;
                     });
    bool any_host = std::any_of(sources.begin(), sources.end(),
                                [](auto& s) { return s.capture->host_orchestration; });
    model.multi_rank = multi_rank;
    if (multi_rank) {
        // §1.14: every rank on the host clock, from the shared origin; rank r at 100·(r+1).
        for (std::size_t k = 0; k < sources.size(); ++k) {
            model.offsets_ns[k] = sources[k].capture->host.origin_ns - multi_rank->global_origin_ns;
            model.pid_base[k] = 100 * static_cast<std::int64_t>(multi_rank->ranks.at(k) + 1);
        }
    } else if (align == TimeAlign::Absolute && any_host && !host_axis && sources.size() > 1)
        return Error{
            "--align absolute cannot join host-orchestration captures (host clock) with "
            "device-orchestration ones (device clock); use --align start",
            "", 0, ExitCode::InputError};
    if (align == TimeAlign::Absolute && host_axis) {
        // Host-orchestration captures share the host's CLOCK_MONOTONIC: align on it.
        std::int64_t origin = sources[0].capture->host.origin_ns;
        for (const auto& source : sources)
            origin = std::min(origin, source.capture->host.origin_ns);
        for (std::size_t k = 0; k < sources.size(); ++k)
            model.offsets_ns[k] = sources[k].capture->host.origin_ns - origin;
    } else if (align == TimeAlign::Absolute && sources.size() > 1) {
        std::uint64_t freq = sources[0].capture->clock.freq_hz;
        std::int64_t origin = sources[0].capture->clock.origin_ticks;
        for (const auto& source : sources) {
            if (source.capture->clock.freq_hz != freq)
                return Error{
                    fmt::format(
                        "--align absolute needs one clock, but {} runs at {} Hz and {} at {} Hz",
                        sources[0].label, freq, source.label, source.capture->clock.freq_hz),
                    "", 0, ExitCode::InputError};
            origin = std::min(origin, source.capture->clock.origin_ticks);
        }
        for (std::size_t k = 0; k < sources.size(); ++k)
            model.offsets_ns[k] = sources[k].capture->clock.ticks_to_ns(
                sources[k].capture->clock.origin_ticks - origin);
    }
    std::size_t slices = 0;
    for (const auto& source : sources)
        slices += source.capture->tasks.size() * 2 + source.capture->scheduler_phases.size() +
                  source.capture->orchestrator_phases.size() * 2;
    if (multi_rank) slices += multi_rank->slices.size();
    model.slices.reserve(slices);
    if (multi_rank) add_layout(model, *multi_rank);
    for (std::uint32_t k = 0; k < sources.size(); ++k) {
        if (sources.size() > 1 && !multi_rank)
            model.pid_base[k] = 100 * static_cast<std::int64_t>(k + 1);
        Builder(model, k).build();
    }
    // §1.14: Perfetto orders processes by sort index; the ranks' blocks in pid order.
    if (multi_rank)
        for (Process& p : model.processes) p.sort_index = static_cast<int>(p.pid);
    assign_lanes(model);
    model.counts.slices = model.slices.size();
    model.counts.counters = model.counters.size();
    model.counts.flows = model.flows.size();
    return model;
}

}  // namespace ptune::swimlane::detail
