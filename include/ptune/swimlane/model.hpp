#pragma once
/// @file model.hpp
/// The typed model of one chip swimlane capture (spec swimlane.md §2–§4): joined task rows,
/// scheduler and orchestrator phases, the task graph of deps.json, the clock and
/// where everything came from. Every generation of the records file (µs `tasks[]`, raw-cycle
/// 5/6/7-column rows, `scheduler_tasks`/`scheduler_records`) reads into this one model.
///
/// Times are integer nanoseconds relative to the capture's time origin (the upstream converter's
/// base `B` = the smallest positive raw timestamp, §6.2 step 4), so the model never carries float
/// noise; `Clock` converts back to raw ticks and to the converter's float microseconds when a
/// byte-identical upstream number is needed. Kernel names are the core KernelNames
/// (ptune/core/kernel_names.hpp), included here for every user of the model.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptune/core/kernel_names.hpp"
#include "ptune/swimlane/id_index.hpp"

namespace ptune::swimlane {

/// Marks a time the capture does not have (e.g. AICPU dispatch/finish at level 1).
inline constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

/// AICore flavour of a physical core (`metadata.core_types`).
enum class CoreType : std::uint8_t { Aic, Aiv };

/// "aic" / "aiv".
std::string_view to_string(CoreType type);

/// Ring of a runtime task id `(ring << 32) | local` as the converter displays it (8 bits).
constexpr std::uint32_t task_ring(std::uint64_t task_id) {
    return static_cast<std::uint32_t>((task_id >> 32) & 0xFFu);
}
/// Ring-local index of a runtime task id.
constexpr std::uint32_t task_local(std::uint64_t task_id) {
    return static_cast<std::uint32_t>(task_id & 0xFFFFFFFFu);
}
/// The runtime whose task-id layout the capture uses (upstream-2026-09.md §1.2, §1.9).
enum class Runtime : std::uint8_t {
    TensormapAndRingbuffer,  ///< `(ring << 32) | local`
    HostBuildGraph,          ///< `(space << 62) | (parent << 32) | local`
};

/// "tensormap_and_ringbuffer" / "host_build_graph" (the `metadata.runtime` spelling).
std::string_view to_string(Runtime runtime);

/// How task ids are labelled; decided by the runtime and the file generation.
enum class TaskLabels : std::uint8_t {
    Legacy,  ///< files without `metadata.runtime`: `t<local>` on ring 0, else `r<ring>t<local>`
    Ring,    ///< tensormap_and_ringbuffer named in the file: `r<ring>t<local>` on every ring
    HostBuildGraph,  ///< host_build_graph: `t<n>` GLOBAL, `g<parent>t<n>` SUB_TASK, `p<n>` PARAM
};

/// host_build_graph id space (bits 63..62): 0 GLOBAL, 1 SUB_TASK, 2 PARAM (3 is labelled GLOBAL).
constexpr std::uint32_t hbg_space(std::uint64_t task_id) {
    return static_cast<std::uint32_t>(task_id >> 62);
}
/// host_build_graph parent (bits 51..32) of a SUB_TASK id.
constexpr std::uint32_t hbg_parent(std::uint64_t task_id) {
    return static_cast<std::uint32_t>((task_id >> 32) & 0xFFFFFu);
}

/// The converter's short task label under `labels` (Legacy: `t<local>` on ring 0, else
/// `r<ring>t<local>`; see TaskLabels).
std::string task_display(std::uint64_t task_id, TaskLabels labels = TaskLabels::Legacy);
/// Appends the same label to `out` (no temporary string: labels are made per row).
void append_task_label(std::string& out, std::uint64_t task_id, TaskLabels labels);
/// The most bytes a task label takes (`g<parent>p<local>`, `r<ring>t<local>`).
inline constexpr std::size_t kMaxTaskLabel = 24;
/// Writes the same label at `out` (room for kMaxTaskLabel bytes) and returns its end.
char* write_task_label(char* out, std::uint64_t task_id, TaskLabels labels);

/// A row or record without `run_epoch` (5/6-column rows, 4-column scheduler rows): the epoch is
/// absent, never 0 (0 is a legal epoch, upstream-2026-09.md §1.4).
inline constexpr std::int32_t kNoEpoch = -1;

/// Which file generation the records were read from (recognised by shape, never by a version
/// field; swimlane.md §2.8–§2.9).
enum class RecordsShape : std::uint8_t {
    MicrosecondTasks,  ///< ≤ 2026-06-04: joined `tasks[]` in µs (`version` / `l2_perf_level` /
                       ///< `l2_swimlane_level`)
    RawCycles,         ///< `aicore_tasks` + `aicpu_tasks` (or `scheduler_tasks`) in raw cycles
};

/// "us-tasks" / "raw-cycles".
std::string_view to_string(RecordsShape shape);

/// The capture's clock: how raw timestamps map to the model's nanoseconds.
struct Clock {
    /// Ticks per second of the raw timestamps: `metadata.clock_freq_hz` for raw captures
    /// (a2a3 50 MHz, a5 1 GHz), 1e9 for µs-domain files (their µs are stored as ns ticks).
    std::uint64_t freq_hz = 0;
    /// Where freq_hz came from: "metadata", "--freq" or "microsecond file".
    std::string freq_source;
    /// Raw timestamp (ticks) mapped to time 0: the smallest positive timestamp in the file.
    std::int64_t origin_ticks = 0;
    /// How model times relate to raw ticks (swimlane.md §6.2 step 5).
    enum class Axis : std::uint8_t {
        Device,          ///< ns = ticks − origin_ticks, scaled
        HostCalibrated,  ///< ns on the host axis through the clock anchors (not linear in ticks)
        HostComposite,   ///< ns = host_offset_ns + scaled (ticks − origin_ticks)
        HostPlaced,  ///< ns on the host axis through Capture::clock_alignment (span containment)
    } axis = Axis::Device;
    /// HostComposite: where the device timeline starts on the host axis.
    std::int64_t host_offset_ns = 0;

