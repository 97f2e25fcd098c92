#pragma once
// The records file walker (swimlane.md §2, §2.8, §2.9): one SAX pass over a chip swimlane records
// file of any generation collects the raw rows into flat vectors; the conversion stages
// (stages.hpp) then join, place in time and convert them. walker.cpp holds the callbacks of the
// pass and the plain fields; record_parser.cpp the phase and scheduler-stream records.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "flat_object.hpp"
#include "host_clock.hpp"
#include "ptune/core/chunked_vector.hpp"
#include "ptune/core/json_walk.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane::records {

using json_stream::Scalar;

class PhaseReadAhead;

enum class Section {
    Ignored,
    Level,
    Metadata,
    LegacyCoreToThread,
    AicoreTasks,
    AicpuTasks,
    SchedulerTasks,
    SchedulerPhases,
    SchedulerRecords,
    OrchestratorPhases,
    HostOrchestratorPhases,
    HostDeviceUploads,
    LegacyTasks,
    Lifecycle,
};

Section section_of(std::string_view key);

/// A raw phase object as read (cycles for raw files, µs for legacy ones).
struct RawPhase {
    std::uint32_t thread = 0;
    std::uint16_t kind = 0;  ///< index into RecordsWalker::kinds (0 = none written)
    bool has_start = false, has_end = false;
    std::int64_t start = 0, end = 0;  // cycles / host ns
    double start_us = 0, end_us = 0;  // legacy µs
    bool legacy_us = false;
    std::int64_t loop_iter = 0;
    std::int64_t tasks_processed = -1;
    std::int64_t pop_hit = -1, pop_miss = -1;
    std::int64_t task_id = -1;
    std::int64_t submit_idx = -1;
    std::int64_t record_index = -1;
    std::int64_t run_epoch = kNoEpoch;
    bool from_stream = false;       ///< read from scheduler_records (thread = stream's file index)
    bool has_record_index = false;  ///< a metric with an integer record_index
    std::uint8_t fixed_keys = 0;    ///< RecordKey bits of the fixed record fields a metric names
    /// Ready-queue depths; a count above 3 marks a malformed array (fixed storage keeps the
    /// per-record footprint flat: captures hold ~100K of these).
    struct Depths {
        std::array<std::int32_t, 3> values{};
        std::uint32_t count = 0;
        void push(std::int64_t v) {
            if (count < 3) values[count] = static_cast<std::int32_t>(v);
            ++count;
        }
        bool empty() const { return count == 0; }
        bool complete() const { return count == 3; }
    } shared_start, shared_end;
};

/// Raw phase records in chunks of 4096 (~600 KB).
using RawPhases = ChunkedVector<RawPhase, 12>;

/// A legacy µs task object.
struct LegacyTask {
    std::uint64_t task_id = 0;
    std::int64_t func_id = -1;
    std::int64_t core_id = -1;
    std::string core_type;
    double start = -1, end = -1, ready = -1, dispatch = -1, finish = -1;
    std::vector<std::uint64_t> fanout;
    bool has_id = false;
};

/// The keys of a `scheduler_records` record (§1.5), as bits; `Other` is any other key.
enum RecordKey : std::uint8_t {
    kStartKey = 1,
    kEndKey = 2,
    kLoopIterKey = 4,
    kKindKey = 8,
    kTasksProcessedKey = 16,
    kTaskIdKey = 32,
    kRunEpochKey = 64,
    kOtherKey = 128,
};
constexpr std::uint8_t kFixedRecordKeys =
    kStartKey | kEndKey | kLoopIterKey | kKindKey | kTasksProcessedKey | kTaskIdKey;

std::string record_key_list(std::uint8_t keys);

/// What upstream's converter refuses in `scheduler_records` (§1.5) and ptune reads anyway.
enum class StreamRefusal {
    KeySet,
    NegativeInterval,
    MetricIndexMissing,
    MetricOutOfRange,
    MetricFixedField,
    Count
};

