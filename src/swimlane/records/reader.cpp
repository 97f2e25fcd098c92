// Reader of chip swimlane records files of every generation (swimlane.md §2, §2.8, §2.9).
// One SAX pass (records/walker.hpp) collects raw rows into flat vectors; the join, the time base
// and the conversion to integer nanoseconds happen afterwards in linear time (plus one sort by
// task id), in the stages of records/stages.hpp.

#include "ptune/swimlane/reader.hpp"
#include "phase_read_ahead.hpp"
#include "runs.hpp"
#include "stages.hpp"

namespace ptune::swimlane {

namespace records {

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

    // The phases first: their block is made while the walk's raw records fill the heap, and
    // the raw records they free (12 MB at 20K tasks) then hold the row join; joined first, the
    // phases' block found no hole and grew the heap by its size (the reader's peak).
    take_device_phases(w, capture, to_ns);
    std::vector<std::int64_t> unmatched_cores;
    if (w.aicpu.empty())
        take_aicore_rows_alone(w, capture, to_ns, diagnostics);
    else
        join_aicpu_to_aicore(w, capture, to_ns, unmatched_cores, diagnostics);
    sort_rows_by_task_id(capture.tasks);
    // The raw rows are joined: their memory goes.
    std::vector<std::int64_t>().swap(w.aicore);
    std::vector<std::int64_t>().swap(w.aicpu);
    take_lifecycle(w, capture, to_ns);
    detail::find_runs(capture, diagnostics);
    summarise_drops(capture, unmatched_cores, diagnostics);
    if (capture.tasks.empty() && capture.scheduler_phases.empty() &&
        capture.orchestrator_phases.empty())
        return Error{"no usable task rows or phases in the capture", options.source_name, 0};
    return capture;
}

}  // namespace records

Result<Capture> read_capture(std::string_view records_json, const ReadOptions& options,
                             Diagnostics& diagnostics) {
    records::RecordsWalker w;
    bool complete = json_stream::walk(records_json, w);
    return records::build_capture(w, complete, options, diagnostics);
}

Result<Capture> read_capture(std::istream& records_json, const ReadOptions& options,
                             Diagnostics& diagnostics) {
    records::RecordsWalker w;
    if (options.read_ahead) w.read_ahead = &options.read_ahead->walk_side();
    bool complete = json_stream::walk(records_json, w);
    if (options.read_ahead) options.read_ahead->finish();  // (its memory before the capture's)
    return records::build_capture(w, complete, options, diagnostics);
}

RecordsReadAhead::RecordsReadAhead(ReadAt read_at, std::uint64_t size)
    : impl_(std::make_unique<records::PhaseReadAhead>(
          std::move(read_at), size, records::PhaseReadAhead::kBlockBytes, false)) {}

RecordsReadAhead::~RecordsReadAhead() {
    finish();
}

void RecordsReadAhead::run() {
    impl_->run();
}

void RecordsReadAhead::finish() {
    impl_->finish();
}

}  // namespace ptune::swimlane