    /// Nanoseconds for a tick count relative to the origin (exact when freq divides 1e9,
    /// otherwise rounded to the nearest ns).
    std::int64_t ticks_to_ns(std::int64_t ticks) const;
    /// The inverse of ticks_to_ns (exact for the ns this clock produced).
    std::int64_t ns_to_ticks(std::int64_t ns) const;
    /// The upstream converter's float microseconds for a model time: `(c − B) · (1e6 / f)`
    /// computed in the converter's operation order, so printed statistics match bit for bit.
    double upstream_us(std::int64_t ns) const;
};

/// One joined (task, core) dispatch: an AICore row with its AICPU partner (swimlane.md §6.2).
struct TaskRow {
    std::uint64_t task_id = 0;  ///< runtime id `(ring << 32) | local`
    std::uint32_t core_id = 0;  ///< physical core index
    CoreType core_type = CoreType::Aiv;
    std::uint32_t reg_task_id = 0;      ///< per-core dispatch token (join key)
    std::int32_t run_epoch = kNoEpoch;  ///< 7-column captures only (join key); else kNoEpoch
    std::int32_t func_id = -1;          ///< kernel func_id; -1 until resolved from deps/legacy file
    std::uint32_t block_num = 0;        ///< SPMD block count from deps (0 = unknown)
    std::int64_t receive_ns = kNoTime;  ///< AICore read the dispatch register (start − r2s)
    std::int64_t start_ns = kNoTime;    ///< kernel start
    std::int64_t end_ns = kNoTime;      ///< kernel end
    std::int64_t dispatch_ns = kNoTime;  ///< AICPU wrote the dispatch register (level ≥ 2)
    std::int64_t finish_ns = kNoTime;    ///< AICPU observed FIN (level ≥ 2)

