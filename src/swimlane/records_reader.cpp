// Reader of chip swimlane records files of every generation (swimlane.md §2, §2.8, §2.9).
// One SAX pass collects raw rows into flat vectors; the join, the time base and the conversion
// to integer nanoseconds happen afterwards in linear time (plus one sort by task id).

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host_clock.hpp"
#include "ptune/core/json_walk.hpp"
#include "ptune/swimlane/reader.hpp"
#include "runs.hpp"

namespace ptune::swimlane {

namespace {

using detail::Scalar;

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

Section section_of(std::string_view key) {
    if (key == "chip_swimlane_level" || key == "l2_swimlane_level" || key == "l2_perf_level" ||
        key == "version")
        return Section::Level;
    if (key == "metadata") return Section::Metadata;
    if (key == "core_to_thread") return Section::LegacyCoreToThread;
    if (key == "aicore_tasks") return Section::AicoreTasks;
    if (key == "aicpu_tasks") return Section::AicpuTasks;
    if (key == "scheduler_tasks") return Section::SchedulerTasks;
    if (key == "aicpu_scheduler_phases") return Section::SchedulerPhases;
    if (key == "scheduler_records") return Section::SchedulerRecords;
    if (key == "aicpu_orchestrator_phases") return Section::OrchestratorPhases;
    if (key == "host_orchestrator_phases") return Section::HostOrchestratorPhases;
    if (key == "host_device_uploads") return Section::HostDeviceUploads;
    if (key == "tasks") return Section::LegacyTasks;
    if (key == "aicpu_lifecycle_records") return Section::Lifecycle;
    return Section::Ignored;
}

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

/// The names of the bits in `keys`, sorted as upstream prints them (Python's sorted()).
std::string record_key_list(std::uint8_t keys) {
    static constexpr std::pair<std::uint8_t, std::string_view> kSorted[] = {
        {kEndKey, "end_cycles"},
        {kKindKey, "kind"},
        {kLoopIterKey, "loop_iter"},
        {kRunEpochKey, "run_epoch"},
        {kStartKey, "start_cycles"},
        {kTaskIdKey, "task_id"},
        {kTasksProcessedKey, "tasks_processed"}};
    std::vector<std::string_view> names;
    for (auto [bit, name] : kSorted)
        if (keys & bit) names.push_back(name);
    return fmt::format("[{}]", fmt::join(names, ", "));
}

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

class RecordsWalker final : public detail::JsonWalker {
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
    std::vector<RawPhase> scheduler;
    std::size_t scheduler_arrays = 0;
    std::vector<RawPhase> orchestrator;
    std::size_t orchestrator_arrays = 0;
    std::vector<RawPhase> host_orchestrator;
    std::vector<LegacyTask> legacy;
    bool saw_legacy_tasks = false;

  protected:
    void on_open(std::size_t level, bool is_object) override {
        if (level == 1) {
            section_ = section_of(key_at(1));
            if (section_ == Section::AicoreTasks) saw_aicore = true;
            if (section_ == Section::AicpuTasks) saw_aicpu = true;
            if (section_ == Section::SchedulerTasks) saw_scheduler_tasks = true;
            if (section_ == Section::LegacyTasks) saw_legacy_tasks = true;
            return;
        }
        switch (section_) {
            case Section::Metadata:
                open_metadata(level, is_object);
                break;
            case Section::HostDeviceUploads:
                if (level == 2 && is_object) uploads.emplace_back();
                break;
            case Section::AicoreTasks:
            case Section::AicpuTasks:
                if (level == 2 && !is_object) row_.clear(), row_ok_ = true;
                break;
            case Section::SchedulerTasks:
                if (level == 3 && !is_object && key_at(2) == "records")
                    row_.clear(), row_ok_ = true;
                break;
            case Section::SchedulerPhases:
            case Section::OrchestratorPhases:
            case Section::HostOrchestratorPhases:
                if (level == 2 && !is_object) {
                    thread_ = static_cast<std::uint32_t>(index_at(2));
                    if (section_ == Section::SchedulerPhases) ++scheduler_arrays;
                    if (section_ == Section::OrchestratorPhases) ++orchestrator_arrays;
                } else if ((level == 3 || (level == 2 && is_object)) && is_object) {
                    phase_ = RawPhase{};
                    phase_.thread = level == 3 ? thread_ : 0;
                    phase_depth_ = level + 1;
                }
                break;
            case Section::SchedulerRecords:
                // {"streams": [ {scheduler_id, records: [{...}], metrics: [{...}]} ]}
                if (level == 3 && is_object) {
                    stream_records_.clear();
                    stream_metrics_.clear();
                    metric_lines_.clear();
                    stream_ = SchedulerStream{};
                    stream_.present = true;
                    stream_thread_ = static_cast<std::uint32_t>(index_at(3));
                } else if (level == 5 && is_object &&
                           (key_at(4) == "records" || key_at(4) == "metrics")) {
                    phase_ = RawPhase{};
                    phase_depth_ = 6;
                    record_keys_ = 0;
                    record_line_ = current_line();
                } else if (level == 6 && phase_depth_ == 6) {
                    note_key(phase_key(key_at(6)), key_at(6));  // a container as a field
                }
                break;
            case Section::LegacyTasks:
                if (level == 2 && is_object) legacy_ = LegacyTask{};
                break;
            case Section::Lifecycle:
                if (level == 2) {
                    if (is_object)
                        lifecycle.emplace_back();
                    else
                        ++lifecycle_malformed;
                }
                break;
            default:
                break;
        }
    }

    void on_close(std::size_t level, bool is_object) override {
        if (level == 1) {
            section_ = Section::Ignored;
            return;
        }
        switch (section_) {
            case Section::Metadata:
                if (!capture_stack_.empty() && level >= 2) capture_stack_.pop_back();
                break;
            case Section::AicoreTasks:
                if (level == 2 && !is_object) finish_aicore_row();
                break;
            case Section::AicpuTasks:
                if (level == 2 && !is_object) finish_aicpu_row();
                break;
            case Section::SchedulerTasks:
                if (level == 3 && !is_object && key_at(2) == "records") finish_aicpu_row();
                break;
            case Section::SchedulerPhases:
                if (is_object && level + 1 == phase_depth_)
                    scheduler.push_back(std::move(phase_)), phase_depth_ = 0;
                break;
            case Section::OrchestratorPhases:
                if (is_object && level + 1 == phase_depth_)
                    orchestrator.push_back(std::move(phase_)), phase_depth_ = 0;
                break;
            case Section::HostOrchestratorPhases:
                if (is_object && level + 1 == phase_depth_)
                    host_orchestrator.push_back(std::move(phase_)), phase_depth_ = 0;
                break;
            case Section::SchedulerRecords:
                if (level == 5 && is_object && phase_depth_ == 6) {
                    if (key_at(4) == "metrics") {
                        stream_metrics_.push_back(std::move(phase_));
                        metric_lines_.push_back(record_line_);
                    } else {
                        check_record();
                        stream_records_.push_back(std::move(phase_));
                    }
                    phase_depth_ = 0;
                } else if (level == 3 && is_object) {
                    finish_stream();
                }
                break;
            case Section::LegacyTasks:
                if (level == 2 && is_object) legacy.push_back(std::move(legacy_));
                break;
            default:
                break;
        }
    }

