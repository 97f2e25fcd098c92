#pragma once
// The format-neutral layout of a swimlane trace: processes, thread tracks, slices, counters and
// flows that reference rows and phases of the captures by index. Built once in linear time
// (plus sorts); the JSON and protobuf writers only render it, so both show the same lanes,
// times and arrows. Names and args come from the referenced records through trace_args.hpp,
// one enumeration both writers render.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../radix_order.hpp"
#include "ptune/core/chunked_vector.hpp"
#include "ptune/swimlane/trace.hpp"

namespace ptune::swimlane::detail {

/// Process ids of one capture's views, relative to its pid base (swimlane.md §5).
inline constexpr std::int64_t kLifecyclePid = 6, kGraphPid = 5, kWorkerPid = 4, kSchedViewPid = 3,
                              kSchedulerPid = 2, kOrchPid = 1;

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

enum class SliceKind : std::uint8_t {
    WorkerTask,  ///< ref = row index; pid 4
    SchedTask,   ///< ref = row index; pid 3
    Phase,       ///< ref = scheduler phase index; pid 2
    Marker,      ///< ref = scheduler phase index (dummy_task / predicated_skip); pid 4 AICPU lane
    Orch,        ///< ref = orchestrator phase index; pid 1
    Alloc,       ///< ref = orchestrator phase index; pid 4 AICPU lane
    Upload,      ///< ref = Capture::host.uploads index; pid 1 H2D lane
    Graph,       ///< ref = SourceExtras::graphs index; pid 5
    HostPhase,   ///< ref = TraceSource::host_phases slice index; pid 1 host phase lanes
    Lifecycle,   ///< ref = lifecycle record · 8 + interval; pid 6
    Layout,      ///< ref = MultiRankLayout::slices index; dispatcher and rank host blocks
};

enum class FlowName : std::uint8_t {
    Dependency,
    HbViolation,
    Complete,
    CompleteReady,
    Dispatch,
    SubmitDispatch
};

struct Process {
    std::int64_t pid = 0;
    std::string name;
    int sort_index = 0;
};

struct Track {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::string name;
    int sort_index = -1;       ///< thread_sort_index, -1 when none
    bool is_counter = false;   ///< the shared ready-queue counter (three series: AIC, AIV, MIX)
    bool is_overhead = false;  ///< one `--overhead` series, named `name`; upstream gives it no
                               ///< thread_name (trace_overhead.cpp)
    std::uint32_t source = 0;  ///< a counter track's source (whose phases its samples show)
};

/// One slice in 32 bytes (a 200K-task trace holds ~1.5M of them).
struct Slice {
    std::int64_t ts = 0;   ///< ns on the trace axis
    std::int64_t dur = 0;  ///< ns
    std::uint32_t ref = 0;
    std::uint32_t track = 0;  ///< the lane group until lane allocation, then the track
    std::uint32_t id = 0;     ///< the X event "id" (upstream numbering per source + offset)
    std::uint16_t source = 0;
    SliceKind kind = SliceKind::WorkerTask;
};

/// Most captures one trace can hold (Slice::source).
inline constexpr std::size_t kMaxSources = 0xFFFF;

/// One counter sample in 16 bytes (a 200K-task trace holds ~600K of them, ~1.7M with
/// `--overhead`).
struct Counter {
    std::int64_t ts = 0;
    std::uint32_t track = 0;
    /// A ready-queue sample: the scheduler phase (of the track's source) whose shared_at_end
    /// depths it shows; an overhead sample: its value, as value() reads it.
    std::uint32_t ref = 0;

    std::int32_t value() const { return static_cast<std::int32_t>(ref); }
    void set_value(std::int32_t v) { ref = static_cast<std::uint32_t>(v); }
};

/// One arrow in 16 bytes; its flow id is its index in TraceModel::flows. Its two times are
/// offsets into its two slices (an end lies inside its slice, so its offset is below the
/// slice's duration: 32 bits hold it unless the slice is over 4.29 s); an arrow with an offset
/// that does not fit has kFarOffset in both and its times in FlowTimes' far list.
/// TraceModel::flow_ts reads a time.
struct Flow {
    std::uint32_t s_slice = 0;       ///< slice index of the source end
    std::uint32_t f_slice : 28 = 0;  ///< slice index of the target end (< kMaxFlowSlice)
    std::uint32_t kind : 4 = 0;      ///< FlowName
    std::uint32_t s_off = 0;         ///< source time − the source slice's start, or kFarOffset
    std::uint32_t f_off = 0;         ///< target time − the target slice's start, or kFarOffset