    std::uint32_t ring() const { return task_ring(task_id); }
    /// Both AICPU times are known (the converter's "dispatch ≥ 0 and finish > 0").
    bool has_aicpu() const { return dispatch_ns != kNoTime && finish_ns != kNoTime; }
};

/// `kind` of a scheduler phase record (ChipSwimlaneSchedPhaseKind, swimlane.md §2.4).
enum class PhaseKind : std::uint8_t {
    Complete,
    Dispatch,
    Release,
    Dummy,
    EarlyDispatch,
    Resolve,
    DummyTask,
    Drain,
    DrainPrepare,
    DrainPublish,
    AsyncPoll,
    PredicatedSkip,
    GraphPrepare,
    // September 2026 (upstream-2026-09.md §1.6): host_build_graph and the a5 AICore scheduler.
    ResolveStandalone,  ///< hbg resolution thread; drawn as `resolve`
    Bootstrap,
    StateProbe,
    Worksteal,
    Refill,
    Idle,  ///< measured idle of the AICore scheduler (coalesced taskless iterations)
    Fanin,
    ReadyClaim,
    ReadySteal,
    DirectRefill,
    Other,  ///< legacy (`scan`, `poll`, …) or newer kinds; name kept in `kind_name`
};

/// The wire name of a kind ("complete", "dummy_task", …); "unknown" for Other.
std::string_view to_string(PhaseKind kind);
/// Parses a wire name; Other for anything not in the vocabulary.
PhaseKind parse_phase_kind(std::string_view name);

/// One AICPU scheduler phase record on one scheduler thread (72 bytes: a capture holds several
/// per task). Its name is `Capture::phase_name`.
struct SchedulerPhase {
    std::int64_t start_ns = kNoTime;
    std::int64_t end_ns = kNoTime;
    std::int64_t task_id = -1;  ///< dummy_task / predicated_skip / graph_prepare, else -1
    std::uint32_t thread = 0;   ///< AICPU thread index (array index in the file)
    std::uint32_t loop_iter = 0;
    std::int32_t tasks_processed = -1;              ///< -1 when the record lacks it
    std::array<std::int32_t, 3> shared_at_start{};  ///< ready-queue depths [AIC, AIV, MIX]
    std::array<std::int32_t, 3> shared_at_end{};
    std::int32_t run_epoch = kNoEpoch;  ///< `run_epoch` of the record, when the stream has them
    /// Dispatch records only, else -1; 16 bits, saturating at kMaxPopCount (no output or
    /// analysis reads them: they are kept as read, narrower, for the record's sake).
    std::int16_t pop_hit = -1;
    std::int16_t pop_miss = -1;  ///< as pop_hit
    PhaseKind kind = PhaseKind::Other;
    bool has_depths = false;       ///< both shared_at_* arrays had 3 entries
    std::uint16_t other_name = 0;  ///< PhaseKind::Other: index into Capture::other_phase_names
};

/// The largest SchedulerPhase::pop_hit / pop_miss kept; larger counts are stored as this.
inline constexpr std::int16_t kMaxPopCount = std::numeric_limits<std::int16_t>::max();

/// One `scheduler_records.streams[]` entry (upstream-2026-09.md §1.5), placed at its thread.
struct SchedulerStream {
    bool present = false;   ///< false for a gap between scheduler ids
    std::string platform;   ///< "a2a3" / "a5" ("" when absent)
    std::string producer;   ///< "aicpu" / "aicore" ("" when absent)
    std::string core_type;  ///< "aicpu" / "aic" / "aiv"
    std::int64_t scheduler_id = -1;
    std::int64_t worker_id = -1;
    std::int64_t physical_core_id = -1;         ///< -1 when null or absent
    std::int64_t committed = -1, dropped = -1;  ///< `capture`; -1 when absent
    bool truncated = false;
    std::size_t records = 0;  ///< records in the file
    bool aicore() const { return producer == "aicore"; }
};

/// One AICPU thread's start-up / tear-down intervals (`aicpu_lifecycle_records`, §1.8), model ns.
struct LifecycleRecord {
    std::int64_t thread = 0;
    /// handshake_partition, topology_config, context_publish, bootstrap_wait, register_release,
    /// exit_signal, exit_wait: (start, end), kNoTime when a field is absent or not positive.
    std::array<std::pair<std::int64_t, std::int64_t>, 7> intervals{};
};

/// The slice names of LifecycleRecord::intervals.
inline constexpr std::array<std::string_view, 7> kLifecycleIntervals = {
    "handshake_partition", "topology_config", "context_publish", "bootstrap_wait",
    "register_release",    "exit_signal",     "exit_wait"};

/// `metadata.clock_alignment` (upstream-2026-09.md §1.12.2): the device→host mapping, saved in
/// the file or computed from the host logs by span containment.
struct ContainmentAlignment {
    enum class Status : std::uint8_t { None, Bounded, Unavailable } status = Status::None;
    std::int64_t device_anchor_cycles = 0;
    std::int64_t host_anchor_ns = 0, host_anchor_min_ns = 0, host_anchor_max_ns = 0;
    std::string reason;  ///< Unavailable: why
    /// "saved" (metadata.clock_alignment), "host logs" (computed now) or "" (none).
    std::string source;
    /// The placement metadata of a fresh computation (§1.12.3), as JSON text; "" otherwise.
    std::string placement_json;
    /// The host logs the placement was computed from.
    std::vector<std::string> logs;
    /// A fresh placement: the window's device-phase timeline zero (the earliest `clk=dev`
    /// device_wall / sub-phase ts) and the host ns it is drawn at, so a `clk=dev` span at `t`
    /// sits at `device_phase_zero_host_ns + (t − device_phase_zero)` (§1.12.3 step 4).
    std::int64_t device_phase_zero = 0, device_phase_zero_host_ns = 0;
    /// Bound width `host_anchor_max_ns − host_anchor_min_ns` (Bounded only).
    std::int64_t bound_ns() const { return host_anchor_max_ns - host_anchor_min_ns; }
    bool bounded() const { return status == Status::Bounded; }
    /// The record as upstream serialises it (`{"status":"bounded",…}` / `{"status":
    /// "unavailable","reason":…}`), compact; "" for None.
    std::string record_json() const;
};

/// The runs of one capture (upstream-2026-09.md §1.10): distinct `run_epoch` values, or for a
/// file without them the runs ptune detected (a task id repeating after an all-idle gap).
struct RunInfo {
    std::int64_t epoch = kNoEpoch;  ///< kNoEpoch for a detected run
    std::size_t rows = 0;
    std::size_t tasks = 0;
    std::int64_t start_ns = 0, end_ns = 0;  ///< first receive … last end of its rows
};

struct Capture;

/// The run (index into Capture::runs) a scheduler record belongs to: the run of its `run_epoch`
/// when a run has it, else the run whose time it falls in (from its first row to the next run's
/// first row). 0 for a file with one run.
std::uint32_t run_of_record(const Capture& capture, std::int32_t epoch, std::int64_t start_ns);

/// The run an orchestrator record submits to: the run of its `run_epoch`, else the first run not
/// yet over when it starts (a submission precedes the rows it creates).
std::uint32_t run_of_submit(const Capture& capture, std::int32_t epoch, std::int64_t start_ns);

/// One orchestrator record (`orch_submit` envelope, or a legacy `orch_*` phase), 48 bytes (a
/// capture holds one per task). Its phase name is `Capture::phase_name`.
struct OrchestratorPhase {
    std::uint32_t thread = 0;
    std::uint32_t name = 0;  ///< index into Capture::orchestrator_phase_names ([0] "orch_submit")
    std::int64_t submit_idx = -1;
    std::int64_t task_id = -1;  ///< -1 in legacy captures (the label then uses submit_idx)
    std::int64_t start_ns = kNoTime;
    std::int64_t end_ns = kNoTime;
    std::int32_t run_epoch = kNoEpoch;  ///< device records of September captures only
};

/// One host→device copy of a host_build_graph run (`host_device_uploads`, swimlane.md §2.6).
struct HostUpload {
    std::string phase;  ///< "graph_upload", "sm_h2d", "arena_h2d"
    std::int64_t start_ns = kNoTime;
    std::int64_t end_ns = kNoTime;
    std::int64_t bytes = -1;  ///< `detail`; -1 when absent
};

/// How the device timeline was placed on the host timeline (swimlane.md §5.7, §6.2.1).
struct HostClockAlignment {
    bool calibrated = false;  ///< device times mapped through the clock anchors
    /// Why not calibrated ("missing_clock_anchors", "device_anchor_order_invalid", …); empty
    /// when calibrated.
    std::string reason;
    std::int64_t anchor_uncertainty_ns = -1;  ///< larger of the two anchors' (−1 = unknown)
    std::int64_t pre_sample_idx = -1;         ///< selected `pre_host_orchestration` sample
    std::int64_t post_sample_idx = -1;        ///< selected `post_device_execution` sample
};

/// The host side of a host-orchestration capture (host_build_graph runtime, §2.6–§2.7, §6.2).
/// Its orchestrator records are in Capture::orchestrator_phases; every time of the capture is on
/// the host axis: nanoseconds since `origin_ns` of the host CLOCK_MONOTONIC.
struct HostTimeline {
    std::int64_t origin_ns = 0;  ///< host CLOCK_MONOTONIC time 0 of the trace
    /// Where origin_ns came from: "metadata", "host records" or "clock anchor".
    std::string origin_source;
    HostClockAlignment alignment;
    /// Uncalibrated: the device timeline starts where the host timeline ends (a logical seam,
    /// not a measured latency); this is that instant. kNoTime when calibrated.
    std::int64_t seam_ns = kNoTime;
    std::vector<HostUpload> uploads;
    /// `metadata.host_capture` as compact JSON, plus `converter_validation_errors` when it
    /// contradicts the records; empty when the file has none.
    std::string capture_json;
    bool records_missing = false;   ///< host mode, but no host orchestrator record was usable
    bool records_complete = false;  ///< host_capture says complete and nothing was dropped
    /// Where host_capture contradicts the records (counts that disagree), for the user.
    std::vector<std::string> validation_errors;
};

/// What the reader dropped, by reason; reported to the user and in the trace metadata.
struct DropCounts {
    std::size_t aicpu_without_aicore = 0;  ///< AICPU row with no AICore partner
    std::size_t aicore_without_aicpu = 0;  ///< AICore row no AICPU row joined (level ≥ 2)
    std::size_t zero_start = 0;            ///< AICore row with start 0 (never ran)
    std::size_t reversed = 0;              ///< end before start, or finish before dispatch
    std::size_t malformed_rows = 0;        ///< wrong column count or non-integer fields
    std::size_t malformed_phases = 0;      ///< phase objects without usable times
    std::size_t total() const {
        return aicpu_without_aicore + aicore_without_aicpu + zero_start + reversed +
               malformed_rows + malformed_phases;
    }
};

/// One chip capture, read from a records file.
struct Capture {
    std::string source;  ///< records file name as given (for messages)
    RecordsShape shape = RecordsShape::RawCycles;
    std::string level_key;   ///< "chip_swimlane_level", "l2_swimlane_level", "l2_perf_level",
                             ///< "version" or "" when absent
    int level = 0;           ///< capture level 1..4 (0 = unknown)
    int aicore_columns = 0;  ///< 5, 6 or 7 for raw captures; 0 otherwise
    Runtime runtime = Runtime::TensormapAndRingbuffer;
    bool runtime_given = false;  ///< `metadata.runtime` named it; else inferred (§1.2)
    TaskLabels labels = TaskLabels::Legacy;
    std::string host_clock_domain_id;  ///< `metadata.host_clock_domain_id`, "" when absent
    /// `scheduler_tasks.producer` ("aicpu" for a legacy `aicpu_tasks`), "" without either.
    std::string scheduler_producer;
    std::vector<SchedulerStream> streams;    ///< `scheduler_records`, indexed by thread
    std::vector<LifecycleRecord> lifecycle;  ///< `aicpu_lifecycle_records`
    ContainmentAlignment clock_alignment;    ///< saved or computed (§1.12)
    /// Runs: one per run_epoch (sorted), or the runs detected in an epoch-less file. One entry
    /// for an ordinary single-run capture; empty without task rows.
    std::vector<RunInfo> runs;
    /// Per row (parallel to `tasks`): index into `runs`.
    std::vector<std::uint32_t> row_run;
    Clock clock;
    std::vector<CoreType> core_types;  ///< indexed by core_id
    std::vector<int> core_to_thread;  ///< core_id → scheduler thread (−1 unassigned); may be empty
    std::vector<TaskRow> tasks;  ///< joined rows, stable-sorted by task_id (join order on ties)
    std::vector<SchedulerPhase> scheduler_phases;  ///< per thread, file order within a thread
    /// Names of the phase kinds outside the vocabulary (legacy `scan`, `poll`, newer kinds), as
    /// written; [0] is "unknown" (no kind in the record).
    std::vector<std::string> other_phase_names{"unknown"};
    std::size_t scheduler_arrays = 0;  ///< number of per-thread arrays in the file
    std::vector<OrchestratorPhase> orchestrator_phases;  ///< per thread, file order
    /// The orchestrator records' phase names, as written; [0] is "orch_submit" (the name of a
    /// record without one).
    std::vector<std::string> orchestrator_phase_names{"orch_submit"};
    std::size_t orchestrator_arrays = 0;
    bool host_orchestration = false;  ///< host_build_graph capture (host-ns orchestrator)
    HostTimeline host;                ///< host_orchestration only
    /// The file is the September shape (`metadata.runtime` present): the new converter's
    /// console wording, labels and trace metadata apply.
    bool september() const { return runtime_given; }
    bool truncated = false;          ///< the file ended early; what parsed before is kept
    std::string truncation_message;  ///< the parser's message, with file and line
    DropCounts dropped;
    /// Edges embedded in µs-generation files (`fanout` lists), in file order; empty otherwise.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> embedded_edges;