    void on_scalar(const Scalar& v) override {
        std::size_t d = depth();
        if (d == 1) {
            if (section_of(key_at(1)) == Section::Level && v.is_int() && level_key.empty()) {
                level_key = key_at(1);
                level = v.integer;
            }
            return;
        }
        switch (section_) {
            case Section::Metadata:
                if (d >= 3 && metadata_scalar(d, v)) break;
                if (d == 2) {
                    std::string_view k = key_at(2);
                    if (k == "clock_freq_hz" && v.is_number()) {
                        // A whole number of Hz: 0.5 must not round to 1 Hz (nor 1e300 to UB).
                        bool whole = v.is_int() ||
                                     (std::isfinite(v.number) && v.number == std::floor(v.number) &&
                                      std::fabs(v.number) < 9.0e18);
                        clock_freq_hz = !whole       ? 0
                                        : v.is_int() ? v.integer
                                                     : std::llround(v.number);
                        clock_freq_invalid = !whole;  // 0 or negative: as if absent
                    } else if (k == "orchestrator_source" && v.type == Scalar::Type::String)
                        host_source = v.text == "host";
                    else if (k == "host_orchestration_origin_ns" && v.is_int() && v.integer >= 0)
                        host_origin_ns = v.integer;
                    else if (k == "host_timeline_origin_ns" && v.is_int() && v.integer >= 0)
                        host_timeline_origin_ns = v.integer;
                    else if (k == "runtime")
                        runtime_present = true,
                        runtime = v.type == Scalar::Type::String ? std::string(v.text) : "";
                    else if (k == "host_clock_domain_id" && v.type == Scalar::Type::String)
                        host_clock_domain_id = v.text;
                    else if (k == "clock_alignment")
                        alignment_kind = 2;
                } else if (d == 3 && key_at(2) == "core_types" && v.type == Scalar::Type::String) {
                    core_type_names.emplace_back(v.text);
                } else if (d == 3 && key_at(2) == "core_to_thread" && v.is_int()) {
                    core_to_thread.push_back(v.integer);
                }
                break;
            case Section::LegacyCoreToThread:
                if (d == 2 && v.is_int()) core_to_thread.push_back(v.integer);
                break;
            case Section::HostDeviceUploads:
                if (d == 3 && !uploads.empty()) upload_field(uploads.back(), key_at(3), v);
                break;
            case Section::AicoreTasks:
            case Section::AicpuTasks:
                if (d == 3) push_cell(v);
                break;
            case Section::SchedulerTasks:
                if (d == 4 && key_at(2) == "records") push_cell(v);
                if (d == 2 && key_at(2) == "producer")
                    scheduler_producer = v.type == Scalar::Type::String ? std::string(v.text) : "?";
                break;
            case Section::Lifecycle:
                if (d == 2) ++lifecycle_malformed;  // a scalar where an object belongs
                if (d == 3 && !lifecycle.empty()) lifecycle_field(key_at(3), v);
                break;
            case Section::SchedulerPhases:
            case Section::OrchestratorPhases:
            case Section::HostOrchestratorPhases:
            case Section::SchedulerRecords:
                if (phase_depth_ != 0) {
                    if (d == phase_depth_)
                        phase_field(key_at(d), v);
                    else if (d == phase_depth_ + 1 && v.is_int()) {
                        std::string_view k = key_at(phase_depth_);
                        if (k == "shared_at_start")
                            phase_.shared_start.push(v.integer);
                        else if (k == "shared_at_end")
                            phase_.shared_end.push(v.integer);
                    }
                } else if (section_ == Section::SchedulerRecords && d == 4) {
                    stream_field(key_at(4), v);
                } else if (section_ == Section::SchedulerRecords && d == 5 &&
                           key_at(4) == "capture") {
                    std::string_view k = key_at(5);
                    if (k == "committed" && v.is_int()) stream_.committed = v.integer;
                    if (k == "dropped" && v.is_int()) stream_.dropped = v.integer;
                    if (k == "truncated")
                        stream_.truncated = v.type == Scalar::Type::Bool && v.integer;
                }
                break;
            case Section::LegacyTasks:
                if (d == 3)
                    legacy_field(key_at(3), v);
                else if (d == 4 && key_at(3) == "fanout") {
                    std::uint64_t id = 0;
                    if (v.as_id(id)) legacy_.fanout.push_back(id);
                }
                break;
            default:
                break;
        }
    }

  private:
    /// metadata.host_capture is kept as JSON (it goes into the trace as written);
    /// metadata.clock_anchors.samples[] are read into `anchors`.
    void open_metadata(std::size_t level, bool is_object) {
        if (level == 2 && key_at(2) == "host_capture" && is_object) {
            host_capture_object = true;
            host_capture = nlohmann::json::object();
            capture_stack_.assign(1, &host_capture);
            return;
        }
        if (level == 2 && key_at(2) == "clock_alignment") {
            alignment_kind = is_object ? 1 : 2;
            clock_alignment = is_object ? nlohmann::json::object() : nlohmann::json::array();
            capture_stack_.assign(1, &clock_alignment);
            return;
        }
        if (!capture_stack_.empty()) {
            // host_capture is flat; deeper nesting is dropped (it would only feed recursion
            // when the trace metadata is written).
            if (!capture_stack_.back() || capture_stack_.size() >= kMaxCaptureDepth) {
                capture_stack_.push_back(nullptr);
                return;
            }
            nlohmann::json& parent = *capture_stack_.back();
            nlohmann::json fresh = is_object ? nlohmann::json::object() : nlohmann::json::array();
            nlohmann::json& child = parent.is_object() ? (parent[key_at(level)] = std::move(fresh))
                                                       : parent.emplace_back(std::move(fresh));
            capture_stack_.push_back(&child);
            return;
        }
        if (level == 2 && key_at(2) == "clock_anchors" && is_object) anchors.present = true;
        if (level == 4 && is_object && key_at(2) == "clock_anchors" && key_at(3) == "samples")
            anchors.samples.emplace_back();
        if (level == 5 && key_at(2) == "clock_anchors" && key_at(5) == "error" &&
            !anchors.samples.empty())
            anchors.samples.back().failed = true;  // an error object
    }

    /// True when the scalar belonged to host_capture or clock_anchors.
    bool metadata_scalar(std::size_t d, const Scalar& v) {
        if (!capture_stack_.empty()) {
            if (!capture_stack_.back()) return true;
            nlohmann::json value;
            switch (v.type) {
                case Scalar::Type::Int:
                    value = v.integer;
                    break;
                case Scalar::Type::Float:
                    value = v.number;
                    break;
                case Scalar::Type::String:
                    value = std::string(v.text);
                    break;
                case Scalar::Type::Bool:
                    value = v.integer != 0;
                    break;
                case Scalar::Type::Null:
                    break;
            }
            nlohmann::json& parent = *capture_stack_.back();
            if (parent.is_object())
                parent[key_at(d)] = std::move(value);
            else
                parent.push_back(std::move(value));
            return true;
        }
        if (key_at(2) != "clock_anchors") return false;
        if (d == 3 && v.type == Scalar::Type::String) {
            if (key_at(3) == "device_timestamp_unit") anchors.device_timestamp_unit = v.text;
            if (key_at(3) == "raw_device_timestamp_unit")
                anchors.raw_device_timestamp_unit = v.text;
        }
        if (d == 5 && key_at(3) == "samples" && !anchors.samples.empty()) {
            detail::AnchorSample& sample = anchors.samples.back();
            std::string_view k = key_at(5);
            std::int64_t number = v.is_int() ? v.integer : -1;
            if (k == "position" && v.type == Scalar::Type::String)
                sample.position = v.text;
            else if (k == "sample_idx")
                sample.sample_idx = number;
            else if (k == "host_before_ns")
                sample.host_before_ns = number;
            else if (k == "host_after_ns")
                sample.host_after_ns = number;
            else if (k == "device_cycles")
                sample.device_cycles = number;
            else if (k == "error")
                sample.failed = !(v.type == Scalar::Type::Null || (v.is_int() && v.integer == 0) ||
                                  (v.type == Scalar::Type::String && v.text.empty()));
        }
        return true;
    }

    void stream_field(std::string_view k, const Scalar& v) {
        bool text = v.type == Scalar::Type::String;
        if (k == "scheduler_id" && v.is_int()) {
            stream_.scheduler_id = v.integer;
        } else if (k == "worker_id" && v.is_int()) {
            stream_.worker_id = v.integer;
        } else if (k == "physical_core_id" && v.is_int()) {
            stream_.physical_core_id = v.integer;
        } else if (k == "producer" && text) {
            stream_.producer = v.text;
        } else if (k == "platform" && text) {
            stream_.platform = v.text;
        } else if (k == "core_type" && text) {
            stream_.core_type = v.text;
        }
    }

    /// The fields of one lifecycle entry, in kLifecycleIntervals order (start, end).
    static constexpr std::array<std::string_view, 14> kLifecycleFields = {
        "handshake_start_cycles",        "handshake_complete_cycles",
        "config_start_cycles",           "topology_complete_cycles",
        "context_publish_start_cycles",  "context_publish_complete_cycles",
        "bootstrap_wait_start_cycles",   "bootstrap_complete_cycles",
        "register_release_start_cycles", "register_release_end_cycles",
        "exit_signal_start_cycles",      "exit_signal_end_cycles",
        "exit_wait_start_cycles",        "exit_wait_end_cycles"};

    void lifecycle_field(std::string_view k, const Scalar& v) {
        if (!v.is_int()) return;
        if (k == "aicpu_thread_id") {
            lifecycle.back().thread = v.integer;
            return;
        }
        for (std::size_t i = 0; i < kLifecycleFields.size(); ++i)
            if (k == kLifecycleFields[i]) lifecycle.back().cycles[i] = v.integer;
    }

    static void upload_field(HostUpload& upload, std::string_view k, const Scalar& v) {
        if (k == "phase" && v.type == Scalar::Type::String) upload.phase = v.text;
        if (!v.is_int()) return;
        if (k == "start_host_ns") upload.start_ns = v.integer;
        if (k == "end_host_ns") upload.end_ns = v.integer;
        if (k == "detail") upload.bytes = v.integer;
    }

    void push_cell(const Scalar& v) {
        if (v.is_int())
            row_.push_back(v.integer);
        else
            row_ok_ = false;
    }

    void finish_aicore_row() {
        if (!row_ok_ || row_.size() < 5 || row_.size() > 7) {
            ++malformed_rows;
            return;
        }
        int columns = static_cast<int>(row_.size());
        aicore_columns = std::max(aicore_columns, columns);
        aicore_widths |= 1u << columns;
        aicore.insert(aicore.end(), row_.begin(), row_.begin() + 5);
        aicore.push_back(columns >= 6 ? row_[5] : 0);
        aicore.push_back(columns >= 7 ? row_[6] : kNoEpoch);
    }

    void finish_aicpu_row() {
        if (!row_ok_ || row_.size() < 4 || row_.size() > 5) {
            ++malformed_rows;
            return;
        }
        aicpu_widths |= 1u << row_.size();
        aicpu.insert(aicpu.end(), row_.begin(), row_.begin() + 4);
        aicpu.push_back(row_.size() == 5 ? row_[4] : kNoEpoch);
    }