/// The first occurrence of one refusal kind (its line and wording) and how many there were.
struct RefusalSeen {
    std::size_t count = 0;
    std::size_t line = 0;
    std::string first;  ///< upstream's complaint about the first occurrence
};

class RecordsWalker final : public json_stream::JsonWalker {
  public:
    // Level key and value.
    std::string level_key;
    std::int64_t level = 0;
    // Metadata.
    std::int64_t clock_freq_hz = 0;
    bool clock_freq_invalid = false;  ///< present but not a whole number
    std::vector<std::string> core_type_names;
    std::vector<std::int64_t> core_to_thread;
    bool host_source = false;
    std::int64_t host_origin_ns = -1;  ///< metadata.host_orchestration_origin_ns
    bool host_capture_object = false;
    nlohmann::json host_capture;  ///< metadata.host_capture (a handful of members)
    detail::ClockAnchors anchors;
    std::vector<HostUpload> uploads;
    std::string runtime;  ///< metadata.runtime as written
    bool runtime_present = false;
    std::string host_clock_domain_id;
    std::int64_t host_timeline_origin_ns = -1;
    /// metadata.clock_alignment as read (kept as JSON, validated later); `alignment_kind`
    /// says what the value was: 0 absent, 1 object, 2 something else.
    nlohmann::json clock_alignment;
    int alignment_kind = 0;
    std::string scheduler_producer;  ///< scheduler_tasks.producer
    /// Stream facts, by file order while reading, by thread after place_streams().
    std::vector<SchedulerStream> streams;
    /// Per StreamRefusal kind: what upstream refuses, reported once per kind (first position).
    std::array<RefusalSeen, static_cast<std::size_t>(StreamRefusal::Count)> refusals;
    /// aicpu_lifecycle_records: thread and the 14 cycle fields (0 = absent) per entry.
    struct Lifecycle {
        std::int64_t thread = 0;
        std::array<std::int64_t, 14> cycles{};
    };
    std::vector<Lifecycle> lifecycle;
    std::size_t lifecycle_malformed = 0;
    /// Row widths seen per table (bit w set for width w): mixed widths are reported.
    unsigned aicore_widths = 0, aicpu_widths = 0;
    // Raw rows, flattened: aicore 7 values per row (core, token, reg, start, end, r2s, epoch).
    std::vector<std::int64_t> aicore;
    std::vector<std::int64_t> aicpu;  // 5 values per row (core, reg, dispatch, finish, epoch)
    int aicore_columns = 0;
    bool saw_aicore = false, saw_aicpu = false, saw_scheduler_tasks = false;
    std::size_t malformed_rows = 0;
    /// Phase kind names as written, interned (a capture uses a dozen); kinds[0] = "".
    std::vector<std::string> kinds{std::string()};
    /// Chunked: a capture holds ~100K raw records of ~150 bytes, and a doubling vector of them
    /// would take twice their size of heap on the way (the reader's peak).
    RawPhases scheduler;
    std::size_t scheduler_arrays = 0;
    RawPhases orchestrator;
    std::size_t orchestrator_arrays = 0;
    std::vector<RawPhase> host_orchestrator;
    std::vector<LegacyTask> legacy;
    bool saw_legacy_tasks = false;
    /// Phase objects and task rows read at once by take_container (the rest went through the
    /// callbacks), and how many of them were read ahead.
    std::size_t containers_taken = 0, containers_read_ahead = 0;
    /// Phase objects read ahead on another thread, when set.
    PhaseReadAhead* read_ahead = nullptr;

  protected:
    void on_open(std::size_t level, bool is_object) override;

    void on_close(std::size_t level, bool is_object) override;

    void on_scalar(const Scalar& v) override;

    /// A phase object of the phase sections or a row of the task tables read at once
    /// (flat_object.hpp), as the callbacks would read it; anything else is left to them.
    std::size_t take_container(std::size_t level, std::string_view text) override;

