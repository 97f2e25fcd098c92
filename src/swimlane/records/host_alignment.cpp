// Host alignment of a records file (swimlane.md §6.2 step 5, upstream-2026-09.md §1.12): the
// host origin, the host records, the device axis, the clock alignment and the runtime.

#include <fmt/format.h>

#include "ptune/core/json_document.hpp"
#include "stages.hpp"

namespace ptune::swimlane::records {

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
        phase.run_epoch = epoch_of(p.run_epoch);
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
        host.capture_json = json_document::dump(out);
    }
    for (const auto& e : errors) diagnostics.warn(capture.source, 0, "host_capture: " + e);
    host.validation_errors = std::move(errors);
}

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
        saved = validate_saved_alignment(
            w.alignment_kind == 1 ? json_document::dump(w.clock_alignment) : "[]",
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

}  // namespace ptune::swimlane::records