    std::uint16_t intern_kind(std::string_view name) {
        for (std::size_t i = 1; i < kinds.size(); ++i)
            if (kinds[i] == name) return static_cast<std::uint16_t>(i);
        if (kinds.size() > 0xFFFF) return 0;  // not a capture's vocabulary any more
        kinds.emplace_back(name);
        return static_cast<std::uint16_t>(kinds.size() - 1);
    }

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
    static PhaseKey phase_key(std::string_view k) {
        switch (k.size()) {
            case 4:
                return k == "kind" ? PhaseKey::Kind : PhaseKey::Other;
            case 5:
                return k == "phase" ? PhaseKey::Kind : PhaseKey::Other;
            case 7:
                return k == "pop_hit"   ? PhaseKey::PopHit
                       : k == "task_id" ? PhaseKey::TaskId
                                        : PhaseKey::Other;
            case 8:
                return k == "pop_miss" ? PhaseKey::PopMiss : PhaseKey::Other;
            case 9:
                return k == "loop_iter"   ? PhaseKey::LoopIter
                       : k == "thread_id" ? PhaseKey::Thread
                       : k == "run_epoch" ? PhaseKey::RunEpoch
                                          : PhaseKey::Other;
            case 10:
                return k == "end_cycles"   ? PhaseKey::End
                       : k == "submit_idx" ? PhaseKey::SubmitIdx
                       : k == "thread_idx" ? PhaseKey::Thread
                                           : PhaseKey::Other;
            case 11:
                return k == "end_time_us"   ? PhaseKey::EndUs
                       : k == "end_host_ns" ? PhaseKey::End
                                            : PhaseKey::Other;
            case 12:
                return k == "start_cycles"   ? PhaseKey::Start
                       : k == "record_index" ? PhaseKey::RecordIndex
                                             : PhaseKey::Other;
            case 13:
                return k == "start_time_us"   ? PhaseKey::StartUs
                       : k == "start_host_ns" ? PhaseKey::Start
                                              : PhaseKey::Other;
            case 15:
                return k == "tasks_processed" ? PhaseKey::TasksProcessed : PhaseKey::Other;
            default:
                return PhaseKey::Other;
        }
    }

    /// The RecordKey bit of a key, by its exact spelling in `scheduler_records`.
    static std::uint8_t record_key(PhaseKey key, std::string_view k) {
        switch (key) {
            case PhaseKey::Start:
                return k.size() == 12 ? kStartKey : kOtherKey;  // start_cycles, not *_host_ns
            case PhaseKey::End:
                return k.size() == 10 ? kEndKey : kOtherKey;
            case PhaseKey::Kind:
                return k.size() == 4 ? kKindKey : kOtherKey;  // kind, not the legacy `phase`
            case PhaseKey::LoopIter:
                return kLoopIterKey;
            case PhaseKey::TasksProcessed:
                return kTasksProcessedKey;
            case PhaseKey::TaskId:
                return kTaskIdKey;
            case PhaseKey::RunEpoch:
                return kRunEpochKey;
            default:
                return kOtherKey;
        }
    }

    /// Notes a key of the stream record / metric being read (§1.5 key-set rules).
    void note_key(PhaseKey key, std::string_view k) {
        std::uint8_t bit = record_key(key, k);
        if (key_at(4) == "metrics") {
            if (bit != kOtherKey) phase_.fixed_keys |= bit;
        } else {
            record_keys_ |= bit;
        }
    }

    /// Counts one refusal of `kind` and keeps the wording of the first.
    template <class Wording>
    void refused(StreamRefusal kind, std::size_t line, Wording&& wording) {
        RefusalSeen& seen = refusals[static_cast<std::size_t>(kind)];
        if (seen.count++ == 0) seen.line = line, seen.first = wording();
    }

    /// A stream record's key set (exactly the fixed six, plus run_epoch on every record of the
    /// stream or none) and its interval, checked as upstream's converter does.
    void check_record() {
        std::size_t record = index_at(5);
        if (record == 0) stream_epoch_ = (record_keys_ & kRunEpochKey) != 0;
        std::uint8_t expected = kFixedRecordKeys | (stream_epoch_ ? kRunEpochKey : 0);
        if (record_keys_ != expected) {
            refused(StreamRefusal::KeySet, record_line_, [&] {
                return fmt::format(
                    "scheduler stream {} record {} must contain exactly {}; it has "
                    "{}{}",
                    stream_thread_, record, record_key_list(expected),
                    record_key_list(record_keys_ & ~kOtherKey),
                    record_keys_ & kOtherKey ? " and other keys" : "");
            });
        }
        if (phase_.has_start && phase_.has_end && phase_.end < phase_.start) {
            refused(StreamRefusal::NegativeInterval, record_line_, [&] {
                return fmt::format(
                    "scheduler stream {} record {} has a negative interval "
                    "(end_cycles {} < start_cycles {})",
                    stream_thread_, record, phase_.end, phase_.start);
            });
        }
    }

    void phase_field(std::string_view k, const Scalar& v) {
        PhaseKey key = phase_key(k);
        if (section_ == Section::SchedulerRecords) note_key(key, k);
        if (key == PhaseKey::Kind) {
            if (v.type == Scalar::Type::String) phase_.kind = intern_kind(v.text);
            return;
        }
        if (key == PhaseKey::StartUs && v.is_number()) {
            phase_.start_us = v.number, phase_.has_start = true, phase_.legacy_us = true;
            return;
        }
        if (key == PhaseKey::EndUs && v.is_number()) {
            phase_.end_us = v.number, phase_.has_end = true, phase_.legacy_us = true;
            return;
        }
        if (!v.is_int()) return;
        switch (key) {
            case PhaseKey::Start:
                phase_.start = v.integer, phase_.has_start = true;
                break;
            case PhaseKey::End:
                phase_.end = v.integer, phase_.has_end = true;
                break;
            case PhaseKey::LoopIter:
                phase_.loop_iter = v.integer;
                break;
            case PhaseKey::TasksProcessed:
                phase_.tasks_processed = v.integer;
                break;
            case PhaseKey::PopHit:
                phase_.pop_hit = v.integer;
                break;
            case PhaseKey::PopMiss:
                phase_.pop_miss = v.integer;
                break;
            case PhaseKey::TaskId:
                phase_.task_id = v.integer;
                break;
            case PhaseKey::SubmitIdx:
                phase_.submit_idx = v.integer;
                break;
            case PhaseKey::RecordIndex:
                phase_.record_index = v.integer;
                phase_.has_record_index = true;
                break;
            case PhaseKey::RunEpoch:
                phase_.run_epoch = v.integer;
                break;
            case PhaseKey::Thread:
                phase_.thread = static_cast<std::uint32_t>(std::max<std::int64_t>(0, v.integer));
                break;
            default:
                break;
        }
    }

    /// Merges the stream's metrics into their records (§1.5). Upstream refuses the file for a
    /// metric without a usable record_index (ignored here) or one naming a fixed record field:
    /// a metric only adds fields to its record, so the record keeps its own values and the
    /// metric's other fields are still merged.
    void finish_stream() {
        for (std::size_t m = 0; m < stream_metrics_.size(); ++m) {
            const RawPhase& metric = stream_metrics_[m];
            std::size_t line = metric_lines_[m];
            if (!metric.has_record_index) {
                refused(StreamRefusal::MetricIndexMissing, line, [&] {
                    return fmt::format(
                        "scheduler stream {} has malformed metrics: metric {} has "
                        "no integer record_index",
                        stream_thread_, m);
                });
                continue;
            }
            if (metric.record_index < 0 ||
                static_cast<std::size_t>(metric.record_index) >= stream_records_.size()) {
                refused(StreamRefusal::MetricOutOfRange, line, [&] {
                    return fmt::format(
                        "scheduler stream {} metric record_index {} is out of range "
                        "(the stream has {} record(s))",
                        stream_thread_, metric.record_index, stream_records_.size());
                });
                continue;
            }
            if (metric.fixed_keys) {
                refused(StreamRefusal::MetricFixedField, line, [&] {
                    return fmt::format(
                        "scheduler stream {} metric {} (record_index {}) overwrites "
                        "fixed record fields: {}",
                        stream_thread_, m, metric.record_index, record_key_list(metric.fixed_keys));
                });
            }
            RawPhase& target = stream_records_[static_cast<std::size_t>(metric.record_index)];
            if (metric.pop_hit >= 0) target.pop_hit = metric.pop_hit;
            if (metric.pop_miss >= 0) target.pop_miss = metric.pop_miss;
            if (!metric.shared_start.empty()) target.shared_start = metric.shared_start;
            if (!metric.shared_end.empty()) target.shared_end = metric.shared_end;
        }
        scheduler_arrays = std::max<std::size_t>(scheduler_arrays, stream_thread_ + 1);
        stream_.records = stream_records_.size();
        if (streams.size() <= stream_thread_) streams.resize(stream_thread_ + 1);
        streams[stream_thread_] = stream_;
        metric_lines_.clear();
        for (auto& record : stream_records_) {
            // A negative interval was reported by check_record(); the record is dropped.
            if (record.has_start && record.has_end && record.end < record.start) continue;
            record.thread = stream_thread_;
            record.from_stream = true;
            scheduler.push_back(std::move(record));
        }
    }