    /// Core type of a core id (out-of-range ids are "aiv", as upstream).
    CoreType core_type_of(std::uint32_t core_id) const {
        return core_id < core_types.size() ? core_types[core_id] : CoreType::Aiv;
    }
    /// A phase's kind as written ("complete", "dummy_task", or an Other kind's own name).
    std::string_view phase_name(const SchedulerPhase& phase) const {
        return phase.kind == PhaseKind::Other
                   ? std::string_view(other_phase_names[phase.other_name])
                   : to_string(phase.kind);
    }
    /// An orchestrator record's phase ("orch_submit", or a legacy `orch_*` phase).
    std::string_view phase_name(const OrchestratorPhase& phase) const {
        return orchestrator_phase_names[phase.name];
    }
    /// Scheduler thread count S = max(core_to_thread ≥ 0 ∪ threads with records) + 1 (§5.2).
    std::size_t scheduler_thread_count() const;
};

/// One task of deps.json (what the converter and the analyzer use of it).
struct DepsTask {
    std::array<std::int32_t, 3> kernel_ids{-1, -1, -1};  ///< [aic, aiv0, aiv1]; −1 inactive
    bool has_kernel_ids = false;                         ///< the file had a 3-element list
    std::uint32_t block_num = 1;                         ///< max(block_num, 1)
    bool early_dispatch = false;  ///< `"early_dispatch": true` (upstream-2026-12.md §8.4)
    /// All kernel ids inactive: a dummy task.
    bool is_dummy() const {
        return has_kernel_ids && kernel_ids[0] < 0 && kernel_ids[1] < 0 && kernel_ids[2] < 0;
    }
};

/// deps.json tasks by id, in file order. Lookups remember their last hit, so one table must not
/// be searched from two threads at once.
class DepsTaskTable {
  public:
    using Entry = std::pair<std::uint64_t, DepsTask>;