    FlowName name() const { return static_cast<FlowName>(kind); }
    /// The slice of the source (`start`) or target end.
    std::uint32_t slice(bool start) const { return start ? s_slice : f_slice; }
};

/// Flow offsets at and above this are not offsets: the arrow's times are in FarFlows.
inline constexpr std::uint32_t kFarOffset = std::numeric_limits<std::uint32_t>::max();

/// The times of the arrows whose offsets do not fit a Flow (ends inside slices over 4.29 s,
/// rare), by flow id; arrows are added in id order, so the list is sorted.
class FarFlows {
  public:
    struct Times {
        std::uint32_t flow = 0;
        std::int64_t s_ts = 0, f_ts = 0;
    };
    void add(std::uint32_t flow, std::int64_t s_ts, std::int64_t f_ts) {
        times_.push_back({flow, s_ts, f_ts});
    }
    /// The times of `flow`, which must have been added.
    const Times& at(std::uint32_t flow) const {
        return *std::lower_bound(times_.begin(), times_.end(), flow,
                                 [](const Times& t, std::uint32_t f) { return t.flow < f; });
    }
    std::size_t size() const { return times_.size(); }

  private:
    std::vector<Times> times_;
};

/// The SPMD fan counts of dependency arrows (`input_task_count`, `output_task_count`), beside
/// the flows rather than in each one: six arrows in ten have none, and a 200K-task trace holds
/// millions of arrows. Arrows with counts come in runs of consecutive flow ids (one per view and
/// capture), so a lookup is a search among a handful of runs. A trace holds few distinct pairs
/// of counts (block counts and row counts), so each arrow keeps a 2-byte code of its pair
/// (8 bytes a pair were 0.75 MB at 20K tasks); an arrow whose pair came after the first 65535
/// keeps it in a list beside, by flow id.
class FanCounts {
  public:
    struct Counts {
        std::int32_t input = 0, output = 0;
    };
    void add(std::uint32_t flow, Counts counts) {
        if (runs_.empty() || runs_.back().first_flow + runs_.back().count != flow)
            runs_.push_back({flow, 0, static_cast<std::uint32_t>(codes_.size())});
        ++runs_.back().count;
        codes_.push_back(code_of(flow, counts));
    }
    /// The counts of arrow `flow`, nullptr when it has none.
    const Counts* find(std::uint32_t flow) const {
        auto run = std::upper_bound(runs_.begin(), runs_.end(), flow,
                                    [](std::uint32_t f, const Run& r) { return f < r.first_flow; });
        if (run == runs_.begin()) return nullptr;
        --run;
        if (flow - run->first_flow >= run->count) return nullptr;
        std::uint16_t code = codes_[run->first_value + (flow - run->first_flow)];
        if (code != kBeside) [[likely]]
            return &pairs_[code];
        return find_beside(flow);
    }