  public:
    /// Streams sit at their `scheduler_id` (§1.5) unless an id is missing, repeated, negative or
    /// ≥ 256: then the file order is kept. Gaps become empty streams that inherit the producer
    /// when every stream has the same one.
    void place_streams() {
        if (streams.empty()) return;
        std::vector<std::int64_t> ids;
        bool usable = true;
        for (const SchedulerStream& st : streams) {
            usable = usable && st.present && st.scheduler_id >= 0 && st.scheduler_id < 256 &&
                     std::find(ids.begin(), ids.end(), st.scheduler_id) == ids.end();
            ids.push_back(st.scheduler_id);
        }
        if (!usable) return;
        std::vector<SchedulerStream> placed(
            static_cast<std::size_t>(*std::max_element(ids.begin(), ids.end())) + 1);
        for (std::size_t i = 0; i < streams.size(); ++i)
            placed[static_cast<std::size_t>(ids[i])] = streams[i];
        bool one_producer = std::all_of(streams.begin(), streams.end(), [&](const auto& st) {
            return st.producer == streams.front().producer;
        });
        for (SchedulerStream& st : placed)
            if (!st.present && one_producer) st.producer = streams.front().producer;
        for (RawPhase& p : scheduler)
            if (p.from_stream && p.thread < ids.size())
                p.thread = static_cast<std::uint32_t>(ids[p.thread]);
        scheduler_arrays = std::max(scheduler_arrays, placed.size());
        streams = std::move(placed);
    }

  private:
    void legacy_field(std::string_view k, const Scalar& v) {
        if (k == "task_id")
            legacy_.has_id = v.as_id(legacy_.task_id);
        else if (k == "func_id" && v.is_int())
            legacy_.func_id = v.integer;
        else if (k == "core_id" && v.is_int())
            legacy_.core_id = v.integer;
        else if (k == "core_type" && v.type == Scalar::Type::String)
            legacy_.core_type = std::string(v.text);
        else if (!v.is_number())
            return;
        else if (k == "start_time_us")
            legacy_.start = v.number;
        else if (k == "end_time_us")
            legacy_.end = v.number;
        else if (k == "kernel_ready_time_us" || k == "receive_time_us")
            legacy_.ready = v.number;
        else if (k == "dispatch_time_us")
            legacy_.dispatch = v.number;
        else if (k == "finish_time_us")
            legacy_.finish = v.number;
    }

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
    static constexpr std::size_t kMaxCaptureDepth = 8;
    /// Open containers inside host_capture; nullptr for one nested too deep to keep.
    std::vector<nlohmann::json*> capture_stack_;
};

/// A per-phase counter as stored (32 bits; -1 = absent, larger values saturate).
std::int32_t counter_value(std::int64_t value) {
    if (value < 0) return -1;
    return static_cast<std::int32_t>(std::min<std::int64_t>(value, INT32_MAX));
}

CoreType parse_core_type(std::string_view name) {
    return name == "aic" || name == "AIC" ? CoreType::Aic : CoreType::Aiv;
}

/// Phase object → model record, given a raw-timestamp converter; kinds outside the vocabulary
/// are named in `capture.other_phase_names`.
template <class ToNs>
SchedulerPhase make_scheduler_phase(const RawPhase& raw, const RecordsWalker& w, Capture& capture,
                                    ToNs&& to_ns) {
    SchedulerPhase phase;
    phase.thread = raw.thread;
    std::string_view name = raw.kind == 0 ? "unknown" : std::string_view(w.kinds[raw.kind]);
    phase.kind = parse_phase_kind(name);
    if (phase.kind == PhaseKind::Other) {
        auto& names = capture.other_phase_names;
        auto known = std::find(names.begin(), names.end(), name);
        if (known == names.end() && names.size() <= 0xFFFF)
            known = names.emplace(names.end(), name);
        phase.other_name =
            known == names.end() ? 0 : static_cast<std::uint16_t>(known - names.begin());
    }
    phase.start_ns = to_ns(raw, true);
    phase.end_ns = to_ns(raw, false);
    phase.loop_iter = static_cast<std::uint32_t>(std::max<std::int64_t>(0, raw.loop_iter));
    phase.tasks_processed = counter_value(raw.tasks_processed);
    phase.pop_hit = counter_value(raw.pop_hit);
    phase.pop_miss = counter_value(raw.pop_miss);
    phase.task_id = raw.task_id;
    if (raw.run_epoch >= 0)
        phase.run_epoch =
            static_cast<std::int32_t>(std::min<std::int64_t>(raw.run_epoch, INT32_MAX));
    if (raw.shared_start.complete() && raw.shared_end.complete()) {
        phase.has_depths = true;
        for (std::size_t i = 0; i < 3; ++i) {
            phase.shared_at_start[i] = raw.shared_start.values[i];
            phase.shared_at_end[i] = raw.shared_end.values[i];
        }
    }
    return phase;
}

std::uint64_t join_key(std::int64_t epoch, std::int64_t core, std::int64_t reg) {
    // Core ids stay far below 2^16 (a5: 108 cores) and run epochs below 2^16 per capture.
    return (static_cast<std::uint64_t>(epoch & 0xFFFF) << 48) |
           (static_cast<std::uint64_t>(core & 0xFFFF) << 32) |
           static_cast<std::uint64_t>(reg & 0xFFFFFFFF);
}

void summarise_drops(const Capture& capture, const std::vector<std::int64_t>& unmatched_cores,
                     Diagnostics& diagnostics) {
    const DropCounts& d = capture.dropped;
    if (d.aicpu_without_aicore) {
        // Top-3 cores by count, as the upstream warning does ("dropped on rotation").
        std::map<std::int64_t, std::size_t> per_core;
        for (auto core : unmatched_cores) ++per_core[core];
        std::vector<std::pair<std::int64_t, std::size_t>> ranked(per_core.begin(), per_core.end());
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](auto& a, auto& b) { return a.second > b.second; });
        std::vector<std::string> top;
        for (std::size_t i = 0; i < ranked.size() && i < 3; ++i)
            top.push_back(fmt::format("core {}: {}", ranked[i].first, ranked[i].second));
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} AICPU row(s) without an AICore partner dropped ({})",
                                     d.aicpu_without_aicore, fmt::join(top, ", ")));
    }
    if (d.aicore_without_aicpu)
        diagnostics.note(
            capture.source, 0,
            fmt::format("{} AICore row(s) without an AICPU partner left out (as upstream)",
                        d.aicore_without_aicpu));
    if (d.zero_start)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} row(s) with a zero timestamp dropped", d.zero_start));
    if (d.reversed)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} row(s) with end before start (or finish before dispatch) dropped",
                        d.reversed));
    if (d.malformed_rows)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} malformed task row(s) dropped", d.malformed_rows));
    if (d.malformed_phases)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} phase record(s) without usable times dropped", d.malformed_phases));
}

Result<Capture> build_legacy(RecordsWalker& w, Capture capture, Diagnostics& diagnostics) {
    capture.shape = RecordsShape::MicrosecondTasks;
    capture.clock.freq_hz = 1'000'000'000;
    capture.clock.freq_source = "microsecond file";
    // 0 = no usable time: absent, zero, negative, NaN, or past what int64 nanoseconds hold
    // (llround would be undefined there and the rebasing below would overflow).
    auto to_raw_ns = [](double us) -> std::int64_t {
        constexpr double kMaxUs = 9.0e15;  // ~285 years: every real capture is far below
        return us > 0 && us < kMaxUs ? std::llround(us * 1000.0) : 0;
    };
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    auto consider = [&](std::int64_t ns) {
        if (ns > 0) origin = std::min(origin, ns);
    };
    for (const auto& t : w.legacy) {
        for (double us : {t.start, t.end, t.ready, t.dispatch, t.finish}) consider(to_raw_ns(us));
    }
    for (const auto& p : w.scheduler)
        consider(to_raw_ns(p.start_us)), consider(to_raw_ns(p.end_us));
    if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
    capture.clock.origin_ticks = origin;
    auto rel = [&](double us) { return us > 0 ? to_raw_ns(us) - origin : kNoTime; };
    for (const auto& t : w.legacy) {
        if (!t.has_id || t.core_id < 0) {
            ++capture.dropped.malformed_rows;
            continue;
        }
        TaskRow row;
        row.task_id = t.task_id;
        row.core_id = static_cast<std::uint32_t>(t.core_id);
        row.core_type =
            t.core_type.empty() ? capture.core_type_of(row.core_id) : parse_core_type(t.core_type);
        row.func_id = static_cast<std::int32_t>(t.func_id);
        row.start_ns = rel(t.start);
        row.end_ns = rel(t.end);
        if (row.start_ns == kNoTime || row.end_ns == kNoTime) {
            ++capture.dropped.zero_start;
            continue;
        }
        if (row.end_ns < row.start_ns) {
            ++capture.dropped.reversed;
            continue;
        }
        row.receive_ns = t.ready > 0 && rel(t.ready) <= row.start_ns ? rel(t.ready) : row.start_ns;
        row.dispatch_ns = rel(t.dispatch);
        row.finish_ns = rel(t.finish);
        if (row.has_aicpu() && row.finish_ns < row.dispatch_ns)
            row.dispatch_ns = row.finish_ns = kNoTime;
        for (auto succ : t.fanout) capture.embedded_edges.emplace_back(t.task_id, succ);
        capture.tasks.push_back(row);
    }
    for (const auto& p : w.scheduler) {
        if (!p.has_start || !p.has_end) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        capture.scheduler_phases.push_back(make_scheduler_phase(
            p, w, capture,
            [&](const RawPhase& r, bool start) { return rel(start ? r.start_us : r.end_us); }));
    }
    capture.scheduler_arrays = w.scheduler_arrays;
    std::stable_sort(capture.tasks.begin(), capture.tasks.end(),
                     [](const TaskRow& a, const TaskRow& b) { return a.task_id < b.task_id; });
    detail::find_runs(capture, diagnostics);
    summarise_drops(capture, {}, diagnostics);
    return capture;
}