    /// The task with this id, added (default) when absent; valid until the next insertion.
    DepsTask& operator[](std::uint64_t id);
    /// The task with this id, or nullptr.
    const DepsTask* find(std::uint64_t id) const;
    /// The task with this id; throws std::out_of_range when absent.
    const DepsTask& at(std::uint64_t id) const;
    bool contains(std::uint64_t id) const { return find(id) != nullptr; }
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    /// Gives back what the table grew beyond its tasks (once it is complete).
    void shrink_to_fit() { entries_.shrink_to_fit(); }
    /// (id, task) in the order the ids first appeared.
    std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
    std::vector<Entry>::const_iterator end() const { return entries_.end(); }

  private:
    std::vector<Entry> entries_;
    IdIndex entry_of_;  ///< id → index into entries_
    /// The entry the last find() returned: callers mostly look ids up in ascending order, the
    /// order deps.json lists them in, so the next one is usually the next entry.
    mutable std::size_t last_found_ = 0;
};

/// The task graph of deps.json (swimlane.md §3).
struct Deps {
    std::string source;
    DepsTaskTable tasks;
    /// Deduplicated (pred, succ) pairs in first-seen order.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
    std::size_t duplicate_edges = 0;  ///< repeated pairs (several args/sources) folded away
    bool truncated = false;           ///< the file ended early; edges before the damage are kept
};

}  // namespace ptune::swimlane