  private:
    static constexpr std::uint16_t kBeside = 0xFFFF;  ///< the pair is in beside_
    struct Run {
        std::uint32_t first_flow = 0, count = 0, first_value = 0;
    };
    struct Beside {
        std::uint32_t flow = 0;
        Counts counts;
    };
    static std::uint64_t key(Counts c) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.input)) << 32) |
               static_cast<std::uint32_t>(c.output);
    }
    [[gnu::noinline, gnu::cold]] const Counts* find_beside(std::uint32_t flow) const {
        return &std::lower_bound(beside_.begin(), beside_.end(), flow,
                                 [](const Beside& b, std::uint32_t f) { return b.flow < f; })
                    ->counts;
    }
    std::uint16_t code_of(std::uint32_t flow, Counts counts) {
        const std::uint64_t k = key(counts);
        if (!pairs_.empty() && k == last_key_) return last_code_;  // (runs of one pair)
        auto [it, inserted] = code_of_pair_.try_emplace(k, kBeside);
        if (inserted && pairs_.size() < kBeside) {
            it->second = static_cast<std::uint16_t>(pairs_.size());
            pairs_.push_back(counts);
        }
        if (it->second == kBeside) {
            beside_.push_back({flow, counts});  // (flows are added in id order: sorted)
            return kBeside;
        }
        last_key_ = k;
        last_code_ = it->second;
        return last_code_;
    }
    std::vector<Run> runs_;
    ChunkedVector<std::uint16_t, 14> codes_;  ///< per arrow with counts (their count is known
                                              ///< only at the end)
    std::vector<Counts> pairs_;               ///< by code
    std::unordered_map<std::uint64_t, std::uint16_t> code_of_pair_;
    std::uint64_t last_key_ = 0;
    std::uint16_t last_code_ = 0;
    std::vector<Beside> beside_;
};

/// Slices a flow can end on (Flow::f_slice); arrows to later slices are left out as unbound.
inline constexpr std::uint32_t kMaxFlowSlice = 1u << 28;

/// Many short strings in one buffer, without an allocation per string.
class StringTable {
  public:
    /// The buffer the next string is appended to; `close` ends it.
    std::string& text() { return text_; }
    void close() { ends_.push_back(static_cast<std::uint32_t>(text_.size())); }
    std::string_view operator[](std::size_t i) const {
        std::size_t begin = i == 0 ? 0 : ends_[i - 1];
        return std::string_view(text_).substr(begin, ends_[i] - begin);
    }
    std::size_t size() const { return ends_.size(); }
    /// Gives back what the buffers grew beyond their strings (their last doubling; done once
    /// a table is complete).
    void shrink_to_fit() {
        text_.shrink_to_fit();
        ends_.shrink_to_fit();
    }

  private:
    std::string text_;
    std::vector<std::uint32_t> ends_;  ///< (a table over 4 GiB is not made: one per capture)
};

/// A lane group: slices that would share one upstream track (a core lane, a scheduler lane...).
/// Lane 0 keeps the upstream tid; overlapping slices move to overflow lanes.
struct LaneGroup {
    std::int64_t pid = 0;
    std::int64_t base_tid = 0;
    std::string name;
    std::vector<std::uint32_t> lane_tracks;  ///< track per lane (created on demand)
    /// Slices wholly inside an open one stay on its lane, nested (host spans of a multi-rank
    /// layout, as upstream draws them); only a partial overlap takes an overflow lane.
    bool nests = false;
};

/// One host_build_graph graph execution (swimlane.md §5.4 "Graph execution envelope"): the outer
/// ring-0 task's GraphPrepare records and the ring-1 node rows `(outer << 10) | node` it ran.
struct GraphInstance {
    std::uint64_t outer_task_id = 0;
    std::uint32_t node_count = 0, node_min = 0, node_max = 0;  ///< distinct visible node indices
    std::uint32_t prepare_count = 0;                           ///< GraphPrepare records
    std::int64_t prepare_start_ns = 0, prepare_total_ns = 0;   ///< total = Σ record durations
    std::int64_t exec_start_ns = 0, exec_end_ns = 0;  ///< first dispatch … last finish of nodes
    /// host_build_graph SUB_TASK layout (§1.11 of upstream-2026-09.md): node = sub-task local id.
    bool sub_tasks = false;
    TaskLabels labels = TaskLabels::Legacy;
    std::int32_t run_epoch = kNoEpoch;
};

/// The envelope's slice name, "GraphExecution(t3, 12 visible nodes)".
std::string graph_label(const GraphInstance& graph);

/// Per-source facts the writers need besides the slices.
struct SourceExtras {
    std::vector<GraphInstance> graphs;
    StringTable labels;                   ///< per row: "QK(r1t1)", "SF_spmd(r1t3)"
    std::vector<std::uint32_t> row_task;  ///< per row: index into the hint tables
    StringTable fanout_hints;             ///< per task: "2: [r1t4, r1t5]"
    StringTable fanin_hints;
    std::vector<std::uint32_t>
        finish_rows;  ///< per scheduler phase: rows finished inside (complete)
};