/// Host records further than this from the origin (146 years) are damaged; the bound keeps sums
/// of model times clear of overflow, as Clock::ticks_to_ns does for device times.
constexpr std::int64_t kMaxHostSpanNs = std::int64_t{1} << 62;

/// The host axis's origin (§6.2 step 5): the file's own when it states one, else the earliest
/// host record, else the clock anchor before the run.
void choose_host_origin(const RecordsWalker& w, const detail::AnchorFit& fit, HostTimeline& host) {
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    for (const auto& p : w.host_orchestrator)
        if (p.has_start && p.start > 0) earliest = std::min(earliest, p.start);
    for (const auto& u : w.uploads)
        if (u.start_ns > 0) earliest = std::min(earliest, u.start_ns);
    if (w.host_origin_ns >= 0) {
        host.origin_ns = w.host_origin_ns, host.origin_source = "metadata";
    } else if (earliest != std::numeric_limits<std::int64_t>::max()) {
        host.origin_ns = earliest, host.origin_source = "host records";
    } else if (host.alignment.calibrated) {
        host.origin_ns = fit.start_mid_ns, host.origin_source = "clock anchor";
    }
}

/// The host orchestrator records and H2D uploads as ns since the host origin; returns where the
/// host timeline ends.
std::int64_t place_host_records(const RecordsWalker& w, Capture& capture) {
    HostTimeline& host = capture.host;
    std::int64_t host_end = 0;
    for (const auto& p : w.host_orchestrator) {
        // Upstream refuses the whole file for one such record; one bad record is dropped here.
        if (!p.has_start || !p.has_end || p.start < host.origin_ns || p.end < p.start ||
            p.end - host.origin_ns > kMaxHostSpanNs) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        OrchestratorPhase phase;
        phase.thread = p.thread;
        phase.submit_idx = p.submit_idx;
        phase.task_id = p.task_id;
        phase.start_ns = p.start - host.origin_ns;
        phase.end_ns = p.end - host.origin_ns;
        host_end = std::max(host_end, phase.end_ns);
        capture.orchestrator_phases.push_back(std::move(phase));
    }
    capture.orchestrator_arrays = w.host_orchestrator.empty() ? 0 : 1;
    for (const auto& u : w.uploads) {
        if (u.start_ns <= 0 || u.end_ns <= 0 ||
            std::max(u.start_ns, u.end_ns) - host.origin_ns > kMaxHostSpanNs ||
            std::min(u.start_ns, u.end_ns) - host.origin_ns < -kMaxHostSpanNs) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        HostUpload upload = u;
        upload.start_ns -= host.origin_ns;
        upload.end_ns -= host.origin_ns;
        host_end = std::max(host_end, upload.end_ns);
        host.uploads.push_back(std::move(upload));
    }
    host.records_missing = capture.orchestrator_phases.empty();
    return host_end;
}

/// The axis device times join (§6.2 step 9): the host's through the anchors when they calibrate
/// the device clock, otherwise after the host timeline ends (a logical seam, said so).
void choose_device_axis(Capture& capture, std::int64_t host_end, Diagnostics& diagnostics) {
    HostTimeline& host = capture.host;
    if (host.alignment.calibrated) {
        capture.clock.axis = Clock::Axis::HostCalibrated;
        diagnostics.note(capture.source, 0,
                         fmt::format("host orchestration: device clock calibrated by the clock "
                                     "anchors (uncertainty ±{} ns)",
                                     host.alignment.anchor_uncertainty_ns));
    } else {
        capture.clock.axis = Clock::Axis::HostComposite;
        capture.clock.host_offset_ns = host.seam_ns = host_end;  // ≤ kMaxHostSpanNs
        diagnostics.warn(capture.source, 0,
                         fmt::format("host orchestration: device clock not aligned to the host "
                                     "({}); the device timeline starts where the host timeline "
                                     "ends (a logical seam, not a measured latency)",
                                     host.alignment.reason));
    }
}

