// The callbacks of the records walk (walker.hpp): sections, metadata, task rows, lifecycle
// records and legacy µs tasks.

#include <algorithm>
#include <cmath>

#include "walker.hpp"

namespace ptune::swimlane::records {

using json_stream::Scalar;

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

void RecordsWalker::on_open(std::size_t level, bool is_object) {
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
            if (level == 3 && !is_object && key_at(2) == "records") row_.clear(), row_ok_ = true;
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

void RecordsWalker::on_close(std::size_t level, bool is_object) {
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

void RecordsWalker::on_scalar(const Scalar& v) {
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
                    clock_freq_hz = !whole ? 0 : v.is_int() ? v.integer : std::llround(v.number);
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
            } else if (section_ == Section::SchedulerRecords && d == 5 && key_at(4) == "capture") {
                std::string_view k = key_at(5);
                if (k == "committed" && v.is_int()) stream_.committed = v.integer;
                if (k == "dropped" && v.is_int()) stream_.dropped = v.integer;
                if (k == "truncated") stream_.truncated = v.type == Scalar::Type::Bool && v.integer;
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

void RecordsWalker::open_metadata(std::size_t level, bool is_object) {
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

bool RecordsWalker::metadata_scalar(std::size_t d, const Scalar& v) {
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
        if (key_at(3) == "raw_device_timestamp_unit") anchors.raw_device_timestamp_unit = v.text;
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

void RecordsWalker::stream_field(std::string_view k, const Scalar& v) {
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

void RecordsWalker::lifecycle_field(std::string_view k, const Scalar& v) {
    if (!v.is_int()) return;
    if (k == "aicpu_thread_id") {
        lifecycle.back().thread = v.integer;
        return;
    }
    for (std::size_t i = 0; i < kLifecycleFields.size(); ++i)
        if (k == kLifecycleFields[i]) lifecycle.back().cycles[i] = v.integer;
}

void RecordsWalker::upload_field(HostUpload& upload, std::string_view k, const Scalar& v) {
    if (k == "phase" && v.type == Scalar::Type::String) upload.phase = v.text;
    if (!v.is_int()) return;
    if (k == "start_host_ns") upload.start_ns = v.integer;
    if (k == "end_host_ns") upload.end_ns = v.integer;
    if (k == "detail") upload.bytes = v.integer;
}

void RecordsWalker::push_cell(const Scalar& v) {
    if (v.is_int())
        row_.push_back(v.integer);
    else
        row_ok_ = false;
}

void RecordsWalker::finish_aicore_row() {
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

void RecordsWalker::finish_aicpu_row() {
    if (!row_ok_ || row_.size() < 4 || row_.size() > 5) {
        ++malformed_rows;
        return;
    }
    aicpu_widths |= 1u << row_.size();
    aicpu.insert(aicpu.end(), row_.begin(), row_.begin() + 4);
    aicpu.push_back(row_.size() == 5 ? row_[4] : kNoEpoch);
}

void RecordsWalker::legacy_field(std::string_view k, const Scalar& v) {
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

}  // namespace ptune::swimlane::records