struct TraceModel {
    std::span<const TraceSource> sources;
    std::vector<std::int64_t> offsets_ns;  ///< per source: added to its model times
    std::vector<std::int64_t> pid_base;    ///< per source: 0 for one source, else 100·(k+1)
    std::vector<Process> processes;        ///< emission order
    std::vector<Track> tracks;
    std::vector<LaneGroup> groups;
    std::vector<Slice> slices;
    std::vector<Counter> counters;
    /// Chunked rather than one vector: the flow count is only known at the end, and a growing
    /// vector's copies would double the largest structure of the trace at the peak. Chunks of
    /// 256 KiB: the last one is mostly unused, and the later ones fit the holes the builder's
    /// freed scratch leaves (a 1 MiB chunk grew the heap instead).
    ChunkedVector<Flow, 14> flows;
    FarFlows far_flows;                ///< times of the arrows whose offsets do not fit a Flow
    FanCounts fan_counts;              ///< of the dependency arrows that have them
    std::vector<SourceExtras> extras;  ///< per source
    std::uint32_t next_slice_id = 0;   ///< X event ids, upstream order, unique across sources
    TraceCounts counts;
    FlowMode flow_mode = FlowMode::Instance;  ///< dependency arrows per anchor pair, edge or none
    const MultiRankLayout* multi_rank = nullptr;  ///< the multi-rank layout, when it is one

    /// Appends an arrow from `s_ts` in slice `flow.s_slice` to `f_ts` in `flow.f_slice` (both
    /// inside their slices, which must exist), its offsets set here.
    void add_flow(Flow flow, std::int64_t s_ts, std::int64_t f_ts) {
        std::uint64_t s_off = static_cast<std::uint64_t>(s_ts - slices[flow.s_slice].ts);
        std::uint64_t f_off = static_cast<std::uint64_t>(f_ts - slices[flow.f_slice].ts);
        if (s_off < kFarOffset && f_off < kFarOffset) {
            flow.s_off = static_cast<std::uint32_t>(s_off);
            flow.f_off = static_cast<std::uint32_t>(f_off);
        } else {
            flow.s_off = flow.f_off = kFarOffset;
            far_flows.add(static_cast<std::uint32_t>(flows.size()), s_ts, f_ts);
        }
        flows.push_back(flow);
    }
    /// The time of arrow `i`'s source (`start`) or target end.
    std::int64_t flow_ts(std::uint32_t i, bool start) const {
        const Flow& f = flows[i];
        std::uint32_t off = start ? f.s_off : f.f_off;
        if (off != kFarOffset) [[likely]]
            return slices[f.slice(start)].ts + off;
        const FarFlows::Times& t = far_flows.at(i);
        return start ? t.s_ts : t.f_ts;
    }
};

/// Tie-break of slices that start together: the longer one first (it encloses the other).
inline auto longer_first(const std::vector<Slice>& slices) {
    return [&slices](std::uint32_t a, std::uint32_t b) { return slices[a].dur > slices[b].dur; };
}

/// Builds the layout. Fails only for an impossible alignment request.
Result<TraceModel> build_trace_model(std::span<const TraceSource> sources, TimeAlign align,
                                     FlowMode flows = FlowMode::Instance,
                                     const MultiRankLayout* multi_rank = nullptr);

/// How write_json uses the second core.
struct JsonRender {
    /// The events rendered on two threads, the pieces written to the stream in order (for a
    /// plain stream; a BlockBuf that compresses is rendered into in place, on one thread).
    bool two_threads = true;
    /// Events rendered as one piece: ~1,000 events are ~150 KB of JSON.
    std::size_t batch_events = 1024;
    /// From this many events on, their sorts run on two threads (a thread costs more than the
    /// sorts of fewer).
    std::size_t parallel_sort_events = 1u << 15;
};

/// The renderers.
void write_json(const TraceModel& model, std::ostream& out, const JsonRender& how = {});
void write_proto(const TraceModel& model, std::ostream& out);

}  // namespace ptune::swimlane::detail