/// What metadata.host_capture claims against what the file holds: whether the host records are
/// complete, and the claim as it goes into the trace (with the mismatches found).
void validate_host_capture(const RecordsWalker& w, Capture& capture, Diagnostics& diagnostics) {
    HostTimeline& host = capture.host;
    const nlohmann::json& claim = w.host_capture;
    auto count = [&](const char* key) -> std::int64_t {
        auto it = claim.find(key);
        return it != claim.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
    };
    std::vector<std::string> errors;
    std::int64_t recorded = count("recorded_records");
    auto status = claim.find("status");
    bool says_complete = false;
    if (capture.september()) {
        // The September converter (upstream-2026-09.md §1.7): expected_records is required and
        // both counts must equal the host orchestrator records; its error codes, as written.
        const auto held = static_cast<std::int64_t>(w.host_orchestrator.size());
        std::int64_t expected = count("expected_records");
        if (w.host_capture_object && expected < 0)
            errors.emplace_back("expected_record_count_missing");
        else if (w.host_capture_object && expected != held)
            errors.emplace_back("expected_record_count_mismatch");
        if (w.host_capture_object && recorded != held)
            errors.emplace_back("recorded_record_count_mismatch");
        says_complete =
            status != claim.end() && *status == "complete" && count("dropped_records") == 0;
    } else {
        if (recorded >= 0 && static_cast<std::size_t>(recorded) != w.host_orchestrator.size())
            errors.push_back(
                fmt::format("recorded_records is {} but the file holds {} host "
                            "orchestrator record(s)",
                            recorded, w.host_orchestrator.size()));
        says_complete = status != claim.end() && *status == "complete" &&
                        count("dropped_records") <= 0 && recorded >= count("expected_records") &&
                        (!claim.contains("error") || claim["error"].is_null());
    }
    host.records_complete = !host.records_missing && errors.empty() && !capture.truncated &&
                            (!w.host_capture_object || says_complete);
    if (w.host_capture_object) {
        nlohmann::json out = claim;
        if (!errors.empty()) out["converter_validation_errors"] = errors;
        host.capture_json = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    for (const auto& e : errors) diagnostics.warn(capture.source, 0, "host_capture: " + e);
    host.validation_errors = std::move(errors);
}

CaptureExtent capture_extent(const RecordsWalker& w, const Capture& capture);

/// §1.12.1: a host_build_graph level-3/4 capture with host data is placed on the host clock by
/// span containment (a file that names its runtime: the older ones use the clock anchors).
bool wants_containment(const RecordsWalker& w, const Capture& capture) {
    return capture.runtime_given && capture.runtime == Runtime::HostBuildGraph &&
           (capture.level == 3 || capture.level == 4) &&
           (w.host_source || !w.host_orchestrator.empty() || !w.uploads.empty() ||
            w.host_capture_object);
}

/// `metadata.clock_alignment` honoured or computed (§1.12.1–§1.12.2): a valid saved `bounded`
/// record is used unless `--host-log` forces a fresh one; otherwise the host logs place the
/// capture. ptune never writes the record back: it is reported (trace metadata, console).
void decide_clock_alignment(const RecordsWalker& w, Capture& capture, const ReadOptions& options,
                            Diagnostics& diagnostics) {
    if (options.alignment_facts)
        *options.alignment_facts = {capture_extent(w, capture), wants_containment(w, capture)};
    bool saved_valid = false;
    ContainmentAlignment saved;
    if (w.alignment_kind != 0) {
        saved = validate_saved_alignment(w.alignment_kind == 1 ? w.clock_alignment.dump() : "[]",
                                         capture.clock.freq_hz, saved_valid);
        if (!saved_valid)
            diagnostics.warn(capture.source, 0, "ignoring saved clock alignment: " + saved.reason);
    }
    const bool paired = options.host_alignment && options.host_alignment->paired;
    if (!paired && !wants_containment(w, capture)) {
        if (w.alignment_kind != 0) capture.clock_alignment = saved;
        return;
    }
    const bool forced = options.host_alignment && options.host_alignment->forced;
    if (saved_valid && saved.bounded() && !forced) {
        capture.clock_alignment = saved;
        return;
    }
    static const HostAlignmentInput kNoLogs;
    capture.clock_alignment = align_by_containment(
        options.host_alignment ? *options.host_alignment : kNoLogs, capture_extent(w, capture));
    if (!capture.clock_alignment.bounded())
        diagnostics.warn(capture.source, 0,
                         "clock alignment skipped: " + capture.clock_alignment.reason);
}

/// September files (§1.12.4): the host origin is the file's, else the earliest host record, else
/// the placement's own (place_lo of a fresh one, host_anchor_min_ns of a saved one).
void choose_placed_origin(const RecordsWalker& w, Capture& capture) {
    HostTimeline& host = capture.host;
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    for (const auto& p : w.host_orchestrator)
        if (p.has_start && p.start > 0) earliest = std::min(earliest, p.start);
    const ContainmentAlignment& a = capture.clock_alignment;
    if (w.host_origin_ns >= 0) {
        host.origin_ns = w.host_origin_ns, host.origin_source = "metadata";
    } else if (w.host_timeline_origin_ns >= 0) {
        host.origin_ns = w.host_timeline_origin_ns, host.origin_source = "metadata";
    } else if (earliest != std::numeric_limits<std::int64_t>::max()) {
        host.origin_ns = earliest, host.origin_source = "host records";
    } else if (a.bounded()) {
        std::int64_t origin = a.host_anchor_min_ns;
        if (!a.placement_json.empty()) {
            auto placement = nlohmann::json::parse(a.placement_json, nullptr, false);
            if (placement.is_object() && placement.contains("place_lo_ns"))
                origin = placement["place_lo_ns"].get<std::int64_t>();
        }
        host.origin_ns = origin, host.origin_source = "clock alignment";
    }
}

/// Host orchestration (§2.6–§2.7, §6.2 steps 5 and 9): puts the host records on the host axis
/// (ns since the host origin) and decides how device times join it: a September file through
/// its containment placement (upstream-2026-09.md §1.12.4), an older one through the clock
/// anchors; without either the device timeline starts after the host timeline ends.
void place_host_timeline(const RecordsWalker& w, Capture& capture, std::int64_t first_cycles,
                         std::int64_t last_cycles, detail::AnchorFit& fit,
                         Diagnostics& diagnostics) {
    if (capture.september()) {
        // The new converter ignores metadata.clock_anchors (§1.2).
        const ContainmentAlignment& a = capture.clock_alignment;
        capture.host.alignment.reason = a.bounded()        ? ""
                                        : a.reason.empty() ? "no clock alignment"
                                                           : a.reason;
        choose_placed_origin(w, capture);
        std::int64_t host_end = place_host_records(w, capture);
        if (a.bounded()) {
            capture.clock.axis = Clock::Axis::HostPlaced;
        } else {
            capture.clock.axis = Clock::Axis::HostComposite;
            capture.clock.host_offset_ns = capture.host.seam_ns = host_end;
        }
        validate_host_capture(w, capture, diagnostics);
        return;
    }
    capture.host.alignment = detail::align_clock(
        w.anchors, capture.clock.freq_hz, first_cycles > 0 ? first_cycles : 1, last_cycles, fit);
    choose_host_origin(w, fit, capture.host);
    std::int64_t host_end = place_host_records(w, capture);
    choose_device_axis(capture, host_end, diagnostics);
    validate_host_capture(w, capture, diagnostics);
}

/// `metadata.runtime` (§1.2), or for a file that predates it the runtime its ids suggest: any
/// id in host_build_graph space 1/2 → host_build_graph (its labels), host orchestration →
/// host_build_graph (older labels), else tensormap_and_ringbuffer (older labels).
Status decide_runtime(const RecordsWalker& w, Capture& capture, const ReadOptions& options) {
    if (w.runtime_present && !w.runtime.empty()) {
        if (w.runtime == "host_build_graph") {
            capture.runtime = Runtime::HostBuildGraph, capture.labels = TaskLabels::HostBuildGraph;
        } else if (w.runtime == "tensormap_and_ringbuffer") {
            capture.runtime = Runtime::TensormapAndRingbuffer, capture.labels = TaskLabels::Ring;
        } else {
            return Error{fmt::format("metadata.runtime is '{}', which this tool does not decode; "
                                     "expected 'host_build_graph' or 'tensormap_and_ringbuffer'",
                                     w.runtime),
                         options.source_name, 0};
        }
        capture.runtime_given = true;
        return ok_status();
    }
    const std::size_t aicore_rows = w.aicore.size() / 7;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        auto space = hbg_space(static_cast<std::uint64_t>(w.aicore[i * 7 + 1]));
        if (space == 1 || space == 2) {
            capture.runtime = Runtime::HostBuildGraph, capture.labels = TaskLabels::HostBuildGraph;
            return ok_status();
        }
    }
    if (capture.host_orchestration) capture.runtime = Runtime::HostBuildGraph;
    return ok_status();
}

/// Each kind of `scheduler_records` damage upstream's converter refuses (§1.5), said once with
/// the first occurrence's line and what ptune did instead.
void report_refusals(const RecordsWalker& w, const std::string& source, Diagnostics& diagnostics) {
    static constexpr std::string_view kInstead[] = {
        "ptune read the fields it knows, took missing ones as absent and ignored the others",
        "ptune dropped the record",
        "ptune ignored the metric",
        "ptune ignored the metric",
        "ptune kept the record's own values (a metric only adds fields to its record) and merged "
        "the metric's other fields",
    };
    static constexpr std::string_view kWhat[] = {"record(s)", "record(s)", "metric(s)", "metric(s)",
                                                 "metric(s)"};
    for (std::size_t k = 0; k < w.refusals.size(); ++k) {
        const RefusalSeen& seen = w.refusals[k];
        if (seen.count == 0) continue;
        diagnostics.warn(source, seen.line,
                         fmt::format("upstream's converter refuses this file ({}); {} ({} {} "
                                     "like this)",
                                     seen.first, kInstead[k], seen.count, kWhat[k]));
    }
}

/// Scheduler producer, streams and lifecycle records as read (§1.4, §1.5, §1.8), with the
/// shape problems upstream refuses reported as warnings (ptune keeps what is usable).
void take_scheduler_facts(const RecordsWalker& w, Capture& capture, Diagnostics& diagnostics) {
    capture.scheduler_producer = w.saw_scheduler_tasks ? w.scheduler_producer
                                 : w.saw_aicpu         ? "aicpu"
                                                       : "";
    if (w.saw_scheduler_tasks && w.scheduler_producer != "aicpu" &&
        w.scheduler_producer != "aicore")
        diagnostics.warn(capture.source, 0,
                         fmt::format("scheduler_tasks.producer is '{}', not 'aicpu' or 'aicore'",
                                     w.scheduler_producer));
    auto mixed = [](unsigned widths) { return (widths & (widths - 1)) != 0; };
    auto list = [](unsigned widths) {
        std::vector<int> out;
        for (int i = 0; i < 32; ++i)
            if (widths & (1u << i)) out.push_back(i);
        return fmt::format("[{}]", fmt::join(out, ", "));
    };
    if (mixed(w.aicore_widths))
        diagnostics.warn(capture.source, 0,
                         fmt::format("aicore_tasks mixes row widths {}", list(w.aicore_widths)));
    if (mixed(w.aicpu_widths))
        diagnostics.warn(
            capture.source, 0,
            fmt::format("{} mixes row widths {}",
                        w.saw_scheduler_tasks ? "scheduler_tasks.records" : "aicpu_tasks",
                        list(w.aicpu_widths)));
    capture.streams = w.streams;
    report_refusals(w, capture.source, diagnostics);
    for (const SchedulerStream& s : capture.streams)
        if (s.present && (s.dropped > 0 || s.truncated))
            diagnostics.warn(
                capture.source, 0,
                fmt::format("scheduler stream {} lost records (committed {}, dropped {}{}); "
                            "phase-derived figures are lower bounds",
                            s.scheduler_id, s.committed, s.dropped,
                            s.truncated ? ", truncated" : ""));
    if (w.lifecycle_malformed)
        diagnostics.warn(capture.source, 0,
                         "aicpu_lifecycle_records must be an array of objects; " +
                             std::to_string(w.lifecycle_malformed) + " entry(ies) ignored");
}

/// The lifecycle intervals on the capture's axis (§1.8): skipped when end ≤ 0 or end < start.
template <class ToNs>
void take_lifecycle(const RecordsWalker& w, Capture& capture, const ToNs& to_ns) {
    for (const auto& l : w.lifecycle) {
        LifecycleRecord record;
        record.thread = l.thread;
        for (std::size_t i = 0; i < record.intervals.size(); ++i) {
            std::int64_t start = l.cycles[2 * i], end = l.cycles[2 * i + 1];
            bool usable = start > 0 && end > 0 && end >= start;
            record.intervals[i] =
                usable ? std::pair(to_ns(start), to_ns(end)) : std::pair(kNoTime, kNoTime);
        }
        capture.lifecycle.push_back(record);
    }
}

