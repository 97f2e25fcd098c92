// Fuzz target: swimlane records files of every generation (read_capture), with and without a
// fallback clock frequency (the first byte chooses it), then the model queries the trace
// writer and the analyzer make of every row, and the trace itself (lanes, graph envelopes,
// host lanes, arrows) rendered into a sink that discards it.

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <streambuf>

#include "fuzz_support.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

namespace swimlane_records_fuzz {

namespace {

std::optional<std::uint64_t> pick_frequency(std::uint8_t selector) {
    switch (selector % 5) {
        case 0:
            return std::nullopt;
        case 1:
            return 50'000'000;  // a2a3
        case 2:
            return 1'000'000'000;  // a5
        case 3:
            return 1;
        default:
            return 3;  // does not divide 1e9: the rounding path
    }
}

/// Accepts and forgets everything.
class Discard : public std::streambuf {
  protected:
    int_type overflow(int_type ch) override { return traits_type::not_eof(ch); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    ptune::swimlane::ReadOptions options;
    options.source_name = "chip_swimlane_records.json";
    options.fallback_freq_hz = pick_frequency(input.option(0));
    ptune::Diagnostics diagnostics;
    auto capture = ptune::swimlane::read_capture(input.text(), options, diagnostics);
    if (!capture) return 0;
    (void)capture->scheduler_thread_count();
    for (const auto& row : capture->tasks) {
        (void)ptune::swimlane::task_display(row.task_id, capture->labels);
        (void)ptune::swimlane::kernel_base_name(row.func_id, nullptr);
        (void)capture->core_type_of(row.core_id);
        for (std::int64_t ns :
             {row.receive_ns, row.start_ns, row.end_ns, row.dispatch_ns, row.finish_ns}) {
            if (ns == ptune::swimlane::kNoTime) continue;
            (void)capture->clock.upstream_us(ns);
            (void)capture->clock.ns_to_ticks(ns);
        }
    }
    for (const auto& phase : capture->scheduler_phases) {
        if (phase.start_ns != ptune::swimlane::kNoTime)
            (void)capture->clock.upstream_us(phase.start_ns);
    }
    Discard discard;
    std::ostream out(&discard);
    ptune::swimlane::TraceSource source;
    source.capture = &*capture;
    ptune::swimlane::TraceCounts counts;
    // The same option byte also picks the encoding and the overhead counters (µs-era fanout
    // lists are a task graph for them).
    ptune::swimlane::TraceOptions trace_options;
    trace_options.format = input.option(0) / 5 % 2 ? ptune::swimlane::TraceFormat::Proto
                                                   : ptune::swimlane::TraceFormat::Json;
    trace_options.overhead = input.option(0) / 10 % 2 == 1;
    (void)ptune::swimlane::write_trace(std::span(&source, 1), trace_options, out, counts);
    return 0;
}

}  // namespace swimlane_records_fuzz
