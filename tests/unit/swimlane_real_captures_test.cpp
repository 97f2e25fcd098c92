// Real captures of September 2026 (tests/data/swimlane/real-2026-09/, issue 31): what a reader
// must get right about them — several runs without run_epoch in one file, upstream's console
// block byte for byte, no figure a level-1 capture cannot measure.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/report.hpp"
#include "ptune/swimlane/summary.hpp"

namespace swimlane_real_captures_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

std::string real_file(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/real-2026-09/" + name);
    REQUIRE(text.ok());
    return *text;
}

LoadedCapture load_real(const std::string& folder, Diagnostics& diagnostics) {
    ReadOptions options;
    options.source_name = folder + "/chip_swimlane_records.json";
    auto capture =
        read_capture(real_file(folder + "/chip_swimlane_records.json"), options, diagnostics);
    INFO((capture.ok() ? std::string() : capture.error().to_string()));
    REQUIRE(capture.ok());
    LoadedCapture loaded;
    loaded.capture = std::move(capture).value();
    return loaded;
}

/// Upstream's statistics block in a captured console: from the 140×'=' rule to the 110×'='
/// rule, both included.
std::string upstream_block(const std::string& stdout_text) {
    std::size_t begin = stdout_text.find(std::string(140, '=') + "\n");
    std::size_t end = stdout_text.find("\n" + std::string(110, '=') + "\n");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    return stdout_text.substr(begin, end + 112 - begin);
}

}  // namespace

TEST_CASE("real rank0_d63: seven runs without run_epoch are split, never one 42 s task") {
    Diagnostics diagnostics;
    LoadedCapture loaded = load_real("rank0_d63", diagnostics);
    // Seven 1.0–1.5 µs rows of task r1t0 (reg_task_id 1) on seven cores over 42.86 s: the same
    // task again after idle gaps of seconds is what one run cannot be.
    REQUIRE(loaded.capture.runs.size() == 7);
    for (const RunInfo& run : loaded.capture.runs) {
        CHECK(run.rows == 1);
        CHECK(run.tasks == 1);
    }
    bool warned = false;
    for (const auto& d : diagnostics.items())
        warned = warned || (d.message.find("7 runs in one records file without run_epoch") !=
                                std::string::npos &&
                            d.message.find("idle gaps") != std::string::npos);
    CHECK(warned);
    double longest_row_us = 0;  // receive → end of the longest row
    for (const TaskRow& row : loaded.capture.tasks)
        longest_row_us =
            std::max(longest_row_us, static_cast<double>(row.end_ns - row.receive_ns) / 1e3);
    CHECK(longest_row_us < 3.0);  // rows of 1.0–1.5 µs plus their receive→start
    auto runs = analyze_runs(loaded, {});
    REQUIRE(runs.size() == 7);
    for (const CaptureAnalysis& r : runs) {
        CHECK(r.analysis.tasks == 1);
        // No task longer than its own row (read as one run: a 42860606.56 µs task).
        CHECK(r.analysis.tail.longest_task_us <= longest_row_us);
        CHECK(r.analysis.total_test_time_us <= longest_row_us);
    }
}

TEST_CASE("real level-1 captures: upstream's console block byte for byte") {
    for (const std::string folder : {"rank0_d63", "rank0_d5"}) {
        INFO(folder);
        Diagnostics diagnostics;
        LoadedCapture loaded = load_real(folder, diagnostics);
        Summary summary = summarize(loaded.capture, nullptr);
        // The closing 110×'=' rule after "AICore Observed Span" included; ptune's own lines
        // (runs, clock alignment) are not part of it.
        CHECK(format_summary(summary) ==
              upstream_block(real_file(folder + "/expected_upstream_stdout.txt")));
        std::ostringstream out;
        write_merge_summary(out, {loaded}, "chip_swimlane_records.json", "x.json", 0);
        const std::string text = out.str();
        std::size_t upstream_end = text.find(
            "Scheduler-overhead deep-dive: run sched_overhead_analysis manually with a "
            "separately-captured deps.json (--enable-dep-gen).\n");
        REQUIRE(upstream_end != std::string::npos);
        if (folder == "rank0_d63") CHECK(text.find("Runs: 7") > upstream_end);
    }
}

TEST_CASE("real level-1 capture: no figure a level-1 capture cannot measure") {
    Diagnostics diagnostics;
    LoadedCapture loaded = load_real("rank0_d5", diagnostics);
    loaded.files.records = "rank0_d5/chip_swimlane_records.json";
    CaptureAnalysis result = analyze_capture(loaded, {});
    REQUIRE_FALSE(result.input.has_aicpu_timing);
    rules::MetricStore store;
    render::Report report = build_report(loaded, result, store, {});
    const nlohmann::json& functions = report.data.at("functions");
    REQUIRE_FALSE(functions.empty());
    for (const auto& f : functions) {
        // Without dispatch/finish times tail, head, latency and propagation are unmeasured
        // (the text table prints "-"); a negative tail_sum_us (−4064.12) contradicted itself.
        CHECK(f.at("tail_sum_us").is_null());
        CHECK(f.at("head_sum_us").is_null());
        CHECK(f.at("latency_sum_us").is_null());
        CHECK(f.at("prop_sum_us").is_null());
        CHECK(f.at("exec_sum_us").get<double>() > 0);
    }
}

}  // namespace swimlane_real_captures_test