/// A text cut short (a capture killed mid-write) still converts what parsed before the damage,
/// with a warning and `capture.truncated` set; only a text with nothing usable is refused.
Status accept_truncation(const RecordsWalker& w, bool complete, const ReadOptions& options,
                         Capture& capture, Diagnostics& diagnostics) {
    if (complete) return ok_status();
    std::size_t line = w.error_line();
    bool nothing = w.aicore.empty() && w.legacy.empty() && w.scheduler.empty() &&
                   w.orchestrator.empty() && w.host_orchestrator.empty();
    if (nothing)
        return Error{fmt::format("not a usable swimlane records file: {}", w.error_message()),
                     options.source_name, line};
    capture.truncated = true;
    capture.truncation_message =
        fmt::format("{}:{}: records end early ({}); converting what parsed before",
                    options.source_name, line, w.error_message());
    diagnostics.warn(options.source_name, line,
                     fmt::format("records end early ({}); converting what parsed before the damage",
                                 w.error_message()));
    return ok_status();
}

/// The level, the core types and their AICPU threads as the file states them, the rows the
/// walker already refused, and whether the host orchestrated the run.
void take_level_and_cores(const RecordsWalker& w, Capture& capture) {
    capture.level_key = w.level_key;
    capture.level = static_cast<int>(w.level);
    for (const auto& name : w.core_type_names) capture.core_types.push_back(parse_core_type(name));
    for (auto t : w.core_to_thread) capture.core_to_thread.push_back(static_cast<int>(t));
    capture.dropped.malformed_rows = w.malformed_rows;
    capture.host_orchestration =
        w.host_source || !w.host_orchestrator.empty() || w.host_capture_object;
}

/// A raw-cycle file needs its AICore rows and one kind of AICPU rows.
Status check_raw_sections(const RecordsWalker& w, const ReadOptions& options) {
    if (!w.saw_aicore)
        return Error{"not a swimlane records file: no `aicore_tasks` or `tasks` section",
                     options.source_name, 0};
    if (w.saw_aicpu && w.saw_scheduler_tasks)
        return Error{"both `aicpu_tasks` and `scheduler_tasks` present; the capture is ambiguous",
                     options.source_name, 0};
    return ok_status();
}

/// The cycle counter's frequency: the file's, else the user's --freq (never overriding the file).
Status choose_clock_frequency(const RecordsWalker& w, const ReadOptions& options, Clock& clock) {
    if (w.clock_freq_invalid) {
        return Error{
            "`metadata.clock_freq_hz` is not a whole number of Hz; fix the "
            "capture (--freq never overrides the file's value)",
            options.source_name, 0};
    }
    if (w.clock_freq_hz > 0) {
        clock.freq_hz = static_cast<std::uint64_t>(w.clock_freq_hz);
        clock.freq_source = "metadata";
    } else if (options.fallback_freq_hz && *options.fallback_freq_hz > 0) {
        clock.freq_hz = *options.fallback_freq_hz;
        clock.freq_source = "--freq";
    } else {
        return Error{
            "no `metadata.clock_freq_hz` in the capture; pass --freq HZ (a2a3 50000000, a5 "
            "1000000000)",
            options.source_name, 0};
    }
    return ok_status();
}

/// The span of the raw device timestamps.
struct RawTimeSpan {
    std::int64_t base = 0;  ///< time base B: the smallest positive timestamp (0: none)
    std::int64_t last = 0;  ///< the largest timestamp: the clock anchors must cover it
};

/// Time base B (§6.2 step 4): over every device timestamp, host ns excluded. An AICore row's
/// earliest time is its receive (start − r2s); a row that never ran (start 0) is dropped later
/// and does not count, as the collector does.
RawTimeSpan find_time_base(const RecordsWalker& w) {
    RawTimeSpan span;
    std::int64_t base = std::numeric_limits<std::int64_t>::max();
    auto consider = [&](std::int64_t c) {
        if (c > 0 && c < base) base = c;
        span.last = std::max(span.last, c);
    };
    const std::size_t aicore_rows = w.aicore.size() / 7;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        if (r[3] == 0) continue;
        consider(r[3] - r[5]);
        consider(r[4]);
    }
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    for (std::size_t i = 0; i < aicpu_rows; ++i)
        consider(w.aicpu[i * 5 + 2]), consider(w.aicpu[i * 5 + 3]);
    for (const auto& p : w.scheduler) consider(p.start), consider(p.end);
    for (const auto& p : w.orchestrator) consider(p.start), consider(p.end);
    // Lifecycle cycles count for the time base (upstream-2026-09.md §1.8).
    for (const auto& l : w.lifecycle)
        for (std::int64_t c : l.cycles) consider(c);
    span.base = base == std::numeric_limits<std::int64_t>::max() ? 0 : base;
    return span;
}

/// The capture side of span containment (§1.12.3), in raw cycles: every positive device
/// timestamp, the aicpu-producer scheduler records' bounds, the AICPU orchestrator records'
/// bounds and the host records' [min, max].
CaptureExtent capture_extent(const RecordsWalker& w, const Capture& capture) {
    CaptureExtent extent;
    extent.freq_hz = capture.clock.freq_hz;
    auto widen = [](std::optional<std::pair<std::int64_t, std::int64_t>>& bounds, std::int64_t c) {
        if (c <= 0) return;
        if (!bounds)
            bounds.emplace(c, c);
        else
            bounds->first = std::min(bounds->first, c),
            bounds->second = std::max(bounds->second, c);
    };
    std::optional<std::pair<std::int64_t, std::int64_t>> all;
    const std::size_t aicore_rows = w.aicore.size() / 7;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        if (r[3] <= 0) continue;
        widen(all, r[3] - r[5]), widen(all, r[3]), widen(all, r[4]);
    }
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    for (std::size_t i = 0; i < aicpu_rows; ++i)
        widen(all, w.aicpu[i * 5 + 2]), widen(all, w.aicpu[i * 5 + 3]);
    for (const auto& p : w.scheduler) {
        widen(all, p.start), widen(all, p.end);
        const bool aicore_stream =
            p.thread < w.streams.size() && w.streams[p.thread].producer == "aicore";
        if (!aicore_stream) widen(extent.sched, p.start), widen(extent.sched, p.end);
    }
    for (const auto& p : w.orchestrator)
        widen(all, p.start), widen(all, p.end), widen(extent.orch, p.start),
            widen(extent.orch, p.end);
    for (const auto& l : w.lifecycle)
        for (std::int64_t c : l.cycles) widen(all, c);
    if (all) extent.has_extent = true, extent.first = all->first, extent.last = all->second;
    std::optional<std::pair<std::int64_t, std::int64_t>> host;
    for (const auto& p : w.host_orchestrator)
        widen(host, p.has_start ? p.start : 0), widen(host, p.has_end ? p.end : 0);
    for (const auto& u : w.uploads) widen(host, u.start_ns), widen(host, u.end_ns);
    extent.host_records = host;
    return extent;
}

/// Raw device timestamps → model ns on the capture's axis, once the clock, the time base and
/// (host orchestration) the device axis are decided. Timestamps of 0 and below are no time.
class DeviceTimeMap {
  public:
    DeviceTimeMap(const Capture& capture, const detail::AnchorFit& fit)
        : clock_(capture.clock),
          fit_(fit),
          base_(capture.clock.origin_ticks),
          host_origin_(capture.host.origin_ns),
          calibrated_(capture.clock.axis == Clock::Axis::HostCalibrated),
          composite_(capture.clock.axis == Clock::Axis::HostComposite),
          placed_(capture.clock.axis == Clock::Axis::HostPlaced),
          anchor_cycles_(capture.clock_alignment.device_anchor_cycles),
          anchor_ns_(capture.clock_alignment.host_anchor_ns) {}

    std::int64_t operator()(std::int64_t c) const {
        if (c <= 0) return kNoTime;
        if (calibrated_)
            return std::clamp(fit_.map(c) - host_origin_, -kMaxHostSpanNs, kMaxHostSpanNs);
        if (placed_) {
            // §1.12.2: host = host_anchor_ns + (c − device_anchor_cycles)·1e9/f.
            std::int64_t delta =
                std::clamp(clock_.ticks_to_ns(c - anchor_cycles_), -kMaxHostSpanNs, kMaxHostSpanNs);
            return std::clamp(anchor_ns_ - host_origin_ + delta, -kMaxHostSpanNs, kMaxHostSpanNs);
        }
        std::int64_t ns = clock_.ticks_to_ns(c - base_);
        if (!composite_) return ns;
        // Behind the host timeline (offset ≤ 2^62): a damaged file's huge time saturates.
        return std::min(ns, kMaxHostSpanNs) + clock_.host_offset_ns;
    }

  private:
    const Clock& clock_;
    const detail::AnchorFit& fit_;
    std::int64_t base_, host_origin_;
    bool calibrated_, composite_, placed_;
    std::int64_t anchor_cycles_, anchor_ns_;
};

/// The row of AICore record `r` (core, token, reg, start, end, r2s, epoch) with its AICore times;
/// nothing (and the drop counted) when it never ran or runs backwards.
std::optional<TaskRow> aicore_row(const std::int64_t* r, Capture& capture,
                                  const DeviceTimeMap& to_ns) {
    if (r[3] <= 0) {
        ++capture.dropped.zero_start;
        return std::nullopt;
    }
    if (r[4] < r[3] || r[0] < 0) {
        ++capture.dropped.reversed;
        return std::nullopt;
    }
    TaskRow row;
    row.task_id = static_cast<std::uint64_t>(r[1]);
    row.core_id = static_cast<std::uint32_t>(r[0]);
    row.core_type = capture.core_type_of(row.core_id);
    row.reg_task_id = static_cast<std::uint32_t>(r[2]);
    row.run_epoch =
        r[6] < 0 ? kNoEpoch : static_cast<std::int32_t>(std::min<std::int64_t>(r[6], INT32_MAX));
    row.start_ns = to_ns(r[3]);
    row.end_ns = to_ns(r[4]);
    row.receive_ns = r[5] > 0 && r[5] < r[3] ? to_ns(r[3] - r[5]) : row.start_ns;
    return row;
}