  private:
    /// metadata.host_capture is kept as JSON (it goes into the trace as written);
    /// metadata.clock_anchors.samples[] are read into `anchors`.
    void open_metadata(std::size_t level, bool is_object);

    /// True when the scalar belonged to host_capture or clock_anchors.
    bool metadata_scalar(std::size_t d, const Scalar& v);

    void stream_field(std::string_view k, const Scalar& v);

    /// The fields of one lifecycle entry, in kLifecycleIntervals order (start, end).
    static constexpr std::array<std::string_view, 14> kLifecycleFields = {
        "handshake_start_cycles",        "handshake_complete_cycles",
        "config_start_cycles",           "topology_complete_cycles",
        "context_publish_start_cycles",  "context_publish_complete_cycles",
        "bootstrap_wait_start_cycles",   "bootstrap_complete_cycles",
        "register_release_start_cycles", "register_release_end_cycles",
        "exit_signal_start_cycles",      "exit_signal_end_cycles",
        "exit_wait_start_cycles",        "exit_wait_end_cycles"};

    void lifecycle_field(std::string_view k, const Scalar& v);

    static void upload_field(HostUpload& upload, std::string_view k, const Scalar& v);

    void push_cell(const Scalar& v);

    void finish_aicore_row();

    void finish_aicpu_row();

    std::uint16_t intern_kind(std::string_view name);

    enum class PhaseKey {
        Kind,
        StartUs,
        EndUs,
        Start,
        End,
        LoopIter,
        TasksProcessed,
        PopHit,
        PopMiss,
        TaskId,
        SubmitIdx,
        RecordIndex,
        Thread,
        RunEpoch,
        Other
    };
    /// The member a phase key names; dispatched on the length first, since every phase object
    /// repeats the same ~10 keys and a chain of string compares per key dominated reading.
    static PhaseKey phase_key(std::string_view k);

  public:
    /// What read_flat_phase saw besides the fields: how many kind names (strings) the object
    /// gave, and whether it named its thread.
    struct FlatPhaseFacts {
        unsigned kinds = 0;
        bool names_thread = false;
    };
    /// Reads a phase object read at once (flat_object.hpp) into `phase` as the callbacks would
    /// (phase_field per scalar member, the ready-queue depths from the integer elements of the
    /// shared_at_* arrays), kind names interned by `intern(name)`.
    template <class Intern>
    static FlatPhaseFacts read_flat_phase(const FlatObject& object, RawPhase& phase,
                                          Intern&& intern) {
        FlatPhaseFacts facts;
        for (std::size_t m = 0; m < object.size; ++m) {
            const FlatObject::Member& member = object.members[m];
            if (!member.is_array) {
                const PhaseKey key = phase_key(member.key);
                facts.kinds += key == PhaseKey::Kind && member.value.type == Scalar::Type::String;
                facts.names_thread |= key == PhaseKey::Thread && member.value.is_int();
                set_phase_field(phase, key, member.value, intern);
                continue;
            }
            RawPhase::Depths* depths = member.key == "shared_at_start" ? &phase.shared_start
                                       : member.key == "shared_at_end" ? &phase.shared_end
                                                                       : nullptr;
            if (depths)
                for (std::size_t e = 0; e < member.elements; ++e) depths->push(member.element[e]);
        }
        return facts;
    }

