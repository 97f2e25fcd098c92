#pragma once
/// @file trace.hpp
/// Writing one or more captures as a Perfetto trace: the upstream converter's processes, lanes,
/// slices, counters and arrows (swimlane.md §5), with ptune's fixes (conventions.md §2): events
/// sorted by time (longer first on ties), times rebased and printed exactly from integer ns, own
/// lanes where slices would overlap on one track, every arrow bound strictly inside its source and
/// target slice, and provenance in `otherData`. Output is streamed: JSON (optionally gzip) or the
/// native Perfetto protobuf (TrackEvent).

#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ptune/core/error.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

struct HostPhaseLanes;  // host_phase_lanes.hpp

/// One capture to put into the trace, with its own deps and names.
struct TraceSource {
    const Capture* capture = nullptr;    ///< required; rows must carry deps-resolved func ids
    const Deps* deps = nullptr;          ///< optional: arrows, SPMD block counts, dummy detection
    const KernelNames* names = nullptr;  ///< optional: kernel names and orchestrator name
    std::string label;                   ///< process-group label for several sources ("rank0/d1")
    std::vector<std::string> inputs;     ///< file paths, recorded as provenance
    /// optional: host_phase_records.jsonl lanes on the host process (host_phase_lanes.hpp)
    const HostPhaseLanes* host_phases = nullptr;
};

/// How several sources share one time axis.
enum class TimeAlign {
    Start,     ///< each source starts at 0 (side-by-side comparison; the default)
    Absolute,  ///< one origin for all: the earliest raw timestamp, valid only when the sources
               ///< share one counter and frequency (one chip / one boot), refused otherwise
};

/// Output encoding.
enum class TraceFormat { Json, JsonGzip, Proto };

/// How deps.json edges become dependency arrows (`--flows`).
enum class FlowMode {
    Instance,  ///< upstream's: one arrow per pair of anchor slices (an SPMD task anchors once
               ///< per function, any other task on every row) — the default
    Block,     ///< one arrow per edge and view: from the predecessor's last-ending anchor to
               ///< the successor's first-starting one (issue #1049: block-level dependencies)
    None,      ///< no dependency arrows (the other arrow kinds stay)
};

/// The multi-rank layout of one dispatch across ranks (upstream-2026-09.md §1.14): each source
/// is a rank placed on the host clock; all share one origin, and rank r's views get pids
/// 100·(r+1) + view.
struct MultiRankLayout {
    std::int64_t global_origin_ns = 0;    ///< host ns of time 0
    std::vector<int> ranks;               ///< per source, its rank
    std::vector<std::int64_t> slacks_ns;  ///< per source, its placement slack (args.slack_ns)
    std::string metadata_json;            ///< the trace's top-level `metadata` (an object)

    /// A process besides the ranks' views: a dispatcher (pids 1..10) or a lane of a rank's
    /// host block (11 + 3·rank + lane). Its process_sort_index is its pid.
    struct Process {
        std::int64_t pid = 0;
        std::string name;
    };
    /// A thread of one of those processes.
    struct Thread {
        std::int64_t pid = 0, tid = 0;
        std::string name;
    };
    /// A slice on one of those threads, in host ns (the writer rebases it on global_origin_ns).
    /// A slice wholly inside an open one nests on its thread (as upstream draws host spans);
    /// only slices that overlap partly get overflow lanes.
    struct Slice {
        std::int64_t pid = 0, tid = 0;
        std::string name, cat;
        std::int64_t start_ns = 0, dur_ns = 0;
        std::string args_json = "{}";  ///< the JSON output's `args` object, as is
    };
    std::vector<Process> processes;
    std::vector<Thread> threads;  ///< each slice's (pid, tid) must be one of these
    std::vector<Slice> slices;
};

/// Options of write_trace.
struct TraceOptions {
    TraceFormat format = TraceFormat::Json;
    TimeAlign align = TimeAlign::Start;
    /// Add the upstream `--overhead` counters (swimlane.md §5.4): per core type idle cores, ready
    /// but undispatched tasks and their overlap, on pid 2. Only for sources with a task graph
    /// (has_task_graph); the others get none.
    bool overhead = false;
    FlowMode flows = FlowMode::Instance;
    /// Several ranks of one dispatch placed on one host axis (replaces `align`); null otherwise.
    const MultiRankLayout* multi_rank = nullptr;
};

/// The options of swimlane-merge's trace as typed: `format` "proto" (else JSON, gzip when
/// `output` ends in ".gz"), `align` "absolute" or "start", `flows` "block", "none" or
/// "instance".
TraceOptions trace_options(std::string_view format, std::string_view output, std::string_view align,
                           std::string_view flows, bool overhead);

/// Whether a source has dependency edges (deps.json, or the `fanout` lists of a µs-era file):
/// the ready times of the overhead counters need them.
bool has_task_graph(const TraceSource& source);

/// What was written, for the user and the tests.
struct TraceCounts {
    std::size_t slices = 0;
    std::size_t counters = 0;
    std::size_t flows = 0;           ///< arrows written (each one s/f pair or one proto flow id)
    std::size_t flows_unbound = 0;   ///< arrows dropped because no slice could hold an end
    std::size_t overflow_lanes = 0;  ///< extra lanes created so that slices never overlap
    std::size_t dependency_edges_missing = 0;  ///< deps edges whose ends have no slice
};

/// Writes the trace of `sources` to `out`. Several sources get one process group each
/// (pid = 100·(k+1) + view, process name "<label> / <view>"). Fails only for an unusable
/// alignment request or a write error.
Status write_trace(std::span<const TraceSource> sources, const TraceOptions& options,
                   std::ostream& out, TraceCounts& counts);

}  // namespace ptune::swimlane