/// Level 1 (no AICPU stamps), or a capture cut before its AICPU section: AICore timing only.
/// Upstream yields zero tasks at level ≥ 2; showing the AICore rows is more useful.
void take_aicore_rows_alone(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                            Diagnostics& diagnostics) {
    const std::size_t aicore_rows = w.aicore.size() / 7;
    if (capture.level >= 2 && aicore_rows > 0)
        diagnostics.warn(
            capture.source, 0,
            fmt::format("no AICPU rows at level {}; showing AICore timing only", capture.level));
    capture.tasks.reserve(aicore_rows);
    for (std::size_t i = 0; i < aicore_rows; ++i)
        if (auto row = aicore_row(&w.aicore[i * 7], capture, to_ns)) capture.tasks.push_back(*row);
}

/// The row join (§6.2 step 6): each AICPU row (core, reg, dispatch, finish, epoch) with the
/// AICore row of the same (epoch, core, reg). A key that repeats (a file holding several runs
/// without run_epoch: reg_task_id restarts per run) pairs its rows in file order, the k-th AICPU
/// row with the k-th AICore row, never one AICore row twice; surplus AICPU rows fall back to the
/// last AICore row, as upstream's later-wins lookup. AICPU rows without a partner are counted
/// per core in `unmatched_cores`; AICore rows without one are left out.
void join_aicpu_to_aicore(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns,
                          std::vector<std::int64_t>& unmatched_cores, Diagnostics& diagnostics) {
    const std::size_t aicore_rows = w.aicore.size() / 7;
    const std::size_t aicpu_rows = w.aicpu.size() / 5;
    // key → (next AICore row of that key to hand out, last row of the key); rows of one key are
    // chained in file order through next_same.
    struct Cursor {
        std::uint32_t next, last;
    };
    std::unordered_map<std::uint64_t, Cursor> lookup;
    lookup.reserve(aicore_rows * 2);
    constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> next_same(aicore_rows, kEnd);
    std::size_t repeated = 0;
    for (std::size_t i = 0; i < aicore_rows; ++i) {
        const std::int64_t* r = &w.aicore[i * 7];
        auto index = static_cast<std::uint32_t>(i);
        auto [it, fresh] = lookup.try_emplace(join_key(r[6], r[0], r[2]), Cursor{index, index});
        if (!fresh) {
            next_same[it->second.last] = index;
            it->second.last = index;
            ++repeated;
        }
    }
    if (repeated)
        diagnostics.warn(capture.source, 0,
                         fmt::format("{} AICore row(s) repeat a (run_epoch, core_id, reg_task_id) "
                                     "join key (several runs in one file without run_epoch?); "
                                     "rows of one key are joined in file order",
                                     repeated));
    capture.tasks.reserve(aicpu_rows);
    std::vector<bool> joined(aicore_rows, false);
    for (std::size_t i = 0; i < aicpu_rows; ++i) {
        const std::int64_t* a = &w.aicpu[i * 5];
        auto it = lookup.find(join_key(a[4], a[0], a[1]));
        if (it == lookup.end()) {
            ++capture.dropped.aicpu_without_aicore;
            unmatched_cores.push_back(a[0]);
            continue;
        }
        std::uint32_t partner = it->second.next;
        if (next_same[partner] != kEnd) it->second.next = next_same[partner];
        joined[partner] = true;
        auto row = aicore_row(&w.aicore[std::size_t{partner} * 7], capture, to_ns);
        if (!row) continue;
        if (a[2] > 0 && a[3] > 0 && a[3] < a[2]) {
            ++capture.dropped.reversed;
            continue;
        }
        row->dispatch_ns = to_ns(a[2]);
        row->finish_ns = to_ns(a[3]);
        capture.tasks.push_back(*row);
    }
    for (std::size_t i = 0; i < aicore_rows; ++i)
        if (!joined[i] && w.aicore[i * 7 + 3] != 0) ++capture.dropped.aicore_without_aicpu;
}

/// The AICPU scheduler and orchestrator records with usable times, on the device axis.
void take_device_phases(const RecordsWalker& w, Capture& capture, const DeviceTimeMap& to_ns) {
    auto phase_ns = [&](const RawPhase& r, bool start) { return to_ns(start ? r.start : r.end); };
    capture.scheduler_phases.reserve(w.scheduler.size());
    for (const auto& p : w.scheduler) {
        if (!p.has_start || !p.has_end || p.start <= 0 || p.end < p.start) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        capture.scheduler_phases.push_back(make_scheduler_phase(p, w, capture, phase_ns));
    }
    capture.scheduler_arrays = w.scheduler_arrays;
    for (const auto& p : w.orchestrator) {
        if (!p.has_start || !p.has_end || p.start <= 0 || p.end < p.start) {
            ++capture.dropped.malformed_phases;
            continue;
        }
        OrchestratorPhase phase;
        phase.thread = p.thread;
        if (p.kind != 0) phase.phase = w.kinds[p.kind];
        phase.submit_idx = p.submit_idx;
        phase.task_id = p.task_id;
        phase.start_ns = to_ns(p.start);
        phase.end_ns = to_ns(p.end);
        capture.orchestrator_phases.push_back(std::move(phase));
    }
    if (!capture.host_orchestration) capture.orchestrator_arrays = w.orchestrator_arrays;
}

/// The capture from what the walker collected (`complete`: the whole text parsed), in the stages
/// of swimlane.md §6.2: truncation, level and core types, then for a raw-cycle file the clock,
/// the time base, the host alignment, the row join and the phases.
Result<Capture> build_capture(RecordsWalker& w, bool complete, const ReadOptions& options,
                              Diagnostics& diagnostics) {
    Capture capture;
    capture.source = options.source_name;
    if (Status s = accept_truncation(w, complete, options, capture, diagnostics); !s)
        return s.error();
    take_level_and_cores(w, capture);
    if (w.saw_legacy_tasks && !w.saw_aicore)
        return build_legacy(w, std::move(capture), diagnostics);
    if (Status s = check_raw_sections(w, options); !s) return s.error();

    capture.shape = RecordsShape::RawCycles;
    capture.aicore_columns = w.aicore_columns;
    if (Status s = decide_runtime(w, capture, options); !s) return s.error();
    capture.host_clock_domain_id = w.host_clock_domain_id;
    w.place_streams();
    take_scheduler_facts(w, capture, diagnostics);
    if (Status s = choose_clock_frequency(w, options, capture.clock); !s) return s.error();
    RawTimeSpan span = find_time_base(w);
    capture.clock.origin_ticks = span.base;
    decide_clock_alignment(w, capture, options, diagnostics);
    detail::AnchorFit fit;
    if (!capture.host_orchestration && capture.clock_alignment.bounded()) {
        // Device orchestration with a saved placement (§1.12.5 "containment_spliced").
        choose_placed_origin(w, capture);
        capture.clock.axis = Clock::Axis::HostPlaced;
    }
    if (capture.host_orchestration) {
        if (!w.orchestrator.empty())
            return Error{
                "both AICPU and host orchestrator records: the clock-domain source is ambiguous",
                options.source_name, 0};
        place_host_timeline(w, capture, span.base, span.last, fit, diagnostics);
    }
    const DeviceTimeMap to_ns(capture, fit);

    std::vector<std::int64_t> unmatched_cores;
    if (w.aicpu.empty())
        take_aicore_rows_alone(w, capture, to_ns, diagnostics);
    else
        join_aicpu_to_aicore(w, capture, to_ns, unmatched_cores, diagnostics);
    std::stable_sort(capture.tasks.begin(), capture.tasks.end(),
                     [](const TaskRow& a, const TaskRow& b) { return a.task_id < b.task_id; });
    take_device_phases(w, capture, to_ns);
    take_lifecycle(w, capture, to_ns);
    detail::find_runs(capture, diagnostics);
    summarise_drops(capture, unmatched_cores, diagnostics);
    if (capture.tasks.empty() && capture.scheduler_phases.empty() &&
        capture.orchestrator_phases.empty())
        return Error{"no usable task rows or phases in the capture", options.source_name, 0};
    return capture;
}

}  // namespace

Result<Capture> read_capture(std::string_view records_json, const ReadOptions& options,
                             Diagnostics& diagnostics) {
    RecordsWalker w;
    bool complete = detail::walk(records_json, w);
    return build_capture(w, complete, options, diagnostics);
}

Result<Capture> read_capture(std::istream& records_json, const ReadOptions& options,
                             Diagnostics& diagnostics) {
    RecordsWalker w;
    bool complete = detail::walk(records_json, w);
    return build_capture(w, complete, options, diagnostics);
}

}  // namespace ptune::swimlane