  private:
    /// Sets the field `key` names from `v` (a kind name interned by `intern(name)`).
    template <class Intern>
    static void set_phase_field(RawPhase& phase, PhaseKey key, const Scalar& v, Intern&& intern) {
        if (key == PhaseKey::Kind) {
            if (v.type == Scalar::Type::String) phase.kind = intern(v.text);
            return;
        }
        if (key == PhaseKey::StartUs && v.is_number()) {
            phase.start_us = v.number, phase.has_start = true, phase.legacy_us = true;
            return;
        }
        if (key == PhaseKey::EndUs && v.is_number()) {
            phase.end_us = v.number, phase.has_end = true, phase.legacy_us = true;
            return;
        }
        if (!v.is_int()) return;
        switch (key) {
            case PhaseKey::Start:
                phase.start = v.integer, phase.has_start = true;
                break;
            case PhaseKey::End:
                phase.end = v.integer, phase.has_end = true;
                break;
            case PhaseKey::LoopIter:
                phase.loop_iter = v.integer;
                break;
            case PhaseKey::TasksProcessed:
                phase.tasks_processed = v.integer;
                break;
            case PhaseKey::PopHit:
                phase.pop_hit = v.integer;
                break;
            case PhaseKey::PopMiss:
                phase.pop_miss = v.integer;
                break;
            case PhaseKey::TaskId:
                phase.task_id = v.integer;
                break;
            case PhaseKey::SubmitIdx:
                phase.submit_idx = v.integer;
                break;
            case PhaseKey::RecordIndex:
                phase.record_index = v.integer;
                phase.has_record_index = true;
                break;
            case PhaseKey::RunEpoch:
                phase.run_epoch = v.integer;
                break;
            case PhaseKey::Thread:
                phase.thread = static_cast<std::uint32_t>(std::max<std::int64_t>(0, v.integer));
                break;
            default:
                break;
        }
    }

    /// The RecordKey bit of a key, by its exact spelling in `scheduler_records`.
    static std::uint8_t record_key(PhaseKey key, std::string_view k);

    /// Notes a key of the stream record / metric being read (§1.5 key-set rules).
    void note_key(PhaseKey key, std::string_view k);

    /// Counts one refusal of `kind` and keeps the wording of the first.
    template <class Wording>
    void refused(StreamRefusal kind, std::size_t line, Wording&& wording) {
        RefusalSeen& seen = refusals[static_cast<std::size_t>(kind)];
        if (seen.count++ == 0) seen.line = line, seen.first = wording();
    }

    /// A stream record's key set (exactly the fixed six, plus run_epoch on every record of the
    /// stream or none) and its interval, checked as upstream's converter does.
    void check_record();

    void phase_field(std::string_view k, const Scalar& v);

    /// Merges the stream's metrics into their records (§1.5). Upstream refuses the file for a
    /// metric without a usable record_index (ignored here) or one naming a fixed record field:
    /// a metric only adds fields to its record, so the record keeps its own values and the
    /// metric's other fields are still merged.
    void finish_stream();

  public:
    /// Streams sit at their `scheduler_id` (§1.5) unless an id is missing, repeated, negative or
    /// ≥ 256: then the file order is kept. Gaps become empty streams that inherit the producer
    /// when every stream has the same one.
    void place_streams();

  private:
    void legacy_field(std::string_view k, const Scalar& v);

    Section section_ = Section::Ignored;
    std::vector<std::int64_t> row_;
    bool row_ok_ = true;
    std::uint32_t thread_ = 0;
    RawPhase phase_;
    std::size_t phase_depth_ = 0;
    std::vector<RawPhase> stream_records_, stream_metrics_;
    std::vector<std::size_t> metric_lines_;  ///< the line each of stream_metrics_ starts on
    std::uint8_t record_keys_ = 0;           ///< RecordKey bits of the record being read
    std::size_t record_line_ = 0;            ///< the line it starts on
    bool stream_epoch_ = false;              ///< the stream's first record has run_epoch
    std::uint32_t stream_thread_ = 0;
    SchedulerStream stream_;
    LegacyTask legacy_;
    FlatObject flat_;  ///< take_container's object (~5 KB: made once, not per object)
    static constexpr std::size_t kMaxCaptureDepth = 8;
    /// Open containers inside host_capture; nullptr for one nested too deep to keep.
    std::vector<nlohmann::json*> capture_stack_;
};

}  // namespace ptune::swimlane::records
