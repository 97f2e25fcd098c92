// Builds the trace layout of swimlane.md §5–§6.3 from the captures: lanes, slices, counters and
// the seven arrow kinds, each arrow bound strictly inside its two slices (conventions.md §2.2).

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "builder.hpp"
#include "ptune/core/threads.hpp"
#include "ptune/swimlane/host_phase_lanes.hpp"
#include "ptune/swimlane/reader.hpp"
#include "trace_model.hpp"

namespace ptune::swimlane::detail {

namespace {

/// First-fit lanes per group (lowest free lane, like the converter's Scheduler View), so no two
/// slices overlap on one track; lane 0 keeps the upstream tid, overflow lanes get `base·100 + j`
/// (outside every upstream tid range) and the name "<lane>#j". In two steps: the constructor
/// makes the lists, the bulk of the memory, on the thread that builds the model, before run()
/// goes to another (from before the process kept one heap for every thread, main.cpp).
class LaneAssignment {
  public:
    /// Each group's slices in creation order, all groups in one array (counted, then placed).
    explicit LaneAssignment(TraceModel& model)
        : model_(model), first_(model.groups.size() + 1, 0), members_(model.slices.size()) {
        for (const Slice& s : model.slices) ++first_[s.track + 1];
        std::size_t largest = 0;
        for (std::size_t g = 1; g < first_.size(); ++g) {
            largest = std::max<std::size_t>(largest, first_[g]);
            first_[g] += first_[g - 1];
        }
        std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
        for (std::uint32_t i = 0; i < model.slices.size(); ++i)
            members_[fill[model.slices[i].track]++] = i;
        order_.reserve(largest);
    }

    /// Sets every slice's track (and makes the tracks).
    void run();

  private:
    TraceModel& model_;
    std::vector<std::uint32_t> first_, members_;
    std::vector<std::tuple<std::int64_t, std::int64_t, std::uint32_t>> order_;
};

void LaneAssignment::run() {
    constexpr std::uint32_t kReadAhead = 16;  // slices
    for (std::uint32_t g = 0; g < model_.groups.size(); ++g) {
        LaneGroup& group = model_.groups[g];
        auto make_track = [&](std::size_t lane) {
            Track track;
            track.pid = group.pid;
            track.tid =
                lane == 0 ? group.base_tid : group.base_tid * 100 + static_cast<std::int64_t>(lane);
            track.name = lane == 0 ? group.name : fmt::format("{}#{}", group.name, lane);
            model_.tracks.push_back(std::move(track));
            if (lane > 0) ++model_.counts.overflow_lanes;
            return static_cast<std::uint32_t>(model_.tracks.size() - 1);
        };
        group.lane_tracks.push_back(make_track(0));  // upstream names every lane, used or not
        // By (start, longer first, creation): the keys are copied out in creation order, a
        // front-to-back read of the slices, and a group's slices nearly always come in that
        // order already: most groups are only checked, the rest have a few slices a few
        // places out (at 200K tasks the three scheduler groups: ~1,900 of 207,000 each, by at
        // most 3 places; std::sort took 15 ms, the insertion 1.5 ms).
        // The slices a group holds are scattered over the whole array (46 MB at 200K tasks):
        // read ahead, so that the misses overlap (the gather 16 → 9 ms at 200K).
        order_.clear();
        for (std::uint32_t m = first_[g]; m < first_[g + 1]; ++m) {
            if (m + kReadAhead < first_[g + 1])
                __builtin_prefetch(&model_.slices[members_[m + kReadAhead]]);
            const std::uint32_t i = members_[m];
            order_.push_back({model_.slices[i].ts, -model_.slices[i].dur, i});
        }
        sort_nearly_sorted(order_.begin(), order_.end());
        using Busy = std::pair<std::int64_t, std::size_t>;  // (end, lane)
        std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
        // The free lanes, lowest on top (first fit).
        std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> free_lanes;
        std::size_t lanes = group.nests ? 1 : 0;  // a nesting group keeps lane 0 to itself
        std::vector<std::int64_t> open;           // ends of the nested slices open on lane 0
        for (std::size_t k = 0; k < order_.size(); ++k) {
            if (k + kReadAhead < order_.size())
                __builtin_prefetch(&model_.slices[std::get<2>(order_[k + kReadAhead])], 1);
            const auto& [ts, negative_dur, i] = order_[k];
            if (group.nests) {
                while (!open.empty() && open.back() <= ts) open.pop_back();
                if (open.empty() || ts - negative_dur <= open.back()) {
                    model_.slices[i].track = group.lane_tracks[0];
                    open.push_back(ts - negative_dur);
                    continue;
                }
            }
            while (!busy.empty() && busy.top().first <= ts) {
                free_lanes.push(busy.top().second);
                busy.pop();
            }
            std::size_t lane;
            if (!free_lanes.empty()) {
                lane = free_lanes.top();
                free_lanes.pop();
            } else {
                lane = lanes++;
            }
            while (group.lane_tracks.size() <= lane)
                group.lane_tracks.push_back(make_track(group.lane_tracks.size()));
            model_.slices[i].track = group.lane_tracks[lane];
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
        g.nests = true;  // host spans nest by depth, as upstream draws them
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

/// At most how many alloc bars (Builder::make_orchestrator) a source gets: with deps.json, one
/// per submit record of a task deps.json lacks; without, one per orchestrator record. The slices
/// are reserved with it, so that a bar per record is not reserved where few or none are drawn.
std::size_t alloc_bars_at_most(const TraceSource& source) {
    const auto& orch = source.capture->orchestrator_phases;
    if (!source.deps) return orch.size();
    std::size_t bars = 0;
    for (const OrchestratorPhase& p : orch)
        if (p.task_id >= 0 && source.capture->phase_name(p) == "orch_submit" &&
            !source.deps->tasks.contains(static_cast<std::uint64_t>(p.task_id)))
            ++bars;
    return bars;
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
                  source.capture->orchestrator_phases.size() + alloc_bars_at_most(source);
    if (multi_rank) slices += multi_rank->slices.size();
    model.slices.reserve(slices);
    if (multi_rank) add_layout(model, *multi_rank);
    // Lanes read the slices' times and set their tracks, which no arrow reads: once the last
    // source's slices are made, they are assigned on a second thread while its dependency arrows
    // are built, and done before its other arrows, which then reuse the memory the lanes' lists
    // held (the run's peak is in the complete arrows).
    std::optional<LaneAssignment> lane_assignment;
    threads::Beside<void> lanes;  // (after lane_assignment: destroyed first, it waits)
    auto start_lanes = [&] {
        LaneAssignment& assignment = lane_assignment.emplace(model);
        return threads::beside_if<void>(true, [&assignment] { assignment.run(); });
    };
    for (std::uint32_t k = 0; k < sources.size(); ++k) {
        if (sources.size() > 1 && !multi_rank)
            model.pid_base[k] = 100 * static_cast<std::int64_t>(k + 1);
        build::Builder builder(model, k);
        builder.build_slices();
        if (k + 1 == sources.size()) lanes = start_lanes();
        builder.build_dependency_flows();
        if (lanes.valid()) lanes.get();
        lane_assignment.reset();
        builder.build_other_flows();
    }
    if (sources.empty()) LaneAssignment(model).run();
    // §1.14: Perfetto orders processes by sort index; the ranks' blocks in pid order.
    if (multi_rank)
        for (Process& p : model.processes) p.sort_index = static_cast<int>(p.pid);
    model.counts.slices = model.slices.size();
    model.counts.counters = model.counters.size();
    model.counts.flows = model.flows.size();
    return model;
}

}  // namespace ptune::swimlane::detail