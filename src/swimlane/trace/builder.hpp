#pragma once
// The per-source builder of the trace layout (trace_model.hpp): one Builder turns one capture
// into processes, lanes, slices, counters and arrows. Its steps live in builder_tasks.cpp
// (tasks, labels, graph executions, the worker and scheduler views), builder_phases.cpp
// (scheduler phases, lifecycle, orchestrator, host phases) and builder_flows.cpp (the arrows).

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

namespace ptune::swimlane::detail::build {

/// From this many task rows on, the labels are made on a second thread (a thread costs more
/// than the labels of fewer).
inline constexpr std::size_t kLabelsBesideFrom = 4096;

/// Upstream shifts arrow sources 0.01 µs before a slice end so they land inside it.
inline constexpr std::int64_t kEndInsetNs = 10;

inline bool is_rendered(PhaseKind kind) {
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
inline bool is_inner(PhaseKind kind) {
    return kind == PhaseKind::Resolve || kind == PhaseKind::DrainPrepare ||
           kind == PhaseKind::DrainPublish;
}

inline bool contains_spmd(std::string_view name) {
    static constexpr std::string_view kSpmd = "spmd";
    auto it = std::search(name.begin(), name.end(), kSpmd.begin(), kSpmd.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
    return it != name.end();
}

/// A time strictly inside a slice (so the enclosing-slice lookup cannot pick a neighbour that
/// ends or starts at the same instant), as close to `want` as possible.
inline std::int64_t inside(const Slice& slice, std::int64_t want) {
    if (slice.dur < 2) return slice.ts;
    return std::clamp(want, slice.ts + 1, slice.ts + slice.dur - 1);
}

/// Like inside() but never before `not_before` (a flow's end may not precede its start);
/// false when the slice ends too early for that.
inline bool inside_from(const Slice& slice, std::int64_t want, std::int64_t not_before,
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

    void reserve(std::size_t n) {
        starts.reserve(n);
        ends.reserve(n);
        phases.reserve(n);
    }
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
    /// How many entries start at or before x. The rows ask in nearly time order, so the search
    /// starts where the last one ended and widens (galloping): a few reads near the last answer
    /// rather than a binary search's cache misses over the whole array for every row.
    std::size_t starting_by(std::int64_t x) const {
        const std::size_t n = starts.size();
        const std::size_t h = std::min(hint_, n);
        std::size_t lo = h, hi = h;  // the answer is in [lo, hi]
        if (h < n && starts[h] <= x) {
            lo = h + 1;
            std::size_t i = lo;
            for (std::size_t step = 1; i < n && starts[i] <= x; step *= 2) {
                lo = i + 1;
                i += step;
            }
            hi = std::min(i, n);
        } else {
            std::size_t i = h;
            for (std::size_t step = 1; i > 0 && starts[i - 1] > x; step *= 2) {
                hi = i - 1;
                i = i > step ? i - step : 0;
            }
            lo = i;
        }
        hint_ = static_cast<std::size_t>(
            std::upper_bound(starts.begin() + static_cast<std::ptrdiff_t>(lo),
                             starts.begin() + static_cast<std::ptrdiff_t>(hi), x) -
            starts.begin());
        return hint_;
    }

  private:
    mutable std::size_t hint_ = 0;  ///< the last answer
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

    /// The steps in three parts: every slice, then the dependency arrows, then the other arrows.
    /// No slice is added after the first part, so lanes can be assigned meanwhile.
    void build_slices();
    void build_dependency_flows();
    void build_other_flows();

  private:
    std::string process_label(std::string_view view) const;

    std::uint32_t group(std::int64_t pid, std::int64_t tid, std::string name);

    std::uint32_t add_slice(SliceKind kind, std::uint32_t ref, std::int64_t ts, std::int64_t dur,
                            std::uint32_t grp, bool numbered);

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
        std::int64_t s_ts = inside(s, s_want + offset_), f_ts = 0;
        if (!inside_from(f, f_want + offset_, s_ts, f_ts)) {
            ++model_.counts.flows_unbound;
            return;
        }
        if (input_count >= 0)  // (a dependency arrow's; the JSON writes both then)
            model_.fan_counts.add(static_cast<std::uint32_t>(model_.flows.size()),
                                  {input_count, output_count});
        model_.add_flow(flow, s_ts, f_ts);
    }

    // ---- tasks ----------------------------------------------------------------------------

    void index_tasks();

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

    const DepsTask* deps_task(std::uint64_t id) const;

    std::span<const std::uint64_t> successors(std::uint64_t id) const { return succ_.of(id); }
    std::span<const std::uint64_t> predecessors(std::uint64_t id) const { return pred_.of(id); }
    bool has_graph() const { return src_.deps != nullptr || !cap_.embedded_edges.empty(); }

    /// Appends a fan-in/fan-out hint ("2: [r1t4, r1t5]") as the next string of `table`.
    static void add_hint(StringTable& table, std::span<const std::uint64_t> ids, TaskLabels labels);

    void make_labels();

    // ---- processes and lanes ---------------------------------------------------------------

    /// pid 5 (§5.4, §6.3 step 3): one envelope per outer graph task, from its first GraphPrepare
    /// record to its last node's finish, on first-fit lanes by prepare start.
    void make_graph_execution();

    void make_processes();

    std::string core_lane_name(std::uint32_t core, CoreType type) const;

    void make_worker_view();

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

    void make_scheduler_view();

    /// A stream written by the a5 AICore scheduler (upstream-2026-09.md §1.6).
    bool aicore_stream(std::uint32_t thread) const;

    /// Nested on the second lane: TMR's inner phases; AICore streams are one flat lane.
    bool inner_phase(const SchedulerPhase& p) const;

    void make_scheduler_phases();

    /// A host_build_graph resolution thread: it writes `resolve_standalone` records.
    bool resolution_thread(std::uint32_t thread);

    /// pid 6 `AICPU Lifecycle` (§1.8): one lane per AICPU thread, one slice per interval.
    void make_lifecycle();

    std::uint32_t counter_track();

    /// pid 1: the orchestrator, and in host-orchestration captures the host→device copies on
    /// their own lane. Upstream names pid 1 twice ("Host Prepare", then "Host Orchestrator");
    /// a viewer keeps one name, so one is given.
    void make_orchestrator();

    /// host_phase_records.jsonl: one lane group per producer thread (nesting records overflow).
    void add_host_phases(const HostPhaseLanes& phases);

    /// An orchestrator task that is neither a regular task, a dummy nor a predicated skip of
    /// run `run`.
    bool is_alloc(std::uint32_t run, std::uint64_t id) const;

    // ---- scheduler bookkeeping -------------------------------------------------------------

    int thread_of_core(std::uint32_t core) const;

    /// core → scheduler thread from metadata, else a majority vote over which thread's dispatch
    /// record contains each row's dispatch time (binary search per thread, not a full scan).
    void resolve_core_threads();

    /// thread_by_core_ from core_thread_.
    void index_core_threads();

    /// The phase (index) among `sorted` whose [start, end] contains x, else kNone.
    std::uint32_t containing(const PhasesByStart& sorted, std::int64_t x) const;

    /// The complete on a thread for a finish time: the one containing it, else the next one.
    std::optional<PhaseSpan> complete_for(int thread, std::int64_t finish) const;

    std::uint32_t dispatch_phase_slice(const TaskRow& row) const;

    void attribute_finishes();

    // ---- arrows ----------------------------------------------------------------------------

    /// Task `id` of run `run_`, null when it has no rows.
    const TaskInfo* task_in_run(std::uint64_t id) const;

    /// Anchor slices of task `id` (`task`: task_in_run(id)) in a view (rows, or its AICPU marker
    /// / alloc bar in Worker View).
    std::pair<const std::uint32_t*, const std::uint32_t*> anchors(std::uint64_t id,
                                                                  const TaskInfo* task,
                                                                  std::int64_t view,
                                                                  std::uint32_t& single) const;

    /// SPMD fan count of task `id` (`task`: task_in_run(id)) on an arrow (deps block_num or its
    /// row count), else 1.
    std::int32_t fan_count(std::uint64_t id, const TaskInfo* task) const;

    /// Dependency arrows, once per run and never across runs (deps.json is run-independent).
    void dependency_flows(std::int64_t view);

    void run_dependency_flows(std::int64_t view);

    void complete_flows();

    /// Frees what only the task arrows (dependency, complete) read: the task index, anchors,
    /// edge lists and completes, so the dispatch and submit arrows' chunks reuse the memory.
    void release_task_scratch();

    void dispatch_flows();

    void submit_flows();

    TraceModel& model_;
    std::uint32_t k_;
    const TraceSource& src_;
    const Capture& cap_;
    std::int64_t pid_base_;
    std::int64_t offset_;

    std::unordered_map<std::uint64_t, std::uint32_t> group_index_;
    std::vector<TaskInfo> tasks_;
    std::vector<IdIndex> task_of_id_;  ///< per run: task id → task
    std::size_t run_ = 0;              ///< the run task_in_run() looks tasks up in
    std::vector<std::uint32_t> row_task_;
    IdLists succ_, pred_;  ///< successors per pred (first-seen order), predecessors per succ
    bool has_aicpu_ = false;
    std::size_t threads_ = 0;
    std::size_t aicpu_lanes_ = 0;
    std::vector<std::uint32_t> worker_slice_, sched_slice_, phase_slice_, orch_slice_;
    std::vector<std::uint32_t> worker_anchors_, sched_anchors_;
    // Per run (task ids repeat across runs, §1.10): the AICPU marker or alloc bar of a task
    // (slice), the tasks with dummy / predicated-skip records (values unused), and the first
    // submit record of a task.
    std::vector<IdIndex> aicpu_anchor_, dummy_records_, skip_records_, first_submit_;
    std::vector<PhasesByStart> thread_completes_, thread_dispatches_;
    std::unordered_map<std::uint32_t, int> core_thread_;  ///< cores with rows only
    std::vector<int> thread_by_core_;  ///< core_thread_ by core id (-1: no rows), when small
    std::vector<std::uint8_t> resolution_threads_;  ///< per thread: writes resolve_standalone
};

}  // namespace ptune::swimlane::detail::build
