// `scheduler_records` damage that upstream's converter refuses (upstream-2026-09.md §1.5):
// ptune reads what it can and says once per kind, with the first occurrence's line, what
// upstream would do and what it did instead.

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/swimlane/reader.hpp"

namespace swimlane_stream_refusal_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

/// A level-3 September capture whose one scheduler stream holds `records` and `metrics`
/// (one JSON object per line, as upstream's writer lays them out).
std::string capture_with(const std::vector<std::string>& records,
                         const std::vector<std::string>& metrics) {
    std::string text = R"({
  "chip_swimlane_level": 3,
  "metadata": {
    "runtime": "tensormap_and_ringbuffer",
    "clock_freq_hz": 1000000000,
    "num_cores": 1,
    "core_types": ["aic"],
    "core_to_thread": [0]
  },
  "aicore_tasks": [
    [0, 4294967296, 1, 1000500, 1000600, 0]
  ],
  "scheduler_tasks": {
    "producer": "aicpu",
    "records": [
    [0, 1, 1000400, 1000650]
    ]
  },
  "scheduler_records": {
    "streams": [
      {"platform": "a2a3", "producer": "aicpu", "scheduler_id": 0, "worker_id": 0, "core_type": "aicpu", "physical_core_id": null, "capture": {"committed": 3, "dropped": 0, "truncated": false}, "records": [
)";
    for (std::size_t i = 0; i < records.size(); ++i)
        text += "        " + records[i] + (i + 1 < records.size() ? ",\n" : "\n");
    text += "      ], \"metrics\": [\n";
    for (std::size_t i = 0; i < metrics.size(); ++i)
        text += "        " + metrics[i] + (i + 1 < metrics.size() ? ",\n" : "\n");
    text += "      ]}\n    ]\n  }\n}\n";
    return text;
}

std::string record(long start, long end, const std::string& kind, int tasks,
                   const std::string& extra = "") {
    return "{\"start_cycles\": " + std::to_string(start) +
           ", \"end_cycles\": " + std::to_string(end) + ", \"loop_iter\": 1, \"kind\": \"" + kind +
           "\", \"tasks_processed\": " + std::to_string(tasks) + ", \"task_id\": null" + extra +
           "}";
}

/// 1-based line of the first occurrence of `needle`.
std::size_t line_of(const std::string& text, const std::string& needle) {
    auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

std::vector<Diagnostic> refusals(const Diagnostics& diagnostics) {
    std::vector<Diagnostic> out;
    for (const auto& d : diagnostics.items())
        if (d.message.find("upstream's converter refuses this file") != std::string::npos)
            out.push_back(d);
    return out;
}

Capture read(const std::string& text, Diagnostics& diagnostics) {
    ReadOptions options;
    options.source_name = "records.json";
    auto capture = read_capture(text, options, diagnostics);
    INFO((capture.ok() ? std::string() : capture.error().to_string()));
    REQUIRE(capture.ok());
    return std::move(capture).value();
}

}  // namespace

TEST_CASE("scheduler stream: a clean stream is not reported", "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    Capture capture = read(capture_with({record(1000300, 1000700, "dispatch", 1),
                                         record(1000700, 1000800, "complete", 1)},
                                        {R"({"record_index": 0, "pop_hit": 2, "pop_miss": 0})"}),
                           diagnostics);
    CHECK(refusals(diagnostics).empty());
    REQUIRE(capture.scheduler_phases.size() == 2);
    CHECK(capture.scheduler_phases[0].pop_hit == 2);
}

TEST_CASE("scheduler stream: a record whose key set is not exactly the fixed set",
          "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string missing =
        R"({"start_cycles": 1000300, "end_cycles": 1000400, "loop_iter": 1, "kind": "dispatch", "tasks_processed": 1})";
    std::string extra = record(1000400, 1000500, "complete", 1, R"(, "note": [1])");
    std::string text = capture_with({record(1000200, 1000300, "dispatch", 1), missing, extra}, {});
    Capture capture = read(text, diagnostics);
    auto said = refusals(diagnostics);
    REQUIRE(said.size() == 1);  // once per kind, with the first occurrence
    CHECK(said[0].file == "records.json");
    CHECK(said[0].line == line_of(text, missing));
    CHECK(said[0].message ==
          "upstream's converter refuses this file (scheduler stream 0 record 1 must contain "
          "exactly [end_cycles, kind, loop_iter, start_cycles, task_id, tasks_processed]; it has "
          "[end_cycles, kind, loop_iter, start_cycles, tasks_processed]); ptune read the fields it "
          "knows, took missing ones as absent and ignored the others (2 record(s) like this)");
    // Both records are still read: the missing task_id is absent, the extra key ignored.
    REQUIRE(capture.scheduler_phases.size() == 3);
    CHECK(capture.scheduler_phases[1].task_id == -1);
    CHECK(capture.scheduler_phases[2].kind == PhaseKind::Complete);
}

