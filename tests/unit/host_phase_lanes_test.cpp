// host_phase_records.jsonl beside a host-orchestration capture → host phase lanes on pid 1 of
// the merged trace, on the capture's host axis (upstream-2026-09.md §2.8).

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/swimlane/host_phase_lanes.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

namespace host_phase_lanes_test {

using namespace ptune;
using namespace ptune::swimlane;

TEST_CASE("host phase records become lanes of the host process", "[host][swimlane]") {
    const std::string dir = std::string(PTUNE_TEST_DATA) + "/host-lanes/";
    auto text = io::read_file(dir + "chip_swimlane_records.json");
    REQUIRE(text);
    Diagnostics diagnostics;
    auto capture = read_capture(*text, {"chip_swimlane_records.json", {}}, diagnostics);
    REQUIRE(capture);
    REQUIRE(capture->host_orchestration);
    auto lanes = load_host_phase_lanes(dir + "chip_swimlane_records.json", *capture, diagnostics);
    REQUIRE(lanes);
    REQUIRE(lanes->slices.size() == 6);
    CHECK(lanes->slices[0].start_ns == 1400 - capture->host.origin_ns);
    bool truncated_note = false;
    for (const auto& item : diagnostics.items())
        truncated_note |= item.line == 2 && item.severity == Severity::Note;
    CHECK(truncated_note);

    TraceSource source;
    source.capture = &*capture;
    source.host_phases = &*lanes;
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace(std::span<const TraceSource>(&source, 1), {}, out, counts));
    nlohmann::json trace = nlohmann::json::parse(out.str());
    std::vector<std::pair<std::string, double>> drawn;
    std::set<std::int64_t> tids;
    std::map<std::int64_t, std::string> thread_names;
    for (const auto& event : trace["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "thread_name" && event["pid"] == 1)
            thread_names[event["tid"].get<std::int64_t>()] = event["args"]["name"];
        if (event["ph"] != "X" || event.value("cat", "") != "host_phase") continue;
        CHECK(event["pid"] == 1);
        CHECK(event["args"]["phase"] == event["name"]);
        drawn.emplace_back(event["name"], event["ts"].get<double>());
        tids.insert(event["tid"].get<std::int64_t>());
    }
    REQUIRE(drawn.size() == 6);
    // Same axis as the host orchestrator's records: the first submit starts where its
    // orch_submit does (host ns 1500 is the trace origin).
    bool first_submit = false;
    for (const auto& [name, ts] : drawn) first_submit |= name == "submit_task" && ts == 0.0;
    CHECK(first_submit);
    // Nested records overflow into more lanes; the second producer thread has its own.
    CHECK(tids.size() >= 3);
    bool second_thread = false;
    for (const auto& [tid, name] : thread_names) second_thread |= name == "Host phases 4250";
    CHECK(second_thread);
}

TEST_CASE("host phase records are not drawn for a device-orchestrated capture",
          "[host][swimlane]") {
    auto text =
        io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/chip_swimlane_records.json");
    REQUIRE(text);
    Diagnostics diagnostics;
    auto capture = read_capture(*text, {"chip_swimlane_records.json", {}}, diagnostics);
    REQUIRE(capture);
    // A jsonl beside it would be noted and skipped; here there is none at all.
    CHECK_FALSE(load_host_phase_lanes(std::string(PTUNE_TEST_DATA) + "/swimlane/x.json", *capture,
                                      diagnostics));
}

}  // namespace host_phase_lanes_test
