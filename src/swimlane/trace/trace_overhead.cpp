// `--overhead` counters: at every instant of the AICore window W = [min start, max end], per
// core type T (aic, aiv) the idle cores k_T − run_T(t), the tasks that are ready but not yet
// dispatched (ready = the latest end of their predecessors with rows, else their own dispatch;
// a MIX task counts for both types), overhead_T = idle and ready work at once, all_overhead =
// every present type is overhead, has_overhead = every type with ready work has an idle core.
// Upstream (build_overhead_counter_events) keeps the +1/−1 deltas in dictionaries keyed by float
// µs and walks the sorted instants; here every interval's two ends are steps on integer ns,
// ordered once by a radix sort, and a sweep emits a sample whenever a series changes.

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "trace_overhead.hpp"

namespace ptune::swimlane {

bool has_task_graph(const TraceSource& source) {
    return source.deps ? !source.deps->edges.empty() : !source.capture->embedded_edges.empty();
}

namespace detail {

namespace {

constexpr std::size_t kTypes = 2;  // aic, aiv (CoreType order)

/// The series in upstream's emission order at one instant, with their fixed tids.
enum Series : std::size_t {
    kAicIdle,
    kAicReady,
    kAicOverhead,
    kAivIdle,
    kAivReady,
    kAivOverhead,
    kAllOverhead,
    kHasOverhead,
    kSeriesCount
};
constexpr std::array<std::string_view, kSeriesCount> kSeriesName = {
    "oh_aic_idle",  "oh_aic_ready",    "oh_aic_overhead", "oh_aiv_idle",
    "oh_aiv_ready", "oh_aiv_overhead", "oh_all_overhead", "oh_has_overhead"};
constexpr std::array<std::int64_t, kSeriesCount> kSeriesTid = {9101, 9102, 9103, 9111,
                                                               9112, 9113, 9121, 9122};

/// One end of a running or ready interval: at `ns`, `count` (running or ready, of a type)
/// changes by `delta`.
struct Step {
    std::int64_t ns;
    std::uint8_t count;  // type·2 + (0 running, 1 ready)
    std::int8_t delta;
};

std::size_t type_index(CoreType type) {
    return type == CoreType::Aic ? 0 : 1;
}

/// Per task, i.e. task id within a run (rows are grouped by (run, task id), §1.10): its types,
/// first dispatch and last end.
struct TaskSpan {
    std::uint32_t run = 0;
    std::uint64_t id = 0;
    std::int64_t dispatch = kNoTime;  ///< kNoTime when a row lacks AICPU times
    std::int64_t end = kNoTime;
    std::int64_t ready = kNoTime;  ///< latest end of a predecessor with rows
    std::uint8_t types = 0;        ///< bit per CoreType
};

/// The tasks of one capture with their ready times, the window W and the cores per type.
struct OverheadInput {
    std::vector<TaskSpan> tasks;  ///< by (run, task id), as the rows are sorted
    std::int64_t w0 = 0, w1 = 0;  ///< W = [min start, max end]
    std::array<std::int64_t, kTypes> core_count{};
    std::array<bool, kTypes> present{};
};

/// Tasks, W and k_T (distinct cores of each type that have rows: upstream counts those, not
/// core_types); ready = the latest end of a predecessor with rows.
OverheadInput overhead_input(const TraceSource& src) {
    const auto& rows = src.capture->tasks;
    OverheadInput in;
    std::vector<std::uint64_t> type_cores;  // sorted (type, core) pairs
    type_cores.reserve(rows.size());
    in.w0 = rows.front().start_ns, in.w1 = rows.front().end_ns;
    const auto& row_run = src.capture->row_run;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const TaskRow& row = rows[r];
        const std::uint32_t run = r < row_run.size() ? row_run[r] : 0;
        std::size_t type = type_index(row.core_type);
        type_cores.push_back((std::uint64_t{type} << 32) | row.core_id);
        in.w0 = std::min(in.w0, row.start_ns);
        in.w1 = std::max(in.w1, row.end_ns);
        if (in.tasks.empty() || in.tasks.back().id != row.task_id || in.tasks.back().run != run)
            in.tasks.push_back({run, row.task_id, row.dispatch_ns, row.end_ns, kNoTime, 0});
        TaskSpan& task = in.tasks.back();
        task.types |= static_cast<std::uint8_t>(1u << type);
        task.end = std::max(task.end, row.end_ns);
        // A row without AICPU times has no dispatch: upstream reads it as 0.0, the start of the
        // time axis, so such a task is never "ready but undispatched".
        if (!row.has_aicpu() || task.dispatch == kNoTime)
            task.dispatch = kNoTime;
        else
            task.dispatch = std::min(task.dispatch, row.dispatch_ns);
    }
    // deps.json is run-independent: its edges hold within every run, never across runs.
    auto find_task = [&](std::uint32_t run, std::uint64_t id) -> TaskSpan* {
        auto it =
            std::lower_bound(in.tasks.begin(), in.tasks.end(), std::pair(run, id),
                             [](const TaskSpan& t, std::pair<std::uint32_t, std::uint64_t> v) {
                                 return std::pair(t.run, t.id) < v;
                             });
        return it != in.tasks.end() && it->run == run && it->id == id ? &*it : nullptr;
    };
    const auto& edges = src.deps ? src.deps->edges : src.capture->embedded_edges;
    const std::uint32_t runs = in.tasks.back().run + 1;
    for (std::uint32_t run = 0; run < runs; ++run)
        for (const auto& [pred, succ] : edges) {
            if (pred == succ) continue;
            const TaskSpan* p = find_task(run, pred);
            TaskSpan* s = find_task(run, succ);
            if (p && s) s->ready = std::max(s->ready, p->end);
        }
    std::sort(type_cores.begin(), type_cores.end());
    type_cores.erase(std::unique(type_cores.begin(), type_cores.end()), type_cores.end());
    for (std::uint64_t type_core : type_cores) ++in.core_count[type_core >> 32];
    for (std::size_t type = 0; type < kTypes; ++type) in.present[type] = in.core_count[type] > 0;
    return in;
}

/// The steps of every running interval (rows) and ready interval (tasks), clamped to W.
std::vector<Step> overhead_steps(const std::vector<TaskRow>& rows, const OverheadInput& in) {
    auto clamp = [&](std::int64_t ns) { return std::clamp(ns, in.w0, in.w1); };
    std::vector<Step> steps;
    steps.reserve(2 * rows.size() + 4 * in.tasks.size());
    for (const TaskRow& row : rows) {
        std::int64_t s = clamp(row.start_ns), e = clamp(row.end_ns);
        if (e <= s) continue;
        auto count = static_cast<std::uint8_t>(2 * type_index(row.core_type));
        steps.push_back({s, count, +1});
        steps.push_back({e, count, -1});
    }
    for (const TaskSpan& task : in.tasks) {
        if (task.dispatch == kNoTime) continue;
        std::int64_t r = clamp(task.ready != kNoTime ? task.ready : task.dispatch);
        std::int64_t d = clamp(task.dispatch);
        if (d <= r) continue;
        for (std::size_t type = 0; type < kTypes; ++type)
            if (task.types & (1u << type)) {
                auto count = static_cast<std::uint8_t>(2 * type + 1);
                steps.push_back({r, count, +1});
                steps.push_back({d, count, -1});
            }
    }
    return steps;
}

/// Tracks of the series this capture has (upstream leaves out the series of an absent type),
/// on the AICPU Scheduler process, which a capture without scheduler phases lacks so far.
std::array<std::uint32_t, kSeriesCount> overhead_tracks(TraceModel& model, std::uint32_t k,
                                                        const std::array<bool, kTypes>& present) {
    const TraceSource& src = model.sources[k];
    std::int64_t pid = model.pid_base[k] + kSchedulerPid;
    if (std::none_of(model.processes.begin(), model.processes.end(),
                     [&](const Process& p) { return p.pid == pid; }))
        model.processes.push_back(
            {pid,
             src.label.empty() ? "AICPU Scheduler" : fmt::format("{} / AICPU Scheduler", src.label),
             2});
    std::array<std::uint32_t, kSeriesCount> track{};
    for (std::size_t series = 0; series < kSeriesCount; ++series) {
        if (series < kAllOverhead && !present[series / 3]) continue;
        Track t;
        t.pid = pid;
        t.tid = kSeriesTid[series];
        t.name = std::string(kSeriesName[series]);
        t.is_overhead = true;
        track[series] = static_cast<std::uint32_t>(model.tracks.size());
        model.tracks.push_back(std::move(t));
    }
    return track;
}

/// The series' values at one instant from the running / ready levels.
std::array<std::int64_t, kSeriesCount> overhead_values(
    const OverheadInput& in, const std::array<std::int64_t, 2 * kTypes>& level) {
    std::array<std::int64_t, kSeriesCount> value{};
    bool all_overhead = true, has_work = false, work_has_idle = true;
    for (std::size_t type = 0; type < kTypes; ++type) {
        if (!in.present[type]) continue;
        std::int64_t idle = in.core_count[type] - level[2 * type];
        std::int64_t ready = level[2 * type + 1];
        bool overhead = idle > 0 && ready > 0;
        value[3 * type] = idle;
        value[3 * type + 1] = ready;
        value[3 * type + 2] = overhead;
        all_overhead = all_overhead && overhead;
        if (ready > 0) {
            has_work = true;
            work_has_idle = work_has_idle && idle > 0;
        }
    }
    value[kAllOverhead] = all_overhead;
    value[kHasOverhead] = has_work && work_has_idle;
    return value;
}

/// The sweep: apply every step at an instant, then sample. Instants are W's start and every
/// step time before W's end (at w1 itself nothing is sampled, as upstream); `emit(at, series,
/// value)` gets every change of a series.
template <class Emit>
void sweep_overhead(const OverheadInput& in, const std::vector<Step>& steps,
                    const std::vector<std::uint32_t>& order, Emit&& emit) {
    std::array<std::int64_t, 2 * kTypes> level{};
    std::array<std::int64_t, kSeriesCount> last{};
    std::array<bool, kSeriesCount> emitted{};
    std::size_t next = 0;
    for (std::int64_t at = in.w0; at < in.w1;) {
        for (; next < order.size() && steps[order[next]].ns == at; ++next)
            level[steps[order[next]].count] += steps[order[next]].delta;
        std::array<std::int64_t, kSeriesCount> value = overhead_values(in, level);
        for (std::size_t series = 0; series < kSeriesCount; ++series) {
            if (series < kAllOverhead && !in.present[series / 3]) continue;
            if (emitted[series] && last[series] == value[series]) continue;
            emitted[series] = true;
            last[series] = value[series];
            emit(at, series, value[series]);
        }
        at = next < order.size() ? steps[order[next]].ns : in.w1;
    }
}

void add_source(TraceModel& model, std::uint32_t k) {
    const TraceSource& src = model.sources[k];
    if (src.capture->tasks.empty() || !has_task_graph(src)) return;
    const OverheadInput in = overhead_input(src);
    const std::vector<Step> steps = overhead_steps(src.capture->tasks, in);
    std::vector<std::uint32_t> order = identity(steps.size());
    stable_order(order, [&](std::uint32_t i) { return time_key(steps[i].ns); });
    const std::array<std::uint32_t, kSeriesCount> track = overhead_tracks(model, k, in.present);
    // The sweep runs twice, counting and then appending, so the counters grow once to their
    // exact size (a 200K-task capture has ~1.7M samples; a doubling vector would hold up to
    // twice that).
    std::size_t samples = 0;
    sweep_overhead(in, steps, order, [&](std::int64_t, std::size_t, std::int64_t) { ++samples; });
    model.counters.reserve(model.counters.size() + samples);
    sweep_overhead(in, steps, order, [&](std::int64_t at, std::size_t series, std::int64_t value) {
        Counter c;
        c.ts = at + model.offsets_ns[k];
        c.track = track[series];
        c.set_value(static_cast<std::int32_t>(value));
        model.counters.push_back(c);
    });
}

}  // namespace

void add_overhead_counters(TraceModel& model) {
    for (std::uint32_t k = 0; k < model.sources.size(); ++k) add_source(model, k);
    model.counts.counters = model.counters.size();
}

}  // namespace detail

}  // namespace ptune::swimlane