TEST_CASE("scheduler stream: run_epoch on some records only", "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string with_epoch = record(1000200, 1000300, "dispatch", 1, R"(, "run_epoch": 3)");
    std::string without = record(1000300, 1000400, "complete", 1);
    std::string text = capture_with({with_epoch, without}, {});
    read(text, diagnostics);
    auto said = refusals(diagnostics);
    REQUIRE(said.size() == 1);
    CHECK(said[0].line == line_of(text, without));
    CHECK_THAT(said[0].message,
               Catch::Contains("record 1 must contain exactly [end_cycles, kind, loop_iter, "
                               "run_epoch, start_cycles, task_id, tasks_processed]"));
}

TEST_CASE("scheduler stream: a negative interval", "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string reversed = record(1000500, 1000400, "complete", 1);
    std::string text = capture_with({record(1000200, 1000300, "dispatch", 1), reversed,
                                     record(1000600, 1000550, "dispatch", 1)},
                                    {});
    Capture capture = read(text, diagnostics);
    auto said = refusals(diagnostics);
    REQUIRE(said.size() == 1);
    CHECK(said[0].line == line_of(text, reversed));
    CHECK(said[0].message ==
          "upstream's converter refuses this file (scheduler stream 0 record 1 has a negative "
          "interval (end_cycles 1000400 < start_cycles 1000500)); ptune dropped the record (2 "
          "record(s) like this)");
    CHECK(capture.scheduler_phases.size() == 1);
    // Said once: not again as "without usable times".
    for (const auto& d : diagnostics.items())
        CHECK(d.message.find("without usable times") == std::string::npos);
}

TEST_CASE("scheduler stream: metrics without or beyond record_index",
          "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string no_index = R"({"pop_hit": 5})";
    std::string bad_type = R"({"record_index": "0", "pop_hit": 6})";
    std::string beyond = R"({"record_index": 9, "pop_hit": 7})";
    std::string negative = R"({"record_index": -1, "pop_hit": 8})";
    std::string text = capture_with({record(1000200, 1000300, "dispatch", 1)},
                                    {no_index, bad_type, beyond, negative});
    Capture capture = read(text, diagnostics);
    auto said = refusals(diagnostics);
    REQUIRE(said.size() == 2);
    CHECK(said[0].line == line_of(text, no_index));
    CHECK(said[0].message ==
          "upstream's converter refuses this file (scheduler stream 0 has malformed metrics: "
          "metric 0 has no integer record_index); ptune ignored the metric (2 metric(s) like "
          "this)");
    CHECK(said[1].line == line_of(text, beyond));
    CHECK(said[1].message ==
          "upstream's converter refuses this file (scheduler stream 0 metric record_index 9 is "
          "out of range (the stream has 1 record(s))); ptune ignored the metric (2 metric(s) "
          "like this)");
    REQUIRE(capture.scheduler_phases.size() == 1);
    CHECK(capture.scheduler_phases[0].pop_hit == -1);  // none of them merged
}

TEST_CASE("scheduler stream: a metric that overwrites a fixed record field",
          "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string overwrite = R"({"record_index": 0, "tasks_processed": 99, "pop_hit": 4})";
    std::string text = capture_with(
        {record(1000200, 1000300, "dispatch", 2), record(1000300, 1000400, "complete", 1)},
        {overwrite, R"({"record_index": 1, "kind": "release"})"});
    Capture capture = read(text, diagnostics);
    auto said = refusals(diagnostics);
    REQUIRE(said.size() == 1);
    CHECK(said[0].line == line_of(text, overwrite));
    CHECK(said[0].message ==
          "upstream's converter refuses this file (scheduler stream 0 metric 0 (record_index 0) "
          "overwrites fixed record fields: [tasks_processed]); ptune kept the record's own values "
          "(a metric only adds fields to its record) and merged the metric's other fields (2 "
          "metric(s) like this)");
    REQUIRE(capture.scheduler_phases.size() == 2);
    // The record's own fields win; the metric's extra field is merged.
    CHECK(capture.scheduler_phases[0].tasks_processed == 2);
    CHECK(capture.scheduler_phases[0].pop_hit == 4);
    CHECK(capture.scheduler_phases[1].kind == PhaseKind::Complete);
}

TEST_CASE("scheduler stream: an object nested elsewhere in a stream is not a record",
          "[swimlane][stream-refusal]") {
    Diagnostics diagnostics;
    std::string text = capture_with(
        {record(1000300, 1000700, "dispatch", 1), record(1000700, 1000800, "complete", 1)}, {});
    const std::string plain = R"("truncated": false})";
    text.replace(text.find(plain), plain.size(),
                 R"("truncated": false, "detail": {"start_cycles": 5}})");
    Capture capture = read(text, diagnostics);
    CHECK(refusals(diagnostics).empty());
    CHECK(capture.scheduler_phases.size() == 2);
}

}  // namespace swimlane_stream_refusal_test
