#pragma once
// The format-neutral layout of a swimlane trace: processes, thread tracks, slices, counters and
// flows that reference rows and phases of the captures by index. Built once in linear time
// (plus sorts); the JSON and protobuf writers only render it, so both show the same lanes,
// times and arrows. Names and args are produced by the writers from the referenced records.

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "ptune/swimlane/trace.hpp"

namespace ptune::swimlane::detail {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

enum class SliceKind : std::uint8_t {
    WorkerTask,  ///< ref = row index; pid 4
    SchedTask,   ///< ref = row index; pid 3
    Phase,       ///< ref = scheduler phase index; pid 2
    Marker,      ///< ref = scheduler phase index (dummy_task / predicated_skip); pid 4 AICPU lane
    Orch,        ///< ref = orchestrator phase index; pid 1
    Alloc,       ///< ref = orchestrator phase index; pid 4 AICPU lane
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
    int sort_index = -1;  ///< thread_sort_index, -1 when none
    bool is_counter = false;
};

struct Slice {
    std::int64_t ts = 0;   ///< ns on the trace axis
    std::int64_t dur = 0;  ///< ns
    std::uint32_t source = 0;
    std::uint32_t ref = 0;
    std::uint32_t track = kNone;  ///< assigned by lane allocation
    std::uint32_t group = 0;      ///< lane group (pid, base lane) before allocation
    std::uint32_t id = 0;         ///< the X event "id" (upstream numbering per source + offset)
    SliceKind kind = SliceKind::WorkerTask;
};

struct Counter {
    std::int64_t ts = 0;
    std::uint32_t source = 0;
    std::uint32_t ref = 0;  ///< scheduler phase index (its shared_at_end depths)
    std::uint32_t track = 0;
};

struct Flow {
    std::int64_t s_ts = 0, f_ts = 0;
    std::uint32_t s_slice = kNone, f_slice = kNone;  ///< slice indices
    std::uint32_t id = 0;
    std::int32_t input_count = -1, output_count = -1;  ///< dependency arrows only
    FlowName name = FlowName::Dependency;
};

/// A lane group: slices that would share one upstream track (a core lane, a scheduler lane...).
/// Lane 0 keeps the upstream tid; overlapping slices move to overflow lanes.
struct LaneGroup {
    std::int64_t pid = 0;
    std::int64_t base_tid = 0;
    std::string name;
    std::vector<std::uint32_t> lane_tracks;  ///< track per lane (created on demand)
};

/// Per-source facts the writers need besides the slices.
struct SourceExtras {
    std::vector<std::string> labels;        ///< per row: "QK(r1t1)", "SF_spmd(r1t3)"
    std::vector<std::uint32_t> row_task;    ///< per row: index into the hint vectors
    std::vector<std::string> fanout_hints;  ///< per task: "2: [r1t4, r1t5]"
    std::vector<std::string> fanin_hints;
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
    std::vector<Flow> flows;
    std::vector<SourceExtras> extras;  ///< per source
    std::uint32_t next_slice_id = 0;   ///< X event ids, upstream order, unique across sources
    TraceCounts counts;
};

/// Builds the layout. Fails only for an impossible alignment request.
Result<TraceModel> build_trace_model(std::span<const TraceSource> sources, TimeAlign align);

/// The renderers.
void write_json(const TraceModel& model, std::ostream& out);
void write_proto(const TraceModel& model, std::ostream& out);

}  // namespace ptune::swimlane::detail
